"""Binding conditions and consumable capacity: cases modelled on the upstream table's
"device-binding-conditions-*" and "consumable-capacity-*" families (not yet translated one by one)."""

from __future__ import annotations

from .builders import (
    CAPACITY0,
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
    SLICE1,
    Case,
    allocation_result,
    claim,
    class_,
    device,
    device_allocation_result,
    device_allocation_result_with_binding_conditions,
    local_node_selector,
    node,
    request,
    slice_with_devices,
    with_capacity_request,
    with_consumed_capacity,
)

BINDING = frozenset({"DeviceBindingAndStatus"})
CC = frozenset({"ConsumableCapacity"})
BOUND = device(DEVICE1).with_binding_conditions(["attached"], ["failed"]).with_binds_to_node(True)

CASES = [
    Case(
        "binding-conditions-feature-off-skips-device",
        claims=[claim(CLAIM0).with_requests(request(REQ0, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, BOUND)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "binding-conditions-copied-into-result",
        features=BINDING,
        claims=[claim(CLAIM0).with_requests(request(REQ0, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, BOUND)],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result_with_binding_conditions(REQ0, DRIVER_A, POOL1, DEVICE1, ["attached"], ["failed"]),
            )
        ],
    ),
    Case(
        "consumable-capacity-two-claims-share-a-device",
        features=CC,
        claims=[
            claim(CLAIM0).with_requests(with_capacity_request(request(REQ0, CLASS_A, 1), "1")),
            claim(CLAIM1).with_requests(with_capacity_request(request(REQ0, CLASS_A, 1), "1")),
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, {CAPACITY0: "2"}).with_allow_multiple_allocations())],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                with_consumed_capacity(device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1), {CAPACITY0: "1"}),
            ),
            allocation_result(
                local_node_selector(NODE1),
                with_consumed_capacity(device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1), {CAPACITY0: "1"}),
            ),
        ],
    ),
    Case(
        "consumable-capacity-exhausted-moves-to-next-device",
        features=CC,
        claims=[
            claim(CLAIM0).with_requests(with_capacity_request(request(REQ0, CLASS_A, 1), "2")),
            claim(CLAIM1).with_requests(with_capacity_request(request(REQ0, CLASS_A, 1), "1")),
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY0: "2"}).with_allow_multiple_allocations(),
                device(DEVICE2, {CAPACITY0: "2"}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                with_consumed_capacity(device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1), {CAPACITY0: "2"}),
            ),
            allocation_result(
                local_node_selector(NODE1),
                with_consumed_capacity(device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2), {CAPACITY0: "1"}),
            ),
        ],
    ),
    Case(
        "consumable-capacity-request-policy-range-rounds-up",
        features=CC,
        claims=[claim(CLAIM0).with_requests(with_capacity_request(request(REQ0, CLASS_A, 1), "3"))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1).with_allow_multiple_allocations().with_capacity_request_policy_range({CAPACITY0: "8"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                with_consumed_capacity(device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1), {CAPACITY0: "4"}),
            )
        ],
    ),
    Case(
        "consumable-capacity-disabled-capacity-request",
        claims=[claim(CLAIM0).with_requests(with_capacity_request(request(REQ0, CLASS_A, 1), "1"))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, {CAPACITY0: "2"}))],
        node=node(NODE1, REGION1),
        error="claim claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled",
    ),
]
