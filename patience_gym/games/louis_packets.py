"""The packets of the "Louis" Patience as observation rows (patience_gym.games.louis).

Every dealt card was seen, so the observation carries each packet in full: for each card the
copies the packet holds / 2, and the cards lying on its uppermost copy and (when the packet holds
both copies) on its lower copy. A depth ``d`` reads ``d / (d + 8)``: fine steps near the top,
where play is, yet never capped, so two packets that differ however deep down never look the
same, and the packet's order reads back in full from the observation.
"""

from __future__ import annotations

import numpy as np

from patience_gym.core.cards import N_KINDS

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


def packet_rows(packets: list[list[int]]) -> Rows:
    """Copies / 2, depth of the uppermost copy and depth of the lower copy of each card, packet by
    packet (``(len(packets) * 52,)`` each; all 0 for an empty packet)."""
    held: list[np.ndarray] = []
    depth: list[np.ndarray] = []
    lower: list[np.ndarray] = []
    for pile in packets:
        rows = _rows(pile) if pile else (_EMPTY, _EMPTY, _EMPTY)
        held.append(rows[0])
        depth.append(rows[1])
        lower.append(rows[2])
    return np.concatenate(held), np.concatenate(depth), np.concatenate(lower)
