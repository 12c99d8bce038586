"""Upstream's DynamicResources plugin tests, translated case by case
(pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go: TestPlugin,
TestIsSchedulableAfterClaimChange, TestIsSchedulableAfterPodChange, Test_computesScore).

Every TestPlugin case runs with its own feature gates (as upstream's feature.Features: the DRA
gates off unless the case turns them on) under each emulated release (the allocator's non-gate
behaviour follows the release). Statuses are compared by code and message as kube 1.35.4's code
produces them (upstream's own check only looks for the expected text in the error); stored
claims are compared on what upstream compares (finalizers, allocation without the device name,
reservedFor).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kschedctl.api.resourceclaim import AllocationResult, DeviceRequestAllocationResult, ResourceClaim
from kschedctl.framework.interface import QueueingHint
from kschedctl.plugins.dynamic_resources import compute_score

from .plugin_harness import (
    ATTR,
    CLAIM,
    CLAIM2,
    CLASS,
    DRIVER,
    DRIVER2,
    EXTENDED,
    EXTENDED2,
    FINALIZER,
    IMPLICIT,
    NODE,
    NODE2,
    NODE3,
    NOW,
    POD_UID,
    RESOURCE,
    RESOURCE2,
    Case,
    admin_access,
    allocated,
    claim,
    dev,
    device_class,
    node,
    pending,
    pod,
    pod_with_claim_name,
    pod_with_claim_template,
    pod_with_two_claim_names,
    prioritized,
    request,
    result,
    run_case,
    slice_,
)

RELEASES = ("1.35", "1.36", "1.37")
UU = "UnschedulableAndUnresolvable"
U = "Unschedulable"
E = "Error"
WORKER_SLICE = slice_(NODE, DRIVER, dev("instance-1"))
LARGE_SLICE = slice_(NODE, DRIVER, dev("instance-1"), dev("instance-2"), dev("instance-3"), dev("instance-4"))
BROKEN = f'device.attributes["{DRIVER}"].{ATTR}'
FABRIC = slice_(
    NODE,
    DRIVER,
    {**dev("instance-1"), "bindsToNode": True, "bindingConditions": ["condition"], "bindingFailureConditions": ["failed"]},
    nodeSelector={"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE]}]}]},
)
BINDING = {"dra_device_binding_conditions": True, "dra_resource_claim_device_status": True}


def stamp(seconds: float) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def with_binding(
    raw: dict,
    conditions: dict[str, str] | None,
    timestamp: float | None = None,
    name: str = CLAIM,
    driver: str = DRIVER,
    device: str = "instance-1",
    req: str = "req-1",
) -> dict:
    """allocationResultWithBindingConditions, AllocatedDeviceStatuses(...)."""
    raw = allocated(raw, result(req, device, driver, bindingConditions=["condition"], bindingFailureConditions=["failed"]))
    if timestamp is not None:
        raw["status"]["allocation"]["allocationTimestamp"] = stamp(timestamp)
    if conditions is not None:
        raw["status"]["devices"] = [
            {"driver": driver, "pool": NODE, "device": device, "conditions": [{"type": t, "status": s} for t, s in conditions.items()]}
        ]
    return raw


def breakCELInClaim(raw: dict) -> dict:  # noqa: N802 - upstream's helper name
    raw = copy.deepcopy(raw)
    for r in raw["spec"]["devices"]["requests"]:
        r["exactly"]["selectors"] = [{"cel": {"expression": BROKEN}}]
    return raw


def taint_devices(raw: dict) -> dict:
    raw = copy.deepcopy(raw)
    for d in raw["spec"]["devices"]:
        d["taints"] = [{"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}]
    return raw


def view(raw: dict | None) -> dict | None:
    """What upstream compares of a stored claim (device names ignored, as its cmp options do)."""
    if raw is None:
        return None
    status = raw.get("status") or {}
    alloc = status.get("allocation")
    return {
        "finalizers": raw["metadata"].get("finalizers") or [],
        "allocation": None
        if alloc is None
        else sorted((r["request"], r["driver"], r["pool"], bool(r.get("adminAccess"))) for r in alloc["devices"]["results"]),
        "reservedFor": [r["uid"] for r in status.get("reservedFor") or []],
    }


def in_use(requests: list[str] | None = None, admin: bool = False, driver: str = DRIVER) -> dict:
    return {"finalizers": [FINALIZER], "allocation": [(r, driver, NODE, admin) for r in (requests or ["req-1"])], "reservedFor": [POD_UID]}


OTHER_CLAIM = claim("not-my-claim")
OTHER_ALLOCATED = allocated(OTHER_CLAIM)
ALLOCATED = allocated(pending())
LARGE_CLAIM = claim(CLAIM, *(request(f"req-{i}") for i in range(1, 6)))
PRIO_CLAIM = claim(CLAIM, prioritized("req-1", ("subreq-1", CLASS, 1, None)), owned=True)
PRIO_SELECTOR_CLAIM = claim(CLAIM, prioritized("req-1", ("subreq-1", CLASS, 1, BROKEN), ("subreq-2", CLASS, 1, None)), owned=True)
PRIO_MULTI_CLAIM2 = claim(CLAIM2, prioritized("req-1", *((f"subreq-{i}", CLASS, 5 - i, None) for i in range(1, 5))), owned=True)
PRIO_TWO_REQUESTS = claim(
    CLAIM,
    prioritized("req-1", ("subreq-1", CLASS, 2, None), ("subreq-2", CLASS, 1, None)),
    prioritized("req-2", ("subreq-1", CLASS, 2, None), ("subreq-2", CLASS, 1, None)),
    owned=True,
)
EXT_CLASS = device_class(CLASS, EXTENDED)
EXT_CLASS2 = device_class(CLASS + "2", EXTENDED2)
WITH_TOPOLOGY_BAD = allocated(
    pending(),
    selector={"nodeSelectorTerms": [{"matchExpressions": [{"key": "no-such-label", "operator": "In", "values": ["no-such-value"]}]}]},
)
WITH_TOPOLOGY_GOOD = allocated(
    pending(),
    selector={"nodeSelectorTerms": [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [NODE]}]}]},
)


def ext_claim(requests: list[dict], results: list[dict], node_name: str = NODE, name: str = "my-pod-extended-resources-0"):
    raw = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": name,
            "namespace": "default",
            "generateName": "my-pod-extended-resources-",
            "annotations": {"resource.kubernetes.io/extended-resource-claim": "true"},
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "my-pod", "uid": POD_UID, "controller": True}],
        },
        "spec": {"devices": {"requests": requests}},
    }
    return allocated(
        raw,
        *results,
        selector={"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]},
    )


CASES = [
    # (upstream also lists a PostFilter status for "empty", "empty-with-extended-resources-enabled"
    # and "DRA-disabled", which its driver never reaches: the node passes Filter.)
    Case("empty", pod(), want={"prefilter": ("Skip", ""), "prebindPreFlight": ("Skip", "")}),
    Case(
        "empty-with-extended-resources-enabled",
        pod(),
        gates={"dra_extended_resource": True},
        want={"prefilter": ("Skip", ""), "prebindPreFlight": ("Skip", "")},
    ),
    Case(
        "claim-reference",
        pod_with_claim_name(),
        claims=[ALLOCATED, OTHER_CLAIM],
        want={"prebind": None, "claims:prebind": {CLAIM: {**in_use(), "reservedFor": [POD_UID]}}},
    ),
    Case(
        "claim-template",
        pod_with_claim_template(),
        claims=[ALLOCATED, OTHER_CLAIM],
        want={"prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "missing-claim",
        pod_with_claim_template(in_status=False),
        claims=[ALLOCATED, OTHER_CLAIM],
        want={"preenqueue": (UU, 'pod "default/my-pod": ResourceClaim not created yet')},
    ),
    Case(
        "deleted-claim",
        pod_with_claim_template(),
        claims=[{**ALLOCATED, "metadata": {**ALLOCATED["metadata"], "deletionTimestamp": "2025-01-01T00:00:00Z"}}],
        want={"preenqueue": (UU, 'resourceclaim "my-pod-my-resource" is being deleted')},
    ),
    Case(
        "wrong-claim",
        pod_with_claim_template(),
        claims=[
            {
                **ALLOCATED,
                "metadata": {
                    **ALLOCATED["metadata"],
                    "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "my-pod", "uid": POD_UID + "123", "controller": True}],
                },
            }
        ],
        want={"preenqueue": (UU, "ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod (pod is not owner)")},
    ),
    Case(
        "no-resources",
        pod_with_claim_name(),
        claims=[pending()],
        classes=[device_class()],
        want={"filter": {NODE: (UU, "cannot allocate all claims")}, "postfilter": (U, "still not schedulable")},
    ),
    Case(
        "with-resources",
        pod_with_claim_name(),
        claims=[pending()],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        want={"in_flight": [CLAIM], "prebindPreFlight": None, "prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "with-resources-has-finalizer",
        pod_with_claim_name(),
        claims=[{**pending(), "metadata": {**pending()["metadata"], "finalizers": [FINALIZER]}}],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        want={"in_flight": [CLAIM], "prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "with-resources-finalizer-gets-removed",
        pod_with_claim_name(),
        claims=[{**pending(), "metadata": {**pending()["metadata"], "finalizers": [FINALIZER]}}],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        prepare_prebind=lambda raw: raw["metadata"].pop("finalizers", None),
        want={"in_flight": [CLAIM], "prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "with-resources-finalizer-gets-added",
        pod_with_claim_name(),
        claims=[pending()],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        prepare_prebind=lambda raw: raw["metadata"].__setitem__("finalizers", [FINALIZER]),
        want={"in_flight": [CLAIM], "prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "skip-bind",
        pod_with_claim_name(),
        claims=[pending()],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        unreserve_before_prebind=True,
        want={
            "reserve": None,
            "in_flight": [],
            "claims:unreserveBeforePreBind": {CLAIM: {"finalizers": [], "allocation": None, "reservedFor": []}},
        },
    ),
    Case(
        "exhausted-resources",
        pod_with_claim_name(),
        claims=[pending(), OTHER_ALLOCATED],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        want={"filter": {NODE: (UU, "cannot allocate all claims")}, "postfilter": (U, "still not schedulable")},
    ),
    Case(
        "tainted-device-disabled",
        pod_with_claim_name(),
        claims=[pending()],
        classes=[device_class()],
        slices=[taint_devices(WORKER_SLICE)],
        want={"in_flight": [CLAIM], "prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "tainted-device-enabled",
        pod_with_claim_name(),
        claims=[pending()],
        classes=[device_class()],
        slices=[taint_devices(WORKER_SLICE)],
        gates={"dra_device_taints": True},
        want={"filter": {NODE: (UU, "cannot allocate all claims")}, "postfilter": (U, "still not schedulable")},
    ),
    Case(
        "request-admin-access-with-DRAAdminAccess-featuregate",
        pod_with_claim_name(),
        claims=[admin_access(pending()), OTHER_ALLOCATED],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        gates={"dra_admin_access": True},
        want={"in_flight": [CLAIM], "prebind": None, "claims:prebind": {CLAIM: in_use(admin=True)}},
    ),
    Case(
        "request-admin-access-without-DRAAdminAccess-featuregate",
        pod_with_claim_name(),
        claims=[admin_access(pending()), OTHER_ALLOCATED],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        want={
            "filter": {NODE: (E, "claim default/my-pod-my-resource, request req-1: admin access is requested, but the feature is disabled")}
        },
    ),
    Case(
        "structured-ignore-allocated-admin-access",
        pod_with_claim_name(),
        claims=[pending(), admin_access(OTHER_ALLOCATED)],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        want={"in_flight": [CLAIM], "prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "claim-parameters-CEL-runtime-error",
        pod_with_claim_name(),
        claims=[breakCELInClaim(pending())],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        want={"filter": {NODE: (E, "claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: healthy")}},
    ),
    Case(
        "class-parameters-CEL-runtime-error",
        pod_with_claim_name(),
        claims=[pending()],
        classes=[device_class(selectors=[BROKEN])],
        slices=[WORKER_SLICE],
        want={"filter": {NODE: (E, "class my-resource-class: selector #0: CEL runtime error: no such key: healthy")}},
    ),
    Case(
        "CEL-runtime-error-for-one-of-two-nodes",
        pod_with_claim_name(),
        nodes=[node(NODE), node(NODE2)],
        claims=[breakCELInClaim(pending())],
        classes=[device_class()],
        slices=[WORKER_SLICE, slice_(NODE2, DRIVER, dev("instance-1", healthy=True))],
        want={"filter": {NODE: (E, "claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: healthy")}},
    ),
    Case(
        "missing-class",
        pod_with_claim_name(),
        claims=[pending()],
        want={
            "prefilter": (UU, "request req-1: device class my-resource-class does not exist"),
            "postfilter": (U, "no new claims to deallocate"),
        },
    ),
    Case(
        "wrong-topology",
        pod_with_claim_name(),
        claims=[WITH_TOPOLOGY_BAD],
        want={
            "filter": {NODE: (UU, "resourceclaim not available on the node")},
            "postfilter": (U, "deallocation of ResourceClaim completed"),
            "claims:postfilter": {CLAIM: {"finalizers": [FINALIZER], "allocation": None, "reservedFor": []}},
        },
    ),
    Case("good-topology", pod_with_claim_name(), claims=[WITH_TOPOLOGY_GOOD], want={"prebind": None, "claims:prebind": {CLAIM: in_use()}}),
    Case(
        "bind-failure",
        pod_with_claim_name(),
        claims=[WITH_TOPOLOGY_GOOD],
        unreserve_after_bind_failure=True,
        want={"prebind": None, "claims:unreserveAfterBindFailure": {CLAIM: {**in_use(), "reservedFor": []}}},
    ),
    Case(
        "reserved-okay",
        pod_with_claim_name(),
        claims=[allocated(pending(), reserved=True)],
        want={"prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "DRA-disabled",
        pod_with_claim_name(),
        claims=[allocated(pending(), reserved=True)],
        gates={"dynamic_resource_allocation": False},
        want={"prefilter": ("Skip", ""), "prebindPreFlight": ("Skip", "")},
    ),
    Case(
        "claim-with-request-with-unknown-device-class",
        pod_with_claim_name(),
        claims=[claim(CLAIM, request(class_name="does-not-exist"))],
        want={
            "prefilter": (UU, "request req-1: device class does-not-exist does not exist"),
            "postfilter": (U, "no new claims to deallocate"),
        },
    ),
    Case(
        "claim-with-prioritized-list-feature-disabled",
        pod_with_claim_name(),
        claims=[claim(CLAIM, prioritized("req-1", ("subreq-1", CLASS, 1, None)))],
        classes=[device_class()],
        want={
            "prefilter": (
                UU,
                "resource claim default/my-pod-my-resource, request req-1: has subrequests, but the DRAPrioritizedList feature is disabled",
            ),
            "postfilter": (U, "no new claims to deallocate"),
        },
    ),
    Case(
        "claim-with-prioritized-list-unknown-device-class",
        pod_with_claim_name(),
        claims=[claim(CLAIM, prioritized("req-1", ("subreq-1", "does-not-exist", 1, None)))],
        gates={"dra_prioritized_list": True},
        want={
            "prefilter": (UU, "request req-1/subreq-1: device class does-not-exist does not exist"),
            "postfilter": (U, "no new claims to deallocate"),
        },
    ),
    Case(
        "claim-with-prioritized-list",
        pod_with_claim_name(),
        claims=[PRIO_CLAIM],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        gates={"dra_prioritized_list": True},
        want={"in_flight": [CLAIM], "prebind": None, "claims:prebind": {CLAIM: in_use(["req-1/subreq-1"])}},
    ),
    # --- extended resources backed by DRA -----------------------------------------------------
    Case(
        "extended-resource-name-with-node-resource",
        pod(requests=[{EXTENDED: "1"}]),
        nodes=[node(NODE, {EXTENDED: "1"})],
        classes=[EXT_CLASS],
        gates={"dra_extended_resource": True, **BINDING},
        want={"prefilter": None, "filter": {NODE: None}, "prebind": None, "created": []},
    ),
    Case(
        "extended-resource-one-device-plugin-one-dra",
        pod(requests=[{EXTENDED: "1", EXTENDED2: "1"}]),
        nodes=[node(NODE, {EXTENDED: "1"})],
        classes=[EXT_CLASS, EXT_CLASS2],
        slices=[WORKER_SLICE],
        gates={"dra_extended_resource": True, **BINDING},
        want={
            "in_flight": ["<extended-resources>"],
            "prebind": None,
            "extended": {"requests": [("container-0-request-1", CLASS + "2", 1)], "mappings": [("c0", EXTENDED2, "container-0-request-1")]},
        },
    ),
    Case(
        "extended-resource-name-with-zero-allocatable",
        pod(requests=[{EXTENDED: "1"}]),
        nodes=[node(NODE, {EXTENDED: "0"})],
        classes=[EXT_CLASS],
        slices=[WORKER_SLICE],
        gates={"dra_extended_resource": True},
        want={
            "in_flight": ["<extended-resources>"],
            "prebind": None,
            "extended": {"requests": [("container-0-request-0", CLASS, 1)], "mappings": [("c0", EXTENDED, "container-0-request-0")]},
        },
    ),
    Case(
        "non-DRA-extended-resource-name-with-zero-allocatable",
        pod(requests=[{EXTENDED: "1"}]),
        nodes=[node(NODE, {EXTENDED: "0"})],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        gates={"dra_extended_resource": True},
        want={"prefilter": ("Skip", ""), "prebindPreFlight": ("Skip", "")},
    ),
    Case(
        "extended-resource-name-no-resource",
        pod(requests=[{EXTENDED: "1"}]),
        classes=[EXT_CLASS],
        gates={"dra_extended_resource": True},
        want={"filter": {NODE: (UU, "cannot allocate all claims")}, "postfilter": (U, "still not schedulable"), "created": []},
    ),
    Case(
        "extended-resource-name-with-resources",
        pod(requests=[{EXTENDED: "1"}]),
        classes=[EXT_CLASS],
        slices=[WORKER_SLICE],
        gates={"dra_extended_resource": True},
        want={
            "in_flight": ["<extended-resources>"],
            "prebind": None,
            "extended": {"requests": [("container-0-request-0", CLASS, 1)], "mappings": [("c0", EXTENDED, "container-0-request-0")]},
        },
    ),
    Case(
        "implicit-extended-resource-name-with-resources",
        pod(requests=[{IMPLICIT: "1", EXTENDED: "2"}]),
        classes=[EXT_CLASS],
        slices=[LARGE_SLICE],
        gates={"dra_extended_resource": True},
        want={
            "prebind": None,
            "extended": {
                "requests": [("container-0-request-0", CLASS, 1), ("container-0-request-1", CLASS, 2)],
                "mappings": [("c0", IMPLICIT, "container-0-request-0"), ("c0", EXTENDED, "container-0-request-1")],
            },
        },
    ),
    Case(
        "implicit-extended-resource-name-two-containers-with-resources",
        pod(requests=[{IMPLICIT: "1"}, {EXTENDED: "2"}]),
        classes=[EXT_CLASS],
        slices=[LARGE_SLICE],
        gates={"dra_extended_resource": True},
        want={
            "prebind": None,
            "extended": {
                "requests": [("container-0-request-0", CLASS, 1), ("container-1-request-0", CLASS, 2)],
                "mappings": [("c0", IMPLICIT, "container-0-request-0"), ("c1", EXTENDED, "container-1-request-0")],
            },
        },
    ),
    Case(
        "extended-resource-name-with-resources-fail-patch",
        pod(requests=[{EXTENDED: "1"}]),
        classes=[EXT_CLASS],
        slices=[WORKER_SLICE],
        gates={"dra_extended_resource": True},
        fail={"patch": "patch error"},
        want={"prebind": (E, "patch error")},
    ),
    Case(
        "extended-resource-name-with-resources-has-claim",
        pod(requests=[{EXTENDED: "1"}]),
        claims=[ext_claim([request("container-0-request-0")], [result("container-0-request-0")])],
        classes=[EXT_CLASS],
        slices=[WORKER_SLICE],
        gates={"dra_extended_resource": True},
        want={
            "filter": {NODE: (UU, "cannot schedule extended resource claim")},
            "postfilter": (U, "deletion of ResourceClaim completed"),
            "deleted": ["default/my-pod-extended-resources-0"],
        },
    ),
    Case(
        "extended-resource-name-with-resources-delete-claim",
        pod(requests=[{EXTENDED: "1"}]),
        claims=[ext_claim([request("container-0-request-0")], [result("container-0-request-0")], NODE2)],
        classes=[EXT_CLASS],
        slices=[WORKER_SLICE],
        gates={"dra_extended_resource": True},
        want={
            "filter": {NODE: (UU, "cannot schedule extended resource claim")},
            "postfilter": (U, "deletion of ResourceClaim completed"),
            "deleted": ["default/my-pod-extended-resources-0"],
        },
    ),
    Case(
        "extended-resource-name-bind-failure",
        pod(requests=[{EXTENDED: "1"}]),
        classes=[EXT_CLASS],
        slices=[WORKER_SLICE],
        gates={"dra_extended_resource": True},
        unreserve_after_bind_failure=True,
        want={"prebind": None, "created_and_deleted": True},
    ),
    Case(
        "extended-resource-name-skip-bind",
        pod(requests=[{EXTENDED: "1"}]),
        classes=[EXT_CLASS],
        slices=[WORKER_SLICE],
        gates={"dra_extended_resource": True},
        unreserve_before_prebind=True,
        want={"in_flight": [], "created": []},
    ),
    Case(
        "extended-resource-name-claim-creation-failure",
        pod(requests=[{EXTENDED: "1"}]),
        classes=[EXT_CLASS],
        slices=[WORKER_SLICE],
        gates={"dra_extended_resource": True},
        fail={"create": "claim creation errors"},
        unreserve_after_bind_failure=True,
        want={"prebind": (E, "claim creation errors"), "created": []},
    ),
    # --- filterTimeout ------------------------------------------------------------------------
    Case(
        "canceled",
        pod_with_claim_name(),
        claims=[LARGE_CLAIM],
        classes=[device_class()],
        slices=[LARGE_SLICE],
        args={"filterTimeout": "1ns"},
        skip="Filter with a canceled context: kschedctl's searches are not interrupted (decisions stay reproducible)",
    ),
    Case(
        "timeout",
        pod_with_claim_name(),
        claims=[LARGE_CLAIM],
        classes=[device_class()],
        slices=[LARGE_SLICE],
        args={"filterTimeout": "1ns"},
        skip="a 1ns filterTimeout: kschedctl does not time allocation (decisions stay reproducible)",
    ),
    Case(
        "timeout_disabled",
        pod_with_claim_name(),
        claims=[pending()],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        gates={"dra_scheduler_filter_timeout": False},
        args={},
        want={"in_flight": [CLAIM], "prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "timeout_zero",
        pod_with_claim_name(),
        claims=[pending()],
        classes=[device_class()],
        slices=[WORKER_SLICE],
        args={"filterTimeout": "0s"},
        want={"in_flight": [CLAIM], "prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    # --- binding conditions -------------------------------------------------------------------
    Case(
        "bound-claim-with-succeeded-binding-conditions",
        pod_with_claim_name(),
        claims=[with_binding(pending(), {"condition": "True", "failed": "False"})],
        gates=BINDING,
        want={"prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "bound-claim-with-failed-binding",
        pod_with_claim_name(),
        claims=[with_binding(pending(), {"condition": "False", "failed": "True"})],
        slices=[WORKER_SLICE],
        gates=BINDING,
        want={
            "filter": {NODE: (UU, "resourceclaim not available on the node")},
            "postfilter": (U, "deallocation of ResourceClaim completed"),
            "claims:postfilter": {CLAIM: {"finalizers": [FINALIZER], "allocation": None, "reservedFor": []}},
        },
    ),
    Case(
        "bound-claim-with-timed-out-binding",
        pod_with_claim_name(),
        claims=[with_binding(pending(), {}, timestamp=NOW - 601)],
        gates=BINDING,
        want={
            "filter": {NODE: (UU, "resourceclaim not available on the node")},
            "postfilter": (U, "deallocation of ResourceClaim completed"),
        },
    ),
    Case(
        "prebind-fail-with-binding-timeout",
        pod_with_claim_name(),
        claims=[with_binding(pending(), {}, timestamp=NOW - 600 + 10)],
        gates=BINDING,
        args={"bindingTimeout": "600s"},
        want={"prebind": (E, "claim my-pod-my-resource binding timeout"), "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "bound-claim-with-mixed-binding-conditions",
        pod_with_claim_name(),
        claims=[with_binding(pending(), {"condition1": "True", "condition2": "False"}, timestamp=NOW - 601)],
        gates=BINDING,
        want={
            "filter": {NODE: (UU, "resourceclaim not available on the node")},
            "postfilter": (U, "deallocation of ResourceClaim completed"),
        },
    ),
    Case(
        "bound-claim-without-binding-conditions",
        pod_with_claim_template(),
        claims=[ALLOCATED, OTHER_CLAIM],
        gates=BINDING,
        want={"prebind": None, "claims:prebind": {CLAIM: in_use()}},
    ),
    Case(
        "multi-claims-binding-conditions-all-success",
        pod_with_two_claim_names(),
        claims=[
            with_binding(pending(), {"condition": "True", "failed": "False"}),
            with_binding(
                claim(CLAIM2, request("req-2"), owned=True),
                {"condition": "True", "failed": "False"},
                driver=DRIVER2,
                device="instance-2",
                req="req-2",
            ),
        ],
        classes=[device_class()],
        slices=[FABRIC],
        gates=BINDING,
        want={"prebind": None, "claims:prebind": {CLAIM: in_use(), CLAIM2: in_use(["req-2"], driver=DRIVER2)}},
    ),
    Case(
        "multi-claims-binding-conditions-one-fail",
        pod_with_two_claim_names(),
        claims=[
            with_binding(pending(), {"condition": "True", "failed": "False"}),
            with_binding(
                claim(CLAIM2, request("req-2"), owned=True),
                {"condition": "False", "failed": "True"},
                driver=DRIVER2,
                device="instance-2",
                req="req-2",
            ),
        ],
        classes=[device_class()],
        slices=[FABRIC],
        gates=BINDING,
        want={
            "filter": {NODE: (UU, "resourceclaim not available on the node")},
            "postfilter": (U, "deallocation of ResourceClaim completed"),
            "claims:postfilter": {CLAIM2: {"finalizers": [FINALIZER], "allocation": None, "reservedFor": []}},
        },
    ),
    # --- scoring ------------------------------------------------------------------------------
    Case(
        "single-claim-prioritized-list-scoring",
        pod_with_claim_name(),
        claims=[PRIO_SELECTOR_CLAIM],
        classes=[device_class()],
        nodes=[node(NODE), node(NODE2)],
        gates={"dra_prioritized_list": True},
        slices=[slice_(NODE, DRIVER, dev("instance-1", healthy=True)), slice_(NODE2, DRIVER, dev("instance-1", healthy=False))],
        want={
            "scores": {NODE: 8, NODE2: 7},
            "normalized": {NODE: 100, NODE2: 87},
            "prebind": None,
            "claims:prebind": {CLAIM: in_use(["req-1/subreq-1"])},
        },
    ),
    Case(
        "multiple-claims-prioritized-list-scoring",
        pod_with_two_claim_names(),
        claims=[PRIO_CLAIM, PRIO_MULTI_CLAIM2],
        classes=[device_class()],
        gates={"dra_prioritized_list": True},
        nodes=[node(NODE), node(NODE2), node(NODE3)],
        slices=[LARGE_SLICE, slice_(NODE2, DRIVER, dev("instance-1"), dev("instance-2")), slice_(NODE3, DRIVER, dev("instance-1"))],
        want={
            "filter": {NODE: None, NODE2: None, NODE3: (UU, "cannot allocate all claims")},
            "scores": {NODE: 15, NODE2: 13},
            "normalized": {NODE: 100, NODE2: 86},
            "prebind": None,
            "claims:prebind": {CLAIM: in_use(["req-1/subreq-1"]), CLAIM2: in_use(["req-1/subreq-2"] * 3)},
        },
    ),
    Case(
        "multiple-requests-prioritized-list-scoring",
        pod_with_claim_name(),
        claims=[PRIO_TWO_REQUESTS],
        classes=[device_class()],
        gates={"dra_prioritized_list": True},
        nodes=[node(NODE), node(NODE2), node(NODE3)],
        slices=[
            LARGE_SLICE,
            slice_(NODE2, DRIVER, dev("instance-1"), dev("instance-2"), dev("instance-3")),
            slice_(NODE3, DRIVER, dev("instance-1"), dev("instance-2")),
        ],
        want={
            "scores": {NODE: 16, NODE2: 15, NODE3: 14},
            "normalized": {NODE: 100, NODE2: 93, NODE3: 87},
            "prebind": None,
            "claims:prebind": {CLAIM: in_use(["req-1/subreq-1"] * 2 + ["req-2/subreq-1"] * 2)},
        },
    ),
]


# Where a release words a status differently from 1.35.4 (the table's texts): (case, release) -> want.
# resourceclaim.IsForPod capitalises "Pod" from 1.36 (v1.36.2 resourceclaim.go; kschedoracle 1.36.2).
_NOT_OWNER_136 = {"preenqueue": (UU, "ResourceClaim default/my-pod-my-resource was not created for Pod default/my-pod (Pod is not owner)")}
WANT_BY_RELEASE: dict[tuple[str, str], dict[str, Any]] = {
    ("wrong-claim", "1.36"): _NOT_OWNER_136,
    ("wrong-claim", "1.37"): _NOT_OWNER_136,
}


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_plugin(case: Case, release: str) -> None:
    if case.skip:
        pytest.skip(case.skip)
    out = run_case(case, release)
    for key, want in {**case.want, **WANT_BY_RELEASE.get((case.name, release), {})}.items():
        if key == "filter":
            assert out.filters == want, f"filter statuses: {out.filters}"
        elif key == "scores":
            assert out.scores == want
        elif key == "normalized":
            assert out.normalized == want
        elif key == "in_flight":
            assert out.in_flight == want
        elif key.startswith("claims:"):
            stored = out.claims[key.split(":", 1)[1]]
            for name, expected in want.items():
                assert view(stored.get(name)) == expected, f"claim {name} after {key}"
        elif key == "created":
            assert out.client.created == want
        elif key == "deleted":
            assert out.client.deleted == want
        elif key == "created_and_deleted":
            assert len(out.client.created) == 1 and out.client.deleted == out.client.created
        elif key == "extended":
            created = out.claims["prebind"][out.client.created[0].split("/", 1)[1]]
            requests = [(r["name"], r["exactly"]["deviceClassName"], r["exactly"]["count"]) for r in created["spec"]["devices"]["requests"]]
            assert requests == want["requests"]
            assert created["status"]["reservedFor"][0]["uid"] == POD_UID
            mappings = out.client.patched[0]["extendedResourceClaimStatus"]["requestMappings"]
            assert [(m["containerName"], m["resourceName"], m["requestName"]) for m in mappings] == want["mappings"]
        else:
            assert out.statuses.get(key) == want, f"{key}: {out.statuses}"
    # Steps the case names no status for succeed (upstream: a nil expected status).
    for step in ("preenqueue", "prefilter", "reserve", "prebind"):
        if step not in case.want and step in out.statuses:
            assert out.statuses[step] is None or step == "prefilter" and out.statuses[step] == ("Skip", ""), f"{step}: {out.statuses[step]}"


# --- TestIsSchedulableAfterClaimChange ----------------------------------------------------------


def _plugin(claims: list[dict]):
    import dataclasses

    from kschedctl.api.objects import ClusterObjects
    from kschedctl.api.resourceclaim import ResourceClaim as RC
    from kschedctl.framework.features import Features
    from kschedctl.plugins.dynamic_resources import DynamicResources
    from kschedctl.testing import new_framework
    from kschedctl.versions import KubeVersion

    from .plugin_harness import DRA_ONLY

    objects = ClusterObjects()
    for raw in claims:
        c = RC.from_dict(copy.deepcopy(raw))
        objects.resource_claims[c.key] = c
    fwk = new_framework(DRA_ONLY, objects=objects, version=KubeVersion("1.35"))
    return DynamicResources(None, fwk.handle, dataclasses.replace(Features.of(KubeVersion("1.35"))))


def C(raw: dict) -> ResourceClaim:  # noqa: N802
    return ResourceClaim.from_dict(copy.deepcopy(raw))


def _alloc_none(raw: dict) -> dict:
    raw = copy.deepcopy(raw)
    raw.setdefault("status", {}).pop("allocation", None)
    return raw


CLAIM_CHANGE_CASES = [
    (
        "skip-wrong-claim",
        pod_with_claim_template(in_status=False),
        [],
        None,
        {
            **ALLOCATED,
            "metadata": {
                **ALLOCATED["metadata"],
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "my-pod", "uid": POD_UID + "123", "controller": True}],
            },
        },
        QueueingHint.QueueSkip,
    ),
    (
        "skip-unrelated-claim",
        pod_with_claim_template(in_status=False),
        [ALLOCATED],
        None,
        {**ALLOCATED, "metadata": {**ALLOCATED["metadata"], "name": CLAIM + "-foo", "uid": "uid-foo"}},
        QueueingHint.QueueSkip,
    ),
    ("queue-on-add", pod_with_claim_name(), [pending()], None, pending(), QueueingHint.Queue),
    (
        "skip-adding-finalizer",
        pod_with_claim_name(),
        [pending()],
        pending(),
        {**pending(), "metadata": {**pending()["metadata"], "finalizers": ["foo"]}},
        QueueingHint.QueueSkip,
    ),
    (
        "queue-on-status-change",
        pod_with_claim_name(),
        [pending()],
        pending(),
        {**pending(), "status": {"allocation": {"devices": {"results": []}}}},
        QueueingHint.Queue,
    ),
    (
        "claim-deallocate",
        pod_with_claim_name(),
        [pending(), OTHER_ALLOCATED],
        OTHER_ALLOCATED,
        _alloc_none(OTHER_ALLOCATED),
        QueueingHint.Queue,
    ),
]


@pytest.mark.parametrize("name, p, claims, old, new, want", CLAIM_CHANGE_CASES, ids=[c[0] for c in CLAIM_CHANGE_CASES])
def test_is_schedulable_after_claim_change(name, p, claims, old, new, want) -> None:
    pl = _plugin(claims)
    assert pl.is_schedulable_after_claim_change(p, C(old) if old else None, C(new)) == want


def test_is_schedulable_after_claim_change_wrong_objects() -> None:
    # upstream: "backoff-wrong-new-object", "backoff-wrong-old-object" (the runtime requeues on an error)
    pl = _plugin([pending()])
    with pytest.raises(TypeError):
        pl.is_schedulable_after_claim_change(pod_with_claim_name(), None, "not-a-claim")
    with pytest.raises(TypeError):
        pl.is_schedulable_after_claim_change(pod_with_claim_name(), "not-a-claim", C(pending()))


def _pod_two_templates(statuses: list[dict] | None) -> Any:
    return pod([{"name": RESOURCE, "resourceClaimTemplateName": CLAIM}, {"name": RESOURCE2, "resourceClaimTemplateName": CLAIM}], statuses)


POD_CHANGE_CASES = [
    ("complete", [pending()], pod_with_claim_template(in_status=False), pod_with_claim_template(), QueueingHint.Queue),
    (
        "wrong-pod",
        [pending()],
        pod([{"name": RESOURCE, "resourceClaimTemplateName": CLAIM}]).__class__.from_dict(
            {
                "metadata": {"name": "my-pod2", "namespace": "default", "uid": POD_UID + "2"},
                "spec": {
                    "containers": [{"name": "c", "image": "x"}],
                    "resourceClaims": [{"name": RESOURCE, "resourceClaimTemplateName": CLAIM}],
                },
            }
        ),
        pod_with_claim_template(),
        QueueingHint.QueueSkip,
    ),
    ("missing-claim", [], pod_with_claim_template(in_status=False), pod_with_claim_template(), QueueingHint.QueueSkip),
    (
        "incomplete",
        [pending()],
        _pod_two_templates(None),
        _pod_two_templates([{"name": RESOURCE, "resourceClaimName": CLAIM}]),
        QueueingHint.QueueSkip,
    ),
]


@pytest.mark.parametrize("name, claims, p, new, want", POD_CHANGE_CASES, ids=[c[0] for c in POD_CHANGE_CASES])
def test_is_schedulable_after_pod_change(name, claims, p, new, want) -> None:
    pl = _plugin(claims)
    assert pl.is_schedulable_after_pod_change(p, None, new) == want


def test_is_schedulable_after_pod_change_wrong_object() -> None:
    # upstream: "backoff-wrong-new-object"
    with pytest.raises(TypeError):
        _plugin([]).is_schedulable_after_pod_change(pod_with_claim_template(in_status=False), None, "not-a-claim")


# --- Test_computesScore -------------------------------------------------------------------------


def _prio_claim(*requests: tuple[str, int]) -> ResourceClaim:
    return C(claim("c", *(prioritized(name, *((f"subreq-{i}", CLASS, 1, None) for i in range(1, n + 1))) for name, n in requests)))


def _alloc(*requests: str) -> AllocationResult:
    return AllocationResult(tuple(DeviceRequestAllocationResult(r, "", "", "") for r in requests))


SCORE_CASES = [
    ("single-request-only-subrequest-allocated", [_prio_claim(("req-1", 1))], [_alloc("req-1/subreq-1")], 8),
    ("single-request-last-subrequest-allocated", [_prio_claim(("req-1", 8))], [_alloc("req-1/subreq-8")], 1),
    (
        "multiple-requests-with-middle-subrequests-allocated",
        [_prio_claim(("req-1", 4), ("req-2", 5))],
        [_alloc("req-1/subreq-4", "req-2/subreq-5")],
        9,
    ),
    (
        "multiple-requests-with-top-subrequests-allocated",
        [_prio_claim(("req-1", 8), ("req-2", 1))],
        [_alloc("req-1/subreq-8", "req-2/subreq-1")],
        9,
    ),
    (
        "multiple-claims-with-last-subrequests-allocated",
        [_prio_claim(("req-1", 8)), _prio_claim(("req-2", 8))],
        [_alloc("req-1/subreq-8"), _alloc("req-2/subreq-8")],
        2,
    ),
    (
        "multiple-claims-with-top-subrequests-allocated",
        [_prio_claim(("req-1", 1)), _prio_claim(("req-2", 1))],
        [_alloc("req-1/subreq-1"), _alloc("req-2/subreq-1")],
        16,
    ),
]


@pytest.mark.parametrize("name, claims, allocations, want", SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_compute_score(name, claims, allocations, want) -> None:
    assert compute_score(claims, allocations) == want


def test_compute_score_more_claims_than_allocations() -> None:
    # upstream: "more-claims-than-allocations"
    with pytest.raises(ValueError, match="number of allocations 0 is smaller than number of claims"):
        compute_score([_prio_claim(("req-1", 1)), _prio_claim(("req-2", 1))], [])


def test_compute_score_with_a_claim_allocated_before_the_cycle() -> None:
    """From the source of computeScore in dynamicresources.go: 1.35 (v1.35.x, as
    kubernetes/kubernetes#134711 wrote it) pairs the i-th claim with the i-th allocation Filter
    made, so an allocated claim next to one to allocate runs out of allocations; v1.36.2 takes
    the allocated claim's own status.allocation and counts its subrequests too."""
    allocated = _prio_claim(("req-1", 2))
    allocated.allocation = _alloc("req-1/subreq-2")
    to_allocate = _prio_claim(("req-2", 1))
    with pytest.raises(ValueError, match="^number of allocations 1 is smaller than number of claims$"):
        compute_score([allocated, to_allocate], [_alloc("req-2/subreq-1")], reads_claim_allocations=False)
    assert compute_score([allocated, to_allocate], [_alloc("req-2/subreq-1")]) == 7 + 8
    with pytest.raises(ValueError, match="^number of allocations 0 is smaller than number of claims needing allocation$"):
        compute_score([allocated, to_allocate], [])
