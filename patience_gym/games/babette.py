"""Babette (Cadogan; docs/rules.md section 3). Two packs.

Rules in brief. Eight foundations, two per suit: the first ace of a suit to be played starts its
ascending pile (A -> K in suit), the first king its descending pile (K -> A in suit); the second
ace and king of a suit are ordinary cards. An ace goes onto a king pile only once its suit's
ascending pile has been started, and a king onto an ace pile only once its descending pile has.

The garden is a grid: rows of 8 places dealt left to right, each row laid out under the one before
(row 0 on top, column 0 on the left). Dealing a row is one action (a row is finished before
anything is played from it); the last row may be short. Only the next row blocks (Cadogan rule
III): a garden card is available when the place directly below it (same column, next row) is
empty, because it has not been dealt yet or because its card was played. Vacancies are never
refilled, so a card once released stays available when later rows are dealt, and a column can
hold several available cards at once. The only move is an available garden card to a foundation of
its suit; a card that fits both piles of its suit goes where the player chooses. Nothing is built
in the garden. When the pack is exhausted the garden may be gathered and re-dealt, twice: column 0
(left) is picked up, column 1 put under it, and so on, skipping vacancies, and the pack turned
over, so the new pack starts with the rightmost non-empty column, each column from its first-dealt
card to its last, then the next column to the left. Won when all 104 cards are on the foundations.

Action table (210 ids, fixed). A garden place is ``p = 8 * row + column`` (row 0-12, column 0-7);
104 cards make at most 13 rows of 8, so 104 places name every card the garden can hold.

======= ====================================================================
id      move
======= ====================================================================
0-103   the card at garden place p -> the ascending (up) foundation of its suit
104-207 the card at garden place p - 104 -> the descending (down) foundation of its suit
208     deal a row (up to 8 cards, left to right) from the pack
209     re-deal: gather the garden, turn it over, lay out the first row
======= ====================================================================

``describe`` names the card, its place and the foundation: ``"7H garden row 3 col 5 -> up
foundation"``. Foundation piles are numbered 0-3 (up; C D H S) and 4-7 (down; C D H S) in the
observation.

Observation segments (``layout.describe()``), laid out like the action table where they concern
places:

- ``garden`` (13, 8, 52): at each place (row, column), one-hot over the card lying there; all zero
  where the place is empty (its card was played, or no card has been dealt there).
- ``available`` (13, 8): 1 where the place holds an available card.
- ``rows_dealt`` (1,): rows laid out in the current garden / 13 (the next row goes below them).
- ``foundation`` (8,): cards on each pile / 13 (up C D H S, then down C D H S).
- ``unseen`` (52,): copies of each card in the pack / 2: only the complement of what is on the
  table, never the pack's order.
- ``pack_size`` (1,): cards in the pack / 104. ``redeals_left`` (1,): re-deals still allowed / 2.

Choices where the rule book is silent (documented, tested):

- A new row goes into the next row of the grid and puts one card in every column, whether the
  place above it holds a card or is vacant: "vacancies are never refilled" means no card is moved
  into a gap, and the place below a vacancy is a new place, not the gap. So a card released by a
  vacancy below it stays available however many rows follow.
- Places a short last row does not reach count as empty, like vacated ones: the card above is
  available. A row whose cards have all been played still counts as a row: the next row goes
  below it (this changes nothing for the rules: an empty row blocks nothing).
- The first row of the garden is laid out by the deal, and the re-deal action lays out the first
  row of the new pack at once: the player has no choice about it (rule book "automatic steps"),
  and otherwise the only legal action would be the forced "deal a row". Later rows are dealt by
  action 208, whenever the player likes while the pack lasts.
- The re-deal is allowed whenever the pack is exhausted and a re-deal is left (the rule book);
  Cadogan gathers "when all available cards have been played", which the rule book does not
  require.
- The pack's order is not observed, even after a re-deal, when a player who memorised the garden
  could know it: only face-up cards are shown.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import ACE, KING, N_KINDS, NAME, RANK, SUIT, SUITS, card, card_name
from patience_gym.core.game import Game, Move, ObsLayout, Option

N_COLS = 8
N_ROWS = 13  # 104 cards, 8 a row
N_PLACES = N_ROWS * N_COLS
N_REDEALS = 2
N_CARDS = 2 * N_KINDS
EMPTY = -1  # a garden place with no card: vacated, or not dealt in a short last row
_UP0, _DOWN0, _DEAL, _REDEAL = 0, N_PLACES, 2 * N_PLACES, 2 * N_PLACES + 1
_N_ACTIONS = 2 * N_PLACES + 2


def _table() -> tuple[Move, ...]:
    def place(p: int) -> str:
        return f"garden row {p // N_COLS} col {p % N_COLS}"

    moves = [Move("up", p, text=f"{place(p)} -> up foundation") for p in range(N_PLACES)]
    moves += [Move("down", p, text=f"{place(p)} -> down foundation") for p in range(N_PLACES)]
    moves += [Move("deal", text="deal a row"), Move("redeal", text="re-deal the garden")]
    return tuple(moves)


def gather(grid: list[list[int]]) -> list[int]:
    """The new pack (first card dealt first) from the garden, as the rule book gathers it.

    Column 0 is picked up first and each next column goes under it, vacancies skipped; turning
    the heap over puts the rightmost non-empty column on top, each column read from its
    first-dealt card.
    """
    return [row[c] for c in reversed(range(N_COLS)) for row in grid if row[c] != EMPTY]


class Babette(Game):
    """Babette on the rules of docs/rules.md section 3 (see the module docstring for the table)."""

    name = "Babette"
    n_packs = 2
    win_cards = N_CARDS
    # 104 foundation moves + at most 3 x 12 row deals + 2 re-deals = 142: the limit is never
    # reached by a game that is still making progress.
    default_max_steps = 400
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {}
    STATE = ("grid", "pack", "up", "down", "redeals")
    MOVES = _table()

    def configure(self) -> None:
        self.moves = self.MOVES
        self.layout = ObsLayout(
            [
                ("garden", (N_ROWS, N_COLS, N_KINDS), "one-hot card at each place (row, column); 0: empty"),
                ("available", (N_ROWS, N_COLS), "1 where the place holds an available card"),
                ("rows_dealt", (1,), "rows laid out in the current garden / 13"),
                ("foundation", (8,), "cards on each pile / 13: up C D H S, then down C D H S"),
                ("unseen", (N_KINDS,), "copies of each card in the pack / 2 (never their order)"),
                ("pack_size", (1,), "cards in the pack / 104"),
                ("redeals_left", (1,), "re-deals still allowed / 2"),
            ]
        )
        self._o_avail = self.layout.offset("available")
        self._o_rows = self.layout.offset("rows_dealt")
        self._o_found = self.layout.offset("foundation")
        self._o_unseen = self.layout.offset("unseen")
        self._o_pack = self.layout.offset("pack_size")

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        self.grid: list[list[int]] = []  # grid[row][column], row 0 dealt first
        self.pack = pack[::-1]  # pack[-1] is the next card dealt
        self.up = [0, 0, 0, 0]  # cards on each suit's ascending pile (top rank == count)
        self.down = [0, 0, 0, 0]  # cards on each suit's descending pile (top rank == 14 - count)
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
        """A card lies at (row, col) and the place directly below it is empty (only the next
        row blocks; a place not dealt yet or vacated is empty alike)."""
        grid = self.grid
        if row >= len(grid) or grid[row][col] == EMPTY:
            return False
        return row + 1 == len(grid) or grid[row + 1][col] == EMPTY

    def available_places(self) -> Iterator[tuple[int, int]]:
        """Every place holding an available card, with that card, in place order."""
        grid = self.grid
        last = len(grid) - 1
        for r, row in enumerate(grid):
            below = grid[r + 1] if r < last else None
            for c, x in enumerate(row):
                # the same test as is_available, unrolled over a row for the mask's sake
                if x != EMPTY and (below is None or below[c] == EMPTY):
                    yield r * N_COLS + c, x

    def fits_up(self, c: int) -> bool:
        """``c`` goes on its suit's ascending pile: the next rank, and a king only once the suit's
        descending pile is started (else it is that pile's first king)."""
        s, r = SUIT[c], RANK[c]
        return self.up[s] == r - 1 and (r != KING or self.down[s] > 0)

    def fits_down(self, c: int) -> bool:
        """``c`` goes on its suit's descending pile: the next rank down, and an ace only once the
        suit's ascending pile is started (else it is that pile's first ace)."""
        s, r = SUIT[c], RANK[c]
        return self.down[s] == KING - r and (r != ACE or self.up[s] > 0)

    def is_legal(self, action: int) -> bool:
        move = self.moves[action]
        kind = move.kind
        if kind == "deal":
            return bool(self.pack)
        if kind == "redeal":
            return not self.pack and self.redeals < N_REDEALS and self._garden_holds_cards()
        r, c = divmod(move.src, N_COLS)
        if not self.is_available(r, c):
            return False
        x = self.grid[r][c]
        return self.fits_up(x) if kind == "up" else self.fits_down(x)

    def _garden_holds_cards(self) -> bool:
        return any(x != EMPTY for row in self.grid for x in row)

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(_N_ACTIONS, dtype=bool)
        for p, x in self.available_places():
            mask[_UP0 + p] = self.fits_up(x)
            mask[_DOWN0 + p] = self.fits_down(x)
        if self.pack:
            mask[_DEAL] = True
        else:
            mask[_REDEAL] = self.redeals < N_REDEALS and self._garden_holds_cards()
        return mask

    def _apply(self, move: Move) -> None:
        kind = move.kind
        if kind in ("up", "down"):
            r, c = divmod(move.src, N_COLS)
            x = self.grid[r][c]
            self.grid[r][c] = EMPTY  # a vacancy, never refilled
            (self.up if kind == "up" else self.down)[SUIT[x]] += 1
        elif kind == "deal":
            self._deal_row()
        else:
            self.pack = gather(self.grid)[::-1]
            self.grid = []
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

    def garden_cards(self) -> list[int]:
        return [x for row in self.grid for x in row if x != EMPTY]

    def cards_in_play(self) -> list[int]:
        ups, downs = self._foundation_lists()
        return self.garden_cards() + self.pack + ups + downs

    def moving_card(self, move: Move) -> int | None:
        if move.kind in ("up", "down"):
            r, c = divmod(move.src, N_COLS)
            if r < len(self.grid) and self.grid[r][c] != EMPTY:
                return self.grid[r][c]
        return None

    def extra_info(self) -> dict[str, Any]:
        return {"redeals_left": N_REDEALS - self.redeals}

    def observe(self, out: np.ndarray) -> None:
        seen = [0] * N_KINDS  # copies of each card on the table
        hot: list[int] = []
        for r, row in enumerate(self.grid):
            for c, x in enumerate(row):
                if x != EMPTY:
                    hot.append((r * N_COLS + c) * N_KINDS + x)  # the garden segment starts at 0
                    seen[x] += 1
        hot += [self._o_avail + p for p, _ in self.available_places()]
        out[hot] = 1.0
        ups, downs = self._foundation_lists()
        for x in ups + downs:
            seen[x] += 1
        out[self._o_unseen : self._o_unseen + N_KINDS] = (2 - np.array(seen)) / 2.0
        out[self._o_rows] = len(self.grid) / N_ROWS
        f = self._o_found
        for s in range(4):
            out[f + s] = self.up[s] / 13.0
            out[f + 4 + s] = self.down[s] / 13.0
        out[self._o_pack] = len(self.pack) / N_CARDS
        out[self._o_pack + 1] = (N_REDEALS - self.redeals) / N_REDEALS

    def heuristic(self) -> float:
        """Foundation cards first, then how many available garden cards fit a foundation.

        Only foundation moves change the position in ways a player chooses between (up or down,
        which copy of a card); the bonus stays under 9, so dealing a row (no card played) always
        scores below a foundation move (+10) and the look at the dealt row cannot sway a choice.
        Richer scores (cards an auto-play would clear; how deep the next card of each pile lies)
        won no more games on deals 0-399, so the simple count stays.
        """
        playable = 0
        for _, x in self.available_places():
            playable += self.fits_up(x) + self.fits_down(x)
        return 10.0 * self.foundation_cards + 9.0 * playable / (playable + 1)

    def render(self) -> str:
        def top(s: int, n: int, rank: int) -> str:
            return card_name(card(rank, s)) if n else "--" + SUITS[s]

        ups = " ".join(top(s, self.up[s], self.up[s]) for s in range(4))
        downs = " ".join(top(s, self.down[s], 14 - self.down[s]) for s in range(4))
        lines = [
            f"Babette  re-deals left {N_REDEALS - self.redeals}  pack: {len(self.pack)} cards",
            f"up foundations: {ups}   down foundations: {downs}",
            "garden (* available, .. empty):",
            "     " + " ".join(f"c{c} " for c in range(N_COLS)).rstrip(),
        ]
        avail = {p for p, _ in self.available_places()}
        for r, row in enumerate(self.grid):
            cells = [
                ".. " if x == EMPTY else NAME[x] + ("*" if r * N_COLS + c in avail else " ")
                for c, x in enumerate(row)
            ]
            lines.append(f"r{r:<2}  " + " ".join(cells).rstrip())
        return "\n".join(lines)
