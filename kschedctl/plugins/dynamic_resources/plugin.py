"""DynamicResources: devices for the pod's ResourceClaims, at every extension point.

Upstream: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go (1.35.4, and the
gate-dependent paths 1.36/1.37 turn on by default).

- PreEnqueue: every claim must exist, not be being deleted, and be the pod's own when it comes
  from a template ("ResourceClaim not created yet", "pod is not owner").
- PreFilter: the claims (plus the special claim for extended resources backed by DRA); an
  allocated claim brings its node selector; an unallocated one needs its device classes and no
  allocation in flight; the structured allocator is prepared with the devices other claims hold
  (allocated or in flight), the slices and the classes.
- Filter, per node: allocated claims must be usable there ("resourceclaim not available on the
  node"); the others must be allocatable there ("cannot allocate all claims"; allocator errors
  are errors of the attempt). The allocation found is kept for Score and Reserve.
- PostFilter: deallocates one allocated claim that was unavailable and is reserved for nobody
  else ("deallocation of ResourceClaim completed"), deletes a stale extended-resource claim, or
  says "still not schedulable"; without claims, "no new claims to deallocate".
- Score: with prioritized lists, the subrequests picked (higher choices score more).
- Reserve: the node's allocation becomes in flight (later pods see its devices as taken);
  Unreserve undoes that and drops the pod from reservedFor.
- PreBind: writes the allocation (with the delete-protection finalizer) and the pod's
  reservedFor entry to each claim through the API.

kschedctl differences: PostFilter picks the first unavailable claim (kube iterates a Go set,
at random); filterTimeout is not applied (searches are not timed: decisions stay reproducible);
waiting for binding conditions in PreBind ends at once with kube's "device binding timeout"
(no driver updates the device status in a simulation).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kschedctl.api.errors import ObjectError
from kschedctl.api.gotime import seconds_of
from kschedctl.api.labels import NodeSelector, node_selector_from_dict
from kschedctl.api.objects import dra_types
from kschedctl.api.podclaims import DELETE_PROTECTION_FINALIZER, pod_claim_refs
from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import parse_duration
from kschedctl.framework.handle import ApiError, Client, Handle
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    SKIP,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    NodeScore,
    PostFilterResult,
    PreFilterResult,
    QueueingHint,
    Status,
)
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins import names
from kschedctl.plugins.dynamic_resources import extended as ext
from kschedctl.plugins.dynamic_resources.args import (
    DEFAULT_BINDING_TIMEOUT,
    DynamicResourcesArgs,
    binding_conditions_enabled,
)
from kschedctl.plugins.dynamic_resources.claims import (
    ClaimNotAvailable,
    ClaimStore,
    edited,
    foreach_pod_resource_claim,
    kobj,
    pod_resource_claims,
)

if TYPE_CHECKING:
    # The claim types, the allocator (and the CEL it evaluates) and the shared DRA state are
    # imported where a pod has claims to allocate: a run without any never loads them.
    from kschedctl.api.resourceclaim import AllocationResult, ResourceClaim
    from kschedctl.dra.manager import DRAManager
    from kschedctl.dra.structured import Allocator
    from kschedctl.dra.structured import Features as AllocatorFeatures

NAME = names.DynamicResources
STATE_KEY = NAME
MSG_NO_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
MSG_STILL_NOT_SCHEDULABLE = "still not schedulable"
MSG_DEALLOCATED = "deallocation of ResourceClaim completed"
MSG_DELETED = "deletion of ResourceClaim completed"
MSG_CANNOT_ALLOCATE = "cannot allocate all claims"
MSG_NOT_AVAILABLE = "resourceclaim not available on the node"
FIRST_AVAILABLE_MAX_SIZE = 8  # resourceapi.FirstAvailableDeviceRequestMaxSize
_BINDING_POLL_INTERVAL = 5.0  # PreBind polls the device status every 5s


def statusUnschedulable(reason: str) -> Status:  # noqa: N802 - upstream's helper name
    """statusUnschedulable: every rejection of this plugin is UnschedulableAndUnresolvable."""
    return Status(Code.UnschedulableAndUnresolvable, reason)


@dataclass(slots=True)
class _InfoForClaim:
    """informationForClaim: for one claim of the attempt, the nodes its allocation is available on and the allocation
    Reserve made."""

    available_on_nodes: NodeSelector | None = None  # from the allocation's node selector
    allocation: AllocationResult | None = None  # set by Reserve, published by PreBind


@dataclass(slots=True)
class _NodeAllocation:
    """nodeAllocation: what Filter allocated on one node: the claims' allocation results and, for DRA-backed extended
    resources, the special claim and its container mappings."""

    results: list[AllocationResult]
    extended_claim: ResourceClaim | None = None
    mappings: list[ext.Mapping] = field(default_factory=list)


class StateData:
    """stateData: the attempt's claims and what Filter learnt about each node."""

    __slots__ = (
        "claims",
        "extended",
        "allocator",
        "unavailable_claims",
        "informations",
        "node_allocations",
        "min_devices",
        "validated",
        "allocator_features",
        "memo_key",
    )

    def __init__(self) -> None:
        self.claims = ClaimStore([])
        self.extended: dict[str, int] = {}  # draExtendedResource.podScalarResources
        self.allocator: Allocator | None = None
        self.unavailable_claims: set[int] = set()
        self.informations: list[_InfoForClaim] = []
        self.node_allocations: dict[str, _NodeAllocation] = {}
        # kschedctl's shortcut for nodes whose devices are all taken (see _allocate_on)
        self.min_devices: int | None = None
        self.validated = False
        self.allocator_features: AllocatorFeatures | None = None
        self.memo_key: int | None = None  # the claims to allocate, for DRAManager.filter_memo

    def clone(self) -> "StateData":
        return self


def _get_state(state: CycleState) -> StateData:
    data = state.read(STATE_KEY)
    if not isinstance(data, StateData):
        raise TypeError("unable to convert state into stateData")
    return data


def allocator_features(features: Features, version: Any) -> AllocatorFeatures:
    """AllocatorFeatures (dynamicresources.go), plus the release's non-gate behaviour."""
    from kschedctl.dra.structured import Features as AllocatorFeatures

    return AllocatorFeatures(
        admin_access=features.dra_admin_access,
        prioritized_list=features.dra_prioritized_list,
        partitionable_devices=features.dra_partitionable_devices,
        device_taints=features.dra_device_taints,
        device_binding_and_status=binding_conditions_enabled(features),
        consumable_capacity=features.dra_consumable_capacity,
        sorted_pools=version.has("DRASortedPoolsAndSlices") if version is not None else True,
        accounting_fixes=version.has("DRAAllocatorAccountingFixes") if version is not None else True,
    )


def _allocation_failure(s: StateData, exc: Exception) -> Status:
    """Filter's Status for an allocator exception; anything else is re-raised. (The allocator's
    exception types are imported here, on the failure path: see the TYPE_CHECKING imports.)"""
    from kschedctl.dra.structured import AllocationCancelled, AllocationError, AllocationFailedOnNode

    if isinstance(exc, AllocationCancelled):
        return statusUnschedulable("timed out trying to allocate devices")
    if isinstance(exc, AllocationFailedOnNode):
        s.validated = True
        return statusUnschedulable(str(exc))
    if isinstance(exc, AllocationError):
        return Status(Code.Error, str(exc))
    raise exc


def _rfc3339(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _parse_rfc3339(text: str | None) -> float | None:
    """Seconds of a metav1.Time text (kschedctl.api.gotime: offsets honoured)."""
    seconds = seconds_of(text)
    return None if seconds is None else float(seconds)


class DynamicResources:
    def __init__(self, args: DynamicResourcesArgs | dict[str, Any] | None, handle: Handle, features: Features | None = None) -> None:
        self.handle = handle
        self.fts = features if features is not None else handle.features
        self.enabled = self.fts.dynamic_resource_allocation
        self.args = DynamicResourcesArgs.of(args, self.fts)
        self.binding_timeout = parse_duration(self.args.binding_timeout or DEFAULT_BINDING_TIMEOUT)
        self._manager: DRAManager | None = None

    @cached_property
    def allocator_features(self) -> AllocatorFeatures:
        """One object for the whole run (the allocator's caches are keyed by it), made when a
        pod first has claims to allocate."""
        return allocator_features(self.fts, self.handle.version)

    def name(self) -> str:
        return NAME

    @property
    def manager(self) -> DRAManager:
        return self.shared_manager()

    def shared_manager(self) -> DRAManager:
        """kube's SharedDRAManager, built on first use (Services.dra_manager): asked for only
        where a pod names a claim or an extended resource, so that a run without either never
        builds it."""
        if self._manager is None:
            self._manager = self.handle.shared_dra_manager()
        return self._manager

    # --- events ------------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enabled:
            return []
        node_actions: tuple[str, ...] = ("Add", "UpdateNodeLabel", "UpdateNodeAllocatable")
        if not self.fts.scheduler_queueing_hints:
            node_actions += ("UpdateNodeTaint",)
        return [
            *(ClusterEventWithHint(ClusterEvent("Node", a)) for a in node_actions),
            ClusterEventWithHint(ClusterEvent("ResourceClaim", "Add"), self.is_schedulable_after_claim_change),
            ClusterEventWithHint(ClusterEvent("ResourceClaim", "Update"), self.is_schedulable_after_claim_change),
            ClusterEventWithHint(ClusterEvent("Pod", "UpdatePodGeneratedResourceClaim"), self.is_schedulable_after_pod_change),
            ClusterEventWithHint(ClusterEvent("DeviceClass", "Add")),
            ClusterEventWithHint(ClusterEvent("DeviceClass", "Update")),
            ClusterEventWithHint(ClusterEvent("ResourceSlice", "Add")),
            ClusterEventWithHint(ClusterEvent("ResourceSlice", "Update")),
        ]

    def is_schedulable_after_claim_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """isSchedulableAfterClaimChange: a deallocation may free devices for anyone; otherwise
        only the pod's own claims count, created or with a changed status."""
        claim_type = dra_types()["ResourceClaim"]  # a claim changed: the DRA types are loaded
        if not isinstance(new, claim_type) or (old is not None and not isinstance(old, claim_type)):
            raise TypeError(f"unexpected object in isSchedulableAfterClaimChange: {type(new).__name__}")
        uses = False

        def check(_name: str, claim: ResourceClaim) -> None:
            nonlocal uses
            if claim.meta.uid == new.meta.uid:
                uses = True

        try:
            foreach_pod_resource_claim(self.shared_manager, pod, check, self.handle.version)
        except ClaimNotAvailable:
            return QueueingHint.QueueSkip
        if old is not None and old.allocation is not None and new.allocation is None:
            return QueueingHint.Queue
        if not uses:
            return QueueingHint.QueueSkip
        if old is None:
            return QueueingHint.Queue
        if (old.raw.get("status") or {}) == (new.raw.get("status") or {}):
            return QueueingHint.QueueSkip
        return QueueingHint.Queue

    def is_schedulable_after_pod_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """isSchedulableAfterPodChange: the pod's own status now names all its claims."""
        if not isinstance(new, Pod):
            raise TypeError(f"unexpected object in isSchedulableAfterClaimChange: {type(new).__name__}")
        if pod.uid != new.uid:
            return QueueingHint.QueueSkip
        try:
            foreach_pod_resource_claim(self.shared_manager, new, version=self.handle.version)
        except ClaimNotAvailable:
            return QueueingHint.QueueSkip
        return QueueingHint.Queue

    # --- PreEnqueue ----------------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not self.enabled:
            return None
        try:
            foreach_pod_resource_claim(self.shared_manager, pod, version=self.handle.version)
        except ClaimNotAvailable as exc:
            return statusUnschedulable(str(exc))
        return None

    def pre_enqueue_always_admits(self, pod: Pod) -> bool:
        """Whether PreEnqueue admits this pod object whatever the cluster's state
        (Framework.pre_enqueue_share_key): a pod that names no claim needs none to exist (its
        spec is fixed; a malformed claim status is not vouched for)."""
        if not self.enabled:
            return True
        try:
            return not pod_claim_refs(pod)
        except ObjectError:
            return False

    # --- PreFilter -----------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status(SKIP)
        s = StateData()
        state.write(STATE_KEY, s)
        if not pod.resource_claims and not self.fts.dra_extended_resource:
            return None, Status(SKIP)  # no claim of its own and none for extended resources: empty, as below
        try:
            user_claims = pod_resource_claims(self.shared_manager, pod, self.handle.version)
        except ClaimNotAvailable as exc:
            return None, statusUnschedulable(str(exc))
        extended_claim = self._pre_filter_extended_resources(pod, s)
        claims = ClaimStore(user_claims, extended_claim)
        if claims.empty():
            return None, Status(SKIP)

        to_allocate = 0
        s.informations = [_InfoForClaim() for _ in range(len(claims))]
        for index, claim in claims.all():
            # CanBeReserved is always true in 1.35-1.37: "resourceclaim in use" cannot happen.
            if claim.allocation is not None:
                if claim.allocation.node_selector is not None:
                    try:
                        s.informations[index].available_on_nodes = node_selector_from_dict(
                            claim.allocation.node_selector, "status.allocation.nodeSelector"
                        )
                    except ObjectError as exc:
                        return None, Status(Code.Error, exc.message)
                continue
            to_allocate += 1
            if self.manager.claim_has_pending_allocation(claim.meta.uid):
                return None, statusUnschedulable(f"resource claim {kobj(claim)} is in the process of being allocated")
            if claim is extended_claim:
                continue
            for request in claim.spec.requests:
                if request.exactly is not None:
                    st = self._validate_device_class(request.exactly.device_class_name, request.name)
                    if st is not None:
                        return None, st
                elif request.first_available:
                    if not self.fts.dra_prioritized_list:
                        return None, statusUnschedulable(
                            f"resource claim {kobj(claim)}, request {request.name}: has subrequests, but the "
                            f"DRAPrioritizedList feature is disabled"
                        )
                    for sub in request.first_available:
                        st = self._validate_device_class(sub.device_class_name, f"{request.name}/{sub.name}")
                        if st is not None:
                            return None, st
                else:
                    return None, statusUnschedulable(f"resource claim {kobj(claim)}, request {request.name}: unknown request type")

        if to_allocate > 0:
            from kschedctl.dra.structured import Allocator

            features = self.allocator_features
            s.allocator_features = features
            allocated = self.manager.allocated_state(self.fts.dra_consumable_capacity)
            s.allocator = Allocator(
                features,
                allocated,
                self.manager.classes(),
                self.manager.slices(),
                self.manager.cel,
                lambda node: self.manager.pools_for(node, features),
            )
            s.node_allocations = {}
            s.min_devices = _min_devices(claims, features)
            if extended_claim is None and not allocated.shared_device_ids and not allocated.aggregated_capacity:
                s.memo_key = self.manager.memo_id(
                    (
                        tuple(json.dumps(c.raw.get("spec"), sort_keys=True, separators=(",", ":")) for _, c in claims.to_allocate()),
                        self.manager.classes_generation,
                        self.manager.slices_generation,
                        id(features),
                    )
                )
        s.claims = claims
        return None, None

    def _validate_device_class(self, class_name: str, request_name: str) -> Status | None:
        if not class_name:
            return Status(Code.Error, f"request {request_name}: unsupported request type")
        if self.manager.get_class(class_name) is None:
            return statusUnschedulable(f"request {request_name}: device class {class_name} does not exist")
        return None

    def _pre_filter_extended_resources(self, pod: Pod, s: StateData) -> ResourceClaim | None:
        """preFilterExtendedResources: the claim of an earlier attempt, or a new in-memory one."""
        if not self.fts.dra_extended_resource:
            return None
        reqs = ext.pod_extended_requests(pod, self.shared_manager)
        if reqs is None:
            return None
        s.extended = {n: int(q) for n, q in reqs.items() if n not in ("cpu", "memory", "ephemeral-storage", "pods")}
        found = ext.find_extended_resource_claim(pod, self.manager)
        return found if found is not None else ext.in_memory_claim(pod)

    def pre_filter_extensions(self) -> None:
        return None

    # --- Filter --------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not self.enabled:
            return None
        try:
            s = _get_state(state)
        except (StateNotFound, TypeError) as err:
            return Status.as_status(err)
        if s.claims.empty():
            return None
        node = node_info.node
        assert node is not None
        node_claim, mappings, status = self._filter_extended_resources(s, pod, node_info)
        if status is not None:
            return status
        if node_claim is None and s.claims.no_user_claim():
            return None

        unavailable: list[int] = []
        for index, claim in s.claims.all():
            selector = s.informations[index].available_on_nodes
            if selector is not None and not selector.matches(node.name, node.labels):
                unavailable.append(index)
                continue
            if claim.allocation is None:
                continue
            if binding_conditions_enabled(self.fts):
                ready, problem = self._is_claim_ready_for_binding(claim)
                if problem is not None or (not ready and self._is_claim_timeout(claim)):
                    unavailable.append(index)

        allocations: list[AllocationResult] = []
        if s.allocator is not None:
            extended_claim = s.claims.extended_resource_claim()
            to_allocate = [node_claim if (c is extended_claim and node_claim is not None) else c for _, c in s.claims.to_allocate()]
            status, found = self._allocate_on(s, node, to_allocate)
            if status is not None:
                return status
            allocations = found  # type: ignore[assignment]

        if unavailable:
            s.unavailable_claims.update(unavailable)
            return statusUnschedulable(MSG_NOT_AVAILABLE)
        if s.allocator is not None:
            s.node_allocations[node.name] = _NodeAllocation(allocations, node_claim, mappings)
        return None

    def _allocate_on(
        self,
        s: StateData,
        node: Any,
        claims: list[ResourceClaim],
        rejected: Status | None = None,
    ) -> tuple[Status | None, list[AllocationResult] | None]:
        """The allocator's verdict on one node as Filter reports it: (None, results) or a
        rejection or error Status."""
        assert s.allocator is not None and s.allocator_features is not None
        taken = s.allocator.allocated.allocated_devices
        devices, plain = self.manager.node_devices(node, s.allocator_features)
        if s.validated and plain and s.min_devices and all(map(taken.__contains__, devices)):
            # Every device the node can see is taken and the claims need some: the allocator
            # skips devices in use before evaluating any selector, so it finds nothing, without
            # an error. (A node with free devices still goes through it: a selector may fail.)
            return rejected or statusUnschedulable(MSG_CANNOT_ALLOCATE), None
        try:
            found = self._allocate(s, node, claims, tuple(filter(taken.__contains__, devices)))
        except Exception as exc:  # noqa: BLE001 - the allocator's errors, told apart (others re-raised)
            return _allocation_failure(s, exc), None
        s.validated = True
        if found is None or len(found) != len(claims):
            return rejected or statusUnschedulable(MSG_CANNOT_ALLOCATE), None
        return None, found

    def _allocate(
        self, s: StateData, node: Any, claims: list[ResourceClaim], signature: tuple[tuple[str, str, str], ...]
    ) -> list[AllocationResult] | None:
        """Allocate, or the outcome of an earlier pod with the same claim specs on this node
        when nothing the allocator reads there has changed since: the node's pools (slices,
        classes, the node object) and which of their devices are taken (allocated or in flight:
        ``signature``). The allocator is a pure function of those; results naming a claim (a
        share ID) are never reused, nor errors (they name the claim and end the attempt)."""
        assert s.allocator is not None
        if s.memo_key is None:
            return s.allocator.allocate(node, claims)
        manager = self.manager
        memo = manager.filter_memo
        key = (s.memo_key, node.name)
        hit = memo.get(key)
        if hit is not None and hit[0] is node and hit[2] == signature:
            before: list[AllocationResult] | None = hit[3]
            return before
        found = s.allocator.allocate(node, claims)
        if found is None or all(r.share_id is None for a in found for r in a.results):
            if len(memo) > 200_000:
                memo.clear()
            # the node version stands for the taken devices only when nothing is in flight
            version = None if manager.in_flight else manager.node_version.get(node.name)
            memo[key] = (node, version, signature, found)
        return found

    def _filter_extended_resources(
        self,
        s: StateData,
        pod: Pod,
        node_info: NodeInfo,
    ) -> tuple[ResourceClaim | None, list[ext.Mapping], Status | None]:
        """filterExtendedResources: the node's own variant of the special claim."""
        claim = s.claims.extended_resource_claim()
        if claim is None:
            return None, [], None
        if claim.spec.requests:
            return None, [], statusUnschedulable("cannot schedule extended resource claim")
        needed, problem = ext.node_requests(s.extended, node_info, self.manager)
        if problem is not None:
            return None, [], statusUnschedulable(problem)
        assert needed is not None
        if s.claims.no_user_claim() and not needed:
            return None, [], None
        if claim.allocation is not None:
            return None, [], None
        requests, mappings = ext.requests_and_mappings(pod, needed, self.manager)

        def edit(raw: dict[str, Any]) -> None:
            raw.setdefault("spec", {})["devices"] = {"requests": requests}

        return edited(claim, edit), mappings, None

    # --- PostFilter ----------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Pod, filtered_node_status_map: Any) -> tuple[PostFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status(Code.Unschedulable, "plugin disabled")
        try:
            s = _get_state(state)
        except (StateNotFound, TypeError) as err:
            return None, Status.as_status(err)
        if s.claims.empty():
            return None, Status(Code.Unschedulable, MSG_NO_CLAIMS_TO_DEALLOCATE)
        extended_claim = s.claims.extended_resource_claim()
        for index in sorted(s.unavailable_claims):
            claim = s.claims.get(index)
            if claim is extended_claim:
                if not ext.is_special_claim_name(extended_claim.name):
                    break
                continue
            reserved = claim.reserved_for
            if not reserved or (len(reserved) == 1 and reserved[0].uid == pod.uid):

                def dealloc(raw: dict[str, Any]) -> None:
                    status = raw.setdefault("status", {})
                    for key in ("reservedFor", "allocation", "devices"):
                        status.pop(key, None)

                try:
                    self._client().update_resource_claim(edited(claim, dealloc))
                except ApiError as exc:
                    return None, Status(Code.Error, str(exc))
                return None, Status(Code.Unschedulable, MSG_DEALLOCATED)
        if extended_claim is not None and not ext.is_special_claim_name(extended_claim.name):
            try:
                self._delete_claim(extended_claim)
            except ApiError as exc:
                return None, Status(Code.Error, str(exc))
            return None, Status(Code.Unschedulable, MSG_DELETED)
        return None, Status(Code.Unschedulable, MSG_STILL_NOT_SCHEDULABLE)

    # --- Score ---------------------------------------------------------------------------------
    def _scores(self) -> bool:
        """Score's first check: 1.36+ also returns 0 while DRAPrioritizedList is off."""
        if not self.enabled:
            return False
        return self.fts.dra_prioritized_list or not self.handle.version.has("DRAScoreReadsClaimAllocations")

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if not self._scores():
            return 0, None
        try:
            s = _get_state(state)
        except (StateNotFound, TypeError) as err:
            return 0, Status.as_status(err)
        if s.claims.empty():
            return 0, None
        allocation = s.node_allocations.get(node_info.name)
        if allocation is None:
            return 0, None
        try:
            return compute_score(
                [c for _, c in s.claims.all()], allocation.results, self.handle.version.has("DRAScoreReadsClaimAllocations")
            ), None
        except ValueError as err:
            return 0, Status.as_status(err)

    def score_extensions(self) -> "DynamicResources":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """helper.DefaultNormalizeScore(MaxNodeScore, reverse=false)."""
        if not self.enabled:
            return None
        highest = max((s.score for s in scores), default=0)
        if highest == 0:
            return None
        for s in scores:
            s.score = MAX_NODE_SCORE * s.score // highest
        return None

    # --- Reserve / Unreserve -------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        try:
            s = _get_state(state)
        except (StateNotFound, TypeError) as err:
            return Status.as_status(err)
        if s.claims.empty():
            return None
        with_allocator = sum(1 for _, c in s.claims.all() if c.allocation is None)
        if with_allocator == 0:
            return None
        extended_claim = s.claims.extended_resource_claim()
        to_allocate = list(s.claims.to_allocate())
        need_user = any(c is not extended_claim for _, c in to_allocate)
        if s.allocator is None:
            return None
        allocation = s.node_allocations.get(node_name)
        if allocation is None or not allocation.results:
            if not need_user:
                return None
            return Status(Code.Error, "claim allocation not found for node")
        if len(allocation.results) != len(to_allocate) or len(allocation.results) != with_allocator:
            return Status(
                Code.Error,
                f"internal error, have {len(allocation.results)} allocations, "
                f"{len(to_allocate)} claims to allocate, want {with_allocator} claims",
            )
        for alloc_index, (index, claim) in enumerate(to_allocate):
            result = allocation.results[alloc_index]
            s.informations[index].allocation = result
            if claim is extended_claim and allocation.extended_claim is not None:
                claim = allocation.extended_claim

            def edit(raw: dict[str, Any], result: AllocationResult = result) -> None:
                md = raw.setdefault("metadata", {})
                if DELETE_PROTECTION_FINALIZER not in (md.get("finalizers") or []):
                    md["finalizers"] = list(md.get("finalizers") or []) + [DELETE_PROTECTION_FINALIZER]
                raw.setdefault("status", {})["allocation"] = result.to_dict()

            self.manager.signal_claim_pending_allocation(claim.meta.uid, edited(claim, edit))
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        if not self.enabled:
            return None
        try:
            s = _get_state(state)
        except (StateNotFound, TypeError):
            return None
        if s.claims.empty():
            return None
        for _, claim in s.claims.all_user_claims():
            self.manager.remove_claim_pending_allocation(claim.meta.uid)
            if claim.allocation is not None and claim.is_reserved_for(pod):

                def drop(raw: dict[str, Any]) -> None:
                    status = raw.setdefault("status", {})
                    status["reservedFor"] = [
                        r for r in status.get("reservedFor") or [] if not (isinstance(r, dict) and str(r.get("uid", "")) == pod.uid)
                    ]

                current = self.manager.get_claim(claim.namespace, claim.name)
                if current is not None:
                    try:
                        self._client().update_resource_claim(edited(current, drop))
                    except ApiError:
                        pass  # retried with the next attempt, as upstream
        extended_claim = s.claims.extended_resource_claim()
        if extended_claim is not None:
            self.manager.remove_claim_pending_allocation(s.claims.initial_extended_uid)
            if not ext.is_special_claim_name(extended_claim.name):
                try:
                    self._delete_claim(extended_claim)
                except ApiError:
                    pass
        return None

    # --- PreBind -------------------------------------------------------------------------------
    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return Status(SKIP)
        try:
            s = _get_state(state)
        except (StateNotFound, TypeError) as err:
            return Status.as_status(err)
        return Status(SKIP) if s.claims.empty() else None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        try:
            s = _get_state(state)
        except (StateNotFound, TypeError) as err:
            return Status.as_status(err)
        if s.claims.empty():
            return None
        for index, claim in list(s.claims.all()):
            if not claim.is_reserved_for(pod):
                try:
                    claim = self._bind_claim(s, index, pod, node_name)
                except ApiError as exc:
                    return Status(Code.Error, str(exc))
                s.claims.set(index, claim)
        if not binding_conditions_enabled(self.fts):
            return None
        if not _has_binding_conditions(s):
            return None
        # Waiting for the device status (polled every 5s for bindingTimeout): nothing updates it
        # in a simulation (no driver), so the wait ends with kube's timeout: a claim allocated
        # before this attempt times out at a poll first, else the wait itself does.
        ready, problem = self._is_pod_ready_for_binding(s)
        if problem is not None:
            return Status(Code.Error, problem)
        if ready:
            return None
        now = self.handle.clock.now()
        for _, claim in s.claims.all():
            allocation = claim.allocation
            stamp = _parse_rfc3339(allocation.allocation_timestamp) if allocation is not None else None
            if (
                stamp is not None
                and allocation is not None
                and any(r.binding_conditions for r in allocation.results)
                and stamp + _BINDING_POLL_INTERVAL < now
            ):
                return Status(Code.Error, f"claim {claim.name} binding timeout")
        return Status(Code.Error, "device binding timeout")

    def _bind_claim(self, s: StateData, index: int, pod: Pod, node_name: str) -> ResourceClaim:
        """bindClaim: allocation (with the finalizer, in a plain update first) and reservation."""
        claim = s.claims.get(index)
        allocation = s.informations[index].allocation
        is_extended = claim is s.claims.extended_resource_claim()
        if is_extended and allocation is None and not claim.spec.requests:
            return claim
        uid = claim.meta.uid  # the UID Reserve signalled (the in-memory one for extended resources)
        client = self._client()
        try:
            if is_extended and ext.is_special_claim_name(claim.name):
                claim = self._create_extended_claim(s, pod, node_name)
                s.claims.update_extended_resource_claim(claim)
            current = self.manager.get_claim(claim.namespace, claim.name) if not is_extended else claim
            claim = current if current is not None else claim
            if claim.meta.deletion_timestamp is not None:
                raise ApiError(f"claim {kobj(claim)} got deleted in the meantime")
            if allocation is not None:
                if claim.allocation is not None:
                    raise ApiError(f"claim {kobj(claim)} got allocated elsewhere in the meantime")
                if DELETE_PROTECTION_FINALIZER not in (claim.raw.get("metadata", {}).get("finalizers") or []):

                    def add_finalizer(raw: dict[str, Any]) -> None:
                        md = raw.setdefault("metadata", {})
                        md["finalizers"] = list(md.get("finalizers") or []) + [DELETE_PROTECTION_FINALIZER]

                    claim = client.update_resource_claim(edited(claim, add_finalizer))
            stamp = _rfc3339(self.handle.clock.now())
            binding = binding_conditions_enabled(self.fts)

            def reserve(raw: dict[str, Any]) -> None:
                status = raw.setdefault("status", {})
                if allocation is not None:
                    status["allocation"] = allocation.to_dict()
                status.setdefault("reservedFor", []).append({"resource": "pods", "name": pod.name, "uid": pod.uid})
                if binding and status.get("allocation") is not None and not status["allocation"].get("allocationTimestamp"):
                    status["allocation"]["allocationTimestamp"] = stamp

            claim = client.update_resource_claim(edited(claim, reserve))
            if is_extended:
                self._patch_pod_extended_status(s, pod, claim, node_name)
            return claim
        finally:
            if allocation is not None:
                self.manager.remove_claim_pending_allocation(uid)

    def _create_extended_claim(self, s: StateData, pod: Pod, node_name: str) -> ResourceClaim:
        allocation = s.node_allocations.get(node_name)
        if allocation is None or allocation.extended_claim is None:
            raise ApiError(f"extended resource claim not found for node {node_name}")
        name = ext.generated_name(allocation.extended_claim, pod)

        def prepare(raw: dict[str, Any]) -> None:
            md = raw.setdefault("metadata", {})
            md["name"] = name
            md.pop("uid", None)
            raw.setdefault("status", {}).pop("allocation", None)

        return self._client().create_resource_claim(edited(allocation.extended_claim, prepare))

    def _patch_pod_extended_status(self, s: StateData, pod: Pod, claim: ResourceClaim, node_name: str) -> None:
        allocation = s.node_allocations.get(node_name)
        mappings = allocation.mappings if allocation is not None else []
        if not mappings:
            raise ApiError(f"nil or empty request mappings, no update of pod {pod.namespace}/{pod.name} ExtendedResourceClaimStatus")
        self._client().patch_pod_status(
            pod, {"extendedResourceClaimStatus": {"requestMappings": [m.to_dict() for m in mappings], "resourceClaimName": claim.name}}
        )

    def _delete_claim(self, claim: ResourceClaim) -> None:
        """deleteClaim: remove the finalizer, then delete."""
        client = self._client()
        current = self.manager.get_claim(claim.namespace, claim.name) or claim
        finalizers = current.raw.get("metadata", {}).get("finalizers") or []
        if DELETE_PROTECTION_FINALIZER in finalizers:

            def drop(raw: dict[str, Any]) -> None:
                md = raw.setdefault("metadata", {})
                md["finalizers"] = [f for f in md.get("finalizers") or [] if f != DELETE_PROTECTION_FINALIZER]

            current = client.update_resource_claim(edited(current, drop))
        client.delete_resource_claim(current)

    def _client(self) -> Client:
        client = self.handle.client
        if client is None:
            raise ApiError("no API client: ResourceClaims cannot be written here")
        return client

    # --- binding conditions ----------------------------------------------------------------------
    def _is_claim_ready_for_binding(self, claim: ResourceClaim) -> tuple[bool, str | None]:
        """isClaimReadyForBinding: all binding conditions true, no failure condition true."""
        if claim.allocation is None:
            return False, None
        statuses = (claim.raw.get("status") or {}).get("devices") or []
        for result in claim.allocation.results:
            if not result.binding_conditions:
                continue
            device_status = next(
                (
                    d
                    for d in statuses
                    if isinstance(d, dict)
                    and d.get("device") == result.device
                    and d.get("driver") == result.driver
                    and d.get("pool") == result.pool
                ),
                None,
            )
            if device_status is None:
                return False, None
            conditions = {str(c.get("type")): c for c in device_status.get("conditions") or [] if isinstance(c, dict)}
            for cond in result.binding_failure_conditions:
                failed = conditions.get(cond)
                if failed is not None and failed.get("status") == "True":
                    return False, (
                        f'claim {claim.name} binding failed: reason={failed.get("reason", "")}, message="{failed.get("message", "")}"'
                    )
            for cond in result.binding_conditions:
                c = conditions.get(cond)
                if c is None or c.get("status") != "True":
                    return False, None
        return True, None

    def _is_claim_timeout(self, claim: ResourceClaim) -> bool:
        if not binding_conditions_enabled(self.fts) or claim.allocation is None:
            return False
        stamp = _parse_rfc3339(claim.allocation.allocation_timestamp)
        if stamp is None:
            return False
        if not any(r.binding_conditions for r in claim.allocation.results):
            return False
        return stamp + self.binding_timeout < self.handle.clock.now()

    def _is_pod_ready_for_binding(self, s: StateData) -> tuple[bool, str | None]:
        for index, claim in list(s.claims.all()):
            current = self.manager.get_claim(claim.namespace, claim.name)
            if current is None:
                return False, f'could not find ResourceClaim "{claim.namespace}/{claim.name}"'
            s.claims.set(index, current)
            ready, err = self._is_claim_ready_for_binding(current)
            if err is not None:
                return False, err
            if not ready:
                if self._is_claim_timeout(current):
                    return False, f"claim {current.name} binding timeout"
                return False, None
        return True, None


def _has_binding_conditions(s: StateData) -> bool:
    return any(r.binding_conditions for _, c in s.claims.all() if c.allocation is not None for r in c.allocation.results)


def _min_devices(claims: ClaimStore, features: AllocatorFeatures) -> int | None:
    """The fewest devices the claims to allocate can possibly take: each ExactCount request its
    count, a prioritized list its smallest subrequest; None when a request cannot be bounded that
    way (All mode, admin access). Claims share no device unless consumable capacity lets them."""
    per_claim = []
    for _, claim in claims.to_allocate():
        total = 0
        for request in claim.spec.requests:
            options = [request.exactly] if request.exactly is not None else list(request.first_available)
            if not options:
                return None
            counts = []
            for o in options:
                if o.allocation_mode != "ExactCount" or (o.admin_access and request.exactly is not None):
                    return None
                counts.append(o.count)
            total += min(counts)
        per_claim.append(total)
    if not per_claim:
        return None
    return max(per_claim) if features.consumable_capacity else sum(per_claim)


def compute_score(claims: list[ResourceClaim], allocations: list[AllocationResult], reads_claim_allocations: bool = True) -> int:
    """computeScore: each allocated subrequest of a prioritized list scores 8 - its index.

    ``allocations`` holds what Filter allocated on the node, one per claim needing allocation.
    1.36+ (``reads_claim_allocations``; dynamicresources.go of v1.36.2) takes a claim allocated
    before the cycle from its status and the others from ``allocations`` in turn. 1.35
    (v1.35.x dynamicresources.go) pairs the i-th claim of the pod with the i-th allocation, so
    a pod with an allocated claim and one to allocate fails: "number of allocations 1 is
    smaller than number of claims"."""
    score = 0
    next_allocation = 0
    for i, claim in enumerate(claims):
        if not reads_claim_allocations:
            if i >= len(allocations):
                raise ValueError(f"number of allocations {len(allocations)} is smaller than number of claims")
            allocation = allocations[i]
        elif claim.allocation is not None:
            allocation = claim.allocation
        else:
            if next_allocation >= len(allocations):
                raise ValueError(f"number of allocations {len(allocations)} is smaller than number of claims needing allocation")
            allocation = allocations[next_allocation]
            next_allocation += 1
        picked = {r.request for r in allocation.results if "/" in r.request}
        for request in claim.spec.requests:
            if request.exactly is not None:
                continue
            for j, sub in enumerate(request.first_available):
                if f"{request.name}/{sub.name}" in picked:
                    score += FIRST_AVAILABLE_MAX_SIZE - j
    return score


__all__ = [
    "DynamicResources",
    "MSG_CANNOT_ALLOCATE",
    "MSG_NO_CLAIMS_TO_DEALLOCATE",
    "MSG_NOT_AVAILABLE",
    "MSG_STILL_NOT_SCHEDULABLE",
    "NAME",
    "STATE_KEY",
    "StateData",
    "allocator_features",
    "compute_score",
]
