"""scripts/eval_chunks.py: a long evaluation in chunks, each written as it finishes, resumed by the
same command, summed into the row the one-piece evaluation gives."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from patience_gym.agents.evaluation.evaluate import evaluate
from tests.helpers import ROOT

spec = importlib.util.spec_from_file_location("eval_chunks", ROOT / "scripts" / "eval_chunks.py")
assert spec and spec.loader
eval_chunks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(eval_chunks)

ARGS = ["--env", "Nestor-v0", "--policy", "greedy", "--episodes", "7", "--seed", "3", "--chunk", "3"]


def test_chunks_add_up_to_the_whole_evaluation_and_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "row"
    assert eval_chunks.main([*ARGS, "--out", str(out)]) == 0
    assert sorted(p.name for p in out.glob("[0-9]*.json")) == ["00003.json", "00006.json", "00009.json"]
    whole = evaluate("Nestor-v0", "greedy", episodes=7, seed=3)
    row = json.loads((out / "summary.json").read_text())
    assert (row["deals"], row["wins"]) == (7, whole.wins)
    assert row["won_seeds"] == [3 + e.index for e in whole.episodes if e.won]
    assert row["mean_foundation_cards"] == pytest.approx(whole.mean_foundation_cards)
    capsys.readouterr()
    (out / "00006.json").unlink()  # an interrupted run: one chunk missing
    assert eval_chunks.main([*ARGS, "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "1 chunks to play, 2 done" in said and "deals 6-8" in said and "deals 3-5" not in said
    assert json.loads((out / "summary.json").read_text())["wins"] == whole.wins


def test_another_evaluation_in_the_same_folder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "row"
    eval_chunks.main([*ARGS, "--out", str(out)])
    with pytest.raises(SystemExit):
        eval_chunks.main([*ARGS[:3], "random", *ARGS[4:], "--out", str(out)])
    with pytest.raises(SystemExit, match=r"env_kwargs\.KEY=VALUE"):
        eval_chunks.main([*ARGS, "--set", "draw=3", "--out", str(tmp_path / "other")])


def test_against_sets_two_runs_side_by_side_on_the_deals_both_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    greedy, rand = tmp_path / "greedy", tmp_path / "random"
    eval_chunks.main([*ARGS, "--out", str(greedy)])
    # random on deals 6..11: deals 6..9 are the ones both played
    other = ["--env", "Nestor-v0", "--policy", "random", "--episodes", "6", "--seed", "6", "--chunk", "3"]
    capsys.readouterr()
    assert eval_chunks.main([*other, "--out", str(rand), "--against", str(greedy)]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    won_g = set(json.loads((greedy / "summary.json").read_text())["won_seeds"]) & set(range(6, 10))
    won_r = set(json.loads((rand / "summary.json").read_text())["won_seeds"]) & set(range(6, 10))
    assert line.startswith("against greedy on the 4 deals both played: ")
    assert f"{len(won_r)} won against {len(won_g)}; {len(won_r - won_g)} won by this run only" in line
    assert line.endswith(f"{len(won_g - won_r)} by the other only")


def test_against_a_folder_without_chunks_or_of_another_variant_is_refused_before_playing(
    tmp_path: Path,
) -> None:
    eval_chunks.main([*ARGS, "--out", str(tmp_path / "nestor")])
    for folder, args in (
        (tmp_path / "empty", ARGS),
        (tmp_path / "nestor", ["--env", "Babette-v0", *ARGS[2:]]),
    ):
        folder.mkdir(exist_ok=True)
        with pytest.raises(SystemExit):
            eval_chunks.main([*args, "--out", str(tmp_path / "new"), "--against", str(folder)])
        assert not (tmp_path / "new").exists()


def test_against_a_run_of_other_options_is_refused(tmp_path: Path) -> None:
    eval_chunks.main([*ARGS, "--out", str(tmp_path / "strict")])
    with pytest.raises(SystemExit, match="another game"):
        eval_chunks.main(
            [
                *ARGS,
                "--set",
                "env_kwargs.reserve=open",
                "--out",
                str(tmp_path / "open"),
                "--against",
                str(tmp_path / "strict"),
            ]
        )
