"""The shared words that variants are declared with.

A patience's piles differ mostly in *how cards are built on them*: the direction of the sequence,
what the suit must do, and whether the ranks wrap from ace to king. :class:`Build` names one such
rule and answers "may ``card`` go on ``base``?" from a precomputed table, so the question costs one
list lookup on the hot path of a step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from patience_gym.core.cards import N_KINDS, RANK, RED, SUIT

Direction = Literal["up", "down", "either", "equal"]
SuitRule = Literal["same", "alternate", "any"]


@dataclass(frozen=True)
class Build:
    """How a card may be placed on another.

    ``direction``: ``up`` (card one rank above base), ``down`` (one below), ``either``, or
    ``equal`` (same rank: Nestor's pairs). ``suit``: ``same`` suit, ``alternate`` colour, or
    ``any``. ``wrap``: king and ace are adjacent (only Anna's foundations, J..A then K).
    """

    direction: Direction
    suit: SuitRule = "any"
    wrap: bool = False
    _table: tuple[tuple[bool, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        table = tuple(tuple(self._decide(base, c) for c in range(N_KINDS)) for base in range(N_KINDS))
        object.__setattr__(self, "_table", table)

    def _decide(self, base: int, c: int) -> bool:
        if self.suit == "same" and SUIT[base] != SUIT[c]:
            return False
        if self.suit == "alternate" and RED[base] == RED[c]:
            return False
        step = RANK[c] - RANK[base]
        if self.wrap:
            step = (step + 6) % 13 - 6  # K(13) next to A(1): 1-13 = -12 -> +1
        if self.direction == "equal":
            return step == 0
        if self.direction == "up":
            return step == 1
        if self.direction == "down":
            return step == -1
        return step in (1, -1)

    def fits(self, base: int, c: int) -> bool:
        """True when ``c`` may be placed on ``base`` under this rule."""
        return self._table[base][c]

    @property
    def table(self) -> tuple[tuple[bool, ...], ...]:
        """``table[base][card]``: the whole rule, for loops that want to skip the method call."""
        return self._table


# The rules that recur across the rule book.
SAME_SUIT_UP = Build("up", "same")
SAME_SUIT_DOWN = Build("down", "same")
SAME_SUIT_EITHER = Build("either", "same")
ALTERNATE_DOWN = Build("down", "alternate")
ALTERNATE_UP = Build("up", "alternate")
ANY_SUIT_UP = Build("up", "any")
ANY_SUIT_EITHER = Build("either", "any")
EQUAL_RANK = Build("equal", "any")
