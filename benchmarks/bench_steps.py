"""Steps per second of every variant under a random legal policy.

A step is the whole of what an RL loop pays for: ``env.step`` (apply the move, compute the legal
mask and the observation) plus picking a random legal action from the mask. Episodes that end are
reset (reset time included). A second table splits one step's cost into its parts, measured on the
rules core alone: apply, legal mask, observation.

It measures the Python rules core on both engines' common path (``engine="python"``). The
comparison with OpenSpiel (through its buffer observation API), the native engine and the
batched engine is ``benchmarks/bench_native.py``, which times them side by side, interleaved.

    python benchmarks/bench_steps.py                 # every variant, 3 s each
    python benchmarks/bench_steps.py --env Klondike-v0 --seconds 10
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from common import run_script, variant_names  # benchmarks/common.py (the scripts' folder is on sys.path)

import patience_gym  # noqa: F401
from patience_gym.env import PatienceEnv
from patience_gym.games import get_variant


def bench_env(name: str, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Steps/s of the bare env (no gymnasium wrappers) under a random legal policy."""
    env = PatienceEnv(name, engine="python")
    limit = get_variant(name).max_episode_steps
    rng = random.Random(seed)
    _, info = env.reset(seed=seed)
    steps, episode, t = 0, 0, 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(200):
            legal = np.flatnonzero(info["action_mask"])
            if legal.size == 0 or t >= limit:
                episode += 1
                t = 0
                _, info = env.reset(seed=seed + episode)
                continue
            _, _, _, _, info = env.step(legal[rng.randrange(legal.size)])
            steps += 1
            t += 1
        if time.perf_counter() > deadline:
            break
    return steps / (time.perf_counter() - start), episode


def bench_parts(name: str, steps: int = 5000, seed: int = 0) -> dict[str, float]:
    """Microseconds per call of apply, legal_mask and observation on the rules core."""
    game = get_variant(name).make_game()
    rng = np.random.default_rng(seed)
    t_apply = t_mask = t_obs = 0.0
    game.new_game(rng)
    n = 0
    while n < steps:
        t0 = time.perf_counter()
        mask = game.legal_mask()
        t1 = time.perf_counter()
        game.observation()
        t2 = time.perf_counter()
        legal = np.flatnonzero(mask)
        if legal.size == 0 or game.won:
            game.new_game(rng)
            continue
        a = int(legal[rng.integers(legal.size)])
        t3 = time.perf_counter()
        game.apply(a)
        t4 = time.perf_counter()
        t_mask += t1 - t0
        t_obs += t2 - t1
        t_apply += t4 - t3
        n += 1
    return {"apply": 1e6 * t_apply / n, "mask": 1e6 * t_mask / n, "obs": 1e6 * t_obs / n}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", action="append", help="variant(s) to measure (default: all)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per variant")
    args = parser.parse_args()
    if args.seconds <= 0:
        parser.error(f"--seconds must be > 0, got {args.seconds}")
    names = variant_names(args.env)

    print(
        f"{'env':<20}{'steps/s':>10}{'us/step':>9}{'apply us':>10}{'mask us':>9}{'obs us':>8}{'episodes':>10}"
    )
    for name in names:
        rate, episodes = bench_env(name, args.seconds)
        parts = bench_parts(name)
        print(
            f"{name:<20}{rate:>10,.0f}{1e6 / rate:>9.1f}{parts['apply']:>10.1f}{parts['mask']:>9.1f}"
            f"{parts['obs']:>8.1f}{episodes:>10}"
        )


if __name__ == "__main__":
    run_script(main, __file__)
