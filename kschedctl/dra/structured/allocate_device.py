"""allocateDevice and the shared counters of partitionable devices (allocator_experimental.go).

A selectable candidate is checked in kube's order: in use (unless admin access or multiple
allocations), counters (DRAPartitionableDevices), device taints (DRADeviceTaints), the claim's
constraints, then consumable capacity. On success the search state records the device and an
undo function restores it.

Kube 1.35.4 leaves some state behind when it rejects a candidate after reserving its counters
(taint, constraint, capacity) and when it undoes a shared device; later candidates of the same
Allocate call see that state. ``Features.accounting_fixes`` (1.36: kubernetes/kubernetes#140431,
#140437, #140435, #139040) rolls everything back, counts shared devices when rebuilding counters
and keys counter caches by pool ID.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kschedctl.api.resource import (
    DEVICE_TAINT_EFFECT_NO_EXECUTE,
    DEVICE_TAINT_EFFECT_NO_SCHEDULE,
    Device,
)
from kschedctl.api.resourceclaim import DeviceToleration
from kschedctl.dra.structured import capacity as cap
from kschedctl.dra.structured.types import AllocationError, DeviceID, DeviceResult, kobj

if TYPE_CHECKING:
    from kschedctl.dra.structured.allocator import _Candidate, _Request, _Run

_NOOP: Callable[[], None] = lambda: None  # noqa: E731
_SHARE_NAMESPACE = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")


def taint_prevents_allocation(device: Device, tolerations: Sequence[DeviceToleration]) -> bool:
    """Only NoSchedule and NoExecute taints that no toleration tolerates prevent allocation."""
    for taint in device.taints:
        if taint.effect in (DEVICE_TAINT_EFFECT_NO_SCHEDULE, DEVICE_TAINT_EFFECT_NO_EXECUTE):
            if not any(t.tolerates(taint) for t in tolerations):
                return True
    return False


def allocate_device(run: "_Run", ci: int, data: "_Request", c: "_Candidate", must: bool) -> tuple[bool, Callable[[], None]]:
    f = run.f
    fixed = f.accounting_fixes
    request = data.request
    admin = data.admin_access
    multi = f.consumable_capacity and bool(c.device.allow_multiple_allocations)
    if not multi and admin and ci in run.allocating.get(c.id, ()):
        return False, _NOOP
    if not admin and run._in_use(c.id):
        return False, _NOOP
    if not f.partitionable_devices and c.device.consumes_counters:
        return False, _NOOP

    skip_counters = multi and _capacity_in_use(run, c.id)
    counters_taken = False
    if not skip_counters and c.device.consumes_counters:
        if not check_available_counters(run, c):
            return False, _NOOP
        counters_taken = True

    def release_counters() -> None:
        if counters_taken and fixed:
            deallocate_counters(run, c)

    base = data.parent or data.name
    sub = data.name if data.parent else ""
    if f.device_taints and taint_prevents_allocation(c.device, request.tolerations):
        release_counters()
        return False, _NOOP

    constraints = run.constraints[ci]
    for i, constraint in enumerate(constraints):
        if not constraint.add(base, sub, c.device, c.id):
            if must:
                if fixed:
                    for prev in constraints[:i]:
                        prev.remove(base, sub, c.device, c.id)
                    release_counters()
                raise AllocationError(
                    f"claim {kobj(run.claims[ci])}, request {data.name}: cannot add device "
                    f"{c.id} because a claim constraint would not be satisfied"
                )
            for prev in constraints[:i]:
                prev.remove(base, sub, c.device, c.id)
            release_counters()
            return False, _NOOP

    markers = run.allocating.setdefault(c.id, set())
    added_marker = not multi and ci not in markers
    if not multi:
        markers.add(ci)

    consumed: dict[str, Fraction] = {}
    share_id = None
    if f.consumable_capacity:
        if not run._capacity_fits(data, c.id, c.device):
            if fixed:
                for constraint in constraints:
                    constraint.remove(base, sub, c.device, c.id)
                if added_marker:
                    markers.discard(ci)
                release_counters()
            return False, _NOOP
        if multi:
            consumed = cap.consumed_from_request(request.capacity, c.device.capacity)
            share_id = _share_id(run, ci, data, c)
            cap.add_capacity(run.allocating_capacity.setdefault(c.id, {}), consumed)

    results = run.results[ci]
    previous = len(results)
    results.append(DeviceResult(data.name, data.parent, c.id, c.device, c.slice, admin, share_id, consumed or None))

    def undo() -> None:
        for constraint in constraints:
            constraint.remove(base, sub, c.device, c.id)
        if not (fixed and multi):
            markers.discard(ci)
        if multi:
            recorded = results[previous].consumed
            if recorded is not None or (fixed and c.id in run.allocating_capacity):
                _remove_capacity(run, c.id, recorded or {})
            if fixed and counters_taken:
                deallocate_counters(run, c)
        else:
            markers.discard(ci)
            if f.partitionable_devices and c.device.consumes_counters:
                deallocate_counters(run, c)
        del results[previous:]

    return True, undo


def _share_id(run: "_Run", ci: int, data: "_Request", c: "_Candidate") -> str:
    """kube draws a random UUID (GenerateShareID); here it is derived from the claim, the
    request, the device and a counter, so that the same input gives the same output."""
    run.share_seq += 1
    claim = run.claims[ci]
    return str(uuid.uuid5(_SHARE_NAMESPACE, f"{claim.namespace}/{claim.name}/{data.full_name}/{c.id}/{run.share_seq}"))


def _capacity_in_use(run: "_Run", device_id: DeviceID) -> bool:
    state = run.a.allocated
    if device_id in state.aggregated_capacity or device_id in run.allocating_capacity:
        return True
    return run.f.accounting_fixes and any(d == device_id for d, _ in state.shared_device_ids)


def _remove_capacity(run: "_Run", device_id: DeviceID, consumed: dict[str, Fraction]) -> None:
    """ConsumedCapacityCollection.Remove: subtract, and forget the device once nothing is left."""
    current = run.allocating_capacity.get(device_id)
    if current is None:
        return
    cap.sub_capacity(current, {k: v for k, v in consumed.items() if k in current})
    if all(v == 0 for v in current.values()):
        del run.allocating_capacity[device_id]


def _pool_key(run: "_Run", c: "_Candidate") -> Any:
    assert c.pool is not None
    return c.pool.id if run.f.accounting_fixes else c.pool.id.pool


def _available_counters(run: "_Run", c: "_Candidate") -> dict[str, dict[str, Fraction]]:
    """The pool's counters minus what devices of finished allocations consume, computed once
    per Allocator (upstream caches it by pool name; by pool ID with the 1.36 fixes)."""
    key = _pool_key(run, c)
    cached = run.a.available_counters.get(key)
    if cached is not None:
        return cached
    pool = c.pool
    assert pool is not None
    available = {name: dict(cs.counters) for name, cs in pool.counter_sets.items()}
    state = run.a.allocated
    for s in list(pool.slices) + list(pool.slices_not_targeting_node):
        for d in s.devices:
            device_id = DeviceID(s.driver, s.pool.name, d.name)
            taken = state.is_device_allocated(device_id) if run.f.accounting_fixes else device_id in state.allocated_devices
            if not taken:
                continue
            for consumption in d.consumes_counters:
                counters = available.get(consumption.counter_set)
                if counters is None:
                    continue
                for name, value in consumption.counters.items():
                    if name in counters:
                        counters[name] -= value
    run.a.available_counters[key] = available
    return available


def check_available_counters(run: "_Run", c: "_Candidate") -> bool:
    """checkAvailableCounters: reserve the device's counters; undo and refuse if any counter
    of the pool would be exceeded."""
    available = _available_counters(run, c)
    consumed = run.consumed_counters.setdefault(_pool_key(run, c), {})
    for consumption in c.device.consumes_counters:
        counters = consumed.setdefault(consumption.counter_set, {})
        for name, value in consumption.counters.items():
            counters[name] = counters.get(name, Fraction(0)) + value
    for set_name, counters in available.items():
        used = consumed.get(set_name, {})
        for name, value in counters.items():
            if value < used.get(name, Fraction(0)):
                deallocate_counters(run, c)
                return False
    return True


def deallocate_counters(run: "_Run", c: "_Candidate") -> None:
    consumed = run.consumed_counters.get(_pool_key(run, c), {})
    for consumption in c.device.consumes_counters:
        counters = consumed.setdefault(consumption.counter_set, {})
        for name, value in consumption.counters.items():
            counters[name] = counters.get(name, Fraction(0)) - value
