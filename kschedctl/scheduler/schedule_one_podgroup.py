"""scheduleOnePodGroup: the pods of a group placed together, within one snapshot.

Upstream: pkg/scheduler/schedule_one_podgroup.go (podGroupInfoForPod, podGroupCycle,
submitPodGroupAlgorithmResult, podGroupSchedulingPlacementAlgorithm, findBestPlacement) and
algorithm_podgroup.go (podGroupSchedulingDefaultAlgorithm, podGroupPotentiallyFeasible,
podGroupFitError). Differences by release (kschedctl/versions.py):
* 1.36: each feasible member runs Permit after its simulated Reserve; the group is feasible
  as soon as one member's Permit returns Success (GangScheduling: minCount reached).
* 1.37 (GangPlacementFeasible): PlacementFeasible plugins are asked before the first member
  and after every member with {scheduled, remaining}; Unschedulable ends the cycle, Wait
  goes on but would end Unschedulable, Success makes the group feasible.
Each member is assumed (and reserved) in the cache so the next member sees it; every such
simulated assumption is reverted before the accepted members go through the real assume,
Reserve, Permit and binding cycle. Both are the Scheduler's one reserve-and-permit path
(schedule_one.py reserve_and_permit; the trial is ``simulated``), and each member's nodes are
found and scored by the one algorithm (algorithm.py schedule_pod). In 1.36 a member that fits
nowhere then runs PostFilter (schedulingAlgorithm with post-filters on): its message ends the
FitError text, and a member whose preemption nominates a node is assumed there as if it fitted
("requires preemption"); once a Permit succeeds the group is "waiting for preemption to
complete" and every member is requeued, nominated to its node. 1.37 runs no PostFilter there
(CHANGES "PodGroupMembersSkipPostFilter"). The victims' eviction waits until the algorithm ends
(Scheduler.deferred_evictions), as upstream's asynchronous API calls leave the group's snapshot
as it was. With
TopologyAwareWorkloadScheduling the group is tried in each placement (node subset) the
PlacementGenerate plugins propose and the PlacementScore plugins pick the best feasible one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kschedctl.framework import podgroup as pg
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, PostFilterResult, Status
from kschedctl.framework.types import FitError, QueuedPodInfo, fit_error_for_single_node
from kschedctl.scheduler.algorithm import SchedulingError
from kschedctl.scheduler.placement import (
    Placement,
    PlacementView,
    best_placement,
    generate_placements,
)
from kschedctl.scheduler.schedule_one import (
    CLEAR_NOMINATED_NODE,
    handle_scheduling_failure,
    prepare_for_binding_cycle,
    reserve_and_permit,
    run_binding_cycle,
    run_post_filter,
    unreserve,
)

if TYPE_CHECKING:
    from kschedctl.runtime.framework import Framework
    from kschedctl.scheduler.schedule_one import Reservation
    from kschedctl.scheduler.scheduler import Scheduler

GANG = "GangScheduling"
ERR_POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"
ERR_WAITING_FOR_PREEMPTION = "pod group is waiting for preemption to complete"
# RunPermitPlugins (1.36): a Wait status is the last waiting plugin's, with this reason appended
PERMIT_WAIT_REASON = "one or more plugins asked to wait and no plugin rejected pod"


def mixed_scheduler_names(pods: list[Any]) -> Status | None:
    """frameworkForPodGroup's error when the members name different profiles, else None."""
    names = {p.scheduler_name for p in pods}
    if len(names) < 2:
        return None
    a, b = sorted(names)[:2]
    return Status(Code.Error, f'all pods in a single pod group should have the same .spec.schedulerName set, got: "{a}" and "{b}"')


def rejected_by_group(message: str) -> str:
    """The message of ``NewStatus(Unschedulable, message).WithError(errPodGroupUnschedulable)``,
    the status a member gets because of its group: a status's error is its first reason."""
    return f"{ERR_POD_GROUP_UNSCHEDULABLE}, {message}"


@dataclass
class MemberResult:
    """algorithmResult: one member's attempt inside the group cycle."""

    qpi: QueuedPodInfo
    host: str | None = None
    score: int | None = None
    status: Status = field(default_factory=Status)
    fit_error: FitError | None = None
    permit: Status | None = None
    state: CycleState | None = None  # the member's cycle state, reused by its binding cycle
    # PostFilter's nomination (None: ModeNoop, as when no PostFilter runs); with a node name the
    # member requires preemption and ``host`` is that node
    nominating: PostFilterResult | None = None
    requires_preemption: bool = False

    @property
    def pod(self) -> Any:
        return self.qpi.pod


@dataclass
class GroupAttempt:
    """podGroupAlgorithmResult: the members' results and the group's status."""

    results: list[MemberResult] = field(default_factory=list)
    status: Status = field(default_factory=lambda: Status(Code.Unschedulable, ERR_POD_GROUP_UNSCHEDULABLE))
    placement: str | None = None
    waiting_on_preemption: bool = False  # feasible once the members' preemptions complete (1.36)


@dataclass
class PodGroupReport:
    """What `schedule` says about a group: its outcome over the run (``status``, with ``placed``
    of ``total`` members on a node, those bound before the run included) and the outcome of its
    last cycle (``lastCycle``), which may be a lone member's retry after the group was placed."""

    group: str
    policy: str
    min_count: int
    attempts: int = 0
    status: str = ""  # the last cycle's, until final() says the group's
    message: str = ""
    placement: str | None = None
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    placed: int | None = None
    total: int | None = None
    cycle_status: str = ""
    cycle_message: str = ""

    def final(self, placed: int, total: int) -> None:
        """The group's outcome: Scheduled once minCount members are on nodes (a gang), or any
        member is (a basic group); otherwise the last cycle's status and message stand."""
        self.placed, self.total = placed, total
        self.cycle_status, self.cycle_message = self.status, self.message
        if placed >= max(self.min_count, 1):
            self.status = "Scheduled"
            self.message = (
                "" if placed == total else (f"{placed}/{total} pods scheduled (minCount {self.min_count}); the others are unschedulable")
            )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "podGroup": self.group,
            "policy": self.policy,
            "minCount": self.min_count,
            "attempts": self.attempts,
            "status": self.status,
            "message": self.message,
        }
        if self.placed is not None:
            out["placed"], out["total"] = self.placed, self.total
        if self.cycle_status and (self.cycle_status, self.cycle_message) != (self.status, self.message):
            out["lastCycle"] = {"status": self.cycle_status, "message": self.cycle_message}
        out["members"] = [{"pod": k, **v} for k, v in self.members.items()]
        if self.placement is not None:
            out["placement"] = self.placement
        return out


class PodGroupCycle:
    """The group side of the Scheduler (one per Scheduler)."""

    def __init__(self, sched: "Scheduler") -> None:
        self.sched = sched
        self.reports: dict[str, PodGroupReport] = {}
        # Called with (fwk, member) in the group's simulated state before each member's attempt
        # (explain records each member's nodes with it); ``placement`` is the placement tried.
        self.before_member: Callable[["Framework", QueuedPodInfo], None] | None = None
        self.placement: str | None = None

    def final_reports(self) -> list[dict[str, Any]]:
        """Each group's report at the end of the run, its counts from the scheduler's pods."""
        sched = self.sched
        manager = pg.PodGroupManager(sched.objects, sched.version, lambda: list(sched.pods_by_uid.values()), sched._assumed_pod)
        for report in self.reports.values():
            state = manager.state(report.group)
            report.final(state.scheduled_pods_count(), state.all_pods_count())
        return [r.to_dict() for r in self.reports.values()]

    # --- dispatch (a pod's group: Scheduler.group_of) ----------------------------------------
    def schedule_one_pod_group(self, first: QueuedPodInfo, group: pg.PodGroup) -> None:
        sched = self.sched
        members = self._collect(first, group)
        if not members:
            return
        fwk = sched.framework_for_pod(members[0].pod)
        st = mixed_scheduler_names([m.pod for m in members])
        if st is not None:
            for m in members:
                handle_scheduling_failure(sched, sched.framework_for_pod(m.pod), m, status=st)
            return
        sched.update_snapshot()
        attempt = self.run_algorithm(fwk, group, members)
        sched.cache.update_snapshot(sched.snapshot)
        self._submit(fwk, group, members, attempt)

    def run_algorithm(self, fwk: "Framework", group: pg.PodGroup, members: list[QueuedPodInfo]) -> GroupAttempt:
        """podGroupCycle's algorithm on the current snapshot: in each proposed placement with
        TopologyAwareWorkloadScheduling, else on the whole cluster. Every simulated assumption
        is taken back before it returns."""
        sched = self.sched
        outer, sched.deferred_evictions = sched.deferred_evictions, []
        try:
            if sched.version.feature_enabled("TopologyAwareWorkloadScheduling"):
                return self._placement_algorithm(fwk, group, members)
            return self._default_algorithm(fwk, group, members)
        finally:
            evictions, sched.deferred_evictions = sched.deferred_evictions, outer
            for preemptor, record, victims in evictions:
                sched.delete_victims(preemptor, record, victims)

    def _collect(self, first: QueuedPodInfo, group: pg.PodGroup) -> list[QueuedPodInfo]:
        """podGroupInfoForPod + skipPodGroupPodSchedule: the popped pod and its unscheduled
        siblings popped from the queue, by priority (desc) then InitialAttemptTimestamp."""
        sched = self.sched
        members = [first]
        fwk = sched.profiles.get(first.pod.scheduler_name) or next(iter(sched.profiles.values()))
        state = fwk.handle.pod_group_manager().state(group.key)
        for pod in state.unscheduled:
            if pod.uid == first.pod.uid:
                continue
            qpi = sched.queue.pop_specific(pod.uid)
            if qpi is not None:
                members.append(qpi)
        kept = []
        for qpi in members:
            if qpi.pod.uid not in sched.pods_by_uid or sched.cache.is_assumed_pod(qpi.pod):
                sched.queue.done(qpi.pod.uid)
                continue
            kept.append(qpi)
        kept.sort(key=lambda q: (-q.pod.effective_priority(), q.initial_attempt_timestamp or 0.0, q.seq))
        return kept

    # --- the algorithm ---------------------------------------------------------------------
    def _feasible(self, fwk: "Framework", group: pg.PodGroup, scheduled: int, remaining: int) -> Status:
        """RunPlacementFeasiblePlugins (1.37); without such a plugin the group is feasible."""
        return fwk.run_placement_feasible_plugins(group, scheduled, remaining)

    def _default_algorithm(self, fwk: "Framework", group: pg.PodGroup, members: list[QueuedPodInfo]) -> GroupAttempt:
        sched = self.sched
        attempt = GroupAttempt()
        reverts: list[Callable[[], None]] = []
        newest = sched.version.has("GangPlacementFeasible")
        requires_preemption = False
        try:
            if newest:
                scheduled = fwk.handle.pod_group_manager().state(group.key).scheduled_pods_count()
                remaining = len(members)
                st = self._feasible(fwk, group, scheduled, remaining)
                attempt.status = _group_status(st)
                if st.code == Code.Unschedulable:
                    return attempt
            for qpi in members:
                mr, revert = self._member(fwk, qpi, run_permit=not newest)
                attempt.results.append(mr)
                if revert is not None:
                    reverts.append(revert)
                if not mr.status.is_success() and not mr.status.is_rejected():
                    attempt.status = Status(Code.Error, f"failed to schedule other pod from a pod group: {mr.status.message()}")
                    attempt.waiting_on_preemption = False
                    break
                if newest:
                    remaining -= 1
                    scheduled += 1 if mr.status.is_success() else 0
                    st = self._feasible(fwk, group, scheduled, remaining)
                    attempt.status = _group_status(st)
                    if st.code == Code.Unschedulable:
                        break
                elif mr.permit is not None and mr.permit.is_success():
                    requires_preemption = requires_preemption or mr.requires_preemption
                    attempt.waiting_on_preemption = requires_preemption
                    attempt.status = _waiting_for_preemption() if requires_preemption else Status()
                elif mr.requires_preemption:
                    requires_preemption = True
            if attempt.status.is_success() and not any(r.status.is_success() for r in attempt.results):
                attempt.status = Status(Code.Unschedulable, "no pods were schedulable")
        finally:
            for revert in reversed(reverts):
                revert()
        return attempt

    def _member(self, fwk: "Framework", qpi: QueuedPodInfo, run_permit: bool) -> tuple[MemberResult, Callable[[], None] | None]:
        """podGroupPodSchedulingAlgorithm: filter/score (1.36: PostFilter when no node fits),
        then assume and Reserve in the group's simulated state, on the chosen node or the one
        preemption nominated; 1.36 also runs Permit."""
        sched = self.sched
        sched.cache.update_snapshot(sched.snapshot)
        if self.before_member is not None:
            self.before_member(fwk, qpi)
        state = CycleState()
        snapshot = fwk.snapshot if fwk.snapshot is not None else sched.snapshot
        failed: MemberResult | None = None
        try:
            result = sched.algorithm.schedule_pod(fwk, state, qpi, snapshot)
            host, score = result.suggested_host, result.total_score_of(result.suggested_host)
        except FitError as fit_error:
            failed = self._post_filter(fwk, state, qpi, fit_error)
            if not failed.requires_preemption:
                return failed, None
            host, score = failed.host or "", None
        except SchedulingError as err:
            return MemberResult(qpi, status=err.status), None
        reservation = reserve_and_permit(sched, fwk, state, qpi.pod_info, host, simulated=True, permit=run_permit)
        st = reservation.status
        if not reservation.held:  # the nomination is cleared (clearNominatedNode)
            fe = fit_error_for_single_node(qpi.pod, host, st) if st.is_rejected() else None
            return MemberResult(qpi, status=st, fit_error=fe, nominating=CLEAR_NOMINATED_NODE if failed is not None else None), None
        mr = failed or MemberResult(qpi, host, score)
        mr.state = state
        if run_permit:
            mr.permit = _permit_status(reservation)
        return mr, lambda: unreserve(sched, fwk, state, reservation.assumed, host, simulated=True)

    def _post_filter(self, fwk: "Framework", state: CycleState, qpi: QueuedPodInfo, fit_error: FitError) -> MemberResult:
        """schedulingAlgorithm's failure path for a member: 1.36 runs PostFilter (its message
        ends the FitError text; a nominated node means the member requires preemption), 1.37
        none (the nomination is left as it is)."""
        nominating: PostFilterResult | None = None
        if not self.sched.version.has("PodGroupMembersSkipPostFilter"):
            nominating = (
                run_post_filter(self.sched, fwk, state, qpi.pod, fit_error) if fwk.has_post_filter_plugins() else CLEAR_NOMINATED_NODE
            )
        mr = MemberResult(qpi, status=Status(Code.Unschedulable, fit_error.message()), fit_error=fit_error, nominating=nominating)
        if nominating is not None and nominating.nominated_node_name:
            mr.host, mr.requires_preemption = nominating.nominated_node_name, True
        return mr

    def _placement_algorithm(self, fwk: "Framework", group: pg.PodGroup, members: list[QueuedPodInfo]) -> GroupAttempt:
        """podGroupSchedulingPlacementAlgorithm: the group in each proposed placement."""
        sched = self.sched
        try:
            placements = generate_placements(fwk, group, sched.snapshot)
        except SchedulingError as err:  # a PlacementGenerate plugin failed: the group's attempt does
            return GroupAttempt(status=err.status)
        first: GroupAttempt | None = None
        feasible: list[tuple[Placement, GroupAttempt]] = []
        for placement in placements:
            view = PlacementView(sched.snapshot, placement.nodes)
            for f in sched.profiles.values():
                f.snapshot = view
            self.placement = placement.name
            try:
                attempt = self._default_algorithm(fwk, group, members)
            finally:
                self.placement = None
                for f in sched.profiles.values():
                    f.snapshot = sched.snapshot
            attempt.placement = placement.name
            if attempt.status.code == Code.Error:
                return attempt
            first = first or attempt
            if attempt.status.is_success() or attempt.waiting_on_preemption:
                feasible.append((placement, attempt))
        if not feasible:
            attempt = first or GroupAttempt()
            attempt.status = Status(
                Code.Unschedulable, f"0/{len(placements)} placements are available, first placement status: {attempt.status.message()}"
            )
            return attempt
        if len(feasible) == 1:
            return feasible[0][1]
        scheduled = fwk.handle.pod_group_manager().state(group.key).scheduled_pods_count()
        best, status = best_placement(fwk, group, feasible, scheduled, sched.rng)
        if not status.is_success() or best is None:
            return GroupAttempt(status=status)
        return best

    # --- submitting the result -------------------------------------------------------------
    def _submit(self, fwk: "Framework", group: pg.PodGroup, members: list[QueuedPodInfo], attempt: GroupAttempt) -> None:
        sched = self.sched
        report = self.reports.setdefault(group.key, PodGroupReport(group.key, group.policy, group.min_count))
        report.attempts += 1
        report.placement = attempt.placement
        for qpi in members:  # members placed by an earlier cycle keep their entry
            report.members.pop(qpi.pod.key, None)
        by_uid = {r.qpi.pod.uid: r for r in attempt.results}
        if sched.version.has("PodGroupBackoffSqrtSize"):  # the group entity's size scales its max backoff
            for qpi in members:
                qpi.entity_size = len(members)
        group_ok = attempt.status.is_success()
        report.status = "Scheduled" if group_ok else ("SchedulerError" if attempt.status.code == Code.Error else "Unschedulable")
        report.message = attempt.status.message()
        sched.record("PodGroupScheduled" if group_ok else "PodGroupUnschedulable", podGroup=group.key, message=report.message)
        for qpi in members:
            mr = by_uid.get(qpi.pod.uid)
            entry: dict[str, Any] = {}
            report.members[qpi.pod.key] = entry
            if attempt.status.code == Code.Error:
                st = mr.status if mr is not None and mr.status.code == Code.Error else attempt.status
                entry.update(node=None, message=st.message())
                handle_scheduling_failure(sched, fwk, qpi, status=st)
            elif mr is not None and mr.status.is_success() and mr.host:
                if group_ok:
                    entry.update(node=mr.host)
                    self._bind_member(fwk, qpi, mr, entry)
                elif attempt.waiting_on_preemption:  # requeued, nominated to its node
                    entry.update(node=None, feasibleNode=mr.host, message=attempt.status.message())
                    self._reject(fwk, qpi, attempt.status.message(), PostFilterResult(mr.host))
                else:
                    msg = attempt.status.message() if mr.permit is None else rejected_by_group(mr.permit.message())
                    entry.update(node=None, feasibleNode=mr.host, message=msg)
                    self._reject(fwk, qpi, msg)
            elif mr is not None and mr.requires_preemption and not attempt.waiting_on_preemption:
                # the group is unschedulable: the preemption message no longer matters
                msg = rejected_by_group(mr.permit.message()) if mr.permit is not None else attempt.status.message()
                entry.update(node=None, message=msg)
                self._reject(fwk, qpi, msg, CLEAR_NOMINATED_NODE)
            elif mr is not None and mr.fit_error is not None:
                entry.update(node=None, message=mr.fit_error.message(), reasons=mr.fit_error.reason_histogram())
                if mr.requires_preemption:
                    entry.update(nominatedNode=mr.host)
                handle_scheduling_failure(sched, fwk, qpi, fit_error=mr.fit_error, nominating=mr.nominating)
            elif mr is not None:
                entry.update(node=None, message=mr.status.message())
                handle_scheduling_failure(sched, fwk, qpi, status=mr.status)
            else:  # not evaluated: the group's status
                entry.update(node=None, message=attempt.status.message())
                self._reject(fwk, qpi, attempt.status.message())

    def _reject(self, fwk: "Framework", qpi: QueuedPodInfo, message: str, nominating: PostFilterResult | None = None) -> None:
        """An Unschedulable status for a member because of its group (errPodGroupUnschedulable)."""
        qpi.unschedulable_plugins = {GANG} if GANG in fwk.instances else {"PodGroup"}
        status = Status(Code.Unschedulable, message)
        pending = set(qpi.unschedulable_plugins)
        handle_scheduling_failure(self.sched, fwk, qpi, status=status, nominating=nominating)
        qpi.unschedulable_plugins = pending
        self.sched.queue.pods_changed()  # the member may be in the pool already
        self.sched.outcomes[qpi.pod.uid].error = False

    def _bind_member(self, fwk: "Framework", qpi: QueuedPodInfo, mr: MemberResult, entry: dict[str, Any]) -> None:
        """prepareForBindingCycle (assume, Reserve, Permit) then the binding cycle."""
        binding, status = prepare_for_binding_cycle(self.sched, fwk, mr.state or CycleState(), qpi, mr.host or "", mr.score)
        if binding is None:
            entry.update(node=None, message=status.message())
            return
        run_binding_cycle(self.sched, binding)


def _permit_status(reservation: "Reservation") -> Status:
    """A member's Permit result as 1.36's RunPermitPlugins returns it: a Wait is the last
    waiting plugin's status with PERMIT_WAIT_REASON appended."""
    permit = reservation.status
    if permit.is_wait():
        messages = list(reservation.waiting.messages) if reservation.waiting is not None else []
        return Status(Code.Wait, *messages[-1:], PERMIT_WAIT_REASON)
    return permit


def _waiting_for_preemption() -> Status:
    """The group's status once a member's Permit succeeded but some member needs preemption:
    NewStatus(Unschedulable, "...waiting for preemption...").WithError(errPodGroupUnschedulable)."""
    return Status(Code.Unschedulable, ERR_POD_GROUP_UNSCHEDULABLE, ERR_WAITING_FOR_PREEMPTION)


def _group_status(st: Status) -> Status:
    """podGroupPotentiallyFeasible: Wait and Unschedulable both end Unschedulable."""
    if st.code in (Code.Wait, Code.Unschedulable, Code.UnschedulableAndUnresolvable):
        return Status(Code.Unschedulable, *st.reasons, plugin=st.plugin)
    if st.code == Code.Error:
        return Status(Code.Error, f"failed to evaluate placement feasibility: {st.message()}")
    return Status()
