"""A trained RLlib checkpoint as a policy (``make_policy("rllib:<run folder or checkpoint>")``).

The checkpoint is one that :mod:`agents.training.rllib` wrote: RLlib's action-masking module, which
reads ``{"observations": obs, "action_mask": mask}``. Playing needs RLlib and torch (the ``scale``
extra) but no running Ray; both are imported when a policy is built.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from patience_gym.env import PatienceEnv

from ..common.backends import require_scale

#: Where an RLlib algorithm checkpoint keeps the trained policy.
MODULE_PATH = Path("learner_group", "learner", "rl_module", "default_policy")


def resolve_module_path(path: str | Path) -> Path:
    """The trained module in a run folder (its ``checkpoint/``), an algorithm checkpoint or the
    module's own folder."""
    p = Path(path)
    for candidate in (p / "checkpoint" / MODULE_PATH, p / MODULE_PATH, p):
        if (candidate / "module_state.pkl").is_file() or (candidate / "module_state.pt").is_file():
            return candidate
    if not p.exists():
        raise ValueError(f"rllib:{path}: no such checkpoint folder")
    raise ValueError(
        f"rllib:{path}: no trained module found (a run folder, an RLlib checkpoint or its "
        f"{MODULE_PATH} folder)"
    )


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> Any:
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    torch.set_num_threads(1)  # one small forward pass per move: threads only add overhead
    module: Any = RLModule.from_checkpoint(path)
    module.eval()  # a torch module: inference mode
    return module


class RLlibPolicy:
    """Plays the trained module's most likely legal action (masked logits, deterministic).

    The module is loaded once per process (cached by path and modification time); playing needs
    RLlib and torch but no running Ray.
    """

    def __init__(self, path: str | Path) -> None:
        require_scale(f"policy 'rllib:{path}'")
        self.path = resolve_module_path(path)
        self.name = f"rllib:{path}"
        state = next(self.path.glob("module_state.*"))
        self.module = _load(str(self.path.resolve()), state.stat().st_mtime)
        space = self.module.observation_space
        self.obs_shape = space["observations"].shape if isinstance(space, gym.spaces.Dict) else space.shape
        self.n_actions = int(self.module.action_space.n)

    def reset(self, seed: int) -> None:
        """Deterministic: nothing to reseed."""

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        import torch
        from ray.rllib.core.columns import Columns

        if obs.shape != self.obs_shape or env.game.n_actions != self.n_actions:
            raise ValueError(
                f"{self.name} was trained on observations {self.obs_shape} and {self.n_actions} "
                f"actions; this env has {obs.shape} and {env.game.n_actions}"
            )
        mask = env.action_masks()
        batch = {
            Columns.OBS: {
                "observations": torch.from_numpy(obs[None]),
                "action_mask": torch.from_numpy(mask[None].astype(np.float32)),
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
        # The module has masked the logits already; masking again costs nothing and keeps an
        # illegal action out even if a checkpoint's module were built without the mask.
        return int(np.flatnonzero(mask)[np.argmax(logits[mask])])
