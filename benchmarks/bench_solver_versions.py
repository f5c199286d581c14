"""The solver against an earlier version of itself, on the same deals: nodes per second, nodes to
decide, and what each decides.

Builds the project at ``--against`` (a git revision; default ``7492b34~1``, the solver before dead
positions, where the proofs of loss began) into ``runs/bench/solver-<commit>/`` (once, with pip:
a few minutes, the native engine compiles; kept for the next run), then solves each deal with
both versions, each in its own worker process, interleaved deal by deal (which goes first
alternates), so that the machine's noise falls on both alike. Per variant it prints each version's
decided share and nodes per second, the ratio of the two speeds (this build over the earlier one),
and the nodes each spent on the deals both decided, then each deal only one of them decided. A deal
one version calls won and the other lost is a bug in one of them: the run ends with status 1 and
names it.

    python benchmarks/bench_solver_versions.py --env Louis-v0 --env StLouis-v0 --seeds 0:20
    python benchmarks/bench_solver_versions.py --env Klondike-v0 --seeds 0:20 --budget 2000000 \
        --set draw=3 --set passes=None --set partial_moves=True
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import IO, Any

from bench_solver import check_arguments, solver_arguments  # benchmarks/ is on sys.path
from common import run_script

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_AGAINST = "7492b34~1"

# One worker: solves the deals it is sent (one JSON request a line) with the patience_gym it
# imports. `site`, when given, is an earlier build's folder: it goes first on sys.path, and the
# checkout's editable install (its import hook and the repository on sys.path) is taken out of
# the way, so that both the Python and the native module are that build's.
WORKER = r"""
import json, sys
site = sys.argv[1]
if site:
    sys.meta_path[:] = [f for f in sys.meta_path if "_editable" not in (getattr(f, "__module__", "") or "")]
    sys.path[:] = [site] + [p for p in sys.path if p and p != sys.argv[2]]
from patience_gym.games import get_variant
from patience_gym.solver import solve_deal
import patience_gym
print(json.dumps({"file": patience_gym.__file__}), flush=True)
for line in sys.stdin:
    r = json.loads(line)
    lb = solve_deal(get_variant(r["env"]), r["options"], seed=r["seed"], max_nodes=r["budget"],
                    probe_nodes=r["probe"])
    print(json.dumps({"label": lb.label, "nodes": lb.nodes, "seconds": lb.seconds}), flush=True)
"""


def _commit(revision: str) -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise ValueError(f"--against {revision!r} names no commit of this repository")
    return done.stdout.strip()


def build(commit: str) -> Path:
    """The earlier version installed in ``runs/bench/solver-<commit>/site`` (built once)."""
    folder = ROOT / "runs" / "bench" / f"solver-{commit[:12]}"
    site = folder / "site"
    if (folder / "built").exists():
        return site
    print(
        f"building {commit[:12]} into {site.relative_to(ROOT)} (once: the native engine compiles)", flush=True
    )
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "src.tar"
        with archive.open("wb") as out:
            subprocess.run(["git", "archive", commit], cwd=ROOT, stdout=out, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(Path(tmp) / "src", filter="data")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "-q",
                "--no-deps",
                "--target",
                str(site),
                str(Path(tmp) / "src"),
            ],
            check=True,
        )
    (folder / "built").write_text(commit + "\n")
    return site


class Worker:
    """A solver process of one version, answering one deal at a time."""

    def __init__(self, site: Path | None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(site or ""), str(ROOT)],
            cwd=site or ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.file = self._read()["file"]

    def _read(self) -> dict[str, Any]:
        out: IO[str] = self.proc.stdout  # type: ignore[assignment]
        line = out.readline()
        if not line:
            raise RuntimeError(f"the solver worker stopped (status {self.proc.wait()})")
        got: dict[str, Any] = json.loads(line)
        return got

    def solve(self, request: dict[str, Any]) -> dict[str, Any]:
        stdin: IO[str] = self.proc.stdin  # type: ignore[assignment]
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _speed(results: list[dict[str, Any]]) -> float:
    return sum(r["nodes"] for r in results) / max(sum(r["seconds"] for r in results), 1e-9)


def _row(name: str, seeds: list[int], got: dict[str, list[dict[str, Any]]]) -> str:
    """One variant's line: each version's decided share and speed, and the nodes each spent on the
    deals both decided."""
    n = len(seeds)
    both = [i for i in range(n) if "unknown" not in (got["this"][i]["label"], got["then"][i]["label"])]
    decided = {v: 100 * sum(r["label"] != "unknown" for r in got[v]) / n for v in got}
    speed = {v: _speed(got[v]) for v in got}
    spent = {v: sum(got[v][i]["nodes"] for i in both) for v in got}
    return (
        f"{name:17} {n:5d} {decided['then']:11.1f}% {decided['this']:10.1f}% {speed['then']:12.0f} "
        f"{speed['this']:11.0f} {speed['this'] / max(speed['then'], 1e-9):8.2f} {spent['then']:11d} "
        f"{spent['this']:10d}  ({len(both)})"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    solver_arguments(p, seeds="0:20")
    p.add_argument(
        "--against", default=DEFAULT_AGAINST, help=f"the earlier git revision (default {DEFAULT_AGAINST})"
    )
    args = p.parse_args()
    names, seeds, options = check_arguments(p, args)
    commit = _commit(args.against)
    probe = args.budget // 10 if args.probe is None else args.probe
    workers = {"this": Worker(None), "then": Worker(build(commit))}
    print(f"this build: {workers['this'].file}")
    print(f"earlier ({args.against} = {commit[:12]}): {workers['then'].file}")
    print(
        f"{'variant':17} {'deals':>5} {'decided then':>12} {'decided now':>11} {'nodes/s then':>12} "
        f"{'nodes/s now':>11} {'now/then':>8} {'nodes then':>11} {'nodes now':>10}  (deals both decided)"
    )
    disagreements = []
    try:
        for name in names:
            got: dict[str, list[dict[str, Any]]] = {"this": [], "then": []}
            for i, seed in enumerate(seeds):
                request = {"env": name, "options": options, "seed": seed, "budget": args.budget}
                request["probe"] = probe
                for version in ("this", "then") if i % 2 == 0 else ("then", "this"):
                    got[version].append(workers[version].solve(request))
            print(_row(name, list(seeds), got), flush=True)
            for i, seed in enumerate(seeds):
                now, then = got["this"][i]["label"], got["then"][i]["label"]
                if {now, then} == {"won", "lost"}:
                    disagreements.append(f"{name} seed {seed}: {now} now, {then} then")
                elif now != then:  # decided by one version within the budget
                    print(f"  seed {seed}: {then} then ({got['then'][i]['nodes']} nodes), {now} now", end="")
                    print(f" ({got['this'][i]['nodes']} nodes)")
    finally:
        for w in workers.values():
            w.close()
    if disagreements:
        sys.exit("won against lost (a bug in one version):\n  " + "\n  ".join(disagreements))


if __name__ == "__main__":
    run_script(main, __file__)
