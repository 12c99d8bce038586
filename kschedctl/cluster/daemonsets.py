"""DaemonSets: the pods a new node gets before anything else is scheduled on it.

A node that joins the cluster runs one pod of every DaemonSet that selects it, and those pods
take their share of its allocatable. The what-if commands (`capacity --add-nodes`,
`--nodes-for`, `simulate` addNode) add hypothetical nodes; without these pods every estimate is
too generous. What a DaemonSet places on a node follows the DaemonSet controller
(pkg/controller/daemon/daemon_controller.go):

- ``NewPod``: the template's metadata and spec, in the DaemonSet's namespace, with the
  tolerations ``util.AddOrUpdateDaemonPodTolerations`` adds (NoExecute not-ready and unreachable;
  NoSchedule disk-pressure, memory-pressure, pid-pressure, unschedulable; and
  network-unavailable for a hostNetwork pod);
- ``NodeShouldRunDaemonPod``: the template's ``nodeName``, when set, names the node; the pod's
  required node affinity (``nodeSelector`` and required ``nodeAffinity`` terms) matches the
  node; every NoSchedule and NoExecute taint of the node is tolerated. Resources are not
  checked: the controller creates the pod whatever room the node has, and cluster-autoscaler
  (utils/daemonset GetDaemonSetPodsForNode, simulator/node_info_utils.go) puts it on a template
  node the same way.

The controller then has the scheduler place the pod, pinned to the node by a required
``matchFields metadata.name`` term (util.ReplaceDaemonSetPodNodeNameNodeAffinity): that is the
pending pod `simulate` creates. cluster-autoscaler binds it to the template node directly: that
is the bound pod `capacity` puts on the nodes it adds.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from kschedctl.api.admission import admit
from kschedctl.api.admission.other import SYSTEM_PRIORITY_CLASSES
from kschedctl.api.errors import ObjectError
from kschedctl.api.objects import ClusterObjects
from kschedctl.api.types import (
    GenericObject,
    Node,
    Pod,
    Taint,
    Toleration,
    find_matching_untolerated_taint,
)
from kschedctl.framework.resource import Resource, pod_requests

# v1.TaintNode* (staging/src/k8s.io/api/core/v1/well_known_taints.go)
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
PID_PRESSURE = "node.kubernetes.io/pid-pressure"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"
_DAEMON_TOLERATIONS = (
    (NOT_READY, "NoExecute"),
    (UNREACHABLE, "NoExecute"),
    (DISK_PRESSURE, "NoSchedule"),
    (MEMORY_PRESSURE, "NoSchedule"),
    (PID_PRESSURE, "NoSchedule"),
    (UNSCHEDULABLE, "NoSchedule"),
)
_DO_NOT_SCHEDULE = ("NoSchedule", "NoExecute")


class PodRefused(ObjectError):
    """The API server would refuse the DaemonSet's pod (its PriorityClass does not exist): the
    controller's create fails (a FailedCreate event), so no node gets the pod."""


OBJECT_NAME_FIELD = "metadata.name"


def add_daemon_pod_tolerations(spec: dict[str, Any]) -> None:
    """util.AddOrUpdateDaemonPodTolerations: the tolerations every DaemonSet pod carries."""
    wanted = list(_DAEMON_TOLERATIONS)
    if spec.get("hostNetwork") is True:
        wanted.append((NETWORK_UNAVAILABLE, "NoSchedule"))
    tolerations = spec.get("tolerations")
    if not isinstance(tolerations, list):
        tolerations = spec["tolerations"] = []
    for key, effect in wanted:
        _add_or_update_toleration(tolerations, {"key": key, "operator": "Exists", "effect": effect})


def _add_or_update_toleration(tolerations: list[Any], toleration: dict[str, Any]) -> None:
    """v1helper.AddOrUpdateTolerationInPodSpec: one that matches (same key, operator, value and
    effect) is replaced, so a tolerationSeconds bound is dropped; else the toleration is added."""

    def same(t: object) -> bool:
        return isinstance(t, dict) and all(
            str(t.get(k) or "") == str(toleration.get(k) or "") for k in ("key", "operator", "value", "effect")
        )

    for i, old in enumerate(tolerations):
        if same(old):
            tolerations[i] = dict(toleration)
            return
    tolerations.append(dict(toleration))


@dataclass
class DaemonSet:
    """A DaemonSet as the what-if commands read it: its object, and its template as a pod."""

    obj: GenericObject

    @property
    def key(self) -> str:
        return f"{self.obj.namespace}/{self.obj.name}"

    @property
    def template(self) -> dict[str, Any]:
        template: dict[str, Any] = self.obj.raw["spec"]["template"]  # admission checked it is an object
        return template

    def new_pod_raw(self, node_name: str) -> dict[str, Any]:
        """NewPod: what the controller creates for ``node_name`` (metadata, spec, tolerations,
        a controller owner reference); neither bound nor pinned yet."""
        template = copy.deepcopy(self.template)
        md = dict(template.get("metadata") or {})
        for key in ("uid", "resourceVersion", "creationTimestamp", "generateName"):
            md.pop(key, None)
        md["namespace"] = self.obj.namespace
        md["name"] = f"{self.obj.name}-{node_name}"[:253].rstrip("-.")  # a name the API server takes
        md["uid"] = f"kschedctl-daemonset/{self.key}/{node_name}"
        md["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": "DaemonSet",
                "name": self.obj.name,
                "uid": self.obj.meta.uid or f"kschedctl-daemonset/{self.key}",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        spec = template.get("spec")
        spec = dict(spec) if isinstance(spec, dict) else {}
        add_daemon_pod_tolerations(spec)
        return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": {}}

    def template_node_name(self) -> str:
        spec = self.template.get("spec")
        name = spec.get("nodeName") if isinstance(spec, dict) else None
        return name if isinstance(name, str) else ""


def daemon_set_from(obj: GenericObject, objects: ClusterObjects | None = None) -> DaemonSet:
    """A DaemonSet whose template is checked as the pod it becomes (raises ObjectError, the
    field under ``spec.template``): a bad template is found when the snapshot is read."""
    ds = DaemonSet(obj)
    build_pod(ds, ds.new_pod_raw("node"), objects)
    return ds


def build_pod(ds: DaemonSet, raw: dict[str, Any], objects: ClusterObjects | None) -> Pod:
    """The pod admitted and built, with its priority resolved as the Priority admission plugin
    resolves it on create (the class's value; a built-in system class's; else the default)."""
    error = admit(raw)
    if error is not None:
        raise ObjectError(error.body, _template_field(error.field))
    try:
        pod = Pod.from_dict(raw)
    except ObjectError as exc:
        raise ObjectError(exc.message, _template_field(exc.field)) from None
    _resolve_priority(pod, objects)
    return pod


def _template_field(path: str | None) -> str:
    if not path or path.startswith("metadata.name") or path.startswith("metadata.uid"):
        return "spec.template"
    return f"spec.template.{path}"


def _resolve_priority(pod: Pod, objects: ClusterObjects | None) -> None:
    if objects is None:
        return
    name = pod.priority_class_name
    pc = objects.priority_classes.get(name) if name else objects.global_default_priority_class()
    if pod.priority is None:
        if pc is not None:
            pod.priority = pc.value
        elif name in SYSTEM_PRIORITY_CLASSES:
            pod.priority = SYSTEM_PRIORITY_CLASSES[name]
        elif name:
            raise PodRefused(f"no PriorityClass with name {name} was found", "spec.template.spec.priorityClassName")
        else:
            pod.priority = 0
    if pod.preemption_policy is None:
        pod.preemption_policy = (pc.preemption_policy if pc is not None else None) or "PreemptLowerPriority"


def should_continue_running(ds: DaemonSet, pod: Pod, node: Node) -> bool:
    """NodeShouldRunDaemonPod's shouldContinueRunning: node name and required node affinity
    still match, and no NoExecute taint goes untolerated (an untolerated NoSchedule taint keeps
    new pods off, not the one already there)."""
    from kschedctl.plugins.node_affinity.selector import RequiredNodeAffinity

    wanted = ds.template_node_name()
    if wanted and wanted != node.name:
        return False
    if not RequiredNodeAffinity(pod).matches(node):
        return False
    return find_matching_untolerated_taint(node.taints, pod.tolerations, ("NoExecute",)) is None


def owned_by(ds: DaemonSet, pod: Pod) -> bool:
    """The pod's controller is this DaemonSet (by uid, or by name in its namespace when the
    DaemonSet has no uid)."""
    for ref in pod.meta.owner_references:
        if isinstance(ref, dict) and ref.get("controller") and ref.get("kind") == "DaemonSet":
            if ds.obj.meta.uid:
                return bool(ref.get("uid") == ds.obj.meta.uid)
            return pod.namespace == ds.obj.namespace and ref.get("name") == ds.obj.name
    return False


def target_node_name(pod: Pod) -> str:
    """util.GetTargetNodeName: the pod's node, or the node its matchFields metadata.name term
    pins it to while it waits to be scheduled."""
    if pod.node_name:
        return pod.node_name
    required = pod.affinity.node_affinity.required if pod.affinity and pod.affinity.node_affinity else None
    for term in required.terms if required is not None else ():
        for req in term.match_fields:
            if req.key == OBJECT_NAME_FIELD and req.operator == "In" and len(req.values) == 1:
                return str(req.values[0])
    return ""


def node_changed(
    objects: ClusterObjects, old: Node, new: Node, pods: list[Pod]
) -> tuple[list[tuple[DaemonSet, dict[str, Any] | None, str]], list[tuple[DaemonSet, Pod]]]:
    """What the DaemonSet controller does when a node changes (its updateNode handler: only the
    DaemonSets whose shouldRun or shouldContinueRunning changed are synced): a pod to create for
    each that should now run there and has none (as ``pending_pods_for_node``), and its pods to
    delete for each that should no longer continue running there."""
    create: list[tuple[DaemonSet, dict[str, Any] | None, str]] = []
    delete: list[tuple[DaemonSet, Pod]] = []
    pending = {ds.key: (ds, raw, why) for ds, raw, why in pending_pods_for_node(objects, new)}
    for ds in daemon_sets(objects):
        probe = ds.new_pod_raw(new.name)
        probe["spec"]["nodeName"] = new.name
        pod = build_pod(ds, probe, None)
        before = (should_run(ds, pod, old), should_continue_running(ds, pod, old))
        after = (should_run(ds, pod, new), should_continue_running(ds, pod, new))
        if before == after:
            continue
        mine = [p for p in pods if owned_by(ds, p) and target_node_name(p) == new.name]
        if after[0] and not mine:
            create.append(pending[ds.key])
        elif not after[1]:
            delete.extend((ds, p) for p in mine)
    return create, delete


def should_run(ds: DaemonSet, pod: Pod, node: Node) -> bool:
    """NodeShouldRunDaemonPod's shouldRun: node name, required node affinity, NoSchedule and
    NoExecute taints (with the DaemonSet tolerations). Resources are not looked at."""
    from kschedctl.plugins.node_affinity.selector import RequiredNodeAffinity

    wanted = ds.template_node_name()
    if wanted and wanted != node.name:
        return False
    if not RequiredNodeAffinity(pod).matches(node):
        return False
    return _untolerated(node.taints, pod.tolerations) is None


def _untolerated(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> Taint | None:
    return find_matching_untolerated_taint(taints, tolerations, _DO_NOT_SCHEDULE)


def daemon_sets(objects: ClusterObjects) -> list[DaemonSet]:
    """The snapshot's DaemonSets, in namespace/name order (the order their pods are listed in)."""
    return sorted((DaemonSet(o) for o in objects.daemon_sets), key=lambda d: (d.obj.namespace, d.obj.name))


def pods_for_node(objects: ClusterObjects, node: Node) -> list[Pod]:
    """GetDaemonSetPodsForNode: one pod of every DaemonSet that should run on ``node``, bound
    to it (as cluster-autoscaler puts them on a template node). A pod the API server would
    refuse (see ``refused``) is left out."""
    out = []
    for ds in daemon_sets(objects):
        raw = ds.new_pod_raw(node.name)
        raw["spec"]["nodeName"] = node.name
        pod = build_pod(ds, raw, None)
        if not should_run(ds, pod, node):
            continue
        try:
            _resolve_priority(pod, objects)
        except PodRefused:
            continue
        out.append(pod)
    return out


def refused(objects: ClusterObjects) -> dict[str, str]:
    """DaemonSet -> why the API server refuses its pods (a PriorityClass the snapshot lacks)."""
    out = {}
    for ds in daemon_sets(objects):
        try:
            _resolve_priority(build_pod(ds, ds.new_pod_raw("node"), None), objects)
        except PodRefused as exc:
            out[ds.key] = exc.message
    return out


def pending_pods_for_node(objects: ClusterObjects, node: Node) -> list[tuple[DaemonSet, dict[str, Any] | None, str]]:
    """What the DaemonSet controller creates when ``node`` joins: for every DaemonSet that
    should run there, a pending pod pinned to the node by a required ``matchFields`` term
    (util.ReplaceDaemonSetPodNodeNameNodeAffinity), for the scheduler to place; or, when the
    API server would refuse it, None and why (the controller's FailedCreate)."""
    out: list[tuple[DaemonSet, dict[str, Any] | None, str]] = []
    for ds in daemon_sets(objects):
        raw = ds.new_pod_raw(node.name)
        probe = copy.deepcopy(raw)
        probe["spec"]["nodeName"] = node.name
        pod = build_pod(ds, probe, None)
        if not should_run(ds, pod, node):
            continue
        try:
            _resolve_priority(pod, objects)
        except PodRefused as exc:
            out.append((ds, None, exc.message))
            continue
        _pin_to_node(raw["spec"], node.name)
        raw["spec"]["priority"] = pod.priority  # as the Priority admission plugin sets it on create
        out.append((ds, raw, ""))
    return out


def _pin_to_node(spec: dict[str, Any], node_name: str) -> None:
    """util.ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes one term
    matching the node's name (the pod's other affinity is kept)."""
    term = {"matchFields": [{"key": OBJECT_NAME_FIELD, "operator": "In", "values": [node_name]}]}
    affinity = spec.get("affinity")
    affinity = dict(affinity) if isinstance(affinity, dict) else {}
    node_affinity = affinity.get("nodeAffinity")
    node_affinity = dict(node_affinity) if isinstance(node_affinity, dict) else {}
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
    affinity["nodeAffinity"] = node_affinity
    spec["affinity"] = affinity


def describe_pods(pods: list[Pod]) -> list[dict[str, Any]]:
    """What each DaemonSet pod is and asks for (``requests`` in the scheduler's units: milli-cpu,
    bytes, counts), for the JSON outputs' ``daemonSetPods``."""
    out = []
    for pod in pods:
        owner = next((o for o in pod.meta.owner_references if isinstance(o, dict) and o.get("kind") == "DaemonSet"), {})
        requests = {k: v for k, v in Resource.from_list(pod_requests(pod)).as_dict().items() if v}
        out.append({"pod": pod.key, "daemonSet": f"{pod.namespace}/{owner.get('name', '')}", "requests": requests})
    return out


__all__ = [
    "DaemonSet",
    "add_daemon_pod_tolerations",
    "daemon_set_from",
    "daemon_sets",
    "describe_pods",
    "node_changed",
    "pending_pods_for_node",
    "pods_for_node",
    "refused",
    "should_run",
]
