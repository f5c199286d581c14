"""The calls the rgb_array mode exists for: Gymnasium's RecordVideo and stable-baselines3 with a
plain id string (both ask for ``render_mode="rgb_array"``)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.games import VARIANTS, Variant
from tests.helpers import ROOT, step_at_random


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.env_name for v in VARIANTS])
def test_record_video_writes_a_file_for_every_variant(variant: Variant, tmp_path: Path) -> None:
    pytest.importorskip("moviepy", reason="RecordVideo needs the video extra: pip install -e '.[video]'")
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(
        gym.make(variant.env_id, render_mode="rgb_array"),
        str(tmp_path / "videos"),  # a folder RecordVideo creates (an existing one draws a warning)
        episode_trigger=lambda episode: True,
        video_length=12,  # frames: a short clip is enough to prove the pipeline
        disable_logger=True,
    )
    _, info = env.reset(seed=0)
    step_at_random(env, info, np.random.default_rng(0), 12)
    env.close()  # type: ignore[no-untyped-call]  # gymnasium's RecordVideo.close is untyped
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000


def test_make_vec_env_with_a_plain_id() -> None:
    env_util = pytest.importorskip("stable_baselines3.common.env_util", reason="needs the train extra")
    venv = env_util.make_vec_env("patience_gym/Klondike-v0", n_envs=2, seed=0)
    obs = venv.reset()
    assert obs.shape == (2, *venv.observation_space.shape)
    frames = venv.get_images()  # stable-baselines3 made the envs with render_mode="rgb_array"
    assert len(frames) == 2 and frames[0].dtype == np.uint8 and frames[0].shape[2] == 3
    venv.close()


def test_maskable_ppo_with_a_plain_id() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="needs the train extra")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", "patience_gym/Klondike-v0", n_steps=32, batch_size=32, seed=0
    )
    model.learn(total_timesteps=32)
    assert model.num_timesteps >= 32
    assert model.get_env().render_mode == "rgb_array"


def test_the_rendering_page_video_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("moviepy", reason="RecordVideo needs the video extra: pip install -e '.[video]'")
    page = (ROOT / "docs" / "rendering.md").read_text()
    code = page.split("`RecordVideo` records any variant", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/rendering.md", "exec"), {})
    assert (tmp_path / "videos" / "rl-video-episode-0.mp4").stat().st_size > 1000
