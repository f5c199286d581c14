"""Rollout features (patience_gym.agents.policies.features with ``rollouts=N``) and the ``rollout:N`` policy:
every legal move rolled out by the native base policy on deals consistent with what the player has seen;
the columns are those rollouts' numbers, they never depend on a hidden card, and a PPO model
trained with them rebuilds them when it plays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.policies.base import GreedyPolicy, greedy_pick
from patience_gym.agents.policies.features import (
    FEATURE_NAMES,
    K_ROLLOUT,
    ROLLOUT_FEATURE_NAMES,
    ROLLOUT_SEED,
    MoveFeatures,
)
from patience_gym.agents.policies.rollout import RolloutPolicy
from patience_gym.agents.registry import make_policy
from patience_gym.determinize import consistent_deck, unseen_positions
from patience_gym.env import PatienceEnv
from patience_gym.solver import rollout_values
from tests.helpers import CLONING_RUN, TINY, agreement_share, hidden_rotated

COL = {name: i for i, name in enumerate(FEATURE_NAMES + ROLLOUT_FEATURE_NAMES)}


def _rows(obs: np.ndarray, env: gym.Env[Any, Any]) -> np.ndarray:
    n = env.unwrapped.game.n_actions  # type: ignore[attr-defined]
    return obs[-n * K_ROLLOUT :].reshape(n, K_ROLLOUT)


@pytest.mark.parametrize("name", ["Babette-v0", "Klondike-v0", "TheKings-v0"])
def test_the_rollout_columns_are_the_rollouts_of_every_legal_move(name: str) -> None:
    """Columns 7-9 recomputed by hand from patience_gym.solver.rollout_values, decision by decision:
    the same consistent deals (seeded by the decision's index), every legal move rolled out, the
    choice the best average among the least-visited moves (ties: greedy's)."""
    n_rollouts = 3
    env = MoveFeatures(gym.make(f"patience_gym/{name}"), rollouts=n_rollouts)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    greedy = GreedyPolicy()
    obs, info = env.reset(seed=5)
    greedy.reset(5)
    history: list[int] = []
    checked = 0
    for t in range(12):
        rows = _rows(obs, env)
        legal = np.flatnonzero(info["action_mask"]).tolist()
        assert (rows[legal, COL["legal"]] == 1).all() and rows[:, COL["rollout_choice"]].sum() == 1
        trials = greedy.trials(core)
        if len(legal) > 1:
            rng = np.random.default_rng((ROLLOUT_SEED, t))
            n = n_rollouts if unseen_positions(core) else 1
            steps = core.variant.max_episode_steps - t
            decks = [consistent_deck(core, rng) for _ in range(n)]
            options = core.game.options
            values = [rollout_values(core.variant, options, d, history, legal, steps) for d in decks]
            mean = np.sum(np.asarray(values, dtype=np.float64), axis=0) / n
            cards = rows[legal, COL["rollout_cards"]]
            np.testing.assert_allclose(cards, mean / core.game.win_cards, rtol=1e-6)
            np.testing.assert_allclose(
                rows[legal, COL["rollout_gap"]], np.maximum(-5, (mean - mean.max()) / 10), atol=1e-6
            )
            value = dict(zip(legal, mean.tolist(), strict=True))
            fewest = min(tr.visits for tr in trials)
            allowed = [tr for tr in trials if tr.visits == fewest]
            top = max(value[tr.action] for tr in allowed)
            choice = greedy_pick([tr for tr in allowed if value[tr.action] == top])
            assert rows[choice, COL["rollout_choice"]] == 1
            checked += 1
        else:
            assert rows[legal[0], COL["rollout_choice"]] == 1 and rows[legal[0], 7:9].tolist() == [0, 0]
        a = int(np.argmax(rows[:, COL["rollout_choice"]]))
        history.append(a)
        obs, _, term, trunc, info = env.step(a)
        if term or trunc:
            break
    assert checked >= 3


@pytest.mark.parametrize("name", ["Babette-v0", "Klondike-v0", "Louis-v0"])
def test_rollout_features_do_not_depend_on_hidden_cards(name: str) -> None:
    """Two deals that differ only in cards unseen at the start: the same moves give the same
    rollout features until an observation tells the deals apart, and ``rollout:N`` the same moves."""
    env = MoveFeatures(gym.make(f"patience_gym/{name}"), rollouts=4)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    env.reset(seed=2)
    pack, hidden = core.game.deck(), unseen_positions(env)
    hidden = hidden[len(hidden) // 2 :]
    other = hidden_rotated(pack, hidden)
    traces = []
    for cards in (pack, other):
        policy = RolloutPolicy(4)
        policy.reset(0)
        obs, _ = env.reset(options={"deck": cards})
        trace = []
        for _ in range(40):
            n = core.game.n_actions
            a = policy(core, obs)
            trace.append((obs[: -n * K_ROLLOUT].tobytes(), obs[-n * K_ROLLOUT :].copy(), a))
            obs, _, term, trunc, _ = env.step(a)
            if term or trunc:
                break
        traces.append(trace)
    compared = 0
    for (seen_a, f_a, a_a), (seen_b, f_b, a_b) in zip(*traces, strict=False):
        if seen_a != seen_b:
            break  # a hidden card has turned up: the player may now tell the deals apart
        assert (f_a == f_b).all() and a_a == a_b, f"{name}: rollout features differ with nothing seen"
        compared += 1
    assert compared >= 3


def test_the_rollout_policy_wins_a_fixed_deal_greedy_loses() -> None:
    from patience_gym.agents.evaluation.evaluate import evaluate

    rollout = evaluate("Babette-v0", "rollout:8", episodes=1, seed=0)
    greedy = evaluate("Babette-v0", "greedy", episodes=1, seed=0)
    assert rollout.episodes[0].won and not greedy.episodes[0].won
    assert make_policy("rollout").name == "rollout:16"  # type: ignore[attr-defined]


@pytest.mark.parametrize("spec", ["rollout:0", "rollout:x", "rollout:-2", "rollout:"])
def test_a_bad_rollout_spec_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match="positive whole number"):
        make_policy(spec)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["rollout_features=4"], "rollout_features' and 'policy'"),
        (
            [
                "rollout_features=4",
                "move_features=true",
                "policy=move_scorer",
                "policy_kwargs.feature_rollouts=2",
            ],
            "feature_rollouts",
        ),
    ],
)
def test_rollout_features_config_errors(overrides: list[str], message: str) -> None:
    pytest.importorskip("sb3_contrib")
    from patience_gym.agents.common.config import ConfigError
    from patience_gym.agents.training.config import load_config

    with pytest.raises(ConfigError, match=message):
        load_config(TINY, overrides)


def test_a_model_trained_with_rollout_features_rebuilds_them(tmp_path: Path) -> None:
    """Cloned from ``rollout:2`` with the rollout columns: the model keeps its rollout count and
    ``ppo:<path>`` plays what the teacher plays."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from patience_gym.agents.evaluation.evaluate import evaluate
    from patience_gym.agents.training.config import load_config
    from patience_gym.agents.training.sb3 import train

    lines: list[str] = []
    run = [r for r in CLONING_RUN if not r.startswith("imitation=")]
    cfg = load_config(
        TINY,
        [
            f"output_dir={tmp_path}",
            "move_features=true",
            "policy=move_scorer",
            "rollout_features=2",
            "imitation={teacher: 'rollout:2', episodes: 12, epochs: 15, batch_size: 64}",
            *run,
        ],
    )
    out = train(cfg, report=lines.append)
    assert agreement_share(lines) >= 98.0
    model = MaskablePPO.load(out / "imitation_model.zip", device="cpu")
    assert model.policy.feature_rollouts == 2
    n_actions = int(model.action_space.n)
    base = gym.make("patience_gym/Nestor-v0").observation_space.shape[0]  # type: ignore[index]
    assert model.observation_space.shape == (base + n_actions * K_ROLLOUT,)
    ppo = evaluate("Nestor-v0", f"ppo:{out / 'imitation_model.zip'}", episodes=6, seed=0)
    teacher = evaluate("Nestor-v0", "rollout:2", episodes=6, seed=0)
    assert [e.foundation_cards for e in ppo.episodes] == [e.foundation_cards for e in teacher.episodes]
