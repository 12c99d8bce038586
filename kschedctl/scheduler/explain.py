"""explain: one pod against the snapshot as given, every node, every score plugin.

Bound pods count, other pending pods do not. Every node is filtered (no percentageOfNodesToScore
sampling) and every feasible node scored, so the user sees the whole picture; the chosen node
is what `schedule` would pick in this state (with sampling and upstream's tie rule), and when
there is none, what preemption would do, without doing it.

Both come from the calls `schedule` makes, never from a copy of them: the table is
SchedulingAlgorithm.schedule_pod with ``find_all`` and a recorder (NodeTable) attached, the
decision is Scheduler.schedule_pod (schedulePod, then PostFilter). A pod group is explained
by the group cycle itself (PodGroupCycle.run_algorithm), with the table of each member taken
in the group's simulated state before the member's attempt.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Sequence
from typing import Any

from kschedctl.api.errors import InputError
from kschedctl.api.types import Pod
from kschedctl.backend.podgroup import group_of
from kschedctl.cluster.loader import ClusterSnapshot, is_pending
from kschedctl.config.types import KubeSchedulerConfiguration
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Status
from kschedctl.framework.runtime.framework import Framework
from kschedctl.framework.runtime.registry import Registry
from kschedctl.framework.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.framework.runtime.score_table import ScoreTable
from kschedctl.framework.types import Diagnosis, FitError, NodeInfo, PodInfo, QueuedPodInfo
from kschedctl.scheduler.algorithm import AttemptRecorder, ScheduleResult, SchedulingAlgorithm, SchedulingError
from kschedctl.scheduler.result import (
    ExplainGroupResult,
    ExplainResult,
    GroupMemberExplanation,
    NodeExplanation,
)
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.versions import KubeVersion

POD_GROUP_PREFIX = "podgroup/"


def pod_key(ref: str, namespace: str | None = None) -> str:
    """``NAME`` or ``NAMESPACE/NAME`` (and ``podgroup/...``) as a full key: ``-n NAMESPACE`` fills
    in a missing namespace (kubectl's habit), else ``default``; a namespace given both ways must agree."""
    prefix = POD_GROUP_PREFIX if ref.startswith(POD_GROUP_PREFIX) else ""
    ns, _, name = ref[len(prefix):].rpartition("/")
    if ns and namespace and ns != namespace:
        raise InputError(f"{ref!r} names namespace {ns!r} but --namespace is {namespace!r}")
    if not name:
        raise InputError(f"{ref!r}: expected NAME or NAMESPACE/NAME")
    return f"{prefix}{ns or namespace or 'default'}/{name}"


def find_pod(cluster: ClusterSnapshot, key: str) -> Pod:
    """The pod ``namespace/name``; an unknown pod is an InputError naming the snapshot it was
    looked for in and the pods whose names come closest."""
    ns, _, name = key.rpartition("/")
    ns = ns or "default"
    for pod in cluster.pods:
        if pod.namespace == ns and pod.name == name:
            return pod
    where = ", ".join(cluster.inputs) or None
    message = "not found in the snapshot"
    if not cluster.pods:
        message += " (it holds no pods)"
    suggestions = close_pods(cluster, ns, name)
    if suggestions:
        message += f"; did you mean {' or '.join(suggestions)}?"
    raise InputError(message, file=where, obj=f"Pod {ns}/{name}")


def close_pods(cluster: ClusterSnapshot, namespace: str, name: str, limit: int = 3) -> list[str]:
    """Pods the user may have meant: the same name in other namespaces first, then the closest
    keys (difflib's ratio), then the closest names in any namespace."""
    keys = [p.key for p in cluster.pods]
    out = [k for k in keys if k.split("/", 1)[1] == name]
    out += difflib.get_close_matches(f"{namespace}/{name}", keys, n=limit, cutoff=0.6)
    by_name: dict[str, list[str]] = {}
    for k in keys:
        by_name.setdefault(k.split("/", 1)[1], []).append(k)
    for close in difflib.get_close_matches(name, list(by_name), n=limit, cutoff=0.6):
        out += by_name[close]
    return list(dict.fromkeys(out))[:limit]


def explain_pod(cluster: ClusterSnapshot, pod_key: str, config: KubeSchedulerConfiguration, registry: Registry,
                version: KubeVersion, seed: int | None = None,
                plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT) -> ExplainResult:
    sched = Scheduler(cluster, config, registry, version, seed=seed, dry_run=True, plugin_timeout=plugin_timeout)
    pod = find_pod(cluster, pod_key)
    if not is_pending(pod):
        # Explaining a bound pod means asking where it would go now: evaluate an unbound copy.
        pod = Pod.from_dict({**pod.raw, "spec": {**pod.raw.get("spec", {}), "nodeName": ""}})
        pod.priority = pod.priority if pod.priority is not None else 0
    # The queue holds every pending pod, so the nominator knows each status.nominatedNodeName:
    # a pod nominated to a node counts there when this pod is filtered
    # (RunFilterPluginsWithNominatedPods), as in the running scheduler.
    sched.enqueue_pending()
    if pod.scheduler_name not in sched.profiles:
        raise InputError(f"no profile for schedulerName {pod.scheduler_name!r}", obj=f"Pod {pod.key}",
                         field="spec.schedulerName")
    fwk = sched.framework_for_pod(pod)
    sched.create_template_claims(pod)
    sched.update_snapshot()
    qpi = QueuedPodInfo(PodInfo.of(pod), attempts=1)
    result = ExplainResult(pod.key, fwk.profile_name, None, None, explain_nodes(sched, fwk, qpi, sched.snapshot))
    # The decision: what `schedule` does in this state (sampling, nominated node, tie rule,
    # PostFilter), without assuming anything; preemption runs dry.
    outcome = sched.schedule_pod(fwk, CycleState(), qpi)
    if isinstance(outcome, ScheduleResult):
        result.node = outcome.suggested_host
    elif outcome.fit_error is not None:
        result.message = outcome.fit_error.message()
        nominating, pre = outcome.nominating, sched.client.last_preemption
        result.preemption = {
            "nominatedNode": nominating.nominated_node_name if nominating and nominating.nominated_node_name else None,
            "victims": list(pre.victims) if pre is not None else [],
        }
    else:
        result.message = outcome.status.message() if outcome.status is not None else None
        result.preemption = {"nominatedNode": None, "victims": []}
    result.warnings = list(sched.services.warnings) + sched.claims_created_warning()
    return result


def explain_nodes(sched: Scheduler, fwk: Framework, qpi: QueuedPodInfo, snapshot: Any) -> list[NodeExplanation]:
    """Every node's filter status and every feasible node's scores, for this pod now.

    This is schedulePod itself (SchedulingAlgorithm) with ``find_all`` (no sampling, no
    nominated node first, an Error on one node does not end the search, a single feasible
    node is scored too) and a NodeTable recorder attached. Its tie-break draws from a copy of
    the run's random source, so that looking changes nothing of what is decided after."""
    rng = random.Random()
    rng.setstate(sched.rng.getstate())
    algorithm = SchedulingAlgorithm(sched.algorithm.percentage_of_nodes_to_score, rng, find_all=True)
    algorithm.extenders = sched.algorithm.extenders
    table = NodeTable(fwk)
    algorithm.recorders.append(table)
    try:
        algorithm.schedule_pod(fwk, CycleState(), qpi, snapshot)
    except (FitError, SchedulingError):
        pass  # what the nodes said is recorded either way
    return table.rows


class NodeTable(AttemptRecorder):
    """explain's recorder: one NodeExplanation per node, in snapshot order, with its scores
    and, for a pod with ResourceClaims, DynamicResources' view of each node it filtered."""

    def __init__(self, fwk: Framework) -> None:
        self.rows: list[NodeExplanation] = []
        dra = fwk.instances.get("DynamicResources")
        self.dra = dra if dra is not None and getattr(dra, "enabled", False) else None

    def filtered(self, qpi: QueuedPodInfo, state: CycleState, nodes: Sequence[NodeInfo], feasible: Sequence[NodeInfo],
                 diagnosis: Diagnosis, error: Status) -> None:
        passed = {info.name for info in feasible}
        nts = diagnosis.node_to_status  # every other node's status, an Error included
        for info in nodes:
            st = Status() if info.name in passed else nts.get(info.name)
            row = NodeExplanation(info.name, st.code.name, st.plugin, list(st.reasons))
            if self.dra is not None and (info.name in passed or info.name in nts.node_to_status):
                row.dra = self._dra_details(state, info)  # a node the filters ran on
            self.rows.append(row)

    def _dra_details(self, state: CycleState, info: NodeInfo) -> dict[str, Any] | None:
        """DynamicResources' view of the node, read from the state its Filter left (additive:
        kube's statuses stay as they are)."""
        from kschedctl.plugins.dynamic_resources.explain import explain_node

        return explain_node(self.dra, state, info)

    def scored(self, qpi: QueuedPodInfo, table: ScoreTable) -> None:
        at = {name: i for i, name in enumerate(table.names)}
        for row in self.rows:
            i = at.get(row.name)
            if i is not None:
                row.scores = {name: {"score": values[i], "weight": weight} for name, weight, values in table.plugins}
                row.total = table.totals[i]


# --- pod groups ----------------------------------------------------------------------------


def explain_pod_group(cluster: ClusterSnapshot, ref: str, config: KubeSchedulerConfiguration, registry: Registry,
                      version: KubeVersion, seed: int | None = None,
                      plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT) -> ExplainGroupResult:
    """One group attempt (scheduleOnePodGroup) on the snapshot as given, without binding: for each
    member, the per-node results it saw in the group's simulated state (earlier members assumed)."""
    ns, _, name = ref[len(POD_GROUP_PREFIX):].rpartition("/")
    ns = ns or "default"
    sched = Scheduler(cluster, config, registry, version, seed=seed, dry_run=True, plugin_timeout=plugin_timeout)
    members = [p for p in cluster.pods if is_pending(p) and (g := group_of(sched.objects, p, version)) is not None
               and g.key == f"{ns}/{name}"]
    if not members:
        raise InputError(f"pod group {ns}/{name} has no pending members in the snapshot "
                         f"(pod groups need --feature-gates GenericWorkload=true,GangScheduling=true)",
                         file=", ".join(cluster.inputs) or None, obj=f"PodGroup {ns}/{name}")
    for member in members:
        sched.create_template_claims(member)
    group = group_of(sched.objects, members[0], version)
    fwk = sched.framework_for_pod(members[0])
    cycle = sched.pod_groups
    tables: dict[tuple[str | None, str], list[NodeExplanation]] = {}

    def before_member(fwk_: Framework, qpi: QueuedPodInfo) -> None:
        # the member's nodes in the group's simulated state (the placement tried, if any)
        snapshot = fwk_.snapshot if fwk_.snapshot is not None else sched.snapshot
        tables[(cycle.placement, qpi.pod.key)] = explain_nodes(sched, fwk_, qpi, snapshot)

    cycle.before_member = before_member
    queued = [QueuedPodInfo(PodInfo.of(p), attempts=1, seq=i) for i, p in enumerate(members)]
    queued.sort(key=lambda q: (-q.pod.effective_priority(), q.seq))
    sched.update_snapshot()
    attempt = cycle.run_algorithm(fwk, group, queued)
    out = ExplainGroupResult(f"{ns}/{name}", fwk.profile_name, attempt.status.code.name,
                             attempt.status.message() or None, attempt.placement)
    for mr in attempt.results:
        out.members.append(GroupMemberExplanation(
            mr.pod.key, mr.host, None if mr.status.is_success() else mr.status.message(),
            tables.get((attempt.placement, mr.pod.key), [])))
    out.warnings = list(sched.services.warnings) + sched.claims_created_warning()
    return out
