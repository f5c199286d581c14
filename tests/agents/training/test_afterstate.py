"""The afterstate net (issue 46): its labels agree with the solver and with what the player sees,
the labelling resumes, training learns what the labels say, and ``exit:`` plays a saved net blind to
hidden cards."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

from patience_gym.agents.policies.afterstate import (
    AfterstateConfig,
    AfterstateNet,
    AfterstatePolicy,
    afterstates,
    is_afterstate,
    load_afterstate,
    save_afterstate,
)
from patience_gym.agents.policies.base import GreedyPolicy
from patience_gym.agents.policies.exit import make_exit, make_planner_net
from patience_gym.agents.policies.shadow import Shadow
from patience_gym.agents.training.afterstate import (
    Behaviour,
    Decisions,
    LabelRun,
    label,
    label_game,
    read_decisions,
    train,
)
from patience_gym.core.cards import card_name
from patience_gym.native import reference
from patience_gym.solver import solve_line
from tests.helpers import check_blind_to_hidden_cards, hidden_twin, script

ENV = "Nestor-v0"


def _run(first_seed: int = 4_000_000, budget: int = 20_000) -> LabelRun:
    options = dict(gym.make(f"patience_gym/{ENV}").unwrapped.game.options)  # type: ignore[attr-defined]
    return LabelRun(ENV, options, budget, first_seed, chunk_games=20)


def _net(obs_size: int, seed: int = 0) -> AfterstateNet:
    torch.manual_seed(seed)
    return AfterstateNet(AfterstateConfig(ENV, {"reserve": "strict"}, obs_size, hidden=16))


def test_every_kept_row_is_the_solvers_verdict_on_what_the_player_would_see(tmp_path: Path) -> None:
    """Each row of a chunk: its decision has moves won and moves lost; its verdict is the solver's
    on the real deal after the game's moves before it and its own; its observation is the one
    :func:`afterstates` gives the player there (a move that shows a card: the shadow's)."""
    label(tmp_path, _run(), 20, say=lambda s: None)
    with np.load(tmp_path / "chunk-00000.npz") as f:
        chunk = {k: f[k] for k in f.files}
    assert int(chunk["games"]) == 20 and len(chunk["y"]) >= 10
    for d in np.unique(chunk["decision"]):
        assert 0 < chunk["y"][chunk["decision"] == d].sum() < (chunk["decision"] == d).sum()
    env = gym.make(f"patience_gym/{ENV}")
    for row in range(0, len(chunk["y"]), 3):
        game_i = int(chunk["seed"][row]) - 4_000_000
        moves = chunk["played"][chunk["offsets"][game_i] : chunk["offsets"][game_i + 1]].tolist()
        before = moves[: chunk["step"][row]]
        env.reset(seed=int(chunk["seed"][row]))
        for a in before:
            env.step(a)
        core: Any = env.unwrapped
        deck = [card_name(c) for c in core.game.initial_pack]
        action = int(chunk["action"][row])
        verdict = solve_line(core.variant, core.game.options, deck, [*before, action], max_nodes=20_000).label
        assert verdict == ("won" if chunk["y"][row] else "lost")
        game = reference(core.game)
        shadow = Shadow()
        acts, views, _ = afterstates(game, partial(shadow.of, game, before), core.action_masks())
        np.testing.assert_allclose(chunk["x"][row], views[acts.index(action)], atol=1e-3)


def test_labelling_resumes_and_refuses_other_settings(tmp_path: Path) -> None:
    label(tmp_path, _run(), 20, say=lambda s: None)
    first = (tmp_path / "chunk-00000.npz").read_bytes()
    said: list[str] = []
    label(tmp_path, _run(), 40, say=said.append)  # the finished chunk kept, the next one played
    assert (tmp_path / "chunk-00000.npz").read_bytes() == first and len(said) == 1 and "chunk 1" in said[0]
    assert json.loads((tmp_path / "run.json").read_text())["budget"] == 20_000
    with pytest.raises(ValueError, match="other settings"):
        label(tmp_path, _run(budget=500), 60, say=lambda s: None)
    data = read_decisions(tmp_path)
    assert data.games == 40 and len(data.count) == len(data.seed) and data.index.max() == len(data.y) - 1
    assert len(read_decisions(tmp_path, limit=1).count) < len(data.count)  # whole chunks up to the limit


def test_a_chunk_with_no_decision_told_apart_is_written_and_read_as_such(tmp_path: Path) -> None:
    """Babette's first training deal: every decision's moves all keep the deal won (the solver sees
    every card), so its chunk holds no row; reading only it says so in one line."""
    options = dict(gym.make("patience_gym/Babette-v0").unwrapped.game.options)  # type: ignore[attr-defined]
    label(tmp_path, LabelRun("Babette-v0", options, 20_000, 4_000_000, chunk_games=1), 1, say=lambda s: None)
    with np.load(tmp_path / "chunk-00000.npz") as f:
        assert f["x"].shape == (0, gym.make("patience_gym/Babette-v0").observation_space.shape[0])  # type: ignore[index]
        assert int(f["decisions"]) > 50 and len(f["y"]) == 0
    with pytest.raises(ValueError, match="no decision the solver told apart"):
        read_decisions(tmp_path)


def test_a_deal_with_no_legal_move_is_a_game_with_no_decision() -> None:
    """The Kings' seed 139 deals no legal move: its labelled game ends at once, lost."""
    env = gym.make("patience_gym/TheKings-v0")
    env.reset(seed=139)
    assert not env.unwrapped.action_masks().any()  # type: ignore[attr-defined]
    game = label_game(env, 139, 1_000, Behaviour(np.random.default_rng(0)))
    assert game.decisions == 0 and game.played == [] and game.y == []


def test_a_dagger_round_labels_the_players_own_games(tmp_path: Path) -> None:
    """With a player, every move of a labelled game is the player's: the same moves as the player
    alone on that deal."""
    env = gym.make(f"patience_gym/{ENV}")
    obs, _ = env.reset(seed=0)
    path = tmp_path / "net.pt"
    save_afterstate(path, _net(obs.shape[0]))
    run = LabelRun(ENV, {"reserve": "strict"}, 20_000, 4_500_000, chunk_games=6, player=f"exit:{path}")
    label(tmp_path / "dagger", run, 6, say=lambda s: None)
    with np.load(tmp_path / "dagger" / "chunk-00000.npz") as f:
        played, offsets = f["played"], f["offsets"]
    for i in range(6):
        alone, player = [], make_exit(str(path))
        obs, _ = env.reset(seed=4_500_000 + i)
        player.reset(4_500_000 + i)
        done = False
        while not done:
            alone.append(player(env.unwrapped, obs))
            obs, _, term, trunc, _ = env.step(alone[-1])
            done = term or trunc
        assert played[offsets[i] : offsets[i + 1]].tolist() == alone


def _toy(decisions: int, rng: np.random.Generator) -> Decisions:
    """Decisions of 3 positions each, 8 numbers a position; the moves that keep the deal won are
    exactly those whose first number is 1.5, not -1.5 (a rule the net can learn)."""
    x = rng.normal(size=(decisions * 3, 8)).astype(np.float16)
    y = np.zeros(decisions * 3, dtype=np.float32)
    for d in range(decisions):
        won = rng.choice(3, size=int(rng.integers(1, 3)), replace=False)
        y[3 * d + won] = 1
    x[:, 0] = 3 * y - 1.5
    index = np.arange(decisions * 3).reshape(decisions, 3)
    return Decisions(x, y, index, np.full(decisions, 3), np.arange(decisions), decisions, decisions, 0.0)


def test_training_learns_which_moves_keep_the_deal_won() -> None:
    data = _toy(4000, np.random.default_rng(0))
    net, stats = train(data, ENV, {}, epochs=5, hidden=32, say=lambda s: None)
    assert stats["held_out_keeps_win"] > 0.95  # chance: about half
    scores = net(torch.as_tensor(data.x[:300].astype(np.float32))).detach().numpy().reshape(-1, 3)
    assert (data.y[:300].reshape(-1, 3)[np.arange(100), scores.argmax(axis=1)] == 1).all()


def test_exit_plays_a_saved_afterstate_net_blind_to_hidden_cards(tmp_path: Path) -> None:
    env = gym.make(f"patience_gym/{ENV}")
    obs, _ = env.reset(seed=0)
    net = _net(obs.shape[0])
    path = tmp_path / "net.pt"
    save_afterstate(path, net, {"meta": {"games": 1}})
    assert is_afterstate(path)
    loaded, blob = load_afterstate(path)
    assert blob["meta"] == {"games": 1}
    x = torch.as_tensor(obs)[None]
    assert torch.equal(loaded(x), net(x))
    policy = make_exit(str(path))
    assert isinstance(policy, AfterstatePolicy) and policy.name == "exit:net"
    with pytest.raises(ValueError, match="afterstate net"):
        make_planner_net(str(path))
    check_blind_to_hidden_cards(gym.make("patience_gym/Klondike-v0"), _klondike_policy, 80)


def _klondike_policy() -> AfterstatePolicy:
    """A net of random weights on Klondike (the same weights every time)."""
    env = gym.make("patience_gym/Klondike-v0")
    obs, _ = env.reset(seed=0)
    torch.manual_seed(1)
    return AfterstatePolicy(
        AfterstateNet(AfterstateConfig("Klondike-v0", {}, obs.shape[0], hidden=16)).eval()
    )


def test_the_positions_scored_are_the_same_on_deals_that_differ_only_in_hidden_cards() -> None:
    """Klondike draw 3, greedy's first moves of deals 0-7 and of their twins (the same seen cards,
    other hidden ones): at each step the observations of every legal move's position agree, those
    of the moves that show a card included (tried in the shadow), while the twins' observations do."""
    env = gym.make("patience_gym/Klondike-v0", draw=3, passes=None)
    shown = 0
    for seed in range(8):
        views = []
        for deck in hidden_twin(env, seed):
            obs, _ = env.reset(seed=seed, options={"deck": deck})
            greedy, shadow, seen = GreedyPolicy(), Shadow(), []
            played: list[int] = []
            greedy.reset(seed)
            for _ in range(30):
                core: Any = env.unwrapped
                game = reference(core.game)
                acts, x, _ = afterstates(game, partial(shadow.of, game, played), core.action_masks())
                seen.append((obs.tobytes(), acts, x, _shows_a_card(game, acts)))
                played.append(greedy(core, obs))
                obs, *_ = env.step(played[-1])
            views.append(seen)
        for (o1, a1, x1, s1), (o2, a2, x2, _) in zip(*views, strict=True):
            if o1 != o2:
                break
            assert a1 == a2
            np.testing.assert_array_equal(x1, x2)
            shown += s1
    assert shown >= 10  # steps compared where some legal move shows a card


def _shows_a_card(game: Any, actions: list[int]) -> bool:
    unseen = len(game.unseen_positions())
    for a in actions:
        trial = game.clone()
        trial.apply(a)
        if len(trial.unseen_positions()) != unseen:
            return True
    return False


def test_the_guard_never_goes_back_where_a_new_position_is_open() -> None:
    """A net that scores going back best: the guard still plays to a position not met, wherever
    one is open (Klondike's moves between piles can be undone)."""
    env = gym.make("patience_gym/Klondike-v0", draw=3, passes=None)
    obs, _ = env.reset(seed=4)
    policy = AfterstatePolicy(_net(obs.shape[0]))
    policy.reset(4)
    met: set[object] = set()
    for _ in range(60):
        core: Any = env.unwrapped
        game = reference(core.game)
        met.add(game.state_key())
        _, _, keys = afterstates(game, partial(policy.shadow.of, game, policy.history), core.action_masks())
        action = policy(core, obs)
        acts = np.flatnonzero(core.action_masks()).tolist()
        if any(k not in met for k in keys):
            assert keys[acts.index(action)] not in met
        obs, _, term, trunc, _ = env.step(action)
        if term or trunc:
            break


def test_the_script_refuses_bad_input_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli = script("afterstate")
    with pytest.raises(SystemExit) as no_labels:
        cli.main(["train", "--root", str(tmp_path), "--env", ENV, "--out", str(tmp_path / "n.pt")])
    assert no_labels.value.code == 1 and "run.json" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["label", "--root", str(tmp_path), "--env", ENV, "--games", "0"])
    assert "--games must be a whole number >= 1, got 0" in capsys.readouterr().err
    view = ["label", "--root", str(tmp_path), "--env", ENV, "--games", "1", "--view", "reserve=open"]
    with pytest.raises(SystemExit) as not_a_view:
        cli.main(view)
    assert not_a_view.value.code == 1
    assert "not a view option of Nestor-v0 (its view options: none)" in capsys.readouterr().err


def test_a_view_option_labels_under_its_observation(tmp_path: Path) -> None:
    cli = script("afterstate")
    args = ["label", "--root", str(tmp_path), "--env", "Louis-v0", "--games", "1", "--chunk", "1"]
    assert cli.main([*args, "--budget", "2000", "--view", "recall=true"]) == 0
    run = json.loads((tmp_path / "Louis-v0" / "solver" / "run.json").read_text())
    assert run["options"] == {"deal": "cadogan", "recall": True}
