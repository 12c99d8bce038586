"""Upstream allocator table, part 9 (allocator_testing.go: "consumable-capacity-disabled-feature" ...
"consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity")."""

from __future__ import annotations

from fractions import Fraction

from .builders import (
    CAPACITY0,
    CAPACITY1,
    CLAIM0,
    CLAIM1,
    CLASS_A,
    DEVICE1,
    DEVICE2,
    DRIVER_A,
    NODE1,
    POOL1,
    REGION1,
    REQ0,
    REQ0_SUBREQ1,
    REQ1,
    SLICE1,
    SUBREQ0,
    SUBREQ1,
    Case,
    all_request,
    allocation_result,
    attributes,
    claim,
    claim_with_requests,
    class_,
    class_with_allow_multiple_allocations,
    device,
    device_allocation_result,
    local_node_selector,
    match_attribute,
    node,
    request,
    request_with_prioritized_list,
    slice_with_devices,
    slice_with_one_device,
    sub_request,
    with_capacity_request,
    with_consumed_capacity,
)

CC = frozenset({"ConsumableCapacity"})
MULTI_A = class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)
SHARED_ALLOCATED = {(DRIVER_A, POOL1, DEVICE1): {CAPACITY0: Fraction(2)}}


def _req(name: str = REQ0, quantity: str | None = None) -> dict:
    r = request(name, CLASS_A, 1)
    return with_capacity_request(r, quantity) if quantity is not None else r


def _multi(name: str, capacity: dict | None = None, **policy):
    d = device(name, capacity).with_allow_multiple_allocations()
    if "range" in policy:
        d = d.with_capacity_request_policy_range({CAPACITY0: policy["range"]})
    if "values" in policy:
        default, cap, extra = policy["values"]
        d = d.with_capacity_request_policy_valid_values(default, {CAPACITY0: cap}, extra)
    return d


def _on(*devices):
    return [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, *devices)]


def _shared(dev: str, consumed: dict | None, req: str = REQ0):
    return with_consumed_capacity(device_allocation_result(req, DRIVER_A, POOL1, dev), consumed or {})


def _one(*results):
    return allocation_result(local_node_selector(NODE1), *results)


CASES = [
    Case(
        "consumable-capacity-disabled-feature",
        features=frozenset({"DeviceBindingAndStatus"}),
        claims=[claim(CLAIM0).with_requests(_req(quantity="1"))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="claim claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled",
    ),
    Case(
        "consumable-capacity-disabled-feature-with-prioritized-list",
        features=frozenset({"PrioritizedList", "DeviceBindingAndStatus"}),
        claims=[
            claim(CLAIM0).with_requests(
                request_with_prioritized_list(
                    REQ0,
                    with_capacity_request(sub_request(SUBREQ0, CLASS_A, 1), "1"),
                    with_capacity_request(sub_request(SUBREQ1, CLASS_A, 1), "1"),
                )
            )
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="claim claim-0, subrequest subReq-0: has capacity requests, but the DRAConsumableCapacity feature is disabled",
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-missing-capacity-request",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="1"))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=_on(_multi(DEVICE1, {CAPACITY1: "1"})),
        node=node(NODE1, REGION1),
        expect=[],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request",
        features=CC,
        claims=[claim(CLAIM0).with_requests(with_capacity_request(all_request(REQ0, CLASS_A), "1"))],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, {CAPACITY1: "1"})),
        node=node(NODE1, REGION1),
        expect=[],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req()), claim(CLAIM1).with_requests(_req())],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1)),
        node=node(NODE1, REGION1),
        expect=[_one(_shared(DEVICE1, None)), _one(_shared(DEVICE1, None))],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req()), claim(CLAIM1).with_requests(_req())],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, {CAPACITY0: "1"}), _multi(DEVICE2, {CAPACITY0: "1"})),
        node=node(NODE1, REGION1),
        expect=[_one(_shared(DEVICE1, {CAPACITY0: "1"})), _one(_shared(DEVICE2, {CAPACITY0: "1"}))],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req()), claim(CLAIM1).with_requests(_req())],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, {CAPACITY0: "2"})),
        node=node(NODE1, REGION1),
        expect=[],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="1")), claim(CLAIM1).with_requests(_req(quantity="1"))],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, {CAPACITY0: "2"})),
        node=node(NODE1, REGION1),
        expect=[_one(_shared(DEVICE1, {CAPACITY0: "1"})), _one(_shared(DEVICE1, {CAPACITY0: "1"}))],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request",
        features=CC,
        claims=[claim_with_requests(CLAIM0, None, _req()), claim_with_requests(CLAIM1, None, _req())],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, range="4")),
        node=node(NODE1, REGION1),
        expect=[_one(_shared(DEVICE1, {CAPACITY0: "2"})), _one(_shared(DEVICE1, {CAPACITY0: "2"}))],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-zero-request-policy",
        features=CC,
        claims=[claim_with_requests(CLAIM0, None, _req()), claim_with_requests(CLAIM1, None, _req())],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, values=("0", "1", []))),
        node=node(NODE1, REGION1),
        expect=[_one(_shared(DEVICE1, {CAPACITY0: "0"})), _one(_shared(DEVICE1, {CAPACITY0: "0"}))],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-violates-zero-request-policy",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="1"))],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, values=("0", "1", []))),
        node=node(NODE1, REGION1),
        expect=[],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="1")), claim(CLAIM1).with_requests(_req(quantity="1"))],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, range="4")),
        node=node(NODE1, REGION1),
        expect=[_one(_shared(DEVICE1, {CAPACITY0: "2"})), _one(_shared(DEVICE1, {CAPACITY0: "2"}))],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-range-policy-step",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="3"))],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, range="4")),
        node=node(NODE1, REGION1),
        expect=[_one(_shared(DEVICE1, {CAPACITY0: "4"}))],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-valid-values-policy",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="2"))],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, values=("1", "4", ["2"]))),
        node=node(NODE1, REGION1),
        expect=[_one(_shared(DEVICE1, {CAPACITY0: "2"}))],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="2"))],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, values=("1", "3", ["3"]))),
        node=node(NODE1, REGION1),
        expect=[_one(_shared(DEVICE1, {CAPACITY0: "3"}))],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="1")), claim(CLAIM1).with_requests(_req(quantity="2"))],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, range="2")),
        node=node(NODE1, REGION1),
        expect=[],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="6"))],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, range="10")),
        node=node(NODE1, REGION1),
        expect=[],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="2"))],
        allocated_capacity=SHARED_ALLOCATED,
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, range="4")),
        node=node(NODE1, REGION1),
        expect=[_one(_shared(DEVICE1, {CAPACITY0: "2"}))],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="2"))],
        allocated_capacity=SHARED_ALLOCATED,
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, range="2"), _multi(DEVICE2, range="2")),
        node=node(NODE1, REGION1),
        expect=[_one(_shared(DEVICE2, {CAPACITY0: "2"}))],
    ),
    Case(
        "consumable-capacity-with-multi-allocatable-device-backtrack",
        features=CC,
        claims=[
            claim(CLAIM0).with_constraints(match_attribute(f"{DRIVER_A}/stringAttribute")).with_requests(_req(REQ0, "2"), _req(REQ1, "2")),
            claim(CLAIM1).with_requests(_req(REQ0, "2")),
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=_on(
            device(DEVICE2, None, attributes(stringAttribute="stringAttributeValue1"))
            .with_allow_multiple_allocations()
            .with_capacity_request_policy_range({CAPACITY0: "2"}),
            device(DEVICE1, None, attributes(stringAttribute="stringAttributeValue2"))
            .with_allow_multiple_allocations()
            .with_capacity_request_policy_range({CAPACITY0: "4"}),
        ),
        node=node(NODE1, REGION1),
        expect=[
            _one(_shared(DEVICE1, {CAPACITY0: "2"}), _shared(DEVICE1, {CAPACITY0: "2"}, REQ1)),
            _one(_shared(DEVICE2, {CAPACITY0: "2"})),
        ],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-subrequest",
        features=CC | {"PrioritizedList"},
        claims=[
            claim(CLAIM0).with_requests(
                request_with_prioritized_list(
                    REQ0,
                    with_capacity_request(sub_request(SUBREQ0, CLASS_A, 1), "4"),
                    with_capacity_request(sub_request(SUBREQ1, CLASS_A, 1), "2"),
                    sub_request(SUBREQ1, CLASS_A, 1),
                )
            )
        ],
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, range="2")),
        node=node(NODE1, REGION1),
        expect=[_one(with_consumed_capacity(device_allocation_result(REQ0_SUBREQ1, DRIVER_A, POOL1, DEVICE1), {CAPACITY0: "2"}))],
    ),
    Case(
        "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity",
        features=CC,
        claims=[claim(CLAIM0).with_requests(_req(quantity="2"))],
        allocated_capacity=SHARED_ALLOCATED,
        classes=[MULTI_A],
        slices=_on(_multi(DEVICE1, range="2")),
        node=node(NODE1, REGION1),
        expect=[],
    ),
]
