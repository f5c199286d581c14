"""Nestor (Cadogan; docs/rules.md section 2). One pack.

Rules in brief. Six rows of eight cards are dealt so that no column holds two cards of one rank
(a card that would repeat a rank goes to the bottom of the pack); the last 4 cards are the reserve,
face down. Two available cards of equal rank are taken out together; the last card of a column is
available, and so is a turned reserve card until it is paired. Won when all 52 are paired off.

Option ``reserve``: ``"strict"`` (default, Cadogan) turns up the next reserve card only when no
pair can be made; ``"open"`` (PySolFC, solitaire.gg) has all four face up from the start.

Action table (67 ids, fixed). Places 0-7 are the columns' last cards, places 8-11 the reserve
cards in the order they are turned:

======= ==========================================================
id      move
======= ==========================================================
0-65    pair place p with place q (p < q, ordered p-major)
66      turn up the next reserve card
======= ==========================================================

Observation segments (``layout.describe()``):

- ``card_place`` (52, 14): one-hot per card over column 0-7, reserve place 0-3 face up (the
  places the actions name), paired off, reserve face down (the unturned reserve is one place:
  which cards it holds is only the complement of the rest, never their order).
- ``depth`` (52,): for a column card, the cards lying on it / 5 (0: available).
- ``reserve_turned`` (1,): reserve cards turned up / 4.

Choices where docs/rules.md is silent (documented, tested): a deal can leave no pair at all with
the reserve open; the game then ends at once as lost.
"""

from __future__ import annotations

from collections import deque
from enum import Enum
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import NAME, RANK, card_name
from patience_gym.core.game import Game, ObsLayout, Option
from patience_gym.core.moves import Move, MoveTable, assert_never
from patience_gym.core.places import CardPlaces
from patience_gym.core.vocabulary import EQUAL_RANK

N_COLS, N_ROWS, N_RESERVE = 8, 6, 4
N_PLACES = N_COLS + N_RESERVE
PLACE_NAMES = tuple([f"column {i}" for i in range(N_COLS)] + [f"reserve {k}" for k in range(N_RESERVE)])


class Kind(Enum):
    PAIR = "pair"
    TURN = "turn"


TABLE = MoveTable.build(
    (
        Kind.PAIR,
        [
            Move(Kind.PAIR, p, q, f"{PLACE_NAMES[p]} + {PLACE_NAMES[q]}")
            for p, q in combinations(range(N_PLACES), 2)
        ],
    ),
    (Kind.TURN, [Move(Kind.TURN, text="turn up reserve")]),
)
_TURN = TABLE.first[Kind.TURN]


def _pair_ids() -> list[list[int]]:
    ids = [[-1] * N_PLACES for _ in range(N_PLACES)]
    for a in TABLE.ids(Kind.PAIR):
        ids[TABLE[a].src][TABLE[a].dst] = a
    return ids


#: _PAIR_ID[p][q] (p < q): the action pairing places p and q, read off the table.
_PAIR_ID = _pair_ids()

#: The pairing rule, as a table: ``CAN_PAIR[a][b]`` when cards a and b are of equal rank (any suits).
CAN_PAIR = EQUAL_RANK.table

# Observation: where each card is (one-hot over these places).
PLACES = CardPlaces(
    [f"column {i}" for i in range(N_COLS)]
    + [f"reserve {k}, face up" for k in range(N_RESERVE)]
    + ["paired off", "reserve, face down (not visible)"],
    n_packs=1,
)
# A turned reserve card keeps its own place (the actions name reserve places 8-11).
_RES_UP, _PAIRED, _HIDDEN = N_COLS, N_COLS + N_RESERVE, N_COLS + N_RESERVE + 1
# _DEPTHS[n]: the depth feature of the cards of an n-card column, first dealt first.
_DEPTHS = tuple([(n - 1 - k) / 5.0 for k in range(n)] for n in range(N_ROWS + 1))


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


class Nestor(Game[Kind]):
    """Nestor on the rules of docs/rules.md section 2 (see the module docstring for the table)."""

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
    moves = TABLE.moves
    layout = ObsLayout(
        [
            ("card_place", PLACES.shape, PLACES.doc()),
            ("depth", (52,), "for a column card: cards lying on it / 5 (0: available)"),
            ("reserve_turned", (1,), "reserve cards turned up / 4"),
        ]
    )

    def configure(self, *, reserve: str) -> None:
        self.open_reserve = reserve == "open"
        self._o_places = self.layout.offset("card_place")
        self._s_depth = self.layout.slice("depth")
        self._s_turned = self.layout.slice("reserve_turned")

    def deal(self, pack: list[int]) -> None:
        self.cols, reserve = rectified_deal(pack)
        self.reserve: list[int | None] = list(reserve)  # None once paired off
        self.turned = N_RESERVE if self.open_reserve else 0
        self.discard: list[int] = []  # cards paired off, in the order they went

    # ---- the rules ----------------------------------------------------------------------------

    def card_at(self, place: int) -> int | None:
        """The available card at ``place``, or ``None`` when there is none."""
        if place < N_COLS:
            col = self.cols[place]
            return col[-1] if col else None
        k = place - N_COLS
        return self.reserve[k] if k < self.turned else None

    def _pairable(self, p: int, q: int) -> bool:
        a, b = self.card_at(p), self.card_at(q)
        return a is not None and b is not None and CAN_PAIR[a][b]

    def _pairs(self) -> list[int]:
        """The pair actions legal now: the pairing rule over every two available places."""
        at = [(p, c) for p in range(N_PLACES) if (c := self.card_at(p)) is not None]
        found = []
        for i, (p, a) in enumerate(at):
            ids, fits = _PAIR_ID[p], CAN_PAIR[a]
            for q, b in at[i + 1 :]:
                if fits[b]:
                    found.append(ids[q])
        return found

    def _may_turn(self, pair_on_offer: bool) -> bool:
        """A reserve card is left to turn, and no pair can be made."""
        return self.turned < N_RESERVE and not pair_on_offer

    def is_legal(self, action: int) -> bool:
        move = TABLE[action]
        match move.kind:
            case Kind.PAIR:
                return self._pairable(move.src, move.dst)
            case Kind.TURN:
                return self._may_turn(bool(self._pairs()))
            case _:
                assert_never(move.kind)

    def mark_legal(self, mask: np.ndarray) -> None:
        pairs = self._pairs()
        for a in pairs:
            mask[a] = True
        mask[_TURN] = self._may_turn(bool(pairs))

    def _apply(self, move: Move[Kind]) -> None:
        match move.kind:
            case Kind.PAIR:
                for place in (move.src, move.dst):
                    if place < N_COLS:
                        self.discard.append(self.cols[place].pop())
                    else:
                        c = self.reserve[place - N_COLS]
                        assert c is not None, "a legal pair names available cards only"
                        self.discard.append(c)
                        self.reserve[place - N_COLS] = None
            case Kind.TURN:
                self.turned += 1
            case _:
                assert_never(move.kind)

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return len(self.discard)

    def describe(self, action: int) -> str:
        move = TABLE[action]
        match move.kind:
            case Kind.PAIR:
                (p, q), (a, b) = (move.src, move.dst), (self.card_at(move.src), self.card_at(move.dst))
                return f"pair {card_name(a)} ({PLACE_NAMES[p]}) + {card_name(b)} ({PLACE_NAMES[q]})"
            case Kind.TURN:
                return move.text
            case _:
                assert_never(move.kind)

    def observe(self, out: np.ndarray) -> None:
        where: list[int] = []
        at: list[int] = []
        depths: list[float] = []
        for i, col in enumerate(self.cols):
            where += PLACES.index(i, col)
            at += col
            depths += _DEPTHS[len(col)]
        out[self._s_depth][at] = depths
        turned, reserve = self.turned, self.reserve
        for k in range(turned):
            c = reserve[k]
            if c is not None:
                where += PLACES.index(_RES_UP + k, [c])
        where += PLACES.index(_HIDDEN, [c for c in reserve[turned:] if c is not None])
        where += PLACES.index(_PAIRED, self.discard)
        PLACES.write(out, self._o_places, where)
        out[self._s_turned] = self.turned / N_RESERVE

    def unseen_positions(self) -> list[int]:
        """The reserve cards not turned up yet. (One pack: each card's position is its own.)"""
        where = {c: i for i, c in enumerate(self.initial_pack)}
        return [where[c] for c in self.reserve[self.turned :] if c is not None]

    def cards_in_play(self) -> list[int]:
        reserve = [c for c in self.reserve if c is not None]
        return [c for col in self.cols for c in col] + reserve + self.discard

    def render(self) -> str:
        lines = [f"Nestor  reserve {'open' if self.open_reserve else 'strict'}  paired: {len(self.discard)}"]
        for r in range(max((len(c) for c in self.cols), default=0)):
            lines.append(" ".join(NAME[c[r]] if r < len(c) else "  " for c in self.cols))
        res = [
            "  " if c is None else (NAME[c] if k < self.turned else "##") for k, c in enumerate(self.reserve)
        ]
        lines.append("reserve: " + " ".join(res))
        return "\n".join(lines)
