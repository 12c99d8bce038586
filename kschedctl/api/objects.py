"""ClusterObjects: the non-node, non-pod objects of a snapshot, indexed the way plugins look them up.

These play the part of kube-scheduler's informer listers (namespaces, PVCs, PVs, storage
classes, CSINodes, PDBs, priority classes, and the owners whose selectors feed
PodTopologySpread's default constraints), and the DRA objects the DynamicResources plugin reads.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kschedctl.api.types import (
    GenericObject,
    Namespace,
    PodDisruptionBudget,
    PriorityClass,
)

if TYPE_CHECKING:  # the DRA tables' types: loaded by the first DRA object read (cluster/loader.py)
    from kschedctl.api.devicetaintrule import DeviceTaintRule
    from kschedctl.api.resource import DeviceClass, ResourceSlice
    from kschedctl.api.resourceclaim import ResourceClaim, ResourceClaimTemplate


@dataclass
class ClusterObjects:
    """A snapshot's objects other than nodes and pods, by kind, indexed by name or "ns/name" as plugins look them up."""

    namespaces: dict[str, Namespace] = field(default_factory=dict)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    persistent_volumes: dict[str, GenericObject] = field(default_factory=dict)
    persistent_volume_claims: dict[str, GenericObject] = field(default_factory=dict)  # "ns/name"
    storage_classes: dict[str, GenericObject] = field(default_factory=dict)
    csi_nodes: dict[str, GenericObject] = field(default_factory=dict)
    csi_drivers: dict[str, GenericObject] = field(default_factory=dict)
    # owners whose selectors make up the default spreading selector (helper.DefaultSelector)
    services: list[GenericObject] = field(default_factory=list)
    replication_controllers: list[GenericObject] = field(default_factory=list)
    replica_sets: list[GenericObject] = field(default_factory=list)
    stateful_sets: list[GenericObject] = field(default_factory=list)
    # the pods a new node gets (what-if: capacity --add-nodes / --nodes-for, simulate addNode)
    daemon_sets: list[GenericObject] = field(default_factory=list)
    # pod groups: (kind, "ns/name") -> object; kinds as given in the snapshot
    pod_groups: dict[tuple[str, str], GenericObject] = field(default_factory=dict)
    # Dynamic Resource Allocation (resource.k8s.io/v1): classes and slices by name, claims and
    # templates by "ns/name"
    device_classes: dict[str, DeviceClass] = field(default_factory=dict)
    resource_slices: dict[str, ResourceSlice] = field(default_factory=dict)
    resource_claims: dict[str, ResourceClaim] = field(default_factory=dict)
    resource_claim_templates: dict[str, ResourceClaimTemplate] = field(default_factory=dict)
    # DeviceTaintRules by name (read only: applied to slices by the DRA manager when the gate is on)
    device_taint_rules: dict[str, DeviceTaintRule] = field(default_factory=dict)
    # (kind, apiVersion) -> how many objects were read from an older resource.k8s.io version
    dra_conversions: dict[tuple[str, str], int] = field(default_factory=dict)
    # anything else the loader accepted but no plugin reads yet, by kind
    other: dict[str, list[GenericObject]] = field(default_factory=dict)

    DRA_TABLES = ("device_classes", "resource_slices", "resource_claims", "resource_claim_templates")

    def with_own_dra_objects(self) -> "ClusterObjects":
        """A shallow copy whose DRA tables are its own: a run writes claims (and a scenario adds
        slices and classes) there, leaving the input snapshot's objects as they were read."""
        out = dataclasses.replace(self)
        for name in self.DRA_TABLES:
            setattr(out, name, dict(getattr(self, name)))
        return out

    def dra_objects(self) -> dict[str, dict[str, Any]]:
        """The DRA tables as {kind: {key: raw object}} (the state a run left them in)."""
        kinds = ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate")
        return {kind: {key: obj.raw for key, obj in getattr(self, name).items()} for kind, name in zip(kinds, self.DRA_TABLES)}

    def namespace_labels(self, namespace: str) -> dict[str, str]:
        """Labels of a Namespace object; a namespace absent from the snapshot has the
        `kubernetes.io/metadata.name` label the API server always sets."""
        ns = self.namespaces.get(namespace)
        if ns is not None:
            labels = dict(ns.meta.labels)
            labels.setdefault("kubernetes.io/metadata.name", namespace)
            return labels
        return {"kubernetes.io/metadata.name": namespace}

    def pvc(self, namespace: str, name: str) -> GenericObject | None:
        return self.persistent_volume_claims.get(f"{namespace}/{name}")

    def global_default_priority_class(self) -> PriorityClass | None:
        """The global default class; with several, the one with the lowest value (admission plugin)."""
        defaults = [pc for pc in self.priority_classes.values() if pc.global_default]
        if not defaults:
            return None
        return min(defaults, key=lambda pc: pc.value)


# kind -> the type of a DRA object or a DeviceTaintRule, filled by the first dra_types() call.
_DRA_TYPES: dict[str, Any] = {}


def dra_types() -> dict[str, Any]:
    """kind -> its type, for DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate
    and DeviceTaintRule: imported by the first call, so a run that meets no such object never
    imports them (some 25 dataclasses, ~3 ms of a start). Kept in a table rather than imported
    where an object is built: an import statement costs ~1 us each time it runs, 5 ms over a
    file of 5,000 claims."""
    if not _DRA_TYPES:
        from kschedctl.api.devicetaintrule import DeviceTaintRule
        from kschedctl.api.resource import DeviceClass, ResourceSlice
        from kschedctl.api.resourceclaim import ResourceClaim, ResourceClaimTemplate

        _DRA_TYPES.update(
            DeviceClass=DeviceClass,
            ResourceSlice=ResourceSlice,
            ResourceClaim=ResourceClaim,
            ResourceClaimTemplate=ResourceClaimTemplate,
            DeviceTaintRule=DeviceTaintRule,
        )
    return _DRA_TYPES
