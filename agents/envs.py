"""Environment factories for training: explicit deal seeds, optional revisit shaping, vector envs.

**Held-out deals.** ``patience-gym evaluate`` and ``scripts/results.py`` deal episode ``i`` with
``reset(seed=i)`` (seeds from 0). Training never uses those seeds: every training episode is dealt
from an explicit seed, env ``rank`` of ``n_envs`` playing ``train_deal_seed + rank``,
``+ rank + n_envs``, ... (from 1,000,000 up by default), and the periodic evaluation replays the same
``eval_episodes`` deals ``eval_deal_seed .. eval_deal_seed + eval_episodes - 1`` (from 500,000) each
time. Both ranges start at or above :data:`agents.train_config.HELD_OUT_SEEDS` and do not overlap.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, SupportsFloat

import gymnasium as gym
import numpy as np

from patience_gym.env import PatienceEnv

if TYPE_CHECKING:
    from stable_baselines3.common.vec_env import VecEnv

    from agents.train_config import TrainConfig

Obs = np.ndarray
Step = tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]


class DealSeeds(gym.Wrapper[Obs, Any, Obs, Any]):
    """Deal every episode from an explicit seed: ``first``, ``first + stride``, ...

    With ``cycle`` the sequence restarts after ``cycle`` deals, so that an evaluation of ``cycle``
    episodes always plays the same deals. The seed a caller passes to ``reset`` is ignored (sb3's
    vector envs pass their own). Adds ``info["is_success"]`` (= won) at the end of an episode,
    which sb3's evaluation logs as the success rate.
    """

    def __init__(self, env: gym.Env[Obs, Any], first: int, stride: int = 1, cycle: int | None = None) -> None:
        super().__init__(env)
        self.first, self.stride, self.cycle = first, stride, cycle
        self.episode = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        k = self.episode % self.cycle if self.cycle else self.episode
        self.episode += 1
        return self.env.reset(seed=self.first + k * self.stride, options=options)

    def step(self, action: Any) -> Step:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            info["is_success"] = bool(info.get("won", False))
        return obs, reward, terminated, truncated, info


class RevisitPenalty(gym.Wrapper[Obs, Any, Obs, Any]):
    """Subtract ``penalty`` from the reward of a step into a position already seen this episode."""

    def __init__(self, env: gym.Env[Obs, Any], penalty: float) -> None:
        super().__init__(env)
        self.penalty = penalty
        self.seen: set[object] = set()
        self.core: PatienceEnv = env.unwrapped  # type: ignore[assignment]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        out = self.env.reset(seed=seed, options=options)
        self.seen = {self.core.state_key()}
        return out

    def step(self, action: Any) -> Step:
        obs, reward, terminated, truncated, info = self.env.step(action)
        key = self.core.state_key()
        if key in self.seen:
            reward = float(reward) - self.penalty
        self.seen.add(key)
        return obs, reward, terminated, truncated, info


def make_env(
    env: str,
    env_kwargs: dict[str, Any],
    *,
    reward: str,
    first: int,
    stride: int = 1,
    cycle: int | None = None,
    revisit_penalty: float = 0.0,
    move_features: bool = False,
    rollout_features: int = 0,
) -> gym.Env[Obs, Any]:
    """One monitored environment dealing from ``first`` (a top-level function: subproc pickles it),
    with the move features of :mod:`agents.move_features` appended when ``move_features``."""
    from stable_baselines3.common.monitor import Monitor

    import patience_gym  # noqa: F401  (registers the ids)
    from patience_gym.games import get_variant

    e: gym.Env[Obs, Any] = gym.make(get_variant(env).env_id, reward=reward, **env_kwargs)
    e = DealSeeds(e, first, stride, cycle)
    e = Monitor(RevisitPenalty(e, revisit_penalty) if revisit_penalty else e)
    if move_features:
        from agents.move_features import MoveFeatures

        e = MoveFeatures(e, rollout_features)
    return e


def make_train_env(cfg: TrainConfig, *, first_deal: int) -> VecEnv:
    """``n_envs`` training envs; env ``rank`` deals ``first_deal + rank``, then every ``n_envs``-th.

    ``vec_env: native`` steps all of them in one native call (:mod:`patience_gym.vector`); there
    sub-env ``rank`` is seeded ``first_deal + rank`` once and draws its later deals from that seed.
    """
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if cfg.vec_env == "native":
        from patience_gym.games import get_variant
        from patience_gym.vector import PatienceSB3VecEnv

        native = PatienceSB3VecEnv(
            get_variant(cfg.env).env_id, n_envs=cfg.n_envs, reward=cfg.reward, **cfg.env_kwargs
        )
        native.seed(first_deal)
        return VecMonitor(native)

    fns: list[Callable[[], gym.Env[Any, Any]]] = [
        partial(
            make_env,
            cfg.env,
            cfg.env_kwargs,
            reward=cfg.reward,
            first=first_deal + rank,
            stride=cfg.n_envs,
            revisit_penalty=cfg.revisit_penalty,
            move_features=cfg.move_features,
            rollout_features=cfg.rollout_features,
        )
        for rank in range(cfg.n_envs)
    ]
    return SubprocVecEnv(fns) if cfg.vec_env == "subproc" else DummyVecEnv(fns)


def make_eval_env(cfg: TrainConfig) -> VecEnv:
    """The periodic evaluation's env: the same ``eval_episodes`` deals each time, never shaped."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    return DummyVecEnv(
        [
            partial(
                make_env,
                cfg.env,
                cfg.env_kwargs,
                reward=cfg.reward,
                first=cfg.eval_deal_seed,
                cycle=cfg.eval_episodes,
                move_features=cfg.move_features,
                rollout_features=cfg.rollout_features,
            )
        ]
    )
