"""benchmarks/bench_exit.py runs on a tiny budget and prints its five rates per variant (not a
timed test: only that the columns come out and the numbers are positive); a variant without a
planner row is refused in one line."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "benchmarks/bench_exit.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_exit_benchmark_prints_its_rates() -> None:
    done = _run("--env", "Nestor-v0", "--games", "2", "--epochs", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[1].split()[0] == "env" and "train" in lines[1]
    row = lines[2].split()
    assert row[0] == "Nestor-v0" and len(row) == 6
    assert all(float(x.replace(",", "")) > 0 for x in row[1:])


def test_a_variant_without_a_planner_row_is_refused_in_one_line() -> None:
    done = _run("--env", "Klondike-v0")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "bench_exit.py: error: no planner row settings for Klondike-v0; use "
        "Nestor-v0, Babette-v0, Congress-v0, TheKings-v0, Louis-v0, Anna-v0, StLouis-v0"
    ]
