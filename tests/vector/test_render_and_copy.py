"""The batched env's pictures and copies (issue 37).

``render_mode="rgb_array"`` gives one frame per sub-env, each the frame ``gym.make(id,
render_mode="rgb_array")`` renders for the same game at the same step; ``copy.deepcopy`` and
pickling give an independent batch that steps on exactly as the original, autoresets and the
step limit included.
"""

from __future__ import annotations

import copy
import pickle
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import patience_gym  # noqa: F401
from patience_gym.native import native_available
from patience_gym.vector import PatienceVectorEnv
from tests.helpers import PORTED

if not native_available():  # pragma: no cover
    pytest.fail("the native engine is not built (pip install -e . with a C++17 compiler)", pytrace=False)

KLONDIKE = "patience_gym/Klondike-v0"


def batched(env_id: str, n: int, **kwargs: Any) -> Any:
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


def some_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A legal action per row, or now and then an illegal one (a step that changes nothing)."""
    out = []
    for row in masks:
        legal = np.flatnonzero(row)
        keep = legal.size and rng.random() > 0.2
        out.append(int(rng.choice(legal)) if keep else int(rng.integers(len(row))))
    return np.array(out)


def assert_same(got: tuple[Any, ...], want: tuple[Any, ...], where: str) -> None:
    """Two steps' (or resets') results equal: arrays, and every info key with its dtype."""
    for k, (g, w) in enumerate(zip(got[:-1], want[:-1], strict=True)):
        assert g.dtype == w.dtype and np.array_equal(g, w), f"{where}: item {k} differs"
    gi, wi = got[-1], want[-1]
    assert gi.keys() == wi.keys(), f"{where}: info keys"
    for key in gi:
        assert gi[key].dtype == wi[key].dtype and np.array_equal(gi[key], wi[key]), f"{where}: info[{key!r}]"


# ---- rgb_array --------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
def test_each_frame_is_the_single_envs_frame_across_an_autoreset(variant: Any) -> None:
    n, limit = 3, 3
    vec = batched(variant.env_id, n, render_mode="rgb_array", max_episode_steps=limit)
    singles = [gym.make(variant.env_id, render_mode="rgb_array", max_episode_steps=limit) for _ in range(n)]
    obs, _ = vec.reset(seed=20)
    for i, env in enumerate(singles):
        assert np.array_equal(env.reset(seed=20 + i)[0], obs[i])
    ended = [False] * n
    rng = np.random.default_rng(4)
    for t in range(2 * limit + 2):  # two autoresets per sub-env
        frames = vec.render()
        assert isinstance(frames, tuple) and len(frames) == n
        for i, env in enumerate(singles):
            want = env.render()
            assert frames[i].dtype == np.uint8 and frames[i].shape == want.shape and frames[i].shape[2] == 3
            assert np.array_equal(frames[i], want), f"step {t}: sub-env {i}'s frame differs"
        actions = some_actions(rng, vec.unwrapped.action_masks())
        obs, _, term, trunc, _ = vec.step(actions)
        for i, env in enumerate(singles):
            # NEXT_STEP autoreset, as SyncVectorEnv does it: the step after an end deals again
            single_obs = env.reset()[0] if ended[i] else env.step(int(actions[i]))[0]
            assert np.array_equal(single_obs, obs[i]), f"step {t}: sub-env {i}"
        ended = list(term | trunc)


def test_render_modes_and_recording_a_video(tmp_path: Path) -> None:
    vec = batched(KLONDIKE, 2)
    vec.reset(seed=0)
    assert vec.render() is None and vec.unwrapped.batch.twins is None  # no twins, no pictures
    with pytest.raises(ValueError, match="'rgb_array'"):
        batched(KLONDIKE, 2, render_mode="human")
    assert "rgb_array" in PatienceVectorEnv.metadata["render_modes"]
    pytest.importorskip("moviepy")
    from gymnasium.wrappers.vector import RecordVideo

    folder = tmp_path / "videos"
    recorded = batched(KLONDIKE, 4, render_mode="rgb_array")
    envs = RecordVideo(recorded, str(folder), step_trigger=lambda t: t == 0, video_length=4)
    envs.reset(seed=1)
    for _ in range(5):
        envs.step(envs.unwrapped.sample_legal_actions())
    envs.close()
    videos = list(folder.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 0


# ---- deepcopy and pickle ----------------------------------------------------------------------------


def pickled(env: Any) -> Any:
    return pickle.loads(pickle.dumps(env))


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        (KLONDIKE, {"max_episode_steps": 12}),  # many truncations
        (KLONDIKE, {"max_episode_steps": 17}),  # copied on the step that truncates every game
        (KLONDIKE, {"max_episode_steps": None, "draw": 3}),
        ("patience_gym/Nestor-v0", {}),  # the registered limit; episodes end by play
        ("patience_gym/Louis-v0", {"max_episode_steps": 30, "copy": False}),  # a text extra
    ],
)
def test_a_copy_steps_on_exactly_as_the_original(env_id: str, kwargs: dict[str, Any]) -> None:
    n = 5
    vec = batched(env_id, n, **kwargs)
    vec.reset(seed=8)
    rng = np.random.default_rng(2)
    for _ in range(17):  # mid-episode, after illegal steps and (at the limit of 12) an autoreset
        trunc = vec.step(some_actions(rng, vec.unwrapped.action_masks()))[3]
    if kwargs.get("max_episode_steps") == 17:
        assert trunc.all(), "every copy's next step deals again"
    copies = [copy.deepcopy(vec), pickled(vec)]
    # Independent: a third copy stepped on its own leaves the original and the others as they were.
    loose = copy.deepcopy(vec)
    for _ in range(5):
        loose.step(some_actions(rng, loose.unwrapped.action_masks()))
    for c in copies:
        assert c.unwrapped.batch.engine is not vec.unwrapped.batch.engine
        assert not np.shares_memory(c.unwrapped.batch.obs, vec.unwrapped.batch.obs)
        # the buffers as they were, last rewards and flags included
        for got, want in zip(c.unwrapped.batch._buffers(), vec.unwrapped.batch._buffers(), strict=True):
            assert np.array_equal(got, want)
    ends = 0
    for t in range(250):
        actions = some_actions(rng, vec.unwrapped.action_masks())
        want = vec.step(actions)
        want = tuple(x.copy() if isinstance(x, np.ndarray) else x for x in want)  # copy=False: a buffer
        for c in copies:
            assert_same(c.step(actions), want, f"step {t}")
        ends += int((want[2] | want[3]).sum())
    assert ends >= n, "episodes ended and were dealt again during the comparison"
    # A copy's reset with a seed deals as the original's does.
    assert_same(copies[1].reset(seed=3), vec.reset(seed=3), "reset")


def test_copies_before_the_first_reset_and_of_a_rendering_batch() -> None:
    fresh = copy.deepcopy(batched(KLONDIKE, 2))
    with pytest.raises(ResetNeeded):
        fresh.step(np.zeros(2, dtype=np.int64))
    assert_same(fresh.reset(seed=5), batched(KLONDIKE, 2).reset(seed=5), "reset")
    for mode in ("ansi", "rgb_array"):
        vec = batched(KLONDIKE, 2, render_mode=mode, max_episode_steps=3)
        vec.reset(seed=0)
        for _ in range(4):  # across an autoreset
            vec.step(np.full(2, 15))
        vec.render()  # the twins have replayed: a copy makes its own
        twin = pickled(vec)
        for _ in range(2):
            frames, copied = vec.render(), twin.render()
            assert all(np.array_equal(a, b) for a, b in zip(frames, copied, strict=True))
            vec.step(np.full(2, 15))
            twin.step(np.full(2, 15))


def test_the_sb3_vec_env_survives_pickle_and_deepcopy() -> None:
    pytest.importorskip("stable_baselines3")
    from patience_gym.vector import PatienceSB3VecEnv

    venv = PatienceSB3VecEnv("Klondike-v0", n_envs=3, max_episode_steps=10)
    venv.seed(4)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(7):
        venv.step(some_actions(rng, venv.action_masks()))
    copies = [copy.deepcopy(venv), pickled(venv)]
    for t in range(40):
        actions = some_actions(rng, venv.action_masks())
        obs, rewards, dones, infos = venv.step(actions)
        for c in copies:
            c_obs, c_rewards, c_dones, c_infos = c.step(actions)
            assert np.array_equal(c_obs, obs) and np.array_equal(c_rewards, rewards), f"step {t}"
            assert np.array_equal(c_dones, dones), f"step {t}"
            for got, want in zip(c_infos, infos, strict=True):
                assert got.keys() == want.keys()
                for key in want:
                    assert np.array_equal(got[key], want[key]), f"step {t}: info[{key!r}]"
