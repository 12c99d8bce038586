"""DefaultPreemption (PostFilter, PreEnqueue): evict lower-priority pods so a pod can fit.

Upstream: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go. The plugin
is the preemption.Interface of the generic Evaluator (evaluator.py): it decides who may
preempt (preemptionPolicy, terminating victims on the nominated node), how many nodes to
dry-run (minCandidateNodesPercentage / minCandidateNodesAbsolute, random start offset), and
which pods to evict on one node (all lower-priority pods removed, then reprieved one by one,
PDB-violating ones first).

Pod-group preemption (workload-aware preemption, placement-based pod groups) is not modelled:
the gates that enable it are off by default in every emulated release.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ...api.types import Pod, PodDisruptionBudget
from ...framework.cycle_state import CycleState
from ...framework.interface import (
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    PostFilterResult,
    QueueingHint,
    Status,
)
from ...framework.types import NodeInfo, NodeToStatus, PodInfo
from .. import names
from ..helper import validated_args
from .evaluator import (
    Candidate,
    Evaluator,
    ScoreFunc,
    filter_pods_with_pdb_violation,
    more_important_pod,
    sort_by_importance,
)

NAME = names.DefaultPreemption
DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100
PREEMPT_NEVER = "Never"
DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
ERR_PREEMPTION_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
ERR_TERMINATING_ON_NOMINATED = "not eligible due to a terminating pod on the nominated node."

# (node_info, victim PodInfo, preemptor) -> may this victim be preempted (beyond lower priority)?
IsEligiblePodFunc = Callable[[NodeInfo, PodInfo, Pod], bool]


class DefaultPreemption:
    def __init__(self, args: dict | None, handle: Any) -> None:
        args = validated_args(args, handle, default_args, validate_args)
        self.min_candidate_nodes_percentage = int(args["minCandidateNodesPercentage"])
        self.min_candidate_nodes_absolute = int(args["minCandidateNodesAbsolute"])
        self.handle = handle
        self.evaluator = Evaluator(NAME, handle, self)
        # Extension hooks, as the exported fields of upstream's plugin struct.
        self.is_eligible_pod: IsEligiblePodFunc = lambda node_info, victim, preemptor: True
        self.more_important_pod: Callable[[Pod, Pod], bool] = more_important_pod
        # getOffsetRand: rand.Int31n(n) from the run's seeded random source; tests may replace it.
        self.offset_rand: Callable[[int], int] = self._rand_int31n

    def name(self) -> str:
        return NAME

    def _rand_int31n(self, n: int) -> int:
        rng = getattr(self.handle, "rng", None)
        return rng.randrange(n) if rng is not None and n > 0 else 0

    # --- PostFilter ------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Pod,
                    m: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        result, status = self.evaluator.preempt(state, pod, m)
        msg = status.message()
        if msg:
            return result, Status(status.code, "preemption: " + msg, err=status.err)
        return result, status

    # --- PreEnqueue ------------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Always admits the pod.

        Upstream (SchedulerAsyncPreemption) holds a preemptor here, "waiting for the preemption
        for this pod to be finished", while the victims' API deletions run in a goroutine. The
        simulation applies preemption synchronously inside PostFilter, so by the time the pod
        could be re-queued its victims are gone and there is nothing to wait for.
        """
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """With async preemption: AssignedPod/Delete, whose hint always skips (upstream)."""
        version = getattr(self.handle, "version", None)
        if version is not None and version.feature_enabled("SchedulerAsyncPreemption"):
            return [ClusterEventWithHint(ClusterEvent("AssignedPod", "Delete"),
                                         lambda pod, old, new: QueueingHint.QueueSkip)]
        return []

    # --- preemption.Interface --------------------------------------------------------------
    def calculate_num_candidates(self, num_nodes: int) -> int:
        """n × percentage int/ 100, at least minCandidateNodesAbsolute, at most n."""
        n = num_nodes * self.min_candidate_nodes_percentage // 100
        n = max(n, self.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return self.offset_rand(num_nodes), self.calculate_num_candidates(num_nodes)

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Candidate]) -> list[ScoreFunc] | None:
        return None  # the default criteria of pickOneNodeForPreemption

    def is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        """Strictly lower priority than the preemptor, and IsEligiblePod agrees."""
        return (victim.pod.effective_priority() < preemptor.effective_priority()
                and self.is_eligible_pod(node_info, victim, preemptor))

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None) -> tuple[bool, str]:
        """PodEligibleToPreemptOthers: preemptionPolicy Never, or victims still terminating."""
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, ERR_PREEMPTION_POLICY_NEVER
        nominated = pod.nominated_node_name
        if nominated:
            # The nominated node cannot host the pod anyway: let it preempt elsewhere.
            if nominated_node_status is not None and nominated_node_status.code == Code.UnschedulableAndUnresolvable:
                return True, ""
            node_info = self.handle.snapshot_shared_lister().get(nominated)
            if node_info is not None:
                for p in node_info.pods:
                    if self.is_preemption_allowed(node_info, p, pod) and pod_terminating_by_preemption(p.pod):
                        return False, ERR_TERMINATING_ON_NOMINATED
        return True, ""

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               pdbs: Sequence[PodDisruptionBudget]) -> tuple[list[Pod], int, Status]:
        """SelectVictimsOnNode: the fewest lower-priority pods whose removal lets the pod fit.

        ``state`` and ``node_info`` are copies (the dry run clones them).
        """
        fh = self.handle

        def remove(pi: PodInfo) -> Status:
            node_info.remove_pod(pi.pod)
            return fh.run_pre_filter_extension_remove_pod(state, pod, pi, node_info)

        def add(pi: PodInfo) -> Status:
            node_info.add_pod_info(pi)
            return fh.run_pre_filter_extension_add_pod(state, pod, pi, node_info)

        potential = [pi for pi in node_info.pods if self.is_preemption_allowed(node_info, pi, pod)]
        for pi in potential:
            st = remove(pi)
            if not st.is_success():
                return [], 0, Status(Code.Error, st.message(), err=st.err)
        if not potential:
            return [], 0, Status(Code.UnschedulableAndUnresolvable, ERR_NO_VICTIMS)

        # Even without every lower-priority pod the pod does not fit: this node cannot help.
        # (Affinity of the preemptor to the victims themselves is deliberately not considered.)
        st = fh.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if not st.is_success():
            return [], 0, st

        sort_by_importance(potential, lambda pi: pi.pod, self.more_important_pod)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[PodInfo] = []

        def reprieve(pi: PodInfo) -> tuple[bool, Status]:
            st = add(pi)
            if not st.is_success():
                return False, st
            fits = fh.run_filter_plugins_with_nominated_pods(state, pod, node_info).is_success()
            if not fits:
                st = remove(pi)
                if not st.is_success():
                    return False, st
                victims.append(pi)
            return fits, Status()

        num_violating = 0
        for pi in violating:
            fits, st = reprieve(pi)
            if not st.is_success():
                return [], 0, Status(Code.Error, st.message(), err=st.err)
            if not fits:
                num_violating += 1
        for pi in non_violating:
            _, st = reprieve(pi)
            if not st.is_success():
                return [], 0, Status(Code.Error, st.message(), err=st.err)

        if violating and non_violating:
            sort_by_importance(victims, lambda pi: pi.pod, self.more_important_pod)
        return [pi.pod for pi in victims], num_violating, Status()


def pod_terminating_by_preemption(pod: Pod) -> bool:
    """Being deleted, and its first DisruptionTarget condition is True/PreemptionByScheduler."""
    if pod.meta.deletion_timestamp is None:
        return False
    for cond in pod.conditions:
        if cond.get("type") == DISRUPTION_TARGET:
            return cond.get("status") == "True" and cond.get("reason") == REASON_PREEMPTION_BY_SCHEDULER
    return False


# --- args (apis/config/v1/defaults.go, validation/validation_pluginargs.go) ----------------


def default_args(args: dict | None, version: Any) -> dict:
    """SetDefaults_DefaultPreemptionArgs: 10 % and 100 nodes when unset (explicit 0 stays)."""
    out = dict(args or {})
    if out.get("minCandidateNodesPercentage") is None:
        out["minCandidateNodesPercentage"] = DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE
    if out.get("minCandidateNodesAbsolute") is None:
        out["minCandidateNodesAbsolute"] = DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE
    return out


def validate_args(args: dict, version: Any) -> list[tuple[str, str]]:
    """ValidateDefaultPreemptionArgs: percentage in [0, 100], absolute ≥ 0, not both 0."""
    errors: list[tuple[str, str]] = []
    pct = args.get("minCandidateNodesPercentage", DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE)
    absolute = args.get("minCandidateNodesAbsolute", DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE)
    for field_name, value in (("minCandidateNodesPercentage", pct), ("minCandidateNodesAbsolute", absolute)):
        if isinstance(value, bool) or not isinstance(value, int):
            errors.append((field_name, f"Invalid value: {value!r}: must be an integer"))
    if errors:
        return errors
    if pct < 0 or pct > 100:
        errors.append(("minCandidateNodesPercentage", f"Invalid value: {pct}: not in valid range [0, 100]"))
    if absolute < 0:
        errors.append(("minCandidateNodesAbsolute", f"Invalid value: {absolute}: not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errors.append(("minCandidateNodesPercentage",
                       "Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute"))
        errors.append(("minCandidateNodesAbsolute",
                       "Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage"))
    return errors
