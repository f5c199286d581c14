"""Move features (patience_gym.agents.policies.features) and PPO's move scorer
(patience_gym.agents.policies.move_scorer): what each move does, computed from what a player sees, with the
episode's visits; and a model that uses
them trains, reloads and plays through ``ppo:<path>``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.policies.base import GreedyPolicy
from patience_gym.agents.policies.features import FEATURE_NAMES, K, MoveFeatures
from patience_gym.agents.policies.shadow import Shadow
from patience_gym.determinize import unseen_positions
from patience_gym.env import PatienceEnv
from patience_gym.native import reference
from patience_gym.testing import deck
from tests.helpers import CLONING_RUN, ROOT, TINY, agreement_share, features_agree_until_seen

COL = {name: i for i, name in enumerate(FEATURE_NAMES)}

# Nestor, dealt row by row (no rank twice in a column): the available row holds one pair, 3H + 3S;
# pairing them turns up 7H and 8H, which pair with 7S and 8S.
NESTOR_ROWS = [
    "AC 2C 3C 4C 5C 6C 7C 8C",
    "9C TC JC QC KC AD 2D 3D",
    "4D 5D 6D 7D 8D 9D TD JD",
    "QD KD AH 2H 2S 4H 5H 6H",
    "7H 8H 9H TH JH QH KH AS",
    "3H 3S 4S 5S 6S 7S 8S 9S",
]


def _features(obs: np.ndarray, env: gym.Env[Any, Any]) -> np.ndarray:
    n = env.unwrapped.game.n_actions  # type: ignore[attr-defined]
    return obs[-n * K :].reshape(n, K)


def test_the_features_of_a_fixed_deal_by_hand() -> None:
    env = MoveFeatures(gym.make("patience_gym/Nestor-v0"))
    obs, info = env.reset(options={"deck": deck(" ".join(NESTOR_ROWS) + " TS JS QS KS")})
    f = _features(obs, env)
    assert env.observation_space.shape == (env.unwrapped.observation_space.shape[0] + f.size,)  # type: ignore[index]
    legal = np.flatnonzero(info["action_mask"])
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    assert len(legal) == 1 and core.describe_action(int(legal[0])) == "pair 3H (column 0) + 3S (column 1)"
    # Greedy's Nestor score: 10 per card discarded plus the pairs on offer: 0 + 1 now, 20 + 2 after.
    assert f[legal[0]].tolist() == pytest.approx([1.0, 2.0, (22 - 1) / 10, 0.0, 1.0, 0.0, 1.0])
    illegal = np.ones(len(f), bool)
    illegal[legal] = False
    assert not f[illegal].any()  # every illegal action's features are zero
    assert (obs[: -f.size] == env.unwrapped.game.observation()).all()  # type: ignore[attr-defined]
    assert env.action_masks().tolist() == info["action_mask"].astype(bool).tolist()


def test_visits_and_undo_follow_the_episode_and_reset_clears_them() -> None:
    """Random play on The Kings (to-and-fro moves abound): the visits of each move's position, the
    undo flag and greedy's pick agree with an independent count; a reset forgets them."""
    env = MoveFeatures(gym.make("patience_gym/TheKings-v0"))
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=4)
    first = obs.copy()
    seen: dict[object, int] = {}
    previous = None
    undone = revisited = 0
    for _ in range(300):
        key = core.state_key()
        seen[key] = seen.get(key, 0) + 1
        f = _features(obs, env)
        legal = np.flatnonzero(info["action_mask"])
        for a in legal.tolist():
            trial = core.game.clone()
            trial.apply(a)
            after = trial.state_key()
            assert f[a, COL["log_visits"]] == pytest.approx(np.log1p(seen.get(after, 0)))
            assert f[a, COL["new_position"]] == (after not in seen)
            assert f[a, COL["undoes_last"]] == (after == previous)
            undone += after == previous
            revisited += after in seen
        assert f[:, COL["greedy"]].sum() == 1 and f[legal, COL["greedy"]].sum() == 1
        previous = key
        obs, _, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            break
    assert undone > 5 and revisited > 5  # the walk did meet the cases checked
    again, _ = env.reset(seed=4)
    assert (again == first).all()  # the same deal again: no visit carried over


@pytest.mark.parametrize("name", ["Babette-v0", "Nestor-v0", "TheKings-v0", "Louis-v0", "StLouis-v0"])
def test_greedy_flag_is_greedy_choice(name: str) -> None:
    env = MoveFeatures(gym.make(f"patience_gym/{name}"))
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    greedy = GreedyPolicy()
    agree = total = 0
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        greedy.reset(seed)
        done = False
        while not done and info["action_mask"].any():
            a = greedy(core, obs)
            agree += _features(obs, env)[a, COL["greedy"]] == 1
            total += 1
            obs, _, term, trunc, info = env.step(a)
            done = term or trunc
    # both rank the shadow's afterstates (patience_gym.agents.policies.base.greedy_pick)
    assert agree == total


@pytest.mark.parametrize("name", ["Babette-v0", "Klondike-v0", "Nestor-v0", "Louis-v0", "Anna-v0"])
def test_features_do_not_depend_on_hidden_cards(name: str) -> None:
    """Two deals that differ only in cards unseen at the start (the later half of them dealt
    again): the same moves give the same features until an observation tells the deals apart.
    (Babette's heuristic reads the row a deal turns up: scored on the real game, the deal move's
    heuristic change would differ here.)"""
    env = MoveFeatures(gym.make(f"patience_gym/{name}"))
    n = env.unwrapped.game.n_actions  # type: ignore[attr-defined]
    compared = features_agree_until_seen(env, name, lambda obs: (obs[: -n * K].tobytes(), obs[-n * K :]))
    assert compared >= 10


def test_the_shadow_is_rebuilt_only_when_a_card_turns_up_and_shows_what_the_game_shows() -> None:
    env = gym.make("patience_gym/Klondike-v0")
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    shadows, history = Shadow(), list[int]()
    _, info = env.reset(seed=0)
    game = reference(core.game)
    shadow = shadows.of(game, history)
    assert shadow.foundation_cards == game.foundation_cards
    assert list(shadow.initial_pack) != list(game.initial_pack)  # the unseen cards dealt again
    turned = False
    for _ in range(30):
        before = unseen_positions(env)
        a = int(np.flatnonzero(info["action_mask"])[-1])
        _, _, term, trunc, info = env.step(a)
        if term or trunc:
            break
        history.append(a)
        game = reference(core.game)
        rebuilt = shadows.of(game, history) is not shadow
        assert rebuilt == (unseen_positions(env) != before)
        turned |= rebuilt
        shadow = shadows.of(game, history)
        assert shadow.observation().tolist() == game.observation().tolist()
    assert turned


def test_a_move_scorer_config_trains_reloads_and_plays(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    import yaml
    from sb3_contrib import MaskablePPO

    from patience_gym.agents.evaluation.evaluate import evaluate
    from patience_gym.agents.policies.move_scorer import MoveHead, MoveScorerPolicy
    from patience_gym.agents.training.config import load_config
    from patience_gym.agents.training.sb3 import train

    lines: list[str] = []
    cfg = load_config(
        TINY,
        [
            f"output_dir={tmp_path}",
            "move_features=true",
            "policy=move_scorer",
            "policy_kwargs.scorer_arch=[16]",
            *CLONING_RUN,
        ],
    )
    out = train(cfg, report=lines.append)
    saved = yaml.safe_load((out / "config.yaml").read_text())
    assert saved["move_features"] is True and saved["policy"] == "move_scorer"
    model = MaskablePPO.load(out / "final_model.zip", device="cpu")
    assert isinstance(model.policy, MoveScorerPolicy) and isinstance(model.policy.action_net, MoveHead)
    assert model.policy.scorer_arch == [16]
    # Cloning greedy: with the moves' features the policy takes greedy's decisions, cycle guard and all.
    share = agreement_share(lines)
    assert share >= 98.0
    result = evaluate("Nestor-v0", f"ppo:{out}", episodes=8, seed=0)
    greedy = evaluate("Nestor-v0", "greedy", episodes=8, seed=0)
    assert result.games == 8
    assert [e.foundation_cards for e in result.episodes] == [e.foundation_cards for e in greedy.episodes]
    # docs/training.md's "play a trained model" example plays this model as the ppo: policy does.
    page = (ROOT / "docs" / "training.md").read_text()
    code = page.split("Play a trained model", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    assert "runs/ppo_rollouts/nestor/best_model.zip" in code
    scope: dict[str, Any] = {}
    exec(
        compile(
            code.replace("runs/ppo_rollouts/nestor/best_model.zip", str(out / "best_model.zip")),
            "docs/training.md",
            "exec",
        ),
        scope,
    )
    episode = evaluate("Nestor-v0", f"ppo:{out / 'best_model.zip'}", episodes=1, seed=0).episodes[0]
    assert scope["info"]["foundation_cards"] == episode.foundation_cards
