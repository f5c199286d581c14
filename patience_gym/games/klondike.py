"""Klondike ("Canfield or Klondike", Cadogan; docs/rules.md section 1). One pack.

Layout: 7 tableau piles dealt as a staircase (pile i gets i+1 cards, its last face up), the other
24 cards form the stock. Foundations build up in suit from the aces; the tableau builds down in
alternating colours; the face-up cards at the end of a pile move together (the whole build) unless
``partial_moves=True``; only kings (or king-headed builds) fill an empty pile; an ace is never put
on a two. The stock is turned ``draw`` cards at a time onto the talon and gone through ``passes``
times (``None``: without limit).

Action table (58 ids, fixed for every option):

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

Observation (690 floats): ``card_place`` (52, 13), a one-hot place per card: face up in pile
0..6, foundation, talon top, second and third from the top (fanned, so their order is seen, as
the render shows), below those three (seen when turned), or not visible; then face-down counts,
foundation heights, stock and talon sizes and passes left.

Choices where the texts are silent (documented, tested):

- A king-headed build that already lies at the bottom of its pile may not move into another
  empty pile. The move would only swap two piles' places: the position is the same game, and
  allowing it would let every stuck game shuffle a king between spaces until the step limit
  instead of ending as lost (every allowed action must change the state; OpenSpiel and
  Solvitaire leave the move out too).
- A new pass costs an action of its own (id 15 with an empty stock); its cards are turned by the
  next id 15.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import ACE, KING, NAME, RANK, SUIT, card_name
from patience_gym.core.game import Game, Move, ObsLayout, Option, positive_int_or_none
from patience_gym.core.vocabulary import ALTERNATE_DOWN

N_PILES = 7
_TALON_F, _PILE_F0, _TALON_P0, _STOCK, _PILE_P0 = 0, 1, 8, 15, 16
_FITS = ALTERNATE_DOWN.table
# _WANTS[last]: the cards that may be put on ``last`` in the tableau (never an ace).
_WANTS = tuple(tuple(c for c in range(52) if _FITS[last][c] and RANK[c] != ACE) for last in range(52))
# _PILE_P[i][j]: the action id of "pile i -> pile j".
_PILE_P = tuple(
    tuple(-1 if j == i else _PILE_P0 + 6 * i + (j if j < i else j - 1) for j in range(N_PILES))
    for i in range(N_PILES)
)

# Observation: where each card is (one-hot over these places). The talon's top three cards lie
# fanned (the render shows them, in order), so each has a place of its own; the cards below them
# were seen when turned, and their order is that of the stock.
PLACES: tuple[str, ...] = (
    *(f"pile {i} face up" for i in range(N_PILES)),
    "foundation",
    "talon top",
    "talon second from top",
    "talon third from top",
    "talon below the top three (seen)",
    "not visible (face down in a pile, or in the stock)",
)
_FOUNDATION, _TALON_TOP, _TALON_BELOW, _HIDDEN = 7, 8, 11, 12
_FAN = 3  # talon cards with a place each: top, second, third
_NP = len(PLACES)
# _FOUND_HOT[s][n]: observation indices of the n cards on suit s's foundation.
_FOUND_HOT = tuple(
    tuple([(s * 13 + r) * _NP + _FOUNDATION for r in range(n)] for n in range(14)) for s in range(4)
)


def _table() -> tuple[Move, ...]:
    moves = [Move("talon_f", text="talon -> foundation")]
    moves += [Move("pile_f", i, text=f"pile {i} -> foundation") for i in range(N_PILES)]
    moves += [Move("talon_p", dst=j, text=f"talon -> pile {j}") for j in range(N_PILES)]
    moves += [Move("stock", text="stock -> talon")]
    moves += [
        Move("pile_p", i, j, text=f"pile {i} -> pile {j}")
        for i in range(N_PILES)
        for j in range(N_PILES)
        if i != j
    ]
    return tuple(moves)


class Klondike(Game):
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
    }
    STATE = ("piles", "down", "stock", "talon", "foundations", "passes_used")
    MOVES = _table()

    def configure(self, *, draw: int, passes: int | None, partial_moves: bool) -> None:
        self.draw = draw
        self.passes = passes
        self.partial = partial_moves
        self.moves = self.MOVES
        self.layout = ObsLayout(
            [
                ("card_place", (52, _NP), "one-hot per card: " + "; ".join(PLACES)),
                ("face_down", (N_PILES,), "face-down cards under each pile's face-up build / 6"),
                ("foundation", (4,), "cards on each suit's foundation (C D H S) / 13"),
                ("stock_size", (1,), "cards in the stock / 24"),
                ("talon_size", (1,), "cards in the talon / 24"),
                ("passes_left", (1,), "new passes still allowed / (passes - 1); 1 when unlimited"),
            ]
        )
        self._o_down = self.layout.offset("face_down")  # the 14 scalars follow one another

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        self.piles: list[list[int]] = [[] for _ in range(N_PILES)]
        it = iter(pack)
        for row in range(N_PILES):
            for i in range(row, N_PILES):
                self.piles[i].append(next(it))
        self.down = [i for i in range(N_PILES)]  # all but the last card of pile i
        rest = list(it)
        self.stock = rest[::-1]  # stock[-1] is the next card turned
        self.talon: list[int] = []
        self.foundations = [0, 0, 0, 0]  # cards per suit; the top card is rank == count
        self.passes_used = 1

    # ---- the rules ----------------------------------------------------------------------------

    def _to_foundation(self, c: int) -> bool:
        return self.foundations[SUIT[c]] == RANK[c] - 1

    def _to_pile(self, c: int, j: int) -> bool:
        pile = self.piles[j]
        if not pile:
            return RANK[c] == KING
        return RANK[c] != ACE and _FITS[pile[-1]][c]

    def _can_pass(self) -> bool:
        return bool(self.talon) and (self.passes is None or self.passes_used < self.passes)

    def _run_start(self, i: int, j: int) -> int:
        """Index in pile i of the card that would head a move to pile j, or -1.

        A whole pile never moves into an empty pile: that only swaps two piles' places.
        """
        pile = self.piles[i]
        if not pile or ((first := self.down[i]) == 0 and not self.piles[j]):
            return -1
        if not self.partial:
            return first if self._to_pile(pile[first], j) else -1
        for k in range(first, len(pile)):
            if self._to_pile(pile[k], j):
                return k
        return -1

    def is_legal(self, action: int) -> bool:
        move = self.moves[action]
        kind = move.kind
        if kind == "stock":
            return bool(self.stock) or self._can_pass()
        if kind == "talon_f":
            return bool(self.talon) and self._to_foundation(self.talon[-1])
        if kind == "talon_p":
            return bool(self.talon) and self._to_pile(self.talon[-1], move.dst)
        if kind == "pile_f":
            pile = self.piles[move.src]
            return bool(pile) and self._to_foundation(pile[-1])
        return self._run_start(move.src, move.dst) >= 0

    def legal_mask(self) -> np.ndarray:
        """The same rules as :meth:`is_legal`, computed pile by pile instead of id by id.

        Each pile's last card wants one of two cards (one rank lower, other colour); an empty
        pile wants a king. Indexing those wants by card turns the 42 pile-to-pile checks into a
        lookup per card that could move.
        """
        piles, found = self.piles, self.foundations
        wants: dict[int, list[int]] = {}
        empty: list[int] = []
        for j in range(N_PILES):
            pile = piles[j]
            if pile:
                for c in _WANTS[pile[-1]]:
                    wants.setdefault(c, []).append(j)
            else:
                empty.append(j)
        legal: list[int] = []
        if self.stock or self._can_pass():
            legal.append(_STOCK)
        if self.talon:
            t = self.talon[-1]
            if found[SUIT[t]] == RANK[t] - 1:
                legal.append(_TALON_F)
            targets = empty if RANK[t] == KING else wants.get(t, ())
            legal.extend(_TALON_P0 + j for j in targets)
        for i in range(N_PILES):
            pile = piles[i]
            if not pile:
                continue
            last = pile[-1]
            if found[SUIT[last]] == RANK[last] - 1:
                legal.append(_PILE_F0 + i)
            d = self.down[i]
            row = _PILE_P[i]
            if d and RANK[pile[d]] == KING:  # a king-headed build with cards beneath it
                legal.extend(row[j] for j in empty)
            for c in pile[d:] if self.partial else pile[d : d + 1]:
                for j in wants.get(c, ()):
                    legal.append(row[j])  # j != i: a pile never wants its own cards
        mask = np.zeros(58, dtype=bool)
        mask[legal] = True
        return mask

    def _apply(self, move: Move) -> None:
        kind = move.kind
        if kind == "stock":
            if self.stock:
                for _ in range(min(self.draw, len(self.stock))):
                    self.talon.append(self.stock.pop())
            else:  # a new pass: the talon turned over, no shuffle
                self.stock = self.talon[::-1]
                self.talon = []
                self.passes_used += 1
            return
        if kind == "talon_f":
            c = self.talon.pop()
            self.foundations[SUIT[c]] += 1
        elif kind == "talon_p":
            self.piles[move.dst].append(self.talon.pop())
        elif kind == "pile_f":
            c = self.piles[move.src].pop()
            self.foundations[SUIT[c]] += 1
            self._flip(move.src)
        else:
            src = self.piles[move.src]
            k = self._run_start(move.src, move.dst)
            self.piles[move.dst].extend(src[k:])
            del src[k:]
            self._flip(move.src)

    def _flip(self, i: int) -> None:
        """Automatic step: a face-down card that becomes the last of its pile turns face up."""
        if self.down[i] and self.down[i] == len(self.piles[i]):
            self.down[i] -= 1

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return sum(self.foundations)

    @property
    def counter_score(self) -> int:
        """The book's counter score: -52 + 5 per card on the foundations."""
        return -52 + 5 * self.foundation_cards

    def extra_info(self) -> dict[str, Any]:
        return {"counter_score": self.counter_score}

    def moving_card(self, move: Move) -> int | None:
        kind = move.kind
        if kind in ("talon_f", "talon_p"):
            return self.talon[-1] if self.talon else None
        if kind == "pile_f":
            pile = self.piles[move.src]
            return pile[-1] if pile else None
        if kind == "pile_p":
            k = self._run_start(move.src, move.dst)
            if k < 0 and self.piles[move.src]:
                k = self.down[move.src]
            return self.piles[move.src][k] if k >= 0 else None
        return None

    def describe(self, action: int) -> str:
        if self.moves[action].kind == "stock" and not self.stock:
            return "talon turned over -> stock (new pass)"
        return super().describe(action)

    def observe(self, out: np.ndarray) -> None:
        hot: list[int] = []
        for i, pile in enumerate(self.piles):
            d = self.down[i]
            if d:
                hot += [c * _NP + _HIDDEN for c in pile[:d]]
            hot += [c * _NP + i for c in pile[d:]]
        for s, n in enumerate(self.foundations):
            hot += _FOUND_HOT[s][n]
        hot += [c * _NP + _HIDDEN for c in self.stock]
        talon = self.talon
        if talon:
            hot += [c * _NP + _TALON_BELOW for c in talon[:-_FAN]]
            # talon[-1] at "talon top", talon[-2] at "second from top", talon[-3] at "third"
            hot += [c * _NP + _TALON_TOP + k for k, c in enumerate(reversed(talon[-_FAN:]))]
        out[hot] = 1.0
        if self.passes is None:
            left = 1.0
        else:
            left = (self.passes - self.passes_used) / (self.passes - 1) if self.passes > 1 else 0.0
        o = self._o_down
        out[o : o + 14] = [d / 6.0 for d in self.down] + [n / 13.0 for n in self.foundations] + [
            len(self.stock) / 24.0,
            len(self.talon) / 24.0,
            left,
        ]

    def cards_in_play(self) -> list[int]:
        found = [s * 13 + r for s, n in enumerate(self.foundations) for r in range(n)]
        return [c for p in self.piles for c in p] + self.stock + self.talon + found

    def heuristic(self) -> float:
        """Foundation progress first, then uncovering face-down cards, then playing off the
        stock and talon. Turning the stock scores 0, and ties go to the lower action id, so the
        greedy policy turns the stock before it shuffles builds between piles."""
        return (
            10.0 * self.foundation_cards
            - 5.0 * sum(self.down)
            - 0.5 * (len(self.talon) + len(self.stock))
        )

    def render(self) -> str:
        found = " ".join(
            card_name(s * 13 + n - 1) if n else "--" + "CDHS"[s] for s, n in enumerate(self.foundations)
        )
        passes = "unlimited" if self.passes is None else f"{self.passes_used}/{self.passes}"
        lines = [
            f"Klondike  draw {self.draw}  pass {passes}  foundations: {found}",
            f"stock: {len(self.stock)} cards   talon: "
            + (" ".join(NAME[c] for c in self.talon[-3:]) if self.talon else "(empty)"),
        ]
        for i, pile in enumerate(self.piles):
            d = self.down[i]
            lines.append(f"pile {i}: " + " ".join(["##"] * d + [NAME[c] for c in pile[d:]]))
        return "\n".join(lines)
