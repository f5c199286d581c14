"""The shipped configs are defaults plus differences: each kind (configs/ppo, eval, rllib) has one
defaults.yaml, every other file names it and holds only what differs from it (or stands alone, for
a reason), and no comment carries a measured figure (those live in results/results.md)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from patience_gym.agents.common.config import DEFAULTS_KEY
from tests.helpers import ROOT

KINDS = ("ppo", "ppo_rollouts", "eval", "rllib")
#: The files that do not start from their kind's defaults, and why.
STANDALONE = {
    "ppo/tiny.yaml": "the tests' smoke run: a few hundred steps, SB3's own settings",
    "rllib/tiny.yaml": "the tests' smoke run on Ray",
}
FILES = sorted(p for kind in KINDS for p in (ROOT / "configs" / kind).glob("*.yaml") if p.stem != "defaults")


def _name(path: Path) -> str:
    return path.relative_to(ROOT / "configs").as_posix()


def _leaves(data: dict[str, Any], at: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for key, value in data.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, (*at, key))
        else:
            yield (*at, key), value


def _at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return KeyError
        data = data[key]
    return data


def test_every_kind_has_one_defaults_file() -> None:
    for kind in KINDS:
        assert (ROOT / "configs" / kind / "defaults.yaml").is_file(), kind
        assert DEFAULTS_KEY not in yaml.safe_load((ROOT / "configs" / kind / "defaults.yaml").read_text())


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_a_variant_file_holds_only_what_differs_from_its_defaults(path: Path) -> None:
    data = yaml.safe_load(path.read_text())
    if _name(path) in STANDALONE:
        assert DEFAULTS_KEY not in data
        return
    assert data.pop(DEFAULTS_KEY, None) == "defaults.yaml", f"{_name(path)} starts from defaults.yaml"
    defaults = yaml.safe_load((path.parent / "defaults.yaml").read_text())
    same = [".".join(at) for at, value in _leaves(data) if _at(defaults, at) == value]
    assert same == [], f"{_name(path)} repeats what defaults.yaml says: {same}"


#: A measured figure in a comment: a percentage, a time, a rate, a count of wins or cards.
FIGURE = re.compile(r"\d[\d,.]*\s*(%|minutes?|seconds?|steps/s|wins?\b|won\b|cards\b)", re.IGNORECASE)


@pytest.mark.parametrize("path", sorted((ROOT / "configs").rglob("*.yaml")), ids=_name)
def test_no_config_comment_carries_a_measured_figure(path: Path) -> None:
    comments = [line for line in path.read_text().splitlines() if line.lstrip().startswith("#")]
    assert [c for c in comments if FIGURE.search(c)] == []
