"""explain: one pod against the snapshot as given, every node, every score plugin.

Bound pods count, other pending pods do not. Every node is filtered (no percentageOfNodesToScore
sampling) and every feasible node scored, so the user sees the whole picture; the chosen node
is what `schedule` would pick in this state (with sampling and upstream's tie rule), and when
there is none, what preemption would do, without doing it.
"""

from __future__ import annotations

import difflib
from typing import Any

from kschedctl.api.errors import InputError
from kschedctl.api.types import Pod
from kschedctl.cluster.loader import ClusterSnapshot, is_pending
from kschedctl.config.types import KubeSchedulerConfiguration
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, Status
from kschedctl.framework.runtime.registry import Registry
from kschedctl.framework.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.framework.types import FitError, PodInfo, QueuedPodInfo
from kschedctl.scheduler.algorithm import SchedulingAlgorithm, SchedulingError
from kschedctl.scheduler.extender import (
    ExtenderError,
    find_nodes_that_pass_extenders,
    prioritize_with_extenders,
)
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
    pod = find_pod(cluster, pod_key)
    if not is_pending(pod):
        # Explaining a bound pod means asking where it would go now: evaluate an unbound copy.
        pod = Pod.from_dict({**pod.raw, "spec": {**pod.raw.get("spec", {}), "nodeName": ""}})
        pod.priority = pod.priority if pod.priority is not None else 0
    sched = Scheduler(cluster, config, registry, version, seed=seed, dry_run=True, plugin_timeout=plugin_timeout)
    # The queue holds every pending pod, so the nominator knows each status.nominatedNodeName:
    # a pod nominated to a node counts there when this pod is filtered
    # (RunFilterPluginsWithNominatedPods), as in the running scheduler.
    sched.enqueue_pending()
    if pod.scheduler_name not in sched.profiles:
        raise InputError(f"no profile for schedulerName {pod.scheduler_name!r}", obj=f"Pod {pod.key}",
                         field="spec.schedulerName")
    fwk = sched.profiles[pod.scheduler_name]
    sched.create_template_claims(pod)
    sched.cache.update_snapshot(sched.snapshot)
    for f in sched.profiles.values():
        f.snapshot = sched.snapshot
    qpi = QueuedPodInfo(PodInfo.of(pod), attempts=1)
    nodes = _explain_nodes(fwk, pod, sched)
    result = ExplainResult(pod.key, fwk.profile_name, None, None, nodes)
    algo = SchedulingAlgorithm(0, sched.rng)
    algo.percentage_of_nodes_to_score = sched.algorithm.percentage_of_nodes_to_score
    algo.extenders = sched.extenders
    state = CycleState()
    try:
        chosen = algo.schedule_pod(fwk, state, qpi, sched.snapshot)
        result.node = chosen.suggested_host
    except FitError as fit_error:
        nominating = sched._run_post_filter(fwk, state, pod, fit_error)
        result.message = fit_error.message()
        pre = sched.client.last_preemption
        result.preemption = {
            "nominatedNode": nominating.nominated_node_name if nominating and nominating.nominated_node_name else None,
            "victims": list(pre.victims) if pre is not None else [],
        }
    except SchedulingError as err:
        result.message = err.status.message()
        result.preemption = {"nominatedNode": None, "victims": []}
    result.warnings = list(sched.services.warnings) + sched.claims_created_warning()
    return result


def _explain_nodes(fwk, pod: Pod, sched: Scheduler) -> list[NodeExplanation]:
    state = CycleState()
    all_nodes = sched.snapshot.list()
    pre_res, status, plugins = fwk.run_pre_filter_plugins(state, pod, all_nodes)
    out: list[NodeExplanation] = []
    if not status.is_success():
        for info in all_nodes:
            out.append(NodeExplanation(info.name, status.code.name, status.plugin, list(status.reasons)))
        return out
    feasible = []
    for info in all_nodes:
        if pre_res is not None and not pre_res.all_nodes() and info.name not in (pre_res.node_names or set()):
            reason = f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(plugins))}]"
            out.append(NodeExplanation(info.name, Code.UnschedulableAndUnresolvable.name, "", [reason]))
            continue
        st = fwk.run_filter_plugins_with_nominated_pods(state, pod, info)
        out.append(NodeExplanation(info.name, st.code.name, st.plugin, list(st.reasons),
                                   dra=_dra_details(fwk, state, info)))
        if st.is_success():
            feasible.append(info)
    feasible = _pass_extenders(sched, pod, feasible, {n.name: n for n in out})
    if feasible and not fwk.has_score_plugins() and not any(e.is_prioritizer() for e in sched.extenders):
        # prioritizeNodes: without Score plugins (nor prioritizing extenders) every feasible
        # node scores 1.
        for n in out:
            if n.code == Code.Success.name:
                n.scores, n.total = {}, 1
    elif feasible:
        st = fwk.run_pre_score_plugins(state, pod, feasible)
        if st.is_success():
            scores, st = fwk.run_score_plugins(state, pod, feasible)
            if st.is_success():
                by_name = {s.name: s for s in scores}
                for n in out:
                    s = by_name.get(n.name)
                    if s is not None:
                        n.scores = {ps.name: {"score": ps.normalized, "weight": ps.weight} for ps in s.scores}
                        n.total = s.total_score
                _add_extender_scores(sched, pod, feasible, out)
    return out


def _dra_details(fwk: Any, state: CycleState, info: Any) -> dict[str, Any] | None:
    """DynamicResources' view of the node (additive: kube's statuses stay as they are)."""
    plugin = fwk.instances.get("DynamicResources")
    if plugin is None or not getattr(plugin, "enabled", False):
        return None
    from kschedctl.plugins.dynamic_resources.explain import explain_node

    return explain_node(plugin, state, info)


def _pass_extenders(sched: Scheduler, pod: Pod, feasible: list, by_name: dict[str, NodeExplanation]) -> list:
    """The filter extenders over the nodes the plugins let through: a node an extender drops
    shows its status (the extender's URL as the plugin); an extender's error is every
    remaining node's Error."""
    if not sched.extenders or not feasible:
        return feasible

    def set_status(name: str, status: Status) -> None:
        if name in by_name:
            n = by_name[name]
            n.code, n.plugin, n.reasons = status.code.name, status.plugin, list(status.reasons)

    try:
        return find_nodes_that_pass_extenders(sched.extenders, pod, feasible, set_status)
    except ExtenderError as err:
        for info in feasible:
            set_status(info.name, Status(Code.Error, str(err)))
        return []


def _add_extender_scores(sched: Scheduler, pod: Pod, feasible: list, out: list[NodeExplanation]) -> None:
    """Each prioritizing extender's score and multiplier (weight × MaxNodeScore /
    MaxExtenderPriority), named by its URL, added to the total."""
    for column in prioritize_with_extenders(sched.extenders, pod, feasible):
        for n in out:
            if n.scores is None:
                continue
            score = column.scores.get(n.name, 0)
            n.scores[column.name] = {"score": score, "weight": column.multiplier}
            n.total = (n.total or 0) + score * column.multiplier


# --- pod groups ----------------------------------------------------------------------------


def explain_pod_group(cluster: ClusterSnapshot, ref: str, config: KubeSchedulerConfiguration, registry: Registry,
                      version: KubeVersion, seed: int | None = None,
                      plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT) -> ExplainGroupResult:
    """One group attempt (scheduleOnePodGroup) on the snapshot as given, without binding: for each
    member, the per-node results it saw in the group's simulated state (earlier members assumed)."""
    from kschedctl.backend.podgroup import group_of

    ns, _, name = ref[len(POD_GROUP_PREFIX):].rpartition("/")
    ns = ns or "default"
    sched = Scheduler(cluster, config, registry, version, seed=seed, dry_run=True, plugin_timeout=plugin_timeout)
    cycle = sched.pod_groups
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
    per_member: dict[str, list[NodeExplanation]] = {}

    def hook(fwk_: Any, pod: Pod) -> None:
        for f in sched.profiles.values():
            f.snapshot = sched.snapshot
        per_member[pod.key] = _explain_nodes(fwk_, pod, sched)

    cycle.explain_hook = hook
    queued = [QueuedPodInfo(PodInfo.of(p), attempts=1, seq=i) for i, p in enumerate(members)]
    queued.sort(key=lambda q: (-q.pod.effective_priority(), q.seq))
    sched.cache.update_snapshot(sched.snapshot)
    for f in sched.profiles.values():
        f.snapshot = sched.snapshot
    if version.feature_enabled("TopologyAwareWorkloadScheduling"):
        attempt = cycle._placement_algorithm(fwk, group, queued)
    else:
        attempt = cycle._default_algorithm(fwk, group, queued)
    out = ExplainGroupResult(f"{ns}/{name}", fwk.profile_name, attempt.status.code.name,
                             attempt.status.message() or None, attempt.placement)
    for mr in attempt.results:
        out.members.append(GroupMemberExplanation(
            mr.pod.key, mr.host, None if mr.status.is_success() else mr.status.message(),
            per_member.get(mr.pod.key, [])))
    out.warnings = list(sched.services.warnings) + sched.claims_created_warning()
    return out
