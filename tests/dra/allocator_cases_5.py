"""Upstream allocator table, part 5 (allocator_testing.go: "prioritized-list-with-backtracking" ...
"partitionable-devices-unused-counters-in-counter-set")."""

from __future__ import annotations

from .allocator_cases_4 import mem
from .builders import (
    CLAIM0,
    CLASS_A,
    CLASS_B,
    COUNTER_SET1,
    COUNTER_SET2,
    DEVICE1,
    DEVICE2,
    DEVICE3,
    DRIVER_A,
    DRIVER_B,
    FROM_COUNTERS,
    NODE1,
    POOL1,
    POOL2,
    REGION1,
    REQ0,
    REQ0_SUBREQ1,
    REQ1,
    REQ1_SUBREQ1,
    SLICE1,
    SLICE2,
    SLICE3,
    SLICE4,
    SUBREQ0,
    SUBREQ1,
    Case,
    allocation_result,
    claim,
    claim_with_requests,
    class_,
    counter_set,
    device,
    device_allocation_result,
    device_counter_consumption,
    local_node_selector,
    node,
    request,
    request_with_prioritized_list,
    resource_pool,
    slice_with_counter_sets,
    slice_with_devices,
    slice_with_one_device,
    sub_request,
)

PART = frozenset({"PartitionableDevices"})
PART_PRIO = frozenset({"PartitionableDevices", "PrioritizedList"})


def cdev(name: str, *consumptions: tuple[str, dict], capacity=FROM_COUNTERS):
    return device(name, capacity).with_device_counter_consumption(*(device_counter_consumption(s, c) for s, c in consumptions))


def counters_slice(name: str, pool, *sets: tuple[str, dict]):
    return slice_with_counter_sets(name, NODE1, pool, DRIVER_A, *(counter_set(s, c) for s, c in sets))


THREE_PARTITIONS = [
    slice_with_devices(
        SLICE1,
        NODE1,
        resource_pool(POOL1, 2),
        DRIVER_A,
        cdev(DEVICE1, (COUNTER_SET1, {"memory": "4Gi"})),
        cdev(DEVICE2, (COUNTER_SET1, {"memory": "6Gi"})),
        cdev(DEVICE3, (COUNTER_SET1, {"memory": "4Gi"})),
    ),
    counters_slice(SLICE2, resource_pool(POOL1, 2), (COUNTER_SET1, {"memory": "8Gi"})),
]
PRIO_6_4 = request_with_prioritized_list(REQ1, sub_request(SUBREQ0, CLASS_A, 1, mem("6Gi")), sub_request(SUBREQ1, CLASS_A, 1, mem("4Gi")))

CASES = [
    Case(
        "prioritized-list-with-backtracking",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0).with_requests(
                request_with_prioritized_list(
                    REQ0, sub_request(SUBREQ0, CLASS_A, 1, mem("8Gi")), sub_request(SUBREQ1, CLASS_A, 1, mem("4Gi"))
                ),
                request(REQ1, CLASS_A, 1, mem("8Gi")),
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
                device_allocation_result(REQ0_SUBREQ1, DRIVER_A, POOL2, DEVICE2),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE1),
            )
        ],
    ),
    Case(
        "prioritized-list-too-many-in-first-subrequest",
        features=frozenset({"PrioritizedList"}),
        claims=[
            claim(CLAIM0).with_requests(
                request_with_prioritized_list(REQ0, sub_request(SUBREQ0, CLASS_B, 500), sub_request(SUBREQ1, CLASS_A, 1))
            )
        ],
        classes=[class_(CLASS_A, DRIVER_A), class_(CLASS_B, DRIVER_B)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0_SUBREQ1, DRIVER_A, POOL1, DEVICE1))],
    ),
    Case(
        "partitionable-devices-single-device",
        features=PART,
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, cdev(DEVICE1, (COUNTER_SET1, {"memory": "4Gi"}), capacity=None)
            ),
            counters_slice(SLICE2, resource_pool(POOL1, 2), (COUNTER_SET1, {"memory": "8Gi"})),
        ],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1))],
    ),
    Case(
        "partitionable-devices-prioritized-list",
        features=PART_PRIO,
        claims=[claim(CLAIM0).with_requests(request(REQ0, CLASS_A, 1), PRIO_6_4)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=THREE_PARTITIONS,
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1_SUBREQ1, DRIVER_A, POOL1, DEVICE3),
            )
        ],
    ),
    Case(
        "partitionable-devices-multiple-devices",
        features=PART,
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1), request(REQ1, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=THREE_PARTITIONS,
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE3),
            )
        ],
    ),
    Case(
        "partitionable-devices-multiple-capacity-pools",
        features=PART_PRIO,
        claims=[claim(CLAIM0).with_requests(request(REQ0, CLASS_A, 1), PRIO_6_4)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                cdev(DEVICE1, (COUNTER_SET1, {"memory": "4Gi"}), (COUNTER_SET2, {"cpus": "4"})),
                cdev(DEVICE2, (COUNTER_SET1, {"memory": "6Gi"}), (COUNTER_SET2, {"cpus": "6"})),
                cdev(DEVICE3, (COUNTER_SET1, {"memory": "4Gi"}), (COUNTER_SET2, {"cpus": "4"})),
            ),
            counters_slice(SLICE2, resource_pool(POOL1, 2), (COUNTER_SET1, {"memory": "18Gi"}), (COUNTER_SET2, {"cpus": "8"})),
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1_SUBREQ1, DRIVER_A, POOL1, DEVICE3),
            )
        ],
    ),
    Case(
        "partitionable-devices-multiple-counters",
        features=PART,
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1), request(REQ1, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                cdev(DEVICE1, (COUNTER_SET1, {"memory": "4Gi", "cpus": "6"}), (COUNTER_SET2, {"cpus": "4", "memory": "2Gi"})),
                cdev(DEVICE2, (COUNTER_SET1, {"memory": "6Gi", "cpus": "4"}), (COUNTER_SET2, {"cpus": "6", "memory": "6Gi"})),
                cdev(DEVICE3, (COUNTER_SET1, {"memory": "4Gi", "cpus": "4"}), (COUNTER_SET2, {"cpus": "4", "memory": "4Gi"})),
            ),
            counters_slice(
                SLICE2,
                resource_pool(POOL1, 2),
                (COUNTER_SET1, {"cpus": "8", "memory": "18Gi"}),
                (COUNTER_SET2, {"cpus": "12", "memory": "18Gi"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE3),
            )
        ],
    ),
    Case(
        "partitionable-devices-multiple-pools",
        features=PART,
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1), request(REQ1, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                cdev(DEVICE1, (COUNTER_SET1, {"cpus": "6", "memory": "4Gi"})),
                cdev(DEVICE2, (COUNTER_SET1, {"cpus": "4", "memory": "6Gi"})),
                cdev(DEVICE3, (COUNTER_SET1, {"cpus": "4", "memory": "4Gi"})),
            ),
            counters_slice(SLICE2, resource_pool(POOL1, 2), (COUNTER_SET1, {"cpus": "8", "memory": "18Gi"})),
            slice_with_devices(
                SLICE3,
                NODE1,
                resource_pool(POOL2, 2),
                DRIVER_A,
                cdev(DEVICE1, (COUNTER_SET1, {"cpus": "6", "memory": "4Gi"})),
                cdev(DEVICE2, (COUNTER_SET1, {"cpus": "1", "memory": "7Gi"})),
                cdev(DEVICE3, (COUNTER_SET1, {"cpus": "1", "memory": "7Gi"})),
            ),
            counters_slice(SLICE4, resource_pool(POOL2, 2), (COUNTER_SET1, {"cpus": "8", "memory": "18Gi"})),
        ],
        allocated_devices=[(DRIVER_A, POOL1, DEVICE2), (DRIVER_A, POOL1, DEVICE3), (DRIVER_A, POOL2, DEVICE1)],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE2),
                device_allocation_result(REQ1, DRIVER_A, POOL2, DEVICE3),
            )
        ],
    ),
    Case(
        "partitionable-devices-unused-counters-in-counter-set",
        features=PART,
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 2))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                cdev(DEVICE1, (COUNTER_SET1, {"memory": "5Gi"}), capacity=None),
                cdev(DEVICE2, (COUNTER_SET1, {"memory": "4Gi"}), capacity=None),
                cdev(DEVICE3, (COUNTER_SET1, {"memory": "4Gi"}), capacity=None),
            ),
            counters_slice(SLICE2, resource_pool(POOL1, 2), (COUNTER_SET1, {"memory": "8Gi", "unused": "1Gi"})),
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE3),
            )
        ],
    ),
]
