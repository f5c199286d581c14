"""Klondike: greedy's score for a position (it reads counts of face-down cards, never their faces)."""

from __future__ import annotations

from patience_gym.games.klondike import Klondike


def heuristic(game: Klondike) -> float:
    """Foundation progress first, then uncovering face-down cards, then playing off the stock and
    talon. Turning the stock scores 0, and ties go to the lower action id, so the greedy policy
    turns the stock before it shuffles builds between piles."""
    return 10.0 * game.foundation_cards - 5.0 * sum(game.down) - 0.5 * (len(game.talon) + len(game.stock))
