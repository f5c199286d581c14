"""Where label files are read and written (agents/solving/labels.py): evaluate reads the labels the
package ships (a user's --labels folder wins) and says in one line when there are none for its
deals; solve writes the package's labels only in a checkout, and an installed package asks for
--labels in one line (status 2) instead of writing into site-packages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import patience_gym.agents.solving.labels
from patience_gym.agents.cli import main
from patience_gym.agents.common.data import shipped_labels
from patience_gym.agents.solving.labels import writable_labels
from tests.helpers import LABELS

EVALUATE = ["evaluate", "--env", "Nestor-v0", "--policy", "random", "--episodes", "4"]


def test_evaluate_reads_the_shipped_labels_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing of the checkout below the working folder
    assert main(EVALUATE) == 0
    out, err = capsys.readouterr()
    assert "winnable won" in out and err == ""


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["table", "json"])
def test_evaluate_says_in_one_line_that_an_option_set_has_no_labels(
    json_flag: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*EVALUATE, "--set", "env_kwargs.reserve=open", *json_flag]) == 0
    out, err = capsys.readouterr()
    missing = LABELS / "Nestor-v0__reserve=open.csv"
    assert err == (
        f"patience-gym evaluate: no solver labels for Nestor-v0 reserve='open' (looked for {missing}): "
        "the winnable column is left out\n"
    )
    assert "winnable won" not in out
    if json_flag:
        assert "winnable" not in json.loads(out)[0]  # stdout stays JSON


def test_a_labels_folder_given_wins_over_the_shipped_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*EVALUATE, "--labels", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "winnable won" not in out and f"(looked for {tmp_path / 'Nestor-v0.csv'})" in err
    (tmp_path / "Nestor-v0.csv").write_text((LABELS / "Nestor-v0.csv").read_text())
    assert main([*EVALUATE, "--labels", str(tmp_path)]) == 0
    assert "winnable won" in capsys.readouterr().out


def test_solve_writes_the_package_labels_only_in_a_checkout(tmp_path: Path) -> None:
    assert writable_labels(None) == shipped_labels() == LABELS
    assert writable_labels(str(tmp_path)) == tmp_path


def test_an_installed_solve_asks_for_labels_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # as from an installed wheel
    monkeypatch.setattr(patience_gym.agents.solving.labels, "checkout", lambda: None)
    before = sorted(p.name for p in LABELS.iterdir())
    for extra in ([], ["--deepen"], ["--dive", "10"]):
        assert main(["solve", "--env", "Nestor-v0", "--seeds", "0:2", *extra]) == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("patience-gym solve: error: the labels shipped with the installed package")
        assert "pass --labels DIR" in line
    assert sorted(p.name for p in LABELS.iterdir()) == before
    assert main(["solve", "--env", "Nestor-v0", "--seeds", "0:2", "--labels", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["labels"] == str(tmp_path / "Nestor-v0.csv")
