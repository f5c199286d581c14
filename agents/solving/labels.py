"""Label files: what the solver said about each deal, and how a policy compares with it.

``<EnvName>[__option=value...].csv`` in a folder of label files (only the rule options that differ
from the registered defaults name the file; an option that changes only what the player is shown,
``Option.view_only`` such as Klondike's ``stock``, names no file: the solver sees every card, so
its labels hold under every value of it); the package ships the labels of every registered variant
(:func:`agents.common.data.shipped_labels`, ``agents/data/labels/``) and reads those unless given
another folder: ``#`` lines (the env, its rule options, the budget), then CSV
rows ``seed,label,nodes,seconds,length,actions``; ``actions`` is a winning line of action ids
separated by spaces (empty unless won): ``env.reset(seed=seed)`` then ``env.step`` each id wins.
Written by ``patience-gym solve`` (:mod:`agents.solving.solve`), read by ``patience-gym evaluate`` and
``scripts/results.py``.
"""

from __future__ import annotations

import csv
import json
import os
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patience_gym.core.game import rules_only
from patience_gym.games import Variant, get_variant
from patience_gym.solver import Label

from ..common.config import ConfigError
from ..common.data import checkout, shipped_labels
from ..evaluation.evaluate import Tally

FIELDS = ("seed", "label", "nodes", "seconds", "length", "actions")


def rule_options(variant: Variant, env_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The rule options in ``env_kwargs``, checked; anything else (reward_mode, ...) is refused,
    since a label depends on the rules alone."""
    declared = variant.game.OPTIONS
    other = sorted(set(env_kwargs) - set(declared))
    if other:
        allowed = ", ".join(declared) or "none"
        raise ConfigError(
            f"solve takes only {variant.env_name}'s rule options ({allowed}); "
            f"{', '.join(other)} do(es) not change which deals are winnable"
        )
    variant.make_game(**env_kwargs)  # validates values with the game's own messages
    return dict(env_kwargs)


def label_path(variant: Variant, env_kwargs: Mapping[str, Any], labels: str | Path | None = None) -> Path:
    """The label file of ``variant`` with these rule options (only non-default ones name it, and
    no view-only one), in the folder ``labels`` (default: the labels the package ships)."""
    declared = variant.game.OPTIONS
    defaults = rules_only(declared, variant.make_game().options)
    chosen = rules_only(declared, variant.make_game(**dict(env_kwargs)).options)
    parts = [f"{k}={chosen[k]}" for k in sorted(chosen) if chosen[k] != defaults[k]]
    folder = shipped_labels() if labels is None else Path(labels)
    return folder / ("__".join([variant.env_name, *parts]) + ".csv")


def writable_labels(labels: str | Path | None) -> Path:
    """The folder ``patience-gym solve`` writes to: ``labels`` when given, else the package's own
    label folder, but only in a checkout (or an editable install), where those files are the
    project's to refresh; an installed package's folder is not a user's to write into."""
    if labels is not None:
        return _check_folder(Path(labels))
    if checkout() is None:
        raise ConfigError(
            f"the labels shipped with the installed package ({shipped_labels()}) are not written to: "
            "pass --labels DIR for your own label files (evaluate --labels DIR reads them)"
        )
    return _check_folder(shipped_labels())


def _check_folder(folder: Path) -> Path:
    """``folder`` if label files can be written there (it, or the nearest folder that exists
    above it, is a folder one may write in), else a one-line ``ConfigError`` saying why not.
    Checked before any deal is solved, so a wrong ``--labels`` costs no search."""
    place = next(p for p in (folder, *folder.parents) if p.exists() or p == p.parent)
    if not place.is_dir():
        what = "it is a file" if place == folder else f"{place} is a file"
        raise ConfigError(
            f"cannot write label files in {folder}: {what}, not a folder (--labels names a folder)"
        )
    if not os.access(place, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot write label files in {folder}: {place} is not writable")
    return folder


def read_labels(path: Path) -> dict[int, Label]:
    """The labels stored in ``path`` by seed (empty when the file does not exist)."""
    if not path.exists():
        return {}
    out: dict[int, Label] = {}
    with path.open(newline="") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        for row in rows:
            actions = tuple(int(a) for a in row["actions"].split())
            seed = int(row["seed"])
            out[seed] = Label(seed, row["label"], int(row["nodes"]), float(row["seconds"]), actions)
    return out


@dataclass(frozen=True)
class Summary(Tally):
    """What a set of labels says: decided share, winnable rate with its interval, timings."""

    deals: int
    won: int
    lost: int
    unknown: int
    median_seconds: float
    p95_seconds: float
    nodes_per_second: float

    @property
    def decided(self) -> float:
        """The share of the deals the solver decided, won or lost."""
        return (self.won + self.lost) / self.deals if self.deals else 0.0

    def tally(self) -> tuple[int, int]:
        return self.won, self.deals

    @property
    def winnable(self) -> float:
        """The share of the deals won with every card seen (a lower bound while some are unknown);
        its 95% Wilson interval is :attr:`interval`."""
        return self.fraction


def summarize(labels: Iterable[Label]) -> Summary:
    items = list(labels)
    secs = sorted(lb.seconds for lb in items) or [0.0]
    p95 = secs[min(len(secs) - 1, int(0.95 * len(secs)))]
    total_s = sum(secs)
    return Summary(
        deals=len(items),
        won=sum(lb.label == "won" for lb in items),
        lost=sum(lb.label == "lost" for lb in items),
        unknown=sum(lb.label == "unknown" for lb in items),
        median_seconds=statistics.median(secs),
        p95_seconds=p95,
        nodes_per_second=sum(lb.nodes for lb in items) / total_s if total_s else 0.0,
    )


def format_summary(env: str, s: Summary) -> str:
    lo, hi = s.interval
    return (
        f"{env}: {s.deals} deals, decided {100 * s.decided:.1f}% ({s.unknown} unknown); "
        f"winnable with every card seen {100 * s.winnable:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] "
        f"(95% Wilson); time per deal median {s.median_seconds:.3f} s, p95 {s.p95_seconds:.3f} s; "
        f"{s.nodes_per_second:,.0f} nodes/s"
    )


@dataclass(frozen=True)
class WinnableShare:
    """A policy's results on the deals the solver labelled: how many of the evaluated deals are
    winnable with every card seen, how many of those the policy won, and how many are unknown."""

    labelled: int  #: evaluated deals that have a label
    winnable: int  #: of those, labelled won
    wins: int  #: the policy's wins among the winnable deals
    unknown: int  #: evaluated deals labelled unknown

    @property
    def share(self) -> float:
        """The policy's share of the winnable deals."""
        return self.wins / self.winnable if self.winnable else 0.0


def winnable_share(labels: Mapping[int, Label], wins_by_seed: Mapping[int, bool]) -> WinnableShare:
    """Compare a policy's wins (by deal seed) with the labels of the same deals."""
    labelled = [s for s in wins_by_seed if s in labels]
    winnable = [s for s in labelled if labels[s].label == "won"]
    won_unwinnable = [s for s in labelled if wins_by_seed[s] and labels[s].label == "lost"]
    if won_unwinnable:
        raise ValueError(
            f"the policy won deal(s) {won_unwinnable[:5]} that the solver labelled lost: "
            "a solver or rules bug"
        )
    return WinnableShare(
        labelled=len(labelled),
        winnable=len(winnable),
        wins=sum(wins_by_seed[s] for s in winnable),
        unknown=sum(labels[s].label == "unknown" for s in labelled),
    )


def labels_for(env: str, env_kwargs: Mapping[str, Any], labels: str | Path | None = None) -> dict[int, Label]:
    """The stored labels of ``env`` with the rule options among ``env_kwargs`` (empty if none)."""
    variant = get_variant(env)
    rules = {k: v for k, v in env_kwargs.items() if k in variant.game.OPTIONS}
    return read_labels(label_path(variant, rules, labels))


def attach_labels(results: Iterable[Any], labels: str | Path | None = None) -> list[Path]:
    """Set ``result.winnable`` on each evaluation result whose deals have labels in ``labels``
    (default: the shipped labels; same env and rule options); return the label files looked for
    and not found (each once), for the caller to say so."""
    missing: list[Path] = []
    for r in results:
        variant = get_variant(r.env)
        rules = {k: v for k, v in r.env_kwargs.items() if k in variant.game.OPTIONS}
        path = label_path(variant, rules, labels)
        stored = read_labels(path)
        if not stored:
            missing += [] if path in missing else [path]
            continue
        wins = {r.seed + e.index: e.won for e in r.episodes}
        r.winnable = winnable_share(stored, wins)
    return missing


def missing_note(env: str, env_kwargs: Mapping[str, Any], path: Path) -> str:
    """The one line ``evaluate`` prints when no label file covers its deals."""
    variant = get_variant(env)
    rules = " ".join(f"{k}={v!r}" for k, v in env_kwargs.items() if k in variant.game.OPTIONS)
    return (
        f"no solver labels for {variant.env_name}{' ' + rules if rules else ''} (looked for {path}): "
        "the winnable column is left out"
    )


# ---- writing label files (patience-gym solve) -----------------------------------------------


def probe_text(probe: int) -> str:
    return f", the first {probe} in a probe" if probe else ""


def label_header(
    variant: Variant, env_kwargs: Mapping[str, Any], budget: int, seconds: float | None, probe: int = 0
) -> list[str]:
    options = rules_only(variant.game.OPTIONS, variant.make_game(**dict(env_kwargs)).options)
    return [
        f"# env={variant.env_name}",
        f"# options={json.dumps(options, sort_keys=True)}",
        f"# budget={budget} nodes per deal{probe_text(probe)}"
        + (f", at most {seconds} s" if seconds else ""),
    ]


#: The header line ``--deepen`` adds (with its budget and probe); a plain resume ignores it.
DEEPENED = "# deepened: deals unknown at the budget above solved again with up to {budget} nodes"


def header_lines(path: Path) -> list[str]:
    with path.open() as f:
        return [line.rstrip("\n") for line in f if line.startswith("#")]


#: Header lines that record a later pass over a label file (deepening, dives, nested rollouts, a
#: policy's play, the beam, shortening won lines to the step limit), not the settings it was
#: labelled with: resuming the file ignores them.
PASSES = ("# deepened:", "# dived:", "# nested:", "# played:", "# beam:", "# shortened:", "# resolved:")

#: The header line benchmarks/bench_solver_unknowns.py --write adds: the deals a label file left
#: unknown, solved again by the search with its proven dominances (docs/solver.md).
RESOLVED = (
    "# resolved: deals unknown above solved again with the proven dominances (issue 45) with up to "
    "{budget} nodes, no probe"
)


def check_header(path: Path, expected: list[str]) -> None:
    found = [line for line in header_lines(path) if not line.startswith(PASSES)]
    if found != expected:
        raise ConfigError(
            f"{path} was labelled with other settings ({'; '.join(found)[:200]}); to resume it, use the "
            "same budget and probe (--probe 0 for none), or pass --overwrite to label again"
        )


def file_budget(path: Path) -> int:
    """The first budget a label file's deals were solved with (its ``# budget=`` line)."""
    for line in header_lines(path):
        if line.startswith("# budget="):
            return int(line[len("# budget=") :].split()[0])
    raise ConfigError(f"{path} has no '# budget=' header line: not a label file written by solve")


def label_row(lb: Label) -> list[str]:
    return [
        str(lb.seed),
        lb.label,
        str(lb.nodes),
        f"{lb.seconds:.4f}",
        str(lb.length),
        " ".join(map(str, lb.actions)),
    ]


def write_rows(path: Path, head: list[str], labels: Mapping[int, Label]) -> None:
    """Rewrite ``path`` whole (header, then rows in seed order), atomically."""
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", newline="") as f:
        f.write("\n".join([*head, ",".join(FIELDS)]) + "\n")
        writer = csv.writer(f, lineterminator="\n")
        for seed in sorted(labels):
            writer.writerow(label_row(labels[seed]))
    tmp.replace(path)


def sort_rows(path: Path) -> None:
    """Rewrite a finished label file with its rows in seed order (workers finish out of order)."""
    write_rows(path, header_lines(path), read_labels(path))
