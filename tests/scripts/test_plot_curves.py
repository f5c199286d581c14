"""scripts/plot_curves.py draws training's evaluations.csv as a PNG, and says what is missing."""

from __future__ import annotations

import importlib.util

import pytest

from agents.training.callbacks import Evaluation, write_evaluations
from tests.helpers import ROOT

spec = importlib.util.spec_from_file_location("plot_curves", ROOT / "scripts" / "plot_curves.py")
assert spec and spec.loader
plot_curves = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot_curves)


def test_curves_of_two_runs_make_one_png(tmp_path):
    pytest.importorskip("matplotlib")
    from PIL import Image

    for name, rates in (("nestor", [0.1, 0.12, 0.15]), ("babette", [0.2, 0.25, 0.22])):
        run = tmp_path / name
        run.mkdir()
        evs = [
            Evaluation(
                steps=i * 1000, win_rate=r, mean_foundation_cards=40 + i, mean_reward=r, mean_length=50.0
            )
            for i, r in enumerate(rates)
        ]
        write_evaluations(run / "evaluations.csv", evs)
    out = tmp_path / "curves.png"
    assert (
        plot_curves.main(["--runs", str(tmp_path / "nestor"), str(tmp_path / "babette"), "--out", str(out)])
        == 0
    )
    one = tmp_path / "one.png"
    assert plot_curves.main(["--runs", str(tmp_path / "nestor"), "--out", str(one)]) == 0
    with Image.open(out) as two_rows, Image.open(one) as one_row:
        assert two_rows.format == "PNG" and two_rows.size[1] > one_row.size[1]  # a row of panels per run


def test_no_evaluations_is_a_clear_error(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert plot_curves.main(["--runs", str(tmp_path), "--out", str(tmp_path / "x.png")]) == 2
    assert "no evaluations.csv" in capsys.readouterr().err
