"""The data the package ships, found through :mod:`importlib.resources` wherever it is installed.

- **Solver labels** (``patience-gym solve``'s label files of every registered variant) live in the
  package, ``agents/data/labels/``, in a checkout and in the wheel alike.
- **Configs** live in the checkout's top-level ``configs/`` (``ppo/``, ``rllib/``, ``eval/``); the
  wheel carries a copy as ``agents/data/configs/`` (pyproject.toml: ``wheel.force-include``). An
  editable install reads the package from the checkout, where that copy does not exist, so the
  checkout's ``configs/`` is used there.

A shipped config can be named instead of given by path (:func:`find_config`): ``patience-gym
train nestor`` reads ``configs/ppo/nestor.yaml``. A user's own file or folder always wins.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

from .config import ConfigError

#: The package's import name (``patience_gym.agents``; the checkout's folder is ``agents/``) and
#: its folder on disk.
PACKAGE = __name__.rsplit(".", 2)[0]
PACKAGE_DIR = Path(__file__).resolve().parent.parent

#: The config kinds: the folders under ``configs/`` and the command each serves.
KINDS = {
    "ppo": "train",
    "ppo_rollouts": "train configs/ppo_rollouts/<name>.yaml",
    "rllib": "train --trainer rllib",
    "eval": "evaluate",
}
#: A kind's shared recipe, the file the others start from (not a config to run by itself).
DEFAULTS = "defaults"


def package_data(*parts: str) -> Path:
    """The package's data at ``agents/<parts...>`` (``package_data("data", "labels")``), through
    :func:`importlib.resources.files`: site-packages/agents/... once installed, the checkout's in an
    editable install. The package is a plain folder on disk (never a zip), so this is a path."""
    node: Any = files(PACKAGE)
    for part in parts:
        node = node.joinpath(part)
    if isinstance(node, Path):
        return node
    # An editable install may merge several folders into one view (the checkout's package and
    # the copies made at install time): the checkout's own folder is the one that is kept up to date.
    return PACKAGE_DIR.joinpath(*parts)


def checkout() -> Path | None:
    """The checkout's root when the package runs from one (a clone or an editable install: its
    pyproject.toml and configs/ beside ``agents/``), else None (an installed wheel)."""
    root = PACKAGE_DIR.parent
    return root if (root / "pyproject.toml").is_file() and (root / "configs").is_dir() else None


def checkout_commit() -> str | None:
    """The checkout's HEAD (short), with ``+changes`` when tracked files differ from it; None outside
    a git checkout (an installed wheel) or without git."""
    import subprocess

    root = checkout()
    if root is None:
        return None
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True, text=True
        )
    except OSError:
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def shipped_labels() -> Path:
    """The folder of the solver labels the package ships (``agents/data/labels/``)."""
    return package_data("data", "labels")


def add_labels_argument(p: Any, use: str) -> None:
    """``--labels``, the folder of solver label files, alike in the commands that use one: evaluate
    reads it to score the policies, solve writes it; ``use`` says which."""
    p.add_argument(
        "--labels", help=f"folder of solver labels (default: the package's own, agents/data/labels/): {use}"
    )


def shipped_configs() -> Path:
    """The folder of the shipped configs: the checkout's ``configs/`` when there is one (an editable
    install's copy in site-packages may be older), else the wheel's ``agents/data/configs/``."""
    root = checkout()
    return root / "configs" if root is not None else package_data("data", "configs")


def config_names(kind: str) -> list[str]:
    """The names of the shipped configs of ``kind`` (``ppo``, ``rllib``, ``eval``), sorted."""
    return sorted(p.stem for p in (shipped_configs() / kind).glob("*.yaml") if p.stem != DEFAULTS)


def find_config(arg: str, kind: str) -> Path:
    """The config file ``arg`` names: a path that exists wins, else the shipped config of ``kind``
    with that name (``nestor`` -> ``configs/<kind>/nestor.yaml``).

    Raises :class:`ConfigError` for a path that does not exist, and for an unknown name, with the
    names there are.
    """
    path = Path(arg)
    if path.is_file():
        return path
    names = config_names(kind)
    if arg in names:
        return shipped_configs() / kind / f"{arg}.yaml"
    if path.suffix in (".yaml", ".yml") or len(path.parts) > 1:
        raise ConfigError(f"config file {arg!r} does not exist")
    known = ", ".join(names) or "none (no shipped configs found)"
    raise ConfigError(
        f"no config file {arg!r} and no shipped {kind} config of that name; "
        f"the shipped ones ({KINDS[kind]}): {known}"
    )
