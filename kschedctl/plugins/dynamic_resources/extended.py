"""Extended resources backed by DRA (DRAExtendedResource): extendeddynamicresources.go.

A pod asking for an extended resource (``example.com/gpu: 2``, or the implicit
``deviceclass.resource.kubernetes.io/<class>``) that a DeviceClass maps gets, on a node whose
allocatable lacks that resource, a special claim in memory (``<extended-resources>``) with one
ExactCount request per container and resource (``container-<i>-request-<j>``), allocated like a
user claim; PreBind creates it through the API (named ``<pod>-extended-resources-<suffix>``) and
records the container-to-request mappings in ``pod.status.extendedResourceClaimStatus``. A node
that provides the resource through a device plugin is left to NodeResourcesFit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kschedctl.api.names import MAX_GENERATED_NAME_LENGTH, hashed_suffix
from kschedctl.api.objects import dra_types
from kschedctl.api.podclaims import EXTENDED_RESOURCE_CLAIM_ANNOTATION, IMPLICIT_EXTENDED_RESOURCE_PREFIX
from kschedctl.api.types import Container, Pod
from kschedctl.api.validation import is_extended_resource_name
from kschedctl.framework.resource import pod_requests

if TYPE_CHECKING:
    from kschedctl.api.resourceclaim import ResourceClaim
    from kschedctl.dra.manager import DRAManager
    from kschedctl.framework.types import NodeInfo

SPECIAL_CLAIM_IN_MEM_NAME = "<extended-resources>"


def is_dra_extended_resource_name(name: str) -> bool:
    """schedutil.IsDRAExtendedResourceName."""
    return is_extended_resource_name(name) or name.startswith(IMPLICIT_EXTENDED_RESOURCE_PREFIX)


def is_special_claim_name(name: str) -> bool:
    return name == SPECIAL_CLAIM_IN_MEM_NAME


def pod_extended_requests(pod: Pod, manager: Callable[[], DRAManager]) -> dict[str, Fraction] | None:
    """The pod's requests when one of them (non-zero) is an extended resource a DeviceClass
    maps (hasDeviceClassMappedExtendedResource), else None. ``manager`` gives the shared DRA
    state, asked for only when the pod requests an extended resource."""
    reqs = pod_requests(pod)
    for name, qty in reqs.items():
        if qty and is_dra_extended_resource_name(name) and manager().class_for_extended_resource(name) is not None:
            return reqs
    return None


def find_extended_resource_claim(pod: Pod, manager: DRAManager) -> ResourceClaim | None:
    """findExtendedResourceClaim: the claim annotated as the pod's extended-resource claim and
    controlled by the pod, created by an earlier attempt."""
    for claim in manager.list_claims():
        if claim.meta.annotations.get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
            continue
        for ref in claim.meta.owner_references:
            if (
                isinstance(ref, dict)
                and ref.get("name") == pod.name
                and ref.get("controller") is True
                and str(ref.get("uid", "")) == pod.uid
            ):
                return claim
    return None


def in_memory_claim(pod: Pod) -> ResourceClaim:
    """The special claim of PreFilter: no requests yet, a temporary UID."""
    claim: ResourceClaim = dra_types()["ResourceClaim"].from_dict(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {
                "name": SPECIAL_CLAIM_IN_MEM_NAME,
                "namespace": pod.namespace,
                "uid": f"{pod.uid}/extended-resources",
                "generateName": f"{pod.name}-extended-resources-",
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid, "controller": True}],
                "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
            },
            "spec": {},
        }
    )
    return claim


def generated_name(claim: ResourceClaim, pod: Pod) -> str:
    """The API server's name for a claim created with generateName (5 random characters;
    derived from the pod's UID here, so runs are reproducible)."""
    base = str(claim.raw.get("metadata", {}).get("generateName") or f"{pod.name}-extended-resources-")
    return base[:MAX_GENERATED_NAME_LENGTH] + hashed_suffix(f"{pod.uid}/extended-resources")


@dataclass(frozen=True, slots=True)
class Mapping:
    """v1.ContainerExtendedResourceRequest."""

    container_name: str
    resource_name: str
    request_name: str

    def to_dict(self) -> dict[str, str]:
        return {"containerName": self.container_name, "resourceName": self.resource_name, "requestName": self.request_name}


@dataclass(slots=True)
class _Request:
    """One device request of the special extended-resources claim: its name (``container-<i>-request-<j>``), DeviceClass and count."""

    name: str
    class_name: str
    count: int


def node_requests(
    extended: dict[str, int],
    node_info: "NodeInfo",
    manager: DRAManager,
) -> tuple[dict[str, int] | None, str | None]:
    """filterExtendedResources' first half: which extended resources this node must provide
    through DRA (allocatable 0 and a class maps it), or "cannot fit resource" when a request
    is neither in allocatable nor backed by DRA."""
    out: dict[str, int] = {}
    allocatable = node_info.allocatable.scalar_resources
    for name, qty in extended.items():
        if not is_dra_extended_resource_name(name) or qty == 0:
            continue
        backed = manager.class_for_extended_resource(name) is not None
        if backed and allocatable.get(name, 0) == 0:
            out[name] = qty
        elif name not in allocatable:
            return None, "cannot fit resource"
    return out, None


def _partition(containers: list[Container], num_init: int) -> tuple[list[int], list[int]]:
    long_lived, short_lived = [], []
    for i, c in enumerate(containers):
        if i < num_init and not c.is_sidecar:
            short_lived.append(i)
        else:
            long_lived.append(i)
    return long_lived, short_lived


def _request_and_mappings(
    index: int, container: Container, resource: str, class_name: str, reusable: list[_Request | None]
) -> tuple[_Request | None, list[Mapping]]:
    """createResourceRequestAndMappings."""
    mappings: list[Mapping] = []
    qty = container.requests.get(resource)
    if qty is None or Fraction(qty).denominator != 1 or qty == 0:
        return None, []
    want = int(qty)
    total = 0
    for r in reusable:
        if r is not None:
            total += r.count
            mappings.append(Mapping(container.name, resource, r.name))
            if total >= want:
                return None, mappings
    ridx = sorted(container.requests).index(resource)
    name = f"container-{index}-request-{ridx}"
    mappings.append(Mapping(container.name, resource, name))
    return _Request(name, class_name, want - total), mappings


def requests_and_mappings(pod: Pod, extended: dict[str, int], manager: DRAManager) -> tuple[list[dict[str, Any]], list[Mapping]]:
    """createRequestsAndMappings: the special claim's device requests (sorted by name) and the
    container mappings, for the resources the node must provide through DRA."""
    containers = list(pod.init_containers) + list(pod.containers)
    long_lived, short_lived = _partition(containers, len(pod.init_containers))
    requests: list[_Request] = []
    mappings: list[Mapping] = []
    for resource in sorted(extended):
        cls = manager.class_for_extended_resource(resource)
        if cls is None:
            continue
        long_requests: list[_Request | None] = [None] * len(containers)
        long_mappings: list[Mapping] = []
        for i in long_lived:
            req, maps = _request_and_mappings(i, containers[i], resource, cls.name, [])
            long_requests[i] = req
            long_mappings += maps
        biggest: _Request | None = None
        short_names: set[str] = set()
        short_mappings: list[Mapping] = []
        for i in short_lived:
            req, maps = _request_and_mappings(i, containers[i], resource, cls.name, long_requests[i:])
            if req is not None:
                short_names.add(req.name)
                if biggest is None or biggest.count < req.count:
                    biggest = req
            short_mappings += maps
        if biggest is not None and len(short_names) > 1:
            short_names.discard(biggest.name)
            short_mappings = [
                Mapping(m.container_name, m.resource_name, biggest.name if m.request_name in short_names else m.request_name)
                for m in short_mappings
            ]
        if biggest is not None:
            requests.append(biggest)
        requests.extend(r for r in long_requests if r is not None)
        mappings += long_mappings + short_mappings
    requests.sort(key=lambda r: r.name)
    raw = [
        {"name": r.name, "exactly": {"deviceClassName": r.class_name, "allocationMode": "ExactCount", "count": r.count}} for r in requests
    ]
    return raw, mappings


__all__ = [
    "Mapping",
    "SPECIAL_CLAIM_IN_MEM_NAME",
    "find_extended_resource_claim",
    "generated_name",
    "in_memory_claim",
    "is_dra_extended_resource_name",
    "is_special_claim_name",
    "node_requests",
    "pod_extended_requests",
    "requests_and_mappings",
]
