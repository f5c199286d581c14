"""Where each card is: the one card-place encoder for the observation of every variant.

The ``card_place`` segment of an observation is a ``(52, n_places)`` table: for each card and
each place a player can name (a pile, the talon, a foundation, "face down"), the copies of that
card lying there divided by the number of packs. With one pack it is a one-hot per card; with two
packs each entry is 0, 0.5 or 1, so the two interchangeable copies need no identity of their own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from patience_gym.core.cards import N_KINDS

#: The talon's places, top first, for a game whose talon lies fanned: the render shows its top
#: three cards in order, so each has a place of its own (talons that differ only in the order of
#: those three never share an observation); the cards below them were seen when turned, but their
#: order is not observed, so they share one place.
TALON_PLACES = (
    "talon top",
    "talon second from top",
    "talon third from top",
    "talon below the top three (seen)",
)
#: The talon cards with a place of their own: the top, the second and the third.
FAN = 3


class CardPlaces:
    """Encode "which place holds the copies of each card" into a flat observation slice."""

    # Each game lists its places (numbered piles, then single places) in one declaration; The
    # Congress's and Nestor's read alike line by line (a scan pairs them by shape), as data.

    def __init__(self, places: Sequence[str], n_packs: int) -> None:
        self.places = tuple(places)
        self.n_places = len(self.places)
        self.n_packs = n_packs
        self.weight = np.float32(1.0 / n_packs)  # a Python float would send np.add.at down its slow path

    @property
    def shape(self) -> tuple[int, int]:
        return (N_KINDS, self.n_places)

    def doc(self) -> str:
        per = "one-hot per card" if self.n_packs == 1 else f"copies of each card / {self.n_packs}"
        return f"{per} at: " + "; ".join(self.places)

    def index(self, place: int, cards: Iterable[int]) -> list[int]:
        """Flat indices (within the segment) of ``cards`` at ``place``."""
        n = self.n_places
        return [c * n + place for c in cards]

    def talon(self, top: int, talon: Sequence[int]) -> list[int]:
        """Flat indices of a fanned ``talon`` (last card on top) whose :data:`TALON_PLACES` start
        at place ``top``: ``talon[-1]`` at ``top``, ``talon[-2]`` and ``talon[-3]`` at the next
        two, the cards below them all at ``top + FAN``."""
        where = self.index(top + FAN, talon[:-FAN])
        for k, c in enumerate(reversed(talon[-FAN:])):
            where += self.index(top + k, (c,))
        return where

    def write(self, out: np.ndarray, start: int, indices: list[int]) -> None:
        """Add one copy at each of ``indices`` (from :meth:`index`) to ``out[start:]``."""
        if not indices:
            return
        idx = np.asarray(indices, dtype=np.intp) + start
        if self.n_packs == 1:
            out[idx] = 1.0
        else:
            np.add.at(out, idx, self.weight)
