"""Babette: greedy's score for a position (it reads only the face-up garden and the foundations)."""

from __future__ import annotations

from patience_gym.games.babette import SUIT_PILES, Babette


def heuristic(game: Babette) -> float:
    """Foundation cards first, then how many available garden cards fit a foundation.

    Only foundation moves change the position in ways a player chooses between (up or down,
    which copy of a card); the bonus stays under 9, so dealing a row (no card played) always
    scores below a foundation move (+10) and the look at the dealt row cannot sway a choice.
    Richer scores (cards an auto-play would clear; how deep the next card of each pile lies)
    won no more games on deals 0-399, so the simple count stays.
    """
    playable = 0
    for _, x in game.available_places():
        up, down = SUIT_PILES[x]
        playable += game.fits(up, x) + game.fits(down, x)
    return 10.0 * game.foundation_cards + 9.0 * playable / (playable + 1)
