"""``turnbull``: Bill Turnbull's move-priority list for Klondike, a published blind rule player.

Bill's Solitaire Tester (billturnbull.com/Solitaire, "Logic") plays Windows Solitaire by an ordered
list of move categories, tuned by its author over millions of games; it reads only what the player
sees and does not remember the cards dealt. On Windows' rules (a sub-run may move; a foundation
card may come back) its version 3.2 reports, over 10,000 deals, 4.7% of games won at draw 1 with
one pass and 16.1% at draw 3 with unlimited passes. It is the open yardstick for a blind player of
one-pass Klondike (docs/planner.md), written here as its list says, on this project's rules:

====  ==================================================================  =========================
rank  category                                                            here
====  ==================================================================  =========================
1     talon ace to its foundation
2     pile ace to its foundation
3     turn the stock when the talon is empty
4     turn a face-down card up                                            automatic in this engine
5     a king heading a pile's face-up cards, with face-down cards
      under it, to an empty pile
6     a pile's face-up cards, with face-down cards under them, onto
      another pile
7     talon king to an empty pile
8     talon card (not an ace, not a king) to a pile
9     pile card (not an ace) to its foundation, the pile keeping a card
10    part of a pile's face-up cards moved so that the card under them    ``partial_moves=True``
      goes up next
11    a pile's only card (no face-down card under it) to its foundation
12    talon card (not an ace) to its foundation
13    (a pile card up so that the talon card can follow: 9 and 11 come
      first here)
14    a foundation card back onto a pile so that the talon card can go    ``worrying_back=True``
      on it
15    a foundation card back onto a pile so that a pile's face-up cards,  ``worrying_back=True``
      with face-down cards under them, can go on it
16    turn the stock when the talon shows a card
17    turn the talon over for a new pass (where passes are left)
18    a pile's face-up cards, nothing under them, onto another pile, so
      that a waiting king (the talon's, or one heading cards with
      face-down cards under it) can have the space
====  ==================================================================  =========================

Ties go, in categories 5 and 6, to the pile with the most face-down cards (as the list says), and
otherwise to the lowest action id. Where no listed move is legal, or the position was met before
(a whole pass of the stock without a play), the list has nothing to say: the greedy baseline's move
is played then (its cycle guard ends the game's wandering), and greedy is told of every move.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from patience_gym.core.cards import ACE, KING, RANK, SUIT
from patience_gym.core.foundations import EMPTY
from patience_gym.env import PatienceEnv
from patience_gym.games.klondike import FOUNDATIONS, Kind, Klondike, fits_tableau
from patience_gym.native import reference

from .base import GreedyPolicy

__all__ = ["TurnbullPolicy", "category"]

#: Rank of a move matched by none of the categories.
UNLISTED = 99


def _goes_up(game: Klondike, c: int) -> bool:
    """Card ``c`` goes on its foundation now (the rules' own foundation table)."""
    return FOUNDATIONS.accepts(game.foundations, SUIT[c], c)


def _last(game: Klondike, j: int) -> int:
    """Pile j's last card, or ``EMPTY`` (what :func:`fits_tableau` reads)."""
    return game.piles[j][-1] if game.piles[j] else EMPTY


def _king_waiting(game: Klondike) -> bool:
    """A king would take an empty pile: the talon's, or one heading face-up cards that lie on
    face-down ones."""
    if game.talon and RANK[game.talon[-1]] == KING:
        return True
    return any(game.down[i] and RANK[p[game.down[i]]] == KING for i, p in enumerate(game.piles) if p)


def _pile_move(game: Klondike, i: int, j: int) -> int:
    """The category of the legal move of pile i's face-up cards (from the first that fits) onto pile j."""
    pile, down = game.piles[i], game.down[i]
    last = _last(game, j)
    k = next(k for k in range(down, len(pile)) if fits_tableau(pile[k], last))
    if k > down:  # part of the face-up cards (partial moves)
        return 10 if _goes_up(game, pile[k - 1]) else UNLISTED
    if down:
        return 5 if last == EMPTY else 6
    return 18 if _king_waiting(game) and RANK[pile[k]] != KING else UNLISTED


def _back_move(game: Klondike, f: int, j: int) -> int:
    """The category of foundation f's top card brought back onto pile j."""
    c = game.foundations[f][-1]
    if game.talon and fits_tableau(game.talon[-1], c):
        return 14
    heads = (p[game.down[i]] for i, p in enumerate(game.piles) if p and game.down[i] and i != j)
    return 15 if any(fits_tableau(h, c) for h in heads) else UNLISTED


def category(game: Klondike, action: int) -> int:
    """The rank in the list (module docstring) of the legal ``action`` in ``game``; ``UNLISTED``
    where no category names it. Reads only what the player sees: the face-up cards, the talon's
    top, how many cards are face down, in the stock and on the foundations."""
    move = game.moves[action]
    match move.kind:
        case Kind.TALON_TO_FOUNDATION:
            return 1 if RANK[game.talon[-1]] == ACE else 12
        case Kind.PILE_TO_FOUNDATION:
            pile = game.piles[move.src]
            if RANK[pile[-1]] == ACE:
                return 2
            return 9 if len(pile) > 1 else 11
        case Kind.STOCK:
            if not game.stock:
                return 17
            return 3 if not game.talon else 16
        case Kind.TALON_TO_PILE:
            return 7 if RANK[game.talon[-1]] == KING else 8
        case Kind.PILE_TO_PILE:
            return _pile_move(game, move.src, move.dst)
        case Kind.FOUNDATION_TO_PILE:
            return _back_move(game, move.src, move.dst)
    return UNLISTED


class TurnbullPolicy:
    """Bill Turnbull's priority list (the module docstring), Klondike only. Spec ``turnbull``."""

    name = "turnbull"

    def __init__(self) -> None:
        self.greedy = GreedyPolicy()
        self.reset(0)

    def reset(self, seed: int) -> None:
        self.greedy.reset(seed)
        self.met: set[Any] = set()
        self.how = ""

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        if env.variant.game is not Klondike:
            raise ValueError(f"policy 'turnbull' plays Klondike only, not {env.variant.env_name}")
        game = reference(env.game)
        assert isinstance(game, Klondike)
        legal = [int(a) for a in np.flatnonzero(env.action_masks())]
        key = game.state_key()
        listed = [] if key in self.met else [self.order(game, a) for a in legal]
        self.met.add(key)
        rank, _, action = min(listed, default=(UNLISTED, 0, -1))
        if rank == UNLISTED:
            self.how = "greedy"
            return int(self.greedy(env, obs))
        self.how = str(rank)
        self.greedy.follow(env, action)
        return action

    @staticmethod
    def order(game: Klondike, action: int) -> tuple[int, int, int]:
        """The list's order: the category, then (categories 5 and 6) the most face-down cards
        under the pile moved, then the lowest id."""
        rank = category(game, action)
        under = game.down[game.moves[action].src] if rank in (5, 6) else 0
        return rank, -under, action


def make_turnbull() -> TurnbullPolicy:
    return TurnbullPolicy()
