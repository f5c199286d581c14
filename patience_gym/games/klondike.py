"""Klondike ("Canfield or Klondike", Cadogan; docs/rules.md section 1). One pack.

Rules in brief. Seven piles are dealt as a staircase (pile i: i+1 cards, the last face up), the
other 24 cards are the stock. Foundations build up in suit from the aces; piles build down in
alternating colours, never an ace on a two; a pile's face-up cards move together unless
``partial_moves=True``; only a king or a king-headed build fills an empty pile; a face-down card
left last turns up. The stock is turned ``draw`` cards at a time onto the talon (its top card is
available), ``passes`` times (``None``: without limit). Won with all 52 cards on the foundations.
``stock="known"`` (not the book's rule: its stock is face down) shows the stock's cards and their
order, as the published Klondike planners assume ("K+"); the play is the same.
``worrying_back=True`` (not the book's rule: its foundation cards never come back) lets a
foundation's top card come back onto a pile, as Solvitaire's and lonelybot's Klondike allow.

Action table (58 ids; 86 with ``worrying_back=True``, the same 58 then 28 more):

====== ===================================================================
id     move
====== ===================================================================
0      talon -> foundation
1-7    pile i -> foundation (the pile's last card)
8-14   talon -> pile j
15     stock: turn ``draw`` cards onto the talon, or, when the stock is out
       and a pass is left, turn the talon over to make a new stock
16-57  pile i -> pile j (i != j, ordered i-major): the whole face-up build,
       or with ``partial_moves`` the run headed by the one card that fits j
====== ===================================================================

A pile-to-pile move names no card: on a non-empty pile only one card of a build can fit (one rank
lower, other colour), and a king can only head a build, so ``(i, j)`` fixes the move.

Observation segments (``layout.describe()``, 690 floats): ``card_place`` (52, 13), one place per
card: face up in pile 0-6, foundation, talon top, second and third from the top (fanned, so their
order is seen, as the render shows), below those three (seen when turned), or not visible (face
down, or in the stock); then ``face_down`` (7,) / 6, ``foundation`` (4,) / 13, ``stock_size`` and
``talon_size`` / 24, ``passes_left`` (new passes still allowed / (passes - 1); 1 when unlimited).
With ``stock="known"`` (742 floats) one more segment follows, ``stock_order`` (52,): each stock
card's turn in the stock, (k + 1) / 24 for the card the k-th next turn takes up (k = 0: the next
card), 0 for a card not in the stock. ``card_place`` is the same under both values (a stock card
stays at "not visible (face down in a pile, or in the stock)"), so the hidden observation is the
known one's first 690 floats.

Choices where docs/rules.md is silent (documented there, tested):

- A king-headed build that already lies at the bottom of its pile may not move into another
  empty pile: that only swaps two piles' places, and allowing it would let every stuck game
  shuffle a king between spaces until the step limit instead of ending as lost (every allowed
  action must change the state; OpenSpiel and Solvitaire leave the move out too).
- A new pass costs an action of its own (id 15 with an empty stock); the next id 15 turns cards.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import ACE, KING, N_KINDS, NAME, RANK, SUIT, SUITS, card, card_name
from patience_gym.core.foundations import EMPTY, FoundationRow, Pile, count_cards
from patience_gym.core.game import Game, ObsLayout, Option, positive_int_or_none
from patience_gym.core.moves import Move, MoveTable, assert_never, group
from patience_gym.core.places import TALON_PLACES, CardPlaces
from patience_gym.core.vocabulary import ALTERNATE_DOWN, SAME_SUIT_UP

N_PILES = 7
N_STOCK = 24  # 52 less the 28 dealt to the piles
_PILES = range(N_PILES)

# ---- the foundations ----------------------------------------------------------------------------

#: One pile per suit (C D H S), from the suit's ace up in suit: card c goes to pile ``SUIT[c]``.
FOUNDATIONS = FoundationRow(tuple(Pile(SAME_SUIT_UP, starts=frozenset({card(ACE, s)})) for s in range(4)))
_BUILD = FOUNDATIONS.fits  # _BUILD[f][top card, or EMPTY][c]

# ---- the tableau --------------------------------------------------------------------------------


def fits_tableau(c: int, last: int) -> bool:
    """Card ``c`` may go on a pile ending in ``last`` (``EMPTY``: an empty pile): a king fills a
    space; otherwise one rank lower in the other colour, and never an ace on a two."""
    if last == EMPTY:
        return RANK[c] == KING
    return RANK[c] != ACE and ALTERNATE_DOWN.table[last][c]


#: The rule as tables: _FITS_TABLEAU[last][c] (``last`` = ``EMPTY`` for an empty pile), and
#: _TAKES[last], the cards that may go on ``last``, so the fast mask looks takers up by card.
_FITS_TABLEAU = tuple(tuple(fits_tableau(c, last) for c in range(N_KINDS)) for last in range(N_KINDS + 1))
_TAKES = tuple(tuple(c for c in range(N_KINDS) if fits[c]) for fits in _FITS_TABLEAU)

# ---- the action table ---------------------------------------------------------------------------


class Kind(Enum):
    TALON_TO_FOUNDATION = "talon -> foundation"
    PILE_TO_FOUNDATION = "pile -> foundation"
    TALON_TO_PILE = "talon -> pile"
    STOCK = "stock"  # turn cards onto the talon, or start a new pass
    PILE_TO_PILE = "pile -> pile"
    FOUNDATION_TO_PILE = "foundation -> pile"  # worrying_back=True only


_GROUPS = (
    group(Kind.TALON_TO_FOUNDATION, "talon -> foundation"),
    group(Kind.PILE_TO_FOUNDATION, "pile {0} -> foundation", [(i, -1) for i in _PILES]),
    group(Kind.TALON_TO_PILE, "talon -> pile {1}", [(-1, j) for j in _PILES]),
    group(Kind.STOCK, "stock -> talon"),
    group(Kind.PILE_TO_PILE, "pile {0} -> pile {1}", [(i, j) for i in _PILES for j in _PILES if i != j]),
)
TABLE = MoveTable.build(*_GROUPS)
#: With ``worrying_back=True``: the same table, then "foundation f -> pile j" (f-major, f the suit
#: in C D H S order, as FOUNDATIONS), appended so that every other id stays.
TABLE_WORRYING = MoveTable.build(
    *_GROUPS,
    (
        Kind.FOUNDATION_TO_PILE,
        [
            Move(Kind.FOUNDATION_TO_PILE, f, j, f"foundation {SUITS[f]} -> pile {j}")
            for f in range(4)
            for j in _PILES
        ],
    ),
)
_TALON_F, _PILE_F0 = TABLE.first[Kind.TALON_TO_FOUNDATION], TABLE.first[Kind.PILE_TO_FOUNDATION]
_TALON_P0, _STOCK = TABLE.first[Kind.TALON_TO_PILE], TABLE.first[Kind.STOCK]
_FOUND_P0 = TABLE_WORRYING.first[Kind.FOUNDATION_TO_PILE]
_IDS = {(TABLE[a].src, TABLE[a].dst): a for a in TABLE.ids(Kind.PILE_TO_PILE)}
#: _PILE_P[i][j]: the action "pile i -> pile j", read off the table (-1 for i == j).
_PILE_P = tuple(tuple(_IDS.get((i, j), -1) for j in _PILES) for i in _PILES)

# ---- the observation ----------------------------------------------------------------------------

# Where each card is. The talon's top three lie fanned (the render shows them in order), so each has
# a place of its own; the cards below them were seen when turned, in the stock's order.
PLACES = CardPlaces(
    [
        *(f"pile {i} face up" for i in range(N_PILES)),
        "foundation",
        *TALON_PLACES,
        "not visible (face down in a pile, or in the stock)",
    ],
    n_packs=1,
)
_FOUNDATION, _TALON_TOP, _HIDDEN = N_PILES, N_PILES + 1, N_PILES + 5
#: The segments after ``card_place``, each a count or a fraction, side by side in this order.
COUNTS = ("face_down", "foundation", "stock_size", "talon_size", "passes_left")
_SEGMENTS: list[tuple[str, tuple[int, ...], str]] = [
    ("card_place", PLACES.shape, PLACES.doc()),
    ("face_down", (N_PILES,), "face-down cards under each pile's face-up build / 6"),
    ("foundation", (4,), "cards on each suit's foundation (C D H S) / 13"),
    ("stock_size", (1,), "cards in the stock / 24"),
    ("talon_size", (1,), "cards in the talon / 24"),
    ("passes_left", (1,), "new passes still allowed / (passes - 1); 1 when unlimited"),
]
#: The observation with the stock hidden (the book's rule), and with it known: one segment more
#: after the same ones (the native engine's generated spec lets a layout grow only at its end).
LAYOUT = ObsLayout(_SEGMENTS)
LAYOUT_KNOWN_STOCK = ObsLayout(
    [
        *_SEGMENTS,
        (
            "stock_order",
            (N_KINDS,),
            "stock=known only: (k + 1) / 24 for the card the k-th next turn takes up, 0 off the stock",
        ),
    ]
)


class Klondike(Game[Kind]):
    """Klondike on the rules of docs/rules.md section 1 (see the module docstring for the table)."""

    name = "Klondike"
    n_packs = 1
    win_cards = 52
    default_max_steps = 500
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {
        "draw": Option(1, "cards turned from the stock at once; only the top one is available", (1, 3)),
        "passes": Option(
            1,
            "times the stock may be gone through (None: without limit)",
            check=positive_int_or_none,
            allowed="a whole number >= 1, or None for unlimited",
        ),
        "partial_moves": Option(
            False, "any face-up run from a pile's end may move (PySolFC, OpenSpiel)", (False, True)
        ),
        "stock": Option(
            "hidden",
            "'known' is NOT THE BOOK'S RULE (Cadogan's stock is face down): the stock's cards and "
            "their order are shown (observation, render), as the published planners assume ('K+'), "
            "so that figures stand beside theirs; the play is unchanged",
            ("hidden", "known"),
            house_rules=("known",),
            view_only=True,
        ),
        "worrying_back": Option(
            False,
            "True is NOT THE BOOK'S RULE (Cadogan: foundation cards never come back): a foundation's "
            "top card may come back onto a pile where it fits (actions 58-85), as Solvitaire's and "
            "lonelybot's Klondike allow, so that figures stand beside theirs",
            (False, True),
            house_rules=(True,),
        ),
    }
    STATE = ("piles", "down", "stock", "talon", "foundations", "passes_used")
    moves = TABLE.moves  # TABLE_WORRYING's with worrying_back=True (configure)
    layout = LAYOUT  # LAYOUT_KNOWN_STOCK with stock="known" (configure)

    def configure(
        self, *, draw: int, passes: int | None, partial_moves: bool, stock: str, worrying_back: bool
    ) -> None:
        self.draw = draw
        self.passes = passes
        self.partial = partial_moves
        self.known_stock = stock == "known"
        self.worrying = worrying_back
        if worrying_back:
            self.moves = TABLE_WORRYING.moves
        if self.known_stock:
            self.layout = LAYOUT_KNOWN_STOCK
            self._o_stock = self.layout.offset("stock_order")
        self._o_places = self.layout.offset("card_place")
        # The counts go in with one write (see observe): COUNTS must lie side by side.
        segs = [self.layout[name] for name in COUNTS]
        assert [s.stop for s in segs[:-1]] == [s.start for s in segs[1:]], COUNTS
        self._s_counts = slice(segs[0].start, segs[-1].stop)

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        self.piles: list[list[int]] = [[] for _ in _PILES]
        it = iter(pack)
        for row in range(N_PILES):
            for i in range(row, N_PILES):
                self.piles[i].append(next(it))
        self.down = [i for i in range(N_PILES)]  # all but the last card of pile i
        rest = list(it)
        self.stock = rest[::-1]  # stock[-1] is the next card turned
        self.talon: list[int] = []
        self.foundations: list[list[int]] = [[] for _ in FOUNDATIONS.piles]  # cards bottom first
        self.passes_used = 1

    # ---- the rules ----------------------------------------------------------------------------

    def _to_foundation(self, c: int) -> bool:
        """``c`` goes on its suit's foundation now."""
        pile = self.foundations[SUIT[c]]
        # FOUNDATIONS.accepts(self.foundations, SUIT[c], c), read off its table (the mask's hot path)
        return _BUILD[SUIT[c]][pile[-1] if pile else EMPTY][c]

    def _to_pile(self, c: int, j: int) -> bool:
        pile = self.piles[j]
        return _FITS_TABLEAU[pile[-1] if pile else EMPTY][c]  # fits_tableau, read off its table

    def _may_turn(self) -> bool:
        """Cards are left in the stock, or the talon may be turned over for a new pass."""
        return bool(self.stock) or (
            bool(self.talon) and (self.passes is None or self.passes_used < self.passes)
        )

    def _heads(self, i: int) -> range:
        """Indices in (non-empty) pile i of the cards that may head a move: the whole face-up
        build's first card, or with ``partial_moves`` any face-up card."""
        first = self.down[i]
        return range(first, len(self.piles[i]) if self.partial else first + 1)

    def _only_swaps(self, i: int, j: int) -> bool:
        """Moving pile i's face-up cards to pile j would only swap two piles' places: the whole
        of pile i into an empty pile."""
        return self.down[i] == 0 and not self.piles[j]

    def _run_start(self, i: int, j: int) -> int:
        """Index in pile i of the card that would head a move to pile j, or -1."""
        pile = self.piles[i]
        if not pile or self._only_swaps(i, j):
            return -1
        for k in self._heads(i):
            if self._to_pile(pile[k], j):
                return k
        return -1

    def _back(self, f: int, j: int) -> bool:
        """Foundation f's top card may come back onto pile j (``worrying_back``): it fits j as any
        card would (:meth:`_to_pile`)."""
        pile = self.foundations[f]
        return bool(pile) and self._to_pile(pile[-1], j)

    def is_legal(self, action: int) -> bool:
        move = self.moves[action]
        match move.kind:
            case Kind.STOCK:
                return self._may_turn()
            case Kind.TALON_TO_FOUNDATION:
                return bool(self.talon) and self._to_foundation(self.talon[-1])
            case Kind.TALON_TO_PILE:
                return bool(self.talon) and self._to_pile(self.talon[-1], move.dst)
            case Kind.PILE_TO_FOUNDATION:
                pile = self.piles[move.src]
                return bool(pile) and self._to_foundation(pile[-1])
            case Kind.PILE_TO_PILE:
                return self._run_start(move.src, move.dst) >= 0
            case Kind.FOUNDATION_TO_PILE:
                return self._back(move.src, move.dst)
            case _:
                assert_never(move.kind)

    def _takers(self) -> dict[int, list[int]]:
        """For each card, the piles :meth:`_to_pile` lets it go on now (from :data:`_TAKES`)."""
        takers: dict[int, list[int]] = {}
        for j, pile in enumerate(self.piles):
            for c in _TAKES[pile[-1] if pile else EMPTY]:
                takers.setdefault(c, []).append(j)
        return takers

    def mark_legal(self, mask: np.ndarray) -> None:
        """The rules of :meth:`is_legal`, enumerated by card instead of id by id: each pile's last
        card takes one of two cards (one rank lower, other colour), an empty pile a king, so
        indexing the takers by card turns the 42 pile-to-pile checks into a look-up per card that
        could move."""
        takers = self._takers()
        legal: list[int] = []
        if self._may_turn():
            legal.append(_STOCK)
        if self.talon:
            t = self.talon[-1]
            if self._to_foundation(t):
                legal.append(_TALON_F)
            legal.extend(_TALON_P0 + j for j in takers.get(t, ()))
        for i, pile in enumerate(self.piles):
            if not pile:
                continue
            if self._to_foundation(pile[-1]):
                legal.append(_PILE_F0 + i)
            row = _PILE_P[i]
            for k in self._heads(i):
                for j in takers.get(pile[k], ()):  # j != i: a pile never takes its own cards
                    if not self._only_swaps(i, j):
                        legal.append(row[j])
        if self.worrying:
            self._mark_back(takers, legal)
        mask[legal] = True

    def _mark_back(self, takers: dict[int, list[int]], legal: list[int]) -> None:
        """:meth:`mark_legal`'s foundation -> pile moves (:meth:`_back`): each foundation's top card
        to the piles that take it."""
        for f, pile in enumerate(self.foundations):
            if pile:
                legal.extend(_FOUND_P0 + N_PILES * f + j for j in takers.get(pile[-1], ()))

    def _apply(self, move: Move[Kind]) -> None:
        match move.kind:
            case Kind.STOCK:
                if self.stock:
                    for _ in range(min(self.draw, len(self.stock))):
                        self.talon.append(self.stock.pop())
                else:  # a new pass: the talon turned over, no shuffle
                    self.stock = self.talon[::-1]
                    self.talon = []
                    # Without a limit only "is the first pass over" matters (the stock's cards
                    # are seen): the count stops at 2, so a cycle guard meets later passes again.
                    self.passes_used = self.passes_used + 1 if self.passes is not None else 2
            case Kind.TALON_TO_FOUNDATION:
                c = self.talon.pop()
                self.foundations[SUIT[c]].append(c)
            case Kind.TALON_TO_PILE:
                self.piles[move.dst].append(self.talon.pop())
            case Kind.PILE_TO_FOUNDATION:
                c = self.piles[move.src].pop()
                self.foundations[SUIT[c]].append(c)
                self._flip(move.src)
            case Kind.PILE_TO_PILE:
                src = self.piles[move.src]
                k = self._run_start(move.src, move.dst)
                self.piles[move.dst].extend(src[k:])
                del src[k:]
                self._flip(move.src)
            case Kind.FOUNDATION_TO_PILE:
                self.piles[move.dst].append(self.foundations[move.src].pop())
            case _:
                assert_never(move.kind)

    def _flip(self, i: int) -> None:
        """Automatic step: a face-down card that becomes the last of its pile turns face up."""
        if self.down[i] and self.down[i] == len(self.piles[i]):
            self.down[i] -= 1

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return count_cards(self.foundations)

    @property
    def counter_score(self) -> int:
        """The book's counter score: -52 + 5 per card on the foundations."""
        return -52 + 5 * self.foundation_cards

    def extra_info(self) -> dict[str, Any]:
        return {"counter_score": self.counter_score}

    def moving_card(self, move: Move[Kind]) -> int | None:
        match move.kind:
            case Kind.TALON_TO_FOUNDATION | Kind.TALON_TO_PILE:
                return self.talon[-1] if self.talon else None
            case Kind.PILE_TO_FOUNDATION:
                pile = self.piles[move.src]
                return pile[-1] if pile else None
            case Kind.PILE_TO_PILE:
                # The card that would head the move; when none fits, the build's first card.
                k = self._run_start(move.src, move.dst)
                if k < 0 and self.piles[move.src]:
                    k = self.down[move.src]
                return self.piles[move.src][k] if k >= 0 else None
            case Kind.FOUNDATION_TO_PILE:
                pile = self.foundations[move.src]
                return pile[-1] if pile else None
            case Kind.STOCK:
                return None
            case _:
                assert_never(move.kind)

    def describe(self, action: int) -> str:
        if self.moves[action].kind is Kind.STOCK and not self.stock:
            return "talon turned over -> stock (new pass)"
        return super().describe(action)

    def observe(self, out: np.ndarray) -> None:
        index = PLACES.index
        hidden = self.stock[:]
        where: list[int] = []
        for i, pile in enumerate(self.piles):
            if pile:
                d = self.down[i]
                hidden += pile[:d]
                where += index(i, pile[d:])
        where += index(_HIDDEN, hidden)
        where += index(_FOUNDATION, [c for pile in self.foundations for c in pile])
        where += PLACES.talon(_TALON_TOP, self.talon)
        PLACES.write(out, self._o_places, where)
        if self.passes is None:
            left = 1.0
        else:
            left = (self.passes - self.passes_used) / (self.passes - 1) if self.passes > 1 else 0.0
        out[self._s_counts] = (
            [d / 6.0 for d in self.down]
            + [len(pile) / 13.0 for pile in self.foundations]
            + [len(self.stock) / N_STOCK, len(self.talon) / N_STOCK, left]
        )
        if self.known_stock:
            o = self._o_stock
            for k, c in enumerate(reversed(self.stock)):  # stock[-1] is turned next
                out[o + c] = (k + 1) / N_STOCK

    def unseen_positions(self) -> list[int]:
        """The face-down pile cards, then the stock's cards until a new pass turns the (seen) talon
        over; with ``stock="known"`` the face-down pile cards alone.

        The deal goes row by row: row ``r`` of pile ``i`` (``i >= r``) is the pack's card
        ``7r - r(r-1)/2 + i - r``.
        """
        return self._not_turned_up(with_stock=not self.known_stock)

    def unshown_positions(self) -> list[int]:
        """The face-down pile cards, then the stock's cards until a new pass, known or not."""
        return self._not_turned_up(with_stock=True)

    def _not_turned_up(self, with_stock: bool) -> list[int]:
        unseen_stock = self.passes_used == 1 and with_stock  # a new pass: all seen
        stock = self.undealt_positions(len(self.stock) if unseen_stock else 0)
        return [7 * r - r * (r - 1) // 2 + i - r for i in _PILES for r in range(self.down[i])] + stock

    def cards_in_play(self) -> list[int]:
        found = [c for pile in self.foundations for c in pile]
        return [c for p in self.piles for c in p] + self.stock + self.talon + found

    def render(self) -> str:
        found = " ".join(
            card_name(pile[-1]) if pile else "--" + SUITS[s] for s, pile in enumerate(self.foundations)
        )
        passes = "unlimited" if self.passes is None else f"{self.passes_used}/{self.passes}"
        lines = [
            f"Klondike  draw {self.draw}  pass {passes}  foundations: {found}",
            f"stock: {len(self.stock)} cards   talon: "
            + (" ".join(NAME[c] for c in self.talon[-3:]) if self.talon else "(empty)"),
        ]
        if self.known_stock:
            order = " ".join(NAME[c] for c in reversed(self.stock)) if self.stock else "(empty)"
            lines.append(f"stock (known), next first: {order}")
        for i, pile in enumerate(self.piles):
            d = self.down[i]
            lines.append(f"pile {i}: " + " ".join(["##"] * d + [NAME[c] for c in pile[d:]]))
        return "\n".join(lines)
