"""docs/rules.md names the test that pins each rule: every name it gives must exist."""

from __future__ import annotations

import re

from tests.helpers import ROOT


def test_every_test_named_in_the_rule_book_exists():
    text = (ROOT / "docs" / "rules.md").read_text()
    # "`test_klondike.py::test_a`, `::test_b`": a bare ::name belongs to the last file named.
    named = set()
    current = None
    for file, test in re.findall(r"(?:tests/)?(test_\w+\.py)?::(test_\w+)", text):
        current = file or current
        assert current, f"::{test} comes before any test file is named"
        named.add((current, test))
    assert len(named) > 100  # the rule book points at its tests throughout
    missing = []
    for file, test in sorted(named):
        path = ROOT / "tests" / file
        if not path.is_file() or not re.search(rf"^def {test}\(", path.read_text(), re.M):
            missing.append(f"{file}::{test}")
    assert not missing, f"docs/rules.md names tests that do not exist: {missing}"
