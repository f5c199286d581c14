"""The Congress: greedy's score for a position (counts only for the pack)."""

from __future__ import annotations

from patience_gym.games.congress import Congress


def heuristic(game: Congress) -> float:
    """Foundation progress first, then freeing river cards (a river card married onto a help
    uncovers the one above it), then bringing the pack into play; an empty help place counts
    once eight are open. Counts only, never the identity of a card a refill turned up."""
    help_cards = sum(len(h) for h in game.helps)
    covered = sum(len(col) - 1 for col in game.rivers if col)
    empty_helps = 0 if game.pack else sum(1 for h in game.helps if not h)
    return 10.0 * game.foundation_cards + help_cards - covered - len(game.pack) + 1.0 * empty_helps
