"""The macro planner's search speed: positions a CPU second, on fixed deals and decisions.

Plays ``--moves`` moves of each deal in ``--seeds`` with a ``macro`` spec and prints, per variant,
the positions its capped searches entered, the CPU seconds, positions a CPU second, and a hash of
the moves chosen: a change that only makes the engine faster keeps the positions and the hash, so
two builds compare by speed alone (run it before and after).

::

    python benchmarks/bench_macro.py                              # Klondike draw 3 and St. Louis
    python benchmarks/bench_macro.py --env Congress-v0 --spec macro:samples=10 --seeds 0:3
    python benchmarks/bench_macro.py --env Klondike-v0 --set draw=3 --set passes=null --seeds 1:3
"""

from __future__ import annotations

import argparse
import hashlib
import time
from typing import Any

import gymnasium as gym
from common import run_script  # benchmarks/common.py (the scripts' folder is on sys.path)

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.common.config import apply_overrides
from patience_gym.agents.registry import make_policy
from patience_gym.agents.solving.chunks import parse_seeds
from patience_gym.games import get_variant

#: The default cases: (variant, env options, spec, seeds, moves a deal).
CASES: list[tuple[str, dict[str, Any], str, range, int]] = [
    ("Klondike-v0", {"draw": 3, "passes": None, "partial_moves": True}, "macro", range(1, 3), 40),
    ("StLouis-v0", {}, "macro:samples=10", range(0, 1), 60),
]


def measure(
    env_name: str, kwargs: dict[str, Any], spec: str, seeds: range, moves: int
) -> tuple[int, float, str]:
    """Positions entered, CPU seconds and the moves' hash of ``spec`` on ``seeds``."""
    positions, cpu, chosen = 0, 0.0, hashlib.sha256()
    for seed in seeds:
        env = gym.make(get_variant(env_name).env_id, **kwargs)
        policy = make_policy(spec)
        obs, _ = env.reset(seed=seed)
        policy.reset(seed)
        start = time.process_time()
        for _ in range(moves):
            action = policy(env.unwrapped, obs)
            chosen.update(int(action).to_bytes(2, "little"))
            obs, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
        cpu += time.process_time() - start
        positions += int(getattr(policy, "spent", 0))
    return positions, cpu, chosen.hexdigest()[:12]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", help="one variant instead of the default cases")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="env option (with --env)")
    p.add_argument("--spec", default="macro", help="the macro spec (with --env)")
    p.add_argument("--seeds", default="0:2", help="FIRST:END (with --env)")
    p.add_argument("--moves", type=int, default=40, help="moves played a deal (with --env)")
    args = p.parse_args()
    if args.moves < 1:
        p.error("--moves must be >= 1")
    cases = CASES
    if args.set and not args.env:
        p.error("--set needs --env (the default cases have their own options)")
    if args.env:
        variant = get_variant(args.env)
        if not args.spec.startswith("macro"):
            p.error(f"--spec must be a macro spec, got {args.spec!r}")
        make_policy(args.spec)  # a bad setting is refused before anything runs
        kwargs = apply_overrides({}, args.set)
        unknown = sorted(set(kwargs) - set(variant.game.OPTIONS))
        if unknown:
            p.error(
                f"--set {unknown[0]}: {variant.env_name} has no option {unknown[0]!r}; "
                f"its options are: {', '.join(variant.game.OPTIONS) or 'none'}"
            )
        cases = [(variant.env_name, kwargs, args.spec, parse_seeds(args.seeds), args.moves)]
    print(f"{'variant':<14}{'spec':<20}{'positions':>12}{'CPU s':>9}{'M pos/s':>9}  moves hash")
    for env_name, kwargs, spec, seeds, moves in cases:
        positions, cpu, digest = measure(env_name, kwargs, spec, seeds, moves)
        rate = positions / cpu / 1e6 if cpu > 0 else 0.0
        print(f"{env_name:<14}{spec:<20}{positions:>12,}{cpu:>9.2f}{rate:>9.2f}  {digest}", flush=True)


if __name__ == "__main__":
    run_script(main, __file__)
