"""`kschedctl capacity`: how many copies of a pod fit, where, and what stops the next one; and
(``--nodes-for``) how many nodes of a given shape the pending pods need.

Copies are scheduled one at a time by the real Scheduler (full framework: every Filter, Score,
Reserve, Permit and, for the copy that fails, PostFilter — in a dry run, so nobody is evicted),
each bound before the next is queued, until the first copy that does not fit. Its FitError
message is the answer to "what stops the next one". The snapshot's own pending pods are left
out: they hold nothing until they are scheduled (as kubernetes-sigs/cluster-capacity does).

The node estimate follows cluster-autoscaler's binpacking estimator
(cluster-autoscaler/estimator/binpacking_estimator.go), with this project's framework as the
predicate checker:
1. the pods are first scheduled onto the existing nodes by the Scheduler (what fits there needs
   no new node; cluster-autoscaler's filter-out-schedulable step);
2. the rest are grouped into equivalence groups (same controller and same spec) and the groups
   sorted by decreasing cpu/allocatable + memory/allocatable of the template node
   (DecreasingPodOrderer; a stable sort here, for determinism);
3. per group, each pod goes to the first added node that passes PreFilter and Filter (a
   round-robin start, as FitsAnyNodeMatching); the rest go to the last added node while they
   fit, then to a new node; a pod that does not fit a freshly added, empty node cannot be helped
   by this shape, and neither can the rest of its group;
4. the answer is the number of added nodes that received a pod.

Every node added (``--add-nodes``, and the estimator's copies of the shape) first gets the pods
of the snapshot's DaemonSets that select it, bound and counted against its allocatable as any
bound pod (kschedctl/cluster/daemonsets.py; cluster-autoscaler's template NodeInfo,
simulator/node_info_utils.go); the results say which, per added node (``daemonSetPods``).
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from kschedctl.api.errors import InputError
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.types import Node, Pod
from kschedctl.backend.cache.cache import Snapshot
from kschedctl.cluster.daemonsets import describe_pods, pods_for_node, refused
from kschedctl.cluster.loader import ClusterSnapshot, is_pending
from kschedctl.framework.config_types import KubeSchedulerConfiguration
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.registry import Registry
from kschedctl.framework.resource import Resource, pod_requests
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.runtime.framework import Framework
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.scheduler.schedule_one import resume_resolved_waiting_pods, schedule_one
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.versions import KubeVersion
from kschedctl.whatif.templates import PodTemplate, node_copy
from kschedctl.whatif.usage import ZONE_LABELS, ClusterUsage, cluster_usage

BINPACKING_METHOD = (
    "cluster-autoscaler's binpacking estimator (estimator/binpacking_estimator.go): pods that fit on the "
    "existing nodes are scheduled there first by the scheduler; the rest, in equivalence groups sorted by "
    "decreasing cpu+memory share of the node (DecreasingPodOrderer), go first-fit onto added copies of the "
    "node (each holding first the pods of the DaemonSets that select it, as cluster-autoscaler's template node "
    "does), checked with the profile's PreFilter and Filter plugins; the answer counts the added nodes that "
    "received pods"
)


@dataclass
class CapacityResult:
    pod: str
    count: int
    per_node: dict[str, int]
    per_zone: dict[str, int]
    stop_message: str | None
    stopped_by: str  # "fitError" | "max" | "error"
    max_copies: int | None = None
    added_nodes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    placements: list[tuple[str, str]] = field(default_factory=list)  # (copy, node) in binding order
    usage: ClusterUsage | None = None  # the cluster with every fitting copy bound (for the report)
    fast_path: bool = False
    fast_attempts: int = 0  # attempts the fast path answered (the others went the plain way)
    daemon_set_pods: dict[str, list[JSONObject]] = field(default_factory=dict)  # added node -> its DaemonSet pods

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pod": self.pod,
            "count": self.count,
            "perNode": dict(self.per_node),
            "perZone": dict(self.per_zone),
            "stopMessage": self.stop_message,
            "stoppedBy": self.stopped_by,
        }
        if self.max_copies is not None:
            out["max"] = self.max_copies
        if self.added_nodes:
            out["addedNodes"] = list(self.added_nodes)
            out["daemonSetPods"] = {n: list(self.daemon_set_pods.get(n, [])) for n in self.added_nodes}
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass
class NodesForResult:
    node: str
    nodes_needed: int
    pods: int
    fit_existing: int
    new_nodes: dict[str, list[str]]
    cannot_help: list[dict[str, str]]
    skipped: list[dict[str, str]] = field(default_factory=list)
    method: str = BINPACKING_METHOD
    daemon_set_pods: dict[str, list[JSONObject]] = field(default_factory=dict)  # new (and added) node -> DaemonSet pods
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "node": self.node,
            "nodesNeeded": self.nodes_needed,
            "pods": self.pods,
            "fitExisting": self.fit_existing,
            "newNodes": {k: list(v) for k, v in self.new_nodes.items()},
            "cannotHelp": list(self.cannot_help),
            "skipped": list(self.skipped),
            "method": self.method,
            "daemonSetPods": {k: list(v) for k, v in self.daemon_set_pods.items()},
        }
        if self.notes:
            out["notes"] = list(self.notes)
        return out


# --- capacity ------------------------------------------------------------------------------


def without_pending(
    cluster: ClusterSnapshot,
    extra_nodes: Sequence[Node] = (),
    daemon_pods: Sequence[Pod] = (),
) -> ClusterSnapshot:
    """The cluster as it runs: nodes (plus the hypothetical ones, with their DaemonSet pods) and
    the pods bound to them."""
    return ClusterSnapshot(
        nodes=[*cluster.nodes, *extra_nodes], pods=[*(p for p in cluster.pods if not is_pending(p)), *daemon_pods], objects=cluster.objects
    )


def daemon_pods_for(cluster: ClusterSnapshot, nodes: list[Node]) -> dict[str, list[Pod]]:
    """node -> the DaemonSet pods it starts with (cluster-autoscaler's template NodeInfo)."""
    return {node.name: pods_for_node(cluster.objects, node) for node in nodes}


def overcommit_notes(nodes: list[Node], daemon_pods: dict[str, list[Pod]], shape: bool = False) -> list[str]:
    """Nodes whose DaemonSet pods ask for more than they have: the controller creates them all
    the same (it does not check resources), so nothing else fits there; say which resource."""
    from kschedctl.plugins.details import format_quantity as fmt_amount

    notes = []
    for node in nodes:
        requested = Resource()
        for pod in daemon_pods.get(node.name, []):
            requested.add(Resource.from_list(pod_requests(pod)))
        alloc = Resource.from_list(node.allocatable).as_dict()
        over = [
            f"{r} {fmt_amount(r, v)} of {fmt_amount(r, alloc.get(r, 0))}" for r, v in requested.as_dict().items() if v > alloc.get(r, 0)
        ]
        if over:
            which = f"a node like {node.name}" if shape else node.name
            notes.append(
                f"the DaemonSet pods of {which} ask for more than it has ({', '.join(over)}): "
                "the DaemonSet controller does not check room, so nothing else fits there"
            )
    return notes


def daemon_set_notes(cluster: ClusterSnapshot) -> list[str]:
    """A snapshot whose pods have DaemonSet owners but that holds no DaemonSet: added nodes get
    no DaemonSet pods, and the estimate is too generous; say so, and how to capture them. A
    DaemonSet whose pods the API server would refuse (no such PriorityClass) places none either."""
    if cluster.objects.daemon_sets:
        return [
            f"DaemonSet {key}: {why}: the API server refuses its pods, so no added node runs one"
            for key, why in refused(cluster.objects).items()
        ]
    owned = {
        f"{p.namespace}/{o.get('name')}"
        for p in cluster.pods
        for o in p.meta.owner_references
        if isinstance(o, dict) and o.get("kind") == "DaemonSet"
    }
    if not owned:
        return []
    shown = ", ".join(sorted(owned)[:3]) + (f" and {len(owned) - 3} more" if len(owned) > 3 else "")
    return [
        f"the snapshot's pods belong to {len(owned)} DaemonSet(s) ({shown}) but it holds no DaemonSet: "
        "added nodes were given no DaemonSet pods, so they look emptier than they would be; capture them "
        "with `kubectl get daemonsets -A -o yaml`"
    ]


def capacity(
    cluster: ClusterSnapshot,
    config: KubeSchedulerConfiguration,
    registry: Registry,
    version: KubeVersion,
    template: PodTemplate,
    *,
    max_copies: int | None = None,
    seed: int | None = None,
    added_nodes: Sequence[Node] = (),
    fast: bool = True,
    progress: Callable[[int], None] | None = None,
    plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT,
) -> CapacityResult:
    """Schedule copies of ``template`` one at a time until one does not fit (or ``max_copies``)."""
    pending = len(cluster.pending_pods)
    template.install(cluster)
    daemon_pods = daemon_pods_for(cluster, list(added_nodes))
    sched = Scheduler(
        without_pending(cluster, list(added_nodes), [p for ps in daemon_pods.values() for p in ps]),
        config,
        registry,
        version,
        seed=seed,
        dry_run=True,
        plugin_timeout=plugin_timeout,
    )
    if template.base.scheduler_name not in sched.profiles:
        raise InputError(
            f"no profile for schedulerName {template.base.scheduler_name!r} in the configuration",
            obj=template.source,
            field="spec.schedulerName",
        )
    copier = _fast_copier(sched, template) if fast else None
    per_node: dict[str, int] = {}
    placements: list[tuple[str, str]] = []
    stop_message: str | None = None
    stopped_by = "max"
    i = 0
    while max_copies is None or i < max_copies:
        pod = template.copy(i + 1)
        node, message = (copier or _schedule_copy)(sched, pod)
        if node is None:
            stop_message, stopped_by = message, "fitError"
            break
        i += 1
        per_node[node] = per_node.get(node, 0) + 1
        placements.append((pod.key, node))
        if progress is not None:
            progress(i)
    notes = []
    if pending:
        notes.append(f"the snapshot's {pending} pending pods were left out: they hold no resources until scheduled")
    if added_nodes:
        notes.extend(daemon_set_notes(cluster))
        notes.extend(overcommit_notes(list(added_nodes), daemon_pods))
    zones = _zones(sched)
    per_zone: dict[str, int] = {}
    for node, n in per_node.items():
        per_zone[zones.get(node, "")] = per_zone.get(zones.get(node, ""), 0) + n
    return CapacityResult(
        template.source,
        i,
        dict(sorted(per_node.items())),
        dict(sorted(per_zone.items())),
        stop_message,
        stopped_by,
        max_copies,
        [n.name for n in added_nodes],
        notes,
        placements,
        cluster_usage(sched.cache.nodes),
        copier is not None,
        getattr(sched.algorithm, "fast_cycles", 0),
        {node: describe_pods(pods) for node, pods in daemon_pods.items()},
    )


def _schedule_copy(sched: Scheduler, pod: Pod) -> tuple[str | None, str]:
    """One copy through the Scheduler: queued, popped, one scheduling and binding cycle."""
    sched.admit_pending_pod(pod)
    if pod.uid not in sched.pods_by_uid:  # skipped: no profile
        return None, sched.result.skipped[-1].reason
    qpi = sched.queue.pop()
    if qpi is None or qpi.pod.uid != pod.uid:
        return None, "the copy was not queued (a PreEnqueue plugin, e.g. SchedulingGates, held it back)"
    schedule_one(sched, qpi)
    resume_resolved_waiting_pods(sched)
    placement = sched.placements_by_uid.get(pod.uid)
    if placement is not None:
        return placement.node, ""
    if pod.uid in sched.waiting:
        return None, "the copy waits at Permit"
    outcome = sched.outcomes.get(pod.uid)
    return None, outcome.message if outcome is not None else "the copy was not scheduled"


def _fast_copier(sched: Scheduler, template: PodTemplate) -> Callable[[Scheduler, Pod], tuple[str | None, str]] | None:
    """The memoised path for identical copies, when it can give the same answer (fastpath.py)."""
    from kschedctl.whatif.fastpath import identical_copy_scheduler

    return identical_copy_scheduler(sched, template, _schedule_copy)


def _zones(sched: Scheduler) -> dict[str, str]:
    out = {}
    for name, info in sched.cache.nodes.items():
        if info.node is not None:
            labels = info.node.labels
            out[name] = next((labels[k] for k in ZONE_LABELS if labels.get(k)), "")
    return out


# --- nodes-for (cluster-autoscaler's binpacking estimator) ----------------------------------


def nodes_for(
    cluster: ClusterSnapshot,
    config: KubeSchedulerConfiguration,
    registry: Registry,
    version: KubeVersion,
    node_template: JSONObject,
    template: PodTemplate | None = None,
    *,
    copies: int | None = None,
    added_nodes: Sequence[Node] = (),
    seed: int | None = None,
    plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT,
) -> NodesForResult:
    """How many nodes shaped like ``node_template`` the pods need: the snapshot's pending pods,
    or ``copies`` copies of ``template`` in their place; ``added_nodes`` join the cluster first."""
    pods = [p for p in cluster.pods if is_pending(p)]
    if template is not None:
        if copies is None:
            raise ValueError("nodes_for with a template needs the number of copies")
        template.install(cluster)
        pods = [template.copy(i) for i in range(1, copies + 1)]
    added_daemon_pods = daemon_pods_for(cluster, list(added_nodes))
    notes = daemon_set_notes(cluster)
    cluster = ClusterSnapshot(
        nodes=[*cluster.nodes, *added_nodes],
        pods=[*(p for p in cluster.pods if not is_pending(p)), *(p for ps in added_daemon_pods.values() for p in ps), *pods],
        objects=cluster.objects,
    )
    sched = Scheduler(cluster, config, registry, version, seed=seed, dry_run=True, plugin_timeout=plugin_timeout)
    run = sched.run()
    by_key = {p.key: p for p in cluster.pods if is_pending(p)}
    left = [by_key[u.pod] for u in run.unschedulable if u.pod in by_key]
    estimator = _BinpackingEstimator(sched, node_template)
    notes.extend(overcommit_notes(list(added_nodes), added_daemon_pods))
    shape = estimator.template_node
    notes.extend(overcommit_notes([shape], {shape.name: pods_for_node(sched.objects, shape)}, shape=True))
    for group in _ordered_groups(left, estimator.template_node):
        estimator.place_group(group)
    daemon_set_pods = {n: describe_pods(p) for n, p in added_daemon_pods.items()}
    daemon_set_pods.update({n: describe_pods(estimator.daemon_pods[n]) for n, p in estimator.new_nodes.items() if p})
    return NodesForResult(
        node=str(node_template.get("metadata", {}).get("name", "")),
        nodes_needed=sum(1 for pods_on in estimator.new_nodes.values() if pods_on),
        pods=run.pending - len(run.skipped),
        fit_existing=len(run.placements),
        new_nodes={n: p for n, p in estimator.new_nodes.items() if p},
        cannot_help=estimator.cannot_help,
        skipped=[s.to_dict() for s in run.skipped],
        daemon_set_pods=daemon_set_pods,
        notes=notes,
    )


def _ordered_groups(pods: list[Pod], template: Node) -> list[list[Pod]]:
    """Equivalence groups (same controller, same spec; a pod without controller is its own group),
    in DecreasingPodOrderer's order: cpu/allocatable + memory/allocatable of the template, largest first."""
    groups: dict[Any, list[Pod]] = {}
    for pod in pods:
        groups.setdefault(_equivalence_key(pod), []).append(pod)
    alloc = Resource.from_list(template.allocatable)

    def score(group: list[Pod]) -> float:
        cpu = sum(Resource.from_list(c.requests).milli_cpu for c in group[0].containers)
        mem = sum(Resource.from_list(c.requests).memory for c in group[0].containers)
        out = 0.0
        if alloc.milli_cpu > 0:
            out += cpu / alloc.milli_cpu
        if alloc.memory > 0:
            out += mem / alloc.memory
        return out

    return sorted(groups.values(), key=score, reverse=True)


def _equivalence_key(pod: Pod) -> Any:
    controller = next((o for o in pod.meta.owner_references if isinstance(o, dict) and o.get("controller")), None)
    if controller is None:
        return ("pod", pod.uid)
    spec = {k: v for k, v in (pod.raw.get("spec") or {}).items() if k not in ("nodeName",)}
    return (
        controller.get("uid") or f"{controller.get('kind')}/{controller.get('name')}",
        json.dumps(spec, sort_keys=True, default=str),
        json.dumps(pod.labels, sort_keys=True),
    )


class _BinpackingEstimator:
    """BinpackingNodeEstimator.Estimate over the Scheduler's cache, with its framework's filters."""

    def __init__(self, sched: Scheduler, node_template: JSONObject) -> None:
        self.sched = sched
        self.raw_template = node_template
        self.template_node = node_copy(node_template, str(node_template.get("metadata", {}).get("name", "template")))
        self.new_nodes: dict[str, list[str]] = {}  # added node -> pods, in order
        self.daemon_pods: dict[str, list[Pod]] = {}  # added node -> the DaemonSet pods it started with
        self.last_node = ""
        self.last_index = 0
        self.cannot_help: list[dict[str, str]] = []
        # (node list, its length, the added nodes' count, their positions): _new_node_positions
        self._positions: tuple[list[NodeInfo], int, int, list[int]] | None = None

    def place_group(self, pods: list[Pod]) -> None:
        rest = self._on_existing_new_nodes(pods)
        for i, pod in enumerate(rest):
            if self.last_node and self._check(pod, self.last_node) is None:
                self._add(pod, self.last_node)
                continue
            if self.last_node and not self.new_nodes[self.last_node]:
                # an empty node of this shape was tried already: the pod's own reason there
                # (identical pods get identical reasons)
                self._give_up(rest[i:], self._check(pod, self.last_node) or "does not fit on an empty node of this shape")
                return
            self._add_node()
            why = self._check(pod, self.last_node)
            if why is not None:
                self._give_up(rest[i:], why)
                return
            self._add(pod, self.last_node)

    def _on_existing_new_nodes(self, pods: list[Pod]) -> list[Pod]:
        """tryToScheduleOnExistingNodes: first fit among the added nodes, until a pod fits none."""
        for i, pod in enumerate(pods):
            node = self._fits_any_new_node(pod)
            if node is None:
                return pods[i:]
            self._add(pod, node)
        return []

    def _fits_any_new_node(self, pod: Pod) -> str | None:
        if not self.new_nodes:
            return None
        snapshot, fwk, state, allowed = self._pre_filter(pod)
        if allowed is None:
            return None
        infos = snapshot.list()
        n = len(infos)
        # the added nodes' positions in the node list, visited from last_index on and around,
        # as a walk of the whole list from there that skips the cluster's own nodes
        positions = self._new_node_positions(snapshot, infos)
        start = bisect_left(positions, self.last_index)
        visit = [
            info
            for info in map(infos.__getitem__, positions[start:] + positions[:start])
            if (allowed is True or info.name in allowed) and not (info.node is not None and info.node.unschedulable)
        ]
        found = fwk.first_passing_node(state, pod, visit)
        if found is None:
            return None
        info = visit[found]
        self.last_index = (info.index + 1) % n
        return info.name

    def _new_node_positions(self, snapshot: Snapshot, infos: list[NodeInfo]) -> list[int]:
        """The sorted positions of the added nodes in the snapshot's node list ``infos``, kept
        while the list is the same object of the same length and no node was added (a change
        of the node set rebuilds the list, as a new object)."""
        key = (infos, len(infos), len(self.new_nodes))
        kept = self._positions
        if kept is not None and kept[0] is key[0] and kept[1:3] == key[1:]:
            return kept[3]
        by_name = snapshot.node_info_map
        positions = sorted(by_name[name].index for name in self.new_nodes if name in by_name)
        self._positions = (*key, positions)
        return positions

    def _pre_filter(self, pod: Pod) -> tuple[Snapshot, Framework, CycleState, Literal[True] | set[str] | None]:
        """The snapshot, the pod's profile, the cycle state after PreFilter and the nodes it
        allows (True: all; None: PreFilter rejected the pod)."""
        sched = self.sched
        sched.update_snapshot()
        fwk = sched.framework_for_pod(pod)
        state = CycleState()
        pre_res, status, _ = fwk.run_pre_filter_plugins(state, pod, sched.snapshot.list())
        if not status.is_success():
            return sched.snapshot, fwk, state, None
        allowed: Literal[True] | set[str] = True if pre_res is None or pre_res.all_nodes() else set(pre_res.node_names or ())
        return sched.snapshot, fwk, state, allowed

    def _check(self, pod: Pod, node_name: str) -> str | None:
        """CheckPredicates: None when the pod passes PreFilter and Filter on the node, else why not."""
        snapshot, fwk, state, allowed = self._pre_filter(pod)
        if allowed is None:
            _, status, _ = fwk.run_pre_filter_plugins(CycleState(), pod, snapshot.list())
            return status.message() or status.code.name
        info = snapshot.get(node_name)
        assert info is not None, node_name  # one of the nodes the question added
        status = fwk.run_filter_plugins(state, pod, info)
        if status.is_success():
            return None
        reasons = ", ".join(status.reasons) or status.code.name
        return f"{status.plugin}: {reasons}" if status.plugin else reasons

    def _add_node(self) -> None:
        name = f"{self.template_node.name}-e-{len(self.new_nodes)}"
        node = node_copy(self.raw_template, name)
        self.sched.cache.add_node(node)
        # the template NodeInfo's DaemonSet pods come with the node, bound whatever room they leave
        self.daemon_pods[name] = pods_for_node(self.sched.objects, node)
        for pod in self.daemon_pods[name]:
            self.sched.cache.add_pod(pod)
        self.sched.state_changed()
        self.new_nodes[name] = []
        self.last_node = name

    def _add(self, pod: Pod, node_name: str) -> None:
        bound = PodInfo.of(pod).with_node_name(node_name).pod
        self.sched.cache.add_pod(bound)
        self.sched.state_changed()
        self.new_nodes[node_name].append(pod.key)

    def _give_up(self, pods: list[Pod], why: str) -> None:
        for pod in pods:
            self.cannot_help.append({"pod": pod.key, "message": why})
