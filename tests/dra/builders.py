"""Builders for DRA test objects, named after the helpers of upstream's shared allocator test
table (staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/
allocator_testing.go): node, class_, request, claim, device, slice_with_devices, ...

They produce raw kubectl-shaped dicts and parse them with the real loaders, so the tests also
cover the API objects. Claims have no namespace, as upstream's test claims.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from kschedctl.api.resource import DeviceClass, ResourceSlice
from kschedctl.api.resourceclaim import DeviceRequestAllocationResult, DeviceToleration, ResourceClaim
from kschedctl.api.types import Node

REGION1, REGION2 = "region-1", "region-2"
NODE1, NODE2 = "node-1", "node-2"
CLASS_A, CLASS_B = "class-a", "class-b"
DRIVER_A, DRIVER_B = "driver-a", "driver-b"
POOL1, POOL2, POOL3, POOL4 = "pool-1", "pool-2", "pool-3", "pool-4"
REQ0, REQ1, REQ2, REQ3 = "req-0", "req-1", "req-2", "req-3"
SUBREQ0, SUBREQ1 = "subReq-0", "subReq-1"
REQ0_SUBREQ0, REQ0_SUBREQ1 = "req-0/subReq-0", "req-0/subReq-1"
REQ1_SUBREQ0, REQ1_SUBREQ1 = "req-1/subReq-0", "req-1/subReq-1"
REQ2_SUBREQ0 = "req-2/subReq-0"
CLAIM0, CLAIM1 = "claim-0", "claim-1"
SLICE1, SLICE2, SLICE3, SLICE4 = "slice-1", "slice-2", "slice-3", "slice-4"
DEVICE0, DEVICE1, DEVICE2, DEVICE3, DEVICE4 = "device-0", "device-1", "device-2", "device-3", "device-4"
COUNTER_SET1, COUNTER_SET2 = "counter-set-1", "counter-set-2"
CAPACITY0, CAPACITY1 = "capacity-0", "capacity-1"
FROM_COUNTERS = "fromCounters"
NODE_SELECTION_ALL = "nodeSelectionAll"
NODE_SELECTION_PER_DEVICE = "nodeSelectionPerDevice"


def node(name: str, region: str) -> Node:
    return Node.from_dict({"metadata": {"name": name, "labels": {"region": region, "planet": "earth"}}})


def class_(name: str, driver: str, *, config: list | None = None, expression: str | None = None) -> DeviceClass:
    spec: dict = {"selectors": [{"cel": {"expression": expression or f'device.driver == "{driver}"'}}]}
    if config:
        spec["config"] = config
    return DeviceClass.from_dict({"metadata": {"name": name}, "spec": spec})


def class_with_allow_multiple_allocations(name: str, driver: str, multi: bool) -> DeviceClass:
    return class_(
        name, driver, expression=f'device.driver == "{driver}" && device.allowMultipleAllocations == {"true" if multi else "false"}'
    )


def device_configuration(driver: str, attribute: str) -> dict:
    return {"opaque": {"driver": driver, "parameters": {attribute: attribute + "Value"}}}


def class_with_config(name: str, driver: str, attribute: str) -> DeviceClass:
    return class_(name, driver, config=[device_configuration(driver, attribute)])


def selector(expression: str) -> dict:
    return {"cel": {"expression": expression}}


def request(name: str, cls: str, count: int, *selectors: dict, **extra: Any) -> dict:
    exactly: dict = {"count": count, "allocationMode": "ExactCount", "deviceClassName": cls}
    if selectors:
        exactly["selectors"] = list(selectors)
    exactly.update(extra)
    return {"name": name, "exactly": exactly}


def all_request(name: str, cls: str, **extra: Any) -> dict:
    return {"name": name, "exactly": {"allocationMode": "All", "deviceClassName": cls, **extra}}


def sub_request(name: str, cls: str, count: int, *fields: dict, **extra: Any) -> dict:
    sub: dict = {"name": name, "count": count, "allocationMode": "ExactCount", "deviceClassName": cls}
    for f in fields:
        if "cel" in f:
            sub.setdefault("selectors", []).append(f)
        else:
            sub.setdefault("tolerations", []).append(f)
    sub.update(extra)
    return sub


def request_with_prioritized_list(name: str, *subs: dict) -> dict:
    return {"name": name, "firstAvailable": list(subs)}


def capacity_requests(quantity: str | None) -> dict:
    return {"requests": {CAPACITY0: quantity} if quantity is not None else {}}


def with_capacity_request(req: dict, quantity: str | None) -> dict:
    out = copy.deepcopy(req)
    (out["exactly"] if "exactly" in out else out)["capacity"] = capacity_requests(quantity)
    return out


@dataclass
class ClaimBuilder:
    raw: dict

    def obj(self) -> ResourceClaim:
        claim = ResourceClaim.from_dict(copy.deepcopy(self.raw))
        claim.meta.namespace = ""
        return claim

    def _devices(self) -> dict:
        return self.raw["spec"]["devices"]

    def with_requests(self, *requests: dict) -> "ClaimBuilder":
        out = ClaimBuilder(copy.deepcopy(self.raw))
        out._devices()["requests"] = [copy.deepcopy(r) for r in requests]
        return out

    def with_constraints(self, *constraints: dict) -> "ClaimBuilder":
        out = ClaimBuilder(copy.deepcopy(self.raw))
        out._devices()["constraints"] = list(constraints)
        return out

    def with_configs(self, *configs: dict) -> "ClaimBuilder":
        out = ClaimBuilder(copy.deepcopy(self.raw))
        out._devices()["config"] = list(configs)
        return out

    def with_tolerations(self, *tolerations: dict) -> "ClaimBuilder":
        out = ClaimBuilder(copy.deepcopy(self.raw))
        for r in out._devices().get("requests", []):
            r["exactly"].setdefault("tolerations", []).extend(copy.deepcopy(list(tolerations)))
        return out


def claim(name: str) -> ClaimBuilder:
    return ClaimBuilder({"metadata": {"name": name}, "spec": {"devices": {}}})


def claim_with_requests(name: str, constraints: list | None, *requests: dict) -> ClaimBuilder:
    c = claim(name).with_requests(*requests)
    return c.with_constraints(*constraints) if constraints else c


def claim_with_request(name: str, req: str, cls: str, *constraints: dict) -> ClaimBuilder:
    return claim_with_requests(name, list(constraints), request(req, cls, 1))


def claim_with_device_config(name: str, req: str, cls: str, driver: str, attribute: str) -> ClaimBuilder:
    return claim_with_request(name, req, cls).with_configs({"opaque": device_configuration(driver, attribute)["opaque"]})


def match_attribute(attribute: str, *requests: str) -> dict:
    out: dict = {"matchAttribute": attribute}
    if requests:
        out["requests"] = list(requests)
    return out


def distinct_attribute(attribute: str, *requests: str) -> dict:
    out: dict = {"distinctAttribute": attribute}
    if requests:
        out["requests"] = list(requests)
    return out


def attributes(**values: Any) -> dict:
    """bool/int/str values become the matching attribute kind; ("version", "1.0.0") a version."""
    out = {}
    for k, v in values.items():
        if isinstance(v, tuple):
            out[k] = {v[0]: v[1]}
        elif isinstance(v, bool):
            out[k] = {"bool": v}
        elif isinstance(v, int):
            out[k] = {"int": v}
        else:
            out[k] = {"string": v}
    return out


@dataclass
class DeviceBuilder:
    raw: dict
    capacity_from_counters: bool = False

    def _copy(self) -> "DeviceBuilder":
        return DeviceBuilder(copy.deepcopy(self.raw), self.capacity_from_counters)

    def with_taints(self, *taints: dict) -> "DeviceBuilder":
        out = self._copy()
        out.raw.setdefault("taints", []).extend(taints)
        return out

    def with_device_counter_consumption(self, *consumptions: dict) -> "DeviceBuilder":
        out = self._copy()
        out.raw.setdefault("consumesCounters", []).extend(copy.deepcopy(list(consumptions)))
        if self.capacity_from_counters:
            out.raw["capacity"] = {name: {"value": c["value"]} for cc in out.raw["consumesCounters"] for name, c in cc["counters"].items()}
        out.capacity_from_counters = False
        return out

    def with_node_selection(self, selection: Any) -> "DeviceBuilder":
        out = self._copy()
        if isinstance(selection, dict):
            out.raw["nodeSelector"] = selection
        elif selection == NODE_SELECTION_ALL:
            out.raw["allNodes"] = True
        else:
            out.raw["nodeName"] = selection
        return out

    def with_binding_conditions(self, conditions: list[str], failure_conditions: list[str]) -> "DeviceBuilder":
        out = self._copy()
        out.raw["bindingConditions"] = conditions
        out.raw["bindingFailureConditions"] = failure_conditions
        return out

    def with_binds_to_node(self, binds: bool) -> "DeviceBuilder":
        out = self._copy()
        out.raw["bindsToNode"] = binds
        return out

    def with_allow_multiple_allocations(self) -> "DeviceBuilder":
        out = self._copy()
        out.raw["allowMultipleAllocations"] = True
        return out

    def with_capacity_request_policy_range(self, capacity: dict[str, str]) -> "DeviceBuilder":
        out = self._copy()
        caps = out.raw.setdefault("capacity", {})
        for name, q in capacity.items():
            caps[name] = {"value": q, "requestPolicy": {"default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}}}
        return out

    def with_capacity_request_policy_valid_values(self, default: str, capacity: dict[str, str], additional: list[str]) -> "DeviceBuilder":
        out = self._copy()
        caps = out.raw.setdefault("capacity", {})
        for name, q in capacity.items():
            caps[name] = {"value": q, "requestPolicy": {"default": default, "validValues": [default, *additional]}}
        return out


def device(name: str, capacity: Any = None, attrs: dict | None = None) -> DeviceBuilder:
    raw: dict = {"name": name}
    if attrs:
        raw["attributes"] = attrs
    if isinstance(capacity, dict):
        raw["capacity"] = {k: {"value": v} for k, v in capacity.items()}
    return DeviceBuilder(raw, capacity == FROM_COUNTERS)


def device_counter_consumption(counter_set: str, counters: dict[str, str]) -> dict:
    return {"counterSet": counter_set, "counters": {k: {"value": v} for k, v in counters.items()}}


def counter_set(name: str, counters: dict[str, str]) -> dict:
    return {"name": name, "counters": {k: {"value": v} for k, v in counters.items()}}


def resource_pool(name: str, count: int, generation: int = 1) -> dict:
    return {"name": name, "resourceSliceCount": count, "generation": generation}


@dataclass
class SliceBuilder:
    raw: dict

    def obj(self) -> ResourceSlice:
        return ResourceSlice.from_dict(copy.deepcopy(self.raw))

    def modified(self, fn) -> "SliceBuilder":
        out = SliceBuilder(copy.deepcopy(self.raw))
        fn(out.raw)
        return out


def _slice(name: str, selection: Any, pool: Any, driver: str) -> dict:
    pool_raw = pool if isinstance(pool, dict) else resource_pool(pool, 1)
    spec: dict = {"driver": driver, "pool": dict(pool_raw)}
    if isinstance(selection, dict):
        spec["nodeSelector"] = selection
    elif selection == NODE_SELECTION_ALL:
        spec["allNodes"] = True
    elif selection == NODE_SELECTION_PER_DEVICE:
        spec["perDeviceNodeSelection"] = True
    else:
        spec["nodeName"] = selection
    return {"metadata": {"name": name}, "spec": spec}


def slice_with_devices(name: str, selection: Any, pool: Any, driver: str, *devices: DeviceBuilder) -> SliceBuilder:
    raw = _slice(name, selection, pool, driver)
    raw["spec"]["devices"] = [copy.deepcopy(d.raw) for d in devices]
    return SliceBuilder(raw)


def slice_with_counter_sets(name: str, selection: Any, pool: Any, driver: str, *sets: dict) -> SliceBuilder:
    raw = _slice(name, selection, pool, driver)
    raw["spec"]["sharedCounters"] = list(sets)
    return SliceBuilder(raw)


def slice_with_no_devices(name: str, selection: Any, pool: Any, driver: str) -> SliceBuilder:
    return slice_with_devices(name, selection, pool, driver)


def slice_with_one_device(name: str, selection: Any, pool: Any, driver: str) -> SliceBuilder:
    return slice_with_devices(name, selection, pool, driver, device(DEVICE1))


def slice_with_multiple_devices(name: str, selection: Any, pool: Any, driver: str, count: int) -> SliceBuilder:
    return slice_with_devices(name, selection, pool, driver, *(device(f"device-{i}") for i in range(count)))


def node_label_selector(key: str, *values: str) -> dict:
    return {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}]}


def local_node_selector(node_name: str) -> dict:
    return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}


def toleration(**fields: Any) -> dict:
    return dict(fields)


def _tols(tolerations: tuple[dict, ...]) -> tuple[DeviceToleration, ...]:
    return tuple(
        DeviceToleration(key=t.get("key", ""), operator=t.get("operator", "Equal"), value=t.get("value", ""), effect=t.get("effect", ""))
        for t in tolerations
    )


def device_allocation_result(
    req: str, driver: str, pool: str, dev: str, admin_access: bool = False, *tolerations: dict
) -> DeviceRequestAllocationResult:
    return DeviceRequestAllocationResult(req, driver, pool, dev, True if admin_access else None, _tols(tolerations))


def device_allocation_result_with_binding_conditions(
    req: str, driver: str, pool: str, dev: str, conditions: list[str], failure: list[str], *tolerations: dict
) -> DeviceRequestAllocationResult:
    return DeviceRequestAllocationResult(req, driver, pool, dev, None, _tols(tolerations), tuple(conditions), tuple(failure))


def with_consumed_capacity(r: DeviceRequestAllocationResult, consumed: dict[str, str]) -> DeviceRequestAllocationResult:
    from fractions import Fraction

    from kschedctl.api.quantity import parse_quantity

    return DeviceRequestAllocationResult(
        r.request,
        r.driver,
        r.pool,
        r.device,
        r.admin_access,
        r.tolerations,
        r.binding_conditions,
        r.binding_failure_conditions,
        "<share>",
        {k: Fraction(parse_quantity(v)) for k, v in consumed.items()},
    )


def multiple_device_allocation_results(req: str, driver: str, pool: str, count: int, start: int) -> list:
    return [device_allocation_result(req, driver, pool, f"device-{i}") for i in range(start, start + count)]


@dataclass
class Expect:
    """allocationResult(selector, results...): results compared as a multiset (upstream uses
    ConsistOf); ``config`` None means no configuration entries."""

    selector: dict | None
    results: list
    config: list | None = None


def allocation_result(selector: dict | None, *results: DeviceRequestAllocationResult) -> Expect:
    return Expect(selector, list(results))


def allocation_result_with_configs(selector: dict | None, results: list, configs: list) -> Expect:
    return Expect(selector, list(results), configs)


@dataclass
class Case:
    name: str
    features: frozenset[str] = frozenset()
    claims: list = field(default_factory=list)
    allocated_devices: list = field(default_factory=list)
    allocated_shared: list = field(default_factory=list)
    allocated_capacity: dict = field(default_factory=dict)
    classes: list = field(default_factory=list)
    slices: list = field(default_factory=list)
    node: Node | None = None
    expect: list[Expect] | None = None  # None: cannot allocate; []: empty result
    error: str | None = None
    error_kind: str | None = None  # "node" for ErrFailedAllocationOnNode
    skip: str | None = None
    allocate_one_calls: int | None = None  # expectNumAllocateOneInvocations
