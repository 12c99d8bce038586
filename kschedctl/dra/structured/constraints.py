"""Claim constraints: matchAttribute (allocator_experimental.go) and distinctAttribute (constraint.go).

Constraints are monotonic: once a device breaks one, adding more devices cannot repair it, so
the search backtracks. A constraint with a request list only applies to those requests (a
subrequest matches by its parent's name or ``parent/sub``).
"""

from __future__ import annotations

from typing import Protocol

from kschedctl.api.resource import Device, DeviceAttribute
from kschedctl.api.resourceclaim import ResourceClaim
from kschedctl.dra.structured.types import AllocationError, DeviceID, Features, kobj


def lookup_attribute(device: Device, device_id: DeviceID, name: str) -> DeviceAttribute | None:
    """lookupAttribute: the fully qualified name, or the bare name when the domain is the driver's."""
    attr = device.attributes.get(name)
    if attr is not None:
        return attr
    idx = name.find("/")
    if idx < 0 or name[:idx] != device_id.driver:
        return None
    return device.attributes.get(name[idx + 1 :])


class Constraint(Protocol):
    def add(self, request: str, sub: str, device: Device, device_id: DeviceID) -> bool: ...

    def remove(self, request: str, sub: str, device: Device, device_id: DeviceID) -> None: ...


class _Base:
    def __init__(self, requests: tuple[str, ...], attribute: str) -> None:
        self.requests = frozenset(requests)
        self.attribute = attribute
        self.num_devices = 0

    def applies(self, request: str, sub: str) -> bool:
        if not self.requests:
            return True
        if not sub:
            return request in self.requests
        return request in self.requests or f"{request}/{sub}" in self.requests


def _same(a: DeviceAttribute, b: DeviceAttribute) -> bool:
    return a.kind == b.kind and a.kind != "unsupported" and a.value == b.value


class MatchAttributeConstraint(_Base):
    """All devices of the constrained requests share one value of the attribute."""

    def __init__(self, requests: tuple[str, ...], attribute: str) -> None:
        super().__init__(requests, attribute)
        self.value: DeviceAttribute | None = None

    def add(self, request: str, sub: str, device: Device, device_id: DeviceID) -> bool:
        if not self.applies(request, sub):
            return True
        attr = lookup_attribute(device, device_id, self.attribute)
        if attr is None:
            return False
        if self.num_devices == 0:
            self.value = attr
            self.num_devices = 1
            return True
        if self.value is None or not _same(attr, self.value):
            return False
        self.num_devices += 1
        return True

    def remove(self, request: str, sub: str, device: Device, device_id: DeviceID) -> None:
        if self.applies(request, sub):
            self.num_devices -= 1


class DistinctAttributeConstraint(_Base):
    """Each constrained request gets a device with a different value of the attribute
    (values are remembered per request name, as upstream does)."""

    def __init__(self, requests: tuple[str, ...], attribute: str) -> None:
        super().__init__(requests, attribute)
        self.values: dict[str, DeviceAttribute] = {}

    def add(self, request: str, sub: str, device: Device, device_id: DeviceID) -> bool:
        if not self.applies(request, sub):
            return True
        attr = lookup_attribute(device, device_id, self.attribute)
        if attr is None:
            return False
        if self.num_devices == 0:
            self.values[request] = attr
            self.num_devices = 1
            return True
        for other in self.values.values():
            if attr.kind == "unsupported" or (other.kind == attr.kind and other.value == attr.value):
                return False
        self.values[request] = attr
        self.num_devices += 1
        return True

    def remove(self, request: str, sub: str, device: Device, device_id: DeviceID) -> None:
        if self.applies(request, sub):
            self.values.pop(request, None)
            self.num_devices -= 1


def make_constraints(claim: ResourceClaim, features: Features) -> list[Constraint]:
    """One constraint object per entry of spec.devices.constraints. distinctAttribute exists
    only in the experimental variant (consumable capacity / binding conditions); elsewhere it
    is an unknown constraint, as in kube."""
    out: list[Constraint] = []
    experimental = features.implementation() == "experimental"
    for i, c in enumerate(claim.spec.constraints):
        if c.match_attribute is not None:
            out.append(MatchAttributeConstraint(c.requests, c.match_attribute))
        elif c.distinct_attribute is not None and experimental:
            out.append(DistinctAttributeConstraint(c.requests, c.distinct_attribute))
        else:
            raise AllocationError(f"claim {kobj(claim)}, constraint #{i}: empty constraint (unsupported constraint type?)")
    return out
