"""What each legal move does, as ``K`` numbers per action, computed by the native engine.

The input of the per-move scoring policy (:mod:`patience_gym.agents.policies.move_policy`): the
batched engine computes the block for every row after each step (``PatienceSB3VecEnv(...,
move_features=True)`` and ``PatienceVectorEnv(..., move_features=True)`` append it to the
observation), and
:func:`move_features` gives the same block for one ``PatienceEnv`` on the native engine.
Each legal move is played on a copy of the game (``src/native/move_features.cpp``) and the copy
compared with the position now. Row ``a`` of the ``(n_actions, K)`` block, all zero when the env
does not offer ``a`` (every row once the game is won):

==========  =======================================================================================
legal       1
gained      foundation cards the move gains (automatic steps included) / 4, clipped to [-1, 1]
wins        1: the move wins the game
uncovers    1: the move turns up a card the player has not seen (an unseen-card entry of the
            observation goes down); the columns gained .. undoes are then 0 (see below)
mobility    (legal moves after it - legal moves now) / 8, clipped to [-1, 1]
opened      moves legal after it that are not legal now / 8, at most 1
dead_end    1: no legal move is left after it and the game is not won
undoes      1: it leads back to the position before the previous move (canonical hash equal)
kind        the move's kind, ``(index in table order + 1) / kinds``
source      the move's source place, ``(src + 1) / (largest src in the table + 1)``; 0 for none
target      the move's destination place, ``(dst + 1) / (largest dst + 1)``; 0 for none
==========  =======================================================================================

The names, their order and ``K`` come from the engine (``MOVE_FEATURE_NAMES`` in
``src/native/move_features.hpp``, read by :func:`feature_names`); a test holds this table to them.
Every column describes the move; none is another policy's choice, a heuristic's score or a search
result.

**Nothing hidden is read.** The position after a move that turns a card up shows that card, so
such a move is described (legal, uncovers, kind, source, target) and nothing is read after it.
Which observation entries count unseen cards is read from the layout (:func:`hidden_entries`):
the ``card_place`` places whose name says "not visible" or "face down", and the ``unseen`` and
``pack_size`` segments. A move after which one of them is lower uncovers (conservatively: a deal
from a pack already seen counts too, and so does a Klondike turn with ``stock="known"``, whose
stock cards keep the "not visible" place of ``card_place``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from gymnasium import spaces

from patience_gym.core.game import Game
from patience_gym.native import NativeGame, _module

__all__ = ["BatchFeatures", "FeatureSpec", "feature_names", "feature_spec", "move_features", "n_features"]

#: Words that mark a ``card_place`` place as unseen cards.
HIDDEN_PLACE_WORDS = ("not visible", "face down")
#: Segments that count unseen cards.
HIDDEN_SEGMENTS = ("unseen", "pack_size")


@lru_cache(maxsize=1)
def feature_names() -> tuple[str, ...]:
    """The columns, in order (the engine's ``MOVE_FEATURE_NAMES``)."""
    return tuple(_module().move_feature_names())


def n_features() -> int:
    """``K``: the features per action."""
    return len(feature_names())


@dataclass(frozen=True)
class FeatureSpec:
    """The variant's side of the features: ``fixed`` (n_actions, 3) float32, the kind, source and
    target columns of each action; ``hidden`` the observation entries that count unseen cards."""

    fixed: np.ndarray
    hidden: np.ndarray


def hidden_entries(game: Game[Any]) -> np.ndarray:
    """The observation indices that count unseen cards (module docstring), int32, sorted."""
    found: list[np.ndarray] = []
    for seg in game.layout.segments:
        index = np.arange(seg.start, seg.stop)
        if seg.name in HIDDEN_SEGMENTS:
            found.append(index)
        elif seg.name == "card_place":
            # its doc names the places: "<what>: place; place; ..." (as scripts/gen_native.py reads it)
            places = seg.doc.split(": ", 1)[-1].split("; ")
            hidden = [k for k, p in enumerate(places) if any(w in p for w in HIDDEN_PLACE_WORDS)]
            found.append(index.reshape(-1, len(places))[:, hidden].ravel())
    return np.sort(np.concatenate(found)).astype(np.int32) if found else np.zeros(0, dtype=np.int32)


def _fixed_columns(game: Game[Any]) -> np.ndarray:
    """Per action: its kind, source and target, scaled (module docstring)."""
    kinds: dict[Any, int] = {}
    for move in game.moves:
        kinds.setdefault(move.kind, len(kinds))
    src_top = max(m.src for m in game.moves) + 1
    dst_top = max(m.dst for m in game.moves) + 1
    fixed = np.zeros((len(game.moves), 3), dtype=np.float32)
    for a, move in enumerate(game.moves):
        fixed[a, 0] = (kinds[move.kind] + 1) / len(kinds)
        fixed[a, 1] = (move.src + 1) / src_top if move.src >= 0 else 0.0
        fixed[a, 2] = (move.dst + 1) / dst_top if move.dst >= 0 else 0.0
    return fixed


_SPECS: dict[tuple[type, int], FeatureSpec] = {}


def feature_spec(game: Game[Any]) -> FeatureSpec:
    """The :class:`FeatureSpec` of ``game``'s variant (made once per game class and observation
    size: the table of a game is the same for every option, and its layout too but for segments
    an option appends at its end, as scripts/gen_native.py checks)."""
    key = (game.PYTHON if isinstance(game, NativeGame) else type(game), game.layout.size)
    if key not in _SPECS:
        _SPECS[key] = FeatureSpec(_fixed_columns(game), hidden_entries(game))
    return _SPECS[key]


def _native_game(env_or_game: Any) -> NativeGame:
    game = env_or_game if isinstance(env_or_game, Game) else env_or_game.unwrapped.game
    if not isinstance(game, NativeGame):
        raise ValueError("the move features need the native engine (gym.make(id, engine='native'))")
    return game


def move_features(env_or_game: Any) -> np.ndarray:
    """The ``(n_actions, K)`` float32 block of a ``PatienceEnv`` on the native engine (or of its
    ``NativeGame``) at its current position: the batched env's row for the same position and
    moves since the deal."""
    game = _native_game(env_or_game)
    spec = feature_spec(game)
    out = np.zeros((game.n_actions, n_features()), dtype=np.float32)
    game.move_features(spec.fixed, spec.hidden, out)
    return out


def with_features(space: spaces.Space[Any], n_actions: int) -> spaces.Box:
    """The observation space ``space`` (a ``Box``) followed by ``n_actions * K`` features in [-1, 1]."""
    assert isinstance(space, spaces.Box), space
    extra = n_actions * n_features()
    low = np.concatenate([space.low, np.full(extra, -1.0, dtype=np.float32)])
    high = np.concatenate([space.high, np.full(extra, 1.0, dtype=np.float32)])
    return spaces.Box(low, high, dtype=np.float32)


class BatchFeatures:
    """The features of a native batch's rows: the ``(N, n_actions, K)`` float32 ``block``, written
    by one native call (:meth:`update`). Plain numpy: a batch pickles it with its state and
    :meth:`attach` es it to each C++ batch it builds."""

    def __init__(self, game: Game[Any], num_envs: int) -> None:
        self.spec = feature_spec(game)
        self.block: np.ndarray = np.zeros((num_envs, game.n_actions, n_features()), dtype=np.float32)

    def attach(self, engine: Any) -> None:
        """Turn the features on in the C++ batch ``engine`` (before its first reset)."""
        engine.set_move_features(self.spec.fixed, self.spec.hidden)

    def update(self, engine: Any, rows: np.ndarray) -> None:
        """Rewrite the block's ``rows`` (bool, N) for the games' current positions."""
        engine.move_features(rows, self.block)

    def observations(self, obs: np.ndarray, rows: Any = slice(None)) -> np.ndarray:
        """``obs`` (the observation rows ``rows``) with their features appended: a new array."""
        flat = self.block.reshape(len(self.block), -1)  # a view, made here: a copy must not share it
        return np.concatenate([obs, flat[rows]], axis=-1)
