"""RLlib PPO with action masking, on one machine or a Ray cluster (the ``scale`` extra).

RLlib's masking module (``ActionMaskingTorchRLModule``) reads a ``Dict`` observation holding
``observations`` and ``action_mask``; our environments return a flat ``Box`` and the mask in
``info``, so :class:`MaskedObservation` joins the two. The module adds ``log(mask)`` to the logits,
so an illegal action is never sampled, in training or in play.

::

    patience-gym train configs/rllib/nestor.yaml --trainer rllib
    patience-gym evaluate --env Nestor-v0 --policy rllib:runs/rllib/nestor

This module trains; playing a trained checkpoint is :mod:`agents.policies.rllib`. Ray and RLlib
are imported inside the functions that need them: importing this module costs nothing without the
extra.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, SupportsFloat

import gymnasium as gym
import numpy as np

from ..common.backends import connect_ray
from ..common.config import ConfigError

if TYPE_CHECKING:
    from .rllib_config import RLlibConfig

#: The name RLlib knows our environments by (the variant travels in ``env_config``).
ENV_NAME = "patience_gym_masked"

MaskedObs = dict[str, np.ndarray]


class MaskedObservation(gym.Wrapper[Any, Any, Any, Any]):
    """``{"observations": obs, "action_mask": mask}`` (the mask as ``float32`` 0/1), the
    observation RLlib's action-masking module reads. (Typed loosely: gymnasium 1.2 and 1.4 type
    ``Wrapper.__init__`` differently.)"""

    def __init__(self, env: gym.Env[np.ndarray, Any]) -> None:
        super().__init__(env)
        n = int(env.action_space.n)  # type: ignore[attr-defined]
        self.observation_space = gym.spaces.Dict(
            {
                "observations": env.observation_space,
                "action_mask": gym.spaces.Box(0.0, 1.0, (n,), np.float32),
            }
        )

    @staticmethod
    def join(obs: np.ndarray, info: dict[str, Any]) -> MaskedObs:
        return {"observations": obs, "action_mask": info["action_mask"].astype(np.float32)}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[MaskedObs, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return self.join(obs, info), info

    def step(self, action: Any) -> tuple[MaskedObs, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self.join(obs, info), reward, terminated, truncated, info


#: Sub-environments built so far in this process, per env runner: a runner's sub-environments
#: all receive the same context, so the count tells them apart.
_built: dict[int, int] = {}


def make_env(ctx: dict[str, Any]) -> gym.Env[MaskedObs, Any]:
    """One training environment (RLlib's env creator; ``ctx`` is the config's ``env_config``, with
    the runner's ``worker_index`` as an attribute). Sub-environment ``rank`` (runner by runner)
    deals ``first_deal + rank``, then every ``envs``-th seed: no two share a deal."""
    import patience_gym  # noqa: F401  (registers the ids; a Ray worker starts bare)

    from ..common.wrappers import DealSeeds, RevisitPenalty

    runner = int(getattr(ctx, "worker_index", 0))
    per_runner = int(ctx["num_envs_per_env_runner"])
    k = _built.get(runner, 0)
    _built[runner] = k + 1
    rank = runner * per_runner + k % per_runner
    env: gym.Env[Any, Any] = gym.make(ctx["env_id"], reward=ctx["reward"], **ctx["env_kwargs"])
    env = DealSeeds(env, int(ctx["first_deal"]) + rank, stride=int(ctx["envs"]))
    if ctx["revisit_penalty"]:
        env = RevisitPenalty(env, float(ctx["revisit_penalty"]))
    return MaskedObservation(env)


def algorithm_config(cfg: RLlibConfig) -> Any:
    """The ``PPOConfig`` of a run: masked PPO on the variant, the config's runners and keys."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from patience_gym.games import get_variant

    runners = cfg.num_env_runners
    env_config = {
        "env_id": get_variant(cfg.env).env_id,
        "env_kwargs": dict(cfg.env_kwargs),
        "reward": cfg.reward,
        "revisit_penalty": cfg.revisit_penalty,
        "first_deal": cfg.train_deal_seed,
        "num_envs_per_env_runner": cfg.num_envs_per_env_runner,
        # runner 0 (the driver's) steps envs only when there are no remote runners
        "envs": (runners + 1) * cfg.num_envs_per_env_runner,
    }
    return (
        PPOConfig()  # type: ignore[no-untyped-call, unused-ignore]
        .environment(ENV_NAME, env_config=env_config)
        .env_runners(num_env_runners=runners, num_envs_per_env_runner=cfg.num_envs_per_env_runner)
        .training(**cfg.ppo)
        .rl_module(
            rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=cfg.model)
        )
        .debugging(seed=cfg.seed)
    )


class RLlibInterrupted(KeyboardInterrupt):
    """Ctrl-C during RLlib training, after the algorithm was saved to ``checkpoint`` (a
    ``KeyboardInterrupt``: the command line prints its one line and exits with 130)."""

    def __init__(self, checkpoint: Path, steps: int) -> None:
        super().__init__(
            f"interrupted at {steps:,} steps; checkpoint saved to {checkpoint} "
            f"(evaluate with --policy rllib:{checkpoint})"
        )
        self.checkpoint = checkpoint


def _say(line: str) -> None:
    print(line, flush=True)


def train(cfg: RLlibConfig, *, overwrite: bool = False, report: Callable[[str], None] = _say) -> Path:
    """Train as ``cfg`` says; returns the final checkpoint's folder (``<output_dir>/checkpoint``).

    ``report`` receives each iteration's line (with ``progress``) and, always, the closing one:
    steps, time, speed, the last mean return and the checkpoint to evaluate. On Ctrl-C the
    algorithm is saved under ``checkpoints/`` and :class:`RLlibInterrupted` is raised."""
    import yaml
    from ray.tune.registry import register_env

    out = Path(cfg.output_dir)
    final = out / "checkpoint"
    if final.exists() and not overwrite:
        raise ConfigError(f"{out} already holds a trained checkpoint: pass --overwrite to replace it")
    if final.exists():
        shutil.rmtree(final)
        shutil.rmtree(out / "checkpoints", ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(
        yaml.safe_dump({**_asdict(cfg), "output_dir": str(out)}, sort_keys=False)
    )

    # Without an address, a local Ray with a CPU for each runner (more would wait for ever).
    cpus = cfg.num_cpus or max(os.cpu_count() or 1, cfg.num_env_runners)
    connect_ray(cfg.address, cpus)
    register_env(ENV_NAME, make_env)
    algo = algorithm_config(cfg).build_algo()
    steps, iteration, ret, start = 0, 0, float("nan"), time.perf_counter()
    try:
        while steps < cfg.total_timesteps:
            result = algo.train()
            iteration += 1
            runners = result.get("env_runners", {})
            steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
            ret = float(runners.get("episode_return_mean", ret))
            if cfg.progress:
                rate = steps / (time.perf_counter() - start)
                report(f"iteration {iteration}: {steps:,} steps, mean return {ret:.3f}, {rate:,.0f} steps/s")
            if cfg.checkpoint_freq and iteration % cfg.checkpoint_freq == 0:
                algo.save_to_path(str((out / "checkpoints" / f"iter_{iteration:04d}").resolve()))
        algo.save_to_path(str(final.resolve()))
    except KeyboardInterrupt:
        stopped = out / "checkpoints" / f"iter_{iteration:04d}_interrupted"
        algo.save_to_path(str(stopped.resolve()))
        raise RLlibInterrupted(stopped, steps) from None
    finally:
        algo.stop()
    seconds = time.perf_counter() - start
    report(
        f"trained {cfg.env} with RLlib PPO to {steps:,} steps in {seconds:.0f} s "
        f"({steps / max(seconds, 1e-9):,.0f} steps/s), {iteration} iterations, last mean return {ret:.3f}; "
        f"checkpoint in {final}/ (evaluate with --policy rllib:{out})"
    )
    return final


def _asdict(cfg: RLlibConfig) -> dict[str, Any]:
    import dataclasses

    return dataclasses.asdict(cfg)
