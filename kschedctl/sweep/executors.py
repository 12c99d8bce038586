"""Where the cells run: a local process pool (the default), or a Dask cluster.

Both run ``cell.run_cell(task, source)`` and hand each outcome to a callback as it arrives;
the order of arrival does not matter (the sweep lists rows by cell, not by completion).

- ``LocalPool``: concurrent.futures' ProcessPoolExecutor, ``jobs`` worker processes, forked by
  multiprocessing's fork server, which has imported the scheduler and built the plugin registry
  once (``sweep/worker.py``): workers start warm, and never inherit the threads of the sweep
  process (progress display, a Dask client) as plain fork would. Sources carry paths only:
  workers read the files from this machine's disk. A worker that dies
  breaks the whole pool (Python cannot tell which task killed it), so the cells that were in
  flight are run again one at a time in a fresh pool: the one that breaks it alone is reported
  ``crashed``, the others complete.
- ``DaskExecutor``: Dask distributed (``kschedctl[dask]``), on the cluster at ``address`` or on
  a LocalCluster of ``jobs`` single-threaded worker processes. Each snapshot's bytes are
  scattered once; Dask moves them to a worker the first time one of its cells runs there
  (afterwards the worker's own cache, keyed by content hash, serves every cell of it). Cells
  are submitted a few snapshots at a time, and a snapshot's data is released when its last
  cell is done, so the cluster holds a bounded number of snapshots. A cell whose worker dies
  is retried by Dask on another worker, and after repeated deaths (KilledWorker) reported
  ``crashed``.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from kschedctl import __version__
from kschedctl.api.errors import InputError
from kschedctl.sweep.cell import CRASHED, ERROR, CellOutcome, CellTask, SnapshotSource, run_cell
from kschedctl.sweep.results import MissingExtra

Report = Callable[[CellOutcome], None]
CellFunction = Callable[[CellTask, SnapshotSource], CellOutcome]
MISSING_DASK = "--executor dask needs Dask distributed: pip install 'kschedctl[dask]'"
CRASH_MESSAGE = "the worker process died while running this cell (killed, out of memory, or a crash in native code)"


def default_jobs() -> int:
    """Every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


class LocalPool:
    name = "local"

    def __init__(self, jobs: int, fn: CellFunction = run_cell) -> None:
        self.jobs = max(1, jobs)
        self.workers = self.jobs
        self.fn = fn
        self.running = 0
        self.on_running: Callable[[int], None] | None = None  # told when the count of running cells changes
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> "LocalPool":
        self._pool = self._new_pool()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._pool is not None:
            if exc[0] is not None:  # interrupted: the cells in flight are not waited for
                for process in list((getattr(self._pool, "_processes", None) or {}).values()):
                    process.terminate()
            self._pool.shutdown(wait=exc[0] is None, cancel_futures=True)
            self._pool = None

    def _new_pool(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=_context(), initializer=_ignore_interrupts)
        pool.submit(_noop).result()  # start the workers now
        return pool

    def run(self, tasks: Iterable[tuple[CellTask, SnapshotSource]], report: Report) -> None:
        queue = deque(tasks)
        suspects: deque[tuple[CellTask, SnapshotSource]] = deque()
        in_flight: dict[Future[CellOutcome], tuple[CellTask, SnapshotSource]] = {}
        while queue or suspects or in_flight:
            if suspects:
                if not in_flight:  # after a crash: the cells that were in flight, one at a time
                    self._submit(suspects.popleft(), in_flight)
            else:
                while queue and len(in_flight) < 2 * self.jobs:
                    self._submit(queue.popleft(), in_flight)
            self._set_running(min(len(in_flight), self.jobs))
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            broken = [in_flight.pop(f) for f in done if _broke(f)]
            for f in done:
                if f in in_flight:
                    report(_outcome(f, in_flight.pop(f)[0]))
            if not broken:
                continue
            wait(in_flight)  # the pool is gone: every other future ends now, with a result or broken
            for f in list(in_flight):
                if not _broke(f):
                    report(_outcome(f, in_flight.pop(f)[0]))
            broken += in_flight.values()
            in_flight.clear()
            self._replace_pool()
            if len(broken) == 1:
                report(CellOutcome(broken[0][0].key, CRASHED, CRASH_MESSAGE))
            else:
                suspects.extend(broken)
        self._set_running(0)

    def _set_running(self, n: int) -> None:
        if n != self.running:
            self.running = n
            if self.on_running is not None:
                self.on_running(n)

    def _submit(self, item: tuple[CellTask, SnapshotSource], in_flight: dict[Future[CellOutcome], tuple[CellTask, SnapshotSource]]) -> None:
        assert self._pool is not None
        in_flight[self._pool.submit(self.fn, *item)] = item

    def _replace_pool(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()


def _broke(f: Future[CellOutcome]) -> bool:
    return isinstance(f.exception(), BrokenProcessPool)


def _outcome(f: Future[CellOutcome], task: CellTask) -> CellOutcome:
    exc = f.exception()
    if exc is None:
        return f.result()
    return CellOutcome(task.key, ERROR, f"internal error: {type(exc).__name__}: {exc}")


def _noop() -> None:
    return None


def _ignore_interrupts() -> None:
    """Ctrl-C is the sweep's to handle (it stops the workers); a worker does not print a
    KeyboardInterrupt traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _context() -> multiprocessing.context.BaseContext:
    """The fork server where the platform has one (preloading sweep/worker.py), else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["kschedctl.sweep.worker"])
        return context
    return multiprocessing.get_context("spawn")


def _warm_up() -> None:
    """A Dask worker's preparation: what sweep/worker.py does on import."""
    import kschedctl.sweep.worker  # noqa: F401


class DaskExecutor:
    name = "dask"

    def __init__(self, address: str | None, jobs: int, fn: CellFunction = run_cell, snapshots_in_flight: int | None = None) -> None:
        self.address = address
        self.jobs = max(1, jobs)
        self.fn = fn
        self.workers = self.jobs
        self.running = 0
        self.window = snapshots_in_flight
        self.on_running: Callable[[int], None] | None = None
        self._cluster: Any = None
        self._client: Any = None

    def __enter__(self) -> "DaskExecutor":
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise MissingExtra(MISSING_DASK) from None
        if self.address:
            try:
                self._client = Client(self.address, timeout="20s")
            except (OSError, TimeoutError) as exc:
                raise InputError(f"cannot reach the Dask scheduler at {self.address}: {exc}") from None
        else:
            self._cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True, dashboard_address=None)
            self._client = Client(self._cluster)
        info = self._client.scheduler_info()
        self.workers = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))
        try:
            self._client.run(_warm_up)  # imports and the plugin registry, once per worker, before any cell
        except ImportError as exc:
            self.__exit__(None, None, None)
            raise InputError(
                f"a Dask worker cannot import kschedctl ({exc}): install kschedctl {__version__} "
                "(and the same plugin packages) on every worker"
            ) from None
        return self

    def __exit__(self, *exc: Any) -> None:
        # a LocalCluster shutting down may log a worker's lost heartbeat: not the user's concern
        with _quiet("distributed"):
            if self._client is not None:
                self._client.close()
            if self._cluster is not None:
                self._cluster.close()

    def run(self, tasks: Iterable[tuple[CellTask, SnapshotSource]], report: Report) -> None:
        from distributed import as_completed

        groups: dict[str, list[tuple[CellTask, SnapshotSource]]] = {}
        for task, source in tasks:
            groups.setdefault(source.key, []).append((task, source))
        pending = deque(groups.values())
        window = self.window or max(2, 2 * self.workers)
        token = uuid.uuid4().hex[:8]
        left: dict[str, int] = {}
        shipped: dict[str, Any] = {}
        futures: dict[Any, tuple[CellTask, str]] = {}
        stream = as_completed()

        def submit_next() -> None:
            group = pending.popleft()
            source = group[0][1]
            shipped[source.key] = self._client.scatter(_with_data(source), hash=False)
            left[source.key] = len(group)
            for task, _ in group:
                f = self._client.submit(self.fn, task, shipped[source.key], key=f"kschedctl-cell-{task.key[:20]}-{token}", pure=False)
                futures[f] = (task, source.key)
                stream.add(f)

        while pending and len(shipped) < window:
            submit_next()
        self.running = min(len(futures), self.workers)
        if self.on_running is not None:
            self.on_running(self.running)
        for f in stream:
            task, key = futures.pop(f)
            self.running = min(len(futures), self.workers)
            report(_dask_outcome(f, task))
            f.release()
            left[key] -= 1
            if left[key] == 0:
                shipped.pop(key).release()
                if pending:
                    submit_next()
        self.running = 0


@contextmanager
def _quiet(logger: str) -> Iterator[None]:
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(level)


def _with_data(source: SnapshotSource) -> SnapshotSource:
    """The source with its files' bytes, read here once, to ship."""
    data = []
    for f in source.files:
        try:
            data.append(Path(f).read_bytes())
        except OSError:
            data.append(b"")  # the worker's hash check reports the file as changed
    return replace(source, data=tuple(data))


def _dask_outcome(f: Any, task: CellTask) -> CellOutcome:
    """``f``: a dask.distributed Future (untyped) of run_cell."""
    if f.status == "finished":
        outcome: CellOutcome = f.result()
        return outcome
    exc = f.exception()
    if type(exc).__name__ == "KilledWorker":
        return CellOutcome(task.key, CRASHED, f"{CRASH_MESSAGE}; Dask: {exc}")
    return CellOutcome(task.key, ERROR, f"internal error: {type(exc).__name__}: {exc}")


def make_executor(name: str, jobs: int, address: str | None, fn: CellFunction = run_cell) -> LocalPool | DaskExecutor:
    if name == "dask" or address:
        return DaskExecutor(address, jobs, fn)
    return LocalPool(jobs, fn)
