"""configs/ppo/fast.yaml, the reward-only recipe on the batched native env, trains a short run in
seconds and its model plays: the config cannot rot unnoticed."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from agents.evaluation.evaluate import evaluate
from agents.training.config import load_config
from agents.training.sb3 import train
from tests.helpers import ROOT

FAST = str(ROOT / "configs" / "ppo" / "fast.yaml")


def test_the_fast_config_is_reward_only_on_the_batched_env() -> None:
    cfg = load_config(FAST)
    assert cfg.vec_env == "native" and cfg.n_envs == 256 and cfg.policy == "mlp"
    assert not cfg.move_features and not cfg.rollout_features and not cfg.imitation
    assert cfg.ppo["n_steps"] == 32 and cfg.ppo["n_epochs"] == 1
    assert cfg.policy_kwargs == {"net_arch": [64, 64]} and cfg.torch_threads == 1


# The batched training env and the one-game evaluation env differ in type by design: no warning.
@pytest.mark.filterwarnings("error:Training and eval env are not of the same type")
def test_the_fast_config_trains_a_short_run(tmp_path: Path) -> None:
    from patience_gym.native import native_games

    if "Nestor" not in native_games():  # the config plays Nestor on the native batch
        pytest.skip("the native engine is not built")
    overrides = ["total_timesteps=20000", "progress_bar=false", "eval_episodes=3", "eval_freq=10000"]
    out = train(load_config(FAST, [*overrides, f"output_dir={tmp_path}"]), report=lambda line: None)
    assert (out / "final_model.zip").is_file() and (out / "best_model.zip").is_file()
    result = evaluate("Nestor-v0", f"ppo:{out / 'final_model.zip'}", episodes=2, seed=0)
    assert result.games == 2 and all(e.length > 0 for e in result.episodes)
