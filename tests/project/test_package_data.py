"""The wheel carries the package's data where agents/common/data.py reads it: the label files inside
the agents package (agents/data/labels/, shipped with it) and configs/ copied to agents/data/configs/
(pyproject.toml's wheel.force-include); and the winnable seeds inside patience_gym/data/winnable/.
Checked from pyproject.toml without building a wheel; CI's scripts/wheel_test.sh builds one and
runs the user commands from it."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

import patience_gym.agents.common.data
from patience_gym.agents.common.data import package_data, shipped_configs, shipped_labels
from tests.helpers import LABELS, PORTED, ROOT

#: The winnable seeds ``gym.make(id, deals="winnable")`` deals (patience_gym.winnable).
WINNABLE = ROOT / "patience_gym" / "data" / "winnable"


def _wheel_settings() -> dict[str, Any]:
    """pyproject.toml's ``[tool.scikit-build]`` ``wheel.*`` settings."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    settings: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["scikit-build"]
    return settings["wheel"]


def test_the_wheel_ships_the_agents_package_and_the_configs_where_they_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wheel = _wheel_settings()
    # agents/ installs as patience_gym.agents, and agents/data/labels/ travels with it
    assert wheel["packages"] == {"patience_gym": "patience_gym", "patience_gym/agents": "agents"}
    assert shipped_labels() == ROOT / "agents" / "data" / "labels" == LABELS
    assert wheel["force-include"] == {"configs": "patience_gym/agents/data/configs"}
    monkeypatch.setattr(patience_gym.agents.common.data, "checkout", lambda: None)  # as in an installed wheel
    # The wheel's copy: in the checkout's package, or (an editable install) the copy the install made.
    assert shipped_configs() == package_data("data", "configs")
    assert shipped_configs().parts[-3:] == ("agents", "data", "configs")


def test_every_ported_variant_has_its_labels_in_the_package() -> None:
    """The labels are the native solver's: a game that is Python alone has none yet."""
    names = {p.stem for p in LABELS.glob("*.csv")}
    assert {v.env_name for v in PORTED} <= names


def test_the_winnable_lists_ship_inside_patience_gym() -> None:
    """``deals="winnable"`` reads them from the env's own package (the env never imports agents)."""
    assert "patience_gym" in _wheel_settings()["packages"]
    assert sorted(WINNABLE.glob("*.json")), "no winnable lists in patience_gym/data/winnable/"


def test_no_packaged_data_is_ignored_by_git() -> None:
    """scikit-build-core leaves git-ignored files out of the wheel."""
    files = [*LABELS.glob("*.csv"), *(ROOT / "configs").rglob("*.yaml"), *WINNABLE.glob("*.json")]
    proc = subprocess.run(
        ["git", "check-ignore", *map(str, files)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.stdout == "", f"git ignores packaged files: {proc.stdout}"


def test_ci_runs_the_wheel_test() -> None:
    assert "bash scripts/wheel_test.sh" in (ROOT / ".ci" / "run").read_text()
