"""Where chunks of work run: in this process, a local process pool, or a Ray cluster.

:func:`map_chunks` applies a function to each chunk (a list of deals, say) and yields
``(index, result)`` pairs as chunks complete, in completion order, so a caller can write or count
each chunk's results as soon as it is done::

    from patience_gym.agents.common.backends import map_chunks

    for i, labels in map_chunks(label_deals, chunks, backend="ray", address="auto"):
        write(i, labels)

``fn`` must be a module-level function (or a :func:`functools.partial` of one): the pool and Ray
send it to other processes by reference. Whatever runs where, ``fn(chunk)`` computes the same
thing, so both backends give the same results; only the order in which chunks arrive differs.

A chunk whose function raises stops the run with :class:`ChunkError` (naming the chunk and the
original error; a function raising :class:`ChunkFailure` words the message itself, e.g. naming the
deal that failed). Chunks that finished before are yielded first, so the caller keeps them: in
this process, every chunk before the failing one; on Ray, every chunk already started (those in
flight finish, no new one starts); a process pool stops at once. Ray retries a task whose worker
died (a lost node, an out-of-memory kill) up to ``retries`` times; a Python exception is not
retried, since the same chunk would raise again. Ctrl-C cancels the outstanding tasks (or
terminates the pool) before it propagates.

Ray is imported only when ``backend="ray"`` is asked for; without it that raises
:class:`~agents.common.extras.MissingExtra` naming the ``scale`` extra.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import sys
import traceback
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from .extras import MissingExtra

T = TypeVar("T")
R = TypeVar("R")

BACKENDS: tuple[str, ...] = ("local", "ray")


class ChunkError(RuntimeError):
    """A chunk's function raised (or its Ray task was lost past its retries).

    ``index`` is the chunk's position in the list given to :func:`map_chunks`; ``details`` holds
    the worker's traceback, when there was one.
    """

    def __init__(self, index: int, message: str, details: str = "") -> None:
        super().__init__(f"chunk {index} failed: {message}")
        self.index = index
        self.details = details


class ChunkFailure(Exception):
    """Raised by a chunk's function to report its failure in its own words (``ChunkError`` then
    quotes the message as it is, e.g. ``deal seed 157: ValueError: ...``, instead of prefixing the
    exception's class)."""


@dataclass
class _Failure:
    """What a worker sends back instead of raising: exceptions of any class cross process
    boundaries as plain text, and the parent learns which chunk failed."""

    message: str
    details: str


@dataclass
class _Done(Generic[R]):
    value: R


def _call(fn: Callable[[T], R], chunk: T) -> _Done[R] | _Failure:
    try:
        return _Done(fn(chunk))
    except Exception as exc:  # reported to the parent as a ChunkError naming the chunk
        message = str(exc) if isinstance(exc, ChunkFailure) else f"{type(exc).__name__}: {exc}"
        return _Failure(message, traceback.format_exc())


def _indexed(fn: Callable[[T], R], item: tuple[int, T]) -> tuple[int, _Done[R] | _Failure]:
    return item[0], _call(fn, item[1])


def _unwrap(index: int, got: _Done[R] | _Failure) -> R:
    if isinstance(got, _Failure):
        raise ChunkError(index, got.message, got.details)
    return got.value


def map_chunks(
    fn: Callable[[T], R],
    chunks: Sequence[T],
    *,
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
    progress: Callable[[int, R], None] | None = None,
    retries: int = 3,
) -> Generator[tuple[int, R], None, None]:
    """Yield ``(i, fn(chunks[i]))`` for every chunk, as each completes.

    ``backend="local"``: in this process with ``workers=1``, else a pool of ``workers`` processes.
    ``backend="ray"``: one Ray task per chunk (one CPU each), on the cluster at ``address``
    (``"auto"``: the one started on this machine by ``ray start --head``; ``ray://host:10001``: a
    remote one; ``workers`` is not used there, a cluster's size is its own), or without an address
    on a private local Ray started here with ``workers`` CPUs, even when a cluster runs on this
    machine (or, when Ray is already initialised in this process, on that one). ``progress(i, result)`` is
    called in this process as each chunk arrives. ``retries``: how often Ray reruns a task whose
    worker died.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if address is not None and backend != "ray":
        raise ValueError("an address names a Ray cluster: use it with backend='ray'")
    run = _ray(fn, chunks, workers, address, retries) if backend == "ray" else _local(fn, chunks, workers)
    try:
        for i, result in run:
            if progress is not None:
                progress(i, result)
            yield i, result
    finally:
        run.close()  # the pool stops now, not when the generator happens to be collected


def _ignore_sigint() -> None:
    # Ctrl-C reaches the whole process group: the parent alone handles it (and terminates the pool),
    # so the workers neither print tracebacks nor finish their chunks first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _local(fn: Callable[[T], R], chunks: Sequence[T], workers: int) -> Generator[tuple[int, R], None, None]:
    if workers == 1 or len(chunks) <= 1:
        for i, chunk in enumerate(chunks):
            yield i, _unwrap(i, _call(fn, chunk))
        return
    # Pool.__exit__ terminates the workers, so an interrupt (or an error) stops them at once.
    with multiprocessing.Pool(min(workers, len(chunks)), initializer=_ignore_sigint) as pool:
        for i, got in pool.imap_unordered(partial(_indexed, fn), enumerate(chunks)):
            yield i, _unwrap(i, got)


# ---- Ray ------------------------------------------------------------------------------------------

#: How to get Ray and RLlib (the versions the ``scale`` extra pins: see the README).
SCALE_INSTALL = "install the scale extra: pip install -e '.[scale]' (or pip install 'patience-gym[scale]')"


def add_backend_arguments(p: Any, items: str) -> None:
    """The flags that say where a command's ``items`` (episodes, deals) run, alike in every command:
    ``--workers``, ``--backend`` and ``--address`` (see :func:`connect_ray`)."""
    p.add_argument(
        "--workers",
        type=int,
        help=f"processes to spread {items} over (default 1); with --backend ray, the CPUs of the "
        "private local Ray it starts (all of them when 1); not with --address (a cluster's size is its own)",
    )
    p.add_argument(
        "--backend",
        choices=["local", "ray"],
        help=f"where chunks of {items} run: local processes (default) or Ray tasks (the scale extra)",
    )
    p.add_argument(
        "--address",
        help="with --backend ray: the cluster to join (auto: the one `ray start --head` runs here, or "
        "ray://HOST:10001); default: a private local Ray, even when a cluster runs",
    )


def require_scale(what: str) -> None:
    """Raise :class:`~agents.common.extras.MissingExtra` (one line, naming the extra) unless Ray imports."""
    try:
        import ray  # noqa: F401
    except ImportError:
        raise MissingExtra(f"{what} needs Ray (ray is missing): {SCALE_INSTALL}") from None


class NoRayCluster(ValueError):
    """``address`` names no Ray cluster that answers (``"auto"`` with no ``ray start`` running, a
    ``ray://`` head that does not reply): Ray's ``ConnectionError``, in one line saying what to do."""

    def __init__(self, address: str) -> None:
        super().__init__(
            f"no Ray cluster at {address!r} (start one with `ray start --head`, or leave out --address "
            "for a local Ray)"
        )
        self.address = address


def connect_ray(address: str | None = None, workers: int | None = None) -> Any:
    """The ``ray`` module, initialised: on the cluster at ``address`` (whose size is its own:
    ``workers`` is not used there), on the Ray already running in this process, or on a private
    local Ray started with ``workers`` CPUs (all of them when ``None``).

    Without an address a new local Ray starts even when a ``ray start`` cluster runs on this
    machine or ``RAY_ADDRESS`` names one (``ray.init(address="local")``): joining one takes
    ``address``, never happens by chance. An address that no cluster answers raises
    :class:`NoRayCluster`."""
    require_scale("the ray backend")
    import ray

    if not ray.is_initialized():
        if address is not None:
            try:
                ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
            except ConnectionError:
                raise NoRayCluster(address) from None
        else:
            # No dashboard: it costs seconds and memory on start, and a local run does not need it.
            ray.init(
                address="local",
                num_cpus=workers,
                include_dashboard=False,
                logging_level=logging.WARNING,
                log_to_driver=False,
            )
    return ray


def refuse_workers_on_a_cluster(workers_flag: int | None, address: str | None) -> None:
    """The commands' rule for ``--workers`` on Ray: it sizes the local Ray a command starts; with
    ``--address`` the cluster's size is its own, so ``--workers`` given with it is a mistake to
    name (a config's ``workers`` is the local default and is not used on a cluster)."""
    if workers_flag is not None and address is not None:
        raise ValueError(
            f"--workers goes with a local Ray; the cluster at {address!r} has its own size "
            "(leave out --workers with --address)"
        )


@contextmanager
def ray_command(address: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """Ray for the length of one command whose standard output is its result (``--json``).

    Ray's driver prints what its workers meet (``(raylet) A worker died or was killed ...``, a task
    retried) on ``sys.stdout``, from a thread, at any moment: inside the block ``sys.stdout`` is
    ``sys.stderr``, so those lines go there. Ray is started (or reached) on entry, so a missing
    extra or cluster is one line before any work; a Ray this block started is shut down on leaving
    it (which stops that thread), so the command prints its result after the block, on a clean
    ``sys.stdout``. A Ray already running in the process is left running."""
    require_scale("the ray backend")
    import ray

    started = not ray.is_initialized()
    with redirect_stdout(sys.stderr):
        try:
            yield connect_ray(address, workers)
        finally:
            if started and ray.is_initialized():
                ray.shutdown()


def _ray_call(fn: Callable[[T], R], chunk: T) -> _Done[R] | _Failure:
    # A Ray worker starts bare: a function sent by value (a script's, a notebook's) finds the
    # environment ids registered, as it would in the process that sent it.
    import patience_gym  # noqa: F401

    return _call(fn, chunk)


def _ray_cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _ray(
    fn: Callable[[T], R], chunks: Sequence[T], workers: int, address: str | None, retries: int
) -> Generator[tuple[int, R], None, None]:
    # A local Ray sized by `workers`: 1 (the default everywhere) would leave the cores idle, so a
    # lone worker means "the machine's cores", as `ray.init()` counts them.
    ray = connect_ray(address, workers if workers > 1 else None)
    task = ray.remote(num_cpus=1, max_retries=retries, retry_exceptions=False)(_ray_call)
    fn_ref = ray.put(fn)  # sent once, not with every chunk
    # A few tasks per CPU in flight: the cluster stays busy, memory stays bounded, and Ctrl-C or an
    # error has little to cancel.
    window = 2 * _ray_cpus(ray)
    pending: dict[Any, int] = {}
    upcoming = iter(enumerate(chunks))
    failed: ChunkError | None = None
    try:
        while True:
            if failed is None:
                for i, chunk in upcoming:
                    pending[task.remote(fn_ref, chunk)] = i
                    if len(pending) >= window:
                        break
            if not pending:
                break
            ready, _ = ray.wait(list(pending), num_returns=1)
            i = pending.pop(ready[0])
            try:
                got = ray.get(ready[0])
            except Exception as exc:  # the task's worker died past its retries
                got = _Failure(f"the Ray task was lost ({type(exc).__name__}: {exc})", "")
            if isinstance(got, _Failure):
                # The first failure is the one reported; the chunks in flight finish (and are
                # kept), and no more start.
                failed = failed or ChunkError(i, got.message, got.details)
            else:
                yield i, got.value
    finally:
        for ref in pending:  # interrupted or abandoned: stop the rest
            ray.cancel(ref, force=True)
    if failed is not None:
        raise failed


def per_seed(seeds: Sequence[int], label: Callable[[int], R]) -> list[R]:
    """``label(seed)`` for each seed of a worker's chunk; a failure is raised as a
    :class:`ChunkFailure` named by its seed (the chunks finished before are kept)."""
    out = []
    for s in seeds:
        try:
            out.append(label(s))
        except Exception as exc:
            raise ChunkFailure(f"deal seed {s}: {type(exc).__name__}: {exc}") from exc
    return out
