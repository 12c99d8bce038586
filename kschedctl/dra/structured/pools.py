"""Which resource pools can serve a node: structured/internal/experimental/pools_experimental.go.

GatherPools keeps, per pool (driver, pool name), the slices of the newest generation that are
relevant for the node (its ``nodeName``, ``allNodes``, a matching ``nodeSelector``, a device of a
``perDeviceNodeSelection`` slice that matches, or any slice with ``sharedCounters``), then marks a
pool incomplete (fewer slices than ``resourceSliceCount``) or invalid (duplicate device names,
duplicate counter sets, consumed counters that do not exist).

The order of pools and slices decides which devices the first-fit search picks. Kube 1.36
(kubernetes/kubernetes#136641) sorts pools by (driver, pool) and slices by name, with pools that
have devices with binding conditions last. Kube 1.35 iterates a Go map (random pool order) and
takes slices in lister order, putting slices with binding conditions after the others; with
``Features.sorted_pools`` off this module keeps that slice rule and still sorts pools and slices
by name, which is one of the orders 1.35 can take and makes runs reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kschedctl.api.labels import NodeSelector
from kschedctl.api.resource import CounterSet, Device, ResourceSlice
from kschedctl.api.types import Node
from kschedctl.dra.structured.types import Features


@dataclass(frozen=True, slots=True)
class PoolID:
    driver: str
    pool: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}"


@dataclass(slots=True)
class Pool:
    id: PoolID
    is_incomplete: bool = False
    is_invalid: bool = False
    invalid_reason: str = ""
    slices: list[ResourceSlice] = field(default_factory=list)  # DeviceSlicesTargetingNode
    slices_not_targeting_node: list[ResourceSlice] = field(default_factory=list)
    counter_sets: dict[str, CounterSet] = field(default_factory=dict)


def node_matches(node: Node | None, node_name: str | None, all_nodes: bool | None, selector: NodeSelector | None) -> bool:
    """NodeMatches: a node name, all nodes, or a node selector (terms ORed)."""
    if node_name:
        return node is not None and node.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return node is not None and selector.matches(node.name, node.labels)
    return False


def _has_binding_conditions(devices: Sequence[Device]) -> bool:
    return any(d.binding_conditions for d in devices)


def gather_pools(
    slices: Sequence[ResourceSlice], node: Node, features: Features, all_slices: Sequence[ResourceSlice] | None = None
) -> list[Pool]:
    """GatherPools for one node. ``slices`` may be narrowed to those that can matter for the
    node (SlicesForNode); ``all_slices`` then holds every slice, for the incomplete-pool check."""
    if all_slices is None:
        all_slices = slices
    pools: dict[PoolID, list[ResourceSlice]] = {}
    deferred: list[ResourceSlice] = []  # 1.35: slices with binding conditions go last
    for s in slices:
        if not features.partitionable_devices and (s.per_device_node_selection is not None or s.shared_counters):
            continue
        if s.shared_counters:
            relevant = True
        elif s.node_name or s.all_nodes or s.node_selector is not None:
            relevant = node_matches(node, s.node_name, s.all_nodes, s.node_selector)
        elif s.per_device_node_selection:
            relevant = any(node_matches(node, d.node_name, d.all_nodes, d.node_selector) for d in s.devices)
        else:
            continue  # some future way of selecting nodes: cannot use it
        if not relevant:
            continue
        if not features.sorted_pools and not s.shared_counters and _has_binding_conditions(s.devices):
            deferred.append(s)
            continue
        _add_slice(pools, s)
    for s in deferred:
        _add_slice(pools, s)

    result: list[Pool] = []
    with_binding_conditions: list[Pool] = []
    for pool_id, pool_slices in pools.items():
        first = pool_slices[0]
        if len(pool_slices) == first.pool.resource_slice_count:
            pool = _build_pool(pool_id, pool_slices, features, None)
        else:
            obsolete, all_for_pool = _check_slices_in_pool(all_slices, pool_id, first.pool.generation)
            if obsolete:
                continue
            if len(all_for_pool) != first.pool.resource_slice_count:
                result.append(Pool(pool_id, is_incomplete=True))
                continue
            pool = _build_pool(pool_id, pool_slices, features, all_for_pool)
        if any(_has_binding_conditions(s.devices) for s in pool.slices):
            with_binding_conditions.append(pool)
        else:
            result.append(pool)
    key = lambda p: (p.id.driver, p.id.pool)  # noqa: E731
    result.sort(key=key)
    with_binding_conditions.sort(key=key)
    return result + with_binding_conditions


def _add_slice(pools: dict[PoolID, list[ResourceSlice]], s: ResourceSlice) -> None:
    pool_id = PoolID(s.driver, s.pool.name)
    current = pools.get(pool_id)
    if current is None or s.pool.generation > current[0].pool.generation:
        pools[pool_id] = [s]
    elif s.pool.generation == current[0].pool.generation:
        current.append(s)


def _check_slices_in_pool(slices: Sequence[ResourceSlice], pool_id: PoolID, generation: int) -> tuple[bool, list[ResourceSlice]]:
    out = []
    for s in slices:
        if s.driver != pool_id.driver or s.pool.name != pool_id.pool:
            continue
        if s.pool.generation == generation:
            out.append(s)
        elif s.pool.generation > generation:
            return True, []
    return False, out


def _sorted_slices(pool_slices: list[ResourceSlice], features: Features) -> list[ResourceSlice]:
    if features.sorted_pools:
        return sorted(pool_slices, key=lambda s: s.name)
    # 1.35: lister order (random in kube); by name here, slices with binding conditions last.
    return sorted(pool_slices, key=lambda s: (_has_binding_conditions(s.devices) and not s.shared_counters, s.name))


def _build_pool(pool_id: PoolID, pool_slices: list[ResourceSlice], features: Features, all_for_pool: list[ResourceSlice] | None) -> Pool:
    pool_slices = _sorted_slices(pool_slices, features)
    if features.partitionable_devices:
        device_slices = [s for s in pool_slices if not s.shared_counters]
        counter_slices = [s for s in pool_slices if s.shared_counters]
    else:
        device_slices, counter_slices = pool_slices, []
    names: set[str] = set()
    for s in device_slices:
        for d in s.devices:
            if d.name in names:
                return Pool(pool_id, is_invalid=True, invalid_reason=f"duplicate device name {d.name}")
            names.add(d.name)
    if not features.partitionable_devices:
        return Pool(pool_id, slices=device_slices)
    counter_sets: dict[str, CounterSet] = {}
    for s in counter_slices:
        for cs in s.shared_counters:
            if cs.name in counter_sets:
                return Pool(pool_id, is_invalid=True, invalid_reason=f"duplicate counter set name {cs.name}")
            counter_sets[cs.name] = cs
    reason = _validate_counter_consumption(counter_sets, pool_slices)
    if reason:
        return Pool(pool_id, is_invalid=True, invalid_reason=reason)
    if all_for_pool is None or len(pool_slices) == len(all_for_pool):
        return Pool(pool_id, slices=device_slices, counter_sets=counter_sets)
    seen = {s.name for s in pool_slices}
    others = [s for s in all_for_pool if s.name not in seen]
    reason = _validate_counter_consumption(counter_sets, others)
    if reason:
        return Pool(pool_id, is_invalid=True, invalid_reason=reason)
    return Pool(pool_id, slices=device_slices, slices_not_targeting_node=others, counter_sets=counter_sets)


def _validate_counter_consumption(counter_sets: dict[str, CounterSet], slices: Sequence[ResourceSlice]) -> str:
    for s in slices:
        for d in s.devices:
            for consumption in d.consumes_counters:
                cs = counter_sets.get(consumption.counter_set)
                if cs is None:
                    return f"counter set {consumption.counter_set} not found"
                for name in consumption.counters:
                    if name not in cs.counters:
                        return f"counter {name} not found in counter set {cs.name}"
    return ""
