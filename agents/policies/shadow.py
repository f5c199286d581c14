"""The blind twin of a game: where greedy and the move features look one move ahead.

A heuristic (:mod:`agents.policies.heuristics`) reads only what a player can see, but a move can turn a
card up (a dealt row, a stock card, a card freed or dealt by the move), and the heuristic of the
position after it would read that card: a one-step look at a hidden card. So the afterstates a
policy scores are those of a *shadow* game: the deal with its unseen cards dealt again in a fixed
order (:func:`~patience_gym.determinize.consistent_deck` with a fixed generator, which depends on
*which* cards are unseen, never on where they lie), replayed up to now and rebuilt whenever a card
turns up. The shadow agrees with the real game on everything the player has seen, so whatever a
move does in it is what a player could compute; two deals that differ only in unseen cards have
the same shadow (``tests/agents/policies/test_policies.py`` plays them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from patience_gym.core.game import Game
from patience_gym.determinize import consistent_deck

#: The shadow's hidden cards are dealt by this generator's seed: any fixed number will do.
SHADOW_SEED = 0


class Shadow:
    """The shadow of one episode's game. :meth:`reset` it with each new deal, then ask
    :meth:`of` for the shadow of the current position, given every action played since the deal."""

    def __init__(self) -> None:
        self.game: Game[Any] | None = None
        self._unseen: list[int] = []
        self._played = 0  # actions of the history already applied to ``game``

    def reset(self) -> None:
        self.game = None

    def of(self, game: Game[Any], history: Sequence[int]) -> Game[Any]:
        """The shadow of ``game`` (the Python rules core) after ``history``, the actions played
        since its deal: rebuilt when a card has turned up since it was dealt, else brought up to
        date with the actions played since the last call."""
        unseen = sorted(game.unseen_positions())
        if self.game is None or unseen != self._unseen or len(history) < self._played:
            shadow = type(game)(**game.options)
            shadow.new_game(deck=consistent_deck(game, np.random.default_rng(SHADOW_SEED)))
            self.game, self._unseen, self._played = shadow, unseen, 0
        for a in history[self._played :]:
            self.game.apply(a)
        self._played = len(history)
        return self.game
