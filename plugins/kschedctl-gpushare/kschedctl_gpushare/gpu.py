"""The GPU-sharing model: what a pod asks, what a node has, and which GPUs each placed pod holds.

The model is the one of Alibaba's openb trace and of the simulator of Weng et al. (ATC '23):
each GPU has 1000 milli-GPU. A pod asks ``gpu-count`` GPUs with ``gpu-milli`` of each:

* a GPU-sharing pod (count 1, milli < 1000) needs one GPU with at least ``milli`` free, and
  several such pods share a GPU until its 1000 milli are used up;
* a whole-GPU pod (milli 1000, count 1-8) needs ``count`` completely free GPUs on one node, and
  takes the lowest-index ones;
* a pod may name the GPU models it accepts (``gpu-model: V100M16|V100M32``).

Where it lives (see the package README):

* a Node carries its GPUs as labels, ``gpushare.kschedctl.io/gpu-count`` and
  ``gpushare.kschedctl.io/gpu-model``, and its total as the extended resource
  ``gpushare.kschedctl.io/gpu-milli`` (count x 1000) in its allocatable;
* a Pod carries its request as annotations, ``gpushare.kschedctl.io/gpu-count``,
  ``.../gpu-milli`` and ``.../gpu-model``, and asks ``gpushare.kschedctl.io/gpu-milli`` =
  count x milli as an extended resource, so that NodeResourcesFit keeps the node totals honest;
* a bound Pod may say which GPUs it holds (``gpushare.kschedctl.io/gpu-index: "0,1"``); a pod
  placed during the run has its GPUs recorded by GpuShare's Reserve in the :class:`Ledger`.

The per-GPU free milli of a node is derived from the NodeInfo's pods and cached by the
NodeInfo's generation, so whatever changes a node (a placement, a deletion in a scenario, a
preemption) is seen at the next look, without any event wiring.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from kschedctl.framework import Handle, NodeInfo, Pod

DOMAIN = "gpushare.kschedctl.io"
GPU_COUNT = f"{DOMAIN}/gpu-count"  # node label; pod annotation
GPU_MODEL = f"{DOMAIN}/gpu-model"  # node label (the model); pod annotation ("A|B": accepted models)
GPU_MILLI = f"{DOMAIN}/gpu-milli"  # pod annotation (per GPU); extended resource (node total, pod total)
GPU_INDEX = f"{DOMAIN}/gpu-index"  # bound pod annotation: the GPUs it holds, "0,1"
RESAMPLED = f"{DOMAIN}/resampled"  # pod annotation: a copy added to inflate the workload (not a typical pod)
MILLI_PER_GPU = 1000

CPU = "cpu"
SHARE = "share"


class RequestError(ValueError):
    """A pod's GPU annotations cannot be read (the message names the annotation)."""


@dataclass(frozen=True, slots=True)
class GpuRequest:
    """What one pod asks: CPU (millicores), ``count`` GPUs of ``milli`` each, accepted models."""

    cpu: int
    count: int
    milli: int
    models: frozenset[str] | None = None

    @property
    def total(self) -> int:
        return self.count * self.milli

    @property
    def sharing(self) -> bool:
        return self.milli > 0 and self.milli < MILLI_PER_GPU

    @property
    def gpu_class(self) -> str:
        """The class GpuClustering keeps together: CPU-only, sharing, or k whole GPUs."""
        if self.milli == 0:
            return CPU
        return SHARE if self.sharing else f"{self.count}-gpu"

    def allows(self, model: str) -> bool:
        return self.models is None or model in self.models


def _int(annotations: dict[str, str], key: str, low: int, high: int) -> int:
    raw = annotations.get(key)
    if raw is None:
        return 0
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise RequestError(f"annotation {key}: {raw!r} is not an integer") from None
    if not low <= value <= high:
        raise RequestError(f"annotation {key}: {value} is out of range [{low}, {high}]")
    return value


def parse_models(raw: str | None) -> frozenset[str] | None:
    """``"V100M16|V100M32"`` -> the set; empty or absent: any model."""
    if raw is None:
        return None
    models = frozenset(m.strip() for m in str(raw).split("|") if m.strip())
    return models or None


def request_of(pod: Pod) -> GpuRequest:
    """The pod's request, read once per Pod object (memoised in ``pod.cache``)."""
    cached = pod.cache.get(DOMAIN)
    if isinstance(cached, GpuRequest):
        return cached
    annotations = pod.meta.annotations or {}
    count = _int(annotations, GPU_COUNT, 0, 64)
    milli = _int(annotations, GPU_MILLI, 0, MILLI_PER_GPU) if count else 0
    if count and milli == 0 and GPU_MILLI not in annotations:
        milli = MILLI_PER_GPU  # gpu-count alone: whole GPUs
    if count > 1 and milli != MILLI_PER_GPU:
        raise RequestError(f"annotation {GPU_MILLI}: {milli} with {GPU_COUNT} {count}; a pod asking several GPUs takes them whole (1000)")
    if milli == 0:
        count = 0
    cpu = sum(int(c.requests.get("cpu", 0) * 1000) for c in pod.containers)  # cores -> millicores
    request = GpuRequest(cpu, count, milli, parse_models(annotations.get(GPU_MODEL)) if milli else None)
    pod.cache[DOMAIN] = request
    return request


class NodeGpu:
    """One node's GPUs as the run sees them: per-GPU free milli, model, CPU free, GPU classes
    of the pods it hosts. Valid for one NodeInfo generation."""

    __slots__ = ("name", "generation", "model", "free", "cpu_free", "classes", "row")

    def __init__(self, name: str, generation: int, model: str, free: list[int], cpu_free: int, classes: frozenset[str]) -> None:
        self.name = name
        self.generation = generation
        self.model = model
        self.free = free
        self.cpu_free = cpu_free
        self.classes = classes
        self.row = -1

    @property
    def total_free(self) -> int:
        return sum(self.free)

    @property
    def count(self) -> int:
        return len(self.free)

    def fits(self, request: GpuRequest) -> bool:
        """The GPU part of the filter (model and GPU set; CPU is NodeResourcesFit's)."""
        if request.milli == 0:
            return True
        if not self.free or not request.allows(self.model):
            return False
        if request.sharing:
            return max(self.free) >= request.milli
        return self.free.count(MILLI_PER_GPU) >= request.count

    def whole_gpus(self, count: int) -> tuple[int, ...]:
        """The lowest-index completely free GPUs."""
        return tuple([i for i, f in enumerate(self.free) if f == MILLI_PER_GPU][:count])

    def best_fit_gpu(self, milli: int) -> int:
        """The fitting GPU with the least free milli (lowest index on a tie); -1: none."""
        best, best_free = -1, MILLI_PER_GPU + 1
        for i, f in enumerate(self.free):
            if milli <= f < best_free:
                best, best_free = i, f
        return best


def best_fit(node: NodeGpu, request: GpuRequest) -> tuple[int, ...]:
    """The default GPU choice: whole GPUs lowest-index first; a sharing pod on the tightest GPU."""
    if request.milli == 0:
        return ()
    if request.sharing:
        gpu = node.best_fit_gpu(request.milli)
        return (gpu,) if gpu >= 0 else ()
    chosen = node.whole_gpus(request.count)
    return chosen if len(chosen) == request.count else ()


def _indices(raw: str, count: int) -> tuple[int, ...] | None:
    try:
        out = tuple(int(x) for x in str(raw).replace(" ", "").split(",") if x != "")
    except ValueError:
        return None
    return out if out and all(0 <= i < count for i in out) else None


_NODE_NAME = attrgetter("node.name")
_GENERATION = attrgetter("generation")


class GpuTable:
    """The ledger's NodeGpus as numpy columns, one row per node (the ledger's row of its name,
    stable for the run), so that the batch Filter and Scores read many nodes with a few numpy
    operations. A row is rewritten when its NodeGpu's generation is not the one written.

    Columns: ``gen`` (NodeInfo generation written, -1: none), ``count`` (GPUs), ``free``
    (per-GPU free milli, -1 past ``count``), ``max_free``, ``whole`` (completely free GPUs),
    ``total_free``, ``cpu_free``, ``model`` (an id per model name), ``partial`` (some GPU partly
    or fully used), ``classes`` (a bit per GPU class of the pods it hosts).
    """

    def __init__(self) -> None:
        import numpy as np

        self.np = np
        self.capacity = 0
        self.width = 8
        self.gen = np.zeros(0, dtype=np.int64)
        self.count = np.zeros(0, dtype=np.int64)
        self.free = np.zeros((0, self.width), dtype=np.int64)
        self.max_free = np.zeros(0, dtype=np.int64)
        self.whole = np.zeros(0, dtype=np.int64)
        self.total_free = np.zeros(0, dtype=np.int64)
        self.cpu_free = np.zeros(0, dtype=np.int64)
        self.model = np.zeros(0, dtype=np.int64)
        self.partial = np.zeros(0, dtype=bool)
        self.classes = np.zeros(0, dtype=np.int64)
        self.model_ids: dict[str, int] = {}
        self.class_bits: dict[str, int] = {}
        self._allowed: dict[frozenset[str] | None, Any] = {}

    def grow(self, rows: int, width: int) -> None:
        """Room for ``rows`` rows of ``width`` GPUs (new rows unwritten)."""
        np = self.np
        cap = max(rows, 2 * self.capacity, 64) if rows > self.capacity else self.capacity
        wide = max(width, self.width)
        if cap == self.capacity and wide == self.width:
            return

        def grown(a: Any, shape: tuple[int, ...], fill: Any) -> Any:
            b = np.full(shape, fill, dtype=a.dtype)
            b[tuple(slice(0, s) for s in a.shape)] = a
            return b

        self.gen = grown(self.gen, (cap,), -1)
        self.count = grown(self.count, (cap,), 0)
        self.free = grown(self.free, (cap, wide), -1)
        self.max_free = grown(self.max_free, (cap,), -1)
        self.whole = grown(self.whole, (cap,), 0)
        self.total_free = grown(self.total_free, (cap,), 0)
        self.cpu_free = grown(self.cpu_free, (cap,), 0)
        self.model = grown(self.model, (cap,), 0)
        self.partial = grown(self.partial, (cap,), False)
        self.classes = grown(self.classes, (cap,), 0)
        self.capacity, self.width = cap, wide

    def write(self, row: int, node: NodeGpu) -> None:
        free = node.free
        if row >= self.capacity or len(free) > self.width:
            self.grow(row + 1, len(free))
        self.free[row] = -1
        self.free[row, : len(free)] = free
        self.count[row] = len(free)
        self.max_free[row] = max(free) if free else -1
        self.whole[row] = free.count(MILLI_PER_GPU)
        self.total_free[row] = sum(free)
        self.cpu_free[row] = node.cpu_free
        model = self.model_ids.get(node.model)
        if model is None:
            model = self.model_ids[node.model] = len(self.model_ids)
        self.model[row] = model
        self.partial[row] = any(f < MILLI_PER_GPU for f in free)
        bits = 0
        for c in node.classes:
            bits |= self.class_bit(c)
        self.classes[row] = bits
        self.gen[row] = node.generation

    def class_bit(self, gpu_class: str) -> int:
        bit = self.class_bits.get(gpu_class)
        if bit is None:
            bit = self.class_bits[gpu_class] = 1 << len(self.class_bits)
        return bit

    def allowed(self, models: frozenset[str] | None) -> Any:
        """Per model id: does a request accepting ``models`` accept it."""
        out = self._allowed.get(models)
        if out is None or len(out) != len(self.model_ids):
            names = sorted(self.model_ids, key=self.model_ids.__getitem__)
            out = self._allowed[models] = self.np.array([models is None or m in models for m in names], dtype=bool)
        return out


class Ledger:
    """Which GPUs each placed pod holds, and each node's GPUs, for one scheduler (one Handle).

    GpuShare's Reserve records the GPUs it gives a pod (by pod UID); every plugin of the
    package reads a node's GPUs through :meth:`node`, rebuilt from the NodeInfo's pods when
    the NodeInfo's generation changed, or many nodes' at once through :meth:`rows_of` and
    :attr:`table` (the same NodeGpus as numpy columns).
    """

    def __init__(self) -> None:
        self.assigned: dict[str, tuple[int, ...]] = {}
        self.nodes: dict[str, NodeGpu] = {}
        self.rows: dict[str, int] = {}  # node name -> row in the tables (stable for the run)
        self.names: list[str] = []  # row -> node name
        self.by_row: list[NodeGpu | None] = []  # row -> its current NodeGpu
        self._table: GpuTable | None = None

    @property
    def table(self) -> GpuTable:
        if self._table is None:
            self._table = GpuTable()
        return self._table

    def row(self, name: str) -> int:
        row = self.rows.get(name)
        if row is None:
            row = self.rows[name] = len(self.rows)
            self.names.append(name)
            self.by_row.append(None)
        return row

    def node(self, node_info: NodeInfo) -> NodeGpu:
        node = node_info.node
        name = node.name if node is not None else ""
        cached = self.nodes.get(name)
        if cached is not None and cached.generation == node_info.generation:
            return cached
        built = self._build(name, node_info)
        built.row = self.row(name)
        self.nodes[name] = built
        self.by_row[built.row] = built
        return built

    def rows_of(self, node_infos: Sequence[NodeInfo]) -> Any:
        """The nodes' rows in :attr:`table` (int64 array), the rows whose NodeInfo generation
        changed since they were written rebuilt first: one vectorised look-up for many nodes,
        the same NodeGpus as :meth:`node` per node. Raises AttributeError for a NodeInfo
        without a Node."""
        table = self.table
        np = table.np
        n = len(node_infos)
        names = list(map(_NODE_NAME, node_infos))
        try:
            rows = np.fromiter(map(self.rows.__getitem__, names), dtype=np.int64, count=n)
        except KeyError:
            rows = np.fromiter(map(self.row, names), dtype=np.int64, count=n)
        if n and int(rows.max()) >= table.capacity:
            table.grow(int(rows.max()) + 1, table.width)
        gens = np.fromiter(map(_GENERATION, node_infos), dtype=np.int64, count=n)
        for i in np.flatnonzero(table.gen[rows] != gens).tolist():
            built = self.node(node_infos[i])
            table.write(built.row, built)
        return rows

    def _build(self, name: str, node_info: NodeInfo) -> NodeGpu:
        labels = node_info.node.labels if node_info.node is not None else {}
        try:
            count = max(0, min(64, int(labels.get(GPU_COUNT, "0") or 0)))
        except ValueError:
            count = 0
        free = [MILLI_PER_GPU] * count
        classes: set[str] = set()
        for pod_info in node_info.pods:
            pod = pod_info.pod
            try:
                request = request_of(pod)
            except RequestError:
                continue
            if request.milli == 0 or not free:
                continue
            classes.add(request.gpu_class)
            held = self._held(pod, request, free)
            for i in held:
                free[i] = max(0, free[i] - request.milli)
        cpu_free = int(node_info.allocatable.milli_cpu) - int(node_info.requested.milli_cpu)
        return NodeGpu(name, node_info.generation, str(labels.get(GPU_MODEL, "")), free, cpu_free, frozenset(classes))

    def _held(self, pod: Pod, request: GpuRequest, free: list[int]) -> tuple[int, ...]:
        """The GPUs a pod on the node holds: Reserve's record, else its annotation, else the
        best fit now (recorded, so the node is rebuilt the same way next time)."""
        uid = pod.uid or pod.key
        held = self.assigned.get(uid)
        if held is not None and len(held) == request.count and all(i < len(free) for i in held):
            return held
        raw = (pod.meta.annotations or {}).get(GPU_INDEX)
        held = _indices(raw, len(free)) if raw is not None else None
        if held is None or len(held) != request.count:
            probe = NodeGpu("", 0, "", free, 0, frozenset())
            held = best_fit(probe, request)
            if not held:  # over-committed snapshot: take the GPUs with the most free milli
                order = sorted(range(len(free)), key=lambda i: (-free[i], i))
                held = tuple(sorted(order[: request.count]))
        self.assigned[uid] = held
        return held


_LEDGERS: weakref.WeakKeyDictionary[Any, Ledger] = weakref.WeakKeyDictionary()
_UNKEYED: dict[int, tuple[Any, Ledger]] = {}


def ledger_of(handle: Handle | None) -> Ledger:
    """The ledger shared by the package's plugins of one scheduler (one per Handle; plugins
    built without a handle share one ledger, as in unit tests)."""
    try:
        ledger = _LEDGERS.get(handle)
        if ledger is None:
            ledger = _LEDGERS[handle] = Ledger()
        return ledger
    except TypeError:  # None or an object without weak references
        entry = _UNKEYED.get(id(handle))
        if entry is None or entry[0] is not handle:
            entry = _UNKEYED[id(handle)] = (handle, Ledger())
        return entry[1]


__all__ = [
    "CPU",
    "DOMAIN",
    "GPU_COUNT",
    "GPU_INDEX",
    "GPU_MILLI",
    "GPU_MODEL",
    "MILLI_PER_GPU",
    "RESAMPLED",
    "SHARE",
    "GpuRequest",
    "GpuTable",
    "Ledger",
    "NodeGpu",
    "RequestError",
    "best_fit",
    "ledger_of",
    "parse_models",
    "request_of",
]
