"""Optional dependencies: a one-line error naming the extra to install, instead of an ImportError."""

from __future__ import annotations

import importlib

from .config import ConfigError

#: What each extra brings, as import names (torch is installed first, by hand: see the README).
EXTRAS: dict[str, tuple[str, ...]] = {
    "train": ("torch", "stable_baselines3", "sb3_contrib", "yaml"),
}

#: The torch build the project pins (scripts/setup.sh installs it first): an unpinned ``pip install
#: torch``, or one pulled in by stable-baselines3, would download a multi-GB CUDA build.
TORCH = "torch==2.13.0"

INSTALL = {
    "train": (
        "install it with `bash scripts/setup.sh train` in a checkout, or "
        f"`pip install {TORCH}` (the pinned build) then `pip install 'patience-gym[train]'`"
    ),
}


class MissingExtra(ConfigError):
    """An optional dependency that a command or policy needs is not installed."""


def require(extra: str, what: str) -> None:
    """Raise :class:`MissingExtra` unless every module of ``extra`` imports."""
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError:
            raise MissingExtra(
                f"{what} needs the {extra!r} extra ({module} is missing): {INSTALL[extra]}"
            ) from None
