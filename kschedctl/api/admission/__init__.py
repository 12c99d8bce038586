"""Admission: every object of a snapshot is checked as kube-apiserver would check it on create,
for the fields the scheduler reads, before anything is built from it.

A snapshot taken from a live cluster always passes (the API server admitted every object); a
hand-written or edited one gets the API server's own verdict, with its field path and message,
instead of a crash or a silently wrong decision later. ``admit`` returns the first error.
Kinds kschedctl does not read are not checked (they are passed through).
"""

from __future__ import annotations

from collections.abc import Callable

from kschedctl.api.admission.core import admit_namespace, admit_node
from kschedctl.api.admission.fields import Invalid
from kschedctl.api.admission.other import (
    admit_csi_driver,
    admit_csi_node,
    admit_csi_storage_capacity,
    admit_daemon_set,
    admit_owner,
    admit_pdb,
    admit_persistent_volume,
    admit_persistent_volume_claim,
    admit_pod_group,
    admit_priority_class,
    admit_storage_class,
    admit_workload,
)
from kschedctl.api.admission.pod import admit_pod
from kschedctl.api.field import FieldError
from kschedctl.api.jsontypes import JSONObject

ADMITTERS: dict[str, Callable[[JSONObject], None]] = {
    "Pod": admit_pod,
    "Node": admit_node,
    "Namespace": admit_namespace,
    "PriorityClass": admit_priority_class,
    "PodDisruptionBudget": admit_pdb,
    "PersistentVolume": admit_persistent_volume,
    "PersistentVolumeClaim": admit_persistent_volume_claim,
    "StorageClass": admit_storage_class,
    "CSINode": admit_csi_node,
    "CSIDriver": admit_csi_driver,
    "CSIStorageCapacity": admit_csi_storage_capacity,
    "Service": admit_owner,
    "ReplicaSet": admit_owner,
    "StatefulSet": admit_owner,
    "DaemonSet": admit_daemon_set,
    "ReplicationController": admit_owner,
    "PodGroup": admit_pod_group,
    "Workload": admit_workload,
}
# Kinds whose names are unique per namespace (the others are cluster-scoped).
NAMESPACED = frozenset(
    {
        "Pod",
        "PodDisruptionBudget",
        "PersistentVolumeClaim",
        "CSIStorageCapacity",
        "Service",
        "ReplicaSet",
        "StatefulSet",
        "DaemonSet",
        "ReplicationController",
        "PodGroup",
        "Workload",
        "ResourceClaim",
        "ResourceClaimTemplate",
    }
)


def admit(raw: JSONObject) -> FieldError | None:
    """The first validation error of an object (None: admitted, or a kind not read)."""
    admitter = ADMITTERS.get(raw.get("kind"))  # type: ignore[arg-type]
    if admitter is None:
        return None
    try:
        admitter(raw)
    except Invalid as exc:
        return exc.error
    return None


__all__ = ["ADMITTERS", "NAMESPACED", "admit"]
