"""``patience-gym solve --labels`` naming a folder that cannot hold label files: one line, status 2,
before any deal is solved (patience_gym.agents.solving.labels.writable_labels,
patience_gym.agents.solving.solve.run).

Tests run as root here, where ``chmod`` does not stop a write: a path under a regular file (or a
file where the folder should be) is the reliable way to make a folder that cannot be written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from patience_gym.agents.cli import main
from patience_gym.agents.common.config import ConfigError
from patience_gym.agents.solving import labels as labels_module
from patience_gym.agents.solving.labels import writable_labels

SOLVE = ["solve", "--env", "Nestor-v0", "--seeds", "0:2", "--budget", "1000"]


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.startswith("patience-gym solve: error: ") and "\n" not in err, captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    return err


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("a regular file\n")
    return path


@pytest.mark.parametrize("extra", [[], ["--overwrite"], ["--deepen", "--budget", "5000"], ["--dive", "10"]])
def test_a_folder_under_a_file_is_one_line(
    a_file: Path, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    err = _one_line_error(capsys, [*SOLVE, "--labels", str(a_file / "labels"), *extra])
    assert f"cannot write label files in {a_file / 'labels'}: {a_file} is a file, not a folder" in err
    assert a_file.read_text() == "a regular file\n"


@pytest.mark.parametrize("extra", [[], ["--deepen", "--budget", "5000"]])
def test_a_file_given_as_the_folder_is_one_line(
    a_file: Path, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    err = _one_line_error(capsys, [*SOLVE, "--labels", str(a_file), *extra])
    assert f"cannot write label files in {a_file}: it is a file, not a folder" in err
    assert a_file.read_text() == "a regular file\n"


def test_a_label_file_that_is_a_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "Nestor-v0.csv").mkdir()  # the folder is fine; the file it would write is not
    err = _one_line_error(capsys, [*SOLVE, "--labels", str(tmp_path)])
    assert f"cannot write the labels at {tmp_path / 'Nestor-v0.csv'}: Is a directory" in err


def test_a_folder_without_write_permission_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # As root every folder is writable: stand in for a user's read-only one.
    monkeypatch.setattr(labels_module.os, "access", lambda path, mode: False)
    err = _one_line_error(capsys, [*SOLVE, "--labels", str(tmp_path / "new" / "labels")])
    assert f"cannot write label files in {tmp_path / 'new' / 'labels'}: {tmp_path} is not writable" in err


def test_writable_labels_takes_a_new_folder_and_names_a_bad_one(a_file: Path, tmp_path: Path) -> None:
    new = tmp_path / "a" / "b"
    assert writable_labels(str(new)) == new and not new.exists()  # made when the first file is
    assert writable_labels(tmp_path) == tmp_path
    with pytest.raises(ConfigError, match="is a file, not a folder"):
        writable_labels(a_file / "x" / "y")
