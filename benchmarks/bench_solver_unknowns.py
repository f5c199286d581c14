"""The deals a label file leaves unknown (or proves lost), solved again by today's solver: how many
it decides at a budget, with and without its proven dominances.

Reads a label file (a path, or the name of a shipped one), takes its deals of one verdict
(``--verdict``, default unknown), and solves each again with ``--budget`` nodes (no probe: the
depth-first search alone, the one that proves losses). Each deal's row (seed, verdict, nodes,
seconds, the label file's verdict and nodes, and a won line) is appended to ``--out`` as it finishes, so an
interrupted run resumes with the same command; the figures are printed at the end. ``--write``
then replaces, in the label file itself, the rows of the deals it decided (a won line only once it
replays to a win through ``gym.make`` within the step limit) and adds a ``# resolved:`` header
line with the budget (a label file's resume ignores it, as it ignores ``# deepened:``).

    python benchmarks/bench_solver_unknowns.py "Klondike-v0__draw=3__partial_moves=True__passes=None.csv" \
        --budget 30000000 --out /work/data/solver/draw3-30M.csv
    python benchmarks/bench_solver_unknowns.py Klondike-v0.csv --verdict lost --limit 20 --budget 3000000 \
        --no-dominances --out before.csv                  # the search without them, for comparison
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from bench_dominances import replays
from common import run_script  # benchmarks/common.py (the scripts' folder is on sys.path)

from patience_gym.agents.solving.labels import RESOLVED, header_lines, read_labels, write_rows
from patience_gym.games import get_variant
from patience_gym.solver import Label, solve_deal

FIELDS = ["seed", "label", "nodes", "seconds", "file_label", "file_nodes", "actions"]


def label_file(name: str) -> Path:
    """A path as given, else the shipped label file of that name."""
    path = Path(name)
    if path.exists():
        return path
    return Path(__file__).resolve().parent.parent / "agents" / "data" / "labels" / name


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("labels", help="a label file, or the name of a shipped one")
    p.add_argument("--verdict", default="unknown", choices=("unknown", "lost", "won"))
    p.add_argument("--budget", type=int, required=True, help="nodes per deal")
    p.add_argument("--limit", type=int, help="only the first N such deals")
    p.add_argument("--no-dominances", action="store_true", help="the search without its proven dominances")
    p.add_argument("--out", required=True, help="CSV of the deals solved (appended to; resumes)")
    p.add_argument("--write", action="store_true", help="put the deals decided into the label file (above)")
    args = p.parse_args()
    path = label_file(args.labels)
    head = [line for line in path.read_text().splitlines() if line.startswith("# ")]
    env = head[0].split("=", 1)[1]
    options = json.loads(head[1].split("=", 1)[1])
    rows = read_labels(path)
    seeds = sorted(s for s, lb in rows.items() if lb.label == args.verdict)[: args.limit]
    out = Path(args.out)
    done: dict[int, dict[str, str]] = {}
    if out.exists():
        with out.open() as f:
            done = {int(r["seed"]): r for r in csv.DictReader(f)}
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(",".join(FIELDS) + "\n")
    variant = get_variant(env)
    for i, seed in enumerate(seeds):
        if seed in done:
            continue
        lb = solve_deal(variant, options, seed=seed, max_nodes=args.budget, dominances=not args.no_dominances)
        row = {"seed": str(seed), "label": lb.label, "nodes": str(lb.nodes), "seconds": f"{lb.seconds:.1f}"}
        row |= {"file_label": rows[seed].label, "file_nodes": str(rows[seed].nodes)}
        row["actions"] = " ".join(map(str, lb.actions))  # a won line, as label files store it
        with out.open("a") as f:
            csv.DictWriter(f, FIELDS).writerow(row)
        done[seed] = row
        print(
            f"[{i + 1}/{len(seeds)}] seed {seed}: {lb.label}, {lb.nodes:,} nodes, {lb.seconds:.1f} s",
            flush=True,
        )
    mine = [done[s] for s in seeds]
    counts = {v: sum(r["label"] == v for r in mine) for v in ("won", "lost", "unknown")}
    print(f"{path.name}: {len(mine)} {args.verdict} deals, {args.budget:,} nodes: {counts}", file=sys.stderr)
    if args.write and len(mine) == len(seeds):
        decided: dict[int, Label] = {}
        for r in mine:
            actions = tuple(int(a) for a in r["actions"].split())
            lb = Label(int(r["seed"]), r["label"], int(r["nodes"]), float(r["seconds"]), actions)
            if lb.label == "lost" or (lb.label == "won" and replays(env, options, lb)):
                decided[int(r["seed"])] = lb
        head = [*header_lines(path), RESOLVED.format(budget=args.budget)]
        write_rows(path, head, {**rows, **decided})
        print(f"{path}: {len(decided)} rows replaced", file=sys.stderr)


if __name__ == "__main__":
    run_script(main, __file__)
