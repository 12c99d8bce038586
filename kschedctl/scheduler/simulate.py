"""`kschedctl simulate`: a snapshot plus a timeline of cluster events, run over virtual time.

A scenario (schema: schemas/scenario-v1.json) names the initial cluster (snapshot files and/or
inline objects) and events at simulated times: add/remove/cordon/uncordon/drain a node, change
its allocatable, labels or taints, create/delete/ungate a pod. Each event goes through the
scheduler's informer handlers (kschedctl/scheduler/eventhandlers.py), so the queue reacts to it exactly
as to the matching ClusterEvent: only pods an event may help are retried. The result is the
schedule JSON shape plus "time" on placements and preemptions, the timed "events" and the
"final" pods per node.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from kschedctl.api.errors import InputError
from kschedctl.api.types import Node, Pod
from kschedctl.cluster.loader import ClusterSnapshot, locate_line, resolve_priorities
from kschedctl.cluster.scenario import Scenario, ScenarioEvent
from kschedctl.config.types import KubeSchedulerConfiguration
from kschedctl.framework.gosemantics import go_duration
from kschedctl.framework.runtime.registry import Registry
from kschedctl.framework.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.scheduler.result import RunResult
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.versions import KubeVersion

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


def run_scenario(scenario: Scenario, config: KubeSchedulerConfiguration, registry: Registry, version: KubeVersion,
                 seed: int | None = None, plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT) -> SimulationResult:
    sched = Scheduler(scenario.cluster, config, registry, version, seed=seed, plugin_timeout=plugin_timeout)
    for event in scenario.events:
        sched.at(event.at, lambda event=event: _Applier(sched, scenario.path).apply(event))
    result = sched.run()
    return SimulationResult(result, sched.trace, final_placement(sched), sched.start, sched.cache.nodes)


def final_placement(sched: Scheduler) -> dict[str, list[str]]:
    """node -> the pods bound to it at the end (every node, sorted)."""
    final: dict[str, list[str]] = {name: [] for name in sorted(sched.cache.nodes)}
    for pod in sched.pods_by_uid.values():
        if pod.node_name and pod.node_name in final:
            final[pod.node_name].append(pod.key)
    return {name: sorted(pods) for name, pods in final.items()}


class _Applier:
    """Turns one scenario event into API-like changes and the scheduler's informer handlers."""

    def __init__(self, sched: Scheduler, path: str) -> None:
        self.sched = sched
        self.path = path

    def apply(self, event: ScenarioEvent) -> None:
        self.event = event
        getattr(self, "_" + event.action)(event.spec)

    def _fail(self, field_name: str, message: str) -> None:
        dotted = f"events[{self.event.index}].{field_name}"
        raise InputError(message, file=self.path, obj="Scenario", field=dotted, line=locate_line(self.path, 0, None, dotted))

    def _node(self, name: str) -> Node:
        info = self.sched.cache.nodes.get(name)
        if info is None or info.node is None:
            self._fail("node", f"no node named {name!r} at {go_duration(self.event.at)}")
        return info.node  # type: ignore[union-attr]

    def _pod(self, key: str) -> Pod:
        ns, _, name = key.rpartition("/")
        ns = ns or "default"
        for pod in self.sched.pods_by_uid.values():
            if pod.namespace == ns and pod.name == name:
                return pod
        self._fail("pod", f"no pod {ns}/{name} at {go_duration(self.event.at)}")
        raise AssertionError("unreachable")

    def _changed_node(self, node: Node, edit: Any) -> Node:
        raw = copy.deepcopy(node.raw)
        edit(raw)
        return Node.from_dict(raw)

    # nodes
    def _addNode(self, spec: dict) -> None:
        node = Node.from_dict(copy.deepcopy(spec["object"]))
        if node.name in self.sched.cache.nodes:
            self._fail("object.metadata.name", f"node {node.name!r} already exists")
        self.sched.record("NodeAdded", node=node.name)
        self.sched.add_node_to_cache(node)

    def _removeNode(self, spec: dict) -> None:
        node = self._node(spec["node"])
        self.sched.record("NodeRemoved", node=node.name)
        self.sched.delete_node_from_cache(node)
        self._evict_pods(node.name, spec.get("recreate", True), "PodDeleted")  # the pod GC

    def _cordonNode(self, spec: dict) -> None:
        self._set_unschedulable(spec["node"], True, "NodeCordoned")

    def _uncordonNode(self, spec: dict) -> None:
        self._set_unschedulable(spec["node"], False, "NodeUncordoned")

    def _set_unschedulable(self, name: str, value: bool, kind: str) -> None:
        old = self._node(name)
        new = self._changed_node(old, lambda raw: raw.setdefault("spec", {}).__setitem__("unschedulable", value))
        self.sched.record(kind, node=name)
        self.sched.update_node_in_cache(old, new)

    def _drainNode(self, spec: dict) -> None:
        """kubectl drain: cordon, then evict every pod (DaemonSet pods stay, as --ignore-daemonsets)."""
        self._set_unschedulable(spec["node"], True, "NodeCordoned")
        self.sched.record("NodeDrained", node=spec["node"])
        self._evict_pods(spec["node"], spec.get("recreate", True), "PodEvicted")

    def _updateNode(self, spec: dict) -> None:
        old = self._node(spec["node"])

        def edit(raw: dict) -> None:
            if "allocatable" in spec:
                raw.setdefault("status", {}).setdefault("allocatable", {}).update(
                    {k: str(v) for k, v in spec["allocatable"].items()})
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
        self.sched.record("NodeUpdated", node=old.name,
                          changed=[k for k in ("allocatable", "labels", "taints") if k in spec])
        self.sched.update_node_in_cache(old, new)

    # pods
    def _createPod(self, spec: dict) -> None:
        self._create(copy.deepcopy(spec["object"]))

    def _create(self, raw: dict) -> Pod:
        pod = Pod.from_dict(raw)
        if any(p.key == pod.key for p in self.sched.pods_by_uid.values()):
            self._fail("object.metadata.name", f"pod {pod.key} already exists")
        resolve_priorities(ClusterSnapshot(pods=[pod], objects=self.sched.objects))
        self.sched.record("PodCreated", pod=pod.key)
        if pod.node_name:
            self.sched.add_pod(pod)
        else:
            self.sched.admit_pending_pod(pod)
        return pod

    def _deletePod(self, spec: dict) -> None:
        pod = self._pod(spec["pod"])
        self.sched.record("PodDeleted", pod=pod.key)
        self.sched.delete_pod(pod)

    def _ungatePod(self, spec: dict) -> None:
        old = self._pod(spec["pod"])
        raw = copy.deepcopy(old.raw)
        raw.get("spec", {}).pop("schedulingGates", None)
        new = Pod.from_dict(raw)
        new.priority, new.preemption_policy, new.nominated_node_name = \
            old.priority, old.preemption_policy, old.nominated_node_name
        self.sched.record("PodUngated", pod=old.key)
        self.sched.update_pod_in_scheduling_queue(old, new)

    def _evict_pods(self, node_name: str, recreate: bool, kind: str) -> None:
        victims = [p for p in list(self.sched.pods_by_uid.values()) if p.node_name == node_name
                   and not any(o.get("kind") == "DaemonSet" for o in p.meta.owner_references)]
        for pod in sorted(victims, key=lambda p: p.key):
            self.sched.record(kind, pod=pod.key, node=node_name)
            self.sched.delete_pod(pod)
            if recreate:
                self._create(_replacement(pod))


def _replacement(pod: Pod) -> dict:
    """The pod its controller creates again: same spec, pending, a new uid."""
    raw = copy.deepcopy(pod.raw)
    raw.get("spec", {}).pop("nodeName", None)
    raw["status"] = {}
    md = raw.setdefault("metadata", {})
    generation = int(md.get("annotations", {}).get("kschedctl.io/recreated", "0")) + 1
    md.setdefault("annotations", {})["kschedctl.io/recreated"] = str(generation)
    md["uid"] = f"{pod.uid}~{generation}"
    if pod.priority is not None:
        raw.setdefault("spec", {})["priority"] = pod.priority
    return raw
