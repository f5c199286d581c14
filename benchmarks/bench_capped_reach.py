"""How often a capped search wins a sampled deal, against a full solve of the same deal.

The macro planner judges a candidate by capped searches of sampled deals (a capped search counts
as not won). This prints, at the deal's first position, for ``--samples`` sampled deals of each
seed (the hidden cards dealt again, :func:`patience_gym.search.sample_deck`): how many a solve of
``--full`` nodes wins, and how many a solve of each ``--caps`` budget wins, without and with the
solver's proven dominances (``solve_line(..., dominances=...)``; ``macro:dom=1`` searches with
them). Klondike draw 3, unlimited passes, partial moves by default.

::

    python benchmarks/bench_capped_reach.py                        # seeds 0:12, 8 samples each
    python benchmarks/bench_capped_reach.py --seeds 0:4 --samples 4 --caps 1000,3000
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium as gym
from common import run_script  # benchmarks/common.py (the scripts' folder is on sys.path)

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.solving.chunks import parse_seeds
from patience_gym.games import get_variant
from patience_gym.search import sample_deck
from patience_gym.solver import solve_line

DRAW3: dict[str, Any] = {"draw": 3, "passes": None, "partial_moves": True}


def reach(
    seeds: range, samples: int, caps: list[int], full: int, options: dict[str, Any]
) -> tuple[int, int, dict[tuple[int, bool], int]]:
    """(sampled deals, won by the full solve, {(cap, dominances): won within cap})."""
    variant = get_variant("Klondike-v0")
    won = {(cap, dom): 0 for cap in caps for dom in (False, True)}
    n = full_won = 0
    for seed in seeds:
        env = gym.make(variant.env_id, **options)
        env.reset(seed=seed)
        for k in range(samples):
            deck = sample_deck(env, seed=k)
            n += 1
            for cap, dom in won:
                won[cap, dom] += (
                    solve_line(variant, options, deck, (), max_nodes=cap, dominances=dom).label == "won"
                )
            full_won += solve_line(variant, options, deck, (), max_nodes=full, dominances=True).label == "won"
    return n, full_won, won


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", default="0:12", help="FIRST:END")
    p.add_argument("--samples", type=int, default=8, help="sampled deals a seed")
    p.add_argument("--caps", default="1000,3000,10000,30000", help="the capped searches' budgets")
    p.add_argument("--full", type=int, default=3_000_000, help="the full solve's budget")
    args = p.parse_args()
    try:
        caps = [int(c) for c in args.caps.split(",")]
    except ValueError:
        p.error(f"--caps takes whole numbers separated by commas, got {args.caps!r}")
    if args.samples < 1 or args.full < 1 or min(caps) < 1:
        p.error("--samples, --full and every cap must be >= 1")
    n, full_won, won = reach(parse_seeds(args.seeds), args.samples, caps, args.full, DRAW3)
    print(f"Klondike draw 3 (unlimited passes, partial moves), {n} sampled deals at the first position")
    print(f"full solve ({args.full:,} nodes, dominances): {full_won} won")
    print(f"{'cap':>10}{'won, plain':>12}{'won, dominances':>17}")
    for cap in caps:
        print(f"{cap:>10,}{won[cap, False]:>12}{won[cap, True]:>17}", flush=True)


if __name__ == "__main__":
    run_script(main, __file__)
