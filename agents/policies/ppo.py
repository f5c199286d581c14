"""A trained ``MaskablePPO`` model as a policy (``make_policy("ppo:<path>")``).

::

    import gymnasium as gym
    import patience_gym  # registers the ids
    from sb3_contrib import MaskablePPO
    from agents.policies.features import MoveFeatures

    model = MaskablePPO.load("runs/ppo/nestor/best_model.zip", device="cpu")
    # The shipped configs train with move_features: true, so the model reads the observation with
    # each legal move's features appended (agents/policies/features.py), most with rollout_features: 16
    # (the model keeps the count); without move features, drop the wrapper.
    rollouts = getattr(model.policy, "feature_rollouts", 0)
    env = MoveFeatures(gym.make("patience_gym/Nestor-v0"), rollouts=rollouts)
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    print("won" if info["won"] else f"{info['foundation_cards']} cards on the foundations")
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agents.policies.features import MoveFeaturizer, feature_size
from patience_gym.env import PatienceEnv


def resolve_model_path(path: str | Path) -> Path:
    """A model file, or a training folder (its ``best_model.zip``, else ``final_model.zip``)."""
    p = Path(path)
    if p.is_dir():
        for name in ("best_model.zip", "final_model.zip"):
            if (p / name).is_file():
                return p / name
        raise ValueError(f"ppo:{path}: the folder holds neither best_model.zip nor final_model.zip")
    if not p.is_file() and p.with_suffix(".zip").is_file():
        p = p.with_suffix(".zip")
    if not p.is_file():
        raise ValueError(f"ppo:{path}: no such model file")
    return p


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> Any:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)  # one small forward pass per move: threads only add overhead
    try:
        return MaskablePPO.load(path, device="cpu")
    except ModuleNotFoundError as exc:
        if exc.name != "agents.move_scorer":
            raise
    # A model saved before the agents moved into rooms names its network by the old module path;
    # hand SB3 the class where it lives now.
    from agents.policies.move_scorer import MoveScorerPolicy

    return MaskablePPO.load(path, device="cpu", custom_objects={"policy_class": MoveScorerPolicy})


class PPOPolicy:
    """Plays the model's most likely legal action (masked, deterministic).

    The model is loaded once per process (cached by path and modification time), however many
    times the policy is built. A model trained with ``move_features`` (its observations longer
    than the env's by ``n_actions * K``) gets the same features, computed here as the training
    wrapper computed them: visits are counted from each :meth:`reset`, so the policy must play
    every move of the episode.
    """

    def __init__(self, path: str | Path) -> None:
        from agents.common.extras import require

        require("train", f"policy 'ppo:{path}'")  # one line naming the extra, not an ImportError
        self.path = resolve_model_path(path)
        self.name = f"ppo:{path}"
        self.model = _load(str(self.path.resolve()), self.path.stat().st_mtime)
        self.featurizer: MoveFeaturizer | None = None

    def reset(self, seed: int) -> None:
        """Deterministic: nothing to reseed; the move features' visit counts start afresh."""
        if self.featurizer is not None:
            self.featurizer.reset()

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        trained_actions = getattr(self.model.action_space, "n", None)
        trained = self.model.observation_space.shape
        n = env.game.n_actions
        rollouts = int(getattr(self.model.policy, "feature_rollouts", 0))
        featured = obs.ndim == 1 and trained == (obs.shape[0] + feature_size(n, rollouts),)
        if (obs.shape != trained and not featured) or n != trained_actions:
            raise ValueError(
                f"{self.name} was trained on observations {trained} and {trained_actions} actions; this "
                f"env has {obs.shape} (with move features {(obs.shape[0] + feature_size(n, rollouts),)}) "
                f"and {n}"
            )
        if featured:
            if self.featurizer is None:
                self.featurizer = MoveFeaturizer(rollouts)
            obs = np.concatenate([obs, self.featurizer(env)])
        action, _ = self.model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        if self.featurizer is not None:
            self.featurizer.played(int(action))
        return int(action)
