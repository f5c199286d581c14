"""What the solver's modes share: the config of ``patience-gym solve``, its seeds, the label file of
a config and the chunks of deals solved on a backend with a progress bar.

:mod:`agents.solving.solve` (labelling, ``--deepen``) and :mod:`agents.solving.dive` (``--dive``,
``--nested``, ``--play``, ``--beam``) both work through :func:`solved_chunks`, the second on the
unknown deals of a file that :func:`existing_labels` finds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patience_gym.games import Variant, get_variant
from patience_gym.solver import Label

from ..common.backends import map_chunks
from ..common.config import ConfigError
from ..common.progress import Progress as ShownProgress
from .labels import label_path, rule_options, writable_labels

#: Deals per task handed to a worker (and per write to the label file).
CHUNK = 10


@dataclass
class SolveConfig:
    """What ``patience-gym solve`` labels: a variant, its rule options, seeds and a budget."""

    env: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    seeds: str = "0:1000"
    budget: int = 2_000_000
    probe: int | None = None
    """Nodes of the budget spent first on a limited discrepancy search for a win (docs/solver.md);
    default a tenth of the budget, 0 for none."""
    seconds: float | None = None
    workers: int = 1
    labels: str | None = None
    """The folder of label files to write; default the package's own, in a checkout only
    (:func:`agents.solving.labels.writable_labels`)."""
    backend: str = "local"
    """``local`` (this process or a pool of ``workers``) or ``ray`` (Ray tasks; the scale extra)."""
    address: str | None = None
    """With ``backend: ray``: the cluster (``auto``, ``ray://HOST:10001``); default a local Ray."""

    def __post_init__(self) -> None:
        if isinstance(self.budget, bool) or self.budget <= 0:
            raise ConfigError(f"the budget must be a positive number of nodes, got {self.budget}")
        probe = self.probe
        if probe is not None and (
            isinstance(probe, bool) or not isinstance(probe, int) or not 0 <= probe <= self.budget
        ):
            raise ConfigError(
                f"the probe must be a number of nodes from 0 to the budget ({self.budget}), got {probe!r}"
            )
        if self.seconds is not None and not self.seconds > 0:
            raise ConfigError(f"seconds must be a positive time limit per deal, got {self.seconds}")
        if self.workers < 1:
            raise ConfigError(f"workers must be >= 1, got {self.workers}")
        parse_seeds(self.seeds)
        if self.backend not in ("local", "ray"):
            raise ConfigError(f"backend must be local or ray, got {self.backend!r}")
        if self.address is not None and self.backend != "ray":
            raise ConfigError("an address names a Ray cluster: use it with --backend ray")

    @property
    def probe_nodes(self) -> int:
        """The probe's share of the budget: ``probe``, or a tenth of the budget by default."""
        return self.budget // 10 if self.probe is None else self.probe


def parse_seeds(text: str) -> range:
    """``"0:1000"`` (start inclusive, stop exclusive) or a single seed ``"7"``."""
    parts = str(text).split(":")
    try:
        if len(parts) == 1:
            start = int(parts[0])
            stop = start + 1
        elif len(parts) == 2:
            start, stop = int(parts[0]), int(parts[1])
        else:
            raise ValueError
    except ValueError:
        raise ConfigError(f"seeds must be START:STOP (e.g. 0:1000) or one seed, got {text!r}") from None
    if start < 0:
        raise ConfigError(f"seeds must be >= 0, got {text!r}")
    if stop <= start:
        raise ConfigError(f"the seed range {text!r} is empty: STOP must be greater than START")
    return range(start, stop)


def existing_labels(cfg: SolveConfig, flag: str) -> tuple[Variant, dict[str, Any], range, Path]:
    """The variant, rule options, seeds and label file of ``cfg`` for ``flag`` (``--deepen``,
    ``--dive``), which works on the unknown deals of a file that must exist already."""
    variant = get_variant(cfg.env)
    options = rule_options(variant, cfg.env_kwargs)
    path = label_path(variant, options, writable_labels(cfg.labels))
    if not path.exists():
        raise ConfigError(
            f"{flag} works on the unknown deals of {path}, which does not exist; label them first"
        )
    return variant, options, parse_seeds(cfg.seeds), path


Progress = Callable[[list[Label]], None]


def _progress(total: int, desc: str, enabled: bool) -> tuple[Progress, Callable[[], None]]:
    shown = ShownProgress(total, desc, "deal", enabled=enabled)
    counts = {"won": 0, "lost": 0, "unknown": 0}

    def update(labels: list[Label]) -> None:
        for lb in labels:
            counts[lb.label] += 1
        shown.update(len(labels), **counts)

    return update, shown.close


def solved_chunks(
    cfg: SolveConfig, chunk: Callable[[Any], list[Label]], tasks: list[Any], desc: str, progress: bool
) -> Iterator[list[Label]]:
    """Each task's labels as its chunk finishes (on ``cfg``'s backend), with a progress bar over
    the tasks' deals (each task's third item: its seeds)."""
    update, close = _progress(sum(len(t[2]) for t in tasks), desc, progress)
    run = map_chunks(chunk, tasks, backend=cfg.backend, workers=cfg.workers, address=cfg.address)
    try:
        for _, labels in run:
            yield labels
            update(labels)
    finally:
        run.close()  # the workers stop now, even when interrupted between two chunks
        close()
