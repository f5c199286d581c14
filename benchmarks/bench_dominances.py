"""The solver's proven dominances against the search without them, on many deals: deals decided by
each, deals on which they disagree (one wins what the other proves lost: there must be none), and
every line won with the dominances replayed through ``gym.make`` within the registered step limit.

    python benchmarks/bench_dominances.py --seeds 0:500 --budget 50000 \
        --set draw=3 --set passes=None --set partial_moves=True
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import gymnasium as gym
from bench_solver import check_arguments, solver_arguments  # benchmarks/ (the scripts' folder is on sys.path)
from common import run_script

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.games import get_variant
from patience_gym.solver import Label, solve_deal


def replays(env: str, options: dict[str, Any], label: Label) -> bool:
    """``label``'s line through ``gym.make`` as registered (its step limit included) wins."""
    e = gym.make(f"patience_gym/{env}", **options)
    _, info = e.reset(seed=label.seed)
    over = False
    for a in label.actions:
        if over or not info["action_mask"][a]:
            return False
        _, _, terminated, truncated, info = e.step(a)
        over = terminated or truncated
    return bool(info["won"])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    solver_arguments(p, seeds="0:200")
    args = p.parse_args()
    names, seeds, options = check_arguments(p, args)
    for env in names:
        variant = get_variant(env)
        counts = {"with": [0, 0], "without": [0, 0]}  # won, lost
        nodes = {"with": 0, "without": 0}
        conflicts: list[int] = []
        bad_lines: list[int] = []
        t0 = time.perf_counter()
        for i, seed in enumerate(seeds):
            pair = {
                side: solve_deal(
                    variant,
                    options,
                    seed=seed,
                    max_nodes=args.budget,
                    probe_nodes=args.probe or 0,
                    dominances=side == "with",
                )
                for side in ("with", "without")
            }
            for side, lb in pair.items():
                nodes[side] += lb.nodes
                if lb.label != "unknown":
                    counts[side][lb.label == "lost"] += 1
            if {pair["with"].label, pair["without"].label} == {"won", "lost"}:
                conflicts.append(seed)
            if pair["with"].label == "won" and not replays(env, options, pair["with"]):
                bad_lines.append(seed)
            if (i + 1) % 50 == 0:
                print(
                    f"  {i + 1}/{len(seeds)} deals, {time.perf_counter() - t0:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        print(f"{env} {options} seeds {seeds.start}:{seeds.stop}, {args.budget:,} nodes a deal:")
        for side in ("with", "without"):
            won, lost = counts[side]
            decided = f"{won} won, {lost} lost, {won + lost} decided"
            print(f"  {side:>7} the dominances: {decided}, {nodes[side]:,} nodes")
        print(f"  disagreements (won against lost): {conflicts or 'none'}")
        print(f"  lines won with the dominances that do not win through gym.make: {bad_lines or 'none'}")


if __name__ == "__main__":
    run_script(main, __file__)
