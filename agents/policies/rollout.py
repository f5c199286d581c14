"""``rollout`` and ``rollout:N``: at every decision, the move whose rollouts end with the most
foundation cards, among those greedy's cycle guard allows (the *rollout choice*, column 9 of the
move features: :mod:`agents.policies.features`).
"""

from __future__ import annotations

import numpy as np

from patience_gym.env import PatienceEnv

from .features import K_ROLLOUT, MoveFeaturizer


class RolloutPolicy:
    """The rollout choice (column 9 of the table in :mod:`agents.policies.features`) at every
    decision: among the moves greedy's cycle guard allows, the one whose ``rollouts`` rollouts end
    with the most foundation cards on average; ties go to greedy's choice. Spec ``rollout`` or
    ``rollout:N``.

    It reads what the move features read: the legal moves, visits compared by key, consistent
    deals that hold the real cards only where the player has seen them. Its choices therefore never
    depend on a hidden card (tests/agents/policies/test_move_features.py plays two deals that differ
    only there).
    """

    def __init__(self, rollouts: int = 16) -> None:
        if isinstance(rollouts, bool) or not isinstance(rollouts, int) or rollouts < 1:
            raise ValueError(f"policy 'rollout:N' needs N a positive whole number, got {rollouts!r}")
        self.featurizer = MoveFeaturizer(rollouts)
        self.name = f"rollout:{rollouts}"
        self._last: tuple[np.ndarray, int] | None = None
        self.how = ""

    def reset(self, seed: int) -> None:
        """Deterministic: the episode's visits start afresh, nothing else to reseed."""
        self.featurizer.reset()
        self._last = None

    def advise(self, env: PatienceEnv, obs: np.ndarray) -> int:
        """Its move here, without playing it (a DAgger round: :meth:`commit` says what was played).
        ``how`` says whether the rollouts kept greedy's choice (``greedy``) or overrode it."""
        features = self.featurizer(env).reshape(-1, K_ROLLOUT)
        action = int(np.argmax(features[:, 9]))
        self._last = (features, env.game.win_cards)
        self.how = "greedy" if features[action, 6] > 0 else "override"
        return action

    def commit(self, env: PatienceEnv, action: int) -> None:
        """``action`` is played here: the visits and the shadow's moves follow it."""
        self.featurizer.played(action)

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        action = self.advise(env, obs)
        self.commit(env, action)
        return action

    def vote_shares(self, temperature: float = 1.0) -> dict[int, float]:
        """The last decision's target for a learner (issue 46's labels,
        :mod:`agents.training.exit`): half on the rollout choice, half spread over the moves greedy's
        cycle guard allows by a softmax of their rollouts' mean foundation cards, ``temperature``
        cards wide (a move one card worse gets ``e**-1`` of the best's weight). So the choice stays
        the target's largest share, and what the rollouts said of the other moves is kept too."""
        if self._last is None:
            raise RuntimeError("vote_shares() needs a decision first: call the policy on a position")
        features, win_cards = self._last
        legal = np.flatnonzero(features[:, 0] > 0)
        choice = int(np.argmax(features[:, 9]))
        visits = features[legal, 3]
        allowed = legal[visits == visits.min()]
        cards = features[allowed, 7] * win_cards
        weights = np.exp((cards - cards.max()) / temperature)
        shares = {int(a): 0.5 * float(w) for a, w in zip(allowed, weights / weights.sum(), strict=True)}
        shares[choice] = shares.get(choice, 0.0) + 0.5
        return shares


def make_rollout_policy(settings: str | None) -> RolloutPolicy:
    """``rollout`` (``None``: 16 rollouts) or ``rollout:N``; anything else is refused with what is allowed."""
    if settings is None:
        return RolloutPolicy()
    if not settings.isdigit() or int(settings) < 1:
        raise ValueError(f"policy 'rollout:{settings}': N must be a positive whole number, e.g. rollout:16")
    return RolloutPolicy(int(settings))
