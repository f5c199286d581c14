"""Environment factories for training: explicit deal seeds, optional revisit shaping, vector envs.

**Held-out deals.** ``patience-gym evaluate`` and ``scripts/results.py`` deal episode ``i`` with
``reset(seed=i)`` (seeds from 0). Training never uses those seeds: every training episode is dealt
from an explicit seed, env ``rank`` of ``n_envs`` playing ``train_deal_seed + rank``,
``+ rank + n_envs``, ... (from 1,000,000 up by default), and the periodic evaluation replays the same
``eval_episodes`` deals ``eval_deal_seed .. eval_deal_seed + eval_episodes - 1`` (from 500,000) each
time. Both ranges start at or above :data:`agents.training.config.HELD_OUT_SEEDS` and do not overlap.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from ..common.wrappers import DealSeeds, Obs, RevisitPenalty

if TYPE_CHECKING:
    from stable_baselines3.common.vec_env import VecEnv

    from .config import TrainConfig


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
    with the move features of :mod:`agents.policies.features` appended when ``move_features``."""
    from stable_baselines3.common.monitor import Monitor

    import patience_gym  # noqa: F401  (registers the ids)
    from patience_gym.games import get_variant

    e: gym.Env[Obs, Any] = gym.make(get_variant(env).env_id, reward=reward, **env_kwargs)
    e = DealSeeds(e, first, stride, cycle)
    e = Monitor(RevisitPenalty(e, revisit_penalty) if revisit_penalty else e)
    if move_features:
        from ..policies.features import MoveFeatures

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
            get_variant(cfg.env).env_id,
            n_envs=cfg.n_envs,
            reward=cfg.reward,
            move_features=cfg.policy == "move_policy",
            **cfg.env_kwargs,
        )
        native.seed(first_deal)
        return VecMonitor(native)

    fns = [
        _env_fn(cfg, first=first_deal + rank, stride=cfg.n_envs, revisit_penalty=cfg.revisit_penalty)
        for rank in range(cfg.n_envs)
    ]
    return SubprocVecEnv(fns) if cfg.vec_env == "subproc" else DummyVecEnv(fns)


def make_eval_env(cfg: TrainConfig) -> VecEnv:
    """The periodic evaluation's env: the same ``eval_episodes`` deals each time, never shaped."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    return DummyVecEnv([_env_fn(cfg, first=cfg.eval_deal_seed, cycle=cfg.eval_episodes)])


def _env_fn(cfg: TrainConfig, **deals: Any) -> Callable[[], gym.Env[Obs, Any]]:
    """:func:`make_env` with ``cfg``'s variant, reward and move features, dealing as ``deals`` say
    (``first``, ``stride``, ``cycle``, ``revisit_penalty``): a partial, which subproc pickles."""
    return partial(
        make_env,
        cfg.env,
        cfg.env_kwargs,
        reward=cfg.reward,
        move_features=cfg.move_features,
        rollout_features=cfg.rollout_features,
        **deals,
    )
