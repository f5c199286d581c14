"""The rollouts' base policy played in the real game, with and without one-step rollouts on top.

::

    python scripts/rollout_probe.py --seeds 0:100                     # the base policy alone
    python scripts/rollout_probe.py --seeds 0:100 --samples 16        # rollouts on 16 sampled deals
    python scripts/rollout_probe.py --seeds 0:100 --samples 32 --z 2  # leave its move only past 2 s.e.
    python scripts/rollout_probe.py --seeds 0:100 --seeing            # rollouts on the real deal

The base policy (``src/native/rollout.hpp``; its preferences asked of the engine) takes, at each
decision, the legal move to a position not met before in the game with the most foundation cards
won, then the variant's move priority, then the lowest id; the game ends when no move leads
anywhere new. With ``--samples N``, each such
move is played on the same N deals consistent with what the player has seen and rolled out by the
base policy to the end (``patience_gym.solver.rollout_values``), and the move with the best mean is
played, the base policy's move when it is among the best. ``--z Z`` leaves the base policy's move
only for a move whose paired difference over the N deals exceeds Z standard errors. ``--seeing``
rolls out on the real deal instead (every card seen: an upper bound, not a blind policy). This is
the experiment docs/planner.md reports for the planner's ``rollouts`` and ``order`` settings.
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.determinize import consistent_deck, unseen_positions
from patience_gym.native import _module
from patience_gym.solver import rollout_values


def _values(core: Any, deck_of: Any, actions: list[int], moves: list[int], n: int) -> np.ndarray:
    variant, options = core.variant, core.game.options
    rows = [rollout_values(variant, options, deck_of(), actions, moves, 1000) for _ in range(n)]
    return np.array(rows, dtype=float)


def play(env: gym.Env[Any, Any], seed: int, samples: int, z: float, seeing: bool) -> tuple[bool, int]:
    """One deal: (won, foundation cards at the end)."""
    core: Any = env.unwrapped
    env.reset(seed=seed)
    real, rng = core.game.deck(), np.random.default_rng(seed)
    g = core.game._c
    met, actions, done = {g.canonical_hash()}, [], False
    while not done:
        leads_to = {}  # each move to a position not met: that position's hash
        for a in np.flatnonzero(core.action_masks()).tolist():
            child = g.clone()
            child.apply(a)
            if child.canonical_hash() not in met:
                leads_to[a] = child.canonical_hash()
        if not leads_to:
            break
        options = []  # (action, position hash), in the base policy's order of preference
        while len(options) < len(leads_to):
            a = int(_module().ordering_pick(g, [m for m in leads_to if m not in dict(options)]))
            options.append((a, leads_to[a]))
        pick = options[0]
        if (samples or seeing) and len(options) > 1:
            moves = [o[0] for o in options]
            n = 1 if seeing or not unseen_positions(core) else samples
            deck_of = (lambda: real) if seeing else (lambda: consistent_deck(core, rng))
            diff = _values(core, deck_of, actions, moves, n)
            diff -= diff[:, [0]]  # against the base policy's move
            mean = diff.mean(axis=0)
            se = diff.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(len(moves))
            better = [i for i in range(len(moves)) if mean[i] > 0 and mean[i] > z * se[i]]
            if better:
                pick = options[max(better, key=lambda i: (mean[i], -i))]
        met.add(pick[1])
        actions.append(pick[0])
        _, _, term, trunc, _ = env.step(pick[0])
        done, g = term or trunc, core.game._c
    return bool(g.won), int(g.foundation_cards)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="Klondike-v0")
    parser.add_argument("--seeds", default="0:100", help="start:stop")
    parser.add_argument("--samples", type=int, default=0, help="sampled deals per decision (0: none)")
    parser.add_argument("--z", type=float, default=0.0, help="standard errors needed to leave the base move")
    parser.add_argument("--seeing", action="store_true", help="roll out on the real deal (every card seen)")
    args = parser.parse_args()
    start, stop = (int(x) for x in args.seeds.split(":"))
    env = gym.make(f"patience_gym/{args.env}", engine="native")
    wins, cards = 0, []
    for seed in range(start, stop):
        won, c = play(env, seed, args.samples, args.z, args.seeing)
        wins += won
        cards.append(c)
        print(f"\r{seed - start + 1}/{stop - start} deals, {wins} won", end="", flush=True)
    print(f"\n{args.env} seeds {args.seeds}: {wins} won, {np.mean(cards):.2f} cards on the foundations")


if __name__ == "__main__":
    main()
