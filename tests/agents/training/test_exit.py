"""Expert iteration (issue 46): the labeller's files, their replay, the net's training and play,
and the ``exit`` and ``planner+net`` specs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from patience_gym.agents.cli import main as cli_main
from patience_gym.agents.policies.exit import MacroNetPolicy, make_exit, make_planner_net
from patience_gym.agents.policies.exit_net import ExitPolicy, load_net, native_value_net, save_net
from patience_gym.agents.policies.planner import PlannerPolicy
from patience_gym.agents.registry import make_policy
from patience_gym.agents.training.exit import (
    EXIT_DEAL_SEED,
    LabelRun,
    chunk_path,
    finished_chunks,
    label,
    label_game,
    make_env,
    read_games,
    replay,
)
from patience_gym.agents.training.exit_train import losses, new_net, train
from patience_gym.games.klondike import TABLE as klondike_table
from patience_gym.games.klondike import Kind as KlondikeKind
from tests.helpers import check_blind_to_hidden_cards, script

ENV = "Nestor-v0"
LABELLER = "planner:samples=2,budget=300"


def _run(first_seed: int = EXIT_DEAL_SEED, player: str | None = None) -> LabelRun:
    options = dict(make_env(ENV).unwrapped.game.options)  # type: ignore[attr-defined]
    return LabelRun(ENV, options, LABELLER, first_seed, chunk_games=3, player=player)


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("exit") / ENV / "planner"
    assert label(folder, _run(), chunks=2, make_labeller=lambda: make_policy(LABELLER)) == 2
    return folder


def test_the_files_replay_to_the_recorded_decisions(labelled: Path) -> None:
    games = list(read_games(labelled))
    assert [g.seed for g in games] == list(range(EXIT_DEAL_SEED, EXIT_DEAL_SEED + 6))
    run = _run()
    data = replay(ENV, run.options, games)
    assert len(data) == sum(len(g.decisions) for g in games) > 0
    assert data.games == 6
    for g in games:
        assert len(g.how) == len(g.decisions)
        for t, moves, shares in g.decisions:
            assert moves == sorted(moves) and abs(sum(shares) - 1) < 1e-3
            assert g.actions[t] in moves or g.how[g.decisions.index((t, moves, shares))] == "g"
    obs, moves, target = data.batch(np.arange(len(data)))
    assert np.allclose(target.sum(1), 1, atol=1e-3)  # every share on a legal move
    assert ((target > 0) <= (moves[..., 0] > 0)).all()
    # the first decision's observation is the deal's, as the env shows it
    first = games[0]
    env = make_env(ENV)
    o, _ = env.reset(seed=first.seed)
    for a in first.actions[: first.decisions[0][0]]:
        o, *_ = env.step(a)
    assert np.allclose(obs[0], o, atol=1e-3)


def test_play_sees_the_inputs_and_targets_it_learnt_from(labelled: Path) -> None:
    """At every recorded decision the observation and move features a playing net is given (the
    env of ``exit:`` and ``play_many``) are those replay trained it on, and the target's largest
    share is on the legal move the planner played (its vote's first move, ties to the lowest id)."""
    from patience_gym.move_features import move_features

    games = list(read_games(labelled))
    data = replay(ENV, _run().options, games)
    obs, moves, target = data.batch(np.arange(len(data)))
    env = make_env(ENV)
    core = env.unwrapped
    row = 0
    for g in games:
        o, _ = env.reset(seed=g.seed)
        steps = {t for t, _, _ in g.decisions}
        for t, a in enumerate(g.actions):
            if t in steps:
                assert np.abs(obs[row] - o).max() < 1e-3  # stored as float16
                assert np.array_equal(moves[row], move_features(core))
                assert int(target[row].argmax()) == a and moves[row, a, 0] == 1
                row += 1
            o, *_ = env.step(a)
    assert row == len(data)


def test_a_move_that_is_not_legal_is_refused(labelled: Path) -> None:
    game = next(read_games(labelled))
    game.actions[0] = 10_000 % make_env(ENV).unwrapped.game.n_actions  # type: ignore[attr-defined]
    env = make_env(ENV)
    env.reset(seed=game.seed)
    if env.unwrapped.action_masks()[game.actions[0]]:  # type: ignore[attr-defined]
        pytest.skip("that move happens to be legal")
    with pytest.raises(ValueError, match="is not legal"):
        replay(ENV, _run().options, [game])


def test_the_resumed_run_skips_finished_chunks(labelled: Path, tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    for c in (0, 1):
        (folder / chunk_path(folder, c).name).write_bytes(chunk_path(labelled, c).read_bytes())
    (folder / "run.json").write_text((labelled / "run.json").read_text())
    before = {c: chunk_path(folder, c).stat().st_mtime_ns for c in (0, 1)}
    chunk_path(folder, 2).with_suffix(".tmp").write_text("a chunk stopped half way")
    assert finished_chunks(folder) == [0, 1]
    made = []
    written = label(folder, _run(), chunks=3, make_labeller=lambda: made.append(1) or make_policy(LABELLER))
    assert written == 1 and finished_chunks(folder) == [0, 1, 2]
    assert {c: chunk_path(folder, c).stat().st_mtime_ns for c in (0, 1)} == before
    with gzip.open(chunk_path(folder, 2), "rt") as f:
        assert [json.loads(line)["seed"] for line in f] == list(_run().seeds(2))
    assert label(folder, _run(), chunks=3, make_labeller=lambda: pytest.fail("nothing left to label")) == 0


def test_a_run_with_other_settings_is_refused(labelled: Path) -> None:
    with pytest.raises(ValueError, match="other settings"):
        label(labelled, _run(first_seed=7), chunks=1, make_labeller=lambda: make_policy(LABELLER))


def test_the_planners_vote_shares_sum_to_one_and_favour_its_move() -> None:
    planner = PlannerPolicy(samples=6, budget=2000)
    env = make_env(ENV)
    obs, _ = env.reset(seed=EXIT_DEAL_SEED + 1)
    planner.reset(EXIT_DEAL_SEED + 1)
    core = env.unwrapped
    done = False
    while not done:
        action = planner(core, obs)  # type: ignore[arg-type]
        shares = planner.vote_shares()
        assert abs(sum(shares.values()) - 1) < 1e-9
        assert shares[action] == max(shares.values())
        assert set(shares) <= set(np.flatnonzero(core.action_masks()).tolist())  # type: ignore[attr-defined]
        obs, _, term, trunc, _ = env.step(action)
        done = term or trunc


def _net(labelled: Path, inputs: str = "native") -> tuple[torch.nn.Module, object]:
    data = replay(ENV, _run().options, list(read_games(labelled)), inputs=inputs)
    return new_net(data, ENV, _run().options, hidden=32, inputs=inputs), data


def test_the_loss_decreases_on_a_tiny_set(labelled: Path, tmp_path: Path) -> None:
    torch.set_num_threads(1)
    net, data = _net(labelled)
    stats = train(net, data, epochs=25, batch_size=32, lr=3e-3, report=lambda s: None)  # type: ignore[arg-type]
    assert stats.policy_loss[-1] < 0.5 * stats.policy_loss[0]
    assert stats.value_loss[-1] < stats.value_loss[0]
    assert stats.agreement[-1] > 0.75  # far above a random pick among the legal moves


def test_training_resumes_from_its_checkpoint(labelled: Path, tmp_path: Path) -> None:
    torch.set_num_threads(1)
    net, data = _net(labelled)
    ckpt = tmp_path / "net.ckpt"
    train(net, data, epochs=2, batch_size=32, checkpoint=ckpt, report=lambda s: None)  # type: ignore[arg-type]
    lines: list[str] = []
    again, _ = _net(labelled)
    stats = train(again, data, epochs=3, batch_size=32, checkpoint=ckpt, report=lines.append)  # type: ignore[arg-type]
    assert lines[0].startswith("resumed") and stats.epochs == 3 and len(stats.policy_loss) == 3
    assert len(lines) == 2  # the resumed note and one epoch


def test_a_saved_net_plays_legal_moves_as_it_was_trained(labelled: Path, tmp_path: Path) -> None:
    torch.set_num_threads(1)
    net, data = _net(labelled)
    path = tmp_path / "net.pt"
    save_net(path, net)  # type: ignore[arg-type]
    loaded, _ = load_net(path)
    obs, moves, _ = data.batch(np.arange(4))  # type: ignore[attr-defined]
    with torch.no_grad():
        ours = net(torch.as_tensor(obs), torch.as_tensor(moves))[0]
        theirs = loaded(torch.as_tensor(obs), torch.as_tensor(moves))[0]
    assert torch.equal(ours, theirs)
    policy = make_exit(str(path))
    env = make_env(ENV)
    obs1, _ = env.reset(seed=3)
    done = False
    while not done:
        a = policy(env.unwrapped, obs1)  # type: ignore[arg-type]
        assert env.unwrapped.action_masks()[a]  # type: ignore[attr-defined]
        obs1, _, term, trunc, _ = env.step(a)
        done = term or trunc


def test_a_dagger_game_plays_the_players_moves_and_records_the_labellers(
    labelled: Path, tmp_path: Path
) -> None:
    torch.set_num_threads(1)
    net, _ = _net(labelled)
    player = ExitPolicy(net)  # type: ignore[arg-type]
    env = make_env(ENV)
    record = label_game(env, make_policy(LABELLER), 4_000_000, player=player)
    env2 = make_env(ENV)
    obs, _ = env2.reset(seed=4_000_000)
    player.reset(4_000_000)
    for a in record.actions:  # the player's moves: replayed, each is the net's choice
        assert a == player(env2.unwrapped, obs)  # type: ignore[arg-type]
        obs, *_ = env2.step(a)


def test_exit_refuses_an_unknown_variant_in_one_line() -> None:
    with pytest.raises(ValueError) as err:
        make_policy("exit:no-such-game")
    assert "\n" not in str(err.value)
    assert "exit:<variant>" in str(err.value) and "<model file>" in str(err.value)
    with pytest.raises(ValueError, match="planner\\+net:<variant>"):
        make_policy("planner+net:no-such-game")


def test_planner_net_plays_the_nets_move_where_no_sample_is_won(labelled: Path, tmp_path: Path) -> None:
    torch.set_num_threads(1)
    net, _ = _net(labelled)
    path = tmp_path / "net.pt"
    save_net(path, net)  # type: ignore[arg-type]
    planner = make_planner_net(f"{path},samples=1,budget=1,retry=1")
    assert planner.fallback_policy is not None and planner.samples == 1
    env = make_env(ENV)
    obs, _ = env.reset(seed=11)
    planner.reset(11)
    done = False
    while not done:
        obs, _, term, trunc, _ = env.step(planner(env.unwrapped, obs))  # type: ignore[arg-type]
        done = term or trunc
    assert planner.stats["net"] > 0 and planner.stats["greedy"] == 0


def test_losses_ignore_moves_without_share() -> None:
    net = new_net(
        type("D", (), {"obs_size": 3, "n_actions": 4, "k": 11})(),  # type: ignore[arg-type]
        ENV,
        {},
        hidden=8,
    )
    obs = torch.zeros(1, 3)
    moves = torch.zeros(1, 4, 11)
    moves[0, [1, 2], 0] = 1
    target = torch.tensor([[0.0, 1.0, 0.0, 0.0]])
    p, v, _ = losses(net, obs, moves, target, torch.ones(1), torch.ones(1))
    assert torch.isfinite(p) and torch.isfinite(v)  # -inf logits of illegal moves add nothing


def test_a_deal_with_no_legal_move_is_a_game_without_decisions() -> None:
    env = make_env("TheKings-v0")
    env.reset(seed=2_000_090)  # dealt with no legal move
    assert not env.unwrapped.action_masks().any()  # type: ignore[attr-defined]
    record = label_game(env, make_policy("planner:samples=1,budget=10"), 2_000_090)
    assert record.actions == [] and record.decisions == [] and not record.won


def test_the_curve_script_resumes_at_the_points_it_lacks(
    labelled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    curve = script("exit_curve")
    points = tmp_path / "curve.json"
    common = ["--root", str(labelled.parent.parent), "--env", ENV, "--episodes", "3", "--min-steps", "2"]
    common += ["--points", str(points)]
    assert curve.main([*common, "--decisions", "20"]) == 0
    first = json.loads(points.read_text())
    assert len(first) == 1 and first[0]["planner_decisions"] == 20 and first[0]["episodes"] == 3
    assert first[0]["decisions"] >= 20 and 0 <= first[0]["wins"] <= 3
    capsys.readouterr()
    assert curve.main([*common, "--decisions", "20", "--decisions", "40"]) == 0
    assert "at 20 decisions: done already" in capsys.readouterr().out
    assert [p["planner_decisions"] for p in json.loads(points.read_text())] == [20, 40]


def _successors(env: object) -> dict[int, object]:
    """Each legal move of the env's position and the position's key it leads to."""
    core = env.unwrapped  # type: ignore[attr-defined]
    out = {}
    for a in np.flatnonzero(core.action_masks()):
        game = core.game.clone()
        game.apply(int(a))
        out[int(a)] = game.state_key()
    return out


def test_the_guard_plays_the_most_likely_move_to_the_positions_met_least(labelled: Path) -> None:
    torch.set_num_threads(1)
    net, _ = _net(labelled)
    env = make_env(ENV)
    obs, _ = env.reset(seed=1)
    core = env.unwrapped
    after = _successors(env)
    assert len(after) == 4  # seed 1 opens with four moves
    guard, plain = ExitPolicy(net), ExitPolicy(net, revisits=False)  # type: ignore[arg-type]
    logits, _ = plain.scores(core, obs)  # type: ignore[arg-type]
    order = sorted(after, key=lambda a: -logits[a])
    assert plain(core, obs) == guard(core, obs) == order[0]  # type: ignore[arg-type]  # nothing met yet
    guard.reset(1)
    guard.visits[after[order[0]]] = 1  # the net's favourite leads back to a position met
    assert guard(core, obs) == order[1]  # type: ignore[arg-type]
    guard.reset(1)
    for rank, a in enumerate(order):
        guard.visits[after[a]] = 2 if rank < len(order) - 1 else 1
    assert guard(core, obs) == order[-1]  # type: ignore[arg-type]  # the least met, though least likely
    assert guard.visits[core.state_key()] == 1  # type: ignore[attr-defined]  # and this position is counted


def test_the_guard_never_goes_back_where_a_new_position_is_open() -> None:
    """The Kings has moves back and forth: the shipped 60,000-decision net walked cycles there
    until the step limit, varying only the move at a position met again (docs/exit.md). With
    greedy's guard, a move to a position met is played only where every move leads to one."""
    torch.set_num_threads(1)
    env = make_env("TheKings-v0")
    core: Any = env.unwrapped
    shape: Any = type("D", (), {"obs_size": core.game.layout.size, "n_actions": core.game.n_actions, "k": 11})
    player = ExitPolicy(new_net(shape, "TheKings-v0", {}, hidden=8))
    tempted = 0  # decisions where the net's favourite led back while a new position was open
    for seed in (5, 8):
        obs, _ = env.reset(seed=seed)
        player.reset(seed)
        met = {core.state_key()}
        done, steps = not core.action_masks().any(), 0
        while not done and steps < 300:
            after = _successors(env)
            fresh = any(k not in met for k in after.values())
            logits, _ = player.scores(core, obs)
            tempted += fresh and after[int(np.argmax(logits))] in met
            obs, _, term, trunc, _ = env.step(player.choose(core, logits))
            assert core.state_key() not in met or not fresh
            met.add(core.state_key())
            done, steps = term or trunc, steps + 1
    assert tempted > 0  # the guard had cycles to refuse


@pytest.mark.parametrize("inputs", ["native", "native+greedy"])
def test_many_games_at_once_play_as_one_at_a_time(labelled: Path, inputs: str) -> None:
    from patience_gym.agents.evaluation.evaluate import evaluate
    from patience_gym.agents.policies.exit_net import play_many

    torch.set_num_threads(1)
    net, _ = _net(labelled, inputs)
    one = evaluate(ENV, ExitPolicy(net), episodes=12, seed=0)  # type: ignore[arg-type]
    many = play_many(net, range(12))  # type: ignore[arg-type]
    assert [p.seed for p in many] == list(range(12))
    assert [(e.won, e.foundation_cards, e.length) for e in one.episodes] == [
        (p.won, p.cards, p.length) for p in many
    ]


def test_the_training_script_writes_a_card_with_data_compute_and_rows(labelled: Path, tmp_path: Path) -> None:
    trainer = script("exit_train")
    out = tmp_path / "net.pt"
    root = str(labelled.parent.parent)
    assert (
        trainer.main(["--root", root, "--env", ENV, "--out", str(out), "--epochs", "1", "--episodes", "2"])
        == 0
    )
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["labeller"] == LABELLER and card["folders"] == {"planner": "2000000..2000005 (6 games)"}
    assert card["decisions"] == sum(len(g.decisions) for g in read_games(labelled))
    assert card["heldout"]["seeds"] == "0..1" and card["check"]["seeds"] == "5000..5001"
    assert card["label_cpu_seconds"] >= 0 and card["core_hours"] >= 0
    assert "not reward-only RL" in card["method"]
    env = make_env(ENV)
    obs, _ = env.reset(seed=1)
    assert env.unwrapped.action_masks()[make_exit(str(out))(env.unwrapped, obs)]  # type: ignore[arg-type, attr-defined]


def test_a_view_option_trains_the_net_on_its_observation_and_the_net_asks_for_it(
    labelled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Labels played with the default observation train a net on ``recall=True``'s (the play is
    the same); the net then refuses an env of the other size, naming its options."""
    folder = tmp_path / "Babette-v0" / "greedy"
    run = LabelRun("Babette-v0", {"recall": False}, "greedy", EXIT_DEAL_SEED, chunk_games=2)
    assert label(folder, run, chunks=1, make_labeller=lambda: make_policy("greedy")) == 1
    trainer = script("exit_train")
    out = tmp_path / "net.pt"
    args = ["--root", str(tmp_path), "--env", "Babette-v0", "--out", str(out), "--epochs", "1"]
    assert trainer.main([*args, "--view", "recall=true"]) == 0
    assert json.loads(out.with_suffix(".json").read_text())["options"] == {"recall": True}
    policy = make_exit(str(out))
    env = make_env("Babette-v0", {"recall": True})
    obs, _ = env.reset(seed=1)
    assert env.unwrapped.action_masks()[policy(env.unwrapped, obs)]  # type: ignore[arg-type, attr-defined]
    plain = make_env("Babette-v0")
    obs, _ = plain.reset(seed=1)
    with pytest.raises(ValueError, match=r"reads 5731 observation floats .*'recall': True.* gives 5575"):
        policy(plain.unwrapped, obs)  # type: ignore[arg-type]
    cli = ["evaluate", "--env", "Babette-v0", "--policy", f"exit:{out}", "--episodes", "1"]
    assert cli_main(cli) == 2
    assert (
        "make it with the net's options (evaluate: --set env_kwargs.recall=true)" in capsys.readouterr().err
    )
    assert cli_main([*cli, "--set", "env_kwargs.recall=true"]) == 0
    for view, said in (
        ("recall=maybe", "recall='maybe' (a str, not bool) is not allowed; choose one of False, True"),
        ("draw=3", "its view options: recall"),
    ):
        with pytest.raises(SystemExit):
            trainer.main([*args, "--view", view])
        assert said in capsys.readouterr().err
    nestor = [
        "--root",
        str(labelled.parent.parent),
        "--env",
        ENV,
        "--out",
        str(out),
        "--view",
        "reserve=open",
    ]
    with pytest.raises(SystemExit):
        trainer.main(nestor)
    assert "not a view option of Nestor-v0 (its view options: none)" in capsys.readouterr().err


def test_every_variant_ships_a_net_with_a_card_with_its_rows_and_plays_by_its_name(env_name: str) -> None:
    """Every registered variant (conftest's ``env_name``) ships a net: ``exit:<variant>`` is a
    yardstick everywhere, its card giving its data and its rows on both sets of deals."""
    from patience_gym.agents.policies.exit import shipped_net

    path = shipped_net(env_name.removesuffix("-v0").lower())
    assert path is not None and path.name == f"{env_name}.pt"
    card = json.loads(path.with_suffix(".json").read_text())
    assert card["env"] == env_name and card["spec"] == f"exit:{env_name}"
    for key, seeds in (("heldout", "0..999"), ("check", "5000..5999")):
        assert card[key]["seeds"] == seeds and card[key]["games"] == 1000
        assert card[key]["win_rate"] == card[key]["wins"] / 1000
    assert "not reward-only RL" in card["method"] and card["decisions"] >= 30_000
    policy = make_policy(f"exit:{env_name}")
    assert policy.name == f"exit:{env_name}"


def _same_position(actions: list[int], t: int, j: int) -> bool:
    """Babette seed 7: move ``j`` played before move ``t`` reaches the position after move ``j``."""
    ours, theirs = make_env("Babette-v0"), make_env("Babette-v0")
    ours.reset(seed=7)
    theirs.reset(seed=7)
    for a in [*actions[:t], actions[j], *actions[t:j]]:
        if not ours.unwrapped.action_masks()[a]:  # type: ignore[attr-defined]
            return False
        ours.step(a)
    for a in actions[: j + 1]:
        theirs.step(a)
    return bool(ours.unwrapped.state_key() == theirs.unwrapped.state_key())  # type: ignore[attr-defined]


def test_interchange_shares_the_target_with_moves_that_reach_the_same_position() -> None:
    """Babette's cards to the foundations mostly commute: ``replay(interchange=N)`` splits a
    one-move target with the next moves played that, played first, reach the very position the
    game reached (checked here on fresh envs, move by move)."""
    env = make_env("Babette-v0")
    record = label_game(env, make_policy("greedy"), 7)
    plain = replay("Babette-v0", {}, [record])
    shared = replay("Babette-v0", {}, [record], interchange=8)
    assert np.array_equal(plain.move_action, shared.move_action) and len(plain) == len(shared)
    _, _, t_plain = plain.batch(np.arange(len(plain)))
    _, _, target = shared.batch(np.arange(len(shared)))
    assert np.allclose(target.sum(1), 1, atol=1e-5)
    several = 0
    for row, (t, _, _) in enumerate(record.decisions):
        moves = np.flatnonzero(target[row])
        assert record.actions[t] in moves and t_plain[row, record.actions[t]] == 1
        several += len(moves) > 1
        for b in moves:
            if b == record.actions[t]:
                continue
            later = [j for j in range(t + 1, min(t + 9, len(record.actions))) if record.actions[j] == b]
            assert any(_same_position(record.actions, t, j) for j in later)
    assert several > len(record.decisions) // 4


def test_kind_weights_lift_the_rare_kinds_of_move_to_mean_one(labelled: Path) -> None:
    from patience_gym.agents.training.exit_train import kind_weights

    data = replay(ENV, _run().options, list(read_games(labelled)))
    assert np.array_equal(kind_weights(data, 0.0), np.ones(len(data)))
    w = kind_weights(data, 1.0)
    assert abs(w.mean() - 1) < 1e-5
    off = data.move_offsets
    top = [off[i] + int(np.argmax(data.target[off[i] : off[i + 1]])) for i in range(len(data))]
    kind = data.move_features[top, 8]
    for k in set(kind.tolist()):  # every kind weighs the same in all: its count times its weight
        assert w[kind == k].sum() == pytest.approx(len(data) / len(set(kind.tolist())), rel=1e-3)


def test_greedys_inputs_name_greedys_move_where_the_net_learns_and_plays(labelled: Path) -> None:
    """With ``native+greedy`` inputs each move's features are the native ones then the columns of
    PPO's per-move policy; at every decision of a labelled game, as replay gives them to training,
    the greedy column marks the move greedy itself would play there (told of every move played),
    and a net with these inputs plays them as it learnt them."""
    from patience_gym.agents.policies.base import GreedyPolicy
    from patience_gym.agents.policies.features import K
    from patience_gym.move_features import move_features

    games = list(read_games(labelled))
    data = replay(ENV, _run().options, games, inputs="native+greedy")
    _, moves, _ = data.batch(np.arange(len(data)))
    env = make_env(ENV)
    core = env.unwrapped
    native = move_features(core).shape[1]  # type: ignore[arg-type]
    assert data.k == native + K
    row = 0
    for g in games:
        obs, _ = env.reset(seed=g.seed)
        greedy = GreedyPolicy()
        greedy.reset(g.seed)
        steps = {t for t, _, _ in g.decisions}
        for t, a in enumerate(g.actions):
            pick = greedy(core, obs)  # type: ignore[arg-type]  (every step: greedy counts each position met)
            if t in steps:
                assert np.array_equal(moves[row, :, :native], move_features(core))  # type: ignore[arg-type]
                assert int(np.argmax(moves[row, :, native + 6])) == pick
                row += 1
            obs, *_ = env.step(a)  # greedy learns the move played at its next call
    assert row == len(data)


def test_planner_net_tells_a_net_counting_every_step_each_move(labelled: Path, tmp_path: Path) -> None:
    """A net with greedy's inputs as the planner's fallback learns every move the planner plays (its
    own and the planner's), so its inputs are those it would compute playing the game alone; a new
    episode starts it afresh."""
    from patience_gym.agents.policies.exit_net import NetInputs

    torch.set_num_threads(1)
    net, _ = _net(labelled, "native+greedy")
    path = tmp_path / "net.pt"
    save_net(path, net)  # type: ignore[arg-type]
    planner = make_planner_net(f"{path},samples=1,budget=1,retry=1")
    fallback = planner.fallback_policy
    env = make_env(ENV)
    for seed in (11, 12):
        obs, _ = env.reset(seed=seed)
        planner.reset(seed)
        alone = NetInputs("native+greedy")
        done = False
        while not done:
            alone(env.unwrapped)  # type: ignore[arg-type]  (counts this position, as the net must)
            action = planner(env.unwrapped, obs)  # type: ignore[arg-type]
            alone.played(action)
            assert fallback.inputs.greedy.history == alone.greedy.history  # type: ignore[union-attr]
            assert fallback.inputs.greedy.visits == alone.greedy.visits  # type: ignore[union-attr]
            obs, _, term, trunc, _ = env.step(action)
            done = term or trunc
    assert planner.stats["net"] > 0 and planner.stats["greedy"] == 0


def test_skip_lost_leaves_out_the_decisions_marked_lost(labelled: Path) -> None:
    game = next(read_games(labelled))
    game.how = "l" + game.how[1:]
    assert len(replay(ENV, _run().options, [game], skip_lost=True)) == len(game.decisions) - 1
    assert len(replay(ENV, _run().options, [game])) == len(game.decisions)


def test_the_label_script_writes_another_labellers_run_in_its_named_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``exit_label.py --labeller safe --folder safe``: the run goes to ``ROOT/<variant>/safe``, every
    decision is marked by how ``safe`` made it (greedy's move kept, overridden, or the deal lost)
    with all the share on the move played, and the same command again plays nothing more."""
    labeller = "safe:budget=3000,probe=0"
    argv = ["--root", str(tmp_path), "--env", ENV, "--labeller", labeller, "--folder", "safe"]
    argv += ["--chunks", "1", "--chunk-games", "4"]
    labeller_script = script("exit_label")
    assert labeller_script.main(argv) == 0
    folder = tmp_path / ENV / "safe"
    assert json.loads((folder / "run.json").read_text())["labeller"] == labeller
    games = list(read_games(folder))
    assert len(games) == 4 and any(g.decisions for g in games)
    for g in games:
        assert set(g.how) <= set("gol") and len(g.how) == len(g.decisions)
        for t, moves, shares in g.decisions:
            assert moves == [g.actions[t]] and shares == [1.0]
    capsys.readouterr()
    assert labeller_script.main(argv) == 0
    assert "every variant has its decisions" in capsys.readouterr().out


def test_the_label_script_labels_under_the_envs_options_and_training_replays_under_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``exit_label.py --option draw=3 ...``: the run is played and kept under those options (a
    draw-3 game's turns deal three cards), the net trains under them, and training refuses folders
    labelled under different options; a wrong option stops with what the env has."""
    labeller_script, trainer = script("exit_label"), script("exit_train")
    root, klondike = tmp_path / "labels", "Klondike-v0"
    base = ["--root", str(root), "--env", klondike, "--labeller", "greedy"]
    base += ["--chunks", "1", "--chunk-games", "2"]
    draw3 = ["--option", "draw=3", "--option", "passes=null", "--option", "partial_moves=true"]
    assert labeller_script.main([*base, *draw3, "--folder", "draw3"]) == 0
    run = json.loads((root / klondike / "draw3" / "run.json").read_text())
    assert run["options"] == {
        "draw": 3,
        "passes": None,
        "partial_moves": True,
        "stock": "hidden",
        "worrying_back": False,
    }
    game = next(read_games(root / klondike / "draw3"))
    env = make_env(klondike, run["options"])
    env.reset(seed=game.seed)
    stock = klondike_table.first[KlondikeKind.STOCK]
    state = env.unwrapped.game  # type: ignore[attr-defined]
    assert stock in game.actions
    for a in game.actions[: game.actions.index(stock) + 1]:
        before = len(state.talon)
        env.step(a)
    assert len(state.talon) == before + 3  # the first turn of the stock deals three
    out = tmp_path / "net.pt"
    train = ["--root", str(root), "--env", klondike, "--out", str(out), "--epochs", "1"]
    assert trainer.main(train) == 0
    assert json.loads(out.with_suffix(".json").read_text())["options"]["draw"] == 3
    assert labeller_script.main([*base, "--folder", "one-pass"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        trainer.main(train)
    assert "labelled under other options" in capsys.readouterr().err
    assert trainer.main([*train, "--folder", "one-pass"]) == 0
    assert json.loads(out.with_suffix(".json").read_text())["options"]["draw"] == 1
    for option, said in (
        ("draw=4", "draw=4 is not allowed; choose one of 1, 3"),
        ("drw=3", "not an option of Klondike-v0 (its options: draw, partial_moves, passes, stock, worr"),
    ):
        with pytest.raises(SystemExit):
            labeller_script.main([*base, "--option", option, "--folder", "bad"])
        assert said in capsys.readouterr().err


def test_the_rollout_labellers_shares_put_half_on_its_move_and_rank_the_rest_by_their_rollouts() -> None:
    """``rollout:N`` as a labeller: its vote is half on the move it plays, half a softmax (one card
    wide) of the rollouts' mean foundation cards over the moves the cycle guard allows; ``advise``
    then ``commit`` plays as calling it does, and ``how`` says where it overrode greedy's choice."""
    from patience_gym.agents.policies.features import K_ROLLOUT

    env, twin = make_env("Louis-v0"), make_env("Louis-v0")
    obs, _ = env.reset(seed=EXIT_DEAL_SEED)
    twin.reset(seed=EXIT_DEAL_SEED)
    labeller, plain = make_policy("rollout:2"), make_policy("rollout:2")
    labeller.reset(EXIT_DEAL_SEED)
    plain.reset(EXIT_DEAL_SEED)
    hows, spread = set(), 0
    for _ in range(60):
        action = labeller.advise(env.unwrapped, obs)  # type: ignore[attr-defined]
        labeller.commit(env.unwrapped, action)  # type: ignore[attr-defined]
        assert action == plain(twin.unwrapped, obs)  # type: ignore[arg-type]
        features, win_cards = labeller._last  # type: ignore[attr-defined]
        assert features.shape[1] == K_ROLLOUT
        shares = labeller.vote_shares()  # type: ignore[attr-defined]
        assert abs(sum(shares.values()) - 1) < 1e-6 and shares[action] >= 0.5
        assert set(shares) <= set(np.flatnonzero(env.unwrapped.action_masks()).tolist())  # type: ignore[attr-defined]
        others = {a: s for a, s in shares.items() if a != action}
        for a, s in others.items():  # one card worse: e**-1 of the weight, as the docstring says
            best = max(features[b, 7] * win_cards for b in shares)
            ratio = s / max(others.values())
            assert ratio == pytest.approx(
                np.exp(features[a, 7] * win_cards - max(features[b, 7] * win_cards for b in others)), rel=1e-4
            )
            assert features[a, 7] * win_cards <= best + 1e-6
        spread += len(others) > 0
        hows.add(labeller.how)  # type: ignore[attr-defined]
        assert (features[action, 6] > 0) == (labeller.how == "greedy")  # type: ignore[attr-defined]
        obs, _, term, trunc, _ = env.step(action)
        twin.step(action)
        if term or trunc:
            break
    assert spread > 0 and "greedy" in hows


def test_macro_advises_a_dagger_round_and_drops_its_line_where_another_move_is_played() -> None:
    """``macro`` as a DAgger advisor: ``advise`` then ``commit`` of its own move plays as calling it
    does; where the player plays another move, the line it was following is dropped, so its next
    advice comes from a search of the position reached, and every advice is a legal move."""
    spec = "macro:samples=2,batch=1,nodes=100,first=1"
    env, twin = make_env("Klondike-v0"), make_env("Klondike-v0")
    obs, _ = env.reset(seed=EXIT_DEAL_SEED)
    twin_obs, _ = twin.reset(seed=EXIT_DEAL_SEED)
    advisor, plain = make_policy(spec), make_policy(spec)
    advisor.reset(EXIT_DEAL_SEED)
    plain.reset(EXIT_DEAL_SEED)
    for _ in range(40):  # its own advice played: the same game as the policy's
        action = advisor.advise(env.unwrapped, obs)  # type: ignore[attr-defined]
        advisor.commit(env.unwrapped, action)  # type: ignore[attr-defined]
        assert action == plain(twin.unwrapped, twin_obs)  # type: ignore[arg-type]
        obs, _, term, trunc, _ = env.step(action)
        twin_obs, *_ = twin.step(action)
        if term or trunc:
            break
    env2 = make_env("Klondike-v0")
    obs, _ = env2.reset(seed=EXIT_DEAL_SEED)
    advisor.reset(EXIT_DEAL_SEED)
    deviated = 0
    for _ in range(60):
        legal = np.flatnonzero(env2.unwrapped.action_masks())  # type: ignore[attr-defined]
        advice = advisor.advise(env2.unwrapped, obs)  # type: ignore[attr-defined]
        assert advice in legal
        played = int(legal[-1])  # the highest legal id: often not the advice
        advisor.commit(env2.unwrapped, played)  # type: ignore[attr-defined]
        if played != advice:
            deviated += 1
            assert advisor.pending == [] and advisor.plan == []  # type: ignore[attr-defined]
        obs, _, term, trunc, _ = env2.step(played)
        if term or trunc:
            break
    assert deviated > 0


def test_macro_net_asks_the_net_where_cards_are_hidden_and_tells_it_every_move(
    labelled: Path, tmp_path: Path
) -> None:
    torch.set_num_threads(1)
    net, _ = _net(labelled)
    path = tmp_path / "net.pt"
    save_net(path, net)  # type: ignore[arg-type]
    policy = make_policy(f"macro+net:{path},samples=2,batch=1,nodes=50,first=1,keep=2,value=1")
    assert isinstance(policy, MacroNetPolicy) and policy.keep == 2 and policy.first
    assert policy.value_net is not None
    assert policy.name.startswith("macro+net(samples=2,batch=1,nodes=50") and policy.name.endswith(
        "keep=2,value=1)"
    )
    env = make_env(ENV)
    obs, _ = env.reset(seed=11)
    policy.reset(11)
    asked, steps, done = 0, 0, False
    while not done:
        action = policy(env.unwrapped, obs)  # type: ignore[arg-type]
        asked += policy.how in ("bandit", "only")
        obs, _, term, trunc, _ = env.step(action)
        done, steps = term or trunc, steps + 1
    assert asked > 0
    assert sum(policy.net.visits.values()) == steps  # every position played from, counted once


def test_macro_net_rank_0_puts_the_value_alone_in_the_search(labelled: Path, tmp_path: Path) -> None:
    """``rank=0``: the search gets the net's value and no ranking, and the net's policy is never
    asked; the net still hears of every move played."""
    torch.set_num_threads(1)
    net, _ = _net(labelled)
    path = tmp_path / "net.pt"
    save_net(path, net)  # type: ignore[arg-type]
    policy = make_policy(f"macro+net:{path},samples=2,batch=1,nodes=50,value=1,rank=0")
    assert isinstance(policy, MacroNetPolicy) and policy.name.endswith("value=1,rank=0)")
    env = make_env(ENV)
    obs, _ = env.reset(seed=11)
    policy.reset(11)
    ranking = policy._ranking(env.unwrapped, True)  # type: ignore[arg-type]
    assert ranking == {"value_net": policy.value_net} and policy.value_net is not None
    ranked = make_policy(f"macro+net:{path},samples=2,batch=1,nodes=50,value=1")
    ranked.reset(11)
    ranked._obs = obs  # type: ignore[attr-defined]  # what advise() hands the net
    assert "prior" in ranked._ranking(env.unwrapped, True)  # type: ignore[attr-defined]
    steps, done = 0, False
    while not done:
        obs, _, term, trunc, _ = env.step(policy(env.unwrapped, obs))  # type: ignore[arg-type]
        done, steps = term or trunc, steps + 1
    assert sum(policy.net.visits.values()) == steps


def test_macro_net_is_blind_to_hidden_cards() -> None:
    env = make_env("Klondike-v0")
    check_blind_to_hidden_cards(
        env, lambda: make_policy("macro+net:klondike,samples=4,batch=2,nodes=100"), 80
    )


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("macro+net:nestor", "afterstate net; macro\\+net needs a per-move net"),
        ("macro+net:klondike,keep=-1", "keep must be a whole number >= 0"),
        ("macro+net:klondike,keep=two", "keep='two' must be a whole number"),
        ("macro+net:klondike,width=3", "setting 'width=3' not understood"),
        ("macro+net:klondike,value=3", "value must be 0, 1 or 2"),
        ("macro+net:klondike,rank=2", "rank must be 0 or 1"),
        ("macro+net:klondike,rank=0", "rank=0 leaves the candidates unranked, so it needs value=1 or 2"),
        ("macro+net:klondike,rank=0,value=1,keep=2", "and no keep"),
    ],
)
def test_macro_net_refuses_bad_specs_saying_what_is_allowed(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        make_policy(spec)


def test_the_native_value_net_is_the_nets_value(labelled: Path) -> None:
    net, _ = _net(labelled)
    env = make_env(ENV)
    obs, _ = env.reset(seed=5)
    for _ in range(3):
        with torch.no_grad():
            value = torch.sigmoid(net.value(net.board(torch.as_tensor(obs)[None])))[0]  # type: ignore[operator]
        for output in (0, 1):
            native = native_value_net(net, output)  # type: ignore[arg-type]
            assert native(env.unwrapped.game._c) == pytest.approx(float(value[output]), abs=1e-5)  # type: ignore[attr-defined]
        obs, *_ = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))  # type: ignore[attr-defined]
