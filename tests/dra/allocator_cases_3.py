"""Upstream allocator table, part 3 (allocator_testing.go: "admin-access-enabled" ... "too-many-devices-total")."""

from __future__ import annotations

import copy

from .builders import (
    CLAIM0,
    CLASS_A,
    CLASS_B,
    DEVICE0,
    DEVICE1,
    DEVICE2,
    DEVICE3,
    DRIVER_A,
    DRIVER_B,
    NODE1,
    POOL1,
    REGION1,
    REQ0,
    REQ1,
    REQ2,
    SLICE1,
    SLICE2,
    Case,
    allocation_result,
    allocation_result_with_configs,
    attributes,
    claim_with_device_config,
    claim_with_request,
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
    selector,
    slice_with_devices,
    slice_with_multiple_devices,
    slice_with_one_device,
)

NON_EXISTENT = f"{DRIVER_A}/NonExistentAttribute"
BOOL_ATTR = f"{DRIVER_A}/boolAttribute"
STRING_ATTR = f"{DRIVER_A}/stringAttribute"
VERSION_ATTR = f"{DRIVER_A}/driverVersion"
INT_ATTR = f"{DRIVER_A}/numa"
CLASSES_AB = [class_(CLASS_A, DRIVER_A), class_(CLASS_B, DRIVER_B)]
FULL_ATTRS = attributes(driverVersion=("version", "1.0.0"), numa=1, stringAttribute="stringAttributeValue", boolAttribute=True)


def _two(attr_name: str, v1, v2):
    return slice_with_devices(
        SLICE1,
        NODE1,
        POOL1,
        DRIVER_A,
        device(DEVICE1, None, attributes(**{attr_name: v1})),
        device(DEVICE2, None, attributes(**{attr_name: v2})),
    )


def _claim_mod(fn):
    c = claim_with_request(CLAIM0, REQ0, CLASS_A)
    raw = copy.deepcopy(c.raw)
    fn(raw["spec"]["devices"])
    c.raw = raw
    return c


def _req0(devices: dict) -> dict:
    return devices["requests"][0]["exactly"]


def _class_expr(expr: str):
    return class_(CLASS_A, DRIVER_A, expression=expr)


def _claim_selector(expr: str, **extra):
    def fn(devices):
        _req0(devices)["selectors"] = [selector(expr)]
        _req0(devices).update(extra)

    return _claim_mod(fn)


CASES = [
    Case(
        "admin-access-enabled",
        features=frozenset({"AdminAccess"}),
        claims=[_claim_mod(lambda d: _req0(d).update(adminAccess=True))],
        allocated_devices=[(DRIVER_A, POOL1, DEVICE1), (DRIVER_A, POOL1, DEVICE2)],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=[allocation_result(local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True))],
    ),
    Case(
        "with-constraint",
        claims=[
            claim_with_requests(
                CLAIM0,
                [match_attribute(INT_ATTR), match_attribute(VERSION_ATTR), match_attribute(STRING_ATTR), match_attribute(BOOL_ATTR)],
                request(REQ0, CLASS_A, 1),
                request(REQ1, CLASS_A, 1),
            )
        ],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, None, FULL_ATTRS), device(DEVICE2, None, FULL_ATTRS))],
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
        "with-constraint-non-existent-attribute",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A, match_attribute(NON_EXISTENT))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "with-constraint-not-matching-int-attribute",
        claims=[claim_with_requests(CLAIM0, [match_attribute(INT_ATTR)], request(REQ0, CLASS_A, 2))],
        classes=CLASSES_AB,
        slices=[_two("numa", 1, 2)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "with-constraint-not-matching-int-attribute-all-devices",
        claims=[claim_with_requests(CLAIM0, [match_attribute(INT_ATTR)], request(REQ0, CLASS_A, 0, allocationMode="All"))],
        classes=CLASSES_AB,
        slices=[_two("numa", 1, 2)],
        node=node(NODE1, REGION1),
        error="claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied",
    ),
    Case(
        "with-constraint-not-matching-string-attribute",
        claims=[claim_with_requests(CLAIM0, [match_attribute(STRING_ATTR)], request(REQ0, CLASS_A, 2))],
        classes=CLASSES_AB,
        slices=[_two("stringAttribute", "stringAttributeValue", "stringAttributeValue2")],
        node=node(NODE1, REGION1),
    ),
    Case(
        "with-constraint-not-matching-bool-attribute",
        claims=[claim_with_requests(CLAIM0, [match_attribute(BOOL_ATTR)], request(REQ0, CLASS_A, 2))],
        classes=CLASSES_AB,
        slices=[_two("boolAttribute", True, False)],
        node=node(NODE1, REGION1),
    ),
    Case(
        "with-constraint-not-matching-version-attribute",
        claims=[claim_with_requests(CLAIM0, [match_attribute(VERSION_ATTR)], request(REQ0, CLASS_A, 2))],
        classes=CLASSES_AB,
        slices=[_two("driverVersion", ("version", "1.0.0"), ("version", "2.0.0"))],
        node=node(NODE1, REGION1),
    ),
    Case(
        "with-constraint-for-request",
        claims=[claim_with_requests(CLAIM0, [match_attribute(VERSION_ATTR, REQ0)], request(REQ0, CLASS_A, 1), request(REQ1, CLASS_A, 1))],
        classes=CLASSES_AB,
        slices=[_two("driverVersion", ("version", "1.0.0"), ("version", "2.0.0"))],
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
        "with-constraint-for-request-retry",
        claims=[
            claim_with_requests(
                CLAIM0,
                [match_attribute(VERSION_ATTR, REQ0), match_attribute(STRING_ATTR)],
                request(REQ0, CLASS_A, 1),
                request(REQ1, CLASS_A, 1),
            )
        ],
        classes=CLASSES_AB,
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, None, attributes(driverVersion=("version", "1.0.0"), stringAttribute="a")),
                device(DEVICE2, None, attributes(driverVersion=("version", "2.0.0"), stringAttribute="b")),
                device(DEVICE3, None, attributes(driverVersion=("version", "3.0.0"), stringAttribute="b")),
            )
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
        "with-class-device-config",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_with_config(CLASS_A, DRIVER_A, "classAttribute")],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result_with_configs(
                local_node_selector(NODE1),
                [device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1)],
                [{"source": "FromClass", "requests": [REQ0], **device_configuration(DRIVER_A, "classAttribute")}],
            )
        ],
    ),
    Case(
        "with-class-device-config-with-multiple-request-and-configs",
        claims=[claim_with_requests(CLAIM0, [], request(REQ0, CLASS_A, 1), request(REQ1, CLASS_A, 1), request(REQ2, CLASS_B, 1))],
        classes=[class_with_config(CLASS_A, DRIVER_A, "classAttribute-A"), class_with_config(CLASS_B, DRIVER_B, "classAttribute-B")],
        slices=[slice_with_multiple_devices(SLICE1, NODE1, POOL1, DRIVER_A, 2), slice_with_one_device(SLICE2, NODE1, POOL1, DRIVER_B)],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result_with_configs(
                local_node_selector(NODE1),
                [
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE0),
                    device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE1),
                    device_allocation_result(REQ2, DRIVER_B, POOL1, DEVICE1),
                ],
                [
                    {"source": "FromClass", "requests": [REQ0, REQ1], **device_configuration(DRIVER_A, "classAttribute-A")},
                    {"source": "FromClass", "requests": [REQ2], **device_configuration(DRIVER_B, "classAttribute-B")},
                ],
            )
        ],
    ),
    Case(
        "claim-with-device-config",
        claims=[claim_with_device_config(CLAIM0, REQ0, CLASS_A, DRIVER_A, "deviceAttribute")],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect=[
            allocation_result_with_configs(
                local_node_selector(NODE1),
                [device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1)],
                [{"source": "FromClaim", **device_configuration(DRIVER_A, "deviceAttribute")}],
            )
        ],
    ),
    Case(
        "unknown-selector",
        claims=[_claim_mod(lambda d: _req0(d).update(selectors=[{}]))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="CEL expression empty (unsupported selector type?)",
    ),
    Case(
        "unknown-allocation-mode",
        claims=[_claim_mod(lambda d: _req0(d).update(allocationMode="future-mode"))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="unsupported count mode future-mode",
    ),
    Case(
        "unknown-constraint",
        claims=[_claim_mod(lambda d: d.update(constraints=[{}]))],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="empty constraint (unsupported constraint type?)",
    ),
    Case(
        "invalid-CEL-one-device",
        claims=[_claim_selector("noSuchVar")],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="undeclared reference",
    ),
    Case(
        "invalid-CEL-one-device-class",
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[_class_expr("noSuchVar")],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="undeclared reference",
    ),
    Case(
        "invalid-CEL-all-devices",
        claims=[_claim_selector("noSuchVar", allocationMode="All")],
        classes=[class_(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        error="undeclared reference",
    ),
    Case(
        "too-many-devices-single-request",
        claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 500))],
        classes=[class_(CLASS_A, DRIVER_A)],
        error="exceeds the claim limit",
    ),
    Case("many-devices-okay", claims=[claim_with_requests(CLAIM0, None, request(REQ0, CLASS_A, 32))], classes=[class_(CLASS_A, DRIVER_A)]),
]
