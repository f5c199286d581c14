"""Piles of a two-pack game as observation rows, each pile's order in full (the packets of the
"Louis" Patience, patience_gym.games.louis; a re-dealt pack the player saw gathered, with
``recall=True`` in Louis and Babette).

For each card: the copies the pile holds / 2, and the cards lying on its uppermost copy and (when
the pile holds both copies) on its lower copy. A depth ``d`` reads ``d / (d + 8)``: fine steps
near the top, where play is, yet never capped, so two piles that differ however deep down never
look the same, and the pile's order reads back in full from the observation. A pack is a pile
whose top is the next card dealt: a card's depth is the number of cards dealt before it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from patience_gym.core.cards import N_KINDS
from patience_gym.core.game import Option

#: The option of the games whose pack is gathered from cards in view and dealt again unshuffled.
RECALL: Option[Any] = Option(
    False,
    "True: the observation also gives a re-dealt pack's order (pack_cards, pack_depth, "
    "pack_depth_lower), which the player saw as the cards were gathered, without a shuffle; "
    "False (the observation as first registered): its size only. The play is unchanged",
    (False, True),
    view_only=True,
)
#: The segments ``recall=True`` appends to the layout: the re-dealt pack as a pile (:func:`pile_rows`),
#: all 0 until the first re-deal (that pack was never seen).
PACK_SEGMENTS: list[tuple[str, tuple[int, ...], str]] = [
    ("pack_cards", (N_KINDS,), "recall=True only: copies of each card in a re-dealt pack / 2; 0 before"),
    ("pack_depth", (N_KINDS,), "recall=True only: cards dealt before the card's first copy, d / (d + 8)"),
    (
        "pack_depth_lower",
        (N_KINDS,),
        "recall=True only: both copies in the pack: cards dealt before the second one, d / (d + 8); else 0",
    ),
]

Rows = tuple[np.ndarray, np.ndarray, np.ndarray]

_EMPTY = np.zeros(N_KINDS, dtype=np.float32)
_DEPTH = tuple(np.float32(d / (d + 8)) for d in range(2 * N_KINDS))
# A move changes one or two packets, so most rows of a step come from this cache, keyed by the
# packet's cards; that keeps the observation at a handful of numpy calls instead of a Python loop
# over every dealt card. Content-keyed, so sharing it between games is safe; cleared when large.
_ROWS: dict[tuple[int, ...], Rows] = {}
_ROWS_MAX = 20000


def _rows(pile: list[int]) -> Rows:
    key = tuple(pile)
    rows = _ROWS.get(key)
    if rows is None:
        held = np.zeros(N_KINDS, dtype=np.float32)
        depth = np.zeros(N_KINDS, dtype=np.float32)
        lower = np.zeros(N_KINDS, dtype=np.float32)
        n = len(pile)
        for k, c in enumerate(pile):  # bottom to top: the uppermost copy's depth is written last
            if held[c]:  # the second copy: the first one's depth is the lower copy's
                lower[c] = depth[c]
            held[c] += 0.5
            depth[c] = _DEPTH[n - 1 - k]
        if len(_ROWS) >= _ROWS_MAX:
            _ROWS.clear()
        rows = _ROWS[key] = (held, depth, lower)
    return rows


def pile_rows(pile: list[int]) -> Rows:
    """Copies / 2, depth of the uppermost copy and depth of the lower copy of each card in
    ``pile`` (bottom first), ``(52,)`` each; all 0 for an empty pile. Shared: never write to them."""
    return _rows(pile) if pile else (_EMPTY, _EMPTY, _EMPTY)


def packet_rows(packets: list[list[int]]) -> Rows:
    """Copies / 2, depth of the uppermost copy and depth of the lower copy of each card, packet by
    packet (``(len(packets) * 52,)`` each; all 0 for an empty packet)."""
    held: list[np.ndarray] = []
    depth: list[np.ndarray] = []
    lower: list[np.ndarray] = []
    for pile in packets:
        rows = pile_rows(pile)
        held.append(rows[0])
        depth.append(rows[1])
        lower.append(rows[2])
    return np.concatenate(held), np.concatenate(depth), np.concatenate(lower)
