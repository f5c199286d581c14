"""Shorter won lines: a label's winning line cut down until it wins within the step limit.

A won label must be winnable through the environment: ``gym.make`` truncates an episode at the
variant's registered step limit (``get_variant(env).max_episode_steps``), so a winning line longer
than that never wins there. The depth-first search keeps the first line it finds, not a short
one, and in The Kings that line can wander for thousands of moves (cards shuttled from row to row
through positions the search had not met), where the limit is 1,000.

Two exact passes shorten a line without searching (:func:`shorten`):

1. **Loop erasure.** The line is replayed and every position keyed by its game's ``state_key()``,
   the whole position (equal keys: the same legal moves and the same future, so what follows one
   follows the other). Where a position comes back, the moves between are cut.
2. **Shortcuts.** From each position ``i`` of the line every legal move (with ``depth=2`` every
   two legal moves too) is tried; one that reaches the line's position ``j`` further on than the
   line does is an edge ``i -> j``. The shortest path from the deal to the won end over the
   line's positions, along the line and these edges, is found by one pass over the indices (every
   edge points forward, so it is a DAG in line order).

They repeat while the line gets shorter, and they find little in The Kings: its search files
positions by their canonical key, so a line never comes back to a position, and a wander is
rarely cut by a move or two (seed 716's 5,291 moves keep all 5,291). What shortens those lines is
a third pass, a search (:func:`complete`): from about forty positions spread along the line, the
solver's probe (the limited discrepancy search, which follows the move ordering, foundation moves
first) looks for a win within a small budget, and the line to the position followed by that win
replaces the line where it is shorter. :func:`shortest_line` runs the exact passes, then the
completions and the exact passes again while the line shortens, at each budget of ``BUDGETS`` in
turn. Whatever the passes do, the line ends on a won position and is checked to win through
``gym.make`` itself (:func:`wins_within_limit`). The lines are played with every card seen, as
the solver's are: the environment deals the same cards, so the line wins there.

``scripts/shorten_lines.py`` rewrites a label file's too-long lines with these
(:func:`shorten_file`); tests/agents/solving/test_won_lines_fit.py checks that every stored line
wins within the limit.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.core.game import Game
from patience_gym.games import get_variant
from patience_gym.native import make_game
from patience_gym.solver import solve_line

Line = tuple[int, ...]

#: The probe's budgets for the completions (nodes), tried in turn: the larger one wins from
#: positions where the smaller one finds nothing. Together they cut The Kings' 73 lines over the
#: limit (up to 11,530 moves) to at most 627.
BUDGETS = (50_000, 500_000)
#: About how many positions of a line a completion is asked from, evenly spaced.
SAMPLES = 40
#: The header line a shortened label file gets; ``how`` is :func:`method`'s.
SHORTENED = (
    "# shortened: {count} won line(s) longer than the step limit of {limit} moves cut by {how}; "
    "nodes and seconds are the search's"
)


def method(depth: int, budgets: tuple[int, ...]) -> str:
    """How the lines were cut, for the header line: the passes, their depth and budgets."""
    if not budgets:
        return f"loop erasure and shortcuts of up to {depth} move(s) (scripts/shorten_lines.py)"
    spent = " then ".join(f"{b:,}" for b in budgets)
    return (
        f"loop erasure, shortcuts of up to {depth} move(s) and the probe's wins from positions on the "
        f"line (budgets {spent} nodes; scripts/shorten_lines.py)"
    )


@dataclass(frozen=True)
class Deal:
    """One deal of a label file: the env, its rule options and the seed ``reset`` deals it from."""

    env: str
    options: Mapping[str, Any]
    seed: int


def dealt(deal: Deal) -> Game[Any]:
    """The game of ``deal`` as ``reset(seed=seed)`` deals it, on the default engine."""
    game = make_game(get_variant(deal.env), None, **dict(deal.options))
    game.new_game(np.random.default_rng(deal.seed))
    return game


def legal_moves(game: Game[Any]) -> list[int]:
    return [int(a) for a in np.flatnonzero(game.legal_mask())]


def line_keys(start: Game[Any], actions: Line) -> list[Hashable]:
    """The key of every position of the line: the deal's, then one after each action."""
    game = start.clone()
    keys = [game.state_key()]
    for a in actions:
        game.apply(a)
        keys.append(game.state_key())
    return keys


def erase_loops(start: Game[Any], actions: Line) -> Line:
    """``actions`` without the moves between a position and its return: each position once."""
    keys = line_keys(start, actions)
    kept: list[int] = []  # the actions kept, and the positions they lead through
    through: list[Hashable] = [keys[0]]
    at: dict[Hashable, int] = {keys[0]: 0}  # a position kept -> its index in ``through``
    for a, key in zip(actions, keys[1:], strict=True):
        back = at.get(key)
        if back is None:
            kept.append(a)
            through.append(key)
            at[key] = len(kept)
            continue
        for dropped in through[back + 1 :]:  # the loop's positions leave the line
            del at[dropped]
        del kept[back:], through[back + 1 :]
    return tuple(kept)


def _reach(game: Game[Any], depth: int) -> Iterator[tuple[Line, Hashable]]:
    """Every line of 1 to ``depth`` legal moves from ``game`` (shortest first for each first
    move), with the key of the position it reaches; nothing beyond a won position."""
    for a in legal_moves(game):
        child = game.clone()
        child.apply(a)
        yield (a,), child.state_key()
        if depth > 1 and not child.won:
            for rest, key in _reach(child, depth - 1):
                yield (a, *rest), key


def take_shortcuts(start: Game[Any], actions: Line, depth: int = 1) -> Line:
    """The shortest line from the deal to the end of ``actions`` (a line whose positions are all
    different: :func:`erase_loops`) along the line and the shortcuts of up to ``depth`` moves
    between its positions."""
    keys = line_keys(start, actions)
    index = {key: i for i, key in enumerate(keys)}
    n = len(actions)
    # best[j]: the fewest moves to position j found so far, and how: (from i, the moves from i).
    best: list[tuple[int, int, Line]] = [(i, i - 1, (a,)) for i, a in enumerate(actions, 1)]
    best.insert(0, (0, -1, ()))
    game = start.clone()
    for i in range(n):
        if best[i + 1][0] > best[i][0] + 1:
            best[i + 1] = (best[i][0] + 1, i, (actions[i],))
        for moves, key in _reach(game, depth):
            j = index.get(key)
            if j is not None and j > i + len(moves) and best[i][0] + len(moves) < best[j][0]:
                best[j] = (best[i][0] + len(moves), i, moves)
        game.apply(actions[i])
    path: list[Line] = []
    j = n
    while j > 0:
        _, i, moves = best[j]
        path.append(moves)
        j = i
    return tuple(a for moves in reversed(path) for a in moves)


def shorten(start: Game[Any], actions: Line, depth: int = 1) -> Line:
    """``actions`` (a line from ``start``) made shorter by loop erasure and shortcuts of up to
    ``depth`` moves, repeated while it gets shorter; it ends on the same position, never longer."""
    line = tuple(actions)
    while True:
        shorter = take_shortcuts(start, erase_loops(start, line), depth)
        if len(shorter) >= len(line):
            return line
        line = shorter


def complete(deal: Deal, start: Game[Any], actions: Line, budget: int, samples: int = SAMPLES) -> Line:
    """The shortest of ``actions`` and, from about ``samples`` evenly spaced positions of it, the
    line up to that position followed by the win the solver's probe finds from there within
    ``budget`` nodes (a limited discrepancy search: it follows the move ordering, foundation
    moves first, so its wins are direct)."""
    variant, deck = get_variant(deal.env), start.deck()
    best = actions
    for i in range(0, len(actions), max(1, len(actions) // samples)):
        found = solve_line(variant, deal.options, deck, actions[:i], max_nodes=budget, probe_nodes=budget)
        if found.label == "won" and i + found.length < len(best):
            best = actions[:i] + found.actions
    return best


def shortest_line(deal: Deal, actions: Line, depth: int = 1, budgets: tuple[int, ...] = BUDGETS) -> Line:
    """A line that wins ``deal`` as ``actions`` do, made shorter: the exact passes
    (:func:`shorten`), then, for each budget in turn and while the line gets shorter, the probe's
    completions (:func:`complete`) followed by the exact passes again. Never longer than
    ``actions``; the native engine plays the probe."""
    start = dealt(deal)
    line = shorten(start, tuple(actions), depth)
    for budget in budgets:
        while True:
            shorter = shorten(start, complete(deal, start, line, budget), depth)
            if len(shorter) >= len(line):
                break
            line = shorter
    return line


def wins_within_limit(deal: Deal, actions: Line) -> bool:
    """Whether ``actions`` win ``deal`` through ``gym.make`` as registered (its step limit
    active): every action legal, the game won at the last one, not truncated before."""
    made = gym.make(f"patience_gym/{deal.env}", **dict(deal.options))
    _, info = made.reset(seed=deal.seed)
    for i, a in enumerate(actions):
        if not info["action_mask"][a]:
            return False
        _, _, terminated, truncated, info = made.step(a)
        if terminated or truncated:
            return bool(terminated and info["won"] and i == len(actions) - 1)
    return False


@dataclass
class Shortened:
    """What :func:`shorten_file` did: each shortened seed's length before and after, and the seeds
    whose line is still over the limit (their rows left as they were)."""

    limit: int
    depth: int  #: the deepest shortcuts a line needed
    lengths: dict[int, tuple[int, int]] = field(default_factory=dict)
    still_long: dict[int, int] = field(default_factory=dict)


def header_options(path: Path) -> tuple[str, dict[str, Any]]:
    """The env and rule options a label file's header names (``# env=``, ``# options=``)."""
    head = dict(line[2:].split("=", 1) for line in path.read_text().splitlines()[:2] if line.startswith("# "))
    return head["env"], json.loads(head["options"])


def _row(fields: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(fields)
    return out.getvalue()


def shorten_file(
    path: Path, depth: int = 1, deeper: int = 2, budgets: tuple[int, ...] = BUDGETS
) -> Shortened:
    """Rewrite the won rows of the label file ``path`` whose line is longer than the variant's step
    limit with a shorter line (:func:`shortest_line` with shortcuts of ``depth`` moves, then of
    ``deeper`` for a line still too long), each checked to win through ``gym.make``. Every other
    line of the file is kept byte for byte; one ``# shortened:`` header line is added when a row
    changed. A line still too long leaves its row as it was (in ``still_long``)."""
    env, options = header_options(path)
    report = Shortened(get_variant(env).max_episode_steps, depth)
    lines = path.read_text().splitlines(keepends=True)
    fields_at = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    for n in range(fields_at + 1, len(lines)):
        row = next(csv.reader([lines[n]]))
        actions = tuple(int(a) for a in row[5].split())
        if row[1] != "won" or len(actions) <= report.limit:
            continue
        deal = Deal(env, options, int(row[0]))
        line = shortest_line(deal, actions, depth, budgets)
        if len(line) > report.limit and deeper > depth:
            line = shortest_line(deal, line, deeper, budgets)
            report.depth = deeper if len(line) <= report.limit else report.depth
        if len(line) > report.limit:
            report.still_long[deal.seed] = len(line)
            continue
        if not wins_within_limit(deal, line):  # a bug in the passes, never a user's mistake
            raise RuntimeError(
                f"{path.name} seed {deal.seed}: the shortened line does not win through gym.make"
            )
        report.lengths[deal.seed] = (len(actions), len(line))
        lines[n] = _row([*row[:4], str(len(line)), " ".join(map(str, line))])
    if report.lengths:
        how = method(report.depth, budgets)
        head = SHORTENED.format(count=len(report.lengths), limit=report.limit, how=how)
        lines.insert(fields_at, head + "\n")
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(lines))
        tmp.replace(path)
    return report
