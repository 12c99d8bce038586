"""NodeResourcesFit (PreFilter, Filter, PreScore, Score): does the pod's request fit the node's
free allocatable, and how full would the node be (LeastAllocated, MostAllocated or
RequestedToCapacityRatio).

Upstream: pkg/scheduler/framework/plugins/noderesources/fit.go (plugin, fitsRequest, queueing
hints), resource_allocation.go and the strategy files (see resource_allocation.py),
apis/config/v1/defaults.go (SetDefaults_NodeResourcesFitArgs) and
apis/config/validation/validation_pluginargs.go (ValidateNodeResourcesFitArgs).
With DRAExtendedResource, an extended resource the node does not list in its allocatable and a
DeviceClass maps is left to DynamicResources (shouldDelegateResourceToDRA); scoring such a
resource from the node's devices (when a scoring strategy lists it) is not modelled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kschedctl.api.types import Node, Pod
from kschedctl.api.validation import is_extended_resource_name
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.features import Features
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    PreFilterResult,
    QueueingHint,
    Status,
)
from kschedctl.framework.resource import Resource, compute_pod_resource_request
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins import names
from kschedctl.plugins.node_resources.args import (
    NodeResourcesFitArgs,
    resources_from_args,
)
from kschedctl.plugins.node_resources.resource_allocation import (
    ResourceAllocationScorer,
    is_scalar_resource_name,
    scorer_for,
)

NAME = names.NodeResourcesFit
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_SIDECARS_DISABLED = "Pod has a restartable init container and the SidecarContainers feature is disabled"


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    """One failed check of fitsRequest; ``unresolvable`` when even an empty node is too small."""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


@dataclass(slots=True)
class _PreScoreState:
    """preScoreState: the pod's request of each configured resource, written by PreScore for Score."""

    pod_requests: list[int]

    def clone(self) -> "_PreScoreState":
        return self


# Added requests above this are left to the per-node code (Python integers): a column value
# plus the sum must stay within int64.
_INT64_HEADROOM = 2**62


def _has_request(req: Resource) -> bool:
    return bool(req.milli_cpu or req.memory or req.ephemeral_storage or any(req.scalar_resources.values()))


def fits_request(
    req: Resource,
    node_info: NodeInfo,
    ignored_resources: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
    delegate_to_dra: Callable[[str], bool] | None = None,
) -> list[InsufficientResource]:
    """fitsRequest: every resource the node cannot give, in upstream's order: pods, cpu, memory,
    ephemeral-storage, then the scalar resources (extended, hugepages), which upstream ranges
    over a Go map, so their order differs from run to run; here they are sorted by name, one
    repeatable order among kube's, not a fact (tools/difftest compares them sorted)."""
    out: list[InsufficientResource] = []
    alloc, used = node_info.allocatable, node_info.requested
    allowed = alloc.allowed_pod_number
    if node_info.num_pods + 1 > allowed:
        out.append(InsufficientResource("pods", "Too many pods", 1, node_info.num_pods, allowed))
    if not _has_request(req):
        return out
    for name, want, have, cap in (
        ("cpu", req.milli_cpu, used.milli_cpu, alloc.milli_cpu),
        ("memory", req.memory, used.memory, alloc.memory),
        ("ephemeral-storage", req.ephemeral_storage, used.ephemeral_storage, alloc.ephemeral_storage),
    ):
        if want > 0 and want > cap - have:
            out.append(InsufficientResource(name, f"Insufficient {name}", want, have, cap, want > cap))
    for name in sorted(req.scalar_resources):
        want = req.scalar_resources[name]
        if want == 0 or not is_scalar_resource_name(name):
            continue
        if is_extended_resource_name(name):
            if name in ignored_resources or (ignored_groups and name.split("/", 1)[0] in ignored_groups):
                continue
        cap = alloc.scalar_resources.get(name, 0)
        if delegate_to_dra is not None and cap <= 0 and delegate_to_dra(name):
            continue  # shouldDelegateResourceToDRA: DynamicResources checks it
        have = used.scalar_resources.get(name, 0)
        if want > cap - have:
            out.append(InsufficientResource(name, f"Insufficient {name}", want, have, cap, want > cap))
    return out


def fits(pod: Pod, node_info: NodeInfo) -> list[InsufficientResource]:
    """Fits: the checks with no ignored resources (used by the queueing hint)."""
    return fits_request(compute_pod_resource_request(pod), node_info)


class NodeResourcesFit:
    """The Fit plugin: filter on free allocatable, score with the configured strategy."""

    def __init__(self, args: NodeResourcesFitArgs | dict[str, Any] | None, handle: Handle, features: Features | None = None) -> None:
        features = features if features is not None else handle.features
        fit_args = NodeResourcesFitArgs.of(args, features)
        self.handle = handle
        self.ignored_resources = frozenset(fit_args.ignored_resources or ())
        self.ignored_resource_groups = frozenset(fit_args.ignored_resource_groups or ())
        strategy = fit_args.scoring_strategy
        assert strategy is not None  # defaulted
        resources = resources_from_args(strategy.resources)
        # NewFit builds its scorer from the strategy alone and never sets the scorer's
        # enablePodLevelResources (only Fit's own field, which PreFilter reads): the score
        # takes the pod's container aggregate even when spec.resources is set, while the
        # node side (NodeInfo.NonZeroRequested) does count pod-level requests (noderesources/
        # fit.go NewFit, resource_allocation.go calculatePodResourceRequest; kschedoracle
        # -mode explain, pods with spec.resources under MostAllocated).
        self.scorer = ResourceAllocationScorer(
            strategy.type, resources, scorer_for(strategy, resources), use_requested=False, pod_level_resources=False
        )
        self.sidecars_enabled = features.sidecar_containers
        self.queueing_hints_enabled = features.scheduler_queueing_hints
        self.dra_extended_resource = features.dra_extended_resource and features.dynamic_resource_allocation

    def _delegate_to_dra(self) -> Callable[[str], bool] | None:
        """The DeviceClass resolver of the shared DRA state, when DRAExtendedResource is on."""
        if not self.dra_extended_resource:
            return None
        handle = self.handle  # the shared DRA state is built when a resource name is first asked about
        return lambda name: handle.shared_dra_manager().class_for_extended_resource(name) is not None

    def name(self) -> str:
        return NAME

    # --- events / queueing hints ---------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Pod Delete|UpdatePodScaleDown (InPlacePodVerticalScaling is GA) and Node
        Add|UpdateNodeAllocatable; without queueing hints also UpdateNodeTaint|UpdateNodeLabel."""
        node_actions = ["Add", "UpdateNodeAllocatable"]
        if not self.queueing_hints_enabled:
            node_actions += ["UpdateNodeTaint", "UpdateNodeLabel"]
        events = [
            ClusterEventWithHint(ClusterEvent("Pod", a), self.is_schedulable_after_pod_event) for a in ("Delete", "UpdatePodScaleDown")
        ]
        events += [ClusterEventWithHint(ClusterEvent("Node", a), self.is_schedulable_after_node_change) for a in node_actions]
        return events

    def is_schedulable_after_pod_event(self, pod: Pod, old: Pod | None, new: Pod | None) -> QueueingHint:
        """isSchedulableAfterPodEvent: a deleted bound pod frees room; a scale-down helps only if it
        shrinks a resource the pending pod requests (or is the pending pod itself)."""
        if new is None:
            return QueueingHint.Queue if old is not None and old.node_name else QueueingHint.QueueSkip
        if old is None:
            return QueueingHint.Queue
        if new.uid == pod.uid:
            return QueueingHint.Queue
        if not new.node_name:
            return QueueingHint.QueueSkip
        before, after = compute_pod_resource_request(old), compute_pod_resource_request(new)
        wanted = PodInfo.of(pod).requests
        for name in ("cpu", "memory", "ephemeral-storage", *wanted.scalar_resources):
            if wanted.get(name) and before.get(name) > after.get(name):
                return QueueingHint.Queue
        return QueueingHint.QueueSkip

    def is_schedulable_after_node_change(self, pod: Pod, old: Node | None, new: Node | None) -> QueueingHint:
        """isSchedulableAfterNodeChange: the pod must fit the (empty) new node, and an update must
        have grown something the pod asks for (or the pod count)."""
        if new is None or fits(pod, NodeInfo(new)):
            return QueueingHint.QueueSkip
        if old is None:
            return QueueingHint.Queue
        return QueueingHint.Queue if _requested_resources_increased(pod, old, new) else QueueingHint.QueueSkip

    # --- PreFilter / Filter --------------------------------------------------------------

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """Stores the pod's effective request (max of init use and containers, plus overhead)."""
        if not self.sidecars_enabled and any(c.is_sidecar for c in pod.init_containers):
            return None, Status(Code.UnschedulableAndUnresolvable, ERR_SIDECARS_DISABLED)
        state.write(PRE_FILTER_STATE_KEY, PodInfo.of(pod).requests)
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            req = state.read(PRE_FILTER_STATE_KEY)
        except KeyError as exc:
            return Status(Code.Error, f"error reading {PRE_FILTER_STATE_KEY!r} from cycleState: not found", err=exc)
        insufficient = fits_request(req, node_info, self.ignored_resources, self.ignored_resource_groups, self._delegate_to_dra())
        if not insufficient:
            return None
        code = Code.UnschedulableAndUnresolvable if any(r.unresolvable for r in insufficient) else Code.Unschedulable
        return Status(code, *(r.reason for r in insufficient))

    # --- PreScore / Score ----------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Never Skip: the non-zero defaults make cpu and memory requests positive."""
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(self.scorer.pod_request_list(pod)))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY) if state is not None else None
        pod_requests = s.pod_requests if isinstance(s, _PreScoreState) else self.scorer.pod_request_list(pod)
        return self.scorer.score(node_info, pod_requests)

    def score_extensions(self) -> None:
        return None


def _requested_resources_increased(pod: Pod, old: Node, new: Node) -> bool:
    """haveAnyRequestedResourcesIncreased."""
    req = compute_pod_resource_request(pod)
    before, after = Resource.from_list(old.allocatable), Resource.from_list(new.allocatable)
    if after.allowed_pod_number > before.allowed_pod_number:
        return True
    if not _has_request(req):
        return False
    for name in ("cpu", "memory", "ephemeral-storage"):
        if req.get(name) > 0 and after.get(name) > before.get(name):
            return True
    return any(q and after.get(n) > before.get(n) for n, q in req.scalar_resources.items())
