"""Config files that start from a defaults file (patience_gym.agents.common.config: read_config, merge)."""

from __future__ import annotations

from pathlib import Path

import pytest

from patience_gym.agents.common.config import ConfigError, merge, read_config


def test_merge_lays_mappings_key_by_key_and_replaces_anything_else() -> None:
    base = {"a": 1, "ppo": {"lr": 1e-4, "clip": 0.1}, "arch": [64, 64], "kw": {"draw": 1}}
    over = {"ppo": {"lr": 3e-4}, "arch": [32], "kw": None, "new": True}
    merged = {"a": 1, "ppo": {"lr": 3e-4, "clip": 0.1}, "arch": [32], "kw": None, "new": True}
    assert merge(base, over) == merged
    assert base["ppo"] == {"lr": 1e-4, "clip": 0.1}  # neither side is changed


def test_a_file_starts_from_the_defaults_it_names(tmp_path: Path) -> None:
    (tmp_path / "defaults.yaml").write_text("seed: 0\nppo:\n  n_steps: 256\n  lr: 1.0e-4\n")
    (tmp_path / "mid.yaml").write_text("defaults: defaults.yaml\nppo:\n  lr: 3.0e-4\n")
    (tmp_path / "variant.yaml").write_text("defaults: mid.yaml\nenv: Nestor-v0\n")
    assert read_config(tmp_path / "variant.yaml") == {
        "seed": 0,
        "ppo": {"n_steps": 256, "lr": 3e-4},
        "env": "Nestor-v0",
    }
    (tmp_path / "alone.yaml").write_text("env: Nestor-v0\n")
    assert read_config(tmp_path / "alone.yaml") == {"env": "Nestor-v0"}


def test_a_bad_defaults_key_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("defaults: b.yaml\n")
    (tmp_path / "b.yaml").write_text("defaults: a.yaml\n")
    with pytest.raises(ConfigError, match="name each other in a circle"):
        read_config(tmp_path / "a.yaml")
    (tmp_path / "c.yaml").write_text("defaults: [a.yaml]\n")
    with pytest.raises(ConfigError, match="key 'defaults' names the file this one starts from"):
        read_config(tmp_path / "c.yaml")
    (tmp_path / "d.yaml").write_text("defaults: missing.yaml\n")
    with pytest.raises(ConfigError, match=r"missing\.yaml' does not exist"):
        read_config(tmp_path / "d.yaml")
