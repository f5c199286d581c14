"""Ray as a user meets it (patience_gym.agents.common.backends with the evaluate and solve commands):
``--json`` output is JSON alone whatever Ray prints, a local Ray is a private one even with a cluster
running, ``--address`` joins a cluster, ``--workers`` with ``--address`` and an address no cluster
answers are one line with status 2.

The chunks themselves on Ray (results equal to local ones, failures named by chunk and seed):
tests/agents/training/test_scale.py. The commands run here in their own process, as a user runs
them, with ``RAY_TMPDIR`` a fresh folder: the cluster a test starts writes its address there (where
a user's ``ray start`` writes it in /tmp/ray), so no other Ray on this machine finds it by chance.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from patience_gym.agents.cli import main
from patience_gym.agents.common.backends import NoRayCluster, connect_ray
from tests.helpers import ROOT, needs_ray

EVALUATE = ["evaluate", "--env", "Nestor-v0", "--episodes", "8", "--backend", "ray"]
NO_CLUSTER = (
    "patience-gym evaluate: error: no Ray cluster at 'auto' (start one with `ray start --head`, or leave "
    "out --address for a local Ray)"
)

# A policy that kills the Ray worker playing deal BAD, once (the marker file says it did): Ray reruns
# the lost task, and its driver prints "(raylet) A worker died ..." as it does.
KILLER = """
import os, signal
from pathlib import Path
import numpy as np

class KillOnce:
    name = "kill-once"

    def __init__(self, bad: int, marker: str) -> None:
        self.bad, self.marker = bad, marker

    def reset(self, seed: int) -> None:
        if seed == self.bad and not Path(self.marker).exists():
            Path(self.marker).write_text("killed")
            os.kill(os.getpid(), signal.SIGKILL)

    def __call__(self, env, obs):
        return int(np.flatnonzero(env.action_masks())[0])
"""

# The command, with `--policy kill-once` standing for a KillOnce(BAD, MARKER).
DRIVER = """
import sys
import patience_gym.agents.evaluation.evaluate as ev
from h6_kill_once import KillOnce

real = ev.evaluate

def evaluate(env, policy, **kw):
    return real(env, KillOnce(int(sys.argv[1]), sys.argv[2]) if policy == "kill-once" else policy, **kw)

ev.evaluate = evaluate
from patience_gym.agents.cli import main
sys.exit(main(sys.argv[3:]))
"""

# The command with Ray's search for a running cluster (ps) finding none, whatever runs here.
NO_GCS = """
import sys
import ray._private.services as services

def find_gcs_addresses():
    return frozenset()

find_gcs_addresses.cache_clear = lambda: None
services.find_gcs_addresses = find_gcs_addresses
from patience_gym.agents.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture
def ray_tmpdir() -> Iterator[Path]:
    """A short fresh folder for RAY_TMPDIR (Ray's socket paths must stay under 108 characters)."""
    folder = Path(tempfile.mkdtemp(prefix="pg-ray-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _env(ray_tmpdir: Path, *paths: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update(RAY_TMPDIR=str(ray_tmpdir), RAY_USAGE_STATS_ENABLED="0")
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (ROOT, *paths))
    return env


def _run(argv: list[str], env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *argv], env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return _run(["-m", "patience_gym.agents.cli", *args], env)


# ---- without a cluster --------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["evaluate", "solve"])
def test_workers_with_an_address_is_one_line(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    given = {"evaluate": ["--policy", "random"], "solve": ["--seeds", "0:2"]}[command]
    argv = [command, "--env", "Nestor-v0", *given, "--backend", "ray", "--address", "auto", "--workers", "2"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"patience-gym {command}: error: --workers goes with a local Ray; the cluster at 'auto' has its "
        "own size (leave out --workers with --address)"
    )


@needs_ray
def test_a_local_ray_is_a_private_one_and_an_address_is_joined(monkeypatch: pytest.MonkeyPatch) -> None:
    import ray

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **kw: calls.append(kw))
    connect_ray(None, 2)
    connect_ray(None, None)
    connect_ray("auto", None)
    # "local" starts a new Ray even when `ray start` or RAY_ADDRESS names a running cluster.
    assert [(c["address"], c.get("num_cpus")) for c in calls] == [
        ("local", 2),
        ("local", None),
        ("auto", None),
    ]


@needs_ray
def test_ray_s_connection_error_is_no_ray_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    import ray

    def refuse(**kw: Any) -> None:
        raise ConnectionError("Could not find any running Ray instance.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refuse)
    with pytest.raises(NoRayCluster, match=r"no Ray cluster at 'ray://head:10001' \(start one with") as exc:
        connect_ray("ray://head:10001")
    assert isinstance(exc.value, ValueError)  # the commands' one-line errors


@needs_ray
def test_address_auto_without_a_cluster_is_one_line(ray_tmpdir: Path, tmp_path: Path) -> None:
    env = _env(ray_tmpdir)
    got = _run(["-c", NO_GCS, *EVALUATE, "--policy", "random", "--address", "auto", "--json"], env)
    assert (got.returncode, got.stdout, got.stderr.strip()) == (2, "", NO_CLUSTER), got.stderr
    solve = ["solve", "--env", "Nestor-v0", "--seeds", "0:2", "--labels", str(tmp_path)]
    got = _run(["-c", NO_GCS, *solve, "--backend", "ray", "--address", "auto"], env)
    assert got.returncode == 2 and got.stderr.strip() == NO_CLUSTER.replace("evaluate", "solve"), got.stderr


@needs_ray
def test_json_stays_json_when_a_worker_dies(ray_tmpdir: Path, tmp_path: Path) -> None:
    (tmp_path / "h6_kill_once.py").write_text(KILLER)
    marker = tmp_path / "killed"
    argv = ["-c", DRIVER, "5", str(marker), *EVALUATE, "--policy", "kill-once", "--workers", "2", "--json"]
    got = _run(argv, _env(ray_tmpdir, tmp_path))
    assert got.returncode == 0, got.stderr
    assert marker.exists(), "the worker was not killed: the test checked nothing"
    assert "A worker died" in got.stderr, "Ray's message about the dead worker goes to stderr"
    (row,) = json.loads(got.stdout)  # stdout is the JSON and nothing else
    sys.path.insert(0, str(tmp_path))
    try:
        from h6_kill_once import KillOnce  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tmp_path))
    from patience_gym.agents.evaluation.evaluate import evaluate

    here = evaluate("Nestor-v0", KillOnce(-1, str(marker)), episodes=8, seed=0)
    assert (row["games"], row["wins"], row["mean_length"]) == (8, here.wins, here.mean_length)


# ---- with a `ray start` cluster -----------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[tuple[str, Path]]:
    """A ``ray start --head`` cluster of 2 CPUs (its address, its RAY_TMPDIR), as a user starts one.

    ``ray stop`` would stop every Ray on the machine (another test's, another user's): the cluster
    is stopped instead by ending the ``ray start --block`` that runs it (SIGTERM: it drains, then
    stops the processes it started), and killed with its process group if that takes too long."""
    folder = Path(tempfile.mkdtemp(prefix="pg-ray-"))
    ray_exe = Path(sys.executable).with_name("ray")
    env = _env(folder)
    argv = [str(ray_exe), "start", "--head", "--num-cpus", "2", "--include-dashboard", "false"]
    argv += ["--port", str(_free_port()), "--ray-client-server-port", str(_free_port()), "--block"]
    log = (folder / "ray-start.log").open("w")
    proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    address_file = folder / "ray" / "ray_current_cluster"
    try:
        deadline = time.monotonic() + 180
        while not address_file.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start did not start: {(folder / 'ray-start.log').read_text()[-2000:]}")
            time.sleep(0.5)
        time.sleep(2)  # the address is written as the head comes up: let it finish
        yield address_file.read_text().strip(), folder
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def _jobs(address: str, folder: Path) -> int:
    """How many drivers have joined the cluster at ``address`` so far (its GCS job table)."""
    code = "import sys; from ray._raylet import GcsClient as G; "
    code += "print(len(G(address=sys.argv[1]).get_all_job_info()))"
    got = _run(["-c", code, address], {**_env(folder), "RAY_AUTH_MODE": "token"}, timeout=120)
    assert got.returncode == 0, got.stderr
    return int(got.stdout.strip())


@needs_ray
@pytest.mark.slow
@pytest.mark.parametrize("workers", ["2", "1"])
def test_a_running_cluster_is_not_joined_without_an_address(
    ray_cluster: tuple[str, Path], workers: str
) -> None:
    address, folder = ray_cluster
    before = _jobs(address, folder)
    got = _cli([*EVALUATE, "--policy", "random", "--workers", workers, "--json"], _env(folder))
    assert got.returncode == 0, got.stderr  # --workers 2 used to fail: "num_cpus ... must not be provided"
    assert json.loads(got.stdout)[0]["games"] == 8
    assert _jobs(address, folder) == before, "the command joined the running cluster"


@needs_ray
@pytest.mark.slow
def test_address_auto_joins_the_running_cluster(ray_cluster: tuple[str, Path]) -> None:
    address, folder = ray_cluster
    before = _jobs(address, folder)
    got = _cli([*EVALUATE, "--policy", "random", "--address", "auto", "--json"], _env(folder))
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)[0]["games"] == 8
    assert _jobs(address, folder) == before + 1
