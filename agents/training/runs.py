"""The run folder (``output_dir``): what a training run writes there, and how the same command
finds where to go on (``resume: auto``): a fresh run, the newest checkpoint of an interrupted one,
or the final model of a finished one whose ``total_timesteps`` grew.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from agents.common.config import ConfigError
from agents.training.callbacks import CSV_NAME
from agents.training.config import TrainConfig

#: What a run writes into ``output_dir``; ``overwrite`` removes these (and nothing else) first.
RUN_FILES = (
    "config.yaml",
    "final_model.zip",
    "best_model.zip",
    "evaluations.npz",
    CSV_NAME,
    "train_info.json",
)
RUN_DIRS = ("checkpoints", "tb")


def saved_models(out: Path) -> list[tuple[int, Path]]:
    """The models a run in ``out`` saved, with their step counts, fewest steps first: its
    checkpoints (``checkpoints/ppo_<steps>_steps.zip``) and ``final_model.zip`` (its steps from
    ``train_info.json``)."""
    found: list[tuple[int, Path]] = []
    for path in (out / "checkpoints").glob("ppo_*_steps.zip"):
        steps = path.stem.removeprefix("ppo_").removesuffix("_steps")
        if steps.isdigit():
            found.append((int(steps), path))
    info = out / "train_info.json"
    if (out / "final_model.zip").is_file() and info.is_file():
        data = json.loads(info.read_text())
        if not data.get("interrupted"):
            found.append((int(data["num_timesteps"]), out / "final_model.zip"))
    return sorted(found, key=lambda item: (item[0], item[1].name == "final_model.zip"))


def resolve_auto_resume(cfg: TrainConfig) -> tuple[TrainConfig, int | None]:
    """``resume: auto``: the same command starts a run, continues it from its newest model after
    an interruption, or extends a finished run when ``total_timesteps`` grew. Returns the config
    with ``resume`` set to that model (``None``: a fresh run), and the step count when the run in
    ``output_dir`` already reached ``total_timesteps`` (nothing to train)."""
    models = saved_models(Path(cfg.output_dir))
    if not models:
        return dataclasses.replace(cfg, resume=None), None
    steps, newest = models[-1]
    if newest.name == "final_model.zip" and steps >= cfg.total_timesteps:
        return dataclasses.replace(cfg, resume=None), steps
    return dataclasses.replace(cfg, resume=str(newest)), None


def prepare_output_dir(cfg: TrainConfig, *, overwrite: bool) -> Path:
    """``output_dir``, created and checked writable; a previous run there is refused (unless
    resuming) or, with ``overwrite``, its files removed so that nothing stale mixes in."""
    out = Path(cfg.output_dir)
    if out.is_dir() and any(out.iterdir()) and not cfg.resume:
        if not overwrite:
            held = ", ".join(sorted(p.name for p in out.iterdir())[:4])
            raise ConfigError(
                f"key 'output_dir': {str(out)!r} is not empty ({held}, ...); pass --overwrite to replace "
                "the run there, choose another folder (--set output_dir=...) or resume (--set resume=...)"
            )
        for name in RUN_FILES:
            (out / name).unlink(missing_ok=True)
        for name in RUN_DIRS:
            shutil.rmtree(out / name, ignore_errors=True)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ConfigError(f"key 'output_dir': cannot write to {str(out)!r}: {exc.strerror or exc}") from None
    return out
