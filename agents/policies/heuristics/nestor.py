"""Nestor: greedy's score for a position (every card it reads is face up)."""

from __future__ import annotations

from patience_gym.core.cards import RANK
from patience_gym.games.nestor import N_PLACES, Nestor


def heuristic(game: Nestor) -> float:
    """Pairs made first, then how many pairs the next position offers (all visible)."""
    ranks = [RANK[c] for c in map(game.card_at, range(N_PLACES)) if c is not None]
    options = len(ranks) - len(set(ranks))
    return 10.0 * len(game.discard) + options
