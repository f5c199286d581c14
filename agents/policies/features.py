"""What each legal move does, as a few numbers per action: the input of PPO's move scorer.

A flat network over the observation cannot see where a move leads, nor how often the episode has
been there; greedy (:class:`agents.policies.base.GreedyPolicy`) sees both, and its cycle guard is what
keeps it from bouncing between two positions until the step limit. :class:`MoveFeaturizer` gives
a policy the same facts, for every action ``a`` (all zero when ``a`` is illegal):

=====  ===========================================================================================
0      1: the action is legal
1      foundation cards the move gains (capped at 8)
2      the variant's heuristic (:mod:`agents.policies.heuristics`) after the move minus now, over 10
3      ``log1p`` of the decisions taken in the position the move leads to, this episode
4      1: the move leads to a position not yet met this episode
5      1: the move leads back to the position of the previous decision (it undoes the last move)
6      1: greedy would choose it (fewest visits first, then the best heuristic, then the lowest id)
=====  ===========================================================================================

With ``rollouts=N`` (config ``rollout_features: N``) three columns of look-ahead follow, from
:func:`patience_gym.solver.rollout_values`: every legal move is played on the same N deals
consistent with what the player has seen (one deal when nothing is unseen) and the game rolled out
from there by the native base policy (``src/native/rollout.hpp``: single actions, never back to a
position met, the most foundation cards won, then the solver's move priority):

=====  ===========================================================================================
7      the foundation cards the move's rollouts end with, on average, over the variant's total
8      that average minus the best move's, over 10 (0 for the best; at least -5)
9      1: the *rollout choice*: the best average among the moves greedy's cycle guard allows (the
       fewest visits), ties going to greedy's choice; the move ``rollout:N`` plays
=====  ===========================================================================================

Where only one move is legal, nothing is rolled out: columns 7 and 8 are 0 and column 9 is 1.
The consistent deals are drawn from a generator seeded by the decision's index in the episode
(:data:`ROLLOUT_SEED`): they depend on *which* cards are unseen, never on where they lie, and a
policy and a wrapper that see the same game compute the same numbers.

**Nothing hidden is read.** A move that turns a card up is scored in the game's *shadow*
(:mod:`agents.policies.shadow`: the deal with its unseen cards dealt again in a fixed order), so that card
is never looked at (:func:`agents.policies.base.look_ahead`); greedy scores the same way, and column 6
is its choice (:func:`agents.policies.base.greedy_pick`). Visits are counted on the real positions'
keys, compared and never read (as greedy does): two deals that differ only in unseen cards pass
through positions that are equal, or not, alike.

:class:`MoveFeatures` is the Gymnasium wrapper that appends the features to the observation
(a flat ``Box``: observation then ``n_actions * K``) and counts visits per episode; the trained
policy (:class:`agents.policies.ppo.PPOPolicy`) rebuilds the same features when it plays.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from patience_gym.determinize import consistent_deck, unseen_positions
from patience_gym.env import PatienceEnv
from patience_gym.native import reference
from patience_gym.solver import rollout_values

from .base import Trial, greedy_pick, look_ahead
from .heuristics import heuristic_for
from .shadow import Shadow

#: Features per action without rollouts (the first table in the module docstring).
K = 7
#: Features per action with ``rollouts=N`` (both tables).
K_ROLLOUT = 10
FEATURE_NAMES = ("legal", "gained", "heuristic_change", "log_visits", "new_position", "undoes_last", "greedy")
ROLLOUT_FEATURE_NAMES = ("rollout_cards", "rollout_gap", "rollout_choice")
#: The rollouts' consistent deals at decision ``t`` of an episode come from ``(ROLLOUT_SEED, t)``.
ROLLOUT_SEED = 7


def features_per_action(rollouts: int = 0) -> int:
    """The features per action: :data:`K`, or :data:`K_ROLLOUT` with rollouts."""
    return K_ROLLOUT if rollouts else K


class MoveFeaturizer:
    """Per-action features of the current position, with the episode's visit counts.

    Call :meth:`reset` at the start of each episode, the featurizer itself (``features(env)``) at
    each decision (it counts the position as visited once more, as greedy does), and
    :meth:`played` with each action taken.
    """

    def __init__(self, rollouts: int = 0) -> None:
        if isinstance(rollouts, bool) or not isinstance(rollouts, int) or rollouts < 0:
            raise ValueError(f"rollouts must be a whole number >= 0, got {rollouts!r}")
        self.rollouts = rollouts
        self.k = features_per_action(rollouts)
        self.visits: dict[object, int] = {}
        self.history: list[int] = []
        self.previous: object = None
        self.shadows = Shadow()
        """The blind twin where moves that turn a card up are scored (module docstring)."""

    def reset(self) -> None:
        self.visits = {}
        self.history = []
        self.previous = None
        self.shadows.reset()

    def played(self, action: int) -> None:
        self.history.append(int(action))

    def __call__(self, env: PatienceEnv) -> np.ndarray:
        game = reference(env.game)
        out = np.zeros((game.n_actions, self.k), dtype=np.float32)
        # Keys of the Python rules core on both sides: a native game's key (bytes) never equals
        # the key of its Python twin's clone (a tuple), so mixing them would count no visit.
        key = game.state_key()
        visits = self.visits
        visits[key] = visits.get(key, 0) + 1
        previous, self.previous = self.previous, key
        mask = env.action_masks()
        if not mask.any():
            return out.reshape(-1)
        now = heuristic_for(type(game))(game)  # what a player sees now: the shadow's score too
        trials = look_ahead(game, lambda: self.shadows.of(game, self.history), mask, visits)
        for t in trials:
            row = out[t.action]
            row[0] = 1.0
            row[1] = min(t.gained, 8)
            row[2] = max(-5.0, min(5.0, (t.heuristic - now) / 10.0))
            row[3] = math.log1p(t.visits)
            row[4] = t.visits == 0
            row[5] = t.key == previous
        out[greedy_pick(trials), 6] = 1.0
        if self.rollouts:
            self._rollouts(env, trials, out)
        return out.reshape(-1)

    def _rollouts(self, env: PatienceEnv, trials: list[Trial], out: np.ndarray) -> None:
        """Columns 7 to 9 (module docstring)."""
        if len(trials) == 1:
            out[trials[0].action, 9] = 1.0
            return
        moves = [t.action for t in trials]
        rng = np.random.default_rng((ROLLOUT_SEED, len(self.history)))
        n = self.rollouts if unseen_positions(env) else 1
        mean = rollout_totals(env, self.history, moves, n, rng) / n
        best = float(mean.max())
        out[moves, 7] = mean / env.game.win_cards
        out[moves, 8] = np.maximum(-5.0, (mean - best) / 10.0)
        value = dict(zip(moves, mean.tolist(), strict=True))
        fewest = min(t.visits for t in trials)
        allowed = [t for t in trials if t.visits == fewest]
        top = max(value[t.action] for t in allowed)
        out[greedy_pick([t for t in allowed if value[t.action] == top]), 9] = 1.0


def rollout_totals(
    env: PatienceEnv, history: Sequence[int], moves: Sequence[int], n: int, rng: np.random.Generator
) -> np.ndarray:
    """For each of ``moves`` (legal now, after ``history`` since the deal), the foundation cards its
    rollouts end with, summed over ``n`` deals consistent with what the player has seen (drawn from
    ``rng``, the same deals for every move); each rollout keeps within the variant's step limit."""
    steps = max(1, env.variant.max_episode_steps - len(history))
    total = np.zeros(len(moves), dtype=np.int64)
    for _ in range(n):
        deck = consistent_deck(env, rng)
        total += rollout_values(env.variant, env.game.options, deck, history, moves, steps)
    return total


def feature_size(n_actions: int, rollouts: int = 0) -> int:
    """How many numbers :class:`MoveFeatures` appends for a variant with ``n_actions`` actions."""
    return n_actions * features_per_action(rollouts)


class MoveFeatures(gym.Wrapper[np.ndarray, Any, np.ndarray, Any]):
    """Append :class:`MoveFeaturizer`'s features to the observation: ``obs + n_actions * K``.

    Wrap the environment itself (inside any wrapper that resets to other deals), so that every
    step passes through here. ``action_masks()`` answers as the environment's does.
    """

    def __init__(self, env: gym.Env[np.ndarray, Any], rollouts: int = 0) -> None:
        super().__init__(env)
        self.core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
        base = env.observation_space
        assert isinstance(base, spaces.Box) and len(base.shape) == 1, "a flat Box observation"
        extra = feature_size(self.core.game.n_actions, rollouts)
        low = np.concatenate([base.low, np.full(extra, -5.0, np.float32)])
        high = np.concatenate([base.high, np.full(extra, 8.0, np.float32)])
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.featurizer = MoveFeaturizer(rollouts)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self.featurizer.reset()
        return self._with_features(obs), info

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if not info.get("illegal_action"):
            self.featurizer.played(int(action))
        return self._with_features(obs), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.core.action_masks()

    def _with_features(self, obs: np.ndarray) -> np.ndarray:
        return np.concatenate([obs, self.featurizer(self.core)])
