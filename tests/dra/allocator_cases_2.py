"""Upstream allocator table, part 2 (allocator_testing.go: "all-devices-many-plus-another-reversed" ...
"admin-access-disabled")."""

from __future__ import annotations

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
    NODE_SELECTION_ALL,
    POOL1,
    POOL2,
    POOL3,
    POOL4,
    REGION1,
    REGION2,
    REQ0,
    REQ0_SUBREQ1,
    REQ1,
    SLICE1,
    SLICE2,
    SUBREQ0,
    SUBREQ1,
    Case,
    all_request,
    allocation_result,
    claim,
    claim_with_request,
    claim_with_requests,
    class_,
    device,
    device_allocation_result,
    local_node_selector,
    node,
    node_label_selector,
    request,
    request_with_prioritized_list,
    slice_with_devices,
    slice_with_no_devices,
    slice_with_one_device,
    sub_request,
)

ALL_A = all_request(REQ0, CLASS_A)
ONE_A = request(REQ0, CLASS_A, 1)
TWO_DEVICES = slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
CLASSES_AB = [class_(CLASS_A, DRIVER_A), class_(CLASS_B, DRIVER_B)]


def _admin(req: dict, **extra) -> dict:
    out = {"name": req["name"], "exactly": {**req["exactly"], "adminAccess": True, **extra}}
    return out


def _prioritized_all_first():
    sub0 = sub_request(SUBREQ0, CLASS_A, 0, allocationMode="All")
    del sub0["count"]
    return claim(CLAIM0).with_requests(request_with_prioritized_list(REQ0, sub0, sub_request(SUBREQ1, CLASS_B, 1)))


CASES = [
    Case(
        "all-devices-many-plus-another-reversed",
        claims=[claim_with_requests(CLAIM1, None, request(REQ0, CLASS_B, 1)), claim_with_requests(CLAIM0, None, ALL_A)],
        classes=CLASSES_AB,
        slices=[TWO_DEVICES, slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B)],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_B, POOL1, DEVICE1)),
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
            ),
        ],
    ),
    Case(
        "all-devices-no-solution",
        claims=[claim_with_requests(CLAIM1, None, ONE_A), claim_with_requests(CLAIM0, None, ALL_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "all-devices-no-solution-reversed",
        claims=[claim_with_requests(CLAIM0, None, ALL_A), claim_with_requests(CLAIM1, None, ONE_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "all-devices-slice-without-devices",
        claims=[claim_with_requests(CLAIM0, None, ALL_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_no_devices(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "all-devices-no-slices",
        claims=[claim_with_requests(CLAIM0, None, ALL_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "all-devices-some-allocated",
        claims=[claim_with_requests(CLAIM0, None, ALL_A)],
        allocated_devices=[(DRIVER_A, POOL1, DEVICE1)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[TWO_DEVICES],
        node=node(NODE1, REGION1),
    ),
    Case(
        "all-devices-some-allocated-admin-access",
        features=frozenset({"AdminAccess"}),
        claims=[claim_with_requests(CLAIM0, None, _admin(ONE_A, allocationMode="All"))],
        allocated_devices=[(DRIVER_A, POOL1, DEVICE1)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[TWO_DEVICES],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2, True),
            )
        ],
    ),
    Case(
        "all-devices-some-allocating-admin-access",
        features=frozenset({"AdminAccess"}),
        claims=[claim_with_requests(CLAIM0, None, _admin(ONE_A), _admin(request(REQ1, CLASS_A, 1), allocationMode="All"))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[TWO_DEVICES],
        node=node(NODE1, REGION1),
    ),
    Case(
        "count-devices-some-allocated-admin-access",
        features=frozenset({"AdminAccess"}),
        claims=[claim_with_requests(CLAIM0, None, _admin(request(REQ0, CLASS_A, 2)))],
        allocated_devices=[(DRIVER_A, POOL1, DEVICE1)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[TWO_DEVICES],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2, True),
            )
        ],
    ),
    Case(
        "separate-claims-share-device-admin-access",
        features=frozenset({"AdminAccess"}),
        claims=[claim_with_requests(CLAIM0, None, _admin(ONE_A)), claim_with_requests(CLAIM1, None, _admin(ONE_A))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[TWO_DEVICES],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True)),
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True)),
        ],
    ),
    Case(
        "admin-access-claims-device-allocating-for-non-admin-access",
        features=frozenset({"AdminAccess"}),
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A), claim_with_requests(CLAIM1, None, _admin(ONE_A))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[TWO_DEVICES],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1)),
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True)),
        ],
    ),
    Case(
        "all-devices-slice-without-devices-prioritized-list",
        features=frozenset({"PrioritizedList"}),
        claims=[_prioritized_all_first()],
        classes=CLASSES_AB,
        slices=[slice_with_no_devices(SLICE1, NODE1, POOL1, DRIVER_A), slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_B)],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0_SUBREQ1, DRIVER_B, POOL2, DEVICE1))],
    ),
    Case(
        "all-devices-no-slices-prioritized-list",
        features=frozenset({"PrioritizedList"}),
        claims=[_prioritized_all_first()],
        classes=CLASSES_AB,
        slices=[slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_B)],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0_SUBREQ1, DRIVER_B, POOL2, DEVICE1))],
    ),
    Case(
        "all-devices-some-allocated-prioritized-list",
        features=frozenset({"PrioritizedList"}),
        claims=[_prioritized_all_first()],
        allocated_devices=[(DRIVER_A, POOL1, DEVICE1)],
        classes=CLASSES_AB,
        slices=[TWO_DEVICES, slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_B)],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0_SUBREQ1, DRIVER_B, POOL2, DEVICE1))],
    ),
    Case(
        "network-attached-device",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=[allocation_result(node_label_selector("region", REGION1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1))],
    ),
    Case(
        "unsuccessful-allocation-network-attached-device",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A)],
        node=node(NODE2, REGION2),
    ),
    Case(
        "many-network-attached-devices",
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 4))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A),
            slice_with_one_device(SLICE1, NODE_SELECTION_ALL, POOL2, DRIVER_A),
            slice_with_one_device(SLICE1, node_label_selector("planet", "earth"), POOL3, DRIVER_A),
            slice_with_one_device(SLICE1, local_node_selector(NODE1), POOL4, DRIVER_A),
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "region", "operator": "In", "values": [REGION1]},
                                {"key": "planet", "operator": "In", "values": ["earth"]},
                            ],
                            "matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE1]}],
                        }
                    ]
                },
                *(device_allocation_result(REQ0, DRIVER_A, p, DEVICE1) for p in (POOL1, POOL2, POOL3, POOL4)),
            )
        ],
    ),
    Case(
        "local-and-network-attached-devices",
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 2))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A),
            slice_with_one_device(SLICE1, NODE1, POOL2, DRIVER_A),
        ],
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
        "several-different-drivers",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A), claim_with_request(CLAIM0, REQ0, CLASS_B)],
        classes=CLASSES_AB,
        slices=[TWO_DEVICES, slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B)],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1)),
            allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_B, POOL1, DEVICE1)),
        ],
    ),
    Case(
        "already-allocated-devices",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        allocated_devices=[(DRIVER_A, POOL1, DEVICE1), (DRIVER_A, POOL1, DEVICE2)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "admin-access-disabled",
        claims=[claim_with_requests(CLAIM0, None, _admin(ONE_A))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="claim claim-0, request req-0: admin access is requested, but the feature is disabled",
    ),
]
