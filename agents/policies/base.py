"""The policy protocol and the baseline policies, random and greedy, with greedy's one-step
look-ahead (:func:`look_ahead`, :func:`greedy_pick`) that the move features and the planner share.
A policy maps the live environment to an action id; :func:`agents.registry.make_policy` builds one
from a spec string.

Every policy takes the unwrapped :class:`~patience_gym.env.PatienceEnv` (for the mask and, for the
greedy one, the rules core) and the observation; it must pick a legal action.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from patience_gym.core.game import Game
from patience_gym.env import PatienceEnv
from patience_gym.native import reference

from .heuristics import heuristic_for
from .shadow import Shadow


class Policy(Protocol):
    name: str

    def reset(self, seed: int) -> None:
        """Called before each episode with that episode's seed."""

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int: ...


class RandomPolicy:
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(env.action_masks())))


@dataclass(frozen=True)
class Trial:
    """One legal move tried one step ahead."""

    action: int
    key: object
    """The real position the move leads to (compared with the positions met, never read)."""
    visits: int
    """Decisions taken in that position this episode."""
    heuristic: float
    """The heuristic of the position the move leads to in the shadow (what a player can compute)."""
    gained: int
    """Foundation cards the move gains (in the shadow: the same as in the real game)."""


def look_ahead(
    game: Game[Any], shadow: Callable[[], Game[Any]], mask: np.ndarray, visits: dict[object, int]
) -> list[Trial]:
    """Every legal move of ``game`` (ascending ids) tried on a clone of it. A move that turns a card
    up is scored in the position's shadow (``shadow()``, :mod:`agents.policies.shadow`), so that card is
    never read; any other move reaches a position that agrees with its shadow's on everything the
    player sees, which is all a heuristic reads, so it is scored where it is."""
    heuristic = heuristic_for(type(game))
    unseen = len(game.unseen_positions())
    out = []
    for a in np.flatnonzero(mask).tolist():
        trial, before, after = try_move(game, shadow, a, unseen)
        key = trial.state_key()
        h, gained = heuristic(after), after.foundation_cards - before.foundation_cards
        out.append(Trial(a, key, visits.get(key, 0), h, gained))
    return out


def try_move(
    game: Game[Any], shadow: Callable[[], Game[Any]], action: int, unseen: int
) -> tuple[Game[Any], Game[Any], Game[Any]]:
    """``action`` tried on a clone of ``game`` (``unseen``: its count of unseen positions): the real
    successor (for its key), and the positions a player may score it by, before and after. Those
    are ``game`` and the successor, or, where the move turns a card up, the shadow
    (``shadow()``) and the shadow's successor, so that the card is never read; any other move
    reaches a position that agrees with its shadow's on everything the player sees."""
    trial = game.clone()
    trial.apply(action)
    if len(trial.unseen_positions()) == unseen:  # nothing turned up (seen cards stay seen)
        return trial, game, trial
    before = shadow()
    blind = before.clone()
    blind.apply(action)
    return trial, before, blind


def greedy_order(trials: Sequence[Trial]) -> list[int]:
    """The moves in greedy's order of preference: to the position visited least, then the best
    heuristic, then the lowest id. (One rule, written here: :func:`greedy_pick` takes the first,
    the move features' ``greedy`` column is that choice, ``safe`` walks down the list.)"""
    return [t.action for t in sorted(trials, key=lambda t: (t.visits, -t.heuristic, t.action))]


def greedy_pick(trials: Sequence[Trial]) -> int:
    """Greedy's choice: the first move of :func:`greedy_order`."""
    return greedy_order(trials)[0]


class GreedyPolicy:
    """One-step lookahead on the variant's heuristic (:mod:`agents.policies.heuristics`).

    Each legal action is tried and scored; the best score wins, ties go to the lowest action id
    (variants order their tables with this in mind). A cycle guard counts the visits to each
    position in the episode and prefers the successor visited least, so a policy caught between
    equally scored positions walks through them all instead of bouncing between two.

    It never reads a hidden card: a move that turns a card up is scored where it leads in the
    game's *shadow* (:mod:`agents.policies.shadow`, the deal with its unseen cards dealt again in a fixed
    order), so that card is a guess, the same whatever the real card is (:func:`look_ahead`).
    The shadow is replayed from the moves of the episode: greedy learns each of its own moves
    from the position it finds at its next call, and is told of moves it did not choose with
    :meth:`follow` (the planner does so).
    """

    name = "greedy"

    def __init__(self) -> None:
        self.visits: dict[object, int] = {}
        self.history: list[int] = []  # the actions played since the deal
        self.shadow = Shadow()
        self._leads_to: dict[object, int] | None = None  # its last choice's successors: key -> action

    def reset(self, seed: int) -> None:
        self.visits, self.history, self._leads_to = {}, [], None
        self.shadow.reset()

    def follow(self, env: PatienceEnv, action: int) -> None:
        """Another policy plays ``action`` in the current position: count the visit and the move."""
        self.follow_game(reference(env.game), action)

    def follow_game(self, game: Game[Any], action: int) -> None:
        """:meth:`follow` on the Python game of the position where ``action`` is played; a policy
        that calls greedy rarely may thus tell it of its moves late, on a replay of the game, in
        the order they were played and before greedy's next choice (``MacroPolicy`` does)."""
        self._enter(game)
        self.history.append(int(action))

    def advise(self, env: PatienceEnv, obs: np.ndarray) -> int:
        """Greedy's move now; whichever move is then played, greedy learns it at its next call
        (from the position it leads to), so :meth:`commit` has nothing to do."""
        return self(env, obs)

    def commit(self, env: PatienceEnv, action: int) -> None:
        """Nothing: the move played is learnt from the next position (see :meth:`advise`)."""

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        return greedy_pick(self.trials(env))

    def trials(self, env: PatienceEnv) -> list[Trial]:
        """Every legal move tried as greedy tries it, this position counted as visited once more:
        a choice made from them, greedy's or another, is learnt at the next call as greedy's own."""
        game = reference(env.game)  # the Python twin on the native engine: clones are cheap there
        self._enter(game)
        shadow = lambda: self.shadow.of(game, self.history)  # noqa: E731  (built only if needed)
        trials = look_ahead(game, shadow, env.action_masks(), self.visits)
        self._leads_to = {t.key: t.action for t in reversed(trials)}  # equal successors: lowest id
        return trials

    def _enter(self, game: Game[Any]) -> None:
        """Learn the move played since the last choice, from the position it led to, and count a
        visit to this position (keyed on the Python twin, like the trial positions: a native
        game's key, bytes, would never equal a twin's)."""
        key = game.state_key()
        if self._leads_to is not None:
            action = self._leads_to.get(key)
            if action is None:
                raise RuntimeError(
                    "GreedyPolicy: this position is not one its last choice leads to; call "
                    "reset(seed) with each new deal, and follow(env, action) for each move another "
                    "policy plays"
                )
            self.history.append(action)
            self._leads_to = None
        self.visits[key] = self.visits.get(key, 0) + 1
