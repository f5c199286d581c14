"""Wrappers that training and its evaluation share: deals from explicit seeds, revisit shaping.

Both the SB3 trainer (:mod:`agents.training.envs`) and the RLlib one (:mod:`agents.training.rllib`)
deal each episode from a seed of their own (:class:`DealSeeds`) and may shape the reward against
cycles (:class:`RevisitPenalty`); the seeds they use are set out in :mod:`agents.training.envs`.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from patience_gym.env import PatienceEnv

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
