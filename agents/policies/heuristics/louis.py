"""The "Louis" Patience / St. Louis: greedy's score for a position.

10 per card played to the foundations, minus 0.25 per card lying on each card the foundations
want next (4 for a wanted card not dealt yet: it is somewhere in the face-down pack, whose order
is never read), plus 3 per re-deal kept.
"""

from __future__ import annotations

from patience_gym.core.cards import card
from patience_gym.games.louis import DOWN_ROW, UP_ROW, Louis

HIDDEN_DEPTH, BURIED_W, REDEAL_W = 4, 0.25, 3.0


def heuristic(game: Louis) -> float:
    """Foundation progress first; then how deep the cards the foundations want next lie in the
    packets (only dealt, visible cards count), then re-deals kept in hand."""
    found = [len(pile) for pile in game.foundations]
    wanted: dict[int, int] = {}
    for s in range(4):
        if found[UP_ROW + s] < 13:
            wanted[card(found[UP_ROW + s] + 1, s)] = 99
        if found[DOWN_ROW + s] < 13:
            wanted[card(13 - found[DOWN_ROW + s], s)] = 99
    for pile in game.packets:
        n = len(pile)
        for k, c in enumerate(pile):
            if c in wanted and n - 1 - k < wanted[c]:
                wanted[c] = n - 1 - k
    if game.turned in wanted:
        wanted[game.turned] = 0
    # a wanted card not dealt yet lies somewhere in the face-down pack: count an average depth
    buried = sum(HIDDEN_DEPTH if d == 99 else d for d in wanted.values())
    return 10.0 * game.foundation_cards - BURIED_W * buried + REDEAL_W * game.redeals_left
