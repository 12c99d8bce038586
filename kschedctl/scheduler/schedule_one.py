"""ScheduleOne: the life of one pod, as pkg/scheduler/schedule_one.go tells it.

    ScheduleOne: pop -> frameworkForPod -> schedulingCycle (snapshot, schedulePod, PostFilter
    on failure, assume, Reserve, Permit) -> bindingCycle (PreBindPreFlight, WaitOnPermit, Done,
    PreBind, Bind, PostBind) -> on failure: Unreserve, forget, FailureHandler (requeue).

Kube's methods on *Scheduler in schedule_one.go are functions here whose first argument,
``sched``, is the receiver (scheduler.py holds its construction, the run loop and the virtual
clock): typed, with no mixin between them and the Scheduler. Two steps are the one path every caller shares:

* ``schedule_pod``: find the nodes that fit, score them, choose a host, and run PostFilter
  when none fits (`explain` asks it for its decision; pod-group members call the algorithm's
  schedulePod, which upstream runs without PostFilter);
* ``reserve_and_permit``: assume, Reserve, Permit, and their undoing on failure, for single
  pods, for the members a pod group binds, and (``simulated``: the cache only, no state
  change recorded) for the group cycle's trial of each member.

The binding cycle runs at once, except for pods waiting at Permit, which resume when allowed,
rejected or timed out (Scheduler.advance_clock).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kschedctl.api.types import Pod
from kschedctl.framework import events as ev
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.gosemantics import go_duration
from kschedctl.framework.interface import ERROR, Code, PostFilterResult, Status
from kschedctl.framework.types import FitError, PodInfo, QueuedPodInfo, fit_error_for_single_node
from kschedctl.framework.waiting_pods import WaitingPod
from kschedctl.runtime.framework import Framework
from kschedctl.scheduler.algorithm import ScheduleResult, SchedulingError
from kschedctl.scheduler.eventhandlers import add_assigned_pod_to_cache, patch_nominated_node_name
from kschedctl.scheduler.result import Placement

if TYPE_CHECKING:
    from kschedctl.scheduler.scheduler import Scheduler

# schedule_one.go clearNominatedNode: most failures clear the pod's nomination.
CLEAR_NOMINATED_NODE = PostFilterResult("", "Override")


@dataclass
class AttemptFailure:
    """schedulePod found no host: the FitError (PostFilter ran) or the Error status, and the
    nomination to apply (None keeps status.nominatedNodeName: ModeNoop)."""

    fit_error: FitError | None = None
    status: Status | None = None
    nominating: PostFilterResult | None = field(default_factory=lambda: CLEAR_NOMINATED_NODE)


@dataclass
class Reservation:
    """What assume, Reserve and Permit did for one pod on one host: Success, Wait, or the
    failure (already undone). ``waiting``: in a simulated reservation, the WaitingPod Permit
    registered, taken out of the framework's map (nothing waits in a trial)."""

    assumed: Pod
    status: Status
    waiting: WaitingPod | None = None

    @property
    def held(self) -> bool:
        """The pod stays assumed and reserved (Success or Wait)."""
        return self.status.is_success() or self.status.is_wait()


@dataclass
class Binding:
    """A pod past Permit: its binding cycle runs now, or when its waiting pod is resolved."""

    fwk: Framework
    state: CycleState
    qpi: QueuedPodInfo
    assumed: Pod
    host: str
    score: int | None


@dataclass
class PodOutcome:
    """Why a pod's last attempt failed (reported when the run ends with the pod pending)."""

    message: str = ""
    reasons: dict[str, int] = field(default_factory=dict)
    error: bool = False
    time: float = 0.0  # when the attempt failed (virtual clock)
    num_nodes: int = 0  # the nodes of the FitError (0: the attempt ended otherwise)


# --- ScheduleOne -----------------------------------------------------------------------
# (frameworkForPod is Scheduler.framework_for_pod: the CLI's node tables ask it too.)
def schedule_one(sched: Scheduler, qpi: QueuedPodInfo) -> None:
    """ScheduleOne: one popped pod's scheduling cycle, then its binding cycle (or its whole
    group's cycle, for a member of a pod group)."""
    pod = qpi.pod
    fwk = sched.framework_for_pod(pod)
    if pod.uid not in sched.pods_by_uid or sched.cache.is_assumed_pod(pod):  # skipPodSchedule
        sched.queue.done(pod.uid)
        return
    group = sched.group_of(pod)
    if group is not None:  # a pod of a group: the whole group's cycle
        sched.pod_groups.schedule_one_pod_group(qpi, group)
        return
    binding = scheduling_cycle(sched, fwk, CycleState(), qpi)
    if binding is not None:
        run_binding_cycle(sched, binding)


def scheduling_cycle(sched: Scheduler, fwk: Framework, state: CycleState, qpi: QueuedPodInfo) -> Binding | None:
    """schedulePod, then assume, Reserve and Permit; None when the attempt failed (and the
    failure was handled)."""
    sched.update_snapshot()
    outcome = schedule_pod(sched, fwk, state, qpi)
    if isinstance(outcome, AttemptFailure):
        if outcome.fit_error is not None:
            sched.late_failures.pop(qpi.pod.uid, None)
        handle_scheduling_failure(sched, fwk, qpi, fit_error=outcome.fit_error, status=outcome.status, nominating=outcome.nominating)
        return None
    host = outcome.suggested_host
    binding, _ = prepare_for_binding_cycle(sched, fwk, state, qpi, host, outcome.total_score_of(host))
    return binding


def schedule_pod(sched: Scheduler, fwk: Framework, state: CycleState, qpi: QueuedPodInfo) -> ScheduleResult | AttemptFailure:
    """schedulePod on the current snapshot, and PostFilter (preemption) when no node fits:
    the scheduling cycle up to the chosen host. Nothing is assumed yet."""
    try:
        return sched.algorithm.schedule_pod(fwk, state, qpi, sched.snapshot)
    except FitError as fit_error:
        # The outcome keeps the error, and its traceback would keep this call's frames, whose
        # callers hold the outcome: a cycle that holds the attempt's CycleState (a dry run's
        # state for every node it visited) until the cyclic collector finds it. The error is
        # read for its diagnosis only.
        fit_error.__traceback__ = None
        if not fwk.has_post_filter_plugins():
            return AttemptFailure(fit_error=fit_error)
        return AttemptFailure(fit_error=fit_error, nominating=run_post_filter(sched, fwk, state, qpi.pod, fit_error))
    except SchedulingError as err:
        return AttemptFailure(status=err.status)


def run_post_filter(sched: Scheduler, fwk: Framework, state: CycleState, pod: Pod, fit_error: FitError) -> PostFilterResult | None:
    """PostFilter (preemption); its message ends the FitError text. None: ModeNoop."""
    result, status = fwk.run_post_filter_plugins(state, pod, fit_error.diagnosis.node_to_status)
    fit_error.diagnosis.post_filter_msg = status.message()
    return result


# --- assume, Reserve, Permit -----------------------------------------------------------
def reserve_and_permit(
    sched: Scheduler, fwk: Framework, state: CycleState, pod_info: PodInfo, host: str, *, simulated: bool = False, permit: bool = True
) -> Reservation:
    """Assume the pod on ``host``, run Reserve, then Permit (unless ``permit`` is False); a
    failure other than Wait is undone at once (Unreserve in reverse order, forget).

    ``simulated`` is the pod-group cycle's trial of a member: the pod is assumed in the
    cache only (no state change counted) and the WaitingPod a Permit Wait registers is taken
    out of the framework's map before anything is undone. Its nomination is dropped as
    assume drops it (the members after it must not count it twice, assumed and nominated)
    and given back when the trial is undone (unreserveAndForget).
    """
    assumed = pod_info.with_node_name(host).pod
    if simulated:
        sched.cache.assume_pod(assumed)
        sched.nominator.delete_nominated_pod_if_exists(assumed)
    else:
        assume(sched, assumed)
    st = fwk.run_reserve_plugins_reserve(state, assumed, host)
    waiting = None
    if st.is_success() and permit:
        st = fwk.run_permit_plugins(state, assumed, host)
        if simulated:
            waiting = fwk.waiting_pods.pop(assumed.uid, None)
    reservation = Reservation(assumed, st, waiting)
    if not reservation.held:
        unreserve(sched, fwk, state, assumed, host, simulated=simulated)
    return reservation


def unreserve(sched: Scheduler, fwk: Framework, state: CycleState, assumed: Pod, host: str, *, simulated: bool = False) -> None:
    """Undo reserve_and_permit: Unreserve in reverse order, then forget the assumed pod."""
    fwk.run_reserve_plugins_unreserve(state, assumed, host)
    if simulated:
        sched.cache.forget_pod(assumed)
        if assumed.nominated_node_name:  # the nomination the trial's assume dropped
            sched.nominator.add_nominated_pod(PodInfo.of(assumed), assumed.nominated_node_name)
    else:
        forget(sched, assumed)


def assume(sched: Scheduler, assumed: Pod) -> None:
    """The pod counts on its node from now on; its nomination is dropped."""
    sched.cache.assume_pod(assumed)
    sched.state_changed()
    sched.nominator.delete_nominated_pod_if_exists(assumed)


def forget(sched: Scheduler, assumed: Pod) -> None:
    sched.cache.forget_pod(assumed)
    sched.state_changed()


def prepare_for_binding_cycle(
    sched: Scheduler, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, host: str, score: int | None
) -> tuple[Binding | None, Status]:
    """Assume, Reserve and Permit for real: the Binding to run (None when they failed, and
    the failure was handled) and their status."""
    reservation = reserve_and_permit(sched, fwk, state, qpi.pod_info, host)
    if not reservation.held:
        _fail_after_assume(sched, fwk, qpi, host, reservation.status)
        return None, reservation.status
    return Binding(fwk, state, qpi, reservation.assumed, host, score), reservation.status


def _fail_after_assume(sched: Scheduler, fwk: Framework, qpi: QueuedPodInfo, host: str, status: Status) -> None:
    """A rejection after the host was chosen is a FitError on that one node."""
    sched.late_failures[qpi.pod.uid] = sched.late_failures.get(qpi.pod.uid, 0) + 1
    if status.is_rejected():
        handle_scheduling_failure(
            sched, fwk, qpi, fit_error=fit_error_for_single_node(qpi.pod, host, status), nominating=CLEAR_NOMINATED_NODE
        )
    else:
        handle_scheduling_failure(sched, fwk, qpi, status=status, nominating=CLEAR_NOMINATED_NODE)


# --- binding cycle ---------------------------------------------------------------------
def run_binding_cycle(sched: Scheduler, b: Binding) -> None:
    """The binding cycle now, or once the pod stops waiting at Permit (WaitOnPermit)."""
    if b.fwk.get_waiting_pod(b.assumed.uid) is not None:
        sched.waiting[b.assumed.uid] = b
        return
    binding_cycle(sched, b)


def binding_cycle(sched: Scheduler, b: Binding) -> None:
    fwk, state, assumed, host = b.fwk, b.state, b.assumed, b.host
    st = fwk.run_pre_bind_pre_flights(state, assumed, host)
    if st.code == ERROR or st.is_rejected():
        handle_binding_cycle_error(sched, b, st)
        return
    sched.queue.done(assumed.uid)
    st = fwk.run_pre_bind_plugins(state, assumed, host)
    if st.is_success():
        st = bind(sched, fwk, state, assumed, host)
    if not st.is_success():
        handle_binding_cycle_error(sched, b, st)
        return
    placement = Placement(assumed.key, host, fwk.profile_name, b.qpi.attempts, b.score, sched.clock.now())
    sched.result.placements.append(placement)
    sched.placements_by_uid[assumed.uid] = placement
    sched.outcomes.pop(assumed.uid, None)
    sched.record("Scheduled", pod=assumed.key, node=host, attempts=b.qpi.attempts, score=b.score, **_moved_by(b.qpi))
    fwk.run_post_bind_plugins(state, assumed, host)


def bind(sched: Scheduler, fwk: Framework, state: CycleState, assumed: Pod, host: str) -> Status:
    """Extenders' bind first, else the Bind plugins (schedule_one.go bind); then what the
    informer does when it sees the pod bound."""
    bound = False
    if sched.extenders:  # their modules only once a configuration has them
        from kschedctl.scheduler.extender import extenders_binding

        bound, st = extenders_binding(sched.extenders, assumed, host)
    if not bound:
        st = fwk.run_bind_plugins(state, assumed, host)
    if st.is_skip():
        st = Status(Code.Error, "bind plugins skipped all; no plugin bound the pod")
    if not st.is_success():
        return st
    sched.pods_by_uid[assumed.uid] = assumed
    add_assigned_pod_to_cache(sched, assumed)  # the informer confirms the assumed pod
    sched.queue.delete(assumed)  # deletePodFromSchedulingQueue(inBinding=true)
    return st


def handle_binding_cycle_error(sched: Scheduler, b: Binding, status: Status) -> None:
    """Unreserve in reverse order, forget, AssignedPodDelete (deferred past the pod's own
    requeue, and not for itself, when it was a rejection), then the failure handler."""
    fwk, qpi, assumed, host = b.fwk, b.qpi, b.assumed, b.host
    fwk.run_reserve_plugins_unreserve(b.state, assumed, host)
    sched.late_failures[qpi.pod.uid] = sched.late_failures.get(qpi.pod.uid, 0) + 1
    forgot = sched.cache.is_assumed_pod(assumed)
    if forgot:
        forget(sched, assumed)
        if not status.is_rejected():
            sched.queue.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_DELETE, assumed, None)
    if status.is_rejected():
        fit_error = fit_error_for_single_node(qpi.pod, host, status)
        handle_scheduling_failure(sched, fwk, qpi, fit_error=fit_error, nominating=CLEAR_NOMINATED_NODE)
    else:
        handle_scheduling_failure(sched, fwk, qpi, status=status, nominating=CLEAR_NOMINATED_NODE)
    if forgot and status.is_rejected():
        sched.queue.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_DELETE, assumed, None, except_uid=assumed.uid)


# --- Permit waits ----------------------------------------------------------------------
def resume_resolved_waiting_pods(sched: Scheduler) -> None:
    """WaitOnPermit returned for these pods: continue (or fail) their binding cycles. Only
    looked for when a waiting pod got a result or left its framework's map since the last look
    began (WaitingPod.changes): a pod waits unresolved when it starts waiting."""
    if sched.waiting_looked_at == WaitingPod.changes:
        return
    sched.waiting_looked_at = WaitingPod.changes
    for uid, b in list(sched.waiting.items()):
        wp = b.fwk.get_waiting_pod(uid)
        if wp is None:
            result = Status(Code.Unschedulable, "removed")
        elif wp.result is None:
            continue
        else:
            result = wp.result
        del sched.waiting[uid]
        b.fwk.waiting_pods.pop(uid, None)
        if result.is_success():
            binding_cycle(sched, b)
        else:
            handle_binding_cycle_error(sched, b, result)


def next_permit_deadline(sched: Scheduler) -> float | None:
    deadlines = [
        d for b in sched.waiting.values() if (wp := b.fwk.get_waiting_pod(b.assumed.uid)) is not None for d in wp.pending_plugins.values()
    ]
    return min(deadlines, default=None)


def expire_permit_waits(sched: Scheduler, now: float) -> None:
    """A waiting plugin's timer fired: the pod is rejected (waiting_pods_map.go)."""
    for uid, b in list(sched.waiting.items()):
        wp = b.fwk.get_waiting_pod(uid)
        if wp is None or wp.result is not None:
            continue
        for plugin, deadline in sorted(wp.pending_plugins.items(), key=lambda kv: (kv[1], kv[0])):
            if deadline <= now:
                timeout = go_duration(wp.timeouts.get(plugin, 0.0))
                wp.reject(plugin, f"rejected due to timeout after waiting {timeout} at plugin {plugin}")
                break


# --- failures --------------------------------------------------------------------------
def handle_scheduling_failure(
    sched: Scheduler,
    fwk: Framework,
    qpi: QueuedPodInfo,
    *,
    fit_error: FitError | None = None,
    status: Status | None = None,
    nominating: PostFilterResult | None = None,
) -> None:
    """handleSchedulingFailure: record why, requeue (unless the pod is gone or bound),
    then apply the nomination (None keeps status.nominatedNodeName: ModeNoop)."""
    pod = qpi.pod
    if fit_error is not None:
        qpi.unschedulable_plugins = set(fit_error.diagnosis.unschedulable_plugins)
        qpi.pending_plugins = set(fit_error.diagnosis.pending_plugins)
        histogram = fit_error.reason_histogram()  # a walk of every node's status: taken once
        outcome = PodOutcome(fit_error.message(histogram), histogram, time=sched.clock.now(), num_nodes=fit_error.num_all_nodes)
    else:
        assert status is not None
        outcome = PodOutcome(status.message(), {}, error=status.code == Code.Error, time=sched.clock.now())
    sched.outcomes[pod.uid] = outcome
    sched.record("FailedScheduling", pod=pod.key, attempts=qpi.attempts, message=outcome.message, **_moved_by(qpi))
    live = sched.pods_by_uid.get(pod.uid)
    if live is None or live.node_name:
        sched.queue.done(pod.uid)
        return
    sched.queue.add_unschedulable_if_not_present(qpi, sched.queue.scheduling_cycle)
    if nominating is None or nominating.mode == "Noop":
        sched.nominator.add_nominated_pod(qpi.pod_info, None)
    else:
        sched.nominator.add_nominated_pod(qpi.pod_info, nominating.nominated_node_name)
        patch_nominated_node_name(sched, pod, nominating.nominated_node_name)
    # What this attempt (its own preemption, assume/forget and nomination included) left
    # behind; the 5-minute flush is worth simulating only once something else changed.
    sched.attempt_generation[pod.uid] = sched.state_generation()


def _moved_by(qpi: QueuedPodInfo) -> dict[str, str]:
    """A retry's trace entry names the event that moved the pod back to the queue."""
    return {"movedBy": qpi.moved_by} if qpi.attempts > 1 and qpi.moved_by else {}


__all__ = ["CLEAR_NOMINATED_NODE", "AttemptFailure", "Binding", "PodOutcome", "Reservation"]
