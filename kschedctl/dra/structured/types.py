"""The allocator's inputs and errors: structured/internal/types.go, schedulerapi/types.go, allocator.go."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from kschedctl.api.resource import Device, ResourceSlice
from kschedctl.api.resourceclaim import ResourceClaim
from kschedctl.versions import KubeVersion


def kobj(claim: ResourceClaim) -> str:
    """klog.KObj: namespace/name, or just the name without a namespace."""
    return f"{claim.namespace}/{claim.name}" if claim.namespace else claim.name


class DeviceID(NamedTuple):
    driver: str
    pool: str
    device: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


@dataclass(slots=True)
class DeviceResult:
    """One device allocated for a request during an allocation attempt (the allocator's
    internal result, made into an AllocationResult by results.build_result)."""

    request: str
    parent: str | None
    id: DeviceID
    device: Device
    slice: ResourceSlice
    admin_access: bool
    share_id: str | None = None
    consumed: dict[str, Fraction] | None = None


@dataclass(frozen=True, slots=True)
class Features:
    """internal.Features (what the allocator does differently per feature gate), plus the
    release's own behaviour changes that are not gates."""

    admin_access: bool = False
    prioritized_list: bool = False
    partitionable_devices: bool = False
    device_taints: bool = False
    device_binding_and_status: bool = False  # DRADeviceBindingConditions && DRAResourceClaimDeviceStatus
    consumable_capacity: bool = False
    sorted_pools: bool = False  # 1.36: pools and slices in name order (kubernetes/kubernetes#136641)
    accounting_fixes: bool = False  # 1.36: counters/capacity rolled back on rejection, shared devices counted

    @staticmethod
    def for_version(version: KubeVersion) -> "Features":
        """AllocatorFeatures (dynamicresources.go) for the emulated release and its gates."""
        on = version.feature_enabled
        return Features(
            admin_access=on("DRAAdminAccess"),
            prioritized_list=on("DRAPrioritizedList"),
            partitionable_devices=on("DRAPartitionableDevices"),
            device_taints=on("DRADeviceTaints"),
            device_binding_and_status=on("DRADeviceBindingConditions") and on("DRAResourceClaimDeviceStatus"),
            consumable_capacity=on("DRAConsumableCapacity"),
            sorted_pools=version.has("DRASortedPoolsAndSlices"),
            accounting_fixes=version.has("DRAAllocatorAccountingFixes"),
        )

    def implementation(self) -> str:
        """Which upstream variant kube picks for these gates (structured/allocator.go):
        stable when none is on, incubating for admin access, prioritized list, partitionable
        devices and device taints, experimental when binding conditions or consumable capacity
        are on. This allocator implements the experimental superset; with a feature off it
        behaves as the simpler variants do (the upstream test table is shared by all three)."""
        if self.device_binding_and_status or self.consumable_capacity:
            return "experimental"
        if self.admin_access or self.prioritized_list or self.partitionable_devices or self.device_taints:
            return "incubating"
        return "stable"


@dataclass(slots=True)
class AllocatedState:
    """schedulerapi.AllocatedState: devices already taken by other claims (allocated or in flight)."""

    allocated_devices: set[DeviceID] = field(default_factory=set)
    shared_device_ids: set[tuple[DeviceID, str]] = field(default_factory=set)
    aggregated_capacity: dict[DeviceID, dict[str, Fraction]] = field(default_factory=dict)

    def add_claim(self, claim: ResourceClaim, consumable_capacity: bool) -> None:
        """foreachAllocatedDevice (allocateddevices.go): admin-access results take nothing;
        with consumable capacity, results with a shareID are shared and add their consumed
        capacity; every other result takes the whole device."""
        if claim.allocation is None:
            return
        for r in claim.allocation.results:
            if r.admin_access:
                continue
            device_id = DeviceID(r.driver, r.pool, r.device)
            if consumable_capacity and r.share_id is not None:
                self.shared_device_ids.add((device_id, r.share_id))
                if r.consumed_capacity is not None:
                    total = self.aggregated_capacity.setdefault(device_id, {})
                    for name, value in r.consumed_capacity.items():
                        total[name] = total.get(name, Fraction(0)) + value
                continue
            self.allocated_devices.add(device_id)

    @staticmethod
    def from_claims(claims: Iterable[ResourceClaim], consumable_capacity: bool) -> "AllocatedState":
        state = AllocatedState()
        for claim in claims:
            state.add_claim(claim, consumable_capacity)
        return state

    def is_device_allocated(self, device_id: DeviceID) -> bool:
        """structured.IsDeviceAllocated: whole, shared, or with capacity consumed."""
        if device_id in self.allocated_devices or device_id in self.aggregated_capacity:
            return True
        return any(d == device_id for d, _ in self.shared_device_ids)


class AllocationError(Exception):
    """Allocate failed for a reason kube reports as an error of the scheduling attempt
    (invalid claim or class, CEL failure, ...): the DynamicResources plugin turns it into a
    Status with code Error and this message."""


class AllocationFailedOnNode(AllocationError):
    """structured.ErrFailedAllocationOnNode: only this node cannot be used ("invalid resource
    pools were encountered"); the plugin reports the message as UnschedulableAndUnresolvable."""


class AllocationCancelled(AllocationError):
    """The caller's deadline passed (DynamicResourcesArgs.filterTimeout): kube's
    "timed out trying to allocate devices"."""
