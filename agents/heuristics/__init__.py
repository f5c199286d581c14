"""The greedy baseline's knowledge of each game: a score for a position.

One module per game, named like the game's rules module (``agents/heuristics/klondike.py`` for
``patience_gym/games/klondike.py``), defines ``heuristic(game) -> float``. A heuristic reads only
what a player can see (counts of face-down cards, never their identity): the greedy policy scores
the positions a one-step lookahead reaches, and a look at a card the move turned up would be
cheating.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from patience_gym.core.game import Game

Heuristic = Callable[[Any], float]


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
