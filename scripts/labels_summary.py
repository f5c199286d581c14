"""Summarise every label file the package ships (agents/data/labels/) as a Markdown table (docs/solver.md).

For each variant and option set: deals labelled, decided share (won or proven lost), winnable
share with its 95% Wilson interval, unknown count, median and 95th-percentile seconds per deal,
and the solver's nodes per second over the run (time spent in the search, as the file records).

    python scripts/labels_summary.py [--labels FOLDER]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from patience_gym.agents.common.data import shipped_labels
from patience_gym.agents.solving.labels import read_labels, summarize


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--labels",
        default=str(shipped_labels()),
        help="folder of label files (patience-gym solve; default the package's, agents/data/labels/)",
    )
    args = p.parse_args()
    files = sorted(Path(args.labels).glob("*.csv"))
    if not files:
        p.error(f"no label files (*.csv) in {args.labels}: patience-gym solve --labels FOLDER writes them")
    print(
        "| variant and options | deals | decided | winnable [95% CI] | unknown | median s | p95 s | nodes/s |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for path in files:
        s = summarize(read_labels(path).values())
        lo, hi = s.interval
        name = path.stem.replace("__", " ")
        print(
            f"| {name} | {s.deals} | {100 * s.decided:.1f}% "
            f"| {100 * s.winnable:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] "
            f"| {s.unknown} | {s.median_seconds:.3f} | {s.p95_seconds:.3f} | {s.nodes_per_second:,.0f} |"
        )


if __name__ == "__main__":
    main()
