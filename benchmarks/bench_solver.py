"""The solver's reach and speed per variant: decided share, time per deal, nodes per second.

For each variant (default: every registered id, default options), solves the deals of seeds
``--seeds`` with a node budget and prints the share decided (won or proven lost), the won share,
the median and 95th-percentile seconds per deal and the solver's nodes per second. ``--probe``
as for ``patience-gym solve`` (default a tenth of the budget; ``--probe 0`` for the search alone).

    python benchmarks/bench_solver.py                          # seeds 0:50, 1M nodes, all variants
    python benchmarks/bench_solver.py --env Klondike-v0 --seeds 0:200 --budget 5000000 \
        --set draw=3 --set passes=None --set partial_moves=True
"""

from __future__ import annotations

import argparse
import ast
import time
from typing import Any

import numpy as np
from common import run_script, variant_names  # benchmarks/common.py (the scripts' folder is on sys.path)

from patience_gym.games import get_variant
from patience_gym.solver import solve_deal


def _value(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def solver_arguments(p: argparse.ArgumentParser, seeds: str = "0:50") -> None:
    """The flags of the solver's benchmarks (this one and bench_solver_versions.py)."""
    p.add_argument("--env", action="append", help="variant id (repeatable; default all)")
    p.add_argument("--seeds", default=seeds, help=f"START:STOP (default {seeds})")
    p.add_argument("--budget", type=int, default=1_000_000, help="nodes per deal (default 1M)")
    p.add_argument("--probe", type=int, help="nodes of the budget for the probe (default a tenth, as solve)")
    p.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE", help="an env option")


def check_arguments(
    p: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[list[str], range, dict[str, Any]]:
    """The variants, the seeds and the options; an empty range, a budget that is not positive, an
    unknown id or a bad option ends the run in one line, before the table starts."""
    from patience_gym.agents.solving.chunks import parse_seeds

    if args.budget < 1 or (args.probe is not None and not 0 <= args.probe <= args.budget):
        p.error(f"--budget must be >= 1 and --probe from 0 to it, got {args.budget} and {args.probe}")
    try:
        seeds = parse_seeds(args.seeds)
    except ValueError as exc:
        p.error(str(exc))
    options = {k: _value(v) for k, v in (s.split("=", 1) for s in args.set)}
    names = variant_names(args.env)
    for name in names:
        get_variant(name).make_game(**options)  # ValueError: refused in one line (see the end)
    return names, seeds, options


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    solver_arguments(p)
    args = p.parse_args()
    names, seeds, options = check_arguments(p, args)
    probe = args.budget // 10 if args.probe is None else args.probe
    print(
        f"{'variant':18} {'deals':>5} {'decided':>8} {'won':>7} {'unknown':>7} "
        f"{'median s':>9} {'p95 s':>7} {'nodes/s':>10}"
    )
    for name in names:
        variant = get_variant(name)
        labels = []
        t0 = time.perf_counter()
        for seed in seeds:
            labels.append(solve_deal(variant, options, seed=seed, max_nodes=args.budget, probe_nodes=probe))
        wall = time.perf_counter() - t0
        n = len(labels)
        won = sum(lb.label == "won" for lb in labels)
        unknown = sum(lb.label == "unknown" for lb in labels)
        secs = np.array([lb.seconds for lb in labels])
        nodes = sum(lb.nodes for lb in labels)
        print(
            f"{name:18} {n:5d} {100 * (n - unknown) / n:7.1f}% {100 * won / n:6.1f}% {unknown:7d} "
            f"{np.median(secs):9.3f} {np.percentile(secs, 95):7.3f} {nodes / max(secs.sum(), 1e-9):10.0f}"
            f"   ({wall:.0f} s)"
        )


if __name__ == "__main__":
    run_script(main, __file__)
