"""What every benchmark script shares: the variants it measures and its one-line errors.

The scripts are run by path (``python benchmarks/bench_steps.py``), so this module is imported as
``common`` from the scripts' own folder.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from patience_gym.games import VARIANTS, get_variant


def variant_names(envs: list[str] | None) -> list[str]:
    """The variants named by repeated ``--env`` flags (checked against the registry), else all."""
    return [get_variant(e).env_name for e in envs] if envs else [v.env_name for v in VARIANTS]


def run_script(main: Callable[[], None], script: str) -> None:
    """Run a benchmark's ``main``; a bad id, option or count is one line and status 1, no traceback."""
    try:
        main()
    except ValueError as exc:
        sys.exit(f"{Path(script).name}: error: {exc}")
