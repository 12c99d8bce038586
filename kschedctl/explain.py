"""explain: one pod against the snapshot as given, every node, every score plugin.

Bound pods count, other pending pods do not. Every node is filtered (no percentageOfNodesToScore
sampling) and every feasible node scored, so the user sees the whole picture; the chosen node
is what `schedule` would pick in this state (with sampling and upstream's tie rule), and when
there is none, what preemption would do, without doing it.
"""

from __future__ import annotations

from .algorithm import SchedulingAlgorithm, SchedulingError
from .api.errors import InputError
from .api.types import Pod
from .config.types import KubeSchedulerConfiguration
from .framework.cycle_state import CycleState
from .framework.interface import Code
from .framework.registry import Registry
from .framework.types import FitError, PodInfo, QueuedPodInfo
from .result import ExplainResult, NodeExplanation
from .scheduler import Scheduler
from .snapshot.loader import ClusterSnapshot, is_pending
from .versions import KubeVersion


def find_pod(cluster: ClusterSnapshot, key: str) -> Pod:
    ns, _, name = key.rpartition("/")
    ns = ns or "default"
    for pod in cluster.pods:
        if pod.namespace == ns and pod.name == name:
            return pod
    raise InputError(f"pod {ns}/{name} not found in the snapshot", obj=f"Pod {ns}/{name}")


def explain_pod(cluster: ClusterSnapshot, pod_key: str, config: KubeSchedulerConfiguration, registry: Registry,
                version: KubeVersion, seed: int | None = None) -> ExplainResult:
    pod = find_pod(cluster, pod_key)
    if not is_pending(pod):
        # Explaining a bound pod means asking where it would go now: evaluate an unbound copy.
        pod = Pod.from_dict({**pod.raw, "spec": {**pod.raw.get("spec", {}), "nodeName": ""}})
        pod.priority = pod.priority if pod.priority is not None else 0
    sched = Scheduler(cluster, config, registry, version, seed=seed, dry_run=True)
    if pod.scheduler_name not in sched.profiles:
        raise InputError(f"no profile for schedulerName {pod.scheduler_name!r}", obj=f"Pod {pod.key}",
                         field="spec.schedulerName")
    fwk = sched.profiles[pod.scheduler_name]
    sched.cache.update_snapshot(sched.snapshot)
    for f in sched.profiles.values():
        f.snapshot = sched.snapshot
    qpi = QueuedPodInfo(PodInfo.of(pod), attempts=1)
    nodes = _explain_nodes(fwk, pod, sched)
    result = ExplainResult(pod.key, fwk.profile_name, None, None, nodes)
    algo = SchedulingAlgorithm(0, sched.rng)
    algo.percentage_of_nodes_to_score = sched.algorithm.percentage_of_nodes_to_score
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
        out.append(NodeExplanation(info.name, st.code.name, st.plugin, list(st.reasons)))
        if st.is_success():
            feasible.append(info)
    if feasible:
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
    return out
