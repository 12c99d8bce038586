"""The generic preemption Evaluator: find candidates by dry run, pick one, prepare it.

Upstream: pkg/scheduler/framework/preemption/preemption.go (Evaluator.Preempt, findCandidates,
DryRunPreemption, SelectCandidate, pickOneNodeForPreemption, prepareCandidate; newest master
splits these over candidate.go/executor.go in the same package) and pkg/scheduler/util/utils.go
(MoreImportantPod, GetPodStartTime, GetEarliestPodStartTime).

The plugin-specific decisions (eligibility, the candidate budget, victims on one node, custom
score functions) come from an ``interface`` object, as upstream's preemption.Interface: the
DefaultPreemption plugin is that interface. Upstream dry-runs nodes in parallel and stops once it
has enough candidates; here nodes are visited one by one in the same rotating order, which is
upstream's behaviour with parallelism 1 (the reading its own unit tests use to be deterministic).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kschedctl.api.gotime import seconds_of
from kschedctl.api.types import Pod, PodDisruptionBudget
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.extender import Victims
from kschedctl.framework.gosemantics import go_quote
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import Code, PostFilterResult, Status
from kschedctl.framework.types import (
    Diagnosis,
    FitError,
    NodeInfo,
    NodeToStatus,
    PodInfo,
)

ERR_NOT_HELPFUL = "Preemption is not helpful for scheduling"
ERR_NO_CANDIDATE = "no candidate node for preemption"
MAX_INT32 = 2**31 - 1

ScoreFunc = Callable[[str], float]


# --- utils.go ------------------------------------------------------------------------------


def pod_start_time(pod: Pod) -> float:
    """GetPodStartTime: status.startTime in seconds since the epoch.

    A pod without a start time (assumed, or bound but not started) counts as starting "now",
    which upstream takes from the wall clock and is later than any recorded start: +inf here,
    so two such pods compare equal and the order stays deterministic.
    """
    text = pod.start_time
    if not text:
        return math.inf
    return _parse_start_time(text)


@functools.lru_cache(maxsize=65536)
def _parse_start_time(text: str) -> float:
    """RFC 3339 text -> seconds (metav1.Time's reading: kschedctl.api.gotime); memoised, as the dry
    run compares the same pods on every node."""
    seconds = seconds_of(text)
    return math.inf if seconds is None else float(seconds)


def more_important_pod(pod1: Pod, pod2: Pod) -> bool:
    """MoreImportantPod: higher priority first, then the one that started earlier."""
    p1, p2 = pod1.effective_priority(), pod2.effective_priority()
    if p1 != p2:
        return p1 > p2
    return pod_start_time(pod1) < pod_start_time(pod2)


def sort_by_importance(
    items: list[Any], pod_of: Callable[[Any], Pod], more_important: Callable[[Pod, Pod], bool] = more_important_pod
) -> None:
    """sort.Slice by MoreImportantPod, in place; equal pods keep their order (stable)."""

    def cmp(a: Any, b: Any) -> int:
        pa, pb = pod_of(a), pod_of(b)
        if more_important(pa, pb):
            return -1
        if more_important(pb, pa):
            return 1
        return 0

    items.sort(key=functools.cmp_to_key(cmp))


def earliest_pod_start_time(victims: Sequence[Pod]) -> float | None:
    """GetEarliestPodStartTime: the earliest start among the highest-priority victims."""
    if not victims:
        return None
    earliest = pod_start_time(victims[0])
    max_priority = victims[0].effective_priority()
    for pod in victims:
        priority = pod.effective_priority()
        if priority == max_priority:
            earliest = min(earliest, pod_start_time(pod))
        elif priority > max_priority:
            max_priority = priority
            earliest = pod_start_time(pod)
    return earliest


# --- candidates ----------------------------------------------------------------------------


@dataclass
class Candidate:
    """A node the preemptor could be nominated to, with the victims to evict (extenderv1.Victims)."""

    name: str
    victims: list[Pod] = field(default_factory=list)
    num_pdb_violations: int = 0


class PreemptionInterface(Protocol):
    """preemption.Interface: what a preemption plugin decides."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]: ...

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None) -> tuple[bool, str]: ...

    def select_victims_on_node(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, pdbs: Sequence[PodDisruptionBudget]
    ) -> tuple[list[Pod], int, Status]: ...

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Candidate]) -> list[ScoreFunc] | None: ...


def filter_pods_with_pdb_violation(
    pod_infos: Sequence[PodInfo], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[list[PodInfo], list[PodInfo]]:
    """filterPodsWithPDBViolation: split (in order) into PDB-violating and non-violating pods.

    Each PDB's disruptionsAllowed is copied and decremented for every matching pod not already
    in its disruptedPods; a pod whose matching PDB goes below zero is violating. A pod without
    labels matches no PDB; a PDB with a nil or empty selector matches nothing.
    """
    if not pdbs:
        return [], list(pod_infos)
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for info in pod_infos:
        pod = info.pod
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace:
                    continue
                selector = pdb.selector
                if selector is None or selector.is_empty() or not selector.matches(pod.labels):
                    continue
                if pod.name in pdb.disrupted_pods:
                    continue  # already processed by the API server: not a violation
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(info)
    return violating, non_violating


def default_score_funcs(nodes_to_victims: dict[str, Candidate]) -> list[ScoreFunc]:
    """pickOneNodeForPreemption's default criteria, each "higher is better", in order."""

    def min_pdb_violations(node: str) -> float:
        return -nodes_to_victims[node].num_pdb_violations

    def min_highest_priority(node: str) -> float:
        return -nodes_to_victims[node].victims[0].effective_priority()

    def min_sum_priorities(node: str) -> float:
        # + MaxInt32 + 1 so that many negative-priority victims never look cheaper than fewer.
        return -sum(p.effective_priority() + MAX_INT32 + 1 for p in nodes_to_victims[node].victims)

    def min_num_pods(node: str) -> float:
        return -len(nodes_to_victims[node].victims)

    def latest_start_time(node: str) -> float:
        earliest = earliest_pod_start_time(nodes_to_victims[node].victims)
        return -math.inf if earliest is None else earliest

    return [min_pdb_violations, min_highest_priority, min_sum_priorities, min_num_pods, latest_start_time]


def pick_one_node_for_preemption(nodes_to_victims: dict[str, Candidate], score_funcs: list[ScoreFunc] | None = None) -> str:
    """pickOneNodeForPreemption: keep the best-scoring nodes of each criterion in turn.

    When every criterion ties, the first remaining node in candidate order wins (non-violating
    candidates first, then violating, in dry-run order). Upstream builds the list from a Go map,
    so its final tie-break is random; candidate order is the deterministic reading.
    """
    if not nodes_to_victims:
        return ""
    if not score_funcs:
        default = _pick_by_default_criteria(nodes_to_victims)
        if default is not None:
            return default
    remaining = list(nodes_to_victims)
    for f in score_funcs or default_score_funcs(nodes_to_victims):
        best = -math.inf
        selected: list[str] = []
        for node in remaining:
            score = f(node)
            if score > best:
                best, selected = score, []
            if score == best:
                selected.append(node)
        if len(selected) == 1:
            return selected[0]
        remaining = selected
    return remaining[0]


def _default_key(c: Candidate) -> tuple[int, int, int, int, float]:
    """The five default criteria of one candidate (default_score_funcs), read in one pass over
    its victims. Its victims must not be empty. It reads ``priority`` and ``start_time`` as
    effective_priority() and pod_start_time() do, and the earliest start among the highest
    priority as earliest_pod_start_time() does, rather than calling them: built from those calls
    the key costs as much as the staged loop (PreemptionPVs 500: 10,858 -> 11,386 M
    instructions, its 499 choices back to ~180 ms)."""
    victims = c.victims
    first = victims[0].priority
    highest = max_priority = first if first is not None else 0
    earliest = math.inf
    total = 0
    for victim in victims:
        priority = victim.priority
        if priority is None:
            priority = 0
        total += priority + MAX_INT32 + 1
        if priority < max_priority:
            continue
        if priority > max_priority:
            max_priority, earliest = priority, math.inf
        text = victim.start_time  # pod_start_time: none is "now", later than any start
        if text:
            start = _parse_start_time(text)
            if start < earliest:
                earliest = start
    return -c.num_pdb_violations, -highest, -total, -len(victims), earliest


def _pick_by_default_criteria(nodes_to_victims: dict[str, Candidate]) -> str | None:
    """pickOneNodeForPreemption with the default criteria, as one comparison of key tuples.

    Keeping the best of each criterion in turn, and the first remaining node at the end, picks
    the first candidate whose five scores are greatest in lexicographic order: ``max`` keeps
    the first of equal keys. The preemption runs of a full cluster tie on every criterion for
    a hundred candidates, so this is one pass over their victims instead of five closures and
    a dictionary read per criterion and node. None when a candidate has no victim (the loop
    then fails on it as upstream's criteria would)."""
    if any(not c.victims for c in nodes_to_victims.values()):
        return None
    return max(nodes_to_victims.items(), key=lambda item: _default_key(item[1]))[0]


# --- the Evaluator -------------------------------------------------------------------------


class Evaluator:
    """preemption.Evaluator bound to one plugin (its name, its handle, its Interface)."""

    def __init__(self, plugin_name: str, handle: Handle, interface: PreemptionInterface) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface

    def preempt(self, state: CycleState, pod: Pod, m: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        """Preempt: eligibility, candidates, the best one, its victims evicted, the nomination.

        <None, Error>: a transient failure; <None, Unschedulable>: not eligible; <result "",
        Unschedulable>: preemption cannot help (the nomination is cleared); <result node,
        Success>: nominate the pod to that node.
        """
        # 0) upstream re-reads the pod from the informer; our pod object is the current one.
        eligible, msg = self.interface.pod_eligible_to_preempt_others(pod, m.get(pod.nominated_node_name))
        if not eligible:
            return None, Status(Code.Unschedulable, msg)

        all_nodes = self.handle.snapshot_shared_lister().list()
        candidates, node_statuses, err = self.find_candidates(state, all_nodes, pod, m)
        if err is not None and not candidates:
            return None, Status(Code.Error, err)

        if not candidates:
            diagnosis = Diagnosis(node_to_status=node_statuses)
            fit_error = FitError(pod, len(all_nodes), diagnosis)
            node_statuses.set_absent_nodes_status(Status(Code.UnschedulableAndUnresolvable, ERR_NOT_HELPFUL))
            return PostFilterResult(""), Status(Code.Unschedulable, fit_error.message())

        # 3) the extenders that preempt may drop candidates or change their victims
        candidates, status = self.call_extenders(pod, candidates)
        if not status.is_success():
            return None, status

        best = self.select_candidate(candidates)
        if best is None or not best.name:
            return None, Status(Code.Unschedulable, ERR_NO_CANDIDATE)

        status = self.prepare_candidate(best, pod)
        if not status.is_success():
            return None, status
        return PostFilterResult(best.name), Status()

    def find_candidates(
        self, state: CycleState, all_nodes: Sequence[NodeInfo], pod: Pod, m: NodeToStatus
    ) -> tuple[list[Candidate], NodeToStatus, str | None]:
        """findCandidates: dry-run the nodes whose filter status was exactly Unschedulable."""
        if not all_nodes:
            return [], NodeToStatus(), "no nodes available"
        potential = m.nodes_for_status_code(self.handle.snapshot_shared_lister().list(), Code.Unschedulable)
        if not potential:
            # Upstream also clears the pod's nominatedNodeName here; the returned empty
            # nomination (PostFilterResult "") makes the scheduler do that.
            return [], NodeToStatus(), None
        pdbs = list(getattr(self.handle.objects, "pdbs", ()) or ())
        offset, num_candidates = self.interface.get_offset_and_num_candidates(len(potential))
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, num_candidates)

    def dry_run_preemption(
        self,
        state: CycleState,
        pod: Pod,
        potential_nodes: Sequence[NodeInfo],
        pdbs: Sequence[PodDisruptionBudget],
        offset: int,
        num_candidates: int,
    ) -> tuple[list[Candidate], NodeToStatus, str | None]:
        """DryRunPreemption: SelectVictimsOnNode on copies, from the offset, until enough candidates.

        Each candidate list holds at most num_candidates entries (upstream's candidateList drops
        extra adds); the search stops once there is a non-violating candidate and the two lists
        together reach num_candidates. Non-violating candidates come first in the result.
        """
        n = len(potential_nodes)
        at_once = self._no_victims_anywhere(pod, potential_nodes, offset)
        if at_once is not None:
            return [], at_once, None
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        rejected: list[tuple[NodeInfo, Status | None]] = []  # in visit order; None: not worded yet
        # an optional Interface method: the same answer without copies, or None
        without_copy = getattr(self.interface, "select_victims_without_copy", None)
        # and an optional test of the nodes it would answer "cannot help" (not worded) at once
        kept = getattr(self.interface, "kept_cannot_help", None) if without_copy is not None else None
        cannot_help = kept(state, pod) if kept is not None else None
        for i in range(n):
            node = potential_nodes[(offset + i) % n]
            if cannot_help is not None and cannot_help(node):
                rejected.append((node, None))
                continue
            victims, num_violations, status = self._select_victims(without_copy, state, pod, node, pdbs, False)
            if status is None:  # the node cannot help; its status is worded below if needed
                rejected.append((node, None))
                continue
            if status.is_success() and victims:
                c = Candidate(node.name, list(victims), num_violations)
                target = non_violating if num_violations == 0 else violating
                if len(target) < num_candidates:
                    target.append(c)
                if non_violating and len(non_violating) + len(violating) >= num_candidates:
                    break
                continue
            rejected.append((node, status))
        candidates = non_violating + violating
        statuses = NodeToStatus()
        errs: list[str] = []
        for node, status in rejected:
            if status is None:
                if candidates:
                    # Preempt reads the statuses and errors only when there is no candidate
                    # (framework/preemption/preemption.go: a FitError, or the aggregated error): with
                    # candidates, the nodes that cannot help are not worded.
                    continue
                status = self._select_victims(without_copy, state, pod, node, pdbs, True)[2]
            if status is None or status.is_success():
                status = Status(Code.Error, f'expected at least one victim pod on node "{node.name}"')
            if status.code == Code.Error:
                errs.append(status.message())
            statuses.set(node.name, status)
        return candidates, statuses, _aggregate(errs)

    def _no_victims_anywhere(self, pod: Pod, potential_nodes: Sequence[NodeInfo], offset: int) -> NodeToStatus | None:
        """The dry run's statuses when the interface (optional method ``no_victims_anywhere``)
        says no potential node has a victim: SelectVictimsOnNode's status for each node, set
        in visit order from the offset as the loop would set them; no candidate, no error.
        None when it cannot say so (the loop runs)."""
        ask = getattr(self.interface, "no_victims_anywhere", None)
        if ask is None:
            return None
        # The potential nodes are some of the snapshot's (find_candidates): no victim on any
        # of the snapshot's nodes is an answer for them, which the interface may keep for the
        # snapshot; otherwise they are asked about themselves.
        everything = self.handle.snapshot_shared_lister().list()
        status = ask(pod, everything)
        if status is None and len(potential_nodes) < len(everything):
            status = ask(pod, potential_nodes)
        if status is None:
            return None
        n = len(potential_nodes)
        statuses = NodeToStatus()
        # One Status shared by every node, set in visit order: each SelectVictimsOnNode call
        # returns an equal one, and nothing mutates a dry run's statuses (they are only
        # counted into the FitError's message, which counts a shared object once).
        order = [*potential_nodes[offset:], *potential_nodes[:offset]] if 0 < offset < n else list(potential_nodes)
        statuses.record(order, [Status(status.code, *status.reasons)] * n)  # named only if read by name
        return statuses

    def _select_victims(
        self, without_copy: Any, state: CycleState, pod: Pod, node: NodeInfo, pdbs: Sequence[PodDisruptionBudget], word_rejection: bool
    ) -> tuple[Any, int, Status | None]:
        """SelectVictimsOnNode's answer: without copies where the interface can give it, else on
        copies. A status None (only with ``word_rejection`` False) means "cannot help, not worded"."""
        answer = without_copy(state, pod, node, pdbs, word_rejection) if without_copy is not None else None
        if answer is None or (word_rejection and answer[2] is None):
            answer = self.interface.select_victims_on_node(state.clone(), pod, node.clone(), pdbs)
        return answer

    def call_extenders(self, pod: Pod, candidates: list[Candidate]) -> tuple[list[Candidate], Status]:
        """callExtenders: each extender that supports preemption and is interested in the pod
        gets the candidates (node -> victims) and answers those it keeps; an error fails the
        preemption unless the extender is ignorable; a node answered without victims is an
        error (dropped for an ignorable extender). Upstream rebuilds the candidates from a map
        (random order); here they keep the order they had, answered-only nodes after."""
        extenders = self.handle.extenders()
        if not extenders:
            return candidates, Status()
        victims_map: dict[str, Victims] = {c.name: Victims(list(c.victims), c.num_pdb_violations) for c in candidates}
        if not victims_map:
            return candidates, Status()
        lister = self.handle.snapshot_shared_lister()
        for extender in extenders:
            if not extender.supports_preemption() or not extender.is_interested(pod):
                continue
            try:
                answered = extender.process_preemption(pod, victims_map, lister.get)
            except Exception as err:  # noqa: BLE001 - the extender's error, worded by its client
                if extender.is_ignorable():
                    extender.skipped("preempt", err)
                    continue
                return [], Status(Code.Error, str(err), err=err)
            checked: dict[str, Victims] = {}
            for node_name, victims in answered.items():
                if victims is None or not victims.pods:
                    if extender.is_ignorable():
                        continue
                    return [], Status(Code.Error, f"expected at least one victim pod on node {go_quote(node_name)}")
                checked[node_name] = victims
            victims_map = checked
            if not victims_map:
                break
        order = {c.name: i for i, c in enumerate(candidates)}
        names = sorted(victims_map, key=lambda n: (order.get(n, len(order)), n))
        return [Candidate(n, list(victims_map[n].pods), victims_map[n].num_pdb_violations) for n in names], Status()

    def select_candidate(self, candidates: list[Candidate]) -> Candidate | None:
        """SelectCandidate: the only one, or pickOneNodeForPreemption among them."""
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        victims_map: dict[str, Candidate] = {}
        for c in candidates:
            victims_map[c.name] = c
        node = pick_one_node_for_preemption(victims_map, self.interface.ordered_score_funcs(victims_map))
        return victims_map.get(node, candidates[0])

    def prepare_candidate(self, c: Candidate, pod: Pod) -> Status:
        """prepareCandidate: evict the victims and clear lower-priority nominations on the node.

        The simulated client does both (scheduler.SimulatedClient.preempt: victims waiting at
        Permit are dropped from the waiting map, the others deleted; in explain's dry run it
        only records). Victims already terminating get no second delete upstream, and the
        client leaves them alone too.
        """
        client = self.handle.client
        if client is None:
            return Status()
        try:
            client.preempt(pod, c.name, list(c.victims))
        except Exception as exc:  # noqa: BLE001 - an API failure fails this attempt only
            return Status(Code.Error, str(exc), err=exc)
        return Status()


def _aggregate(errs: list[str]) -> str | None:
    """utilerrors.NewAggregate(...).Error(): one message as is, several as "[a, b]"."""
    if not errs:
        return None
    if len(errs) == 1:
        return errs[0]
    return "[" + ", ".join(errs) + "]"
