"""Steps per second of the native engine against the Python one and OpenSpiel's ``solitaire``.

One run, interleaved: each round times every contestant for ``--seconds`` in turn, and the best
round of each is reported, so a machine busy with something else for a moment costs every
contestant alike. A step is what an RL loop pays for under a random legal policy:

- ``python`` / ``native``: ``gym.make(id, engine=...)`` (with gymnasium's wrappers), a random
  legal action from ``info["action_mask"]``, ``env.step`` (apply, mask, observation copy); when an
  episode ends, ``reset()`` (seeded once at the start, as an RL loop does; OpenSpiel's loop starts
  a new game the same way, without seeding).
- ``batched N``: ``gym.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point",
  copy=False)``: random legal actions for all N rows, one ``step``; counted as N game-steps
  (autoreset included). Timed twice: with the actions drawn by numpy from ``action_masks()`` and
  by ``sample_legal_actions()`` (one native call), so the engine's cost shows apart from the
  Python policy's.
- ``openspiel``: ``pyspiel.load_game("solitaire")`` (Klondike, draw 1) driven from Python with the
  buffer observation API (``open_spiel.python.observation.make_observation``: ``set_from`` and a
  copy of ``tensor``), ``legal_actions()`` and ``apply_action``; chance nodes (cards turned up,
  equally likely) are sampled and their time included; a new game when one ends.

Single-env loops pick with ``random.Random.randrange`` (the cheapest draw), so the loop around
each engine costs alike. OpenSpiel has Klondike only: every variant's ratio is to that one loop
(the issue's yardstick), timed in the same rounds.

Memory per game of the batched engine is printed twice: ``state B``, the native game and its
bookkeeping (what a game costs the engine), and ``bytes/game``, that plus the game's rows of the
output buffers (observation, mask, pack, extras), which grow with the observation's size.

    python benchmarks/bench_native.py                       # Klondike, 3 rounds of 2 s
    python benchmarks/bench_native.py --env Klondike-v0 --seconds 1 --rounds 5 --batch 1 64 1024
    python benchmarks/bench_native.py --env all --batch 256 --pick native --seconds 1   # every variant
    python benchmarks/bench_native.py --isolate --batch 256   # each contestant in its own process
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import random
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from common import run_script  # benchmarks/common.py (the scripts' folder is on sys.path)

import patience_gym  # noqa: F401
from patience_gym.games import VARIANTS, get_variant
from patience_gym.native import native_games
from patience_gym.vector import PatienceVectorEnv

Runner = Callable[[float], float]  # seconds -> game-steps per second


def timed(chunk: Callable[[], int]) -> Runner:
    """The runner of a contestant: steps per second of ``chunk`` (it plays a run of steps in a
    loop of its own and says how many) called until the seconds given have passed. The clock is
    read once a chunk, and each contestant's chunk is written out in full, so that nothing but its
    engine's step, not even a call, sits between one step and the next."""

    def run(seconds: float) -> float:
        steps, start = 0, time.perf_counter()
        deadline = start + seconds
        while True:
            steps += chunk()
            if time.perf_counter() > deadline:
                return steps / (time.perf_counter() - start)

    return run


def single(env_id: str, engine: str) -> Runner:
    env = gym.make(env_id, engine=engine)
    pick = random.Random(0).randrange
    state: dict[str, Any] = {"info": env.reset(seed=0)[1], "episode": 0}

    def chunk() -> int:
        info = state["info"]
        for _ in range(100):
            legal = info["action_mask"].nonzero()[0]
            _, _, term, trunc, info = env.step(int(legal[pick(len(legal))]))
            while term or trunc or not info["action_mask"].any():  # a deal may offer no move
                # As an RL loop does (and as OpenSpiel's loop starts a new game): the env was
                # seeded once, and reset() deals the next game from its generator.
                state["episode"] += 1
                info = env.reset()[1]
                term = trunc = False
        state["info"] = info
        return 100

    return timed(chunk)


def batched(env_id: str, n: int, native_pick: bool) -> tuple[Runner, int, int]:
    vec = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", copy=False)
    vec.reset(seed=0)
    rng = np.random.default_rng(0)
    unwrapped = vec.unwrapped
    assert isinstance(unwrapped, PatienceVectorEnv)
    n_actions = unwrapped.batch.n_actions

    def numpy_pick() -> np.ndarray:
        # a random legal action per row: the largest random score among the legal ids
        scores = rng.random((n, n_actions), dtype=np.float32)
        scores[~unwrapped.batch.mask] = -1.0
        actions: np.ndarray = scores.argmax(axis=1)
        return actions

    pick = unwrapped.sample_legal_actions if native_pick else numpy_pick

    def chunk() -> int:
        for _ in range(10):
            vec.step(pick())
        return 10 * n

    return timed(chunk), unwrapped.bytes_per_game, int(unwrapped.batch.engine.bytes_per_game)


def openspiel() -> Runner | None:
    try:
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError:
        return None
    game = pyspiel.load_game("solitaire")
    observation = make_observation(game)
    pick = random.Random(0).randrange
    holder = {"state": game.new_initial_state()}

    def chunk() -> int:
        state, steps = holder["state"], 0
        for _ in range(100):
            while state.is_chance_node():
                # solitaire's chance outcomes (the card turned up) are equally likely
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[pick(len(outcomes))][0])
            if state.is_terminal():
                state = game.new_initial_state()
                continue
            observation.set_from(state, player=0)
            observation.tensor.copy()
            legal = state.legal_actions()
            state.apply_action(legal[pick(len(legal))])
            steps += 1
        holder["state"] = state
        return steps

    return timed(chunk)


def build(spec: tuple[Any, ...]) -> tuple[Runner | None, tuple[int, int]]:
    """A contestant's runner (and its memory figures) from a picklable spec."""
    kind = spec[0]
    if kind == "single":
        return single(spec[1], spec[2]), (0, 0)
    if kind == "batched":
        runner, per_game, state = batched(spec[1], spec[2], spec[3])
        return runner, (state, per_game)
    return openspiel(), (0, 0)


def _worker(spec: tuple[Any, ...], conn: Any) -> None:
    """--isolate: one contestant in its own fresh interpreter, timing a round per request."""
    runner, memory = build(spec)
    conn.send(memory if runner is not None else None)
    while True:
        seconds = conn.recv()
        if seconds is None:
            return
        assert runner is not None
        conn.send(runner(seconds))


class Isolated:
    """A contestant in its own process (``--isolate``): rounds still interleave, one at a time, but
    no contestant shares an interpreter (its garbage collector, allocator, loaded libraries) with
    another. In one process, merely importing pyspiel was measured to slow the Python loop around
    our engine by up to 45% (CPU time), and the many live batched envs cost the others GC time."""

    def __init__(self, spec: tuple[Any, ...]) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(spec, child), daemon=True)
        self.proc.start()
        self.memory = self.conn.recv()

    def __call__(self, seconds: float) -> float:
        self.conn.send(seconds)
        rate: float = self.conn.recv()
        return rate

    def close(self) -> None:
        self.conn.send(None)
        self.proc.join(timeout=10)


def make_contestants(
    specs: dict[tuple[str, str], tuple[Any, ...]], isolate: bool
) -> tuple[dict[tuple[str, str], Runner], dict[tuple[str, str], tuple[int, int]], list[Isolated]]:
    """The runners (in this process, or each in its own with ``isolate``) and memory figures;
    a contestant that cannot run here (OpenSpiel not installed) is left out."""
    contestants: dict[tuple[str, str], Runner] = {}
    memory: dict[tuple[str, str], tuple[int, int]] = {}
    isolated: list[Isolated] = []
    for key, spec in specs.items():
        if isolate:
            iso = Isolated(spec)
            if iso.memory is None:
                iso.close()
                continue
            isolated.append(iso)
            contestants[key], memory[key] = iso, tuple(iso.memory)
        else:
            runner, mem = build(spec)
            if runner is not None:
                contestants[key], memory[key] = runner, mem
    return contestants, memory, isolated


def _check_counts(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A count that would time nothing ends the run in one line."""
    if args.seconds <= 0:
        parser.error(f"--seconds must be > 0, got {args.seconds}")
    if args.rounds < 1 or any(n < 1 for n in args.batch):
        parser.error(f"--rounds and each --batch size must be >= 1, got {args.rounds} and {args.batch}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", nargs="+", default=["Klondike-v0"], help="variant ids, or 'all'")
    parser.add_argument("--seconds", type=float, default=2.0, help="per contestant per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, nargs="*", default=[1, 64, 256, 1024])
    parser.add_argument(
        "--pick", choices=("both", "numpy", "native"), default="both", help="batched action draws"
    )
    parser.add_argument("--no-python", action="store_true", help="leave out the Python engine")
    parser.add_argument(
        "--isolate",
        action="store_true",
        help="run each contestant in its own process (rounds still interleaved, one at a time)",
    )
    args = parser.parse_args()
    _check_counts(parser, args)
    names = [v.env_name for v in VARIANTS] if args.env == ["all"] else args.env
    variants = [get_variant(name) for name in names]
    for variant in variants:
        if variant.game.__name__ not in native_games():
            raise SystemExit(f"{variant.env_name} has no native engine in this build")
    picks = [(False, "numpy pick"), (True, "native pick")]
    picks = [p for p in picks if args.pick == "both" or p[1].startswith(args.pick)]
    specs: dict[tuple[str, str], tuple[Any, ...]] = {}
    for variant in variants:
        env = variant.env_name
        if not args.no_python:
            specs[env, "python (gym.make)"] = ("single", variant.env_id, "python")
        specs[env, "native (gym.make)"] = ("single", variant.env_id, "native")
        for n in args.batch:
            for native_pick, how in picks:
                specs[env, f"batched N={n} ({how})"] = ("batched", variant.env_id, n, native_pick)
    specs["Klondike (OpenSpiel)", "openspiel solitaire (buffer)"] = ("openspiel",)
    contestants, memory, isolated = make_contestants(specs, args.isolate)
    best = dict.fromkeys(contestants, 0.0)
    for _ in range(args.rounds):
        for key, run in contestants.items():
            best[key] = max(best[key], run(args.seconds))
    for iso in isolated:
        iso.close()
    where = "each contestant in its own process" if args.isolate else "all contestants in this process"
    print(f"best of {args.rounds} interleaved rounds of {args.seconds:g} s per contestant ({where})")
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{platform.python_implementation()} {platform.python_version()}"
    )
    ref = best.get(("Klondike (OpenSpiel)", "openspiel solitaire (buffer)"))
    print(
        f"{'variant':22} {'contestant':30} {'game-steps/s':>13} {'x openspiel':>12} {'state B':>8} "
        f"{'bytes/game':>11}"
    )
    for (env, name), rate in best.items():
        ratio = f"{rate / ref:.2f}" if ref else "-"
        state, per_game = memory.get((env, name), (0, 0))
        mem = (str(state), str(per_game)) if per_game else ("", "")
        print(f"{env:22} {name:30} {rate:13,.0f} {ratio:>12} {mem[0]:>8} {mem[1]:>11}")
    if ref is None:
        print("openspiel is not installed (pip install open_spiel): no ratios")


if __name__ == "__main__":
    run_script(main, __file__)
