"""The Congress (Cadogan, fragment; docs/rules.md section 7). Two packs.

Rules in brief. The eight aces are set out as foundations (C D H S C D H S), each built up in suit
to K. Four **helps** (packets whose top card alone is available) and a row of eight **rivers** are
dealt; further rows of rivers cover the ones above, so only a river column's last card is
available. River cards and help tops go to the foundations; a river card or a help top may be
married onto a help's top (same suit, one rank lower); help cards never go to the rivers. While the
pack lasts, **refill** fills the gaps (river gaps from the uppermost row, left to right, then help
gaps) and **deal next row** refills and then deals up to 8 cards. Once the pack is exhausted there
are eight help places, and any available river card may start a help in an empty one. No re-deal;
won when the 96 cards dealt are on the foundations.

Action table (138 ids, fixed). Refill and deal come before the help-to-help marriages so that a
greedy policy breaking ties by the lowest id turns to the pack rather than to a back-and-forth
between helps:

======= ===================================================================
id      move
======= ===================================================================
0-7     river c -> foundation (the column's last card)
8-15    help h -> foundation (its top card)
16-79   river c -> help h (ordered c-major): married onto the help's top,
        or, once the pack is exhausted, starting a help in the empty place h
80      refill the gaps from the pack
81      deal the next row (refill first)
82-137  help h -> help k (h != k, ordered h-major): married onto k's top
======= ===================================================================

Observation segments (``layout.describe()``, 1892 floats):

- ``card_place`` (52, 18): copies of each card / 2 in river column 0-7, help 0-7, on a
  foundation, or in the pack (not visible: which cards remain, never their order).
- ``river_last`` (8, 52): one-hot of each column's available card; ``help_top`` (8, 52):
  one-hot of each help's top card.
- ``river_grid`` (12, 8): every river place row by row, (card id + 1) / 52, 0 when empty, so the
  order inside a column is visible.
- ``river_len`` (8,): cards per column / 12; ``help_size`` (8,): cards per help / 12;
  ``foundation_rank`` (8,): top rank / 13.
- ``pack_size`` (1,): / 84; ``rows`` (1,): rows dealt / 12; ``gaps`` (1,): 1 when a refill is
  possible; ``pack_exhausted`` (1,): 1 when eight help places are open to the rivers.

Choices where docs/rules.md is silent (documented, tested):

- **Foundation.** A card goes to the leftmost foundation of its suit that accepts it; when both
  accept it their tops are equal, and foundation cards never move again, so the choice would
  change nothing.
- **Gaps.** A river gap is a place in the grid of rows dealt so far that holds no card; since only
  the last card of a column moves, a column's gaps are always below its cards. Refills keep that
  shape. Help places 4-7 never count as gaps (they open only when the pack is exhausted).
- **Refill** is legal only when there is a gap (it must change the state); **deal next row** is
  legal whenever the pack has cards, gaps or none.
- **Starting a help** is for river cards only ("any available river card"); a help card is never
  moved into an empty help place.
- **Help to help** marriages may be undone (a 5H moved from a help onto another help's 6H may go
  back when the help it left shows the other 6H); the rule book allows them, so the step limit
  (600, far beyond a sensible game's 96 foundation moves, at most 96 river-to-help moves and at
  most 84 refills and deals) ends such back-and-forth play.
- **Score and win count** leave out the eight aces set out before the deal: ``foundation_cards``
  counts cards played there (0 at the start), and 96 of them win.
"""

from __future__ import annotations

from enum import Enum
from itertools import permutations, product
from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import ACE, NAME, SUIT, card, card_name, take_out
from patience_gym.core.foundations import FoundationRow, Pile, count_cards, top_cards
from patience_gym.core.game import Game, ObsLayout, Option
from patience_gym.core.moves import Move, MoveTable, assert_never, group
from patience_gym.core.places import CardPlaces
from patience_gym.core.vocabulary import SAME_SUIT_DOWN, SAME_SUIT_UP

N_COLS, N_HELPS, N_HELPS_EARLY, N_FOUND = 8, 8, 4, 8
N_PACK = 104 - N_FOUND - N_HELPS_EARLY - N_COLS  # 84
MAX_ROWS = 12  # 1 + ceil(84 / 8): at most 12 rows are ever dealt
MAX_HELP = 12  # a K down to a 2
ACES = tuple(card(ACE, s) for s in range(4)) * 2

#: The foundations: the eight aces set out before the deal (never empty), built up in suit.
FOUNDATIONS = FoundationRow(tuple(Pile(SAME_SUIT_UP) for _ in ACES))
#: The piles that may take a card: the two of its suit (pile f holds suit f % 4 from the deal).
_SUIT_PILES = tuple((SUIT[c], SUIT[c] + 4) for c in range(52))
#: The marriage rule, as a table: ``MARRY[top][c]`` when c is of top's suit and one rank lower.
MARRY = SAME_SUIT_DOWN.table
_NOTHING = (False,) * 52
_ANYTHING = (True,) * 52


class Kind(Enum):
    RIVER_TO_FOUNDATION = "river -> foundation"
    HELP_TO_FOUNDATION = "help -> foundation"
    RIVER_TO_HELP = "river -> help"
    REFILL = "refill"
    DEAL = "deal"
    HELP_TO_HELP = "help -> help"


TABLE = MoveTable.build(
    group(Kind.RIVER_TO_FOUNDATION, "river {0} -> foundation", [(c, -1) for c in range(N_COLS)]),
    group(Kind.HELP_TO_FOUNDATION, "help {0} -> foundation", [(h, -1) for h in range(N_HELPS)]),
    group(Kind.RIVER_TO_HELP, "river {0} -> help {1}", product(range(N_COLS), range(N_HELPS))),
    group(Kind.REFILL, "refill gaps from the pack"),
    group(Kind.DEAL, "deal the next row"),
    group(Kind.HELP_TO_HELP, "help {0} -> help {1}", permutations(range(N_HELPS), 2)),
)
_RIVER_F, _HELP_F = TABLE.first[Kind.RIVER_TO_FOUNDATION], TABLE.first[Kind.HELP_TO_FOUNDATION]
_REFILL, _DEAL = TABLE.first[Kind.REFILL], TABLE.first[Kind.DEAL]
#: ``_RIVER_HELP[c]``: (help, action) of every move from river column c to a help, and
#: ``_HELP_HELP``: (action, help, help) of every help-to-help move, read off the table.
_RIVER_HELP = TABLE.by_source(Kind.RIVER_TO_HELP, range(N_COLS))
_HELP_HELP = tuple((a, TABLE[a].src, TABLE[a].dst) for a in TABLE.ids(Kind.HELP_TO_HELP))

# Observation: where the copies of each card are.
PLACES = CardPlaces(
    [f"river {c}" for c in range(N_COLS)]
    + [f"help {h}" for h in range(N_HELPS)]
    + ["foundation", "pack (not visible)"],
    n_packs=2,
)
_HELP, _FOUNDATION, _PACK = N_COLS, N_COLS + N_HELPS, N_COLS + N_HELPS + 1


class Congress(Game[Kind]):
    """The Congress on the rules of docs/rules.md section 7 (see the module docstring)."""

    name = "Congress"
    n_packs = 2
    win_cards = 96
    default_max_steps = 600  # stops endless help-to-help back-and-forth
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {}
    STATE = ("rivers", "helps", "pack", "foundations", "rows")
    moves = TABLE.moves
    layout = ObsLayout(
        [
            ("card_place", PLACES.shape, PLACES.doc()),
            ("river_last", (N_COLS, 52), "one-hot of each river column's available (last) card"),
            ("help_top", (N_HELPS, 52), "one-hot of each help's top card"),
            ("river_grid", (MAX_ROWS, N_COLS), "river cards row by row: (card id + 1) / 52, 0 empty"),
            ("river_len", (N_COLS,), "cards in each river column / 12"),
            ("help_size", (N_HELPS,), "cards in each help / 12"),
            ("foundation_rank", (N_FOUND,), "rank of each foundation's top card / 13 (C D H S C D H S)"),
            ("pack_size", (1,), "cards in the pack / 84"),
            ("rows", (1,), "rows of rivers dealt / 12"),
            ("gaps", (1,), "1 when a gap waits for a refill (and the pack has cards)"),
            ("pack_exhausted", (1,), "1 once the pack is exhausted: eight help places open"),
        ]
    )

    def configure(self) -> None:
        # Offsets looked up by name: observe adds the offset of the segment it writes.
        off = self.layout.offset
        self._o_place, self._o_last, self._o_top = off("card_place"), off("river_last"), off("help_top")
        self._o_grid, self._o_len, self._o_size = off("river_grid"), off("river_len"), off("help_size")
        self._o_found, self._o_pack, self._o_rows = off("foundation_rank"), off("pack_size"), off("rows")
        self._o_gaps, self._o_exhausted = off("gaps"), off("pack_exhausted")

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        rest = list(pack)
        take_out(rest, ACES)
        self.foundations: list[list[int]] = [[a] for a in ACES]
        self.helps: list[list[int]] = [[c] for c in rest[:N_HELPS_EARLY]] + [[] for _ in range(4)]
        row = rest[N_HELPS_EARLY : N_HELPS_EARLY + N_COLS]
        self.rivers: list[list[int]] = [[c] for c in row]
        self.rows = 1
        self.pack: list[int] = rest[N_HELPS_EARLY + N_COLS :][::-1]  # pack[-1] is the next card

    # ---- the rules ----------------------------------------------------------------------------
    # The available cards are the rivers' and the helps' top cards (top_cards, -1: empty).

    def _foundation_for(self, c: int) -> int:
        """The leftmost foundation that accepts ``c``, or -1."""
        return FOUNDATIONS.first_accepting(self.foundations, c, _SUIT_PILES[c])

    def _help_takes_from_rivers(self, h: int) -> tuple[bool, ...]:
        """Which river cards help ``h`` takes now (by card id): married onto its top, or, once the
        pack is exhausted, any card starting it."""
        help_ = self.helps[h]
        if help_:
            return MARRY[help_[-1]]
        return _NOTHING if self.pack else _ANYTHING

    def _help_takes_from_helps(self, h: int) -> tuple[bool, ...]:
        """Which help top cards help ``h`` takes now: married onto its top; an empty help is
        started from the rivers only."""
        help_ = self.helps[h]
        return MARRY[help_[-1]] if help_ else _NOTHING

    def _has_gap(self) -> bool:
        rows = self.rows
        return any(len(col) < rows for col in self.rivers) or not all(self.helps[:N_HELPS_EARLY])

    def _may_refill(self) -> bool:
        return bool(self.pack) and self._has_gap()

    def _may_deal(self) -> bool:
        return bool(self.pack)

    def is_legal(self, action: int) -> bool:
        move = TABLE[action]
        match move.kind:
            case Kind.RIVER_TO_FOUNDATION:
                x = top_cards(self.rivers)[move.src]
                return x >= 0 and self._foundation_for(x) >= 0
            case Kind.HELP_TO_FOUNDATION:
                x = top_cards(self.helps)[move.src]
                return x >= 0 and self._foundation_for(x) >= 0
            case Kind.RIVER_TO_HELP:
                x = top_cards(self.rivers)[move.src]
                return x >= 0 and self._help_takes_from_rivers(move.dst)[x]
            case Kind.HELP_TO_HELP:
                x = top_cards(self.helps)[move.src]
                return x >= 0 and self._help_takes_from_helps(move.dst)[x]
            case Kind.REFILL:
                return self._may_refill()
            case Kind.DEAL:
                return self._may_deal()
            case _:
                assert_never(move.kind)

    def mark_legal(self, mask: np.ndarray) -> None:
        """The rules of :meth:`is_legal`, computed place by place instead of id by id."""
        lasts, tops = top_cards(self.rivers), top_cards(self.helps)
        foundation_for = self._foundation_for
        from_rivers = [self._help_takes_from_rivers(h) for h in range(N_HELPS)]
        for c, x in enumerate(lasts):
            if x >= 0:
                mask[_RIVER_F + c] = foundation_for(x) >= 0
                for h, a in _RIVER_HELP[c]:
                    if from_rivers[h][x]:
                        mask[a] = True
        for h, x in enumerate(tops):
            if x >= 0:
                mask[_HELP_F + h] = foundation_for(x) >= 0
        from_helps = [self._help_takes_from_helps(h) for h in range(N_HELPS)]
        for a, h, k in _HELP_HELP:
            x = tops[h]
            if x >= 0 and from_helps[k][x]:
                mask[a] = True
        mask[_REFILL] = self._may_refill()
        mask[_DEAL] = self._may_deal()

    def _refill(self) -> None:
        """River gaps from the uppermost row down, left to right; then help gaps 0-3."""
        pack, rivers = self.pack, self.rivers
        for r in range(self.rows):
            for col in rivers:
                if len(col) == r and pack:  # gaps lie below a column's cards
                    col.append(pack.pop())
        for help_ in self.helps[:N_HELPS_EARLY]:
            if not help_ and pack:
                help_.append(pack.pop())

    def _deal_row(self) -> None:
        """Up to 8 cards, one per river column left to right (the last row may be short)."""
        if self.pack:
            for col in self.rivers:
                if self.pack:
                    col.append(self.pack.pop())
            self.rows += 1

    def _to_foundation(self, c: int) -> None:
        self.foundations[self._foundation_for(c)].append(c)

    def _apply(self, move: Move[Kind]) -> None:
        match move.kind:
            case Kind.RIVER_TO_FOUNDATION:
                self._to_foundation(self.rivers[move.src].pop())
            case Kind.HELP_TO_FOUNDATION:
                self._to_foundation(self.helps[move.src].pop())
            case Kind.RIVER_TO_HELP:
                self.helps[move.dst].append(self.rivers[move.src].pop())
            case Kind.HELP_TO_HELP:
                self.helps[move.dst].append(self.helps[move.src].pop())
            case Kind.REFILL:
                self._refill()
            case Kind.DEAL:
                self._refill()
                self._deal_row()
            case _:
                assert_never(move.kind)

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return count_cards(self.foundations) - N_FOUND

    def moving_card(self, move: Move[Kind]) -> int | None:
        match move.kind:
            case Kind.RIVER_TO_FOUNDATION | Kind.RIVER_TO_HELP:
                col = self.rivers[move.src]
                return col[-1] if col else None
            case Kind.HELP_TO_FOUNDATION | Kind.HELP_TO_HELP:
                help_ = self.helps[move.src]
                return help_[-1] if help_ else None
            case Kind.REFILL | Kind.DEAL:
                return None
            case _:
                assert_never(move.kind)

    def describe(self, action: int) -> str:
        move = TABLE[action]
        if move.kind is Kind.RIVER_TO_HELP and not self.helps[move.dst]:
            return f"{card_name(self.moving_card(move))} river {move.src} -> empty help {move.dst}"
        return super().describe(action)

    def observe(self, out: np.ndarray) -> None:
        where: list[int] = []  # card_place entries, one per copy
        idx: list[int] = []  # every other entry, with its value in val
        val: list[float] = []
        o_last, o_grid, o_len = self._o_last, self._o_grid, self._o_len
        for c, col in enumerate(self.rivers):
            if col:
                where += PLACES.index(c, col)
                idx.extend(range(o_grid + c, o_grid + c + N_COLS * len(col), N_COLS))
                val.extend((x + 1) / 52.0 for x in col)
                idx.append(o_last + 52 * c + col[-1])
                val.append(1.0)
            idx.append(o_len + c)
            val.append(len(col) / MAX_ROWS)
        o_top, o_size = self._o_top, self._o_size
        for h, help_ in enumerate(self.helps):
            if help_:
                where += PLACES.index(_HELP + h, help_)
                idx.append(o_top + 52 * h + help_[-1])
                val.append(1.0)
            idx.append(o_size + h)
            val.append(len(help_) / MAX_HELP)
        o_found = self._o_found
        for f, pile in enumerate(self.foundations):
            where += PLACES.index(_FOUNDATION, pile)
            idx.append(o_found + f)
            val.append(len(pile) / 13.0)
        where += PLACES.index(_PACK, self.pack)
        PLACES.write(out, self._o_place, where)
        idx += (self._o_pack, self._o_rows, self._o_gaps, self._o_exhausted)
        val += (
            len(self.pack) / N_PACK,
            self.rows / MAX_ROWS,
            1.0 if self._may_refill() else 0.0,
            0.0 if self.pack else 1.0,
        )
        out[idx] = val

    def unseen_positions(self) -> list[int]:
        """The pack's cards not dealt yet (every dealt card lies face up)."""
        return self.undealt_positions(len(self.pack), ACES)

    def cards_in_play(self) -> list[int]:
        rivers = [x for col in self.rivers for x in col]
        helps = [x for h in self.helps for x in h]
        return rivers + helps + self.pack + [x for pile in self.foundations for x in pile]

    @staticmethod
    def _pile_text(pile: list[int]) -> str:
        return " ".join(NAME[x] for x in pile) if pile else "--"

    def render(self) -> str:
        found = " ".join(card_name(pile[-1]) for pile in self.foundations)
        lines = [
            f"The Congress  on foundations: {self.foundation_cards}/96   pack: {len(self.pack)} cards",
            f"foundations: {found}",
            "helps: " + "  ".join(f"{h}:" + self._pile_text(help_) for h, help_ in enumerate(self.helps)),
            "rivers:",
        ]
        for r in range(max(self.rows, max((len(c) for c in self.rivers), default=0))):
            lines.append("  " + " ".join(NAME[c[r]] if r < len(c) else ".." for c in self.rivers))
        return "\n".join(lines)
