"""How many of one-pass Klondike's winnable deals the layered beam search wins from the first
position, against the depth-first search at a node budget.

The winnable deals are those the shipped labels call won (``agents/data/labels``). For each
``--widths`` width it prints the deals the beam (:func:`patience_gym.solver.beam`) wins within
``--budget`` nodes and the median nodes it spent; then the deals the depth-first solver
(:func:`patience_gym.solver.solve_deal`, no probe) wins within ``--dfs`` nodes. docs/planner.md,
"A beam for one-pass Klondike".

::

    python benchmarks/bench_beam_reach.py                          # seeds 0:500, widths 30,300,3000
    python benchmarks/bench_beam_reach.py --seeds 0:100 --widths 30 --dfs 20000,200000
"""

from __future__ import annotations

import argparse
import statistics

from common import run_script  # benchmarks/common.py (the scripts' folder is on sys.path)

from patience_gym.agents.solving.chunks import parse_seeds
from patience_gym.agents.solving.labels import labels_for
from patience_gym.games import get_variant
from patience_gym.solver import beam, solve_deal


def _whole_numbers(p: argparse.ArgumentParser, text: str, flag: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x]
    except ValueError:
        p.error(f"{flag} takes whole numbers separated by commas, got {text!r}")
    if not values or min(values) < 1:
        p.error(f"{flag}: every value must be >= 1, got {text!r}")
    return values


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", default="0:500", help="FIRST:END")
    p.add_argument("--widths", default="30,300,3000", help="the beam widths")
    p.add_argument("--budget", type=int, default=5_000_000, help="the beam's node budget a deal")
    p.add_argument("--dfs", default="20000", help="the depth-first search's budgets (nodes)")
    args = p.parse_args()
    widths, budgets = _whole_numbers(p, args.widths, "--widths"), _whole_numbers(p, args.dfs, "--dfs")
    if args.budget < 1:
        p.error("--budget must be >= 1")
    seeds = parse_seeds(args.seeds)
    labels = labels_for("Klondike-v0", {})
    won = [s for s in seeds if s in labels and labels[s].label == "won"]
    variant = get_variant("Klondike-v0")
    print(f"one-pass Klondike, seeds {args.seeds}: {len(won)} winnable deals (the labels), first position")
    for width in widths:
        results = [beam(variant, None, seed=s, width=width, max_nodes=args.budget) for s in won]
        wins = sum(r.label == "won" for r in results)
        median = statistics.median(r.nodes for r in results) if results else 0
        print(f"beam width {width:>6,}: {wins:>4} won, median {median:>12,.0f} nodes", flush=True)
    for budget in budgets:
        wins = sum(solve_deal(variant, None, seed=s, max_nodes=budget).label == "won" for s in won)
        print(f"depth-first {budget:>9,} nodes: {wins:>4} won", flush=True)


if __name__ == "__main__":
    run_script(main, __file__)
