"""scripts/plot_curves.py draws one PNG per variant from the runs' evaluations.csv, training seeds
together, with random's and greedy's levels measured on the same validation deals (once, then
cached), and says what is missing."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
import yaml

from patience_gym.agents.training.callbacks import Evaluation, write_evaluations
from patience_gym.agents.training.config import check_env_options
from tests.helpers import ROOT

spec = importlib.util.spec_from_file_location("plot_curves", ROOT / "scripts" / "plot_curves.py")
assert spec and spec.loader
plot_curves = importlib.util.module_from_spec(spec)
sys.modules["plot_curves"] = plot_curves  # its dataclasses look their module up there
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


def test_each_curve_names_its_network_and_the_drawn_points_are_read_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A per-move run is labelled so (never "flat"), and a run's ``evaluations_sampled.csv`` (its
    points by drawn moves) reaches the picture beside its argmax curve."""
    pytest.importorskip("matplotlib")
    flat = _run(tmp_path / "congress", "Congress-v0", 0, [0.0, 0.03])
    move = _run(tmp_path / "congress_move_seed1", "Congress-v0", 1, [0.0, 0.2])
    cfg = yaml.safe_load((move / "config.yaml").read_text())
    (move / "config.yaml").write_text(yaml.safe_dump({**cfg, "policy": "move_policy"}))
    drawn = [
        Evaluation(steps=0, win_rate=0.0, mean_foundation_cards=12.3, mean_reward=0.1, mean_length=188.0)
    ]
    write_evaluations(move / plot_curves.SAMPLED_CSV, drawn)
    drawn_pictures: list[dict[str, object]] = []
    monkeypatch.setattr(plot_curves, "draw", lambda env, runs, levels, out, note: drawn_pictures.append(runs))
    monkeypatch.setattr(plot_curves, "LEVELS", tmp_path / "levels.json")
    (tmp_path / "levels.json").write_text(json.dumps({"Congress-v0 seeds 500000..500002": {}}))
    assert plot_curves.main(["--runs", str(flat), str(move), "--out-dir", str(tmp_path / "out")]) == 0
    (curves,) = drawn_pictures
    assert sorted(curves) == ["flat, seed 0 (congress)", "per-move, seed 1 (congress_move_seed1)"]
    assert curves["per-move, seed 1 (congress_move_seed1)"].drawn == drawn
    assert curves["flat, seed 0 (congress)"].drawn == []


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny config (Nestor, 256 steps, validated on 5 deals from step 0) trained once."""
    pytest.importorskip("sb3_contrib")
    from patience_gym.agents.training.config import load_config
    from patience_gym.agents.training.sb3 import train
    from patience_gym.native import native_available
    from tests.helpers import TINY

    if not native_available():
        pytest.skip("play_batched needs the native engine")
    out = tmp_path_factory.mktemp("runs") / "tiny"
    return train(load_config(TINY, [f"output_dir={out}"]), report=lambda line: None)


def test_the_untrained_network_is_rebuilt_and_checked_before_its_drawn_point_is_written(
    tiny_run: Path, tmp_path: Path
) -> None:
    """``--measure-drawn`` rebuilds the run's step-0 network from its config and seed; its argmax
    play must give the run's own step-0 row, else nothing is written."""
    import shutil

    from patience_gym.agents.training.callbacks import read_evaluations

    run = tmp_path / "tiny"
    shutil.copytree(tiny_run, run)
    (point,) = plot_curves.measure_drawn(run)  # not a shipped model's run: step 0 only
    assert point.steps == 0 and 0 < point.mean_length <= 100 and 0 <= point.win_rate <= 1
    (kept,) = read_evaluations(run / plot_curves.SAMPLED_CSV)  # written to 6 significant digits
    assert kept.steps == 0 and kept.mean_foundation_cards == pytest.approx(point.mean_foundation_cards)
    # the same folder with another step-0 row: not this network's play, nothing written
    evs = read_evaluations(run / "evaluations.csv")
    (run / plot_curves.SAMPLED_CSV).unlink()
    wrong = Evaluation(0, evs[0].win_rate, evs[0].mean_foundation_cards + 1.0, 0.0, evs[0].mean_length)
    write_evaluations(run / "evaluations.csv", [wrong, *evs[1:]])
    assert plot_curves.measure_drawn(run) == []
    assert not (run / plot_curves.SAMPLED_CSV).exists()


def test_the_shipped_model_s_own_run_also_gets_its_final_model_by_drawn_moves(
    tiny_run: Path, tmp_path: Path
) -> None:
    """The run a shipped model came from (Nestor's card names no run: the folder ``nestor``) gets a
    second point at the card's steps: the shipped model, by drawn moves, on the run's deals."""
    import shutil

    from patience_gym.agents.policies.ppo import play_batched, shipped_model

    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    card = plot_curves.shipped_card(tmp_path / "nestor", "Nestor-v0")
    model = shipped_model("Nestor-v0")
    if card is None or model is None:
        pytest.skip("no shipped Nestor model")
    run = tmp_path / "nestor"
    shutil.copytree(tiny_run, run)
    untrained, final = plot_curves.measure_drawn(run)
    assert untrained.steps == 0 and final.steps == card["steps"]
    seeds = range(500_000, 500_005)  # the tiny config's validation deals
    play = play_batched(MaskablePPO.load(model, device="cpu"), "Nestor-v0", seeds, sample=True)
    assert final.win_rate == play.win_rate and final.mean_length == pytest.approx(float(play.length.mean()))
    assert plot_curves.shipped_card(tmp_path / "tiny", "Nestor-v0") is None
