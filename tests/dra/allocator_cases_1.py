"""Upstream allocator table, part 1 (allocator_testing.go TestAllocator: "empty" ... "all-devices-*")."""

from __future__ import annotations

from .builders import *  # noqa: F401,F403
from .builders import (
    CLAIM0,
    CLAIM1,
    CLASS_A,
    CLASS_B,
    DEVICE1,
    DEVICE2,
    DRIVER_A,
    DRIVER_B,
    NODE1,
    NODE2,
    POOL1,
    POOL2,
    REGION1,
    REGION2,
    REQ0,
    REQ1,
    SLICE1,
    SLICE2,
    Case,
    all_request,
    allocation_result,
    claim_with_request,
    claim_with_requests,
    class_,
    device,
    device_allocation_result,
    local_node_selector,
    node,
    request,
    resource_pool,
    selector,
    slice_with_devices,
    slice_with_one_device,
)

MEM_1GI = f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("1Gi")) >= 0'
MEM_2GI = f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("2Gi")) >= 0'
ALL_A = all_request(REQ0, CLASS_A)
ONE_B = request(REQ0, CLASS_B, 1)


def _incomplete(raw: dict) -> None:
    raw["spec"]["pool"]["resourceSliceCount"] += 1


def _newer(raw: dict) -> None:
    raw["spec"]["pool"]["generation"] += 1


CASES = [
    Case("empty"),
    Case(
        "simple",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1))],
    ),
    Case(
        "other-node",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B), slice_with_one_device(SLICE2, NODE2, POOL2, DRIVER_A)],
        node=node(NODE2, REGION2),
        expect=[allocation_result(local_node_selector(NODE2), device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE1))],
    ),
    Case(
        "small-and-large",
        claims=[
            claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1, selector(MEM_1GI)), request(REQ1, CLASS_A, 1, selector(MEM_2GI)))
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, {"memory": "1Gi"}), device(DEVICE2, {"memory": "2Gi"}))],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    Case(
        "small-and-large-backtrack-requests",
        claims=[
            claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1, selector(MEM_1GI)), request(REQ1, CLASS_A, 1, selector(MEM_2GI)))
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE2, {"memory": "2Gi"}), device(DEVICE1, {"memory": "1Gi"}))],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    Case(
        "small-and-large-backtrack-claims",
        claims=[
            claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1, selector(MEM_1GI))),
            claim_with_requests(CLAIM1, None, request(REQ1, CLASS_A, 1, selector(MEM_2GI))),
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE2, {"memory": "2Gi"}), device(DEVICE1, {"memory": "1Gi"}))],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1)),
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE2)),
        ],
    ),
    Case(
        "devices-split-across-different-slices",
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 2))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A), slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE1),
            )
        ],
    ),
    Case(
        "obsolete-slice",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices("slice-1-obsolete", NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)),
            slice_with_devices("slice-1-obsolete", NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE2)).modified(_newer),
        ],
        node=node(NODE1, REGION1),
        expect=[],
    ),
    Case(
        "duplicate-slice",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)),
            slice_with_devices(SLICE1 + "-2", NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)),
        ],
        node=node(NODE1, REGION1),
        error="invalid resource pools were encountered",
        error_kind="node",
    ),
    Case(
        "no-slices",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=None,
    ),
    Case(
        "not-enough-suitable-devices",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A), claim_with_request(CLAIM0, REQ1, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=None,
    ),
    Case(
        "no-classes",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="could not retrieve device class class-a",
    ),
    Case(
        "unknown-class",
        claims=[claim_with_request(CLAIM0, REQ0, "unknown-class")],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="could not retrieve device class unknown-class",
    ),
    Case(
        "empty-class",
        claims=[claim_with_request(CLAIM0, REQ0, "")],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="claim claim-0, request req-0: missing device class name (unsupported request type?)",
    ),
    Case(
        "no-claims-to-allocate",
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=None,
    ),
    Case(
        "all-devices-single",
        claims=[claim_with_requests(CLAIM0, None, ALL_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1))],
    ),
    Case(
        "all-devices-many",
        claims=[claim_with_requests(CLAIM0, None, ALL_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A), slice_with_one_device(SLICE1, NODE1, POOL2, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE1),
            )
        ],
    ),
    Case(
        "all-devices-of-the-incomplete-pool",
        claims=[claim_with_requests(CLAIM0, None, all_request(REQ0, CLASS_A, count=1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A).modified(_incomplete)],
        node=node(NODE1, REGION1),
        error="claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated",
    ),
    Case(
        "all-devices-plus-another",
        claims=[claim_with_requests(CLAIM0, None, ALL_A), claim_with_requests(CLAIM1, None, ONE_B)],
        classes=[class_(CLASS_A, DRIVER_A), class_(CLASS_B, DRIVER_B)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A), slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B)],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1)),
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_B, POOL1, DEVICE1)),
        ],
    ),
    Case(
        "all-devices-plus-another-reversed",
        claims=[claim_with_requests(CLAIM1, None, ONE_B), claim_with_requests(CLAIM0, None, ALL_A)],
        classes=[class_(CLASS_A, DRIVER_A), class_(CLASS_B, DRIVER_B)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A), slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B)],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_B, POOL1, DEVICE1)),
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1)),
        ],
    ),
    Case(
        "all-devices-many-plus-another",
        claims=[claim_with_requests(CLAIM0, None, ALL_A), claim_with_requests(CLAIM1, None, ONE_B)],
        classes=[class_(CLASS_A, DRIVER_A), class_(CLASS_B, DRIVER_B)],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2)),
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B),
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
            ),
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_B, POOL1, DEVICE1)),
        ],
    ),
]
