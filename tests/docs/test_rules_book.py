"""docs/rules.md names the test that pins each rule: every name it gives must exist (a bare file
name is looked up under tests/, where it must be found once)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import ROOT


def _test_file(name: str) -> Path | None:
    """The test file a rule names: a path under the checkout (``tests/games/test_anna.py``), or a
    bare file name (``test_anna.py``) found once anywhere under tests/."""
    if "/" in name:
        return ROOT / name if (ROOT / name).is_file() else None
    found = sorted((ROOT / "tests").rglob(name))
    return found[0] if len(found) == 1 else None


def test_every_test_named_in_the_rule_book_exists():
    text = (ROOT / "docs" / "rules.md").read_text()
    # "`test_klondike.py::test_a`, `::test_b`": a bare ::name belongs to the last file named.
    named = set()
    current = None
    for file, test in re.findall(r"((?:tests/(?:\w+/)*)?test_\w+\.py)?::(test_\w+)", text):
        current = file or current
        assert current, f"::{test} comes before any test file is named"
        named.add((current, test))
    assert len(named) > 100  # the rule book points at its tests throughout
    missing = []
    for file, test in sorted(named):
        path = _test_file(file)
        if path is None or not re.search(rf"^def {test}\(", path.read_text(), re.M):
            missing.append(f"{file}::{test}")
    assert not missing, f"docs/rules.md names tests that do not exist: {missing}"
