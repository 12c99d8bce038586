"""GpuShare: the Filter and Reserve of GPU sharing (the simulator's Open-Gpu-Share plugin).

Filter reads the pod's request from its annotations (once per Pod object, memoised in
``pod.cache``); a pod without GPUs passes every node (CPU and memory are NodeResourcesFit's), a
pod whose annotations cannot be read is UnschedulableAndUnresolvable on every node, the
message naming the annotation. Then, in the simulator's order: a node without GPUs rejects a
GPU pod; a node whose model the pod does not accept
rejects it; a node where no fitting GPU set exists rejects it (a sharing pod needs one GPU with
its milli free, a whole-GPU pod ``count`` completely free GPUs). CPU and memory stay
NodeResourcesFit's.

Reserve picks the GPUs on the chosen node: the choice of the active GPU policy (a Score plugin
of this package writes its chooser into the CycleState when it scores), else best fit, and
records them in the :class:`~kschedctl_gpushare.gpu.Ledger` by pod UID (and in the CycleState,
for Unreserve, which forgets them).

No PreFilter: an out-of-tree PreFilter is handed every NodeInfo of the snapshot, which the
runtime's sandbox records before and compares after the call (~20 us per node, 25 ms per pod at
1,213 nodes: three quarters of an openb run's CPU), and reading the request in Filter decides
the same (a pod without GPUs passes the Filter where the PreFilter's Skip left it out).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kschedctl.framework import (
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    Handle,
    Node,
    NodeInfo,
    Pod,
    QueueingHint,
    Status,
)

from .gpu import GpuRequest, NodeGpu, RequestError, best_fit, ledger_of, request_of

NAME = "GpuShare"
REQUEST_KEY = f"PreFilter{NAME}"  # CycleState: the pod's GpuRequest, when a caller wrote it
CHOOSER_KEY = f"{NAME}/chooser"  # CycleState: the policy's GPU choice inside a node
RESERVED_KEY = f"Reserve{NAME}"  # CycleState: (node, GPUs) Reserve gave the pod

ERR_NO_GPU = "node(s) had no GPU"
ERR_MODEL = "node(s) had no GPU of the requested model"
ERR_INSUFFICIENT = "Insufficient GPU"

# One Status object per reason: the batch Filter shares them among nodes, as the runtime prefers.
_NO_GPU = Status(Code.UnschedulableAndUnresolvable, ERR_NO_GPU)
_MODEL = Status(Code.UnschedulableAndUnresolvable, ERR_MODEL)
_INSUFFICIENT = Status(Code.Unschedulable, ERR_INSUFFICIENT)

_VERDICTS: tuple[Status | None, ...] = (None, _NO_GPU, _MODEL, _INSUFFICIENT)  # filter_batch's codes

Chooser = Callable[[NodeGpu, GpuRequest], tuple[int, ...]]


def request_in(state: CycleState, pod: Pod) -> GpuRequest:
    """The pod's request: PreFilter's, else read now (raises RequestError)."""
    request = state.get(REQUEST_KEY)
    if isinstance(request, GpuRequest):
        return request
    return request_of(pod)


def gpu_status(node: NodeGpu, request: GpuRequest) -> Status | None:
    """The Filter's verdict on one node's GPUs (None: fits)."""
    if request.milli == 0:
        return None
    if not node.free:
        return _NO_GPU
    if not request.allows(node.model):
        return _MODEL
    return None if node.fits(request) else _INSUFFICIENT


class GpuShare:
    """Filter (and its batch form), Reserve and Unreserve."""

    def __init__(self, args: object | None, handle: Handle | None) -> None:
        self.handle = handle
        self.ledger = ledger_of(handle)

    def name(self) -> str:
        return NAME

    # --- Filter ----------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if node_info.node is None:
            return Status(Code.Error, "node not found")
        try:
            request = request_in(state, pod)
        except RequestError as exc:
            return Status(Code.UnschedulableAndUnresolvable, str(exc))
        return gpu_status(self.ledger.node(node_info), request)

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """The per-node Filter over many nodes as a few numpy operations on the ledger's table
        (gpu_status's order: no GPU, then the model, then the GPU set). A NodeInfo without a
        Node raises here; the runtime's per-node calls then report it."""
        request = request_in(state, pod)
        if request.milli == 0:
            return [None] * len(node_infos)
        rows = self.ledger.rows_of(node_infos)
        table = self.ledger.table
        np = table.np
        if request.sharing:
            fits = table.max_free[rows] >= request.milli
        else:
            fits = table.whole[rows] >= request.count
        accepted = table.allowed(request.models)[table.model[rows]]
        verdict = np.where(table.count[rows] == 0, 1, np.where(accepted, np.where(fits, 0, 3), 2))
        return list(map(_VERDICTS.__getitem__, verdict.tolist()))

    # --- Reserve ---------------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        try:
            request = request_in(state, pod)
        except RequestError as exc:
            return Status(Code.UnschedulableAndUnresolvable, str(exc))
        if request.milli == 0:
            return None
        node_info = self._node_info(node_name)
        if node_info is None:
            return Status(Code.Error, f"node {node_name!r} not found in the snapshot")
        node = self.ledger.node(node_info)
        chooser: Chooser = state.get(CHOOSER_KEY) or best_fit
        gpus = chooser(node, request)
        if not gpus or not node.fits(request):
            return Status(Code.Unschedulable, ERR_INSUFFICIENT)
        self.ledger.assigned[pod.uid or pod.key] = gpus
        state.write(RESERVED_KEY, (node_name, gpus))
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        if state.get(RESERVED_KEY) is not None:
            self.ledger.assigned.pop(pod.uid or pod.key, None)
            state.delete(RESERVED_KEY)

    def _node_info(self, node_name: str) -> NodeInfo | None:
        if self.handle is None:
            return None
        try:
            return self.handle.snapshot_shared_lister().get(node_name)
        except Exception:  # noqa: BLE001 - a lister raising for an unknown node: not found
            return None

    # --- EnqueueExtensions -----------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A pod this plugin rejected may fit when a node with GPUs is added or relabelled, or
        when a pod holding GPUs leaves."""
        return [
            ClusterEventWithHint(ClusterEvent("Node", "Add"), self._node_has_gpus),
            ClusterEventWithHint(ClusterEvent("Node", "UpdateNodeLabel"), self._node_has_gpus),
            ClusterEventWithHint(ClusterEvent("AssignedPod", "Delete"), None),
        ]

    def _node_has_gpus(self, pod: Pod, old: Node | None, new: Node) -> QueueingHint:
        from .gpu import GPU_COUNT

        return QueueingHint.Queue if new.labels.get(GPU_COUNT, "0") not in ("", "0") else QueueingHint.QueueSkip


__all__ = ["CHOOSER_KEY", "ERR_INSUFFICIENT", "ERR_MODEL", "ERR_NO_GPU", "NAME", "REQUEST_KEY", "GpuShare", "gpu_status", "request_in"]
