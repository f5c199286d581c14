from __future__ import annotations

import inspect
from collections.abc import Generator, Iterator
from typing import Any

import pytest

from patience_gym.games import VARIANTS
from patience_gym.native import native_available
from patience_gym.testing import SCENARIO_ENGINES, ScenarioRun, scenario_engine

# A test module marked ``both_engines`` runs each of its tests once per engine. The games it builds
# with ``patience_gym.testing.scenario_game`` are Python games on "python" and lockstep pairs on
# "native" (a native twin checked at every move); a test taking ``engine`` passes it to gym.make.
# A native run that did neither checked nothing native: it is reported skipped, saying so.
NO_NATIVE = "the native engine (patience_gym._native) is not built: pip install -e . with g++ and cmake"
NOTHING_NATIVE = "builds no game on the native engine (the python run covers it)"
RUN = pytest.StashKey[ScenarioRun]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "both_engines: run every test on the python and the native engine")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A test that uses a Ray fixture is one of Ray's tests (tests.helpers.RAY): `pytest -m ray`
    # runs them in Ray's own venv (scripts/test_ray.sh).
    for item in items:
        if {"local_ray", "ray_cluster"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.ray)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("both_engines") is None:
        return
    skip = pytest.mark.skipif(not native_available(), reason=NO_NATIVE)
    params = [pytest.param(e, marks=[skip] if e == "native" else []) for e in SCENARIO_ENGINES]
    metafunc.parametrize("engine", params, indirect=True)


@pytest.fixture(autouse=True)
def engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """The engine of a ``both_engines`` test ("python" elsewhere)."""
    name: str = getattr(request, "param", "python")
    with scenario_engine(name) as run:
        request.node.stash[RUN] = run
        yield name


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    run = item.stash.get(RUN, None)
    if report.when != "call" or not report.passed or run is None or run.engine != "native":
        return report
    takes_engine = (
        isinstance(item, pytest.Function) and "engine" in inspect.signature(item.function).parameters
    )
    if run.native_deals == 0 and not takes_engine:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: {NOTHING_NATIVE}")
    return report


@pytest.fixture(params=[v.env_name for v in VARIANTS])
def env_name(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture(scope="session")
def local_ray() -> Iterator[Any]:
    """One local Ray for the whole test session, as CI has it: 2 CPUs, a small object store.

    Every in-process Ray test shares it (``connect_ray`` and ``ray_command`` use a Ray already
    running), and it is shut down once, at the end: the suite never stops Ray and starts it again
    in one process. Skips where Ray is not installed (the scale extra)."""
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        ray.init(
            address="local",
            num_cpus=2,
            include_dashboard=False,
            object_store_memory=100 * 2**20,
            log_to_driver=False,
        )
    yield ray
    ray.shutdown()
