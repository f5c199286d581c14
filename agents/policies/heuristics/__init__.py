"""The greedy baseline's knowledge of each game: a score for a position.

One module per game, named like the game's rules module (``agents/policies/heuristics/klondike.py`` for
``patience_gym/games/klondike.py``), defines ``heuristic(game) -> float``. A heuristic reads only
what a player can see in the position it is given (counts of face-down cards, never their
identity). The positions greedy scores are those a move reaches; where the move turns a card up,
greedy scores the position in the game's shadow (:mod:`agents.policies.shadow`), so the card read there is
a fixed guess, never the real one.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import import_module
from typing import Any

from patience_gym.core.game import Game

Heuristic = Callable[[Any], float]


@cache  # asked at every decision of greedy and the move features
def heuristic_for(game_type: type[Game[Any]]) -> Heuristic:
    """The heuristic of ``game_type``'s variant."""
    name = game_type.__module__.rsplit(".", 1)[-1]
    try:
        module = import_module(f"{__name__}.{name}")
    except ModuleNotFoundError:
        legacy = getattr(game_type, "heuristic", None)  # a rules module not moved out yet (Louis)
        if legacy is None:
            raise LookupError(f"no heuristic for {game_type.__name__}: add {__name__}.{name}") from None
        fallback: Heuristic = legacy
        return fallback
    fn: Heuristic = module.heuristic
    return fn
