"""TorchRL builds and reads every environment as its docs say (issue 47): ``GymEnv(id)`` (which
passes ``frameskip=1`` and drops it on Python's own TypeError), the documented info keys through
``default_info_dict_reader``, and the bool mask that ``MaskedCategorical`` takes, no wrapper."""

from __future__ import annotations

import gymnasium as gym
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.games import get_variant

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl", reason="TorchRL (the recipes extra) is not installed")
from torchrl.envs import GymEnv, default_info_dict_reader  # noqa: E402
from torchrl.modules import MaskedCategorical  # noqa: E402


def test_gym_env_builds_every_id_and_reads_the_documented_info(env_name: str) -> None:
    variant = get_variant(env_name)
    env = GymEnv(variant.env_id, categorical_action_encoding=True, mask_dtype="bool")
    assert env.wrapper_frame_skip == 1  # frameskip refused by the env and left to TorchRL
    n = env.action_spec.space.n
    # every key but texts (Louis' phase): won, foundation_cards, the mask and the variant's counts
    info = gym.make(variant.env_id).reset(seed=0)[1]
    keys = [key for key, value in info.items() if not isinstance(value, str)]
    assert {"won", "foundation_cards", "illegal_action", "action_mask"} <= set(keys)
    env.set_info_dict_reader(default_info_dict_reader(keys))
    env.set_seed(0)
    td = env.reset()
    assert td["action_mask"].dtype == torch.bool and td["action_mask"].shape == (n,)
    assert td["won"].dtype == torch.bool and td["foundation_cards"].dtype == torch.int64
    assert all(td[key].dtype in (torch.bool, torch.int64) for key in keys)
    for _ in range(5):
        # a legal move drawn from the mask as a masked PPO draws one: never an illegal action
        dist = MaskedCategorical(logits=torch.zeros(n), mask=td["action_mask"])
        td["action"] = dist.sample()
        td = env.step(td)["next"]
        assert not td["illegal_action"]
        if td["done"]:
            break
        assert td["action_mask"].any() and td["foundation_cards"] >= 0
