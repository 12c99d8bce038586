"""`kschedctl simulate`: a snapshot plus a timeline of cluster events, run over virtual time.

A scenario (schema: schemas/scenario-v1.json) names the initial cluster (snapshot files and/or
inline objects) and events at simulated times: add/remove/cordon/uncordon/drain a node, change
its allocatable, labels or taints, create/delete/ungate a pod, add (or replace) and delete DRA
objects (DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate). Each event goes through the
scheduler's informer handlers (kschedctl/scheduler/eventhandlers.py), so the queue reacts to it exactly
as to the matching ClusterEvent: only pods an event may help are retried. The result is the
schedule JSON shape plus "time" on placements and preemptions, the timed "events" and the
"final" pods per node. A node added by an event gets, as from the DaemonSet controller, one pending
pod of every DaemonSet of the scenario that should run there, and a node update syncs the
DaemonSets whose verdict for it changed (kschedctl/cluster/daemonsets.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from kschedctl.api.admission import admit
from kschedctl.api.errors import InputError
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.objects import dra_types
from kschedctl.api.resource_admission import served_as_v1
from kschedctl.api.types import Node, Pod
from kschedctl.cluster.loader import ClusterSnapshot, locate_line, resolve_priorities
from kschedctl.cluster.scenario import Scenario, ScenarioEvent
from kschedctl.framework.config_types import KubeSchedulerConfiguration
from kschedctl.framework.gosemantics import go_duration
from kschedctl.framework.registry import Registry
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.scheduler.eventhandlers import (
    add_node_to_cache,
    add_pod,
    add_resource_claim,
    change_device_class,
    change_resource_slice,
    delete_node_from_cache,
    delete_pod,
    delete_resource_claim,
    update_node_in_cache,
    update_pod_in_scheduling_queue,
    update_resource_claim,
)
from kschedctl.scheduler.result import RunResult
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.scheduler.victims import VictimExit
from kschedctl.versions import KubeVersion

if TYPE_CHECKING:
    from kschedctl.cluster.daemonsets import DaemonSet

# --- running -------------------------------------------------------------------------------


@dataclass
class SimulationResult:
    run: RunResult
    events: list[dict[str, Any]]
    final: dict[str, list[str]]
    start: float = 0.0  # the virtual clock's start (placements carry absolute times)
    node_infos: dict[str, Any] | None = None  # the cache's NodeInfos at the end (for --report)

    def to_dict(self) -> dict[str, Any]:
        data = self.run.to_dict()
        for out, placement in zip(data["placements"], self.run.placements):
            out["time"] = _num(placement.time - self.start)
        for out, pre in zip(data["preemptions"], self.run.preemptions):
            out["time"] = _num(pre.time - self.start)
        for out, gone in zip(data.get("deleted", []), self.run.deleted):
            out["time"] = _num(gone.time - self.start)
        data["events"] = [{**e, "time": _num(e["time"])} for e in self.events]
        data["final"] = self.final
        return data


def _num(t: float) -> float | int:
    return int(t) if float(t).is_integer() else round(t, 3)


def run_scenario(
    scenario: Scenario,
    config: KubeSchedulerConfiguration,
    registry: Registry,
    version: KubeVersion,
    seed: int | None = None,
    plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT,
    attach: Callable[[Scheduler], Callable[[], list[Any]]] | None = None,
    victim_exit: VictimExit | None = None,
) -> SimulationResult:
    """``attach``: called with the Scheduler before the run, to put a recorder on its attempts
    (the report's per-pod node tables, kschedctl/explain/pod_tables.py); what it returns gives
    the tables after the run (RunResult.pod_tables)."""
    sched = Scheduler(scenario.cluster, config, registry, version, seed=seed, plugin_timeout=plugin_timeout, victim_exit=victim_exit)
    for event in scenario.events:
        sched.at(event.at, _applying(sched, scenario.path, event))
    tables = attach(sched) if attach is not None else None
    result = sched.run()
    if tables is not None:
        result.pod_tables = tables()
    return SimulationResult(result, sched.trace, final_placement(sched), sched.start, sched.cache.nodes)


def final_placement(sched: Scheduler) -> dict[str, list[str]]:
    """node -> the pods bound to it at the end (every node, sorted)."""
    final: dict[str, list[str]] = {name: [] for name in sorted(sched.cache.nodes)}
    for pod in sched.pods_by_uid.values():
        if pod.node_name and pod.node_name in final:
            final[pod.node_name].append(pod.key)
    return {name: sorted(pods) for name, pods in final.items()}


# updateNode: the event field each part of the node comes from (for error messages)
_EDITED_FIELDS = (("status.allocatable", "allocatable"), ("metadata.labels", "labels"), ("spec.taints", "taints"))


def _applying(sched: Scheduler, path: str, event: ScenarioEvent) -> Callable[[], None]:
    """The timeline action that applies ``event`` when the clock reaches it."""
    return lambda: _Applier(sched, path).apply(event)


class _Applier:
    """Turns one scenario event into API-like changes and the scheduler's informer handlers."""

    def __init__(self, sched: Scheduler, path: str) -> None:
        self.sched = sched
        self.path = path

    def apply(self, event: ScenarioEvent) -> None:
        self.event = event
        getattr(self, "_" + event.action)(event.spec)

    def _fail(self, field_name: str, message: str) -> NoReturn:
        dotted = f"events[{self.event.index}].{field_name}"
        raise InputError(message, file=self.path, obj="Scenario", field=dotted, line=locate_line(self.path, 0, None, dotted))

    def _node(self, name: str) -> Node:
        info = self.sched.cache.nodes.get(name)
        if info is None or info.node is None:
            self._fail("node", f"no node named {name!r} at {go_duration(self.event.at)}")
        return info.node

    def _pod(self, key: str) -> Pod:
        ns, _, name = key.rpartition("/")
        ns = ns or "default"
        for pod in self.sched.pods_by_uid.values():
            if pod.namespace == ns and pod.name == name:
                return pod
        self._fail("pod", f"no pod {ns}/{name} at {go_duration(self.event.at)}")
        raise AssertionError("unreachable")

    def _changed_node(self, node: Node, edit: Any) -> Node:
        """The node after an edit, admitted as the API server would admit the update."""
        raw = copy.deepcopy(node.raw)
        edit(raw)
        error = admit(raw)
        if error is not None:
            edited = next((name for prefix, name in _EDITED_FIELDS if error.field.startswith(prefix)), "node")
            self._fail(edited, f"node {node.name}: {error}")
        return Node.from_dict(raw)

    # nodes
    def _addNode(self, spec: JSONObject) -> None:
        node = Node.from_dict(copy.deepcopy(spec["object"]))
        if node.name in self.sched.cache.nodes:
            self._fail("object.metadata.name", f"node {node.name!r} already exists")
        self.sched.record("NodeAdded", node=node.name)
        add_node_to_cache(self.sched, node)
        self._create_daemon_pods(node)

    def _create_daemon_pods(self, node: Node) -> None:
        """The DaemonSet controller sees the new node: one pending pod of every DaemonSet that
        should run there, pinned to it by node affinity, for the scheduler to place
        (kschedctl/cluster/daemonsets.py). Each is a PodCreated event naming its DaemonSet."""
        from kschedctl.cluster.daemonsets import pending_pods_for_node

        self._create_daemon_set_pods(node, pending_pods_for_node(self.sched.objects, node))

    def _create_daemon_set_pods(self, node: Node, created: list[tuple[DaemonSet, JSONObject | None, str]]) -> None:
        for ds, raw, refused in created:
            if raw is None:  # the API server refuses the pod: the controller's FailedCreate event
                self.sched.record("FailedCreate", daemonSet=ds.key, node=node.name, message=refused)
            else:
                self._create(raw, daemon_set=ds.key)

    def _removeNode(self, spec: JSONObject) -> None:
        node = self._node(spec["node"])
        self.sched.record("NodeRemoved", node=node.name)
        delete_node_from_cache(self.sched, node)
        self._evict_pods(node.name, spec.get("recreate", True), "PodDeleted")  # the pod GC

    def _cordonNode(self, spec: JSONObject) -> None:
        self._set_unschedulable(spec["node"], True, "NodeCordoned")

    def _uncordonNode(self, spec: JSONObject) -> None:
        self._set_unschedulable(spec["node"], False, "NodeUncordoned")

    def _set_unschedulable(self, name: str, value: bool, kind: str) -> None:
        old = self._node(name)
        new = self._changed_node(old, lambda raw: raw.setdefault("spec", {}).__setitem__("unschedulable", value))
        self.sched.record(kind, node=name)
        update_node_in_cache(self.sched, old, new)

    def _drainNode(self, spec: JSONObject) -> None:
        """kubectl drain: cordon, then evict every pod (DaemonSet pods stay, as --ignore-daemonsets)."""
        self._set_unschedulable(spec["node"], True, "NodeCordoned")
        self.sched.record("NodeDrained", node=spec["node"])
        self._evict_pods(spec["node"], spec.get("recreate", True), "PodEvicted")

    def _updateNode(self, spec: JSONObject) -> None:
        old = self._node(spec["node"])

        def edit(raw: JSONObject) -> None:
            if "allocatable" in spec:
                raw.setdefault("status", {}).setdefault("allocatable", {}).update({k: str(v) for k, v in spec["allocatable"].items()})
            if "labels" in spec:
                labels = raw.setdefault("metadata", {}).setdefault("labels", {})
                for k, v in spec["labels"].items():
                    if v is None:
                        labels.pop(k, None)
                    else:
                        labels[k] = v
            if "taints" in spec:
                raw.setdefault("spec", {})["taints"] = copy.deepcopy(spec["taints"])

        new = self._changed_node(old, edit)
        self.sched.record("NodeUpdated", node=old.name, changed=[k for k in ("allocatable", "labels", "taints") if k in spec])
        update_node_in_cache(self.sched, old, new)
        self._sync_daemon_pods(old, new)

    def _sync_daemon_pods(self, old: Node, node: Node) -> None:
        """The DaemonSet controller after a node update: a pod for each DaemonSet that now
        selects the node and has none there; the pods of those that should no longer continue
        running there (affinity lost, an untolerated NoExecute taint) deleted."""
        from kschedctl.cluster.daemonsets import node_changed

        create, delete = node_changed(self.sched.objects, old, node, list(self.sched.pods_by_uid.values()))
        for ds, pod in sorted(delete, key=lambda d: d[1].key):
            self.sched.record("PodDeleted", pod=pod.key, daemonSet=ds.key)
            delete_pod(self.sched, pod)
        self._create_daemon_set_pods(node, create)

    # pods
    def _createPod(self, spec: JSONObject) -> None:
        self._create(copy.deepcopy(spec["object"]))

    def _create(self, raw: JSONObject, daemon_set: str | None = None) -> Pod:
        pod = Pod.from_dict(raw)
        if any(p.key == pod.key for p in self.sched.pods_by_uid.values()):
            self._fail("object.metadata.name", f"pod {pod.key} already exists")
        if pod.uid in self.sched.pods_by_uid:
            holder = self.sched.pods_by_uid[pod.uid].key
            self._fail("object.metadata.uid", f'Duplicate value: "{pod.uid}": also the uid of Pod {holder}')
        try:
            resolve_priorities(ClusterSnapshot(pods=[pod], objects=self.sched.objects))
        except InputError as exc:
            self._fail("object.spec.priorityClassName", exc.message)
        if daemon_set is None:
            self.sched.record("PodCreated", pod=pod.key)
        else:
            self.sched.record("PodCreated", pod=pod.key, daemonSet=daemon_set)
        if pod.node_name:
            add_pod(self.sched, pod)
        else:
            self.sched.admit_pending_pod(pod)
        return pod

    def _deletePod(self, spec: JSONObject) -> None:
        pod = self._pod(spec["pod"])
        self.sched.record("PodDeleted", pod=pod.key)
        delete_pod(self.sched, pod)

    def _ungatePod(self, spec: JSONObject) -> None:
        old = self._pod(spec["pod"])
        raw = copy.deepcopy(old.raw)
        raw.get("spec", {}).pop("schedulingGates", None)
        new = Pod.from_dict(raw)
        new.priority, new.preemption_policy, new.nominated_node_name = old.priority, old.preemption_policy, old.nominated_node_name
        self.sched.record("PodUngated", pod=old.key)
        update_pod_in_scheduling_queue(self.sched, old, new)

    # Dynamic Resource Allocation objects
    def _addResourceSlice(self, spec: JSONObject) -> None:
        self._addObject(spec)

    def _addObject(self, spec: JSONObject) -> None:
        """A DeviceClass, ResourceSlice, ResourceClaim or ResourceClaimTemplate appears (a new
        object, or a new version of an existing one: an update)."""
        raw, _ = served_as_v1(copy.deepcopy(spec["object"]))
        kind = raw["kind"]
        o = self.sched.objects
        build = dra_types()[kind].from_dict
        if kind == "ResourceSlice":
            new_slice = build(raw)
            old_slice = o.resource_slices.get(new_slice.name)
            self.sched.record(
                "ResourceSliceAdded" if old_slice is None else "ResourceSliceUpdated", slice=new_slice.name, devices=len(new_slice.devices)
            )
            change_resource_slice(self.sched, old_slice, new_slice)
        elif kind == "DeviceClass":
            new_class = build(raw)
            old_class = o.device_classes.get(new_class.name)
            self.sched.record("DeviceClassAdded" if old_class is None else "DeviceClassUpdated", deviceClass=new_class.name)
            change_device_class(self.sched, old_class, new_class)
        elif kind == "ResourceClaim":
            claim = build(raw)
            old_claim = o.resource_claims.get(claim.key)
            self.sched.record("ResourceClaimAdded" if old_claim is None else "ResourceClaimUpdated", claim=claim.key)
            if old_claim is None:
                add_resource_claim(self.sched, claim)
            else:
                update_resource_claim(self.sched, old_claim, claim)
        else:
            template = build(raw)
            o.resource_claim_templates[f"{template.meta.namespace}/{template.name}"] = template
            self.sched.record("ResourceClaimTemplateAdded", template=f"{template.meta.namespace}/{template.name}")

    def _deleteObject(self, spec: JSONObject) -> None:
        kind, name = spec["kind"], spec["name"]
        o = self.sched.objects
        if kind in ("ResourceClaim", "ResourceClaimTemplate") and "/" not in name:
            name = f"default/{name}"
        tables: dict[str, dict[str, Any]] = {
            "DeviceClass": o.device_classes,
            "ResourceSlice": o.resource_slices,
            "ResourceClaim": o.resource_claims,
            "ResourceClaimTemplate": o.resource_claim_templates,
        }
        table = tables[kind]
        obj = table.get(name)
        if obj is None:
            self._fail("name", f"no {kind} {name} at {go_duration(self.event.at)}")
        self.sched.record(f"{kind}Deleted", name=name)
        if kind == "ResourceSlice":
            change_resource_slice(self.sched, obj, None)
        elif kind == "DeviceClass":
            change_device_class(self.sched, obj, None)
        elif kind == "ResourceClaim":
            delete_resource_claim(self.sched, obj)
        else:
            del table[name]

    def _evict_pods(self, node_name: str, recreate: bool, kind: str) -> None:
        victims = [
            p
            for p in list(self.sched.pods_by_uid.values())
            if p.node_name == node_name and not any(o.get("kind") == "DaemonSet" for o in p.meta.owner_references)
        ]
        for pod in sorted(victims, key=lambda p: p.key):
            controlled = _has_controller(pod)
            if recreate and not controlled:  # a bare pod: gone for good, as `kubectl drain --force` leaves it
                self.sched.record(kind, pod=pod.key, node=node_name, recreated="no (no controller owns it)")
            else:
                self.sched.record(kind, pod=pod.key, node=node_name)
            delete_pod(self.sched, pod)
            if recreate and controlled:
                self._create(_replacement(pod, self.sched.pods_by_uid))


def _has_controller(pod: Pod) -> bool:
    """Whether a controller (ReplicaSet, StatefulSet, Job, ...) owns the pod and so creates it
    again when it is evicted or its node goes: an ownerReference with ``controller: true``, as
    metav1.GetControllerOf reads it. Nothing recreates a bare pod."""
    return any(isinstance(o, dict) and o.get("controller") is True for o in pod.meta.owner_references)


def _replacement(pod: Pod, taken: Any = ()) -> JSONObject:
    """The pod its controller creates again: same spec, pending, a new uid."""
    raw = copy.deepcopy(pod.raw)
    raw.get("spec", {}).pop("nodeName", None)
    raw["status"] = {}
    md = raw.setdefault("metadata", {})
    if not isinstance(md.get("annotations"), dict):
        md["annotations"] = {}
    previous = str(md["annotations"].get("kschedctl.io/recreated") or "0")
    generation = (int(previous) if previous.isdigit() and len(previous) < 10 else 0) + 1
    md["annotations"]["kschedctl.io/recreated"] = str(generation)
    md["uid"] = f"{pod.uid}~{generation}"
    while md["uid"] in taken:  # never the uid of a pod that exists
        generation += 1
        md["uid"] = f"{pod.uid}~{generation}"
    if pod.priority is not None:
        raw.setdefault("spec", {})["priority"] = pod.priority
    return raw
