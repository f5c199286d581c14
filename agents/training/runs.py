"""The run folder (``output_dir``): what a training run writes there, and how the same command
finds where to go on (``resume: auto``): a fresh run, the newest checkpoint of an interrupted one,
or the final model of a finished one whose ``total_timesteps`` grew.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import zipfile
from pathlib import Path

from ..common.config import ConfigError
from .callbacks import CSV_NAME
from .config import TrainConfig

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
#: What a saved model holds that resuming does not read: the last rollout's observations and the
#: episode buffers (resuming deals fresh games; ``set_env`` drops the old observations anyway).
#: The optimizer's moments stay, so a resumed run goes on as the interrupted one would have.
ROLLOUT_STATE = (
    "_last_obs",
    "_last_original_obs",
    "_last_episode_starts",
    "ep_info_buffer",
    "ep_success_buffer",
)


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


def slim_checkpoint(src: Path, dst: Path) -> Path:
    """Copy the saved model ``src`` to ``dst`` without :data:`ROLLOUT_STATE` (most of a checkpoint
    of a wide observation: 256 games' last observations), for keeping an unfinished run in the
    repository (``scripts/keep_runs.sh``); it resumes as ``src`` would."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            raw = zin.read(item.filename)
            if item.filename == "data":
                data = json.loads(raw)
                for key in ROLLOUT_STATE:
                    data.pop(key, None)
                raw = json.dumps(data, indent=4).encode()
            zout.writestr(item, raw, compress_type=zipfile.ZIP_DEFLATED)
    return dst


def keep_newest_checkpoint(out: Path, dst_dir: Path) -> Path | None:
    """The newest checkpoint of the run in ``out`` (``checkpoints/ppo_<steps>_steps.zip``, by its
    step count), slimmed into ``dst_dir`` under the same name; None when the run saved none."""
    checkpoints = [(steps, path) for steps, path in saved_models(out) if path.name != "final_model.zip"]
    if not checkpoints:
        return None
    newest = checkpoints[-1][1]
    dst_dir.mkdir(parents=True, exist_ok=True)
    return slim_checkpoint(newest, dst_dir / newest.name)


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
