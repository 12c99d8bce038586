"""The scheduler's shared DRA state: claims, in-flight allocations, allocated devices, slices,
classes (pkg/scheduler/framework/plugins/dynamicresources/dra_manager.go, allocateddevices.go).

kube-scheduler keeps one DefaultDRAManager for all profiles: the ResourceClaim assume cache,
the claims whose allocation is in flight (Reserve .. PreBind), the set of devices allocated by
claims (updated by informer events), the ResourceSlice and DeviceClass listers and the class
resolver for extended resources backed by DRA. kschedctl's informers are the snapshot: the
manager reads and writes ``ClusterObjects`` (claims are replaced there when the simulated API
server stores a write, so ``--write-snapshot`` sees them), and keeps the allocated-device index
incrementally, as allocatedDevices does, so that a scheduling cycle never rescans every claim.

Writes are applied at once (the simulated API server and its informers have no latency): the
assume cache therefore always equals the informer's object, and AssumeClaimAfterAPICall and
AssumedClaimRestore have nothing to do.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kschedctl.api.devicetaintrule import DeviceTaintRule, patch_slice
from kschedctl.api.gotime import seconds_of
from kschedctl.api.resource import DeviceClass, ResourceSlice
from kschedctl.api.resourceclaim import (
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    IMPLICIT_EXTENDED_RESOURCE_PREFIX,
    DeviceRequestAllocationResult,
    ResourceClaim,
)
from kschedctl.api.types import Node
from kschedctl.dra.cel import Cache
from kschedctl.dra.structured import AllocatedState, DeviceID, Features, Pool, gather_pools

if TYPE_CHECKING:
    from kschedctl.api.objects import ClusterObjects


@dataclass(frozen=True, slots=True)
class _Usage:
    """What one allocated claim takes (foreachAllocatedDevice): dedicated devices, shared ones
    (with their share IDs) and consumed capacity."""

    dedicated: tuple[DeviceID, ...]
    shared: tuple[tuple[DeviceID, str], ...]
    capacity: tuple[tuple[DeviceID, str, Fraction], ...]


def result_usage(r: DeviceRequestAllocationResult, consumable_capacity: bool) -> tuple[DeviceID, str | None] | None:
    """foreachAllocatedDevice for one result: None for admin access (it takes nothing); else
    its device and, with consumable capacity, its shareID (a shared device, which adds its
    consumed capacity), None when it takes the device."""
    if r.admin_access:
        return None
    return DeviceID(r.driver, r.pool, r.device), (r.share_id if consumable_capacity else None)


def claim_usage(claim: ResourceClaim, consumable_capacity: bool) -> _Usage:
    """foreachAllocatedDevice over the claim's results (result_usage)."""
    if claim.allocation is None:
        return _Usage((), (), ())
    dedicated, shared, capacity = [], [], []
    for r in claim.allocation.results:
        usage = result_usage(r, consumable_capacity)
        if usage is None:
            continue
        device, share_id = usage
        if share_id is not None:
            shared.append((device, share_id))
            for name, value in (r.consumed_capacity or {}).items():
                capacity.append((device, name, value))
            continue
        dedicated.append(device)
    return _Usage(tuple(dedicated), tuple(shared), tuple(capacity))


class DRAManager:
    """SharedDRAManager over the snapshot's objects, with the allocated-device index."""

    def __init__(
        self,
        objects: "ClusterObjects",
        consumable_capacity: bool = False,
        device_taint_rules: bool = False,
        warn: "Callable[[str], None] | None" = None,
    ) -> None:
        self.objects = objects
        self.consumable_capacity = consumable_capacity
        # DRADeviceTaintRules: slices are listed through the tracker, with the rules' taints
        self.device_taint_rules = device_taint_rules
        self._warn = warn
        self._patched: tuple[int, dict[str, ResourceSlice]] | None = None  # (slices_generation, slices)
        self.in_flight: dict[str, ResourceClaim] = {}  # claim UID -> claim with its allocation
        self._dedicated: Counter[DeviceID] = Counter()
        self._shared: Counter[tuple[DeviceID, str]] = Counter()
        self._capacity: dict[DeviceID, dict[str, Fraction]] = {}
        self._per_pool: Counter[tuple[str, str]] = Counter()  # dedicated allocated devices per pool
        self.revision = 0  # bumped on every change of what is allocated
        self.slices_generation = 0  # bumped on every ResourceSlice change
        self.classes_generation = 0  # bumped on every DeviceClass change
        # Filter outcomes by (claim specs, node): see DynamicResources._allocate_memoized
        self.filter_memo: dict[tuple[Any, ...], tuple[Node, int | None, tuple[Any, ...], Any]] = {}
        self._pools: dict[tuple[str, Features], tuple[Node, int, list[Pool]]] = {}
        self.device_views: dict[str, tuple[Node, int, Features, tuple[tuple[tuple[str, str, str], ...], bool]]] = {}
        self._memo_ids: dict[tuple[Any, ...], int] = {}
        # Per node (once its devices were listed): a version bumped whenever one of its devices
        # is taken or freed by an allocated claim, and how many of them are free.
        self._device_nodes: dict[tuple[str, str, str], list[str]] = {}
        self.node_version: dict[str, int] = {}
        self.node_free: dict[str, int] = {}
        self._slices_by_node: dict[str, list[ResourceSlice]] | None = None
        self._slices_elsewhere: list[ResourceSlice] = []
        self.cel = Cache()
        for claim in objects.resource_claims.values():
            self._add_usage(claim)

    # --- ResourceClaims (claimTracker) -----------------------------------------------------
    def get_claim(self, namespace: str, name: str) -> ResourceClaim | None:
        return self.objects.resource_claims.get(f"{namespace}/{name}")

    def list_claims(self) -> list[ResourceClaim]:
        return list(self.objects.resource_claims.values())

    def claim_has_pending_allocation(self, uid: str) -> bool:
        return uid in self.in_flight

    def signal_claim_pending_allocation(self, uid: str, claim: ResourceClaim) -> None:
        self.in_flight[uid] = claim
        self.revision += 1

    def remove_claim_pending_allocation(self, uid: str) -> bool:
        removed = self.in_flight.pop(uid, None) is not None
        if removed:
            self.revision += 1
        return removed

    def allocated_state(self, consumable_capacity: bool) -> AllocatedState:
        """GatherAllocatedState (consumable capacity on) or ListAllAllocatedDevices: devices of
        allocated claims plus those of in-flight allocations. As in 1.35.4, shared devices of
        claims already allocated are not listed, only those in flight (their consumed capacity
        counts either way)."""
        if not self.in_flight and not (consumable_capacity and self._capacity):
            # No copy: the live keys. Nothing the attempt's allocator reads changes before its
            # last use (Filter); claim writes come later (PostFilter, PreBind).
            return AllocatedState(self._dedicated.keys(), set(), {})  # type: ignore[arg-type]
        allocated = set(self._dedicated)
        shared: set[tuple[DeviceID, str]] = set()
        capacity: dict[DeviceID, dict[str, Fraction]] = {}
        if consumable_capacity:
            capacity = {d: dict(c) for d, c in self._capacity.items()}
        for claim in self.in_flight.values():
            usage = claim_usage(claim, consumable_capacity)
            allocated.update(usage.dedicated)
            shared.update(usage.shared)
            for device, name, value in usage.capacity:
                per = capacity.setdefault(device, {})
                per[name] = per.get(name, Fraction(0)) + value
        return AllocatedState(allocated, shared, capacity)

    def allocated_in_pool(self, driver: str, pool: str) -> int:
        """Dedicated devices of allocated claims in one pool (in-flight ones not counted)."""
        return self._per_pool[(driver, pool)]

    def is_dedicated(self, device: DeviceID) -> bool:
        return device in self._dedicated

    # informer events for claims
    def on_claim_add(self, claim: ResourceClaim) -> None:
        self.objects.resource_claims[claim.key] = claim
        self._add_usage(claim)

    def on_claim_update(self, old: ResourceClaim, new: ResourceClaim) -> None:
        """allocatedDevices.onUpdate: only a change between allocated and not allocated moves
        devices (an allocation is never modified in place)."""
        self.objects.resource_claims[new.key] = new
        if old.allocation is None and new.allocation is not None:
            self._add_usage(new)
        elif old.allocation is not None and new.allocation is None:
            self._remove_usage(old)

    def on_claim_delete(self, claim: ResourceClaim) -> None:
        self.objects.resource_claims.pop(claim.key, None)
        self._remove_usage(claim)

    def _add_usage(self, claim: ResourceClaim) -> None:
        """What the claim's allocation takes, counted result by result (result_usage): a
        cluster's thousands of allocated claims make no _Usage each."""
        if claim.allocation is None:
            return
        consumable, dedicated = self.consumable_capacity, self._dedicated
        took = False
        for r in claim.allocation.results:
            usage = result_usage(r, consumable)
            if usage is None:
                continue
            took = True
            device, share_id = usage
            if share_id is not None:
                self._shared[(device, share_id)] += 1
                for name, value in (r.consumed_capacity or {}).items():
                    per = self._capacity.setdefault(device, {})
                    per[name] = per.get(name, Fraction(0)) + value
                continue
            count = dedicated.get(device, 0)
            if count == 0:
                self._per_pool[(device.driver, device.pool)] += 1
                self._touch(device, -1)
            dedicated[device] = count + 1
        if took:
            self.revision += 1

    def _touch(self, device: DeviceID, free_delta: int) -> None:
        for name in self._device_nodes.get(device, ()):
            self.node_version[name] += 1
            self.node_free[name] += free_delta

    def _remove_usage(self, claim: ResourceClaim) -> None:
        usage = claim_usage(claim, self.consumable_capacity)
        if not (usage.dedicated or usage.shared or usage.capacity):
            return
        self.revision += 1
        for device in usage.dedicated:
            # kube keeps a set: one deallocation frees the device
            if self._dedicated.pop(device, 0):
                self._per_pool[(device.driver, device.pool)] -= 1
                self._touch(device, +1)
        for share in usage.shared:
            self._shared.pop(share, None)
        for device, name, value in usage.capacity:
            per = self._capacity.get(device)
            if per is not None and name in per:
                per[name] -= value
                if per[name] <= 0:
                    del per[name]
                if not per:
                    del self._capacity[device]

    # --- ResourceSlices ---------------------------------------------------------------------
    def slices(self) -> list[ResourceSlice]:
        """ListWithDeviceTaintRules: the slices as published, or, with DRADeviceTaintRules on, as
        the ResourceSlice tracker patches them (each rule's taint on the devices it selects)."""
        return list(self._slices().values())

    def _slices(self) -> dict[str, ResourceSlice]:
        rules = list(self.objects.device_taint_rules.values()) if self.device_taint_rules else []
        if not rules:
            return self.objects.resource_slices
        if self._patched is None or self._patched[0] != self.slices_generation:
            patched = {name: patch_slice(s, rules) for name, s in self.objects.resource_slices.items()}
            self._patched = (self.slices_generation, patched)
            self._say_no_eviction(rules)
        return self._patched[1]

    def _say_no_eviction(self, rules: list[DeviceTaintRule]) -> None:
        """A NoExecute rule on a device allocated to a running pod: kube's device taint eviction
        controller would evict the pod (unless its claim tolerates the taint); kschedctl does not."""
        if self._warn is None:
            return
        for claim in self.objects.resource_claims.values():
            if claim.allocation is None or not claim.reserved_for:
                continue
            for r in claim.allocation.results:
                for rule in rules:
                    if rule.taint.effect == "NoExecute" and rule.matches(r.driver, r.pool, r.device):
                        self._warn(
                            f"DeviceTaintRule {rule.name!r} taints device {r.driver}/{r.pool}/{r.device} "
                            f"NoExecute; it is allocated to claim {claim.key} of a running pod, which kube's device "
                            "taint eviction controller may evict: kschedctl does not evict"
                        )
                        return

    def on_slice_change(self, old: ResourceSlice | None, new: ResourceSlice | None) -> None:
        if old is not None:
            self.objects.resource_slices.pop(old.name, None)
        if new is not None:
            self.objects.resource_slices[new.name] = new
        self.slices_generation += 1
        self._pools.clear()
        self.device_views.clear()
        self._device_nodes.clear()
        self._slices_by_node = None

    def pools_for(self, node: Node, features: Features) -> list[Pool]:
        """GatherPools for a node, cached until a slice changes or the node object is replaced
        (pools depend on slices, the node and the gates, never on claims)."""
        key = (node.name, features)
        cached = self._pools.get(key)
        if cached is not None and cached[0] is node and cached[1] == self.slices_generation:
            return cached[2]
        if self._slices_by_node is None:
            self._index_slices()
        assert self._slices_by_node is not None
        local = self._slices_by_node.get(node.name)
        candidates = local + self._slices_elsewhere if local else self._slices_elsewhere
        pools = gather_pools(candidates, node, features, self.slices())
        self._pools[key] = (node, self.slices_generation, pools)
        return pools

    def node_devices(self, node: Node, features: Features) -> tuple[tuple[tuple[str, str, str], ...], bool]:
        """Every device of the node's pools as (driver, pool, device), including devices of the
        pools' slices that do not target the node (they share counters), and whether the pools
        are plain: complete, valid, without counters, every slice published for this node
        (then a node whose devices are all taken can serve no claim). Cached per node object
        until a slice changes (``features`` is one object per plugin: compared by identity)."""
        cached = self.device_views.get(node.name)
        if cached is not None and cached[0] is node and cached[1] == self.slices_generation and cached[2] is features:
            return cached[3]
        pools = self.pools_for(node, features)
        devices = tuple(
            (sl.driver, sl.pool.name, d.name)
            for pool in pools
            for sl in (*pool.slices, *pool.slices_not_targeting_node)
            for d in sl.devices
        )
        plain = all(
            not (p.is_incomplete or p.is_invalid or p.counter_sets or p.slices_not_targeting_node)
            and all(sl.node_name == node.name for sl in p.slices)
            for p in pools
        )
        view = (devices, plain)
        self.device_views[node.name] = (node, self.slices_generation, features, view)
        name = node.name
        for d in devices:
            holders = self._device_nodes.setdefault(d, [])
            if name not in holders:
                holders.append(name)
        self.node_version[name] = self.node_version.get(name, 0) + 1
        # (driver, pool, device) equals its DeviceID, and the counter holds no zero count
        self.node_free[name] = len(devices) - sum(map(self._dedicated.__contains__, devices))
        return view

    def memo_id(self, key: tuple[Any, ...]) -> int:
        """A small number standing for a filter-memo key (claim specs, generations)."""
        ident = self._memo_ids.get(key)
        if ident is None:
            ident = self._memo_ids[key] = len(self._memo_ids)
        return ident

    def _index_slices(self) -> None:
        """SlicesForNode: slices with a nodeName only matter for that node."""
        by_node: dict[str, list[ResourceSlice]] = {}
        elsewhere: list[ResourceSlice] = []
        for s in self._slices().values():
            if s.node_name and not s.shared_counters:
                by_node.setdefault(s.node_name, []).append(s)
            else:
                elsewhere.append(s)
        self._slices_by_node, self._slices_elsewhere = by_node, elsewhere

    # --- DeviceClasses ------------------------------------------------------------------------
    def get_class(self, name: str) -> DeviceClass | None:
        return self.objects.device_classes.get(name)

    def classes(self) -> dict[str, DeviceClass]:
        return self.objects.device_classes

    def on_class_change(self, old: DeviceClass | None, new: DeviceClass | None) -> None:
        self.classes_generation += 1
        if old is not None:
            self.objects.device_classes.pop(old.name, None)
        if new is not None:
            self.objects.device_classes[new.name] = new

    def class_for_extended_resource(self, resource_name: str) -> DeviceClass | None:
        """DeviceClassResolver (extendedresourcecache): the class naming the resource in
        spec.extendedResourceName, else the class of the implicit name
        deviceclass.resource.kubernetes.io/<class>. With several classes naming the same
        resource, the newest wins, then the smallest name."""
        explicit = [c for c in self.objects.device_classes.values() if c.extended_resource_name == resource_name]
        if explicit:
            return sorted(explicit, key=lambda c: (_neg_time(c.meta.creation_timestamp), c.name))[0]
        if resource_name.startswith(IMPLICIT_EXTENDED_RESOURCE_PREFIX):
            return self.objects.device_classes.get(resource_name[len(IMPLICIT_EXTENDED_RESOURCE_PREFIX) :])
        return None


def _neg_time(stamp: str | None) -> float:
    """Sort key putting the newest creationTimestamp first (as instants: an absent one is oldest)."""
    seconds = seconds_of(stamp)
    return math.inf if seconds is None else -float(seconds)


__all__ = ["DRAManager", "EXTENDED_RESOURCE_CLAIM_ANNOTATION", "IMPLICIT_EXTENDED_RESOURCE_PREFIX", "claim_usage"]
