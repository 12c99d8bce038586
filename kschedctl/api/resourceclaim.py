"""ResourceClaim and ResourceClaimTemplate (resource.k8s.io/v1); which claims a pod uses is
kschedctl/api/podclaims.py's (re-exported here).

Defaulting follows pkg/apis/resource/v1/defaults.go: an ``exactly`` request (and each
``firstAvailable`` subrequest) without ``allocationMode`` is ExactCount, ExactCount without
``count`` is 1; a toleration without operator is Equal. Which claim a pod entry names follows
k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go (Name): a ``resourceClaimName``
directly, a ``resourceClaimTemplateName`` only through ``status.resourceClaimStatuses``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kschedctl.api.content_memo import by_content
from kschedctl.api.errors import ObjectError
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.podclaims import (
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    IMPLICIT_EXTENDED_RESOURCE_PREFIX,
    PodClaimRef,
    generated_claim_name,
    pod_claim_refs,
)
from kschedctl.api.resource import DeviceSelector, DeviceTaint, _quantity, selectors_from_list
from kschedctl.api.types import ObjectMeta, Pod, _dict, _int, _list, _meta, _ts

ALLOCATION_MODE_EXACT_COUNT = "ExactCount"
ALLOCATION_MODE_ALL = "All"
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"


@dataclass(frozen=True, slots=True)
class DeviceToleration:
    """A toleration of device taints (resourceapi.DeviceToleration), in a request or an allocation result; ``raw`` is the entry as read."""

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None
    raw: JSONObject | None = field(default=None, compare=False)

    def tolerates(self, taint: DeviceTaint) -> bool:
        """resourceclaim.ToleratesTaint (devicetoleration.go); unknown operators match nothing."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        return self.operator == "Exists"


def _tolerations(raw: Any, where: str) -> tuple[DeviceToleration, ...]:
    out = []
    for i, t in enumerate(_list(raw, where)):
        t = _dict(t, f"{where}[{i}]")
        out.append(
            DeviceToleration(
                key=str(t.get("key") or ""),
                operator=str(t.get("operator") or "Equal"),
                value="" if t.get("value") is None else str(t.get("value")),
                effect=str(t.get("effect") or ""),
                toleration_seconds=_int(t.get("tolerationSeconds"), f"{where}[{i}].tolerationSeconds"),
                raw=t,
            )
        )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class CapacityRequirements:
    """A request's capacity (resourceapi.CapacityRequirements): how much of each consumable capacity it needs from a device."""

    requests: dict[str, Fraction]


def _capacity(raw: Any, where: str) -> CapacityRequirements | None:
    if raw is None:
        return None
    raw = _dict(raw, where)
    return CapacityRequirements(
        {str(k): _quantity(v, f"{where}.requests.{k}") for k, v in _dict(raw.get("requests"), f"{where}.requests").items()}
    )


@dataclass(frozen=True, slots=True)
class ExactDeviceRequest:
    """DeviceRequest.exactly, and a DeviceSubRequest (which has the same fields except adminAccess)."""

    device_class_name: str
    selectors: tuple[DeviceSelector, ...] = ()
    allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT
    count: int = 1
    admin_access: bool | None = None
    tolerations: tuple[DeviceToleration, ...] = ()
    capacity: CapacityRequirements | None = None
    name: str = ""  # set for subrequests only


def _exact(raw: Any, where: str, name: str = "") -> ExactDeviceRequest:
    raw = _dict(raw, where)
    mode = str(raw.get("allocationMode") or ALLOCATION_MODE_EXACT_COUNT)
    count = _int(raw.get("count"), f"{where}.count")
    if count is None:
        count = 1 if mode == ALLOCATION_MODE_EXACT_COUNT else 0
    admin = raw.get("adminAccess")
    if admin is not None and not isinstance(admin, bool):
        raise ObjectError(f"expected a boolean, got {admin!r}", f"{where}.adminAccess")
    return ExactDeviceRequest(
        device_class_name=str(raw.get("deviceClassName") or ""),
        selectors=selectors_from_list(raw.get("selectors"), f"{where}.selectors"),
        allocation_mode=mode,
        count=count,
        admin_access=admin,
        tolerations=_tolerations(raw.get("tolerations"), f"{where}.tolerations"),
        capacity=_capacity(raw.get("capacity"), f"{where}.capacity"),
        name=name,
    )


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    """One spec.devices.requests entry (resourceapi.DeviceRequest): its ``exactly`` request or its ``firstAvailable`` subrequests."""

    name: str
    exactly: ExactDeviceRequest | None = None
    first_available: tuple[ExactDeviceRequest, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceConstraint:
    """One spec.devices.constraints entry (resourceapi.DeviceConstraint): the requests it applies to (all when empty) and the
    attribute their devices must share (matchAttribute) or must each have a different value of (distinctAttribute)."""

    requests: tuple[str, ...] = ()
    match_attribute: str | None = None
    distinct_attribute: str | None = None


@dataclass(frozen=True, slots=True)
class ResourceClaimSpec:
    """A claim's spec.devices (resourceapi.DeviceClaim), of a ResourceClaim or a ResourceClaimTemplate: requests, constraints, config."""

    requests: tuple[DeviceRequest, ...]
    constraints: tuple[DeviceConstraint, ...]
    config: tuple[JSONObject, ...]  # DeviceClaimConfiguration (requests + opaque), copied into results


def claim_spec_from_dict(raw: Any, where: str = "spec") -> ResourceClaimSpec:
    spec = _dict(raw, where)
    devices = _dict(spec.get("devices"), f"{where}.devices")
    requests = []
    for i, r in enumerate(_list(devices.get("requests"), f"{where}.devices.requests")):
        rw = f"{where}.devices.requests[{i}]"
        r = _dict(r, rw)
        name = str(r.get("name") or "")
        if not name:
            raise ObjectError("required value", f"{rw}.name")
        exactly = None if r.get("exactly") is None else _exact(r["exactly"], f"{rw}.exactly")
        subs = tuple(
            _exact(s, f"{rw}.firstAvailable[{j}]", str(_dict(s, f"{rw}.firstAvailable[{j}]").get("name") or ""))
            for j, s in enumerate(_list(r.get("firstAvailable"), f"{rw}.firstAvailable"))
        )
        requests.append(DeviceRequest(name, exactly, subs))
    constraints = []
    for i, c in enumerate(_list(devices.get("constraints"), f"{where}.devices.constraints")):
        c = _dict(c, f"{where}.devices.constraints[{i}]")
        constraints.append(
            DeviceConstraint(
                tuple(str(x) for x in _list(c.get("requests"), f"{where}.devices.constraints[{i}].requests")),
                None if c.get("matchAttribute") in (None, "") else str(c["matchAttribute"]),
                None if c.get("distinctAttribute") in (None, "") else str(c["distinctAttribute"]),
            )
        )
    config = tuple(_dict(c, f"{where}.devices.config[{i}]") for i, c in enumerate(_list(devices.get("config"), f"{where}.devices.config")))
    return ResourceClaimSpec(tuple(requests), tuple(constraints), config)


# The specs read so far, by content (content_memo.py): the claims a template or a controller
# made share one spec, and a ResourceClaimSpec is never written to (frozen, tuples, and the
# config entries it copies into allocation results are copied again there).
_SPECS: dict[Any, ResourceClaimSpec] = {}


@dataclass(frozen=True, slots=True)
class DeviceRequestAllocationResult:
    """One entry of status.allocation.devices.results, as the allocator writes it."""

    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool | None = None
    tolerations: tuple[DeviceToleration, ...] = ()
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()
    share_id: str | None = None
    consumed_capacity: dict[str, Fraction] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The result as kube writes it in status.allocation.devices.results."""
        out: dict[str, Any] = {"request": self.request, "driver": self.driver, "pool": self.pool, "device": self.device}
        if self.admin_access is not None:
            out["adminAccess"] = self.admin_access
        if self.tolerations:
            out["tolerations"] = [t.raw if t.raw is not None else _toleration_dict(t) for t in self.tolerations]
        if self.binding_conditions:
            out["bindingConditions"] = list(self.binding_conditions)
        if self.binding_failure_conditions:
            out["bindingFailureConditions"] = list(self.binding_failure_conditions)
        if self.share_id is not None:
            out["shareID"] = self.share_id
        if self.consumed_capacity:
            out["consumedCapacity"] = {k: format_quantity(v) for k, v in sorted(self.consumed_capacity.items())}
        return out


def _toleration_dict(t: DeviceToleration) -> dict[str, Any]:
    out: dict[str, Any] = {"operator": t.operator}
    if t.key:
        out["key"] = t.key
    if t.value:
        out["value"] = t.value
    if t.effect:
        out["effect"] = t.effect
    if t.toleration_seconds is not None:
        out["tolerationSeconds"] = t.toleration_seconds
    return out


_BINARY = (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10))


def format_quantity(value: Fraction) -> str:
    """A quantity as text: whole values in the largest binary unit that divides them (from Ki),
    else as an integer, else in milli-units (rounded up, as quantities are)."""
    if value.denominator == 1:
        n = value.numerator
        for suffix, unit in _BINARY:
            if n and n % unit == 0:
                return f"{n // unit}{suffix}"
        return str(n)
    milli = -((-value.numerator * 1000) // value.denominator)
    return f"{milli}m"


@dataclass(frozen=True, slots=True)
class AllocationResult:
    """A claim's status.allocation (resourceapi.AllocationResult): the device picked for each request, their config, and
    the nodes the devices can be used on."""

    results: tuple[DeviceRequestAllocationResult, ...]
    config: tuple[JSONObject, ...] = ()
    node_selector: JSONObject | None = None  # v1.NodeSelector as a raw dict (what kube writes)
    allocation_timestamp: str | None = None  # set by PreBind with binding conditions

    def to_dict(self) -> dict[str, Any]:
        """status.allocation as kube writes it."""
        devices: dict[str, Any] = {"results": [r.to_dict() for r in self.results]}
        if self.config:
            devices["config"] = [dict(c) for c in self.config]
        out: dict[str, Any] = {"devices": devices}
        if self.node_selector is not None:
            out["nodeSelector"] = self.node_selector
        if self.allocation_timestamp is not None:
            out["allocationTimestamp"] = self.allocation_timestamp
        return out


# The fields of an allocation result as the allocator writes most of them.
_PLAIN_RESULT_FIELDS = frozenset(("request", "driver", "pool", "device"))


def _plain_result(r: Any) -> DeviceRequestAllocationResult | None:
    """A result of only those fields, each a string, built without the checks its other
    fields need (a cluster's allocated claims are thousands of them); None for any other."""
    if type(r) is not dict or not r.keys() <= _PLAIN_RESULT_FIELDS:
        return None
    request, driver, pool, device = r.get("request", ""), r.get("driver", ""), r.get("pool", ""), r.get("device", "")
    if type(request) is not str or type(driver) is not str or type(pool) is not str or type(device) is not str:
        return None
    return DeviceRequestAllocationResult(request, driver, pool, device)


def _allocation(raw: Any, where: str) -> AllocationResult | None:
    if raw is None:
        return None
    raw = _dict(raw, where)
    devices = _dict(raw.get("devices"), f"{where}.devices")
    results = []
    for i, r in enumerate(_list(devices.get("results"), f"{where}.devices.results")):
        plain = _plain_result(r)
        if plain is not None:
            results.append(plain)
            continue
        rw = f"{where}.devices.results[{i}]"
        r = _dict(r, rw)
        consumed = r.get("consumedCapacity")
        results.append(
            DeviceRequestAllocationResult(
                request=str(r.get("request") or ""),
                driver=str(r.get("driver") or ""),
                pool=str(r.get("pool") or ""),
                device=str(r.get("device") or ""),
                admin_access=r.get("adminAccess"),
                tolerations=_tolerations(r.get("tolerations"), f"{rw}.tolerations"),
                binding_conditions=tuple(str(x) for x in _list(r.get("bindingConditions"), f"{rw}.bindingConditions")),
                binding_failure_conditions=tuple(
                    str(x) for x in _list(r.get("bindingFailureConditions"), f"{rw}.bindingFailureConditions")
                ),
                share_id=None if r.get("shareID") is None else str(r["shareID"]),
                consumed_capacity=None
                if consumed is None
                else {str(k): _quantity(v, f"{rw}.consumedCapacity.{k}") for k, v in _dict(consumed, f"{rw}.consumedCapacity").items()},
            )
        )
    stamp = raw.get("allocationTimestamp")
    return AllocationResult(
        tuple(results),
        tuple(_dict(c, f"{where}.devices.config[{i}]") for i, c in enumerate(_list(devices.get("config"), f"{where}.devices.config"))),
        raw.get("nodeSelector"),
        None if stamp in (None, "") else _ts(stamp, f"{where}.allocationTimestamp"),
    )


@dataclass(frozen=True, slots=True)
class ResourceClaimConsumerReference:
    """One status.reservedFor entry (resourceapi.ResourceClaimConsumerReference): a consumer, such as a pod, the claim is reserved for."""

    resource: str
    name: str
    uid: str
    api_group: str = ""


@dataclass(slots=True, eq=False)
class ResourceClaim:
    """A ResourceClaim: its spec, status.allocation (None while unallocated) and status.reservedFor; ``raw`` is the object as read."""

    meta: ObjectMeta
    spec: ResourceClaimSpec
    allocation: AllocationResult | None
    reserved_for: tuple[ResourceClaimConsumerReference, ...]
    raw: JSONObject = field(repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def namespace(self) -> str:
        return self.meta.namespace

    @property
    def key(self) -> str:
        return f"{self.meta.namespace}/{self.meta.name}"

    def is_controlled_by(self, pod: Pod) -> bool:
        """metav1.IsControlledBy: the controller owner reference has the pod's UID."""
        for ref in self.meta.owner_references:
            if isinstance(ref, dict) and ref.get("controller") is True:
                return str(ref.get("uid", "")) == pod.uid
        return False

    def is_reserved_for(self, pod: Pod) -> bool:
        return any(r.uid == pod.uid for r in self.reserved_for)

    @staticmethod
    def from_dict(raw: JSONObject) -> "ResourceClaim":
        meta = _meta(raw, namespaced=True)
        status = _dict(raw.get("status"), "status")
        reserved = []
        for i, r in enumerate(_list(status.get("reservedFor"), "status.reservedFor")):
            r = _dict(r, f"status.reservedFor[{i}]")
            reserved.append(
                ResourceClaimConsumerReference(
                    str(r.get("resource") or ""), str(r.get("name") or ""), str(r.get("uid") or ""), str(r.get("apiGroup") or "")
                )
            )
        return ResourceClaim(
            meta,
            by_content(_SPECS, claim_spec_from_dict, raw.get("spec"), "spec"),
            _allocation(status.get("allocation"), "status.allocation"),
            tuple(reserved),
            raw,
        )


@dataclass(slots=True, eq=False)
class ResourceClaimTemplate:
    """A ResourceClaimTemplate: the spec and metadata of the claims kube's resourceclaim controller creates from it for pods."""

    meta: ObjectMeta
    claim_metadata: JSONObject  # spec.metadata: labels and annotations copied into generated claims
    spec: ResourceClaimSpec
    raw: JSONObject = field(repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @staticmethod
    def from_dict(raw: JSONObject) -> "ResourceClaimTemplate":
        meta = _meta(raw, namespaced=True)
        spec = _dict(raw.get("spec"), "spec")
        return ResourceClaimTemplate(
            meta,
            _dict(spec.get("metadata"), "spec.metadata"),
            by_content(_SPECS, claim_spec_from_dict, spec.get("spec"), "spec.spec"),
            raw,
        )


def claim_from_template(pod: Pod, ref: PodClaimRef, template: ResourceClaimTemplate) -> ResourceClaim:
    """The ResourceClaim kube's resourceclaim controller creates for ``ref`` from ``template``:
    the template's spec, its labels and annotations plus the pod-claim-name annotation, owned
    and controlled by the pod, in the pod's namespace."""
    if ref.claim_name is None:
        raise ValueError("claim_from_template needs a claim name")
    md = template.claim_metadata
    annotations = dict(_dict(md.get("annotations"), "spec.metadata.annotations"))
    annotations[POD_CLAIM_NAME_ANNOTATION] = ref.pod_claim_name
    raw = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": ref.claim_name,
            "namespace": pod.namespace,
            "labels": dict(_dict(md.get("labels"), "spec.metadata.labels")),
            "annotations": annotations,
            "ownerReferences": [
                {"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid, "controller": True, "blockOwnerDeletion": True}
            ],
        },
        "spec": copy.deepcopy(template.raw.get("spec", {}).get("spec", {})),
    }
    if not raw["metadata"]["labels"]:
        del raw["metadata"]["labels"]
    return ResourceClaim.from_dict(raw)


__all__ = [
    "ALLOCATION_MODE_ALL",
    "ALLOCATION_MODE_EXACT_COUNT",
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "IMPLICIT_EXTENDED_RESOURCE_PREFIX",
    "AllocationResult",
    "CapacityRequirements",
    "DeviceConstraint",
    "DeviceRequest",
    "DeviceRequestAllocationResult",
    "DeviceToleration",
    "ExactDeviceRequest",
    "PodClaimRef",
    "ResourceClaim",
    "ResourceClaimConsumerReference",
    "ResourceClaimSpec",
    "ResourceClaimTemplate",
    "claim_from_template",
    "claim_spec_from_dict",
    "generated_claim_name",
    "pod_claim_refs",
]
