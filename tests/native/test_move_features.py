"""The move features computed by the native engine (patience_gym.move_features): each column
against a reference played on the Python engine, the batched env's rows against single envs step
for step (episode ends included), and nothing read of the cards the player has not seen."""

from __future__ import annotations

import copy
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
import patience_gym.move_features as mf
from patience_gym.games import Variant
from patience_gym.native import NativeGame, reference
from patience_gym.vector import PatienceVectorEnv
from tests.helpers import PORTED, features_agree_until_seen

COL = {name: i for i, name in enumerate(mf.feature_names())}
K = mf.n_features()


def test_the_docstring_table_lists_the_engine_columns_in_order() -> None:
    doc = mf.__doc__ or ""
    table = doc.split("==========  ===")[1].split("==========  ===")[0]
    rows = [line.split()[0] for line in table.splitlines()[1:] if line and not line.startswith(" ")]
    assert tuple(rows) == mf.feature_names()
    assert len(rows) == K and K <= 12


def _unseen(game: Any, hidden: np.ndarray) -> np.ndarray:
    out = np.zeros(game.layout.size, dtype=np.float32)
    game.observe(out)
    values: np.ndarray = out[hidden]
    return values


def _offered(game: Any) -> np.ndarray:
    """The moves the env offers: none once won."""
    return np.zeros(game.n_actions, dtype=bool) if game.won else np.asarray(game.legal_mask(), dtype=bool)


def reference_features(game: NativeGame, before_last: Any) -> np.ndarray:
    """The block computed on the Python engine: every legal move played on a clone of the twin.
    ``before_last``: the twin's state key before the last move (None after the deal)."""
    py = reference(game)
    spec = mf.feature_spec(game)
    out = np.zeros((game.n_actions, K), dtype=np.float32)
    mask = _offered(py)
    hidden_now = _unseen(py, spec.hidden)
    for a in np.flatnonzero(mask).tolist():
        row = out[a]
        row[COL["legal"]] = 1
        row[[COL["kind"], COL["source"], COL["target"]]] = spec.fixed[a]
        child = py.clone()
        child.apply(a)
        if (_unseen(child, spec.hidden) < hidden_now).any():
            row[COL["uncovers"]] = 1
            continue
        after = _offered(child)
        row[COL["gained"]] = np.clip((child.foundation_cards - py.foundation_cards) / 4.0, -1, 1)
        row[COL["wins"]] = child.won
        row[COL["mobility"]] = np.clip((after.sum() - mask.sum()) / 8.0, -1, 1)
        row[COL["opened"]] = min((after & ~mask).sum() / 8.0, 1.0)
        row[COL["dead_end"]] = not child.won and not after.any()
        row[COL["undoes"]] = before_last is not None and child.state_key() == before_last
    return out


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
def test_each_column_matches_the_python_engine(variant: Variant) -> None:
    env = gym.make(variant.env_id, engine="native")
    game: NativeGame = env.unwrapped.game  # type: ignore[attr-defined]
    seen = np.zeros(K)
    for seed in (0, 1):
        _, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        before_last = None
        for t in range(120):
            got, want = mf.move_features(env), reference_features(game, before_last)
            # the Python engine's state key is exact; the canonical hash may also see a position
            # as the one before when the rules cannot tell them apart (undoes: got >= want)
            undo = COL["undoes"]
            assert (got[:, undo] >= want[:, undo]).all(), f"seed {seed} step {t}"
            want[:, undo] = got[:, undo]
            assert np.array_equal(got, want), (
                f"seed {seed} step {t}: rows {np.flatnonzero((got != want).any(1))}"
            )
            assert not got[~info["action_mask"].astype(bool)].any(), "an action not offered has features"
            seen += got.any(axis=0)
            legal = np.flatnonzero(info["action_mask"])
            if legal.size == 0:
                break
            before_last = reference(game).state_key()
            _, _, term, trunc, info = env.step(int(rng.choice(legal)))
            if term or trunc:
                break
    assert seen[COL["legal"]] and seen[COL["kind"]]


def _single_envs(variant: Variant, n: int, seed: int, limit: int) -> tuple[list[Any], list[np.ndarray]]:
    envs = [gym.make(variant.env_id, engine="native", max_episode_steps=limit) for _ in range(n)]
    return envs, [env.reset(seed=seed + i)[0] for i, env in enumerate(envs)]


def _with_features(env: Any, obs: np.ndarray) -> np.ndarray:
    return np.concatenate([obs, mf.move_features(env).ravel()])


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
def test_the_batch_rows_equal_single_envs_in_lockstep(variant: Variant) -> None:
    """PatienceVectorEnv(move_features=True) against single envs, NEXT_STEP autoreset and all,
    over a few hundred random steps with a short step limit (many episode ends)."""
    n, limit = 3, 40
    venv = PatienceVectorEnv(n, variant.env_name, max_episode_steps=limit, move_features=True)
    assert venv.single_observation_space.shape == (venv.layout.size + venv.batch.n_actions * K,)
    obs, _ = venv.reset(seed=5)
    envs, single = _single_envs(variant, n, 5, limit)
    ended = np.zeros(n, dtype=bool)
    rng = np.random.default_rng(0)
    for t in range(300):
        for i, env in enumerate(envs):
            assert np.array_equal(obs[i], _with_features(env, single[i])), f"step {t} row {i}"
            assert venv.single_observation_space.contains(obs[i])
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in venv.action_masks()])
        obs, _, term, trunc, _ = venv.step(actions)
        for i, env in enumerate(envs):
            single[i] = env.reset()[0] if ended[i] else env.step(int(actions[i]))[0]
        ended = term | trunc


def test_the_sb3_vec_env_appends_the_features_to_every_observation() -> None:
    """Reset, step and terminal observations of PatienceSB3VecEnv(move_features=True) hold the
    single env's features; a deep copy steps on alike."""
    pytest.importorskip("stable_baselines3")
    from patience_gym.vector import PatienceSB3VecEnv

    variant = next(v for v in PORTED if v.env_name == "Klondike-v0")
    n, limit = 3, 25
    venv = PatienceSB3VecEnv("Klondike-v0", n_envs=n, max_episode_steps=limit, move_features=True)
    venv.seed(2)
    obs = venv.reset()
    envs, single = _single_envs(variant, n, 2, limit)
    rng = np.random.default_rng(1)
    ends = 0
    for t in range(90):
        for i, env in enumerate(envs):
            assert np.array_equal(obs[i], _with_features(env, single[i])), f"step {t} row {i}"
        if t == 45:
            twin = copy.deepcopy(venv)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        venv.step_async(actions)
        obs, _, dones, infos = venv.step_wait()
        for i, env in enumerate(envs):
            single[i] = env.step(int(actions[i]))[0]
            if dones[i]:
                ends += 1
                assert np.array_equal(infos[i]["terminal_observation"], _with_features(env, single[i]))
                single[i] = env.reset()[0]
        if t == 45:
            twin.step_async(actions)
            assert np.array_equal(twin.step_wait()[0], obs)
    assert ends >= n


@pytest.mark.parametrize("name", ["Babette-v0", "Klondike-v0", "Nestor-v0", "Louis-v0", "Anna-v0"])
def test_the_features_do_not_depend_on_hidden_cards(name: str) -> None:
    """Two deals that differ only in cards unseen at the start: the same moves give the same
    features until an observation tells the deals apart."""
    env = gym.make(f"patience_gym/{name}", engine="native")
    compared = features_agree_until_seen(env, name, lambda obs: (obs.tobytes(), mf.move_features(env)))
    assert compared >= 10


def test_the_python_engine_is_refused() -> None:
    with pytest.raises(ValueError, match="native engine"):
        mf.move_features(gym.make("patience_gym/Nestor-v0", engine="python"))
