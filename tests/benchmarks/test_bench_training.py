"""benchmarks/bench_training.py runs on a tiny budget and prints its figures per variant: training
steps/s on the batched native env, on the ceiling env, and their ratio (not a timed test: only
that the columns come out and the numbers are positive)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT


@pytest.mark.parametrize("policy", ["mlp", "move_policy"])
def test_the_training_benchmark_prints_real_ceiling_and_ratio(policy: str) -> None:
    pytest.importorskip("sb3_contrib")
    command = [
        "benchmarks/bench_training.py",
        "--env",
        "Nestor-v0",
        "--env",
        "Klondike-v0",
        "--policy",
        policy,
    ]
    tiny = ["--n-envs", "4", "--n-steps", "8", "--steps", "32", "--rounds", "1"]
    done = subprocess.run(
        [sys.executable, *command, *tiny], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert f"MaskablePPO {policy} " in lines[0] and "N=4, n_steps=8, batch=32" in lines[0]
    assert lines[1].split() == ["env", "real", "steps/s", "ceiling", "steps/s", "ratio"]
    rows = [line.split() for line in lines[2:]]
    assert [row[0] for row in rows] == ["Nestor-v0", "Klondike-v0"]
    for row in rows:
        real, ceiling, ratio = (float(x.replace(",", "")) for x in row[1:])
        assert real > 0 and ceiling > 0 and ratio > 0
