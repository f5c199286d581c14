"""Two or more policies side by side: wins and CPU seconds a game on the same deals, interleaved.

Each deal is played by every policy in turn before the next deal (the order rotates from deal to
deal), so a shared, noisy machine slows them alike; the ratio of their CPU seconds is the figure to
read, not the seconds themselves. Prints, per policy, the deals won (with the 95% Wilson interval),
CPU seconds a game and the ratio to the first policy's seconds, and the deals won by one policy and
not the first.

::

    python benchmarks/bench_policies.py --env Babette-v0 --seeds 0:200 \\
        --policy planner:samples=4,budget=5000,probe=4500,known=200000 \\
        --policy macro:samples=2,batch=1,nodes=300,first=1
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import gymnasium as gym
from common import run_script  # benchmarks/common.py (the scripts' folder is on sys.path)

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.common.config import apply_overrides
from patience_gym.agents.evaluation.evaluate import wilson
from patience_gym.agents.registry import make_policy
from patience_gym.agents.solving.chunks import parse_seeds
from patience_gym.games import get_variant


def play(env: gym.Env[Any, Any], policy: Any, seed: int) -> tuple[bool, float]:
    """One deal: whether ``policy`` won it and the CPU seconds its choices took."""
    obs, info = env.reset(seed=seed)
    if not info["action_mask"].any():  # a deal with no legal move is lost at once (The Kings)
        return False, 0.0
    policy.reset(seed)
    spent = 0.0
    while True:
        start = time.process_time()
        action = policy(env.unwrapped, obs)
        spent += time.process_time() - start
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return bool(info["won"]), spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, help="variant, e.g. Babette-v0")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="env option")
    parser.add_argument("--seeds", default="0:100", help="deals a:b (default 0:100)")
    parser.add_argument("--policy", action="append", required=True, help="a policy spec; give two or more")
    args = parser.parse_args()
    if len(args.policy) < 2:
        raise ValueError("give two or more --policy specs to compare")
    seeds = parse_seeds(args.seeds)
    kwargs = apply_overrides({}, args.set)
    variant = get_variant(args.env)
    unknown = sorted(set(kwargs) - set(variant.game.OPTIONS))
    if unknown:
        raise ValueError(
            f"--set {unknown[0]}: {variant.env_name} has no option {unknown[0]!r}; "
            f"its options are: {', '.join(variant.game.OPTIONS) or 'none'}"
        )
    env = gym.make(variant.env_id, **kwargs)
    policies = [make_policy(spec) for spec in args.policy]
    won: list[set[int]] = [set() for _ in policies]
    cpu = [0.0 for _ in policies]
    for n, seed in enumerate(seeds):
        for k in range(len(policies)):
            i = (n + k) % len(policies)  # rotate who plays first
            w, s = play(env, policies[i], seed)
            cpu[i] += s
            if w:
                won[i].add(seed)
        if (n + 1) % 50 == 0:
            print(f"{n + 1}/{len(seeds)} deals", file=sys.stderr, flush=True)
    games = len(seeds)
    options = "".join(f" {k}={v!r}" for k, v in kwargs.items())
    print(f"{args.env}{options}, seeds {seeds.start}-{seeds.stop - 1}, interleaved")
    head = ("won", "95% Wilson", "CPU s/game", "ratio", "only", "not")
    print(f"{'policy':<60} {head[0]:>5} {head[1]:>14} {head[2]:>11} {head[3]:>6} {head[4]:>5} {head[5]:>5}")
    for i, spec in enumerate(args.policy):
        lo, hi = wilson(len(won[i]), games)
        print(
            f"{spec[:60]:<60} {len(won[i]):>5} [{100 * lo:5.1f}, {100 * hi:5.1f}] "
            f"{cpu[i] / games:>11.4f} {cpu[i] / cpu[0] if cpu[0] else float('nan'):>6.2f} "
            f"{len(won[i] - won[0]):>5} {len(won[0] - won[i]):>5}"
        )
    print("only / not: deals this policy won that the first did not, and the reverse")


if __name__ == "__main__":
    run_script(main, __file__)
