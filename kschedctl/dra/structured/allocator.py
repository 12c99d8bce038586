"""The structured allocator: structured/internal/experimental/allocator_experimental.go.

One Allocate call finds devices for all claims of a pod on one node by a first-fit depth-first
search: claims in order, their requests in order, each device of a request in turn, trying
the candidates pool by pool (pools.py order), slice by slice, device by device, and backtracking
when a later device cannot be found. ``firstAvailable`` subrequests are tried in order; a
request that wants ``All`` devices must get exactly the selectable devices it saw up front.
Which devices are picked therefore follows kube's search order exactly.

Selection (class and request CEL selectors, per-device node selection), availability
(allocated or being allocated, admin access, counters of partitionable devices, consumable
capacity), device taints and claim constraints are checked in kube's order; the quirks of the
release are kept (see Features.accounting_fixes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kschedctl.api.resource import (
    ALLOCATION_RESULTS_MAX_SIZE,
    Device,
    DeviceClass,
    ResourceSlice,
)
from kschedctl.api.resourceclaim import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    AllocationResult,
    ExactDeviceRequest,
    ResourceClaim,
)
from kschedctl.api.types import Node
from kschedctl.dra.cel import Cache, CelDevice, CelRuntimeError
from kschedctl.dra.structured import capacity as cap
from kschedctl.dra.structured.allocate_device import allocate_device
from kschedctl.dra.structured.constraints import Constraint, make_constraints
from kschedctl.dra.structured.nodeselector import create_node_selector
from kschedctl.dra.structured.pools import Pool, gather_pools, node_matches
from kschedctl.dra.structured.results import build_result
from kschedctl.dra.structured.types import (
    AllocatedState,
    AllocationCancelled,
    AllocationError,
    AllocationFailedOnNode,
    DeviceID,
    DeviceResult,
    Features,
    kobj,
)


class _MaxSizeExceeded(Exception):
    """errAllocationResultMaxSizeExceeded: backtrack further, maybe a shorter subrequest fits."""


@dataclass(slots=True)
class _Request:
    """requestData: one request, or one subrequest of a firstAvailable request."""

    request: ExactDeviceRequest
    name: str  # the request's or subrequest's own name
    parent: str | None  # the parent request's name for a subrequest
    class_: DeviceClass | None = None
    num_devices: int = 0
    all_devices: list["_Candidate"] = field(default_factory=list)
    selected_sub: int = 0

    @property
    def full_name(self) -> str:
        return f"{self.parent}/{self.name}" if self.parent else self.name

    @property
    def admin_access(self) -> bool:
        return bool(self.request.admin_access) and self.parent is None


@dataclass(slots=True)
class _Candidate:
    id: DeviceID
    device: Device
    slice: ResourceSlice
    pool: Pool | None


class Allocator:
    """structured.Allocator for one scheduling attempt: the cluster's slices and classes, the
    devices other claims hold, and the CEL cache. ``allocate`` may be called for many nodes."""

    def __init__(
        self,
        features: Features,
        allocated: AllocatedState,
        classes: Mapping[str, DeviceClass],
        slices: Sequence[ResourceSlice],
        cel_cache: Cache,
        pools_for: Callable[[Node], list[Pool]] | None = None,
    ) -> None:
        self.features = features
        self._shared_pools = pools_for  # GatherPools shared across attempts (DRAManager.pools_for)
        self.allocated = allocated
        self.classes = classes
        self.slices = list(slices)
        self.cel = cel_cache
        self.available_counters: dict[Any, dict[str, dict[str, Fraction]]] = {}
        self.num_allocate_one = 0
        # Slices with a nodeName only matter for that node (upstream's SlicesForNode index);
        # the pools of a node do not depend on the claims, so they are gathered once per node.
        self._by_node: dict[str, list[ResourceSlice]] = {}
        self._elsewhere: list[ResourceSlice] = []
        if pools_for is None:
            for s in self.slices:
                if s.node_name and not s.shared_counters:
                    self._by_node.setdefault(s.node_name, []).append(s)
                else:
                    self._elsewhere.append(s)
        self._pools: dict[str, list[Pool]] = {}

    def pools_for(self, node: Node) -> list[Pool]:
        if self._shared_pools is not None and node is not None:
            return self._shared_pools(node)
        key = node.name if node is not None else ""
        pools = self._pools.get(key)
        if pools is None:
            candidates = self._by_node.get(key, []) + self._elsewhere if self._by_node.get(key) else self._elsewhere
            pools = gather_pools(candidates, node, self.features, self.slices)
            self._pools[key] = pools
        return pools

    def allocate(
        self, node: Node, claims: Sequence[ResourceClaim], cancelled: Callable[[], bool] | None = None
    ) -> list[AllocationResult] | None:
        """Allocate: one AllocationResult per claim, or None when the claims do not fit on the
        node. Raises AllocationError (fatal for the attempt), AllocationFailedOnNode (this node
        only) or AllocationCancelled."""
        return _Run(self, node, list(claims), cancelled).run()


class _Run:
    def __init__(self, a: Allocator, node: Node, claims: list[ResourceClaim], cancelled: Callable[[], bool] | None) -> None:
        self.a = a
        self.f = a.features
        self.node = node
        self.claims = claims
        self.cancelled = cancelled
        self.pools: list[Pool] = []
        self.request_data: dict[tuple[int, int, int], _Request] = {}
        self.constraints: list[list[Constraint]] = []
        self.matches: dict[tuple[DeviceID, tuple[int, int, int]], bool] = {}
        self.allocating: dict[DeviceID, set[int]] = {}
        self.allocating_capacity: dict[DeviceID, dict[str, Fraction]] = {}
        self.consumed_counters: dict[Any, dict[str, dict[str, Fraction]]] = {}
        self.results: list[list[DeviceResult]] = [[] for _ in claims]
        self.share_seq = 0

    # --- setup (Allocate before the search) -------------------------------------------------

    def run(self) -> list[AllocationResult] | None:
        self.pools = self.a.pools_for(self.node)
        for ci, claim in enumerate(self.claims):
            min_devices = 0
            for ri, req in enumerate(claim.spec.requests):
                if req.first_available and not self.f.prioritized_list:
                    raise AllocationError(
                        f"claim {kobj(claim)}, request {req.name}: has subrequests, but the DRAPrioritizedList feature is disabled"
                    )
                if not self.f.consumable_capacity:
                    if req.exactly is not None and req.exactly.capacity is not None:
                        raise AllocationError(
                            f"claim {kobj(claim)}, request {req.name}: has capacity requests, but the "
                            "DRAConsumableCapacity feature is disabled"
                        )
                    for sub in req.first_available:
                        if sub.capacity is not None:
                            raise AllocationError(
                                f"claim {kobj(claim)}, subrequest {sub.name}: has capacity requests, "
                                "but the DRAConsumableCapacity feature is disabled"
                            )
                if req.first_available:
                    fewest = None
                    key = (ci, ri, 0)
                    for si, sub in enumerate(req.first_available):
                        # Upstream sets the subrequest index only after validating, so the
                        # match cache of an "All" subrequest i is filled under index i-1.
                        data = self._validate(_Request(sub, sub.name, req.name), key)
                        key = (ci, ri, si)
                        self.request_data[key] = data
                        fewest = data.num_devices if fewest is None else min(fewest, data.num_devices)
                    min_devices += fewest or 0
                elif req.exactly is not None:
                    data = self._validate(_Request(req.exactly, req.name, None), (ci, ri, 0))
                    self.request_data[(ci, ri, 0)] = data
                    min_devices += data.num_devices
                else:
                    raise AllocationError(f"resource claim {kobj(claim)}, request {req.name}: unknown request type")
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(
                    f"claim {kobj(claim)}: number of requested devices {min_devices} exceeds the claim "
                    f"limit of {ALLOCATION_RESULTS_MAX_SIZE}"
                )
            self.constraints.append(make_constraints(claim, self.f))
        try:
            done = self._allocate_one(0, 0, 0, 0, False)
        except _MaxSizeExceeded:
            done = False
        if not done:
            if any(p.is_invalid for p in self.pools):
                raise AllocationFailedOnNode("invalid resource pools were encountered")
            return None
        return [self._result(ci, claim) for ci, claim in enumerate(self.claims)]

    def _validate(self, data: _Request, key: tuple[int, int, int]) -> _Request:
        claim = self.claims[key[0]]
        request = data.request
        for i, sel in enumerate(request.selectors):
            if sel.cel is None:
                raise AllocationError(
                    f"claim {kobj(claim)}, request {data.name}, selector #{i}: CEL expression empty (unsupported selector type?)"
                )
        if not self.f.admin_access and data.parent is None and request.admin_access is not None:
            raise AllocationError(f"claim {kobj(claim)}, request {data.name}: admin access is requested, but the feature is disabled")
        if not request.device_class_name:
            raise AllocationError(f"claim {kobj(claim)}, request {data.name}: missing device class name (unsupported request type?)")
        cls = self.a.classes.get(request.device_class_name)
        if cls is None:
            raise AllocationError(
                f"claim {kobj(claim)}, request {data.name}: could not retrieve device class {request.device_class_name}: "
                f'deviceclass.resource.k8s.io "{request.device_class_name}" not found'
            )
        data.class_ = cls
        if request.allocation_mode == ALLOCATION_MODE_EXACT_COUNT:
            data.num_devices = request.count
        elif request.allocation_mode == ALLOCATION_MODE_ALL:
            for pool in self.pools:
                if pool.is_incomplete:
                    raise AllocationError(
                        f"claim {kobj(claim)}, request {data.name}: asks for all devices, but resource "
                        f"pool {pool.id} is currently being updated"
                    )
                if pool.is_invalid:
                    raise AllocationError(
                        f"claim {kobj(claim)}, request {data.name}: asks for all devices, but resource pool {pool.id} is currently invalid"
                    )
                for s in pool.slices:
                    for d in s.devices:
                        device_id = DeviceID(s.driver, s.pool.name, d.name)
                        if not self._selectable(key, data, s, d, device_id):
                            continue
                        if self.f.consumable_capacity and not self._capacity_fits(data, device_id, d):
                            continue
                        data.all_devices.append(_Candidate(device_id, d, s, pool))
            data.num_devices = len(data.all_devices)
        else:
            raise AllocationError(f"claim {kobj(claim)}, request {data.name}: unsupported count mode {request.allocation_mode}")
        return data

    # --- the search (allocateOne) ----------------------------------------------------------------

    def _allocate_one(self, ci: int, ri: int, si: int, di: int, in_sub: bool) -> bool:
        self.a.num_allocate_one += 1
        if self.cancelled is not None and self.cancelled():
            raise AllocationCancelled("timed out trying to allocate devices")
        if ci >= len(self.claims):
            return True
        claim = self.claims[ci]
        if ri >= len(claim.spec.requests):
            try:
                return self._allocate_one(ci + 1, 0, 0, 0, False)
            except _MaxSizeExceeded:
                return False
        key = (ci, ri, si)
        data = self.request_data[key]
        if not in_sub and data.parent is not None:
            all_exceeded = True
            sub = 0
            while (ci, ri, sub) in self.request_data:
                try:
                    ok = self._allocate_one(ci, ri, sub, di, True)
                except _MaxSizeExceeded:
                    sub += 1
                    continue
                all_exceeded = False
                if ok:
                    self.request_data[key].selected_sub = sub
                    return True
                sub += 1
            if all_exceeded:
                raise _MaxSizeExceeded()
            return False

        request = data.request
        do_all = request.allocation_mode == ALLOCATION_MODE_ALL
        if do_all and not data.all_devices:
            return False
        if di >= data.num_devices:
            return self._allocate_one(ci, ri + 1, 0, 0, False)
        if len(self.results[ci]) + data.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxSizeExceeded()

        if do_all:
            candidate = data.all_devices[di]
            ok, undo = self._allocate_device(ci, data, candidate, must=True)
            if not ok:
                return False
            try:
                done = self._allocate_one(ci, ri, si, di + 1, in_sub)
            except BaseException:
                undo()
                raise
            if not done:
                undo()
            return done

        admin = data.admin_access
        for pool in self.pools:
            if pool.is_incomplete or pool.is_invalid:
                continue
            for s in pool.slices:
                for d in s.devices:
                    device_id = DeviceID(pool.id.driver, pool.id.pool, d.name)
                    if admin:
                        if ci in self.allocating.get(device_id, ()):
                            continue
                    elif self._in_use(device_id):
                        continue
                    if not self._selectable(key, data, s, d, device_id):
                        continue
                    if self.f.consumable_capacity and not self._capacity_fits(data, device_id, d):
                        continue
                    ok, undo = self._allocate_device(ci, data, _Candidate(device_id, d, s, pool), must=False)
                    if not ok:
                        continue
                    try:
                        done = self._allocate_one(ci, ri, si, di + 1, in_sub)
                    except BaseException:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    def _in_use(self, device_id: DeviceID) -> bool:
        return device_id in self.a.allocated.allocated_devices or bool(self.allocating.get(device_id))

    # --- selection ---------------------------------------------------------------------------

    def _selectable(self, key: tuple[int, int, int], data: _Request, s: ResourceSlice, d: Device, device_id: DeviceID) -> bool:
        if not self.f.device_binding_and_status and d.binding_conditions:
            return False
        memo = (device_id, key)
        cached = self.matches.get(memo)
        if cached is not None:
            return cached
        match = True
        if data.class_ is not None:
            match = self._selectors_match(key, d, device_id, data.class_, [x.cel for x in data.class_.selectors])
        if match:
            match = self._selectors_match(key, d, device_id, None, [x.cel for x in data.request.selectors])
        if match and s.per_device_node_selection:
            match = node_matches(self.node, d.node_name, d.all_nodes, d.node_selector)
        self.matches[memo] = match
        return match

    def _selectors_match(
        self, key: tuple[int, int, int], d: Device, device_id: DeviceID, cls: DeviceClass | None, expressions: list[str | None]
    ) -> bool:
        cel_device = None
        for i, expression in enumerate(expressions):
            compiled = self.a.cel.get_or_compile(expression or "")
            if compiled.error is not None:
                owner = f"class {cls.name}" if cls is not None else f"claim {kobj(self.claims[key[0]])}"
                raise AllocationError(f"{owner}: selector #{i}: CEL compile error: {compiled.error}")
            if cel_device is None:
                cel_device = CelDevice(device_id.driver, d.attributes, d.capacity, d.allow_multiple_allocations)
            try:
                matches = self.a.cel.device_matches(expression or "", cel_device, d)
            except CelRuntimeError as exc:
                owner = f"class {cls.name}" if cls is not None else f"claim {kobj(self.claims[key[0]])}"
                raise AllocationError(f"{owner}: selector #{i}: CEL runtime error: {exc}") from None
            if not matches:
                return False
        return True

    def _capacity_fits(self, data: _Request, device_id: DeviceID, d: Device) -> bool:
        consumed = self.a.allocated.aggregated_capacity.get(device_id, {})
        try:
            return cap.fits_capacity(consumed, data.request.capacity, d.capacity, self.allocating_capacity.get(device_id))
        except cap.CapacityError:
            return False

    # --- allocateDevice --------------------------------------------------------------------------

    def _allocate_device(self, ci: int, data: _Request, c: _Candidate, must: bool) -> tuple[bool, Callable[[], None]]:
        return allocate_device(self, ci, data, c, must)

    # --- results ---------------------------------------------------------------------------------

    def _result(self, ci: int, claim: ResourceClaim) -> AllocationResult:
        return build_result(self, ci, claim, create_node_selector)


__all__ = ["Allocator"]
