"""What the snapshot lacks: objects its pods refer to that it does not hold, and emptiness.

A snapshot taken with too narrow a `kubectl get` (nodes and pods only, say) still schedules, but
kube-scheduler would have read more: a pod's PersistentVolumeClaims and the volumes and classes
behind them, its PriorityClass, its ResourceClaims and pod group, the labels of the Namespaces a
namespaceSelector looks at, the CSINodes that carry volume limits. Each kind the pods refer to
and the snapshot lacks becomes one ``MissingReference``: which objects (the first few and how
many), which pods want them, what the scheduling sees without them, and the kubectl command that
captures the kind. The CLI says each on stderr; nothing here prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.storage import MIGRATABLE
from kschedctl.api.storage import NOT_SUPPORTED_PROVISIONER as NO_PROVISIONER
from kschedctl.api.types import Pod, Volume
from kschedctl.cluster.loader import ClusterSnapshot, is_pending
from kschedctl.framework.podgroup import scheduling_group_name, uses_pod_group_object, workload_ref

SHOWN = 3  # objects (and pods) named in a message; the rest are counted

# The kubectl command that captures each kind (kschedctl capture takes them all).
CAPTURE_COMMANDS = {
    "Node": "kubectl get nodes -o yaml",
    "PersistentVolumeClaim": "kubectl get pvc -A -o yaml",
    "PersistentVolume": "kubectl get pv -o yaml",
    "StorageClass": "kubectl get storageclasses -o yaml",
    "PriorityClass": "kubectl get priorityclasses -o yaml",
    "Namespace": "kubectl get namespaces -o yaml",
    "ResourceClaim": "kubectl get resourceclaims -A -o yaml",
    "PodGroup": "kubectl get podgroups.scheduling.k8s.io -A -o yaml",
    "Workload": "kubectl get workloads -A -o yaml",
    "CSINode": "kubectl get csinodes -o yaml",
}

# What scheduling sees without the kind (kube's view of an object it cannot find).
EFFECTS = {
    "Node": (
        "a bound pod there counts on no node (kube's cache holds it apart until the node appears); "
        "a pod that requires it by matchFields metadata.name fits nowhere"
    ),
    "PersistentVolumeClaim": "a pod to schedule is unschedulable without its claims (persistentvolumeclaim ... not found)",
    "PersistentVolume": "the volumes' node affinity, zones and drivers cannot be checked",
    "StorageClass": "their claims are taken as Immediate binding, with no provisioner",
    "PriorityClass": "the pods' spec.priority is used as it is",
    "Namespace": "a namespaceSelector sees only their kubernetes.io/metadata.name label",
    "ResourceClaim": "DynamicResources keeps their pods pending",
    "PodGroup": "their pods are scheduled one by one, not as a group",
    "Workload": "their pods are scheduled one by one, not as a group",
    "CSINode": "NodeVolumeLimits knows no CSI attach limit on them",
}

# Capture order of the kinds, for a stable order of the warnings.
KIND_ORDER = list(CAPTURE_COMMANDS)


@dataclass(frozen=True)
class MissingReference:
    """Objects of one kind that pods (or their claims) refer to and the snapshot lacks."""

    kind: str
    names: tuple[str, ...]  # the missing objects, sorted: "ns/name" or "name"
    referrers: tuple[str, ...]  # who refers to them: pods "ns/name" (nodes for CSINode)

    @property
    def command(self) -> str:
        return CAPTURE_COMMANDS[self.kind]

    @property
    def effect(self) -> str:
        return EFFECTS[self.kind]

    def message(self) -> str:
        """One line: the objects, who wants them, what scheduling sees, how to capture them."""
        who = "node" if self.kind == "CSINode" else "pod"
        who += "s" if len(self.referrers) > 1 else ""
        wanted = "for" if self.kind == "CSINode" else "used by"
        return (
            f"the snapshot has no {self.kind} {first_names(self.names)} ({wanted} {who} "
            f"{first_names(self.referrers)}): {self.effect}; capture {'them' if len(self.names) > 1 else 'it'} "
            f"with `{self.command}`"
        )

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "names": list(self.names), "referrers": list(self.referrers), "command": self.command}


def first_names(items: Sequence[str]) -> str:
    """The first SHOWN names, and how many more."""
    shown = ", ".join(items[:SHOWN])
    return shown if len(items) <= SHOWN else f"{shown} and {len(items) - SHOWN} more"


class _Collector:
    """Missing objects by kind, each with the pods that refer to it (in snapshot order)."""

    def __init__(self) -> None:
        self.missing: dict[str, dict[str, list[str]]] = {}

    def add(self, kind: str, name: str, referrer: str) -> None:
        refs = self.missing.setdefault(kind, {}).setdefault(name, [])
        if referrer not in refs:
            refs.append(referrer)

    def result(self) -> list[MissingReference]:
        out = []
        for kind in KIND_ORDER:
            objs = self.missing.get(kind)
            if not objs:
                continue
            referrers = list(dict.fromkeys(r for name in sorted(objs) for r in objs[name]))
            out.append(MissingReference(kind, tuple(sorted(objs)), tuple(referrers)))
        return out


def missing_references(cluster: ClusterSnapshot, version: Any) -> list[MissingReference]:
    """Every kind the pods refer to and the snapshot lacks, one entry per kind."""
    found = _Collector()
    live = [p for p in cluster.pods if not p.is_terminal]
    pending = [p for p in live if is_pending(p)]
    pending_keys = {p.key for p in pending}
    claims = set(cluster.objects.resource_claims)
    for pod in live:
        _claims(cluster, pod, found, check_class=pod.key in pending_keys)
        if pod.resource_claims:
            _resource_claims(claims, pod, found)
    node_names = {n.name for n in cluster.nodes}
    for pod in live:
        if pod.node_name and pod.node_name not in node_names:
            found.add("Node", pod.node_name, pod.key)
    for pod in pending:
        for name in required_node_names(pod):
            if name not in node_names:
                found.add("Node", name, pod.key)
        if pod.priority_class_name and pod.priority_class_name not in cluster.objects.priority_classes:
            found.add("PriorityClass", pod.priority_class_name, pod.key)
        _pod_group(cluster, pod, version, found)
    _namespaces(cluster, live, found)
    if any(_uses_attachable_volumes(cluster, pod) for pod in pending):
        for node in cluster.nodes:
            if node.name not in cluster.objects.csi_nodes:
                found.add("CSINode", node.name, node.name)
    return found.result()


def required_node_names(pod: Pod) -> list[str]:
    """The node names a pod's required node affinity allows by ``matchFields metadata.name``
    (NodeAffinity's PreFilter narrows the nodes to them when every term names some), in the
    order written."""
    affinity = pod.affinity.node_affinity if pod.affinity is not None else None
    required = affinity.required if affinity is not None else None
    if required is None:
        return []
    out: list[str] = []
    for term in required.terms:
        for req in term.match_fields:
            if req.key == "metadata.name" and req.operator == "In":
                out.extend(v for v in req.values if v not in out)
    return out


def _claim_name(pod: Pod, vol: Volume) -> str | None:
    """The PVC a volume uses: its claimName, or <pod>-<volume> for a generic ephemeral volume."""
    if vol.pvc_claim_name is not None:
        return vol.pvc_claim_name
    return f"{pod.name}-{vol.name}" if vol.ephemeral else None


def _claims(cluster: ClusterSnapshot, pod: Pod, found: _Collector, check_class: bool) -> None:
    """The pod's PVCs (named and generic ephemeral): each missing one, the PV of a bound one, the
    class of an unbound one (only read when the pod is to be scheduled)."""
    objects = cluster.objects
    for vol in pod.volumes:
        name = _claim_name(pod, vol)
        if name is None:
            continue
        pvc = objects.persistent_volume_claims.get(f"{pod.namespace}/{name}")
        if pvc is None:
            if vol.pvc_claim_name is not None:  # an ephemeral claim may simply not be created yet
                found.add("PersistentVolumeClaim", f"{pod.namespace}/{name}", pod.key)
            continue
        spec = pvc.raw.get("spec") or {}
        volume_name = str(spec.get("volumeName") or "")
        if volume_name:
            if volume_name not in objects.persistent_volumes:
                found.add("PersistentVolume", volume_name, pod.key)
        elif check_class:
            cls = _claim_class(pvc.raw)
            if cls and cls not in objects.storage_classes:
                found.add("StorageClass", cls, pod.key)


def _uses_attachable_volumes(cluster: ClusterSnapshot, pod: Pod) -> bool:
    """A volume NodeVolumeLimits counts against a CSI driver's limit (which CSINode carries):
    a CSI or migratable in-tree source, inline or behind the claim's PV, or an unbound claim
    whose class has a provisioner."""
    objects = cluster.objects
    for vol in pod.volumes:
        if _attachable_source(vol.raw):
            return True
        name = _claim_name(pod, vol)
        pvc = objects.persistent_volume_claims.get(f"{pod.namespace}/{name}") if name else None
        if pvc is None:
            continue
        volume_name = str((pvc.raw.get("spec") or {}).get("volumeName") or "")
        pv = objects.persistent_volumes.get(volume_name) if volume_name else None
        if pv is not None and _attachable_source(pv.raw.get("spec") or {}):
            return True
        sc = objects.storage_classes.get(_claim_class(pvc.raw)) if not volume_name else None
        if sc is not None and str(sc.raw.get("provisioner") or "") not in ("", NO_PROVISIONER):
            return True
    return False


def _attachable_source(source: JSONObject) -> bool:
    return "csi" in source or any(field in source for field, _ in MIGRATABLE.values())


def _claim_class(raw: JSONObject) -> str:
    annotations = (raw.get("metadata") or {}).get("annotations") or {}
    beta = annotations.get("volume.beta.kubernetes.io/storage-class")
    return str(beta if beta is not None else (raw.get("spec") or {}).get("storageClassName") or "")


def _resource_claims(have: set[str], pod: Pod, found: _Collector) -> None:
    """spec.resourceClaims: a named claim, or the claim generated from a template as the pod's
    status records it (without that record kube waits for the claim: not a gap of the snapshot).
    ``have``: the snapshot's claims, "ns/name"."""
    generated = {
        str(s.get("name")): s.get("resourceClaimName")
        for s in ((pod.raw.get("status") or {}).get("resourceClaimStatuses") or [])
        if isinstance(s, dict)
    }
    for ref in pod.resource_claims:
        if not isinstance(ref, dict):
            continue
        name = ref.get("resourceClaimName") or (generated.get(str(ref.get("name"))) if ref.get("resourceClaimTemplateName") else None)
        if name and f"{pod.namespace}/{name}" not in have:
            found.add("ResourceClaim", f"{pod.namespace}/{name}", pod.key)


def _pod_group(cluster: ClusterSnapshot, pod: Pod, version: Any, found: _Collector) -> None:
    """The pod's group object, when the emulated release (gates on) reads it."""
    if not version.feature_enabled("GenericWorkload"):
        return
    groups = cluster.objects.pod_groups
    if uses_pod_group_object(version):
        name = scheduling_group_name(pod)
        if name and ("PodGroup", f"{pod.namespace}/{name}") not in groups:
            found.add("PodGroup", f"{pod.namespace}/{name}", pod.key)
        return
    ref = workload_ref(pod)
    if ref is not None and ("Workload", f"{pod.namespace}/{ref[0]}") not in groups:
        found.add("Workload", f"{pod.namespace}/{ref[0]}", pod.key)


def _namespaces(cluster: ClusterSnapshot, pods: list[Pod], found: _Collector) -> None:
    """Namespace objects matter once some pod's (anti-)affinity term selects namespaces by
    label: then every pod's namespace is matched by its labels."""
    selecting = [p.key for p in pods if _selects_namespaces(p)]
    if not selecting:
        return
    for namespace in dict.fromkeys(p.namespace for p in pods):
        if namespace not in cluster.objects.namespaces:
            for key in selecting:
                found.add("Namespace", namespace, key)


def _selects_namespaces(pod: Pod) -> bool:
    affinity = pod.affinity
    if affinity is None:
        return False
    for group in (affinity.pod_affinity, affinity.pod_anti_affinity):
        if group is None:
            continue
        terms = list(group.required) + [w.term for w in group.preferred]
        if any(t.namespace_selector is not None and not t.namespace_selector.is_empty() for t in terms):
            return True
    return False


def emptiness(cluster: ClusterSnapshot, pending_matters: bool = True) -> str | None:
    """A snapshot with nothing to do says so (the result on stdout stays the normal one)."""
    if not cluster.nodes and not cluster.pods:
        return (
            "the snapshot holds no nodes and no pods: is it the right file? "
            "(capture one with `kubectl get nodes,pods -A -o yaml` or `kschedctl capture`)"
        )
    pending = sum(1 for p in cluster.pods if is_pending(p))
    if pending_matters and not pending:
        return (
            f"no pending pods in the snapshot: nothing to schedule ({len(cluster.pods)} pod(s), none pending; {len(cluster.nodes)} node(s))"
        )
    if not cluster.nodes:
        return "the snapshot holds no nodes: every pending pod is unschedulable (`kubectl get nodes -o yaml`)"
    return None


__all__ = ["CAPTURE_COMMANDS", "MissingReference", "emptiness", "missing_references"]
