"""The objects and the driver of upstream's DynamicResources plugin test
(pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go, testPlugin).

Objects are named and shaped as the test's (st.MakeResourceClaim, st.MakeResourceSlice, ...):
pod "my-pod" (uid 1234), claim "my-pod-my-resource" with request "req-1" of class
"my-resource-class", node "worker" with slice "worker-some-driver" holding device "instance-1".
``run_case`` drives the plugin as testPlugin does: PreEnqueue, PreFilter, Filter on every node
(stopping at an Error), Score and NormalizeScore with two or more feasible nodes, Reserve on the
best node, then PreBindPreFlight and PreBind (or Unreserve before PreBind), optionally Unreserve
after a bind failure; with no feasible node, PostFilter. Every step's Status and the claims
stored afterwards are recorded. Writes go through a fake API client into ClusterObjects and the
shared DRA manager, as the simulated API server does.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kschedctl.api.objects import ClusterObjects
from kschedctl.api.resource import DeviceClass, ResourceSlice
from kschedctl.api.resourceclaim import ResourceClaim
from kschedctl.api.types import Node, Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.features import Features
from kschedctl.framework.handle import ApiError
from kschedctl.framework.interface import Code, NodeScore, Status
from kschedctl.plugins.dynamic_resources import DynamicResources
from kschedctl.runtime.services import FixedClock
from kschedctl.testing import new_framework
from kschedctl.versions import KubeVersion

NODE, NODE2, NODE3 = "worker", "worker-2", "worker-3"
DRIVER, DRIVER2 = "some-driver", "some-driver-2"
POD, POD_UID = "my-pod", "1234"
RESOURCE, RESOURCE2 = "my-resource", "my-resource-2"
CLAIM, CLAIM2 = "my-pod-my-resource", "my-pod-my-resource-2"
CLASS = "my-resource-class"
NS = "default"
ATTR = "healthy"
EXTENDED, EXTENDED2 = "example.com/gpu", "example.com/gpu2"
IMPLICIT = "deviceclass.resource.kubernetes.io/my-resource-class"
FINALIZER = "resource.kubernetes.io/delete-protection"
NOW = 1_750_000_000.0  # the harness clock (seconds)

DRA_ONLY = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled: [{name: PrioritySort}, {name: DefaultBinder}, {name: DynamicResources}]
"""


# --- objects (st.Make* builders) ---------------------------------------------------------------


def node(name: str, extended: dict[str, str] | None = None) -> Node:
    status: dict[str, Any] = {"allocatable": {"cpu": "100", "memory": "100Gi", "pods": "110", **(extended or {})}}
    return Node.from_dict({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}, "status": status})


def device_class(name: str = CLASS, extended: str | None = None, selectors: list[str] | None = None) -> dict:
    spec: dict[str, Any] = {}
    if extended:
        spec["extendedResourceName"] = extended
    if selectors:
        spec["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def slice_(node_name: str, driver: str, *devices: dict, **spec: Any) -> dict:
    """st.MakeResourceSlice(node, driver).Device(...): pool = node name, one slice."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-{driver}"},
        "spec": {
            "driver": driver,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": list(devices),
            **spec,
        },
    }


def dev(name: str, **attrs: Any) -> dict:
    out: dict[str, Any] = {"name": name}
    if attrs:
        out["attributes"] = {k: {"bool": v} if isinstance(v, bool) else {"string": v} for k, v in attrs.items()}
    return out


def request(
    name: str = "req-1", class_name: str = CLASS, count: int | None = None, selectors: list[str] | None = None, admin: bool = False
) -> dict:
    exact: dict[str, Any] = {"deviceClassName": class_name, "allocationMode": "ExactCount", "count": count or 1}
    if selectors:
        exact["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    if admin:
        exact["adminAccess"] = True
    return {"name": name, "exactly": exact}


def prioritized(name: str, *subs: tuple[str, str, int, str | None]) -> dict:
    out = []
    for sub, class_name, count, selector in subs:
        entry: dict[str, Any] = {"name": sub, "deviceClassName": class_name, "allocationMode": "ExactCount", "count": count}
        if selector:
            entry["selectors"] = [{"cel": {"expression": selector}}]
        out.append(entry)
    return {"name": name, "firstAvailable": out}


def claim(name: str = CLAIM, *requests: dict, owned: bool = False) -> dict:
    md: dict[str, Any] = {"name": name, "namespace": NS, "uid": f"uid-{name}"}
    if owned:
        md["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": POD, "uid": POD_UID, "controller": True}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": md,
        "spec": {"devices": {"requests": list(requests) or [request()]}},
    }


def node_selector(node_name: str = NODE) -> dict:
    return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}


def result(request_name: str = "req-1", device: str = "instance-1", driver: str = DRIVER, pool: str = NODE, **extra: Any) -> dict:
    return {"request": request_name, "driver": driver, "pool": pool, "device": device, **extra}


def allocated(raw: dict, *results: dict, selector: dict | None | str = "node", reserved: bool = False, **allocation_extra: Any) -> dict:
    """st...Allocation(result): the allocation and the scheduler's finalizer; optionally
    ReservedForPod(my-pod)."""
    raw = copy.deepcopy(raw)
    allocation: dict[str, Any] = {"devices": {"results": list(results) or [result()]}, **allocation_extra}
    if selector == "node":
        allocation["nodeSelector"] = node_selector()
    elif selector is not None:
        allocation["nodeSelector"] = selector
    raw.setdefault("status", {})["allocation"] = allocation
    raw["metadata"]["finalizers"] = [FINALIZER]
    if reserved:
        raw["status"]["reservedFor"] = [{"resource": "pods", "name": POD, "uid": POD_UID}]
    return raw


def admin_access(raw: dict) -> dict:
    raw = copy.deepcopy(raw)
    for r in raw["spec"]["devices"]["requests"]:
        r["exactly"]["adminAccess"] = True
    for r in ((raw.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results", []):
        r["adminAccess"] = True
    return raw


def pod(claims: list[dict] | None = None, statuses: list[dict] | None = None, requests: list[dict[str, str]] | None = None) -> Pod:
    spec: dict[str, Any] = {
        "containers": [{"name": f"c{i}", "image": "x", "resources": {"requests": r, "limits": r}} for i, r in enumerate(requests or [{}])]
    }
    if claims:
        spec["resourceClaims"] = claims
    raw: dict[str, Any] = {"metadata": {"name": POD, "namespace": NS, "uid": POD_UID}, "spec": spec}
    if statuses:
        raw["status"] = {"resourceClaimStatuses": statuses}
    return Pod.from_dict(raw)


def pod_with_claim_name() -> Pod:
    return pod([{"name": RESOURCE, "resourceClaimName": CLAIM}])


def pod_with_claim_template(in_status: bool = True) -> Pod:
    return pod(
        [{"name": RESOURCE, "resourceClaimTemplateName": CLAIM}], [{"name": RESOURCE, "resourceClaimName": CLAIM}] if in_status else None
    )


def pod_with_two_claim_names() -> Pod:
    return pod([{"name": RESOURCE, "resourceClaimName": CLAIM}, {"name": RESOURCE2, "resourceClaimName": CLAIM2}])


def pending() -> dict:
    return claim(CLAIM, owned=True)


# --- the fake API server -----------------------------------------------------------------------


class FakeClient:
    """ResourceClaim writes and pod status patches, stored at once (informers without latency);
    ``fail`` makes a verb fail like a reactor of the upstream test."""

    def __init__(self, objects: ClusterObjects, services: Any, fail: dict[str, str] | None = None) -> None:
        self.objects = objects
        self.services = services
        self.fail = fail or {}
        self.created: list[str] = []
        self.deleted: list[str] = []
        self.patched: list[dict] = []

    def _check(self, verb: str) -> None:
        if verb in self.fail:
            raise ApiError(self.fail[verb])

    def update_resource_claim(self, new: ResourceClaim) -> ResourceClaim:
        self._check("update")
        old = self.objects.resource_claims[new.key]
        self.services.dra_manager().on_claim_update(old, new)
        return new

    def create_resource_claim(self, new: ResourceClaim) -> ResourceClaim:
        self._check("create")
        self.created.append(new.key)
        self.services.dra_manager().on_claim_add(new)
        return new

    def delete_resource_claim(self, claim_: ResourceClaim) -> None:
        self._check("delete")
        self.deleted.append(claim_.key)
        self.services.dra_manager().on_claim_delete(self.objects.resource_claims[claim_.key])

    def patch_pod_status(self, pod_: Pod, status: dict) -> None:
        self._check("patch")
        self.patched.append(status)


# --- the driver --------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    pod: Pod
    claims: list[dict] = field(default_factory=list)
    classes: list[dict] = field(default_factory=list)
    slices: list[dict] = field(default_factory=list)
    nodes: list[Node] | None = None
    gates: dict[str, bool] = field(default_factory=dict)  # upstream's enable*/disable* flags
    args: dict | None = None
    fail: dict[str, str] = field(default_factory=dict)  # verb -> error (reactors, failPatch)
    prepare_prebind: Callable[[dict], None] | None = None  # a change to the stored claim before PreBind
    unreserve_before_prebind: bool = False
    unreserve_after_bind_failure: bool = False
    want: dict[str, Any] = field(default_factory=dict)
    skip: str = ""


@dataclass
class Outcome:
    statuses: dict[str, tuple[str, str] | None] = field(default_factory=dict)
    filters: dict[str, tuple[str, str] | None] = field(default_factory=dict)
    scores: dict[str, int] = field(default_factory=dict)
    normalized: dict[str, int] = field(default_factory=dict)
    in_flight: list[str] = field(default_factory=list)
    claims: dict[str, dict[str, dict | None]] = field(default_factory=dict)  # step -> claim name -> raw
    client: FakeClient | None = None


def _st(status: Status | None) -> tuple[str, str] | None:
    if status is None or status.code == Code.Success:
        return None
    return status.code.name, status.message()


def features_for(case: Case, release: str) -> Features:
    """feature.Features of the upstream case: every DRA gate off unless the case turns it on,
    DynamicResourceAllocation and DRASchedulerFilterTimeout on unless it turns them off."""
    base = Features.of(KubeVersion(release))
    dra = {f.name: False for f in dataclasses.fields(Features) if f.name.startswith("dra_")}
    dra["dra_scheduler_filter_timeout"] = True
    values = {**dra, "dynamic_resource_allocation": True}
    values.update(case.gates)
    return dataclasses.replace(base, **values)


def _stored(objects: ClusterObjects) -> dict[str, dict | None]:
    return {c.name: copy.deepcopy(c.raw) for c in objects.resource_claims.values()}


def run_case(case: Case, release: str) -> Outcome:
    objects = ClusterObjects()
    for raw in case.classes:
        c = DeviceClass.from_dict(copy.deepcopy(raw))
        objects.device_classes[c.name] = c
    for raw in case.slices:
        s = ResourceSlice.from_dict(copy.deepcopy(raw))
        objects.resource_slices[s.name] = s
    for raw in case.claims:
        c = ResourceClaim.from_dict(copy.deepcopy(raw))
        objects.resource_claims[c.key] = c
    nodes = case.nodes or [node(NODE)]
    version = KubeVersion(release)
    fwk = new_framework(DRA_ONLY, nodes=nodes, objects=objects, version=version)
    services = fwk.services
    services.clock = FixedClock(NOW)
    client = FakeClient(objects, services, case.fail)
    services.client = client
    pl = DynamicResources(case.args, fwk.handle, features_for(case, release))
    out = Outcome(client=client)
    p = case.pod
    st = pl.pre_enqueue(p)
    out.statuses["preenqueue"] = _st(st)
    if st is not None and not st.is_success():
        return out
    state = CycleState()
    infos = fwk.snapshot.list()
    _, st = pl.pre_filter(state, p, infos)
    out.statuses["prefilter"] = _st(st) if st is None or st.code != Code.Skip else ("Skip", "")
    unschedulable = st is not None and st.is_rejected()
    feasible = []
    if not unschedulable:
        for info in infos:
            fst = pl.filter(state, p, info)
            out.filters[info.name] = _st(fst)
            if fst is None or fst.is_success():
                feasible.append(info)
            elif fst.code == Code.Error:
                return out  # an error aborts scheduling
        unschedulable = not feasible
    scores: list[NodeScore] = []
    if not unschedulable and len(feasible) > 1:
        for info in feasible:
            value, sst = pl.score(state, p, info)
            out.statuses[f"score/{info.name}"] = _st(sst)
            out.scores[info.name] = value
            scores.append(NodeScore(info.name, value))
        pl.normalize_score(state, p, scores)
        out.normalized = {s.name: s.score for s in scores}
    if not unschedulable and feasible:
        best = max(scores, key=lambda s: s.score).name if scores else feasible[0].name
        st = pl.reserve(state, p, best)
        out.statuses["reserve"] = _st(st)
        out.in_flight = sorted(c.name for c in pl.manager.in_flight.values())
        if st is not None and not st.is_success():
            pl.unreserve(state, p, best)
            out.claims["unreserve"] = _stored(objects)
            return out
        if case.unreserve_before_prebind:
            pl.unreserve(state, p, best)
            out.claims["unreserveBeforePreBind"] = _stored(objects)
            out.in_flight = sorted(c.name for c in pl.manager.in_flight.values())
            return out
        if case.prepare_prebind is not None:
            for c in list(objects.resource_claims.values()):
                raw = copy.deepcopy(c.raw)
                case.prepare_prebind(raw)
                pl.manager.on_claim_update(c, ResourceClaim.from_dict(raw))
        pre = pl.pre_bind_pre_flight(state, p, best)
        out.statuses["prebindPreFlight"] = _st(pre) if pre is None or pre.code != Code.Skip else ("Skip", "")
        st = pl.pre_bind(state, p, best)
        out.statuses["prebind"] = _st(st)
        out.claims["prebind"] = _stored(objects)
        if case.unreserve_after_bind_failure:
            pl.unreserve(state, p, best)
            out.claims["unreserveAfterBindFailure"] = _stored(objects)
        return out
    if not feasible:
        _, st = pl.post_filter(state, p, None)
        out.statuses["postfilter"] = _st(st)
        out.claims["postfilter"] = _stored(objects)
    return out


__all__ = ["Case", "Outcome", "run_case"]
