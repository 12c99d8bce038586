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
from kschedctl.api.errors import ObjectError
from kschedctl.api.field import FieldError
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.resource_admission import DRA_KINDS, served_as_v1, validate_dra_object


def admit_dra(raw: JSONObject) -> None:
    """A DRA object as the API server serves it in resource.k8s.io/v1 (an older version
    converted, one it cannot read refused) and validated (kschedctl.api.resource_admission).
    Both are pure functions of the object, so they are admission, and a large file's run
    ahead with the rest of it on the second core (cluster/admission_ahead.py); the loader
    converts it again to build it, the errors are the ones building it reported."""
    try:
        validate_dra_object(served_as_v1(raw)[0])
    except ObjectError as exc:
        raise Invalid(FieldError(exc.field or "", exc.message)) from None


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
    **dict.fromkeys(DRA_KINDS, admit_dra),
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
