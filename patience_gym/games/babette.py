"""Babette (Cadogan; RULES.md section 3). Two packs.

Rules in brief. Eight foundations, two per suit: the first ace of a suit to be played starts its
ascending pile (A -> K in suit), the first king its descending pile (K -> A in suit); the second
ace and king of a suit are ordinary cards. The garden is dealt in rows of 8 cards, left to right,
each row covering the one above, so the garden is 8 columns whose last card is available. Dealing
a row is one action (a row is finished before anything is played from it); the last row may be
short. The only move is an available garden card to a foundation of its suit; a card that fits
both piles of its suit goes where the player chooses. Nothing is built in the garden and vacancies
are never refilled. When the pack is exhausted the garden may be gathered and re-dealt, twice:
column 0 (left) is picked up, column 1 put under it, and so on, and the pack turned over, so the
new pack starts with the rightmost non-empty column, each column from its first-dealt card to its
last, then the next column to the left. Won when all 104 cards are on the foundations.

Action table (18 ids, fixed):

======= ====================================================================
id      move
======= ====================================================================
0-7     garden column i -> the ascending (up) foundation of the card's suit
8-15    garden column i -> the descending (down) foundation of the card's suit
16      deal a row (up to 8 cards, left to right) from the pack
17      re-deal: gather the garden, turn it over, lay out the first row
======= ====================================================================

Foundation piles are numbered 0-3 (up; C D H S) and 4-7 (down; C D H S) in the rendering.

Observation segments (``layout.describe()``):

- ``card_place`` (52, 2, 11): for each card and each of its two copies, one-hot over: garden
  column 0-7, up foundation, down foundation, the face-down pack. Copies are interchangeable, so
  the garden copies take the slots in column order (column 0 first, top card first), then the
  foundation copies, then the pack; which cards are in the pack is only the complement of what
  is on the table, never their order.
- ``depth`` (52, 2): for a garden copy, the cards lying on it / 12 (0: available).
- ``foundation`` (8,): cards on each pile / 13 (up C D H S, then down C D H S).
- ``column_size`` (8,): cards in each garden column / 13.
- ``pack_size`` (1,): cards in the pack / 104. ``redeals_left`` (1,): re-deals still allowed / 2.

Choices where RULES.md is silent (documented, tested):

- The first row of the garden is laid out by the deal, and the re-deal action lays out the first
  row of the new pack at once: the player has no choice about it (RULES.md "automatic steps"),
  and otherwise the only legal action would be the forced "deal a row". Later rows are dealt by
  action 16, whenever the player likes while the pack lasts.
- A new row puts one card on every column, empty or not: "vacancies are never refilled" means
  no extra card goes into a gap; the row itself is dealt as usual (a card dealt into an emptied
  column is simply its only, available card).
- The re-deal is allowed whenever the pack is exhausted and a re-deal is left (RULES.md); Cadogan
  gathers "when all available cards have been played", which the rule book does not require.
- The pack's order is not observed, even after a re-deal, when a player who memorised the garden
  could know it: only face-up cards are shown.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import KING, N_KINDS, NAME, RANK, SUIT, SUITS, card, card_name
from patience_gym.core.game import Game, Move, ObsLayout, Option

N_COLS = 8
N_REDEALS = 2
N_CARDS = 2 * N_KINDS
_UP0, _DOWN0, _DEAL, _REDEAL = 0, 8, 16, 17
_N_ACTIONS = 18

# Observation: where each copy of a card is (one-hot over these places).
_PLACES = [f"garden column {i}" for i in range(N_COLS)] + [
    "up foundation",
    "down foundation",
    "pack (face down)",
]
_P_UP, _P_DOWN, _P_PACK = 8, 9, 10
_NP = len(_PLACES)
#: Where card c's first and second copy are marked "in the pack" in ``card_place``.
_PACK_COPY0 = np.arange(N_KINDS) * 2 * _NP + _P_PACK
_PACK_COPY1 = _PACK_COPY0 + _NP


def _table() -> tuple[Move, ...]:
    moves = [Move("up", i, text=f"garden {i} -> up foundation") for i in range(N_COLS)]
    moves += [Move("down", i, text=f"garden {i} -> down foundation") for i in range(N_COLS)]
    moves += [Move("deal", text="deal a row"), Move("redeal", text="re-deal the garden")]
    return tuple(moves)


def gather(garden: list[list[int]]) -> list[int]:
    """The new pack (first card dealt first) from the garden, as RULES.md gathers it.

    Column 0 is picked up first and each next column goes under it; turning the heap over puts
    the rightmost non-empty column on top, each column read from its first-dealt card.
    """
    return [c for col in reversed(garden) for c in col]


class Babette(Game):
    """Babette on the rules of RULES.md section 3 (see the module docstring for the table)."""

    name = "Babette"
    n_packs = 2
    win_cards = N_CARDS
    # 104 foundation moves + at most 3 x 13 row deals + 2 re-deals: no game comes near this.
    default_max_steps = 400
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {}
    STATE = ("garden", "pack", "up", "down", "redeals")
    MOVES = _table()

    def configure(self) -> None:
        self.moves = self.MOVES
        self.layout = ObsLayout(
            [
                ("card_place", (N_KINDS, 2, _NP), "one-hot per card copy: " + "; ".join(_PLACES)),
                ("depth", (N_KINDS, 2), "for a garden copy: cards lying on it / 12 (0: available)"),
                ("foundation", (8,), "cards on each pile / 13: up C D H S, then down C D H S"),
                ("column_size", (N_COLS,), "cards in each garden column / 13"),
                ("pack_size", (1,), "cards in the pack / 104"),
                ("redeals_left", (1,), "re-deals still allowed / 2"),
            ]
        )
        self._o_depth = self.layout.offset("depth")
        self._o_found = self.layout.offset("foundation")
        self._o_cols = self.layout.offset("column_size")
        self._o_pack = self.layout.offset("pack_size")

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        self.garden: list[list[int]] = [[] for _ in range(N_COLS)]
        self.pack = pack[::-1]  # pack[-1] is the next card dealt
        self.up = [0, 0, 0, 0]  # cards on each suit's ascending pile (top rank == count)
        self.down = [0, 0, 0, 0]  # cards on each suit's descending pile (top rank == 14 - count)
        self.redeals = 0
        self._deal_row()

    def _deal_row(self) -> None:
        garden, pack = self.garden, self.pack
        for i in range(min(N_COLS, len(pack))):
            garden[i].append(pack.pop())

    def pack_order(self) -> list[int]:
        """The pack as a list, first card to be dealt first."""
        return self.pack[::-1]

    # ---- the rules ----------------------------------------------------------------------------

    def fits_up(self, c: int) -> bool:
        return self.up[SUIT[c]] == RANK[c] - 1

    def fits_down(self, c: int) -> bool:
        return self.down[SUIT[c]] == KING - RANK[c]

    def is_legal(self, action: int) -> bool:
        move = self.moves[action]
        kind = move.kind
        if kind == "deal":
            return bool(self.pack)
        if kind == "redeal":
            return not self.pack and self.redeals < N_REDEALS and any(self.garden)
        col = self.garden[move.src]
        if not col:
            return False
        return self.fits_up(col[-1]) if kind == "up" else self.fits_down(col[-1])

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(_N_ACTIONS, dtype=bool)
        up, down = self.up, self.down
        any_cards = False
        for i, col in enumerate(self.garden):
            if col:
                any_cards = True
                c = col[-1]
                s, r = SUIT[c], RANK[c]
                mask[_UP0 + i] = up[s] == r - 1
                mask[_DOWN0 + i] = down[s] == KING - r
        if self.pack:
            mask[_DEAL] = True
        else:
            mask[_REDEAL] = self.redeals < N_REDEALS and any_cards
        return mask

    def _apply(self, move: Move) -> None:
        kind = move.kind
        if kind == "up":
            self.up[SUIT[self.garden[move.src].pop()]] += 1
        elif kind == "down":
            self.down[SUIT[self.garden[move.src].pop()]] += 1
        elif kind == "deal":
            self._deal_row()
        else:
            self.pack = gather(self.garden)[::-1]
            self.garden = [[] for _ in range(N_COLS)]
            self.redeals += 1
            self._deal_row()  # automatic: the first row of the new pack

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return sum(self.up) + sum(self.down)

    def _foundation_lists(self) -> tuple[list[int], list[int]]:
        ups = [card(r, s) for s in range(4) for r in range(1, self.up[s] + 1)]
        downs = [card(KING - k, s) for s in range(4) for k in range(self.down[s])]
        return ups, downs

    def cards_in_play(self) -> list[int]:
        ups, downs = self._foundation_lists()
        return [c for col in self.garden for c in col] + self.pack + ups + downs

    def moving_card(self, move: Move) -> int | None:
        if move.kind in ("up", "down"):
            col = self.garden[move.src]
            return col[-1] if col else None
        return None

    def extra_info(self) -> dict[str, Any]:
        return {"redeals_left": N_REDEALS - self.redeals}

    def observe(self, out: np.ndarray) -> None:
        seen = [0] * N_KINDS  # copies of each card given a slot so far
        hot: list[int] = []
        depth = self._o_depth
        for i, col in enumerate(self.garden):
            n = len(col) - 1
            for k, c in enumerate(col):
                slot = 2 * c + seen[c]
                seen[c] += 1
                hot.append(slot * _NP + i)
                out[depth + slot] = (n - k) / 12.0
            out[self._o_cols + i] = len(col) / 13.0
        ups, downs = self._foundation_lists()
        for c in ups:
            hot.append((2 * c + seen[c]) * _NP + _P_UP)
            seen[c] += 1
        for c in downs:
            hot.append((2 * c + seen[c]) * _NP + _P_DOWN)
            seen[c] += 1
        out[hot] = 1.0
        # The rest is in the pack: the complement of the above, in no order.
        left = np.array(seen)
        out[_PACK_COPY0[left == 0]] = 1.0
        out[_PACK_COPY1[left <= 1]] = 1.0
        f = self._o_found
        for s in range(4):
            out[f + s] = self.up[s] / 13.0
            out[f + 4 + s] = self.down[s] / 13.0
        out[self._o_pack] = len(self.pack) / N_CARDS
        out[self._o_pack + 1] = (N_REDEALS - self.redeals) / N_REDEALS

    def heuristic(self) -> float:
        """Foundation cards first, then how many available garden cards fit a foundation.

        Only foundation moves change the position in ways a player chooses between (up or down,
        and in which order); dealing a row is never preferred to a foundation move (+10 against at
        most +4 from eight new available cards), so the look at the dealt row cannot sway a choice.
        """
        up, down = self.up, self.down
        playable = 0
        for col in self.garden:
            if col:
                c = col[-1]
                s, r = SUIT[c], RANK[c]
                playable += (up[s] == r - 1) + (down[s] == KING - r)
        return 10.0 * self.foundation_cards + 0.5 * playable

    def render(self) -> str:
        def top(s: int, n: int, rank: int) -> str:
            return card_name(card(rank, s)) if n else "--" + SUITS[s]

        ups = " ".join(top(s, self.up[s], self.up[s]) for s in range(4))
        downs = " ".join(top(s, self.down[s], 14 - self.down[s]) for s in range(4))
        lines = [
            f"Babette  re-deals left {N_REDEALS - self.redeals}  pack: {len(self.pack)} cards",
            f"up foundations: {ups}   down foundations: {downs}",
        ]
        for r in range(max((len(c) for c in self.garden), default=0)):
            lines.append(" ".join(NAME[c[r]] if r < len(c) else "  " for c in self.garden))
        if not any(self.garden):
            lines.append("(garden empty)")
        return "\n".join(lines)
