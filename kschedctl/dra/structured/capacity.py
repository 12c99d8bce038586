"""Consumable capacity (DRAConsumableCapacity): structured/internal/experimental/consumable_capacity.go
and the counters of partitionable devices (DRAPartitionableDevices, checkAvailableCounters).

Quantities are exact Fractions; ``Quantity.Value()`` (round up to an integer) is ``math.ceil``.
"""

from __future__ import annotations

import math
from fractions import Fraction

from kschedctl.api.resource import CapacityRequestPolicy, DeviceCapacity
from kschedctl.api.resourceclaim import CapacityRequirements

Capacity = dict[str, Fraction]


def _value(q: Fraction) -> int:
    return math.ceil(q)


def _go_mod(a: int, b: int) -> int:
    """Go's % truncates toward zero."""
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def calculate_consumed(requested: Fraction | None, cap: DeviceCapacity) -> Fraction:
    """calculateConsumedCapacity: the request rounded up to what the policy allows, or the
    policy's default (the whole capacity without one) when nothing is requested."""
    policy = cap.request_policy
    if requested is None:
        if policy is not None and policy.default is not None:
            return policy.default
        return cap.value
    if policy is None:
        return requested
    if policy.has_valid_range and policy.valid_range_min is not None:
        return _round_up_range(requested, policy)
    if policy.valid_values:
        for v in policy.valid_values:
            if requested <= v:
                return v
    return requested


def _round_up_range(requested: Fraction, policy: CapacityRequestPolicy) -> Fraction:
    lo = policy.valid_range_min
    assert lo is not None
    if requested < lo:
        return lo
    if policy.valid_range_step is None:
        return requested
    req, step, low = _value(requested), _value(policy.valid_range_step), _value(lo)
    added = req - low
    n = int(added / step) if step else 0
    if step and _go_mod(added, step) != 0:
        n += 1
    return Fraction(low + step * n)


def violates_policy(value: Fraction, policy: CapacityRequestPolicy | None) -> bool:
    if policy is None:
        return False
    if policy.default is not None and value == policy.default:
        return False
    if policy.has_valid_range:
        if policy.valid_range_max is not None and value > policy.valid_range_max:
            return True
        if policy.valid_range_step is not None:
            step = _value(policy.valid_range_step)
            low = _value(policy.valid_range_min) if policy.valid_range_min is not None else 0
            if step and _go_mod(_value(value) - low, step) != 0:
                return True
        return False
    if policy.valid_values:
        return value not in policy.valid_values
    return False


class CapacityError(Exception):
    """ "some requested capacity has not been defined": the device is skipped."""


def fits_capacity(
    consumed: Capacity, request: CapacityRequirements | None, capacity: dict[str, DeviceCapacity], allocating: Capacity | None
) -> bool:
    """CmpRequestOverCapacity: does the request fit next to what is consumed and being allocated?"""
    if request is None and not consumed and not allocating and all(cap.request_policy is None for cap in capacity.values()):
        return True  # each capacity consumed whole, nothing else consumed: it fits
    requests = request.requests if request is not None else {}
    for name in requests:
        if name not in capacity:
            raise CapacityError("some requested capacity has not been defined")
    for name, cap in capacity.items():
        value = calculate_consumed(requests.get(name), cap)
        if violates_policy(value, cap.request_policy):
            return False
        total = consumed.get(name, Fraction(0)) + value
        if allocating and name in allocating:
            total += allocating[name]
        if total > cap.value:
            return False
    return True


def consumed_from_request(request: CapacityRequirements | None, capacity: dict[str, DeviceCapacity]) -> Capacity:
    """GetConsumedCapacityFromRequest: what one allocation consumes of each capacity."""
    requests = request.requests if request is not None else {}
    return {name: calculate_consumed(requests.get(name), cap) for name, cap in capacity.items()}


def add_capacity(into: Capacity, other: Capacity) -> None:
    for name, value in other.items():
        into[name] = into.get(name, Fraction(0)) + value


def sub_capacity(into: Capacity, other: Capacity) -> None:
    for name, value in other.items():
        into[name] = into.get(name, Fraction(0)) - value
