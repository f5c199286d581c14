"""The Congress (Cadogan, fragment; RULES.md section 7). Two packs.

The eight aces are taken out before dealing (the first copy of each ace, then the second: the
foundations hold C D H S C D H S); each builds up in suit to K. Then 4 cards are dealt in a row
as the **helps** (places 0-3) and a row of 8 as the **rivers**. Further rows of 8 are dealt below,
each covering the one above, so the rivers are 8 columns whose last card is available. The other
84 cards are the pack, face down.

- An available river card or a help's top card may go to a foundation.
- A river card may be married onto a help's top card: same suit, one rank lower. A help's top
  card may be married onto another help's top card the same way. Help cards never go to the
  rivers.
- While the pack lasts, gaps are refilled from the pack by the **refill** action: river gaps
  first, uppermost row first and left to right within a row, then the help gaps left to right.
  **Deal next row** first refills every gap the same way, then deals up to 8 cards, one per column
  left to right (the last row may be short). Empty help places wait for a refill.
- Once the pack is exhausted there are up to **eight** help places (0-7): any available river
  card may start a help in an empty place, at any time, as often as helps are played off.
- No re-deal. Won when all 96 dealt cards are on the foundations.

Action table (138 ids):

======= ===================================================================
id      move
======= ===================================================================
0-7     river c -> foundation (the column's last card)
8-15    help h -> foundation (its top card)
16-79   river c -> help h (ordered c-major: id = 16 + 8c + h): married onto
        the help's top, or, once the pack is exhausted, starting a help in
        the empty place h
80      refill the gaps from the pack
81      deal the next row (refill first)
82-137  help h -> help k (h != k, ordered h-major): married onto k's top
======= ===================================================================

Refill and deal come before the help-to-help marriages so that a greedy policy breaking ties by
the lowest id turns to the pack rather than to a back-and-forth between helps.

Observation (1892 floats): ``card_place`` (52 x 18): per card, the copies / 2 in river column
0-7, help 0-7, on a foundation, or in the pack (not visible: which cards remain, never their
order); ``river_last`` (8 x 52) one-hot of each column's available card; ``help_top`` (8 x 52)
one-hot of each help's top card; ``river_grid`` (12 x 8) every river position row by row as
(card id + 1) / 52, 0 when empty, so the order inside a column is visible;
``river_len`` (8) cards per column / 12; ``help_size`` (8) cards per help / 12;
``foundation_rank`` (8) top rank / 13; ``pack_size`` (1) / 84; ``rows`` (1) rows dealt / 12;
``gaps`` (1) 1 when a refill is possible; ``pack_exhausted`` (1) 1 when eight help places are open
to the rivers.

Choices where RULES.md is silent (documented, tested):

- **Foundation.** A card goes to the leftmost foundation of its suit that accepts it; when both
  accept it their tops are equal, and foundation cards never move again, so the choice would
  change nothing.
- **Gaps.** A river gap is a place in the grid of rows dealt so far that holds no card; since only
  the last card of a column moves, a column's gaps are always below its cards. Refills keep that
  shape. Help places 4-7 never count as gaps (they open only when the pack is exhausted).
- **Refill** is legal only when there is a gap (it must change the state); **deal next row** is
  legal whenever the pack has cards, gaps or none.
- **Starting a help** is for river cards only (RULES.md: "any available river card"); a help card
  is never moved into an empty help place.
- **Help to help** marriages may be undone (a 5H moved from a help onto another help's 6H may go
  back when the help it left shows the other 6H); RULES.md allows them, so the step limit (600,
  far beyond a sensible game's 96 foundation moves, at most 96 river-to-help moves and at most 84
  refills and deals) ends such back-and-forth play.
- **Score and win count** leave out the eight aces set out before the deal: ``foundation_cards``
  counts cards played there (0 at the start), and 96 of them win.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import ACE, NAME, RANK, SUIT, card, card_name, take_out
from patience_gym.core.game import Game, Move, ObsLayout, Option
from patience_gym.core.vocabulary import SAME_SUIT_DOWN

N_COLS, N_HELPS, N_HELPS_EARLY, N_FOUND = 8, 8, 4, 8
N_PACK = 104 - N_FOUND - N_HELPS_EARLY - N_COLS  # 84
MAX_ROWS = 12  # 1 + ceil(84 / 8): at most 12 rows are ever dealt
MAX_HELP = 12  # a K down to a 2
_RIVER_F, _HELP_F, _RIVER_H0, _REFILL, _DEAL, _HELP_H0 = 0, 8, 16, 80, 81, 82
_MARRY = SAME_SUIT_DOWN.table  # [top][card]: same suit, card one rank lower
ACES = tuple(card(ACE, s) for s in range(4)) * 2

_PLACES = (
    [f"river {c}" for c in range(N_COLS)]
    + [f"help {h}" for h in range(N_HELPS)]
    + [
        "foundation",
        "pack (not visible)",
    ]
)
_HELP, _FOUNDATION, _PACK = 8, 16, 17
_NP = len(_PLACES)
_HELP_PAIRS = tuple((h, k) for h in range(N_HELPS) for k in range(N_HELPS) if h != k)
# card_place indices of a suit's foundation holding ranks A..n: _FOUND_HOT[suit][n]
_FOUND_HOT = tuple(
    tuple(tuple((s * 13 + r) * _NP + _FOUNDATION for r in range(n)) for n in range(14)) for s in range(4)
)


def _table() -> tuple[Move, ...]:
    moves = [Move("river_f", c, text=f"river {c} -> foundation") for c in range(N_COLS)]
    moves += [Move("help_f", h, text=f"help {h} -> foundation") for h in range(N_HELPS)]
    moves += [
        Move("river_h", c, h, text=f"river {c} -> help {h}") for c in range(N_COLS) for h in range(N_HELPS)
    ]
    moves.append(Move("refill", text="refill gaps from the pack"))
    moves.append(Move("deal", text="deal the next row"))
    moves += [Move("help_h", h, k, text=f"help {h} -> help {k}") for h, k in _HELP_PAIRS]
    return tuple(moves)


class Congress(Game):
    """The Congress on the rules of RULES.md section 7 (see the module docstring)."""

    name = "Congress"
    n_packs = 2
    win_cards = 96
    default_max_steps = 600  # stops endless help-to-help back-and-forth
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {}
    STATE = ("rivers", "helps", "pack", "foundations", "rows")
    MOVES = _table()

    def configure(self) -> None:
        self.moves = self.MOVES
        self.layout = ObsLayout(
            [
                ("card_place", (52, _NP), "copies of each card at: " + "; ".join(_PLACES) + " (/ 2)"),
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
        self._place_size = 52 * _NP
        self._o_last = self.layout.offset("river_last")
        self._o_top = self.layout.offset("help_top")
        self._o_grid = self.layout.offset("river_grid")
        self._o_len = self.layout.offset("river_len")
        self._o_size = self.layout.offset("help_size")
        self._o_found = self.layout.offset("foundation_rank")
        self._o_tail = self.layout.offset("pack_size")

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        rest = list(pack)
        take_out(rest, ACES)
        self.foundations: list[int] = [ACE] * N_FOUND  # rank of each top; suit = index % 4
        self.helps: list[list[int]] = [[c] for c in rest[:N_HELPS_EARLY]] + [[] for _ in range(4)]
        row = rest[N_HELPS_EARLY : N_HELPS_EARLY + N_COLS]
        self.rivers: list[list[int]] = [[c] for c in row]
        self.rows = 1
        self.pack: list[int] = rest[N_HELPS_EARLY + N_COLS :][::-1]  # pack[-1] is the next card

    # ---- the rules ----------------------------------------------------------------------------

    def _foundation_for(self, c: int) -> int:
        """The leftmost foundation of ``c``'s suit that accepts it, or -1."""
        s, want = SUIT[c], RANK[c] - 1
        if self.foundations[s] == want:
            return s
        if self.foundations[s + 4] == want:
            return s + 4
        return -1

    def _has_gap(self) -> bool:
        rows = self.rows
        return any(len(col) < rows for col in self.rivers) or not all(self.helps[:N_HELPS_EARLY])

    def _onto_help(self, c: int, h: int) -> bool:
        """May ``c`` (from the rivers) go to help ``h``: married on its top, or starting it."""
        help_ = self.helps[h]
        if help_:
            return _MARRY[help_[-1]][c]
        return not self.pack

    def is_legal(self, action: int) -> bool:
        move = self.moves[action]
        kind = move.kind
        if kind == "river_f":
            col = self.rivers[move.src]
            return bool(col) and self._foundation_for(col[-1]) >= 0
        if kind == "help_f":
            help_ = self.helps[move.src]
            return bool(help_) and self._foundation_for(help_[-1]) >= 0
        if kind == "river_h":
            col = self.rivers[move.src]
            return bool(col) and self._onto_help(col[-1], move.dst)
        if kind == "help_h":
            src, dst = self.helps[move.src], self.helps[move.dst]
            return bool(src) and bool(dst) and _MARRY[dst[-1]][src[-1]]
        if kind == "refill":
            return bool(self.pack) and self._has_gap()
        return bool(self.pack)  # deal

    def legal_mask(self) -> np.ndarray:
        """The rules of :meth:`is_legal`, computed place by place instead of id by id."""
        mask = np.zeros(138, dtype=bool)
        found = self.foundations
        lasts = [col[-1] if col else -1 for col in self.rivers]
        tops = [h[-1] if h else -1 for h in self.helps]
        open_helps = not self.pack
        for c, x in enumerate(lasts):
            if x < 0:
                continue
            s, want = SUIT[x], RANK[x] - 1
            mask[_RIVER_F + c] = found[s] == want or found[s + 4] == want
            base = _RIVER_H0 + N_HELPS * c
            for h, t in enumerate(tops):
                mask[base + h] = _MARRY[t][x] if t >= 0 else open_helps
        for h, t in enumerate(tops):
            if t < 0:
                continue
            s, want = SUIT[t], RANK[t] - 1
            mask[_HELP_F + h] = found[s] == want or found[s + 4] == want
        for a, (h, k) in enumerate(_HELP_PAIRS):
            t, u = tops[h], tops[k]
            if t >= 0 and u >= 0 and _MARRY[u][t]:
                mask[_HELP_H0 + a] = True
        if self.pack:
            mask[_DEAL] = True
            mask[_REFILL] = self._has_gap()
        return mask

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

    def _apply(self, move: Move) -> None:
        kind = move.kind
        if kind == "river_f":
            c = self.rivers[move.src].pop()
            self.foundations[self._foundation_for(c)] += 1
        elif kind == "help_f":
            c = self.helps[move.src].pop()
            self.foundations[self._foundation_for(c)] += 1
        elif kind == "river_h":
            self.helps[move.dst].append(self.rivers[move.src].pop())
        elif kind == "help_h":
            self.helps[move.dst].append(self.helps[move.src].pop())
        elif kind == "refill":
            self._refill()
        else:  # deal the next row
            self._refill()
            if self.pack:
                for col in self.rivers:
                    if self.pack:
                        col.append(self.pack.pop())
                self.rows += 1

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return sum(self.foundations) - N_FOUND

    def moving_card(self, move: Move) -> int | None:
        kind = move.kind
        if kind in ("river_f", "river_h"):
            col = self.rivers[move.src]
            return col[-1] if col else None
        if kind in ("help_f", "help_h"):
            help_ = self.helps[move.src]
            return help_[-1] if help_ else None
        return None

    def describe(self, action: int) -> str:
        move = self.moves[action]
        if move.kind == "river_h" and not self.helps[move.dst]:
            c = self.moving_card(move)
            return f"{card_name(c)} river {move.src} -> empty help {move.dst}"
        return super().describe(action)

    def observe(self, out: np.ndarray) -> None:
        hot: list[int] = []  # card_place entries, one per copy (summed below)
        idx: list[int] = []  # every other entry, with its value in val
        val: list[float] = []
        o_last, o_grid, o_len = self._o_last, self._o_grid, self._o_len
        for c, col in enumerate(self.rivers):
            if col:
                hot.extend(x * _NP + c for x in col)
                idx.extend(range(o_grid + c, o_grid + c + N_COLS * len(col), N_COLS))
                val.extend((x + 1) / 52.0 for x in col)
                idx.append(o_last + 52 * c + col[-1])
                val.append(1.0)
            idx.append(o_len + c)
            val.append(len(col) / MAX_ROWS)
        o_top, o_size = self._o_top, self._o_size
        for h, help_ in enumerate(self.helps):
            if help_:
                hot.extend(x * _NP + _HELP + h for x in help_)
                idx.append(o_top + 52 * h + help_[-1])
                val.append(1.0)
            idx.append(o_size + h)
            val.append(len(help_) / MAX_HELP)
        o = self._o_found
        for f, n in enumerate(self.foundations):
            hot.extend(_FOUND_HOT[f % 4][n])
            idx.append(o + f)
            val.append(n / 13.0)
        hot.extend(x * _NP + _PACK for x in self.pack)
        n = self._place_size
        out[:n] = np.bincount(np.asarray(hot, dtype=np.intp), minlength=n) * 0.5
        o = self._o_tail
        idx.extend((o, o + 1, o + 2, o + 3))
        val.extend(
            (
                len(self.pack) / N_PACK,
                self.rows / MAX_ROWS,
                1.0 if self.pack and self._has_gap() else 0.0,
                0.0 if self.pack else 1.0,
            )
        )
        out[idx] = val

    def cards_in_play(self) -> list[int]:
        found = [(f % 4) * 13 + r for f, n in enumerate(self.foundations) for r in range(n)]
        rivers = [x for col in self.rivers for x in col]
        return rivers + [x for h in self.helps for x in h] + self.pack + found

    def heuristic(self) -> float:
        """Foundation progress first, then freeing river cards (a river card married onto a help
        uncovers the one above it), then bringing the pack into play; an empty help place counts
        once eight are open. Counts only, never the identity of a card a refill turned up."""
        help_cards = sum(len(h) for h in self.helps)
        covered = sum(len(col) - 1 for col in self.rivers if col)
        empty_helps = 0 if self.pack else sum(1 for h in self.helps if not h)
        return 10.0 * self.foundation_cards + help_cards - covered - len(self.pack) + 1.0 * empty_helps

    @staticmethod
    def _pile_text(pile: list[int]) -> str:
        return " ".join(NAME[x] for x in pile) if pile else "--"

    def render(self) -> str:
        found = " ".join(card_name((f % 4) * 13 + n - 1) for f, n in enumerate(self.foundations))
        lines = [
            f"The Congress  on foundations: {self.foundation_cards}/96   pack: {len(self.pack)} cards",
            f"foundations: {found}",
            "helps: " + "  ".join(f"{h}:" + self._pile_text(help_) for h, help_ in enumerate(self.helps)),
            "rivers:",
        ]
        for r in range(max(self.rows, max((len(c) for c in self.rivers), default=0))):
            lines.append("  " + " ".join(NAME[c[r]] if r < len(c) else ".." for c in self.rivers))
        return "\n".join(lines)
