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

    def reset(self, seed: int) -> None:
        """Deterministic: the episode's visits start afresh, nothing else to reseed."""
        self.featurizer.reset()

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        features = self.featurizer(env).reshape(-1, K_ROLLOUT)
        action = int(np.argmax(features[:, 9]))
        self.featurizer.played(action)
        return action


def make_rollout_policy(settings: str | None) -> RolloutPolicy:
    """``rollout`` (``None``: 16 rollouts) or ``rollout:N``; anything else is refused with what is allowed."""
    if settings is None:
        return RolloutPolicy()
    if not settings.isdigit() or int(settings) < 1:
        raise ValueError(f"policy 'rollout:{settings}': N must be a positive whole number, e.g. rollout:16")
    return RolloutPolicy(int(settings))
