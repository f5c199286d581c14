"""Foundations: one helper for every variant's row of foundation piles.

The piles themselves are game state, kept as plain lists (``piles[f]`` lists pile ``f``'s cards,
first placed first), so cloning and comparing positions need nothing special. A
:class:`FoundationRow` holds the *rules* of the row: which cards may start each empty pile and how
each pile is built on, as a precomputed table ``fits[f][top][card]`` (``top`` = ``EMPTY`` for an
empty pile), so "may ``c`` go on pile ``f``?" and "the leftmost pile that takes ``c``" are table
look-ups on the hot path of a step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from patience_gym.core.cards import N_KINDS
from patience_gym.core.vocabulary import Build

#: The ``top`` index of an empty pile in :attr:`FoundationRow.fits`.
EMPTY = N_KINDS


@dataclass(frozen=True)
class Pile:
    """The rule of one foundation pile.

    ``build``: how a card goes on the pile's top card. ``starts``: the cards that may start the
    pile when it is empty (empty for a pile set out before the deal, which is never empty).
    ``accept``: an extra condition on the card (Anna: a queen never goes to a foundation).
    """

    build: Build
    starts: frozenset[int] = frozenset()
    accept: Callable[[int], bool] | None = None


@dataclass(frozen=True)
class FoundationRow:
    """The rules of a row of foundation piles, numbered left to right."""

    piles: tuple[Pile, ...]
    fits: tuple[tuple[tuple[bool, ...], ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        table = []
        for pile in self.piles:
            ok = [pile.accept is None or pile.accept(c) for c in range(N_KINDS)]
            rows = [
                tuple(ok[c] and pile.build.fits(top, c) for c in range(N_KINDS)) for top in range(N_KINDS)
            ]
            rows.append(tuple(ok[c] and c in pile.starts for c in range(N_KINDS)))
            table.append(tuple(rows))
        object.__setattr__(self, "fits", tuple(table))

    def __len__(self) -> int:
        return len(self.piles)

    def accepts(self, piles: Sequence[Sequence[int]], f: int, c: int) -> bool:
        """May card ``c`` go on pile ``f`` now?"""
        pile = piles[f]
        return self.fits[f][pile[-1] if pile else EMPTY][c]

    def first_accepting(
        self, piles: Sequence[Sequence[int]], c: int, among: Iterable[int] | None = None
    ) -> int:
        """The leftmost pile (of ``among``, default all) that takes ``c``, or -1."""
        fits = self.fits
        for f in range(len(fits)) if among is None else among:
            pile = piles[f]
            if fits[f][pile[-1] if pile else EMPTY][c]:
                return f
        return -1

    def any_accepts(self, piles: Sequence[Sequence[int]], c: int) -> bool:
        return self.first_accepting(piles, c) >= 0


def count_cards(piles: Sequence[Sequence[int]]) -> int:
    """Cards on all the piles."""
    return sum(map(len, piles))


def top_cards(piles: Sequence[Sequence[int]]) -> list[int]:
    """Each pile's top card, ``-1`` for an empty pile."""
    return [p[-1] if p else -1 for p in piles]
