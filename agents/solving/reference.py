"""A second, deliberately simple exhaustive search: the reference the solver's labels are checked against.

The solver (``src/native/solver.cpp``, :mod:`patience_gym.solver`) labels deals with a depth-first
search on the native engine made fast by move ordering, safe moves played without branching, macro
moves, canonical positions, dominance and a dead-position rule, each a claim about the rules that
could be wrong. This module shares nothing with it but the Python rules (``patience_gym/games/``):
it plays the Python engine's :class:`~patience_gym.core.game.Game` through its public API alone
(``legal_actions``, ``clone``, ``apply``, ``won`` and ``state_key``) and searches

- depth first, over **every** legal action in the order of the action table;
- with a transposition set keyed on the **whole** position, :meth:`Game.state_key` (every attribute
  the game names in ``STATE``, exactly; no canonical form, no symmetry);
- with no pruning, no move ordering, no macro moves and no rule for dead positions;
- under a budget of ``max_nodes`` distinct positions entered.

Its verdicts (:data:`patience_gym.solver.VERDICTS`): **won**, with the line of action ids that wins
from the deal (``env.reset(seed=seed)`` then ``env.step`` each id); **lost** when every position
reachable from the deal was entered and none is won (the transposition set is exact, so a
position skipped as seen was searched, or is being searched, along another path); **unknown** when
the budget ran out first. The search knows nothing of the env's step limit: a won line may be
longer than it (the solver's stored lines fit it: tests/agents/solving/test_won_lines_fit.py).

It is slow (a Python clone and a legal-move mask per position: five to ten thousand positions a
second) and only meant for deals that are small to decide: tests/agents/solving/test_reference_search.py
holds it level with a sample of the shipped labels, and ``python -m agents.solving.reference FILE``
runs it on a label file's rows of one verdict (docs/solver.md, "Cross-check: a second, simpler
search").
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

import patience_gym  # noqa: F401  (registers the environment ids)
from patience_gym.core.game import Game
from patience_gym.games import get_variant

from ..common.data import shipped_labels
from .labels import header_lines, read_labels

__all__ = ["ReferenceResult", "label_file_variant", "reference_game", "reference_search", "reference_solve"]


@dataclass(frozen=True)
class ReferenceResult:
    """What the reference search found for one deal."""

    verdict: str  #: "won", "lost" or "unknown" (as the solver's labels)
    nodes: int  #: distinct positions entered, the deal included
    line: tuple[int, ...] = field(default=())  #: the winning action ids, from the deal, when won


def reference_search(game: Game[Any], max_nodes: int) -> ReferenceResult:
    """Search every line of play from ``game``'s position (left untouched) depth first.

    ``max_nodes`` bounds the distinct positions entered (the deal counts as one); when a new
    position would exceed it the verdict is ``"unknown"``. A move that wins ends the search at once,
    whatever the budget.
    """
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1:
        raise ValueError(f"max_nodes must be a positive integer, got {max_nodes!r}")
    root = game.clone()
    if root.won:
        return ReferenceResult("won", 1, ())
    seen: set[Hashable] = {root.state_key()}
    line: list[int] = []  # the actions from the deal to the position on top of the stack
    # One frame per position on the current line: the position and the legal actions not yet tried.
    stack: list[tuple[Game[Any], Iterator[int]]] = [(root, iter(root.legal_actions()))]
    while stack:
        position, untried = stack[-1]
        action = next(untried, None)
        if action is None:  # every move from here searched: back up one move
            stack.pop()
            if line:
                line.pop()
            continue
        child = position.clone()
        if child.apply(action).won:
            return ReferenceResult("won", len(seen), (*line, action))
        key = child.state_key()
        if key in seen:
            continue
        if len(seen) >= max_nodes:
            return ReferenceResult("unknown", len(seen))
        seen.add(key)
        line.append(action)
        stack.append((child, iter(child.legal_actions())))
    return ReferenceResult("lost", len(seen))


def reference_game(env_name: str, seed: int, options: Mapping[str, Any] | None = None) -> Game[Any]:
    """The Python engine's game of ``env_name`` with rule ``options``, dealt as
    ``env.reset(seed=seed)`` deals it (taken from ``gym.make(..., engine="python")`` itself)."""
    variant = get_variant(env_name)
    env = gym.make(variant.env_id, engine="python", **dict(options or {}))
    try:
        env.reset(seed=seed)
        game: Game[Any] = env.unwrapped.game  # type: ignore[attr-defined]
        return game.clone()
    finally:
        env.close()  # type: ignore[no-untyped-call, unused-ignore]  # untyped in Gymnasium 1.2


def reference_solve(
    env_name: str, seed: int, max_nodes: int, options: Mapping[str, Any] | None = None
) -> ReferenceResult:
    """:func:`reference_search` on the deal of ``seed`` (``env.reset(seed=seed)``) of ``env_name``."""
    return reference_search(reference_game(env_name, seed, options), max_nodes)


def label_file_variant(path: Path) -> tuple[str, dict[str, Any]]:
    """The env name and rule options a label file names in its ``# env=`` and ``# options=`` lines."""
    wanted = ("# env=", "# options=")
    head = dict(line[2:].split("=", 1) for line in header_lines(path) if line.startswith(wanted))
    options: dict[str, Any] = json.loads(head["options"])
    return head["env"], options


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.solving.reference FILE``: the reference search on a label file's rows of
    one verdict, fewest solver nodes first; one line a deal, then the tally. Exits 1 on a
    disagreement (a won label the reference proves lost, or a lost one it wins)."""
    parser = argparse.ArgumentParser(
        prog="python -m patience_gym.agents.solving.reference", description=main.__doc__
    )
    parser.add_argument(
        "file",
        type=Path,
        help="a label file, or the name of a shipped one (Nestor-v0.csv, agents/data/labels/)",
    )
    parser.add_argument("--verdict", choices=("won", "lost"), default="lost", help="the rows to check")
    parser.add_argument("--budget", type=int, default=100_000, help="positions per deal (default 100,000)")
    parser.add_argument("--limit", type=int, default=None, help="check only the first N rows")
    args = parser.parse_args(argv)
    path: Path = args.file if args.file.exists() else shipped_labels() / args.file.name
    if not path.exists():
        parser.error(f"no label file {args.file} (nor {path})")
    env_name, options = label_file_variant(path)
    rows = sorted(
        (lb for lb in read_labels(path).values() if lb.label == args.verdict and lb.seed is not None),
        key=lambda lb: (lb.nodes, lb.seed),
    )[: args.limit]
    tally: dict[str, int] = {}
    disagree: list[int] = []
    for lb in rows:
        assert lb.seed is not None
        start = time.perf_counter()
        found = reference_solve(env_name, lb.seed, args.budget, options)
        took = time.perf_counter() - start
        tally[found.verdict] = tally.get(found.verdict, 0) + 1
        if found.verdict not in (lb.label, "unknown"):
            disagree.append(lb.seed)
        print(
            f"seed {lb.seed}: label {lb.label} ({lb.nodes} nodes), reference {found.verdict} "
            f"({found.nodes} positions, {len(found.line)} moves, {took:.2f} s)",
            flush=True,
        )
    counts = ", ".join(f"{n} {verdict}" for verdict, n in sorted(tally.items()))
    print(f"{path.name}: {len(rows)} {args.verdict} label(s); reference: {counts or 'none'}")
    if disagree:
        print(f"DISAGREEMENT on seed(s) {' '.join(map(str, disagree))}")
    return 1 if disagree else 0


if __name__ == "__main__":
    raise SystemExit(main())
