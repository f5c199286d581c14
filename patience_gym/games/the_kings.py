"""The Kings (Cadogan, fragment; docs/rules.md section 8). Two packs.

Rules in brief. The eight aces are set out as foundations in 4 lines of 2 (line ``l`` holds
foundations ``2l`` and ``2l + 1``), each built up to K regardless of suit. The other 96 cards are
dealt in columns of 4, one card per line, alternately left and right of the foundations, each new
column outside the last on its side: 8 rows ``L0..L3`` and ``R0..R3`` (the digit is the line),
each running outward from the foundations. The deal is automatic (:func:`kings_deal`): a dealt
card, or a row's outside card (its last-dealt card while no newer column covers it), that fits a
foundation on its own line is played there at once. After the deal the outermost card of a row may
go to any foundation one rank below it, or onto another row's outermost card one rank apart (any
suit); an emptied row is a lane that takes any available card at its inner end. No re-deal; won
when all 104 cards are on the foundations.

Option ``sequences``: ``"monotone"`` (default, Cadogan's "regular succession") a card goes onto a
row only if it continues the row's outermost pair, one higher after a rise, one lower after a fall
(a one-card row, or a pair out of sequence, takes either); ``"either"`` (the first edition) a row
may turn at any card.

Action table (64 ids, fixed). Rows are numbered ``0-3 = L0..L3`` and ``4-7 = R0..R3``; foundation
moves come first so that the greedy baseline's ties favour them:

======= ==================================================================
id      move
======= ==================================================================
0-7     row i -> foundation (its outermost card, onto the lowest-numbered
        foundation one rank below it)
8-63    row i -> row j (i != j, ordered i-major): the outermost card of i
        onto the outermost card of j, or into j when j is a lane
======= ==================================================================

Observation segments (``layout.describe()``, 1480 floats, bounded whatever the rows' lengths; every
card is face up, and the ``sequences`` option is fixed per environment, so it is not carried):

- ``card_place`` (104, 9): one-hot per card copy over ``L0..L3, R0..R3, foundation``. Copy slot
  ``2 * id + k``: ``k`` is 0 for the copy met first scanning rows ``L0..R3``, each from its outer
  end inward, then the foundations (the two copies of an id are interchangeable).
- ``card_depth`` (104,): for a card in a row, the cards lying outward of it / 95 (a row never
  holds more than 96 cards); 0 for the outermost card and for foundation cards.
- ``outer_card`` (8, 52): one-hot of each row's outermost card (all zero for a lane).
- ``row_length`` (8,): cards in each row / 96; ``lane`` (8,): 1 when the row is empty.
- ``foundation_height`` (8,): cards on each foundation / 13.

Choices where docs/rules.md is silent (documented, tested):

- **Which foundation.** After the deal every foundation takes any suit, so two at one height are
  interchangeable: "row i -> foundation" picks the lowest-numbered that fits (one action, not
  eight). During the deal, when both foundations of the line fit, the card goes to the left one.
- **Order of the deal's plays.** "At once" is taken literally: the outside cards a rise makes fit
  are played before the next card of the pack is turned, the left row's before the right row's
  (it matters only when one foundation fits both). While a slot waits for its card, the row's card
  of the previous column on that side is still its outside card.
- **Lanes.** A row's only card may not move into a lane: after the deal the rows are alike, so the
  move would only swap two rows' places and would make every game with a lane endless (every
  allowed action must change the state). Reversing sequences card by card still allows
  back-and-forth, which ``default_max_steps`` and the greedy policy's cycle guard stop.
- **Score and win count.** As in the other two-pack games the eight aces set out before the deal
  are left out: ``foundation_cards`` counts the other cards on the foundations, including those
  the deal played, and a win is 96. The environment's reward is measured from the count at reset,
  so a won episode's rewards still sum to 1.0. ``info`` adds ``cards_on_foundations`` (aces
  included: the book's count, 104 when won) and ``dealt_to_foundations`` (the deal's plays).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from itertools import permutations
from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import ACE, KING, N_KINDS, NAME, RANK, card, card_name, take_out
from patience_gym.core.foundations import FoundationRow, Pile, count_cards
from patience_gym.core.game import Game, ObsLayout, Option
from patience_gym.core.moves import Move, MoveTable, assert_never
from patience_gym.core.vocabulary import ANY_SUIT_UP

N_LINES = 4
N_ROWS = 2 * N_LINES
N_FOUND = 2 * N_LINES
N_DEALT = 104 - N_FOUND  # 96 cards go to the rows (or to the foundations during the deal)
_MAX_DEPTH = N_DEALT - 1
ROW_NAMES = tuple(f"L{line}" for line in range(N_LINES)) + tuple(f"R{line}" for line in range(N_LINES))
#: The aces taken out, in the order they are set on foundations 0..7.
ACES = tuple(card(ACE, s) for s in range(4)) * 2

#: The foundations: the eight aces set out before the deal, each built up to K regardless of suit.
FOUNDATIONS = FoundationRow(tuple(Pile(ANY_SUIT_UP) for _ in ACES))
#: The foundations of each line, the left (lower-numbered) one first.
LINE_FOUNDATIONS = tuple((2 * line, 2 * line + 1) for line in range(N_LINES))
#: ``_PILE_TAKES[f][top]``: the cards foundation ``f`` takes on its top card ``top``, as a set read
#: off the row's rule table, so that the eight piles are asked at once (none is ever empty).
_PILE_TAKES = tuple(
    tuple(frozenset(c for c, ok in enumerate(fits[top]) if ok) for top in range(N_KINDS))
    for fits in FOUNDATIONS.fits
)
#: What a lane takes: a card of any rank.
_ANY_RANK = range(ACE, KING + 1)


class Kind(Enum):
    ROW_TO_FOUNDATION = "row -> foundation"
    ROW_TO_ROW = "row -> row"


TABLE = MoveTable.build(
    (
        Kind.ROW_TO_FOUNDATION,
        [Move(Kind.ROW_TO_FOUNDATION, i, text=f"row {ROW_NAMES[i]} -> foundation") for i in range(N_ROWS)],
    ),
    (
        Kind.ROW_TO_ROW,
        [
            Move(Kind.ROW_TO_ROW, i, j, f"row {ROW_NAMES[i]} -> row {ROW_NAMES[j]}")
            for i, j in permutations(range(N_ROWS), 2)
        ],
    ),
)
_TO_FOUNDATION = TABLE.first[Kind.ROW_TO_FOUNDATION]


#: ``_ROW_TO_ROW[i, j]``: the action moving row i's outermost card to row j, read off the table.
_ROW_TO_ROW = {(TABLE[a].src, TABLE[a].dst): a for a in TABLE.ids(Kind.ROW_TO_ROW)}

# Observation: the place of each card copy (rows, then the foundations). Each copy has a one-hot
# slot of its own (not core.places' count of copies per card), as this game's observation always had.
_PLACES = [f"row {name}" for name in ROW_NAMES] + ["foundation"]
_ON_FOUNDATION = N_ROWS
_N_PLACES = len(_PLACES)


# ---- the deal ---------------------------------------------------------------------------------


def line_foundation(foundations: list[list[int]], line: int, c: int) -> int:
    """The foundation on ``line`` that ``c`` fits during the deal (the left one first), or -1."""
    return FOUNDATIONS.first_accepting(foundations, c, LINE_FOUNDATIONS[line])


def play_outside_cards(
    rows: list[list[int]], outside: list[bool], foundations: list[list[int]], line: int
) -> None:
    """After a foundation on ``line`` rose during the deal: play the line's outside cards that fit.

    ``outside[r]`` says whether row ``r``'s last card is still its outside card. Each play can make
    the other row's outside card fit, hence the loop; a played card's row has no outside card
    until the next column covers it (the card it uncovers is an inner one, blocked).
    """
    played = True
    while played:
        played = False
        for r in (line, N_LINES + line):  # the left row first
            if outside[r]:
                f = line_foundation(foundations, line, rows[r][-1])
                if f >= 0:
                    foundations[f].append(rows[r].pop())
                    outside[r] = False
                    played = True


def kings_deal(pack: list[int]) -> tuple[list[list[int]], list[list[int]]]:
    """The automatic deal: ``(rows, foundations)`` from a 104-card pack (first card dealt first).

    ``rows[r]`` lists row ``r`` from its inner end (next to the foundations) outward;
    ``foundations[f]`` lists foundation ``f`` from its ace up. A dealt card that fits a foundation
    of its line is played and the next card takes its place; each such rise may play the line's
    outside cards (:func:`play_outside_cards`), never the inner ones, even when they lie outermost.
    """
    rest = list(pack)
    foundations = [[a] for a in take_out(rest, ACES)]
    rows: list[list[int]] = [[] for _ in range(N_ROWS)]
    outside = [False] * N_ROWS
    k, n, column = 0, len(rest), 0
    while k < n:
        side = column % 2
        for line in range(N_LINES):
            r = N_LINES * side + line
            while k < n:
                c = rest[k]
                k += 1
                f = line_foundation(foundations, line, c)
                if f < 0:
                    rows[r].append(c)  # covers the row's previous card: now an inner one
                    outside[r] = True
                    break
                foundations[f].append(c)
                play_outside_cards(rows, outside, foundations, line)
        column += 1
    return rows, foundations


# ---- the game ---------------------------------------------------------------------------------


class TheKings(Game[Kind]):
    """The Kings on the rules of docs/rules.md section 8 (see the module docstring for the table)."""

    name = "The Kings"
    n_packs = 2
    win_cards = N_DEALT
    # 96 foundation moves plus the row-to-row moves a sensible game needs (reversing a sequence
    # costs one move per card) stay well under this; aimless back-and-forth does not.
    default_max_steps = 1000
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {
        "sequences": Option(
            "monotone",
            "monotone: a row built on keeps the direction of its outermost pair; "
            "either: it may turn at any card",
            ("monotone", "either"),
        ),
    }
    STATE = ("rows", "foundations")
    moves = TABLE.moves
    layout = ObsLayout(
        [
            ("card_place", (2 * 52, _N_PLACES), "one-hot per card copy (slot 2*id+k): " + "; ".join(_PLACES)),
            ("card_depth", (2 * 52,), f"row cards lying outward of the card / {_MAX_DEPTH} (0: outermost)"),
            ("outer_card", (N_ROWS, 52), "one-hot of each row's outermost card (none for a lane)"),
            ("row_length", (N_ROWS,), f"cards in each row / {N_DEALT}"),
            ("lane", (N_ROWS,), "1 when the row is empty (a lane)"),
            ("foundation_height", (N_FOUND,), "cards on each foundation / 13"),
        ]
    )

    def configure(self, *, sequences: str) -> None:
        self.monotone = sequences == "monotone"
        # Segments looked up by name: observe writes each through its own offset or slice.
        off = self.layout.offset
        self._o_place, self._o_depth, self._o_outer = off("card_place"), off("card_depth"), off("outer_card")
        self._s_depth = self.layout.slice("card_depth")
        self._s_len, self._s_lane = self.layout.slice("row_length"), self.layout.slice("lane")
        self._s_found = self.layout.slice("foundation_height")

    def deal(self, pack: list[int]) -> None:
        self.rows, self.foundations = kings_deal(pack)
        # Per deal, not state: fixed from the deal on, so clones share it.
        self._on_start = count_cards(self.foundations)

    # ---- the rules ----------------------------------------------------------------------------

    def _foundation_for(self, c: int) -> int:
        """The lowest-numbered foundation one rank below ``c``, or -1."""
        return FOUNDATIONS.first_accepting(self.foundations, c)

    def _foundations_take(self) -> set[int]:
        """The cards some foundation takes now: the union of what each pile's top takes."""
        return set().union(*(_PILE_TAKES[f][pile[-1]] for f, pile in enumerate(self.foundations)))

    def _ranks_into(self, dst: list[int], several: bool) -> Sequence[int]:
        """The ranks of the outermost cards that may go to row ``dst`` from another row holding
        ``several`` cards (more than one) or one.

        A lane takes any rank, except from a row's only card: that move would only swap two rows'
        places. A row takes one rank apart, any suit; under ``monotone`` only the one that continues
        its outermost pair when that pair is in sequence (a single card, or a pair out of sequence,
        takes either). A rank past K or below 2 names no card in a row, so it needs no guard.
        """
        if not dst:
            return _ANY_RANK if several else ()
        top = RANK[dst[-1]]
        if self.monotone and len(dst) > 1:
            step = top - RANK[dst[-2]]
            if step in (1, -1):
                return (top + step,)
        return (top - 1, top + 1)

    def is_legal(self, action: int) -> bool:
        move = TABLE[action]
        src = self.rows[move.src]
        if not src:
            return False
        match move.kind:
            case Kind.ROW_TO_FOUNDATION:
                return src[-1] in self._foundations_take()
            case Kind.ROW_TO_ROW:
                return RANK[src[-1]] in self._ranks_into(self.rows[move.dst], len(src) > 1)
            case _:
                assert_never(move.kind)

    def _rows_taking(self, several: bool) -> dict[int, list[int]]:
        """:meth:`_ranks_into` of every row, by rank: the rows that take a card of each rank from a
        row of ``several`` cards (or of one)."""
        by_rank: dict[int, list[int]] = {}
        for j, row in enumerate(self.rows):
            for rank in self._ranks_into(row, several):
                if rank in by_rank:
                    by_rank[rank].append(j)
                else:
                    by_rank[rank] = [j]
        return by_rank

    def mark_legal(self, mask: np.ndarray) -> None:
        """The rules of :meth:`is_legal`, from the eight outermost cards at once: what the
        foundations and each row take is asked once, not once per move."""
        to_foundation = self._foundations_take()
        taking = {True: self._rows_taking(True)}  # for a one-card source, only when there is one
        legal: list[int] = []
        for i, row in enumerate(self.rows):
            if row:
                c, several = row[-1], len(row) > 1
                if c in to_foundation:
                    legal.append(_TO_FOUNDATION + i)
                if several not in taking:
                    taking[several] = self._rows_taking(several)
                legal += [_ROW_TO_ROW[i, j] for j in taking[several].get(RANK[c], ()) if j != i]
        mask[legal] = True

    def _apply(self, move: Move[Kind]) -> None:
        src = self.rows[move.src]
        match move.kind:
            case Kind.ROW_TO_FOUNDATION:
                c = src.pop()
                self.foundations[self._foundation_for(c)].append(c)
            case Kind.ROW_TO_ROW:
                self.rows[move.dst].append(src.pop())
            case _:
                assert_never(move.kind)

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        """Cards on the foundations, the eight aces set out before the deal left out."""
        return count_cards(self.foundations) - N_FOUND

    def extra_info(self) -> dict[str, Any]:
        return {
            "cards_on_foundations": self.foundation_cards + N_FOUND,
            "dealt_to_foundations": self._on_start - N_FOUND,
        }

    def moving_card(self, move: Move[Kind]) -> int | None:
        src = self.rows[move.src]
        return src[-1] if src else None

    def describe(self, action: int) -> str:
        move = TABLE[action]
        c = self.moving_card(move)
        if c is None:
            return move.text
        match move.kind:
            case Kind.ROW_TO_FOUNDATION:
                f = self._foundation_for(c)
                return f"{NAME[c]} {move.text}" + (f" {f}" if f >= 0 else "")
            case Kind.ROW_TO_ROW:
                if not self.rows[move.dst]:
                    return f"{NAME[c]} row {ROW_NAMES[move.src]} -> lane {ROW_NAMES[move.dst]}"
                return f"{NAME[c]} {move.text}"
            case _:
                assert_never(move.kind)

    def observe(self, out: np.ndarray) -> None:
        hot: list[int] = []  # entries set to 1: card places and outer cards
        d_at: list[int] = []  # card_depth entries, with their depth in d_val
        d_val: list[int] = []
        seen = [0] * 52  # copies of each id met so far: the next copy's k
        o_place, o_depth, o_outer = self._o_place, self._o_depth, self._o_outer
        rows = self.rows
        for i, row in enumerate(rows):
            if not row:
                continue
            hot.append(o_outer + 52 * i + row[-1])
            for d, c in enumerate(reversed(row)):  # outer end inward
                slot = 2 * c + seen[c]
                seen[c] += 1
                hot.append(o_place + slot * _N_PLACES + i)
                if d:
                    d_at.append(o_depth + slot)
                    d_val.append(d)
        for pile in self.foundations:
            for c in pile:
                hot.append(o_place + (2 * c + seen[c]) * _N_PLACES + _ON_FOUNDATION)
                seen[c] += 1
        out[hot] = 1.0
        out[d_at] = d_val
        out[self._s_depth] *= 1.0 / _MAX_DEPTH
        out[self._s_len] = [len(r) / N_DEALT for r in rows]
        out[self._s_lane] = [0.0 if r else 1.0 for r in rows]
        out[self._s_found] = [len(f) / KING for f in self.foundations]

    def unseen_positions(self) -> list[int]:
        """None: the deal lays every card out face up."""
        return []

    def cards_in_play(self) -> list[int]:
        return [c for row in self.rows for c in row] + [c for f in self.foundations for c in f]

    def render(self) -> str:
        on = self.foundation_cards + N_FOUND
        lines = [
            f"The Kings  on the foundations: {on}/104  (played {self.foundation_cards}/{self.win_cards})"
        ]
        left = [" ".join(NAME[c] for c in reversed(self.rows[line])) for line in range(N_LINES)]
        width = max(len(s) for s in left)
        for line in range(N_LINES):
            pair = " ".join(card_name(self.foundations[2 * line + k][-1]) for k in range(2))
            right = " ".join(NAME[c] for c in self.rows[N_LINES + line])
            lines.append(f"L{line} {left[line]:>{width}} | {pair} | {right} R{line}")
        return "\n".join(lines)
