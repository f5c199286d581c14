"""The shipped evaluation configs (``configs/eval/*.yaml``) load, name a registered env and valid
policies, and run through ``patience-gym evaluate`` (PPO left out: its model comes from training)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patience_gym.agents.cli import EvalConfig, main
from patience_gym.agents.common.config import load
from patience_gym.agents.training.config import HELD_OUT_SEEDS
from patience_gym.games import get_variant
from tests.helpers import ROOT

#: The variants' files (and the quick start's); defaults.yaml is what they start from, not a config to run.
EVAL_CONFIGS = sorted(p for p in (ROOT / "configs" / "eval").glob("*.yaml") if p.stem != "defaults")


@pytest.mark.parametrize("path", EVAL_CONFIGS, ids=[p.stem for p in EVAL_CONFIGS])
def test_eval_config_is_valid_and_runs(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = load(EvalConfig, path)
    get_variant(cfg.env)
    assert cfg.seed >= 0 and cfg.seed + cfg.episodes <= HELD_OUT_SEEDS  # deals training never sees
    for spec in cfg.policies:
        assert spec in ("random", "greedy") or spec == f"ppo:{path.stem}", spec  # the shipped model
    code = main(
        ["evaluate", str(path), "--set", "policies=[random, greedy]", "--set", "episodes=3", "--json"]
    )
    assert code == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in rows] == ["random", "greedy"] and all(r["games"] == 3 for r in rows)


def test_every_ppo_config_has_an_eval_config() -> None:
    ppo = {p.stem for p in (ROOT / "configs" / "ppo").glob("*.yaml")} - {"tiny", "defaults"}
    assert ppo <= {p.stem for p in EVAL_CONFIGS}
