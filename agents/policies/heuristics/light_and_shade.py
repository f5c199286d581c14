"""Light and Shade: greedy's score for a position (counts, and face-up cards only)."""

from __future__ import annotations

from patience_gym.games.light_and_shade import EMPTY, ONTO_AUX, LightAndShade


def heuristic(game: LightAndShade) -> float:
    """Foundation progress first, then cards built on the Auxiliaries, then emptying the
    talon before the pack, and a little for an empty Auxiliary (it takes any Rival).

    A re-deal (``redeals`` option) scores +0.5 a card: the talon's cards are worth more in a
    pack that will turn them again than buried under one another.

    With ``talon_to_auxiliaries=False`` the talon reaches the Auxiliaries only through a Rival,
    so a Rival is best kept empty as a way in for a talon card that fits (two moves, which a
    one-step lookahead sees only through the next two terms): an occupied Rival costs 2, and a
    Rival card that fits an Auxiliary earns 0.75 back. That term reads a card's identity, but
    only a talon card (seen before the move) can win by it: a pack card put straight into a
    Rival scores at most 0.5 - 2 + 0.75 = -0.75, below turning it onto the talon
    (0.5 - 1 = -0.5), which is legal whenever the pack has a card, so the lookahead never
    chooses by a card it has not seen. By default the talon builds on the Auxiliaries
    directly and full Rivals are worth more than empty ones: both terms are left out.
    """
    aux = game.aux
    score = (
        10.0 * game.foundation_cards
        + 1.0 * sum(len(p) for p in aux)
        + 0.5 * sum(1 for p in aux if not p)
        - 0.5 * len(game.pack)
        - 1.0 * len(game.talon)
    )
    if not game.talon_to_aux:
        tops = [p[-1] if p else -1 for p in aux]
        for c in game.rivals:
            if c != EMPTY:
                score -= 2.0
                if any(t < 0 or ONTO_AUX[t][c] for t in tops):
                    score += 0.75
    return score
