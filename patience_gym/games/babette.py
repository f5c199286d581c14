"""Babette (Cadogan; docs/rules.md section 3). Two packs.

Rules in brief. Eight foundations, two per suit: the first ace of a suit starts its ascending pile,
the first king its descending pile; the second ace and king are ordinary cards. The garden is a
grid of rows of 8, dealt one row per action below the last; only the next row blocks, so a card is
available when the place directly below it is empty (not dealt yet, or vacated; vacancies are never
refilled). The only move is an available garden card to a foundation of its suit. When the pack is
out the garden may be gathered column by column and re-dealt, twice. Won with all 104 cards on the
foundations.

Action table (210 ids, fixed). A garden place is ``p = 8 * row + column`` (row 0-12 from the top,
column 0-7 from the left): 104 cards make at most 13 rows of 8.

======= ====================================================================
id      move
======= ====================================================================
0-103   the card at garden place p -> the ascending (up) foundation of its suit
104-207 the card at garden place p - 104 -> the descending (down) foundation of its suit
208     deal a row (up to 8 cards, left to right) from the pack
209     re-deal: gather the garden, turn it over, lay out the first row
======= ====================================================================

``describe`` names the card, its place and the foundation: ``"7H garden row 3 col 5 -> up
foundation"``. The foundations are numbered 0-3 (up; C D H S) and 4-7 (down; C D H S).

Observation segments (``layout.describe()``), laid out like the action table where they concern
places:

- ``garden`` (13, 8, 52): one-hot over the card at each place (row, column); 0 where it is empty.
- ``available`` (13, 8): 1 where the place holds an available card.
- ``rows_dealt`` (1,): rows laid out in the current garden / 13 (the next row goes below them).
- ``foundation`` (8,): cards on each foundation / 13, in foundation order.
- ``unseen`` (52,): copies of each card in the pack / 2: the complement of the table, never the
  pack's order (that only with ``recall=True``, below).
- ``pack_size`` (1,): cards in the pack / 104. ``redeals_left`` (1,): re-deals still allowed / 2.
- With ``recall=True`` (5,731 floats) a re-dealt pack's order follows, which the player saw in the
  garden as it was gathered: ``pack_cards``, ``pack_depth``, ``pack_depth_lower``
  (:mod:`patience_gym.core.pile_rows`; a card's depth is the cards dealt before it), all 0 before
  the first re-deal.

Choices where docs/rules.md is silent (documented, tested):

- A new row puts one card in every column, under a vacancy too: no card moves into a gap, so a
  released card stays available however many rows follow. A short last row's missing places are
  empty, like vacated ones. A row whose cards have all been played still counts as a row.
- The first row of the garden is laid out by the deal and by each re-deal (an automatic step: it
  would be the only legal action); later rows are dealt whenever the player likes.
- The re-deal is allowed whenever the pack is out and a re-deal is left (Cadogan's "when all
  available cards have been played" is not enforced).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import ACE, KING, N_KINDS, NAME, RANK, SUIT, SUITS, card
from patience_gym.core.foundations import EMPTY as NO_TOP
from patience_gym.core.foundations import FoundationRow, Pile, count_cards
from patience_gym.core.game import Game, ObsLayout, Option
from patience_gym.core.moves import Move, MoveTable, assert_never
from patience_gym.core.pile_rows import PACK_SEGMENTS, RECALL, pile_rows
from patience_gym.core.vocabulary import SAME_SUIT_DOWN, SAME_SUIT_UP

N_COLS = 8
N_ROWS = 13  # 104 cards, 8 a row
N_PLACES = N_ROWS * N_COLS
N_REDEALS = 2
N_CARDS = 2 * N_KINDS
N_SUITS = len(SUITS)
EMPTY = -1  # a garden place with no card: vacated, or not dealt in a short last row

# ---- the foundations ----------------------------------------------------------------------------

#: Two rows of one pile per suit (C D H S): the ascending piles 0-3, started by the suit's ace and
#: built up in suit, then the descending piles 4-7, started by the king and built down in suit.
#: A card goes to pile ``row + SUIT[card]`` of a row.
UP_ROW, DOWN_ROW = 0, N_SUITS
FOUNDATIONS = FoundationRow(
    tuple(Pile(SAME_SUIT_UP, starts=frozenset({card(ACE, s)})) for s in range(N_SUITS))
    + tuple(Pile(SAME_SUIT_DOWN, starts=frozenset({card(KING, s)})) for s in range(N_SUITS))
)
_BUILD = FOUNDATIONS.fits  # _BUILD[f][top card, or NO_TOP][c]
#: SUIT_PILES[c]: the two foundations of c's suit (its ascending pile, then its descending one).
SUIT_PILES = tuple((UP_ROW + SUIT[c], DOWN_ROW + SUIT[c]) for c in range(N_KINDS))
#: The rank that would complete each foundation (king up, ace down), and the suit's other pile: a
#: card of that rank starts the other pile until that pile is started.
_LAST_RANK = (KING,) * N_SUITS + (ACE,) * N_SUITS
_OTHER_PILE = tuple((f + N_SUITS) % (2 * N_SUITS) for f in range(2 * N_SUITS))

# ---- the action table ---------------------------------------------------------------------------


class Kind(Enum):
    UP = "up"  # an available garden card to its suit's ascending foundation
    DOWN = "down"  # ... to its suit's descending foundation
    DEAL = "deal"  # deal a row from the pack
    REDEAL = "redeal"  # gather the garden into a new pack and lay out its first row


def place_name(p: int) -> str:
    return f"garden row {p // N_COLS} col {p % N_COLS}"


#: A card move's ``src`` is its garden place and ``dst`` the foundation row it goes to.
TABLE = MoveTable.build(
    (Kind.UP, [Move(Kind.UP, p, UP_ROW, f"{place_name(p)} -> up foundation") for p in range(N_PLACES)]),
    (
        Kind.DOWN,
        [Move(Kind.DOWN, p, DOWN_ROW, f"{place_name(p)} -> down foundation") for p in range(N_PLACES)],
    ),
    (Kind.DEAL, [Move(Kind.DEAL, text="deal a row")]),
    (Kind.REDEAL, [Move(Kind.REDEAL, text="re-deal the garden")]),
)
_UP0, _DOWN0 = TABLE.first[Kind.UP], TABLE.first[Kind.DOWN]
_DEAL, _REDEAL = TABLE.first[Kind.DEAL], TABLE.first[Kind.REDEAL]

# ---- the garden ---------------------------------------------------------------------------------

#: The row below the last one dealt: all its places are empty (not dealt yet).
_NOT_DEALT = (EMPTY,) * N_COLS
_COLUMNS = range(N_COLS)


def released(row: Sequence[int], below: Sequence[int]) -> list[int]:
    """Cadogan rule III, over one garden row: the columns where the place holds a card and the
    place directly below it (``below``: the next row, same column) is empty. Only the next row
    blocks."""
    found = []
    for c in _COLUMNS:  # a loop, not a comprehension: this is the hot path of every step
        if row[c] != EMPTY and below[c] == EMPTY:
            found.append(c)
    return found


def gather(grid: list[list[int]]) -> list[int]:
    """The new pack (first card dealt first) from the garden, as the rule book gathers it.

    Column 0 is picked up first and each next column goes under it, vacancies skipped; turning
    the heap over puts the rightmost non-empty column on top, each column read from its
    first-dealt card.
    """
    return [row[c] for c in reversed(range(N_COLS)) for row in grid if row[c] != EMPTY]


#: The observation (module docstring); with recall=True the re-dealt pack's segments follow (the
#: native engine's generated spec lets a layout grow only at its end).
_SEGMENTS: list[tuple[str, tuple[int, ...], str]] = [
    ("garden", (N_ROWS, N_COLS, N_KINDS), "one-hot card at each place (row, column); 0: empty"),
    ("available", (N_ROWS, N_COLS), "1 where the place holds an available card"),
    ("rows_dealt", (1,), "rows laid out in the current garden / 13"),
    ("foundation", (8,), "cards on each pile / 13: up C D H S, then down C D H S"),
    ("unseen", (N_KINDS,), "copies of each card in the pack / 2 (the order: recall=True)"),
    ("pack_size", (1,), "cards in the pack / 104"),
    ("redeals_left", (1,), "re-deals still allowed / 2"),
]
LAYOUT = ObsLayout(_SEGMENTS)
LAYOUT_RECALL = ObsLayout([*_SEGMENTS, *PACK_SEGMENTS])


class Babette(Game[Kind]):
    """Babette on the rules of docs/rules.md section 3 (see the module docstring for the table)."""

    name = "Babette"
    n_packs = 2
    win_cards = N_CARDS
    # 104 foundation moves + at most 3 x 12 row deals + 2 re-deals = 142: the limit is never
    # reached by a game that is still making progress.
    default_max_steps = 400
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {"recall": RECALL}
    STATE = ("grid", "pack", "foundations", "redeals")
    moves = TABLE.moves
    layout = LAYOUT  # LAYOUT_RECALL with recall=True (configure)

    def configure(self, *, recall: bool) -> None:
        self.recall = recall
        if recall:
            self.layout = LAYOUT_RECALL
            self._s_recall = tuple(self.layout.slice(name) for name, _, _ in PACK_SEGMENTS)
        # The garden and the available places are set with one indexed write (see observe).
        self._o_garden = self.layout.offset("garden")
        self._o_avail = self.layout.offset("available")
        self._s_rows = self.layout.slice("rows_dealt")
        self._s_found = self.layout.slice("foundation")
        self._s_unseen = self.layout.slice("unseen")
        self._s_pack = self.layout.slice("pack_size")
        self._s_redeals = self.layout.slice("redeals_left")

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        self.grid: list[list[int]] = []  # grid[row][column], row 0 dealt first
        self.pack = pack[::-1]  # pack[-1] is the next card dealt
        self.foundations: list[list[int]] = [[] for _ in FOUNDATIONS.piles]  # cards bottom first
        self.redeals = 0
        self._deal_row()

    def _deal_row(self) -> None:
        pack = self.pack
        row = [pack.pop() if pack else EMPTY for _ in range(N_COLS)]
        self.grid.append(row)

    def pack_order(self) -> list[int]:
        """The pack as a list, first card to be dealt first."""
        return self.pack[::-1]

    # ---- the rules ----------------------------------------------------------------------------

    def is_available(self, row: int, col: int) -> bool:
        """A card lies at (row, col) and the place below it is empty (:func:`released`)."""
        grid = self.grid
        below = grid[row + 1] if row + 1 < len(grid) else _NOT_DEALT
        return row < len(grid) and col in released(grid[row], below)

    def available_places(self) -> list[tuple[int, int]]:
        """Every place holding an available card, with that card, in place order."""
        grid = self.grid
        last = len(grid) - 1
        return [
            (r * N_COLS + c, row[c])
            for r, row in enumerate(grid)
            for c in released(row, grid[r + 1] if r < last else _NOT_DEALT)
        ]

    def card_at(self, p: int) -> int | None:
        """The available card at garden place ``p``, or ``None`` when there is none."""
        r, c = divmod(p, N_COLS)
        return self.grid[r][c] if self.is_available(r, c) else None

    def fits(self, f: int, c: int) -> bool:
        """``c`` goes on foundation ``f`` now: the pile's build (:data:`FOUNDATIONS`), and a card
        that would complete it (a king up, an ace down) only once the suit's other pile is
        started: before that, that card is the one that starts the other pile."""
        piles = self.foundations
        pile = piles[f]
        # FOUNDATIONS.accepts(piles, f, c), read straight from its table: this is the hot path.
        return _BUILD[f][pile[-1] if pile else NO_TOP][c] and (
            RANK[c] != _LAST_RANK[f] or bool(piles[_OTHER_PILE[f]])
        )

    def _may_deal(self) -> bool:
        return bool(self.pack)

    def _may_redeal(self) -> bool:
        """The pack is out, a re-deal is left, and the garden holds cards to gather."""
        if self.pack or self.redeals == N_REDEALS:
            return False
        return any(x != EMPTY for row in self.grid for x in row)

    def is_legal(self, action: int) -> bool:
        move = TABLE[action]
        match move.kind:
            case Kind.UP | Kind.DOWN:
                x = self.card_at(move.src)
                return x is not None and self.fits(move.dst + SUIT[x], x)
            case Kind.DEAL:
                return self._may_deal()
            case Kind.REDEAL:
                return self._may_redeal()
            case _:
                assert_never(move.kind)

    def mark_legal(self, mask: np.ndarray) -> None:
        fits = self.fits
        for p, x in self.available_places():
            up, down = SUIT_PILES[x]
            if fits(up, x):
                mask[_UP0 + p] = True
            if fits(down, x):
                mask[_DOWN0 + p] = True
        mask[_DEAL] = self._may_deal()
        mask[_REDEAL] = self._may_redeal()

    def _apply(self, move: Move[Kind]) -> None:
        match move.kind:
            case Kind.UP | Kind.DOWN:
                r, c = divmod(move.src, N_COLS)
                x = self.grid[r][c]
                self.grid[r][c] = EMPTY  # a vacancy, never refilled
                self.foundations[move.dst + SUIT[x]].append(x)
            case Kind.DEAL:
                self._deal_row()
            case Kind.REDEAL:
                self.pack = gather(self.grid)[::-1]
                self.grid = []
                self.redeals += 1
                self._deal_row()  # automatic: the first row of the new pack
            case _:
                assert_never(move.kind)

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return count_cards(self.foundations)

    def garden_cards(self) -> list[int]:
        return [x for row in self.grid for x in row if x != EMPTY]

    def unseen_positions(self) -> list[int]:
        """The pack's cards not dealt yet, until a re-deal gathers the garden (cards all seen)."""
        return self.undealt_positions(len(self.pack) * (self.redeals == 0))

    def cards_in_play(self) -> list[int]:
        return self.garden_cards() + self.pack + [x for pile in self.foundations for x in pile]

    def describe(self, action: int) -> str:
        move = TABLE[action]
        match move.kind:
            case Kind.UP | Kind.DOWN:
                # The card lying at the place names the move, available or not.
                r, c = divmod(move.src, N_COLS)
                x = self.grid[r][c] if r < len(self.grid) else EMPTY
                return move.text if x == EMPTY else f"{NAME[x]} {move.text}"
            case Kind.DEAL | Kind.REDEAL:
                return move.text
            case _:
                assert_never(move.kind)

    def extra_info(self) -> dict[str, Any]:
        return {"redeals_left": N_REDEALS - self.redeals}

    def observe(self, out: np.ndarray) -> None:
        seen = [0] * N_KINDS  # copies of each card on the table
        hot: list[int] = []
        o_garden = self._o_garden
        for r, row in enumerate(self.grid):
            for c, x in enumerate(row):
                if x != EMPTY:
                    hot.append(o_garden + (r * N_COLS + c) * N_KINDS + x)
                    seen[x] += 1
        hot += [self._o_avail + p for p, _ in self.available_places()]
        out[hot] = 1.0
        for pile in self.foundations:
            for x in pile:
                seen[x] += 1
        out[self._s_unseen] = (2 - np.array(seen)) / 2.0
        out[self._s_rows] = len(self.grid) / N_ROWS
        out[self._s_found] = [len(pile) / 13.0 for pile in self.foundations]
        out[self._s_pack] = len(self.pack) / N_CARDS
        out[self._s_redeals] = (N_REDEALS - self.redeals) / N_REDEALS
        if self.recall and self.redeals:  # the first deal's pack was never seen
            for part, rows in zip(self._s_recall, pile_rows(self.pack), strict=True):
                out[part] = rows

    def render(self) -> str:
        def top(f: int) -> str:
            pile = self.foundations[f]
            return NAME[pile[-1]] if pile else "--" + SUITS[f % N_SUITS]

        lines = [
            f"Babette  re-deals left {N_REDEALS - self.redeals}  pack: {len(self.pack)} cards",
            f"up foundations: {' '.join(map(top, range(N_SUITS)))}   "
            f"down foundations: {' '.join(map(top, range(N_SUITS, 2 * N_SUITS)))}",
            "garden (* available, .. empty):",
            "     " + " ".join(f"c{c} " for c in range(N_COLS)).rstrip(),
        ]
        if self.recall and self.redeals and self.pack:  # seen as it was gathered
            lines.insert(2, "pack, next first: " + " ".join(NAME[x] for x in reversed(self.pack)))
        avail = {p for p, _ in self.available_places()}
        for r, row in enumerate(self.grid):
            cells = [
                ".. " if x == EMPTY else NAME[x] + ("*" if r * N_COLS + c in avail else " ")
                for c, x in enumerate(row)
            ]
            lines.append(f"r{r:<2}  " + " ".join(cells).rstrip())
        return "\n".join(lines)
