"""Train sb3-contrib ``MaskablePPO`` on a patience variant from a config file.

::

    patience-gym train configs/ppo/nestor.yaml
    patience-gym train configs/ppo/klondike.yaml --set total_timesteps=50000 --set ppo.ent_coef=0.02
    patience-gym train configs/ppo/nestor.yaml --set resume=runs/ppo/nestor/checkpoints/ppo_100000_steps.zip

A run writes into ``output_dir`` (a folder holding another run is refused unless ``overwrite``
or resuming)::

    config.yaml          the resolved config (every default and env option filled in; trains again as is)
    final_model.zip      the model after ``total_timesteps``
    best_model.zip       the model with the best mean reward on the periodic evaluation
    checkpoints/         ppo_<steps>_steps.zip every ``checkpoint_freq`` steps, and on Ctrl-C
    evaluations.csv      the periodic evaluations: steps, win rate, mean foundation cards, ...
    evaluations.npz      the same in sb3's EvalCallback format (with successes = wins)
    train_info.json      timesteps, wall time, speed, the best and last evaluation
    tb/                  TensorBoard logs (``tensorboard --logdir runs/ppo``)

The config and its checks are in :mod:`agents.training.config`, the deal-seeded environments in
:mod:`agents.training.envs`. This module needs the ``train`` extra (torch, stable-baselines3, sb3-contrib).
A resumed run starts its training deals past any the checkpoint can have played.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback
from torch import nn

from ..common.config import ConfigError
from ..common.data import checkout_commit
from .callbacks import (
    CSV_NAME,
    BatchedEvalCallback,
    Evaluation,
    ReportingEvalCallback,
    read_evaluations,
)
from .config import (
    TrainConfig,
    check_config,
    check_env_options,
    schedule,
)
from .envs import make_eval_env, make_train_env
from .runs import prepare_output_dir, resolve_auto_resume

#: The periodic evaluation: sb3's masked one (one Python-stepped game at a time) or the batched one.
EvalCallback = ReportingEvalCallback | BatchedEvalCallback
#: The checkout's commit as training starts (``+changes``: with uncommitted changes), read once.
COMMIT = checkout_commit()

_ACTIVATION_FNS: dict[str, type[nn.Module]] = {
    "relu": nn.ReLU,
    "tanh": nn.Tanh,
    "elu": nn.ELU,
    "leaky_relu": nn.LeakyReLU,
    "gelu": nn.GELU,
    "silu": nn.SiLU,
}


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during training, after the model was saved to ``path`` (resume from it)."""

    def __init__(self, path: Path, steps: int) -> None:
        super().__init__(f"interrupted at {steps:,} steps; model saved to {path}")
        self.path, self.steps = path, steps


def _say(line: str) -> None:
    print(line, flush=True)


def train(
    cfg: TrainConfig,
    *,
    overwrite: bool = False,
    report: Callable[[str], None] = _say,
    callbacks: list[BaseCallback] | None = None,
) -> Path:
    """Train (or resume) as ``cfg`` says; returns the output folder holding ``final_model.zip``.

    ``report`` receives each periodic evaluation and the closing summary, one line each;
    ``callbacks`` are added to the run's own. On Ctrl-C the model is saved as a checkpoint and
    :class:`TrainingInterrupted` (a ``KeyboardInterrupt``) is raised.
    """
    check_config(cfg)  # a config edited after construction is checked again
    if cfg.resume == "auto":
        cfg, finished = resolve_auto_resume(cfg)
        if finished is not None:
            report(f"{cfg.output_dir} already holds a model trained to {finished:,} steps; nothing to do")
            return Path(cfg.output_dir)
    out = prepare_output_dir(cfg, overwrite=overwrite)
    save_config(cfg, out / "config.yaml")
    if cfg.torch_threads is not None:
        torch.set_num_threads(cfg.torch_threads)
    model, done = _model(cfg, out)
    cloning = time.perf_counter()
    if cfg.imitation and not cfg.resume:
        _imitate(cfg, model, out, report)
    cloning = time.perf_counter() - cloning
    eval_cb = _eval_callback(cfg, out, done=done, report=report) if cfg.eval_freq else None
    all_callbacks = _checkpoint_callbacks(cfg, out) + ([eval_cb] if eval_cb else []) + list(callbacks or [])
    start = time.perf_counter()
    try:
        if cfg.total_timesteps > done:
            model.learn(
                cfg.total_timesteps - done,
                callback=all_callbacks,
                tb_log_name="MaskablePPO",
                reset_num_timesteps=not cfg.resume,
                progress_bar=cfg.progress_bar,
            )
    except KeyboardInterrupt:
        seconds = time.perf_counter() - start
        raise _interrupted(cfg, out, model, eval_cb, done=done, seconds=seconds, cloning=cloning) from None
    seconds = time.perf_counter() - start
    if eval_cb is not None:
        eval_cb.evaluate_now()  # the last point: the final model
    model.save(out / "final_model.zip")
    info = _write_info(cfg, out, model, done=done, seconds=seconds, eval_cb=eval_cb, cloning=cloning)
    _close(model)
    report(summary(info, out))
    return out


def _interrupted(
    cfg: TrainConfig, out: Path, model: MaskablePPO, eval_cb: EvalCallback | None, **stats: Any
) -> TrainingInterrupted:
    """After Ctrl-C: the model saved as a checkpoint and evaluated as it stopped (a second Ctrl-C
    skips the evaluation: the model is saved), the run's info written; the exception to raise."""
    saved = out / "checkpoints" / f"ppo_{model.num_timesteps}_steps.zip"
    saved.parent.mkdir(exist_ok=True)
    model.save(saved)
    if eval_cb is not None:
        with contextlib.suppress(KeyboardInterrupt):
            eval_cb.evaluate_now()
    _write_info(cfg, out, model, eval_cb=eval_cb, interrupted=True, **stats)
    _close(model)
    return TrainingInterrupted(saved, int(model.num_timesteps))


def _imitate(cfg: TrainConfig, model: MaskablePPO, out: Path, report: Callable[[str], None]) -> None:
    """Behaviour cloning of the config's teacher into the fresh model (agents.training.imitation)."""
    from patience_gym.games import get_variant

    from .imitation import (
        IMITATION_DEAL_SEED,
        Demonstrations,
        check_imitation,
        collect,
        pretrain,
    )

    settings = check_imitation(cfg.imitation)
    record = partial(
        collect,
        get_variant(cfg.env).env_id,
        cfg.env_kwargs,
        settings["teacher"],
        reward=cfg.reward,
        gamma=float(model.gamma),
        move_features=cfg.move_features,
        rollout_features=cfg.rollout_features,
        report=report,
    )
    demos = record(settings["episodes"])
    agreement = pretrain(model, demos, settings, report)
    teacher_wins = f"{demos.wins}/{demos.episodes}"
    for round_ in range(settings["dagger"]):
        first = IMITATION_DEAL_SEED + settings["episodes"] + round_ * settings["dagger_episodes"]
        report(f"imitation: DAgger round {round_ + 1}/{settings['dagger']}")
        played = record(settings["dagger_episodes"], student=model, first_seed=first)
        demos = Demonstrations.join([demos, played])
        agreement = pretrain(model, demos, {**settings, "epochs": settings["dagger_epochs"]}, report)
    model.save(out / "imitation_model.zip")
    report(
        f"imitation: {settings['teacher']} won {teacher_wins} deals; the policy agrees "
        f"with it on {100 * agreement:.1f}% of {len(demos.actions):,} decisions (saved imitation_model.zip)"
    )


def save_config(cfg: TrainConfig, path: Path) -> None:
    """The config as trained, with the env's options in effect (defaults included)."""
    import yaml

    data = dataclasses.asdict(cfg)
    data["env_kwargs"] = check_env_options(cfg.env, cfg.env_kwargs)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _model(cfg: TrainConfig, out: Path) -> tuple[MaskablePPO, int]:
    """A new model, or the one resumed from, attached to fresh training envs; and its step count."""
    tb = str(out / "tb")
    if not cfg.resume:
        env = make_train_env(cfg, first_deal=cfg.train_deal_seed)
        model = MaskablePPO(
            _policy_class(cfg),
            env,
            policy_kwargs=_policy_kwargs(cfg),
            tensorboard_log=tb,
            seed=cfg.seed,
            verbose=cfg.verbose,
            **_ppo_kwargs(cfg),
        )
        return model, 0
    resume = Path(cfg.resume)
    if not resume.is_file():
        raise ConfigError(f"key 'resume': {str(resume)!r} is not a saved model")
    device = _ppo_kwargs(cfg)["device"]
    model = MaskablePPO.load(resume, device=device, tensorboard_log=tb, verbose=cfg.verbose)
    if model.n_envs != cfg.n_envs:
        raise ConfigError(
            f"key 'n_envs': {str(resume)!r} was trained with n_envs={model.n_envs}, this config has "
            f"{cfg.n_envs}; resume with the same number (--set n_envs={model.n_envs})"
        )
    done = int(model.num_timesteps)
    # The checkpoint's run had each of its n envs deal at most done / n + 2 times (one deal per
    # step at most, plus the first and the auto-reset), all below this start: no deal repeats.
    env = make_train_env(cfg, first_deal=cfg.train_deal_seed + done + 2 * model.n_envs)
    try:
        model.set_env(env)
    except (ValueError, AssertionError) as exc:
        env.close()
        raise ConfigError(f"key 'resume': {str(resume)!r} does not fit {cfg.env}: {exc}") from None
    model.set_random_seed(cfg.seed)
    return model, done


def _policy_class(cfg: TrainConfig) -> str | type[Any]:
    if cfg.policy == "move_policy":
        from ..policies.move_policy import MovePolicy

        return MovePolicy
    if cfg.policy == "move_scorer":
        from ..policies.move_scorer import MoveScorerPolicy

        return MoveScorerPolicy
    return "MlpPolicy"


def _policy_kwargs(cfg: TrainConfig) -> dict[str, Any]:
    kw = dict(cfg.policy_kwargs)
    if cfg.rollout_features:
        kw["feature_rollouts"] = cfg.rollout_features  # kept in the model: ppo:<path> rebuilds them
    if "activation_fn" in kw:
        kw["activation_fn"] = _ACTIVATION_FNS[kw["activation_fn"]]
    return kw


def _ppo_kwargs(cfg: TrainConfig) -> dict[str, Any]:
    kw: dict[str, Any] = {"device": "cpu", **cfg.ppo}  # small MLPs on small vectors: fastest on the CPU
    for key in ("learning_rate", "clip_range"):
        if isinstance(kw.get(key), str):
            kw[key] = schedule(key, kw[key])
    return kw


def _checkpoint_callbacks(cfg: TrainConfig, out: Path) -> list[BaseCallback]:
    if not cfg.checkpoint_freq:
        return []
    return [CheckpointCallback(max(1, cfg.checkpoint_freq // cfg.n_envs), str(out / "checkpoints"), "ppo")]


def _eval_callback(cfg: TrainConfig, out: Path, *, done: int, report: Callable[[str], None]) -> EvalCallback:
    history = read_evaluations(out / CSV_NAME, upto=done) if cfg.resume else None
    # Never less often than once a run: a run shorter than eval_freq still gets a periodic point
    # (and, like every run, one at its end).
    freq = min(cfg.eval_freq, max(1, cfg.total_timesteps - done))
    if cfg.vec_env == "native" and not cfg.move_features:
        batched = BatchedEvalCallback(
            cfg.env,
            check_env_options(cfg.env, cfg.env_kwargs),
            reward=cfg.reward,
            first_seed=cfg.eval_deal_seed,
            episodes=cfg.eval_episodes,
            every=freq // cfg.n_envs,
            out=out,
            report=report,
            history=history,
        )
        if cfg.resume:
            batched.restore(out / "evaluations.npz", upto=done)
        return batched
    cb = ReportingEvalCallback(
        make_eval_env(cfg),
        n_eval_episodes=cfg.eval_episodes,
        eval_freq=max(1, freq // cfg.n_envs),
        log_path=str(out),
        best_model_save_path=str(out),
        deterministic=True,
        verbose=cfg.verbose,
        csv_path=out / CSV_NAME,
        report=report,
        history=history,
        # Evaluate at once (the untrained network, or the clone after a warm start, the first point
        # of the learning curve and a candidate for best_model.zip).
        first=not cfg.resume,
    )
    if cfg.resume:
        _restore_evaluations(cb, out / "evaluations.npz", upto=done)
    return cb


def _restore_evaluations(cb: ReportingEvalCallback, path: Path, *, upto: int) -> None:
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


def _write_info(
    cfg: TrainConfig,
    out: Path,
    model: MaskablePPO,
    *,
    done: int,
    seconds: float,
    eval_cb: BaseCallback | None,
    interrupted: bool = False,
    cloning: float = 0.0,
) -> dict[str, Any]:
    history: list[Evaluation] = getattr(eval_cb, "history", [])
    best = max(history, key=lambda e: e.mean_reward, default=None)  # as best_model.zip is chosen
    earlier = 0.0  # the training time of the run resumed from, when it trained in this folder
    if cfg.resume and (out / "train_info.json").is_file():
        earlier = float(json.loads((out / "train_info.json").read_text()).get("total_seconds", 0.0))
    info = {
        "env": cfg.env,
        "num_timesteps": int(model.num_timesteps),
        "resumed_from": cfg.resume,
        "resumed_at": done,
        "interrupted": interrupted,
        "seconds": round(seconds, 1),
        "total_seconds": round(earlier + seconds, 1),  # every stretch of this run, resumed ones included
        "steps_per_second": round((model.num_timesteps - done) / seconds, 1) if seconds else None,
        "imitation_seconds": round(cloning, 1),  # the warm start's teacher games and epochs, before PPO
        "commit": COMMIT,  # the code that trained this stretch (None outside a git checkout)
        "best_evaluation": dataclasses.asdict(best) if best else None,
        "last_evaluation": dataclasses.asdict(history[-1]) if history else None,
    }
    (out / "train_info.json").write_text(json.dumps(info, indent=2))
    return info


def summary(info: dict[str, Any], out: Path) -> str:
    """One line: steps, time and speed, the evaluations of ``final_model.zip`` and
    ``best_model.zip``, where the models are."""
    line = (
        f"trained {info['env']} to {info['num_timesteps']:,} steps in {info['seconds']:.0f} s "
        f"({info['steps_per_second']} steps/s)"
    )
    for name, key in (("final", "last_evaluation"), ("best", "best_evaluation")):
        if info.get(key):
            ev = Evaluation(**info[key])
            line += (
                f"; {name} model at {ev.steps:,} steps: win rate {100 * ev.win_rate:.1f}%, "
                f"{ev.mean_foundation_cards:.1f} cards"
            )
    return f"{line}; models in {out}/"


def _close(model: MaskablePPO) -> None:
    env = model.get_env()
    if env is not None:
        with contextlib.suppress(OSError, EOFError):  # subproc workers already gone after Ctrl-C
            env.close()
