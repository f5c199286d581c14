"""Nestor (Cadogan; RULES.md section 2). One pack.

Six rows of eight cards are dealt row by row, left to right, so that no column holds two cards of
one rank: a card whose rank is already in its column goes to the bottom of the pack and the next
card is tried; if no card left fits, the next card is placed anyway. The last 4 cards are the
reserve. Play takes out two available cards of equal rank together; the last card of a column is
available, and a turned reserve card stays available until it is paired.

``reserve="strict"`` (Cadogan): a reserve card may be turned only when no pair can be made.
``reserve="open"`` (PySolFC, solitaire.gg): all four reserve cards are face up from the start.

Action table (67 ids). Places 0-7 are the columns' last cards, places 8-11 the reserve cards in
the order they are turned:

======= ==========================================================
id      move
======= ==========================================================
0-65    pair place p with place q (p < q, ordered p-major)
66      turn up the next reserve card
======= ==========================================================
"""

from __future__ import annotations

from collections import deque
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import NAME, RANK, card_name
from patience_gym.core.game import Game, Move, ObsLayout, Option

N_COLS, N_ROWS, N_RESERVE = 8, 6, 4
N_PLACES = N_COLS + N_RESERVE
_PAIRS = tuple(combinations(range(N_PLACES), 2))
_TURN = len(_PAIRS)

_PLACE_NAMES = [f"column {i}" for i in range(N_COLS)] + [f"reserve {k}" for k in range(N_RESERVE)]
# Observation: where each card is (one-hot over these places).
_WHERE = [f"column {i}" for i in range(N_COLS)] + [
    "reserve, face up",
    "paired off",
    "reserve, face down (not visible)",
]
_RES_UP, _PAIRED, _HIDDEN = 8, 9, 10
_NW = len(_WHERE)
# _DEPTHS[n]: the depth feature of the cards of an n-card column, first dealt first.
_DEPTHS = tuple([(n - 1 - k) / 5.0 for k in range(n)] for n in range(N_ROWS + 1))


def _table() -> tuple[Move, ...]:
    moves = [Move("pair", p, q, text=f"{_PLACE_NAMES[p]} + {_PLACE_NAMES[q]}") for p, q in _PAIRS]
    moves.append(Move("turn", text="turn up reserve"))
    return tuple(moves)


def rectified_deal(pack: list[int]) -> tuple[list[list[int]], list[int]]:
    """Cadogan's deal: 8 columns of 6 with no rank twice in a column, and the 4-card reserve."""
    rest = deque(pack)
    cols: list[list[int]] = [[] for _ in range(N_COLS)]
    for _row in range(N_ROWS):
        for col in cols:
            ranks = {RANK[c] for c in col}
            for _ in range(len(rest)):
                if RANK[rest[0]] not in ranks:
                    break
                rest.rotate(-1)  # to the bottom of the pack; try the next card
            # after a full turn of the pack with no fit, rest[0] is the original next card
            col.append(rest.popleft())
    return cols, list(rest)


class Nestor(Game):
    """Nestor on the rules of RULES.md section 2 (see the module docstring for the table)."""

    name = "Nestor"
    n_packs = 1
    win_cards = 52
    default_max_steps = 100  # a game takes at most 26 pairs and 4 turns
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {
        "reserve": Option(
            "strict",
            "strict: turn a reserve card only when no pair can be made; open: all four face up",
            ("strict", "open"),
        ),
    }
    STATE = ("cols", "reserve", "turned", "discard")
    MOVES = _table()

    def configure(self, *, reserve: str) -> None:
        self.open_reserve = reserve == "open"
        self.moves = self.MOVES
        self.layout = ObsLayout(
            [
                ("card_place", (52, _NW), "one-hot per card: " + "; ".join(_WHERE)),
                ("depth", (52,), "for a column card: cards lying on it / 5 (0: available)"),
                ("reserve_turned", (1,), "reserve cards turned up / 4"),
            ]
        )
        self._o_depth = self.layout.offset("depth")
        self._o_turned = self.layout.offset("reserve_turned")

    def deal(self, pack: list[int]) -> None:
        self.cols, reserve = rectified_deal(pack)
        self.reserve: list[int | None] = list(reserve)  # None once paired off
        self.turned = N_RESERVE if self.open_reserve else 0
        self.discard: list[int] = []  # cards paired off, in the order they went

    # ---- the rules ----------------------------------------------------------------------------

    def _card_at(self, place: int) -> int | None:
        """The available card at ``place``, or ``None`` when there is none."""
        if place < N_COLS:
            col = self.cols[place]
            return col[-1] if col else None
        k = place - N_COLS
        return self.reserve[k] if k < self.turned else None

    def _any_pair(self) -> bool:
        seen: set[int] = set()
        for p in range(N_PLACES):
            c = self._card_at(p)
            if c is not None:
                if RANK[c] in seen:
                    return True
                seen.add(RANK[c])
        return False

    def is_legal(self, action: int) -> bool:
        move = self.moves[action]
        if move.kind == "turn":
            return self.turned < N_RESERVE and not self._any_pair()
        a, b = self._card_at(move.src), self._card_at(move.dst)
        return a is not None and b is not None and RANK[a] == RANK[b]

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(len(self.moves), dtype=bool)
        ranks = [-1 if c is None else RANK[c] for c in map(self._card_at, range(N_PLACES))]
        any_pair = False
        for a, (p, q) in enumerate(_PAIRS):
            if ranks[p] >= 0 and ranks[p] == ranks[q]:
                mask[a] = any_pair = True
        mask[_TURN] = self.turned < N_RESERVE and not any_pair
        return mask

    def _apply(self, move: Move) -> None:
        if move.kind == "turn":
            self.turned += 1
            return
        for place in (move.src, move.dst):
            if place < N_COLS:
                self.discard.append(self.cols[place].pop())
            else:
                self.discard.append(self.reserve[place - N_COLS])  # type: ignore[arg-type]
                self.reserve[place - N_COLS] = None

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return len(self.discard)

    def moving_card(self, move: Move) -> int | None:
        return None if move.kind == "turn" else self._card_at(move.src)

    def describe(self, action: int) -> str:
        move = self.moves[action]
        if move.kind == "turn":
            return move.text
        a, b = self._card_at(move.src), self._card_at(move.dst)
        return f"pair {card_name(a)} ({_PLACE_NAMES[move.src]}) + {card_name(b)} ({_PLACE_NAMES[move.dst]})"

    def observe(self, out: np.ndarray) -> None:
        hot: list[int] = []
        depth = self._o_depth
        at: list[int] = []
        depths: list[float] = []
        for i, col in enumerate(self.cols):
            hot += [c * _NW + i for c in col]
            at += [depth + c for c in col]
            depths += _DEPTHS[len(col)]
        out[at] = depths
        for k, c in enumerate(self.reserve):
            if c is not None:
                hot.append(c * _NW + (_RES_UP if k < self.turned else _HIDDEN))
        hot.extend(c * _NW + _PAIRED for c in self.discard)
        out[hot] = 1.0
        out[self._o_turned] = self.turned / N_RESERVE

    def cards_in_play(self) -> list[int]:
        reserve = [c for c in self.reserve if c is not None]
        return [c for col in self.cols for c in col] + reserve + self.discard

    def heuristic(self) -> float:
        """Pairs made first, then how many pairs the next position offers (all visible)."""
        ranks = [RANK[c] for c in map(self._card_at, range(N_PLACES)) if c is not None]
        options = len(ranks) - len(set(ranks))
        return 10.0 * len(self.discard) + options

    def render(self) -> str:
        lines = [f"Nestor  reserve {'open' if self.open_reserve else 'strict'}  paired: {len(self.discard)}"]
        for r in range(max((len(c) for c in self.cols), default=0)):
            lines.append(" ".join(NAME[c[r]] if r < len(c) else "  " for c in self.cols))
        res = [
            "  " if c is None else (NAME[c] if k < self.turned else "##")
            for k, c in enumerate(self.reserve)
        ]
        lines.append("reserve: " + " ".join(res))
        return "\n".join(lines)
