"""Progress on long work: a plain line in a log, where a terminal's bar would not show."""

from __future__ import annotations

import io

from patience_gym.agents.common.progress import Progress


def test_a_log_gets_lines_with_the_count_the_share_and_the_postfix() -> None:
    log = io.StringIO()
    shown = Progress(40, "Nestor-v0 greedy", "game", every=0.0, stream=log)
    shown.update(10, win="0.300")
    shown.update(10, win="0.250")
    shown.close()
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("Nestor-v0 greedy: 10/40 games (25%), ")
    assert "min left" in lines[0] and lines[0].endswith("; win=0.300")
    assert lines[1].startswith("Nestor-v0 greedy: 20/40 games (50%), ")
    # close() writes the last count once more, with no time left to guess
    assert lines[2].startswith("Nestor-v0 greedy: 20/40 games (50%), ") and "left" not in lines[2]
    assert len(lines) == 3


def test_lines_are_spaced_by_every_seconds() -> None:
    log = io.StringIO()
    shown = Progress(1000, "solve", "deal", every=3600.0, stream=log)
    for _ in range(999):
        shown.update(1, won=1)
    shown.close()
    # a run shorter than `every` writes nothing, not even at the end
    assert log.getvalue() == ""
    shown = Progress(1000, "solve", "deal", every=3600.0, stream=log)
    shown.start -= 3600.0  # an hour has passed
    shown.shown -= 3600.0
    shown.update(1, won=1, lost=0)
    shown.update(1, won=2, lost=0)
    expected = "solve: 1/1000 deals (0%), 60.0 min, about 59940.0 min left; won=1, lost=0"
    assert log.getvalue().splitlines() == [expected]


def test_disabled_progress_writes_nothing() -> None:
    log = io.StringIO()
    shown = Progress(5, "x", "deal", enabled=False, every=0.0, stream=log)
    shown.update(5)
    shown.close()
    assert log.getvalue() == ""
