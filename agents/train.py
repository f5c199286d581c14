"""Train sb3-contrib ``MaskablePPO`` on a patience variant from a config file.

::

    patience-gym train configs/ppo/nestor.yaml
    patience-gym train configs/ppo/klondike.yaml --set total_timesteps=50000 --set ppo.ent_coef=0.02
    patience-gym train configs/ppo/nestor.yaml --set resume=runs/ppo/nestor/checkpoints/ppo_100000_steps.zip

A run writes into ``output_dir``::

    config.yaml          the resolved config (every default filled in; trains again as is)
    final_model.zip      the model after ``total_timesteps``
    best_model.zip       the model with the best mean reward on the periodic evaluation
    checkpoints/         ppo_<steps>_steps.zip every ``checkpoint_freq`` steps (resume from these)
    evaluations.npz      the periodic evaluations (sb3's EvalCallback format, with successes = wins)
    train_info.json      timesteps, wall time and speed of the run
    tb/                  TensorBoard logs (``tensorboard --logdir runs/ppo``)

**Held-out deals.** ``patience-gym evaluate`` and ``scripts/results.py`` deal episode ``i`` with
``reset(seed=i)`` (seeds from 0). Training never uses those seeds: every training episode is dealt
from an explicit seed, env ``rank`` of ``n_envs`` playing ``train_deal_seed + rank``,
``+ rank + n_envs``, ... (from 1,000,000 up by default), and the periodic evaluation replays the same
``eval_episodes`` deals ``eval_deal_seed .. eval_deal_seed + eval_episodes - 1`` (from 500,000) each
time. Both ranges must start at or above :data:`HELD_OUT_SEEDS` (500,000) and must not overlap.
A resumed run starts its training deals past any the checkpoint can have played.

torch and stable-baselines3 are imported inside functions only, so that ``patience-gym evaluate``
and ``list`` stay fast and work without the ``train`` extra.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import inspect
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import Any, Literal

import gymnasium as gym

from agents.config import ConfigError, load
from patience_gym.env import PatienceEnv

#: Deal seeds below this are reserved for evaluation (``patience-gym evaluate``, the results table).
HELD_OUT_SEEDS = 500_000

#: ``ppo`` keys that the config sets through its own fields (or that make no sense in a config).
_PPO_RESERVED = ("policy", "env", "policy_kwargs", "tensorboard_log", "seed", "verbose", "_init_setup_model")

_ACTIVATIONS = ("relu", "tanh", "elu", "leaky_relu", "gelu", "silu")


@dataclass
class TrainConfig:
    """``configs/ppo/*.yaml``: one MaskablePPO training run. Keys follow rl-zoo3 where it has one.

    Timestep counts (``total_timesteps``, ``eval_freq``, ``checkpoint_freq``) are environment steps
    summed over all ``n_envs`` environments, as sb3 counts ``num_timesteps``.
    """

    env: str
    """Registered variant, ``Nestor-v0`` or ``patience_gym/Nestor-v0``."""
    total_timesteps: int
    """Environment steps to train for (in total, also when resuming)."""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """The variant's rule options, e.g. ``{draw: 3}`` for Klondike."""
    reward: Literal["foundation", "win"] = "foundation"
    """``foundation``: +fraction of the winning cards per card played up; ``win``: 1 on a win."""
    revisit_penalty: float = 0.0
    """Training only: subtracted from the reward of a step that returns to a position already seen
    in the episode, against the back-and-forth cycles a deterministic policy can fall into (moving
    a card between two piles until the step limit). The periodic evaluation is never shaped."""
    n_envs: int = 8
    """Parallel environments feeding each rollout."""
    vec_env: Literal["dummy", "subproc"] = "dummy"
    """``dummy`` steps the envs in this process (best for these fast envs); ``subproc`` uses one
    process per env."""
    seed: int = 0
    """Seeds torch, numpy and the policy's sampling (not the deals: see ``train_deal_seed``)."""
    ppo: dict[str, Any] = field(default_factory=dict)
    """``MaskablePPO`` keyword arguments (``n_steps``, ``batch_size``, ``n_epochs``, ``gamma``,
    ``gae_lambda``, ``learning_rate``, ``clip_range``, ``ent_coef``, ``vf_coef``, ``max_grad_norm``,
    ``target_kl``, ``device``, ...). ``learning_rate`` and ``clip_range`` also take rl-zoo3's
    ``lin_<value>`` for a linear decay to 0."""
    policy_kwargs: dict[str, Any] = field(default_factory=dict)
    """``MaskableActorCriticPolicy`` arguments, e.g. ``{net_arch: [256, 256], activation_fn: relu}``
    (``activation_fn`` by name: relu, tanh, elu, leaky_relu, gelu, silu)."""
    eval_freq: int = 20_000
    """Evaluate with masks every this many steps (0: never, and no best model)."""
    eval_episodes: int = 200
    """Deals per periodic evaluation (always the same ones)."""
    eval_deal_seed: int = 500_000
    """First seed of the periodic evaluation's deals."""
    train_deal_seed: int = 1_000_000
    """First seed of the training deals."""
    checkpoint_freq: int = 50_000
    """Save ``checkpoints/ppo_<steps>_steps.zip`` every this many steps (0: never)."""
    output_dir: str = "runs/ppo/run"
    """Where models, the resolved config and the logs go."""
    resume: str | None = None
    """A saved model (``checkpoints/ppo_<n>_steps.zip``) to continue from up to ``total_timesteps``;
    its saved hyper-parameters are used, the ``ppo`` and ``policy_kwargs`` keys are not."""
    progress_bar: bool = True
    """Show sb3's progress bar (tqdm + rich)."""
    torch_threads: int | None = 1
    """``torch.set_num_threads``; small MLPs gain nothing from more threads. ``null``: torch's default."""
    verbose: int = 0
    """sb3's verbosity: 0 quiet, 1 prints the rollout/train statistics."""

    def __post_init__(self) -> None:
        check_config(self)


def check_config(cfg: TrainConfig) -> None:
    """The checks a type cannot express; each error names the key and what is allowed."""
    from patience_gym.games import get_variant

    try:
        variant = get_variant(cfg.env)
    except ValueError as exc:
        raise ConfigError(f"key 'env': {exc}") from None
    try:  # the variant's rule options (an unknown one or a bad value says what is allowed)
        variant.make_game(**cfg.env_kwargs)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"key 'env_kwargs': {exc}") from None
    for key in ("total_timesteps", "n_envs", "eval_episodes"):
        if getattr(cfg, key) < 1:
            raise ConfigError(f"key {key!r} must be >= 1, got {getattr(cfg, key)}")
    for key in ("eval_freq", "checkpoint_freq"):
        if getattr(cfg, key) < 0:
            raise ConfigError(f"key {key!r} must be >= 0 (0 disables it), got {getattr(cfg, key)}")
    if cfg.revisit_penalty < 0:
        raise ConfigError(f"key 'revisit_penalty' must be >= 0, got {cfg.revisit_penalty}")
    if cfg.torch_threads is not None and cfg.torch_threads < 1:
        raise ConfigError(f"key 'torch_threads' must be >= 1 or null, got {cfg.torch_threads}")
    for key in ("eval_deal_seed", "train_deal_seed"):
        if getattr(cfg, key) < HELD_OUT_SEEDS:
            raise ConfigError(
                f"key {key!r} must be >= {HELD_OUT_SEEDS:,}: seeds below are the held-out evaluation deals"
            )
    if cfg.eval_deal_seed + cfg.eval_episodes > cfg.train_deal_seed:
        raise ConfigError(
            "keys 'train_deal_seed' and 'eval_deal_seed': the training deals (train_deal_seed and up) "
            f"must start above the periodic evaluation's ({cfg.eval_deal_seed} .. "
            f"{cfg.eval_deal_seed + cfg.eval_episodes - 1})"
        )
    check_ppo_kwargs(cfg.ppo)
    act = cfg.policy_kwargs.get("activation_fn")
    if act is not None and act not in _ACTIVATIONS:
        raise ConfigError(
            f"key 'policy_kwargs.activation_fn': {act!r} is not allowed; choose one of {', '.join(_ACTIVATIONS)}"
        )


def ppo_parameters() -> dict[str, inspect.Parameter]:
    """``MaskablePPO.__init__``'s keyword arguments that a config's ``ppo`` mapping may set."""
    from sb3_contrib import MaskablePPO

    params = inspect.signature(MaskablePPO.__init__).parameters
    return {k: p for k, p in params.items() if k != "self" and k not in _PPO_RESERVED}


def check_ppo_kwargs(ppo: dict[str, Any]) -> None:
    """Names from MaskablePPO's signature; values of the default's type (or a ``lin_`` schedule)."""
    allowed = ppo_parameters()
    for key, value in ppo.items():
        if key in _PPO_RESERVED:
            raise ConfigError(f"key 'ppo.{key}' is set elsewhere: use the top-level key, not ppo.{key}")
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(
                f"key 'ppo.{key}' is not a MaskablePPO argument{hint}; allowed: {', '.join(allowed)}"
            )
        default = allowed[key].default
        if key in ("learning_rate", "clip_range") and isinstance(value, str):
            _schedule(key, value)
            continue
        if value is None or default is None or default is inspect.Parameter.empty:
            continue
        want = type(default)
        ok = isinstance(value, want) and not (isinstance(value, bool) and want is not bool)
        if want is float and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if not ok:
            raise ConfigError(f"key 'ppo.{key}' must be {want.__name__}, got {value!r}")


def _schedule(key: str, value: Any) -> Any:
    """rl-zoo3's ``lin_<x>``: decay linearly from x to 0 over training; a number stays constant."""
    if not isinstance(value, str):
        return value
    try:
        if not value.startswith("lin_"):
            raise ValueError
        start = float(value[4:])
    except ValueError:
        raise ConfigError(f"key 'ppo.{key}' must be a number or 'lin_<number>', got {value!r}") from None
    return _Linear(start)


@dataclass(frozen=True)
class _Linear:
    """A picklable linear schedule (sb3 passes the remaining progress, 1 -> 0)."""

    start: float

    def __call__(self, progress_remaining: float) -> float:
        return progress_remaining * self.start


# ---- environments ------------------------------------------------------------------------------


class DealSeeds(gym.Wrapper):
    """Deal every episode from an explicit seed: ``first``, ``first + stride``, ...

    With ``cycle`` the sequence restarts after ``cycle`` deals, so that an evaluation of ``cycle``
    episodes always plays the same deals. The seed a caller passes to ``reset`` is ignored (sb3's
    vector envs pass their own). Adds ``info["is_success"]`` (= won) at the end of an episode,
    which sb3's evaluation logs as the success rate.
    """

    def __init__(self, env: gym.Env, first: int, stride: int = 1, cycle: int | None = None) -> None:
        super().__init__(env)
        self.first, self.stride, self.cycle = first, stride, cycle
        self.episode = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):  # type: ignore[override]
        k = self.episode % self.cycle if self.cycle else self.episode
        self.episode += 1
        return self.env.reset(seed=self.first + k * self.stride, options=options)

    def step(self, action: Any):  # type: ignore[override]
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            info["is_success"] = bool(info.get("won", False))
        return obs, reward, terminated, truncated, info


class RevisitPenalty(gym.Wrapper):
    """Subtract ``penalty`` from the reward of a step into a position already seen this episode."""

    def __init__(self, env: gym.Env, penalty: float) -> None:
        super().__init__(env)
        self.penalty = penalty
        self.seen: set[object] = set()
        self.core: PatienceEnv = env.unwrapped  # type: ignore[assignment]

    def reset(self, **kwargs: Any):  # type: ignore[override]
        out = self.env.reset(**kwargs)
        self.seen = {self.core.game.state_key()}
        return out

    def step(self, action: Any):  # type: ignore[override]
        obs, reward, terminated, truncated, info = self.env.step(action)
        key = self.core.game.state_key()
        if key in self.seen:
            reward = float(reward) - self.penalty
        self.seen.add(key)
        return obs, reward, terminated, truncated, info


def make_env(
    env: str,
    env_kwargs: dict[str, Any],
    reward: str,
    first: int,
    stride: int = 1,
    cycle: int | None = None,
    revisit_penalty: float = 0.0,
) -> gym.Env:
    """One monitored environment dealing from ``first`` (a top-level function: subproc pickles it)."""
    from stable_baselines3.common.monitor import Monitor

    import patience_gym  # noqa: F401  (registers the ids)
    from patience_gym.games import get_variant

    e = gym.make(get_variant(env).env_id, reward=reward, **env_kwargs)
    e = DealSeeds(e, first, stride, cycle)
    return Monitor(RevisitPenalty(e, revisit_penalty) if revisit_penalty else e)


def _vec_env(cfg: TrainConfig, first_deal: int):  # type: ignore[no-untyped-def]
    from functools import partial

    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    fns: list[Callable[[], gym.Env]] = [
        partial(
            make_env, cfg.env, cfg.env_kwargs, cfg.reward, first_deal + rank, cfg.n_envs,
            revisit_penalty=cfg.revisit_penalty,
        )
        for rank in range(cfg.n_envs)
    ]
    return SubprocVecEnv(fns) if cfg.vec_env == "subproc" else DummyVecEnv(fns)


# ---- training ----------------------------------------------------------------------------------


def _policy_kwargs(cfg: TrainConfig) -> dict[str, Any]:
    from torch import nn

    kw = dict(cfg.policy_kwargs)
    if "activation_fn" in kw:
        kw["activation_fn"] = {
            "relu": nn.ReLU, "tanh": nn.Tanh, "elu": nn.ELU,
            "leaky_relu": nn.LeakyReLU, "gelu": nn.GELU, "silu": nn.SiLU,
        }[kw["activation_fn"]]
    return kw


def _ppo_kwargs(cfg: TrainConfig) -> dict[str, Any]:
    kw = {"device": "cpu", **cfg.ppo}  # MLP policies on small vectors are fastest on the CPU
    for key in ("learning_rate", "clip_range"):
        if key in kw:
            kw[key] = _schedule(key, kw[key])
    return kw


def save_config(cfg: TrainConfig, path: Path) -> None:
    import yaml

    path.write_text(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))


def train(cfg: TrainConfig) -> Path:
    """Train (or resume) as ``cfg`` says; returns the output folder holding ``final_model.zip``."""
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    check_config(cfg)  # a config edited after construction is checked again
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    save_config(cfg, out / "config.yaml")
    if cfg.torch_threads is not None:
        torch.set_num_threads(cfg.torch_threads)

    tb = str(out / "tb")
    model = None
    if cfg.resume:
        resume = Path(cfg.resume)
        if not resume.is_file():
            raise ConfigError(f"key 'resume': {str(resume)!r} is not a saved model")
        device = _ppo_kwargs(cfg)["device"]
        model = MaskablePPO.load(resume, device=device, tensorboard_log=tb, verbose=cfg.verbose)
    done = int(model.num_timesteps) if model is not None else 0
    # The checkpoint's run had each of its n envs deal at most done / n + 2 times (one deal per
    # step at most, plus the first and the auto-reset), all below this start: no deal repeats.
    skip = done + 2 * model.n_envs if model is not None else 0
    env = _vec_env(cfg, cfg.train_deal_seed + skip)
    if model is not None:
        model.set_env(env)
        model.set_random_seed(cfg.seed)
    else:
        model = MaskablePPO(
            "MlpPolicy", env, policy_kwargs=_policy_kwargs(cfg), tensorboard_log=tb,
            seed=cfg.seed, verbose=cfg.verbose, **_ppo_kwargs(cfg),
        )
    remaining = cfg.total_timesteps - done
    callbacks: list[BaseCallback] = []
    if cfg.checkpoint_freq:
        callbacks.append(
            CheckpointCallback(max(1, cfg.checkpoint_freq // cfg.n_envs), str(out / "checkpoints"), "ppo")
        )
    if cfg.eval_freq:
        eval_env = DummyVecEnv(
            [lambda: make_env(cfg.env, cfg.env_kwargs, cfg.reward, cfg.eval_deal_seed, 1, cfg.eval_episodes)]
        )
        cb = MaskableEvalCallback(
            eval_env, n_eval_episodes=cfg.eval_episodes, eval_freq=max(1, cfg.eval_freq // cfg.n_envs),
            log_path=str(out), best_model_save_path=str(out), deterministic=True, verbose=cfg.verbose,
        )
        if cfg.resume:
            _restore_evaluations(cb, out / "evaluations.npz", done)
        callbacks.append(cb)

    start = time.perf_counter()
    if remaining > 0:
        model.learn(
            remaining, callback=callbacks, tb_log_name="MaskablePPO",
            reset_num_timesteps=not cfg.resume, progress_bar=cfg.progress_bar,
        )
    seconds = time.perf_counter() - start
    model.save(out / "final_model.zip")
    env.close()
    info = {
        "env": cfg.env,
        "num_timesteps": int(model.num_timesteps),
        "resumed_from": cfg.resume,
        "resumed_at": done,
        "seconds": round(seconds, 1),
        "steps_per_second": round((model.num_timesteps - done) / seconds, 1) if seconds else None,
    }
    (out / "train_info.json").write_text(json.dumps(info, indent=2))
    return out


def _restore_evaluations(cb: Any, path: Path, upto: int) -> None:
    """Carry the earlier run's evaluations (up to the checkpoint) into the resumed one, so that
    ``best_model.zip`` is replaced only by a better model than any before."""
    import numpy as np

    if not path.is_file():
        return
    data = np.load(path)
    keep = data["timesteps"] <= upto
    cb.evaluations_timesteps = data["timesteps"][keep].tolist()
    cb.evaluations_results = data["results"][keep].tolist()
    cb.evaluations_length = data["ep_lengths"][keep].tolist()
    if "successes" in data:
        cb.evaluations_successes = data["successes"][keep].tolist()
    if cb.evaluations_results:
        cb.best_mean_reward = float(max(np.mean(r) for r in cb.evaluations_results))


# ---- command line ------------------------------------------------------------------------------


def load_config(path: str | None, overrides: list[str] | None = None) -> TrainConfig:
    """The config file with ``key=value`` overrides applied, fully checked."""
    where = str(path) if path else "command line"
    try:
        return load(TrainConfig, path, overrides)
    except ConfigError as exc:
        msg = str(exc)
        raise ConfigError(msg if msg.startswith(where) else f"{where}: {msg}") from None


def _cmd_train(args: argparse.Namespace) -> int:
    cfg = load_config(args.config, args.set)
    out = train(cfg)
    info = json.loads((out / "train_info.json").read_text())
    print(
        f"trained {cfg.env} to {info['num_timesteps']:,} steps in {info['seconds']:.0f} s "
        f"({info['steps_per_second']} steps/s); models in {out}/"
    )
    return 0


def add_train_parser(sub: Any) -> None:
    """``patience-gym train CONFIG [--set key=value ...]``."""
    p = sub.add_parser(
        "train",
        help="train MaskablePPO from a config (configs/ppo/...)",
        description="Train sb3-contrib MaskablePPO as the YAML config says. Any key may be overridden "
        "with --set (dotted for nested keys: --set ppo.n_steps=256 --set env_kwargs.draw=3).",
    )
    p.add_argument("config", help="YAML config, e.g. configs/ppo/nestor.yaml")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key, e.g. total_timesteps=100000 or resume=<checkpoint.zip>")
    p.set_defaults(func=_cmd_train)
