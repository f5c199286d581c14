"""scripts/plot_curves.py draws one PNG per variant from the runs' evaluations.csv, training seeds
together, with random's and greedy's levels measured on the same validation deals (once, then
cached), and says what is missing."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import yaml

from agents.training.callbacks import Evaluation, write_evaluations
from agents.training.config import check_env_options
from tests.helpers import ROOT

spec = importlib.util.spec_from_file_location("plot_curves", ROOT / "scripts" / "plot_curves.py")
assert spec and spec.loader
plot_curves = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot_curves)


def _run(folder: Path, env: str, seed: int, rates: list[float]) -> Path:
    folder.mkdir()
    config = {
        "env": env,
        "env_kwargs": check_env_options(env, {}),
        "seed": seed,
        "eval_deal_seed": 500_000,
        "eval_episodes": 3,
    }
    (folder / "config.yaml").write_text(yaml.safe_dump(config))
    evs = [
        Evaluation(steps=i * 1000, win_rate=r, mean_foundation_cards=40 + i, mean_reward=r, mean_length=50.0)
        for i, r in enumerate(rates)
    ]
    write_evaluations(folder / "evaluations.csv", evs)
    return folder


def test_one_png_per_variant_with_the_baselines_measured_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    from PIL import Image

    levels = tmp_path / "levels.json"
    monkeypatch.setattr(plot_curves, "LEVELS", levels)
    runs = [
        _run(tmp_path / "nestor", "Nestor-v0", 0, [0.1, 0.12, 0.15]),
        _run(tmp_path / "nestor_seed1", "Nestor-v0", 1, [0.1, 0.11, 0.14]),
        _run(tmp_path / "babette", "Babette-v0", 0, [0.2, 0.25, 0.22]),
    ]
    out = tmp_path / "curves"
    assert plot_curves.main(["--runs", *map(str, runs), "--out-dir", str(out), "--workers", "1"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["Babette.png", "Nestor.png"]
    with Image.open(out / "Nestor.png") as png:
        assert png.format == "PNG" and png.size[0] > png.size[1]
    cached = json.loads(levels.read_text())
    key = "Nestor-v0 seeds 500000..500002"
    assert sorted(cached) == ["Babette-v0 seeds 500000..500002", key]
    assert sorted(cached[key]) == ["greedy", "random"] and 0 <= cached[key]["greedy"]["win_rate"] <= 1
    cached[key]["greedy"]["win_rate"] = 0.5  # a second plot reads the cache, measures nothing
    levels.write_text(json.dumps(cached))
    assert plot_curves.main(["--runs", str(runs[0]), "--out-dir", str(out)]) == 0
    assert json.loads(levels.read_text())[key]["greedy"]["win_rate"] == 0.5


def test_no_evaluations_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    assert plot_curves.main(["--runs", str(tmp_path), "--out-dir", str(tmp_path / "x")]) == 2
    assert "no evaluations.csv" in capsys.readouterr().err
