"""One cell of a sweep, as a worker runs it: the same library calls as `schedule`, `diff` and
`simulate` make (and so the same JSON as they print), plus the metrics the sweep tabulates.

A worker keeps the snapshots it has loaded, by content hash (``SnapshotSource.key``): every
cell of that snapshot on that worker starts from a fresh copy (unpickled: the scheduler
changes the objects it is given) instead of parsing the files again. The files come either
from this machine's disk (the local pool: same machine, same paths), checked against the
hash taken when the sweep started, or shipped with the source (Dask: the worker may have no
such files); either way they are read through the loader's in-memory overlay, under the
names the user gave, so error messages name the user's files and lines.

A cell never raises: bad input or a failure inside the run is an outcome with its error.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kschedctl import __version__
from kschedctl.api.errors import InputError
from kschedctl.app.errors import input_errors
from kschedctl.versions import KubeVersion

OK = "ok"
ERROR = "error"  # bad input, or a failure inside the run: the same inputs fail the same way
CRASHED = "crashed"  # the worker died while running it (killed, out of memory, a fault)

# Snapshots kept per worker process. Cells are handed out in matrix order, snapshot by
# snapshot, so a worker rarely needs more than the one it is on.
SNAPSHOT_CACHE_SIZE = 8


@dataclass(frozen=True)
class SnapshotSource:
    """The files of one snapshot (or one Scenario and its snapshot files)."""

    key: str  # sha256 of the files' bytes, as matrix.SnapshotSpec.key
    paths: tuple[str, ...]  # what load_snapshot / load_scenario is given
    files: tuple[str, ...]  # the files those paths read
    data: tuple[bytes, ...] | None = None  # their bytes, when shipped; None: read them here


@dataclass(frozen=True)
class SideSpec:
    """A configuration, release and gates to run with."""

    config: dict[str, Any] | None  # the (patched) document; None: the built-in configuration
    source: str  # how errors name the configuration
    label: str | None  # what diff's JSON says the configuration is (None: the built-in one)
    kube_version: str
    feature_gates: str


@dataclass(frozen=True)
class CellTask:
    key: str
    command: str  # schedule | diff | simulate
    side: SideSpec  # diff: side B
    seed: int
    plugin_timeout: float
    diff_a: SideSpec | None = None
    kschedctl: str = __version__  # the sweep's version: a worker running another one refuses


@dataclass
class CellOutcome:
    key: str
    status: str  # ok | error | crashed
    error: str | None = None
    metrics: dict[str, Any] | None = None
    result: str | None = None  # the JSON the single command prints (compact)
    wall_seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0  # the worker process's CPU time for the cell (wall time less waiting)

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "status": self.status,
            "error": self.error,
            "metrics": self.metrics,
            "wallSeconds": round(self.wall_seconds, 6),
            "cpuSeconds": round(self.cpu_seconds, 6),
            "warnings": self.warnings,
            "result": self.result,
        }

    @staticmethod
    def from_dict(data: dict[str, Any]) -> "CellOutcome":
        return CellOutcome(
            data["key"],
            data["status"],
            data.get("error"),
            data.get("metrics"),
            data.get("result"),
            float(data.get("wallSeconds") or 0.0),
            list(data.get("warnings") or []),
            float(data.get("cpuSeconds") or 0.0),
        )


def run_cell(task: CellTask, source: SnapshotSource) -> CellOutcome:
    """Run one cell; every failure becomes the outcome's error, never an exception.

    One cell at a time per process: a Dask worker may run tasks on several threads, but the
    scheduler keeps process-wide counters (NodeInfo generations) that two runs must not
    interleave on, and the GIL would serialise the pure-Python work anyway."""
    with _RUN_LOCK:
        return _run_cell(task, source)


_RUN_LOCK = threading.Lock()


def _run_cell(task: CellTask, source: SnapshotSource) -> CellOutcome:
    start, cpu = time.perf_counter(), time.process_time()
    outcome = _outcome(task, source)
    outcome.wall_seconds = time.perf_counter() - start
    outcome.cpu_seconds = time.process_time() - cpu
    return outcome


def _outcome(task: CellTask, source: SnapshotSource) -> CellOutcome:
    try:
        if task.kschedctl != __version__:
            raise InputError(
                f"this worker runs kschedctl {__version__}, the sweep {task.kschedctl}: install the same version on every worker"
            )
        data, metrics, warnings = _RUNNERS[task.command](task, source)
        result = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        return CellOutcome(task.key, OK, None, metrics, result, warnings=warnings)
    except input_errors() as exc:
        return CellOutcome(task.key, ERROR, str(exc))
    except Exception as exc:  # noqa: BLE001 - a cell's failure is its result, never the sweep's
        return CellOutcome(task.key, ERROR, f"internal error: {type(exc).__name__}: {exc}")


# --- the three commands --------------------------------------------------------------------


def _schedule(task: CellTask, source: SnapshotSource) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    from kschedctl.whatif.diff import Side, run_side

    registry = _registry()
    version, cfg = _configuration(task.side, registry)
    cluster = loaded(source, "schedule")
    side = Side("b", task.side.label, version, task.side.feature_gates or None, cfg, cluster)
    result = run_side(side, registry, task.seed, plugin_timeout=task.plugin_timeout)
    warnings = [*cluster.warnings, *result.run.warnings]
    data = result.run.to_dict()
    return data, run_metrics(data, result.packing), warnings


def _diff(task: CellTask, source: SnapshotSource) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    from kschedctl.whatif.diff import Side, diff

    assert task.diff_a is not None
    registry = _registry()
    version_a, cfg_a = _configuration(task.diff_a, registry)
    version_b, cfg_b = _configuration(task.side, registry)
    cluster_a, cluster_b = loaded(source, "diff"), loaded(source, "diff")  # each run owns its objects
    side_a = Side("a", task.diff_a.label, version_a, task.diff_a.feature_gates or None, cfg_a, cluster_a)
    side_b = Side("b", task.side.label, version_b, task.side.feature_gates or None, cfg_b, cluster_b)
    result = diff(side_a, side_b, registry, task.seed, plugin_timeout=task.plugin_timeout)
    summary = result.summary()
    metrics = run_metrics(result.b.run.to_dict(), result.b.packing)
    metrics.update(
        {
            "changed": summary["changed"],
            "moved": summary["moved"],
            "becameUnschedulable": summary["unschedulable"],
            "becameSchedulable": summary["schedulable"],
        }
    )
    warnings = [*cluster_a.warnings, *(f"side A: {w}" for w in result.a.run.warnings), *(f"side B: {w}" for w in result.b.run.warnings)]
    return result.to_dict(), metrics, warnings


def _simulate(task: CellTask, source: SnapshotSource) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    from kschedctl.api.types import Pod
    from kschedctl.explain.verdict import word_run
    from kschedctl.scheduler.simulate import run_scenario
    from kschedctl.whatif.usage import cluster_usage, pod_shape

    registry = _registry()
    version, cfg = _configuration(task.side, registry)
    scenario = loaded(source, "simulate")
    # the shapes fragmentation is measured against: pods pending at the start, pods created later
    shapes = [pod_shape(p) for p in scenario.cluster.pending_pods]
    shapes += [pod_shape(Pod.from_dict(e.spec["object"])) for e in scenario.events if e.action == "createPod"]
    result = run_scenario(scenario, cfg, registry, version, seed=task.seed, plugin_timeout=task.plugin_timeout)
    word_run(result.run)
    packing = cluster_usage(result.node_infos or {}).packing(shapes)
    data = result.to_dict()
    return data, run_metrics(data, packing), [*scenario.cluster.warnings, *result.run.warnings]


_RUNNERS = {"schedule": _schedule, "diff": _diff, "simulate": _simulate}


def run_metrics(run: dict[str, Any], packing: Any) -> dict[str, Any]:
    """The counts of the run's summary, the packing measures (whatif.usage), flat, and a digest
    of where every pod ended: cells with the same digest placed every pod alike."""
    summary = run["summary"]
    p = packing.to_dict()
    mean, stddev, frag = p["utilisationMean"], p["utilisationStddev"], p["fragmentation"]
    return {
        "pending": summary["pending"],
        "scheduled": summary["scheduled"],
        "unschedulable": summary["unschedulable"],
        "skipped": summary["skipped"],
        "preempted": summary["preempted"],
        "nodes": p["nodes"],
        "nodesUsed": p["nodesUsed"],
        "emptyNodes": p["emptyNodes"],
        "cpuUtilisationMean": mean.get("cpu"),
        "cpuUtilisationStddev": stddev.get("cpu"),
        "memoryUtilisationMean": mean.get("memory"),
        "memoryUtilisationStddev": stddev.get("memory"),
        "cpuFragmentation": frag.get("cpu"),
        "memoryFragmentation": frag.get("memory"),
        "outcome": outcome_digest(run),
    }


def outcome_digest(run: dict[str, Any]) -> str:
    """12 hex digits over each pending pod's end (its node, or that it was not placed) and the
    preemptions: equal digests, equal placements."""
    ends = sorted(
        [(p["pod"], p["node"], p.get("preemptedBy") or "") for p in run["placements"]]
        + [(u["pod"], "", "unschedulable") for u in run["unschedulable"]]
        + [(s["pod"], "", "skipped") for s in run["skipped"]]
    )
    victims = sorted((p["preemptor"], p["node"], tuple(p["victims"])) for p in run["preemptions"])
    text = json.dumps([ends, victims], separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _registry() -> Any:
    from kschedctl.app.config import plugin_registry

    return plugin_registry(lambda _: None)  # a package's load error was said when the sweep started


def _configuration(side: SideSpec, registry: Any) -> tuple[KubeVersion, Any]:
    """Load, default and validate, as the commands' --config does (kschedctl/app)."""
    from kschedctl.app.config import load_config_document
    from kschedctl.app.release import cell_release

    version = cell_release(side.kube_version, side.feature_gates)
    return version, load_config_document(side.config, side.source, version, registry)


# --- the worker's snapshots ----------------------------------------------------------------

_CACHE: "OrderedDict[str, bytes | InputError]" = OrderedDict()
_CACHE_LOCK = threading.Lock()  # Dask may run cells on threads of one worker


def loaded(source: SnapshotSource, command: str) -> Any:
    """A fresh copy of the snapshot (ClusterSnapshot), or for simulate of the Scenario."""
    with _CACHE_LOCK:
        entry = _CACHE.get(source.key)
        if entry is not None:
            _CACHE.move_to_end(source.key)
    if entry is None:
        entry = _load(source, command)
        with _CACHE_LOCK:
            _CACHE[source.key] = entry
            while len(_CACHE) > SNAPSHOT_CACHE_SIZE:
                _CACHE.popitem(last=False)
    if isinstance(entry, InputError):
        raise entry
    return pickle.loads(entry)


def cached_keys() -> list[str]:
    with _CACHE_LOCK:
        return list(_CACHE)


def _load(source: SnapshotSource, command: str) -> bytes | InputError:
    """Parse and build once; keep the pickled objects (or the input error, which every cell of
    this snapshot reports alike)."""
    from kschedctl.cluster.loader import files_overlay, load_snapshot
    from kschedctl.cluster.scenario import load_scenario

    obj: Any
    try:
        texts = _texts(source)
        with files_overlay(texts):
            if command == "simulate":
                obj = load_scenario(source.paths[0])
                cluster = obj.cluster
            else:
                obj = cluster = load_snapshot(list(source.paths))
    except InputError as exc:
        return exc
    cluster.sources = {}  # keyed by id(): meaningless in a copy (only load-time errors read it)
    cluster.documents = []  # for --write-snapshot, which a sweep does not do
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def content_key(chunks: Any) -> str:
    """sha256 over the files' bytes, each prefixed by its length."""
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(len(chunk).to_bytes(8, "big"))
        digest.update(chunk)
    return digest.hexdigest()


def _texts(source: SnapshotSource) -> dict[str, str]:
    data = source.data
    if data is None:
        read = []
        for f in source.files:
            try:
                read.append(Path(f).read_bytes())
            except OSError as exc:
                raise InputError(f"cannot read: {exc}", file=f) from None
        data = tuple(read)
    if content_key(data) != source.key:
        raise InputError(
            "the snapshot's files changed since the sweep started (their content hash differs)",
            file=source.files[0] if source.files else None,
        )
    texts = {}
    for f, chunk in zip(source.files, data):
        try:
            texts[f] = chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"cannot read: {exc}", file=f) from None
    return texts
