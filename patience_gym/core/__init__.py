"""The rules core: cards, the shared vocabulary and the :class:`Game` contract.

Nothing in ``patience_gym.core`` or ``patience_gym.games`` imports gymnasium.
"""

from patience_gym.core.game import Game, IllegalMove, Move, ObsLayout, Option

__all__ = ["Game", "IllegalMove", "Move", "ObsLayout", "Option"]
