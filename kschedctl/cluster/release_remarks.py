"""What the emulated release would do with the snapshot that kschedctl does not model, said on
stderr rather than misjudged quietly.

* NodeDeclaredFeatures (beta and on in 1.36, GA and locked on in 1.37; versioned specs in
  staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go of the 1.37 tree): kube-scheduler's
  NodeDeclaredFeatures Filter (pkg/scheduler/framework/plugins/nodedeclaredfeatures) infers the
  node features a pod's spec needs from the registry in k8s.io/component-helpers/
  nodedeclaredfeatures/features and keeps the pod off nodes whose status.declaredFeatures lack
  one. kschedctl has no such filter; a snapshot whose nodes declare features is where it shows.
* CSIDriver spec.preventPodSchedulingIfMissing (VolumeLimitScaling: alpha 1.35, beta and on in
  1.37): NodeVolumeLimits keeps a pod using such a driver off nodes whose CSINode does not list
  it. The stored 1.37 csi.go holding that check was not found, so its exact statuses are unknown;
  said for the drivers that set the field.
* PodGroup spec.resourceClaims (DRAWorkloadResourceClaims, KEP-5729: alpha in 1.36, beta and off
  by default in 1.37): claims the pods of a group share. Not modelled; said for the PodGroups that
  carry them when the release reads pod groups at all (GenericWorkload on).
"""

from __future__ import annotations

from typing import Any

from kschedctl.cluster.references import first_names
from kschedctl.framework.podgroup import POD_GROUP_KIND, uses_pod_group_object


def release_remarks(cluster: Any, version: Any) -> list[str]:
    """One line per 1.36/1.37 behaviour the snapshot calls on and kschedctl does not model."""
    return [*_declared_features(cluster, version), *_pod_group_claims(cluster, version), *_drivers_required(cluster, version)]


def _declared_features(cluster: Any, version: Any) -> list[str]:
    if not version.feature_enabled("NodeDeclaredFeatures"):
        return []
    nodes = [n.name for n in cluster.nodes if _status(n.raw).get("declaredFeatures")]
    if not nodes:
        return []
    return [
        f"node(s) {first_names(nodes)} declare features (status.declaredFeatures): kube-scheduler {version.version} "
        "keeps a pod off a node that lacks a feature its spec needs (the NodeDeclaredFeatures filter); "
        "kschedctl does not model that filter, so such a pod may be placed where kube would not place it"
    ]


def _pod_group_claims(cluster: Any, version: Any) -> list[str]:
    if not uses_pod_group_object(version) or not version.feature_enabled("GenericWorkload"):
        return []
    groups = getattr(cluster.objects, "pod_groups", None) or {}
    keys = sorted(key for (kind, key), obj in groups.items() if kind == POD_GROUP_KIND and _spec(obj.raw).get("resourceClaims"))
    if not keys:
        return []
    return [
        f"PodGroup(s) {first_names(keys)} set spec.resourceClaims (DRAWorkloadResourceClaims): kschedctl does not "
        "model claims shared by a pod group; each pod's own spec.resourceClaims are scheduled as written"
    ]


def _drivers_required(cluster: Any, version: Any) -> list[str]:
    if not version.feature_enabled("VolumeLimitScaling"):
        return []
    drivers = getattr(cluster.objects, "csi_drivers", None) or {}  # name -> GenericObject
    names = sorted(d.name for d in drivers.values() if _spec(d.raw).get("preventPodSchedulingIfMissing") is True)
    if not names:
        return []
    return [
        f"CSIDriver(s) {first_names(names)} set spec.preventPodSchedulingIfMissing: kube-scheduler {version.version} "
        "(VolumeLimitScaling) keeps a pod using them off nodes whose CSINode does not list the driver; kschedctl does "
        "not model that check"
    ]


def _status(raw: dict[str, Any]) -> dict[str, Any]:
    status = raw.get("status")
    return status if isinstance(status, dict) else {}


def _spec(raw: dict[str, Any]) -> dict[str, Any]:
    spec = raw.get("spec")
    return spec if isinstance(spec, dict) else {}


__all__ = ["release_remarks"]
