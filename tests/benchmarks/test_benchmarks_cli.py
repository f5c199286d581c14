"""The benchmark and script commands refuse bad input in one line (exit status 2 or 1), never
with a traceback, and before any timing starts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT

POLICIES = ["benchmarks/bench_policies.py", "--env", "Nestor-v0"]
TWO = ["--policy", "greedy", "--policy", "random"]
AUC = ["--net", "no/such.pt", "--folder", "results/exit/Klondike-v0/macro-draw3", "--seeds", "0:1"]


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["benchmarks/bench_solver.py", "--env", "Spider-v0"], "unknown environment 'Spider-v0'"),
        (["benchmarks/bench_solver.py", "--seeds", "5:2"], "seed range '5:2' is empty"),
        (["benchmarks/bench_solver.py", "--budget", "0"], "--budget must be >= 1"),
        (["benchmarks/bench_solver.py", "--env", "Nestor-v0", "--set", "reserve=half"], "reserve='half'"),
        (["benchmarks/bench_solver_versions.py", "--against", "no-such-rev"], "names no commit"),
        (["benchmarks/bench_solver_versions.py", "--budget", "0"], "--budget must be >= 1"),
        (["benchmarks/bench_steps.py", "--seconds", "-1"], "--seconds must be > 0"),
        (["benchmarks/bench_steps.py", "--env", "Spider-v0"], "unknown environment 'Spider-v0'"),
        (["benchmarks/bench_native.py", "--rounds", "0"], "--rounds and each --batch size must be >= 1"),
        (["benchmarks/bench_render.py", "--positions", "0"], "--positions must be >= 1"),
        (["benchmarks/bench_training.py", "--n-envs", "0"], "--n-envs must be >= 1"),
        (["benchmarks/bench_training.py", "--env", "Spider-v0"], "unknown environment 'Spider-v0'"),
        (["benchmarks/bench_training.py", "--net-arch", "64,x"], "is not a list of layer sizes"),
        (["benchmarks/bench_macro.py", "--env", "Spider-v0"], "unknown environment 'Spider-v0'"),
        (["benchmarks/bench_macro.py", "--env", "Nestor-v0", "--seeds", "5:2"], "seed range '5:2' is empty"),
        (
            ["benchmarks/bench_macro.py", "--env", "Nestor-v0", "--spec", "macro:depth=3"],
            "setting 'depth=3' not understood",
        ),
        (["benchmarks/bench_macro.py", "--set", "draw=3"], "--set needs --env"),
        (
            ["benchmarks/bench_macro.py", "--env", "Nestor-v0", "--set", "draw=3"],
            "--set draw: Nestor-v0 has no option 'draw'; its options are: reserve",
        ),
        (["benchmarks/bench_capped_reach.py", "--caps", "10,x"], "--caps takes whole numbers"),
        (["benchmarks/bench_capped_reach.py", "--samples", "0"], "--samples, --full and every cap must be"),
        (["benchmarks/bench_capped_reach.py", "--seeds", "5:2"], "seed range '5:2' is empty"),
        (["benchmarks/bench_beam_reach.py", "--widths", "30,x"], "--widths takes whole numbers"),
        (["benchmarks/bench_beam_reach.py", "--dfs", "0"], "--dfs: every value must be >= 1"),
        (["benchmarks/bench_beam_reach.py", "--seeds", "5:2"], "seed range '5:2' is empty"),
        ([*POLICIES, "--policy", "greedy"], "two or more --policy"),
        ([*POLICIES, "--seeds", "5:2", *TWO], "seed range '5:2' is empty"),
        (["benchmarks/bench_policies.py", "--env", "Spider-v0", *TWO], "unknown environment 'Spider-v0'"),
        (
            [*POLICIES, "--set", "env_kwargs.redeals=1", *TWO],
            "--set env_kwargs: Nestor-v0 has no option 'env_kwargs'; its options are: reserve",
        ),
        (["benchmarks/bench_value_auc.py", *AUC, "--every", "0"], "--every must be at least 1"),
        (["benchmarks/bench_value_auc.py", *AUC], "--net no/such.pt: no such file"),
        (["scripts/pictures.py", "Spider-v0"], "unknown environment 'Spider-v0'"),
        (["scripts/labels_summary.py", "--labels", "no/such/folder"], "no label files"),
    ],
)
def test_bad_input_is_one_line(command: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode in (1, 2), done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert message in lines[-1] and "Traceback" not in done.stderr and done.stdout == ""
    assert len(lines) == 1 or lines[0].startswith("usage: ")  # argparse's usage, then the error


def test_the_capped_reach_benchmark_prints_its_table() -> None:
    """Not a timed test: the table comes out, and no cap wins more deals than exist."""
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_capped_reach.py", "--seeds", "0:2", "--samples", "2",
         "--caps", "200,2000", "--full", "20000"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("Klondike draw 3") and "4 sampled deals" in lines[0]
    rows = [line.split() for line in lines[3:]]
    assert [r[0] for r in rows] == ["200", "2,000"]
    assert all(0 <= int(x) <= 4 for r in rows for x in r[1:])


def test_the_policies_benchmark_plays_each_deal_with_each_policy() -> None:
    """Not a timed test: the same policy twice wins the same deals (none by one only), and a
    policy's row counts the deals it won that the first did not."""
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_policies.py", "--env", "Nestor-v0", "--seeds", "0:30",
         "--policy", "greedy", "--policy", "greedy", "--policy", "random"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "Nestor-v0, seeds 0-29, interleaved"
    rows = [line.split() for line in lines[2:5]]
    assert [r[0] for r in rows] == ["greedy", "greedy", "random"]
    won = [int(r[1]) for r in rows]
    assert won[0] == won[1] and rows[1][-2:] == ["0", "0"]
    assert int(rows[2][-2]) - int(rows[2][-1]) == won[2] - won[0]  # only - not: the difference


def test_the_policies_benchmark_counts_a_deal_with_no_legal_move_as_lost() -> None:
    """The Kings' seed 139 deals no legal move at all: lost at once, by every policy."""
    done = subprocess.run(
        [sys.executable, *POLICIES[:2], "TheKings-v0", "--seeds", "139:140", *TWO],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [line.split()[:2] for line in done.stdout.splitlines()[2:4]] == [["greedy", "0"], ["random", "0"]]


def test_the_macro_benchmark_plays_the_options_it_is_given() -> None:
    """``--set`` reaches the env: draw 3 chooses other moves than draw 1 on the same deal."""
    digests = []
    for options in ([], ["--set", "draw=3"]):
        done = subprocess.run(
            [sys.executable, "benchmarks/bench_macro.py", "--env", "Klondike-v0", *options,
             "--spec", "macro:samples=2,batch=1,nodes=50", "--seeds", "0:1", "--moves", "12"],
            cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        row = done.stdout.strip().splitlines()[-1].split()
        assert row[0] == "Klondike-v0" and int(row[2].replace(",", "")) > 0
        digests.append(row[-1])
    assert digests[0] != digests[1]
