"""explain: one pod against the snapshot as given, every node, every score plugin.

First what the pod is (pod_state: a gated, bound, terminal or no-profile pod is not evaluated
unless asked to be), then the evaluation. Bound pods count, other pending pods do not. Every node is filtered (no percentageOfNodesToScore
sampling) and every feasible node scored, so the user sees the whole picture; the chosen node
is what `schedule` would pick in this state (with sampling and upstream's tie rule), and when
there is none, what preemption would do, without doing it.

Both come from the calls `schedule` makes, never from a copy of them: the table is
SchedulingAlgorithm.schedule_pod with ``find_all`` and a recorder (NodeTable) attached, the
decision is Scheduler.schedule_pod (schedulePod, then PostFilter). A pod group is explained
by the group cycle itself (PodGroupCycle.run_algorithm), with the table of each member taken
in the group's simulated state before the member's attempt. When no node fits, the verdict
(verdict.py) answers first; explain_run.py says when `schedule`'s run ends differently for the
pod, and replays that run for ``--in-run``.
"""

from __future__ import annotations

import difflib
import random
from typing import Any

from kschedctl.api.errors import InputError
from kschedctl.api.types import Pod
from kschedctl.cluster.loader import ClusterSnapshot, copy_snapshot, is_pending
from kschedctl.explain.explain_run import MAX_PENDING_TO_COMPARE, compare_with_schedule, pod_state
from kschedctl.explain.node_table import NodeTable, verdict_notes
from kschedctl.explain.sampling import SampleRecorder, sampling_facts, tie_facts
from kschedctl.explain.verdict import fits_verdict, verdict
from kschedctl.framework.config_types import KubeSchedulerConfiguration
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.podgroup import group_of
from kschedctl.framework.registry import Registry
from kschedctl.framework.types import FitError, PodInfo, QueuedPodInfo
from kschedctl.runtime.framework import Framework
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.scheduler.algorithm import ScheduleResult, SchedulingAlgorithm, SchedulingError
from kschedctl.scheduler.eventhandlers import create_template_claims
from kschedctl.scheduler.result import (
    ExplainGroupResult,
    ExplainResult,
    GroupMemberExplanation,
    NodeExplanation,
)
from kschedctl.scheduler.schedule_one import schedule_pod
from kschedctl.scheduler.schedule_one_podgroup import GroupAttempt, mixed_scheduler_names
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.scheduler.shortfall import ClusterFacts
from kschedctl.scheduler.victims import VictimExit
from kschedctl.versions import KubeVersion

POD_GROUP_PREFIX = "podgroup/"


def pod_key(ref: str, namespace: str | None = None) -> str:
    """``NAME`` or ``NAMESPACE/NAME`` (and ``podgroup/...``) as a full key: ``-n NAMESPACE`` fills
    in a missing namespace (kubectl's habit), else ``default``; a namespace given both ways must agree."""
    prefix = POD_GROUP_PREFIX if ref.startswith(POD_GROUP_PREFIX) else ""
    ns, _, name = ref[len(prefix) :].rpartition("/")
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


def explain_pod(
    cluster: ClusterSnapshot,
    pod_key: str,
    config: KubeSchedulerConfiguration,
    registry: Registry,
    version: KubeVersion,
    seed: int | None = None,
    plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT,
    *,
    evaluate: bool = True,
    all_filters: bool = False,
    compare_with_run: bool = False,
    victim_exit: VictimExit | None = None,
) -> ExplainResult:
    """The pod against the snapshot as given. ``evaluate``: evaluate a gated or bound pod too
    (as if it were pending); ``all_filters``: every Filter plugin on every rejected node;
    ``compare_with_run``: also run `schedule` (same config, seed, release) and say its outcome
    for the pod when it differs (explain_run.py)."""
    found = find_pod(cluster, pod_key)
    # the run to compare with reads its own copy: this evaluation writes pod statuses and claims
    pending = sum(1 for p in cluster.pods if is_pending(p))
    run_cluster = copy_snapshot(cluster) if compare_with_run and is_pending(found) and 1 < pending <= MAX_PENDING_TO_COMPARE else None
    sched = Scheduler(cluster, config, registry, version, seed=seed, dry_run=True, plugin_timeout=plugin_timeout)
    # The queue holds every pending pod, so the nominator knows each status.nominatedNodeName:
    # a pod nominated to a node counts there when this pod is filtered
    # (RunFilterPluginsWithNominatedPods), as in the running scheduler.
    sched.enqueue_pending()
    state, detail = pod_state(sched, found)
    pod = found
    if not is_pending(pod):
        # Evaluating a bound pod asks where it would go if it were pending: an unbound copy,
        # with the pod itself off its node (it does not compete with itself).
        if state == "bound":
            sched.cache.remove_pod(found)
        pod = Pod.from_dict({**pod.raw, "spec": {**pod.raw.get("spec", {}), "nodeName": ""}})
        pod.priority = pod.priority if pod.priority is not None else 0
    if pod.scheduler_name not in sched.profiles:
        result = ExplainResult(pod.key, pod.scheduler_name, None, None, state=state, state_detail=detail, evaluated=False)
        result.preemption = {"nominatedNode": None, "victims": []}
        return result
    fwk = sched.framework_for_pod(pod)
    if state in ("gated", "bound", "terminal") and not evaluate:
        result = ExplainResult(pod.key, fwk.profile_name, None, None, state=state, state_detail=detail, evaluated=False)
        result.warnings = list(sched.services.warnings)
        return result
    create_template_claims(sched, pod)
    sched.update_snapshot()
    qpi = QueuedPodInfo(PodInfo.of(pod), attempts=1)
    result = ExplainResult(
        pod.key,
        fwk.profile_name,
        None,
        None,
        explain_nodes(sched, fwk, qpi, sched.snapshot, all_filters=all_filters),
        state=state,
        state_detail=detail,
    )
    # The decision: what `schedule` does in this state (sampling, nominated node, tie rule,
    # PostFilter), without assuming anything; preemption runs dry.
    recorder = SampleRecorder(sched.algorithm.next_start_node_index)
    sched.algorithm.recorders.append(recorder)
    try:
        outcome = schedule_pod(sched, fwk, CycleState(), qpi)
    finally:
        sched.algorithm.recorders.remove(recorder)
    if isinstance(outcome, ScheduleResult):
        result.node = outcome.suggested_host
        result.verdict = fits_verdict(result.nodes)
        result.sampling = sampling_facts(recorder, result.node, {n.name: n.total for n in result.nodes})
        result.tie = tie_facts(recorder, result.node)
    elif outcome.fit_error is not None:
        result.message = outcome.fit_error.message()
        nominating, pre = outcome.nominating, sched.client.last_preemption
        result.preemption = {
            "nominatedNode": nominating.nominated_node_name if nominating and nominating.nominated_node_name else None,
            "victims": list(pre.victims) if pre is not None else [],
        }
        fit = outcome.fit_error
        result.verdict = verdict(pod, fit.reason_histogram(), fit.num_all_nodes, ClusterFacts.of(sched.snapshot.list())) + verdict_notes(
            result.nodes
        )
    else:
        result.message = outcome.status.message() if outcome.status is not None else None
        result.preemption = {"nominatedNode": None, "victims": []}
    result.warnings = list(sched.services.warnings) + sched.claims_created_warning()
    if state in ("pending", "nominated"):
        compare_with_schedule(
            result,
            run_cluster or cluster,
            config,
            registry,
            version,
            seed,
            plugin_timeout,
            run=run_cluster is not None,
            victim_exit=victim_exit,
        )
    return result


def explain_nodes(sched: Scheduler, fwk: Framework, qpi: QueuedPodInfo, snapshot: Any, all_filters: bool = False) -> list[NodeExplanation]:
    """Every node's filter status and every feasible node's scores, for this pod now.

    This is schedulePod itself (SchedulingAlgorithm) with ``find_all`` (no sampling, no
    nominated node first, an Error on one node does not end the search, a single feasible
    node is scored too) and a NodeTable recorder attached. Its tie-break draws from a copy of
    the run's random source, so that looking changes nothing of what is decided after."""
    rng = random.Random()
    rng.setstate(sched.rng.getstate())
    algorithm = SchedulingAlgorithm(sched.algorithm.percentage_of_nodes_to_score, rng, find_all=True)
    algorithm.extenders = sched.algorithm.extenders
    table = NodeTable(fwk, all_filters=all_filters)
    algorithm.recorders.append(table)
    try:
        algorithm.schedule_pod(fwk, CycleState(), qpi, snapshot)
    except (FitError, SchedulingError):
        pass  # what the nodes said is recorded either way
    return table.rows


# --- pod groups ----------------------------------------------------------------------------


def explain_pod_group(
    cluster: ClusterSnapshot,
    ref: str,
    config: KubeSchedulerConfiguration,
    registry: Registry,
    version: KubeVersion,
    seed: int | None = None,
    plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT,
) -> ExplainGroupResult:
    """One group attempt (scheduleOnePodGroup) on the snapshot as given, without binding: for each
    member, the per-node results it saw in the group's simulated state (earlier members assumed)."""
    ns, _, name = ref[len(POD_GROUP_PREFIX) :].rpartition("/")
    ns = ns or "default"
    sched = Scheduler(cluster, config, registry, version, seed=seed, dry_run=True, plugin_timeout=plugin_timeout)
    members = [
        p for p in cluster.pods if is_pending(p) and (g := group_of(sched.objects, p, version)) is not None and g.key == f"{ns}/{name}"
    ]
    if not members:
        raise InputError(
            f"pod group {ns}/{name} has no pending members in the snapshot "
            f"(pod groups need --feature-gates GenericWorkload=true,GangScheduling=true)",
            file=", ".join(cluster.inputs) or None,
            obj=f"PodGroup {ns}/{name}",
        )
    # a member no profile serves is never queued nor counted in its group (addPodToSchedulingQueue)
    members = [p for p in members if p.scheduler_name in sched.profiles]
    if not members:
        raise InputError(
            f"pod group {ns}/{name} has no pending member a profile serves (their schedulerName names no profile: `schedule` skips them)",
            file=", ".join(cluster.inputs) or None,
            obj=f"PodGroup {ns}/{name}",
        )
    for member in members:
        create_template_claims(sched, member)
    group = group_of(sched.objects, members[0], version)
    assert group is not None  # members were chosen for having it
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
    mixed = mixed_scheduler_names(members)  # frameworkForPodGroup: every member fails with it
    attempt = GroupAttempt(status=mixed) if mixed is not None else cycle.run_algorithm(fwk, group, queued)
    out = ExplainGroupResult(
        f"{ns}/{name}",
        fwk.profile_name,
        attempt.status.code.name,
        attempt.status.message() or None,
        attempt.placement,
        min_count=group.min_count,
        policy=group.policy,
    )
    for mr in attempt.results:
        out.members.append(
            GroupMemberExplanation(
                mr.pod.key,
                mr.host if mr.status.is_success() else None,
                None if mr.status.is_success() else mr.status.message(),
                tables.get((attempt.placement, mr.pod.key), []),
            )
        )
    out.warnings = list(sched.services.warnings) + sched.claims_created_warning()
    return out
