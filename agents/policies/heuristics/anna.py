"""Anna: greedy's score for a position (counts only; the pack's cards are never read)."""

from __future__ import annotations

from patience_gym.games.anna import Anna


def heuristic(game: Anna) -> float:
    """Non-knave foundation cards first, then cards held in the helps, then empty helps.

    Knaves are left out (they go up by themselves), so turning a card scores the same
    whatever it turns out to be: the lookahead learns nothing from the hidden pack. A
    marriage from the talon (+0.5) beats turning (0); filling an empty help from the talon
    (+0.5 - 0.3) too; emptying a help by a marriage scores +0.3; a marriage that only swaps
    two tops scores 0 and loses the tie to turning, which has the lower id.

    Under ``refill="pack"`` a help emptied is filled at once from the pack, and the clone the
    lookahead scores has drawn those cards: the score still cannot tell what they were. The
    refill adds one held card whatever it is (knaves drawn on the way are left out), and
    whether the help is filled at all is public: every knave not yet up is in the pack.
    """
    held = sum(len(h) for h in game.helps)
    empty = sum(1 for h in game.helps if not h)
    knaves = sum(1 for pile in game.foundations if pile)  # each started pile's first card
    return 10.5 * (game.foundation_cards - knaves) + 0.5 * held + 0.3 * empty
