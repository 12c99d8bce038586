"""Upstream allocator table, part 4 (allocator_testing.go: "too-many-devices-total" ... "prioritized-list-multi-request")."""

from __future__ import annotations

from .builders import (
    CLAIM0,
    CLASS_A,
    CLASS_B,
    DEVICE1,
    DEVICE2,
    DEVICE3,
    DRIVER_A,
    DRIVER_B,
    NODE1,
    POOL1,
    POOL2,
    REGION1,
    REQ0,
    REQ0_SUBREQ0,
    REQ0_SUBREQ1,
    REQ1,
    REQ1_SUBREQ0,
    REQ1_SUBREQ1,
    SLICE1,
    SLICE2,
    SUBREQ0,
    SUBREQ1,
    Case,
    allocation_result,
    allocation_result_with_configs,
    attributes,
    claim,
    claim_with_requests,
    class_,
    class_with_config,
    device,
    device_allocation_result,
    device_configuration,
    local_node_selector,
    match_attribute,
    node,
    request,
    request_with_prioritized_list,
    selector,
    slice_with_devices,
    slice_with_multiple_devices,
    slice_with_one_device,
    sub_request,
)

VERSION_ATTR = f"{DRIVER_A}/driverVersion"
CLASSES_AB = [class_(CLASS_A, DRIVER_A), class_(CLASS_B, DRIVER_B)]


def mem(q: str) -> dict:
    return selector(f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{q}")) >= 0')


def _all_sub(name: str, cls: str) -> dict:
    sub = sub_request(name, cls, 0, allocationMode="All")
    del sub["count"]
    return sub


def _claim_config(requests: list[str], cfg: dict) -> dict:
    return {"requests": requests, **cfg}


_VERSIONED = [
    slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, {"memory": "8Gi"}, attributes(driverVersion=("version", "1.0.0")))),
]

CASES = [
    Case(
        "too-many-devices-total",
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 32), request(REQ1, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_multiple_devices(SLICE1, NODE1, POOL1, DRIVER_A, 33)],
        node=node(NODE1, REGION1),
        error="exceeds the claim limit",
    ),
    Case(
        "all-devices-invalid-CEL",
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 500))],
        classes=[class_(CLASS_A, DRIVER_A)],
        error="exceeds the claim limit",
    ),
    Case(
        "prioritized-list-first-unavailable",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0).with_requests(
                request_with_prioritized_list(REQ0, sub_request(SUBREQ0, CLASS_B, 1), sub_request(SUBREQ1, CLASS_A, 1))
            )
        ],
        classes=CLASSES_AB,
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0_SUBREQ1, DRIVER_A, POOL1, DEVICE1))],
    ),
    Case(
        "prioritized-list-non-available",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0).with_requests(
                request_with_prioritized_list(REQ0, sub_request(SUBREQ0, CLASS_B, 2), sub_request(SUBREQ1, CLASS_A, 2))
            )
        ],
        classes=CLASSES_AB,
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A), slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_B)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "prioritized-list-device-config",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0)
            .with_requests(request_with_prioritized_list(REQ0, sub_request(SUBREQ0, CLASS_A, 1), sub_request(SUBREQ1, CLASS_B, 2)))
            .with_configs(
                _claim_config([REQ0_SUBREQ0], device_configuration(DRIVER_A, "foo")),
                _claim_config([REQ0_SUBREQ1], device_configuration(DRIVER_B, "bar")),
            )
        ],
        classes=CLASSES_AB,
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_B, device(DEVICE1, None, {}), device(DEVICE2, None, {}))],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result_with_configs(
                local_node_selector(NODE1),
                [
                    device_allocation_result(REQ0_SUBREQ1, DRIVER_B, POOL1, DEVICE1),
                    device_allocation_result(REQ0_SUBREQ1, DRIVER_B, POOL1, DEVICE2),
                ],
                [{"source": "FromClaim", "requests": [REQ0_SUBREQ1], **device_configuration(DRIVER_B, "bar")}],
            )
        ],
    ),
    Case(
        "prioritized-list-class-config",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0).with_requests(
                request_with_prioritized_list(REQ0, sub_request(SUBREQ0, CLASS_A, 2), sub_request(SUBREQ1, CLASS_B, 2))
            )
        ],
        classes=[class_with_config(CLASS_A, DRIVER_A, "foo"), class_with_config(CLASS_B, DRIVER_B, "bar")],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_B, device(DEVICE1), device(DEVICE2)),
            slice_with_devices(SLICE2, NODE1, POOL2, DRIVER_A, device(DEVICE3)),
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result_with_configs(
                local_node_selector(NODE1),
                [
                    device_allocation_result(REQ0_SUBREQ1, DRIVER_B, POOL1, DEVICE1),
                    device_allocation_result(REQ0_SUBREQ1, DRIVER_B, POOL1, DEVICE2),
                ],
                [{"source": "FromClass", "requests": [REQ0_SUBREQ1], **device_configuration(DRIVER_B, "bar")}],
            )
        ],
    ),
    Case(
        "prioritized-list-subrequests-with-expressions",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0).with_requests(
                request(REQ0, CLASS_A, 1, mem("1Gi")),
                request_with_prioritized_list(
                    REQ1, sub_request(SUBREQ0, CLASS_A, 1, mem("4Gi")), sub_request(SUBREQ1, CLASS_A, 2, mem("2Gi"))
                ),
            )
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {"memory": "2Gi"}),
                device(DEVICE2, {"memory": "2Gi"}),
                device(DEVICE3, {"memory": "1Gi"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE3),
                device_allocation_result(REQ1_SUBREQ1, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1_SUBREQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    Case(
        "prioritized-list-subrequests-with-constraints-ref-parent-request",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0)
            .with_constraints(match_attribute(VERSION_ATTR, REQ0, REQ1))
            .with_requests(
                request(REQ0, CLASS_A, 1, mem("8Gi")),
                request_with_prioritized_list(
                    REQ1, sub_request(SUBREQ0, CLASS_A, 1, mem("2Gi")), sub_request(SUBREQ1, CLASS_A, 1, mem("1Gi"))
                ),
            )
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            *_VERSIONED,
            slice_with_devices(
                SLICE2,
                NODE1,
                POOL2,
                DRIVER_A,
                device(DEVICE2, {"memory": "2Gi"}, attributes(driverVersion=("version", "2.0.0"))),
                device(DEVICE3, {"memory": "1Gi"}, attributes(driverVersion=("version", "1.0.0"))),
            ),
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1_SUBREQ1, DRIVER_A, POOL2, DEVICE3),
            )
        ],
    ),
    Case(
        "prioritized-list-subrequests-with-constraints-ref-sub-request",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0)
            .with_constraints(match_attribute(VERSION_ATTR, REQ0, REQ1_SUBREQ0))
            .with_requests(
                request(REQ0, CLASS_A, 1, mem("8Gi")),
                request_with_prioritized_list(
                    REQ1, sub_request(SUBREQ0, CLASS_A, 1, mem("2Gi")), sub_request(SUBREQ1, CLASS_A, 1, mem("1Gi"))
                ),
            )
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            *_VERSIONED,
            slice_with_devices(
                SLICE2, NODE1, POOL2, DRIVER_A, device(DEVICE2, {"memory": "2Gi"}, attributes(driverVersion=("version", "2.0.0")))
            ),
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1_SUBREQ1, DRIVER_A, POOL2, DEVICE2),
            )
        ],
    ),
    Case(
        "prioritized-list-subrequests-with-allocation-mode-all",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0).with_requests(request_with_prioritized_list(REQ0, _all_sub(SUBREQ0, CLASS_A), sub_request(SUBREQ1, CLASS_A, 1)))
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))],
        allocated_devices=[(DRIVER_A, POOL1, DEVICE1)],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0_SUBREQ1, DRIVER_A, POOL1, DEVICE2))],
    ),
    Case(
        "prioritized-list-allocation-mode-all-multiple-requests",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0).with_requests(
                request(REQ0, CLASS_A, 1), request_with_prioritized_list(REQ1, _all_sub(SUBREQ0, CLASS_A), sub_request(SUBREQ1, CLASS_A, 1))
            )
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1_SUBREQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    Case(
        "prioritized-list-disabled",
        claims=[claim(CLAIM0).with_requests(request_with_prioritized_list(REQ0, sub_request(SUBREQ0, CLASS_A, 1)))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled",
    ),
    Case(
        "prioritized-list-multi-request",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0).with_requests(
                request(REQ1, CLASS_A, 1, mem("8Gi")),
                request_with_prioritized_list(
                    REQ0, sub_request(SUBREQ0, CLASS_A, 1, mem("8Gi")), sub_request(SUBREQ1, CLASS_A, 1, mem("4Gi"))
                ),
            )
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, {"memory": "8Gi"}, {})),
            slice_with_devices(SLICE2, NODE1, POOL2, DRIVER_A, device(DEVICE2, {"memory": "4Gi"}, {})),
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0_SUBREQ1, DRIVER_A, POOL2, DEVICE2),
            )
        ],
    ),
]
