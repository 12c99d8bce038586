"""Upstream allocator table, part 6 (allocator_testing.go: "partitionable-devices-no-capacity-available" ...
"tainted-prioritized-list-disabled")."""

from __future__ import annotations

from .allocator_cases_4 import mem
from .allocator_cases_5 import PART, PART_PRIO, cdev, counters_slice
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
    NODE1,
    NODE2,
    NODE_SELECTION_ALL,
    NODE_SELECTION_PER_DEVICE,
    POOL1,
    POOL2,
    REGION1,
    REQ0,
    REQ0_SUBREQ1,
    REQ1,
    SLICE1,
    SLICE2,
    SLICE3,
    SLICE4,
    SUBREQ0,
    SUBREQ1,
    Case,
    allocation_result,
    claim,
    claim_with_request,
    claim_with_requests,
    class_,
    counter_set,
    device,
    device_allocation_result,
    local_node_selector,
    node,
    node_label_selector,
    request,
    request_with_prioritized_list,
    resource_pool,
    slice_with_counter_sets,
    slice_with_devices,
    sub_request,
)

TAINT_NONE = {"key": "taint-key", "value": "taint-value", "effect": "None"}
TAINT_NO_SCHEDULE = {"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}
TAINT_NO_EXECUTE = {"key": "taint-key", "value": "taint-value-2", "effect": "NoExecute"}
TOLERATION_NO_SCHEDULE = {"operator": "Exists", "key": "taint-key", "effect": "NoSchedule"}
TOLERATION_NO_EXECUTE = {"operator": "Equal", "key": "taint-key", "value": "taint-value-2", "effect": "NoExecute"}
TAINTS = frozenset({"DeviceTaints"})
CLASSES_AB = [class_(CLASS_A, DRIVER_A), class_(CLASS_B, DRIVER_B)]


def _per_device(name, pool, driver, *devices):
    return slice_with_devices(name, NODE_SELECTION_PER_DEVICE, pool, driver, *devices)


def _counters_per_device(name, pool, *sets):
    return slice_with_counter_sets(name, NODE_SELECTION_PER_DEVICE, pool, DRIVER_A, *(counter_set(s, c) for s, c in sets))


def _tainted(*devices):
    return [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, *devices)]


PRIO_B_THEN_A = request_with_prioritized_list(REQ0, sub_request(SUBREQ0, CLASS_B, 1), sub_request(SUBREQ1, CLASS_A, 1))

CASES = [
    Case(
        "partitionable-devices-no-capacity-available",
        features=PART,
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                cdev(DEVICE1, (COUNTER_SET1, {"memory": "4Gi"})),
                cdev(DEVICE2, (COUNTER_SET1, {"memory": "16Gi"})),
            ),
            counters_slice(SLICE2, POOL1, (COUNTER_SET1, {"memory": "18Gi"})),
        ],
        allocated_devices=[(DRIVER_A, POOL1, DEVICE2)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "partitionable-devices-overallocated-capacity-pool",
        features=PART,
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                cdev(DEVICE1, (COUNTER_SET1, {"memory": "4Gi"})),
                cdev(DEVICE2, (COUNTER_SET1, {"memory": "20Gi"})),
            ),
            counters_slice(SLICE2, POOL1, (COUNTER_SET1, {"memory": "18Gi"})),
        ],
        allocated_devices=[(DRIVER_A, POOL1, DEVICE2)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "partitionable-devices-disabled-device-consumes-counters",
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, cdev(DEVICE1, (COUNTER_SET1, {"memory": "4Gi"}), capacity=None)),
            counters_slice(SLICE2, POOL1, (COUNTER_SET1, {"memory": "18Gi"})),
        ],
        node=node(NODE1, REGION1),
    ),
    Case(
        "partitionable-devices-disabled-other-device-do-not-consume-counters",
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                cdev(DEVICE1, (COUNTER_SET1, {"memory": "4Gi"}), capacity=None),
                device(DEVICE2),
            ),
            counters_slice(SLICE2, resource_pool(POOL1, 2), (COUNTER_SET1, {"memory": "18Gi"})),
        ],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2))],
    ),
    Case(
        "partitionable-devices-disabled-per-device-node-selection",
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[_per_device(SLICE1, POOL1, DRIVER_A, device(DEVICE2).with_node_selection(NODE1))],
        node=node(NODE1, REGION1),
    ),
    Case(
        "partitionable-devices-per-device-node-selection-nodename",
        features=PART_PRIO,
        claims=[
            claim(CLAIM0).with_requests(
                request_with_prioritized_list(
                    REQ0, sub_request(SUBREQ0, CLASS_A, 1, mem("6Gi")), sub_request(SUBREQ1, CLASS_A, 1, mem("4Gi"))
                )
            )
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            _per_device(
                SLICE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                cdev(DEVICE1, (COUNTER_SET1, {"memory": "4Gi"})).with_node_selection(NODE1),
                cdev(DEVICE2, (COUNTER_SET1, {"memory": "6Gi"})).with_node_selection(NODE2),
            ),
            _counters_per_device(SLICE2, resource_pool(POOL1, 2), (COUNTER_SET1, {"memory": "18Gi"})),
        ],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0_SUBREQ1, DRIVER_A, POOL1, DEVICE1))],
    ),
    Case(
        "partitionable-devices-per-device-node-selection-node-selector",
        features=PART_PRIO,
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 1))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[
            _per_device(
                SLICE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                cdev(DEVICE1, (COUNTER_SET1, {"memory": "4Gi"})).with_node_selection(node_label_selector("region", REGION1)),
            ),
            _counters_per_device(SLICE2, resource_pool(POOL1, 2), (COUNTER_SET1, {"memory": "18Gi"})),
        ],
        node=node(NODE1, REGION1),
        expect=[allocation_result(node_label_selector("region", REGION1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1))],
    ),
    Case(
        "partitionable-devices-per-device-node-selection-node-selector-multiple-devices",
        features=PART_PRIO,
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 3), request(REQ1, CLASS_B, 3))],
        classes=CLASSES_AB,
        slices=[
            _per_device(
                SLICE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                cdev(DEVICE1, (COUNTER_SET1, {"memory": "4Gi"})).with_node_selection(node_label_selector("region", REGION1)),
                cdev(DEVICE2, (COUNTER_SET1, {"memory": "4Gi"})).with_node_selection(NODE1),
                cdev(DEVICE3, (COUNTER_SET1, {"memory": "4Gi"})).with_node_selection(NODE_SELECTION_ALL),
            ),
            _counters_per_device(SLICE2, resource_pool(POOL1, 2), (COUNTER_SET1, {"memory": "18Gi"})),
            slice_with_devices(
                SLICE3,
                NODE1,
                resource_pool(POOL2, 2),
                DRIVER_B,
                *(cdev(d, (COUNTER_SET2, {"memory": "4Gi"})) for d in (DEVICE1, DEVICE2, DEVICE3)),
            ),
            slice_with_counter_sets(SLICE4, NODE1, resource_pool(POOL2, 2), DRIVER_B, counter_set(COUNTER_SET2, {"memory": "12Gi"})),
        ],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                *(device_allocation_result(REQ0, DRIVER_A, POOL1, d) for d in (DEVICE1, DEVICE2, DEVICE3)),
                *(device_allocation_result(REQ1, DRIVER_B, POOL2, d) for d in (DEVICE1, DEVICE2, DEVICE3)),
            )
        ],
    ),
    Case(
        "tainted-two-devices",
        features=TAINTS,
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=_tainted(device(DEVICE1).with_taints(TAINT_NO_SCHEDULE), device(DEVICE2).with_taints(TAINT_NO_EXECUTE)),
        node=node(NODE1, REGION1),
    ),
    Case(
        "tainted-one-device-two-taints",
        features=TAINTS,
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=_tainted(device(DEVICE1).with_taints(TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE)),
        node=node(NODE1, REGION1),
    ),
    Case(
        "tainted-two-devices-tolerated",
        features=TAINTS,
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A).with_tolerations(TOLERATION_NO_EXECUTE)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=_tainted(device(DEVICE1).with_taints(TAINT_NO_SCHEDULE), device(DEVICE2).with_taints(TAINT_NO_EXECUTE)),
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2, False, TOLERATION_NO_EXECUTE)
            )
        ],
    ),
    Case(
        "tainted-two-devices-prioritized-list-tolerated",
        features=TAINTS | {"PrioritizedList"},
        claims=[
            claim(CLAIM0).with_requests(
                request_with_prioritized_list(
                    REQ0, sub_request(SUBREQ0, CLASS_A, 1), sub_request(SUBREQ1, CLASS_A, 1, TOLERATION_NO_EXECUTE)
                )
            )
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=_tainted(device(DEVICE1).with_taints(TAINT_NO_SCHEDULE), device(DEVICE2).with_taints(TAINT_NO_EXECUTE)),
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1), device_allocation_result(REQ0_SUBREQ1, DRIVER_A, POOL1, DEVICE2, False, TOLERATION_NO_EXECUTE)
            )
        ],
    ),
    Case(
        "tainted-no-effect",
        features=TAINTS,
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=_tainted(device(DEVICE1).with_taints(TAINT_NONE)),
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1))],
    ),
    Case(
        "tainted-one-device-two-taints-both-tolerated",
        features=TAINTS,
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A).with_tolerations(TOLERATION_NO_SCHEDULE, TOLERATION_NO_EXECUTE)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=_tainted(device(DEVICE1).with_taints(TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE)),
        node=node(NODE1, REGION1),
        expect=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, False, TOLERATION_NO_SCHEDULE, TOLERATION_NO_EXECUTE),
            )
        ],
    ),
    Case(
        "tainted-disabled",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=_tainted(device(DEVICE1).with_taints(TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE)),
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1))],
    ),
    Case(
        "tainted-prioritized-list",
        features=TAINTS | {"PrioritizedList"},
        claims=[claim(CLAIM0).with_requests(PRIO_B_THEN_A)],
        classes=CLASSES_AB,
        slices=_tainted(device(DEVICE1).with_taints(TAINT_NO_SCHEDULE)),
        node=node(NODE1, REGION1),
    ),
    Case(
        "tainted-prioritized-list-disabled",
        features=frozenset({"PrioritizedList"}),
        claims=[claim(CLAIM0).with_requests(PRIO_B_THEN_A)],
        classes=CLASSES_AB,
        slices=_tainted(device(DEVICE1).with_taints(TAINT_NO_SCHEDULE)),
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0_SUBREQ1, DRIVER_A, POOL1, DEVICE1))],
    ),
]
