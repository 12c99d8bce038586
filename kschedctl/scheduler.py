"""The Scheduler: the life of each pod, as pkg/scheduler/schedule_one.go tells it.

    pop -> frameworkForPod -> schedulingCycle (snapshot, filter, score, PostFilter on failure,
    assume, Reserve, Permit) -> bindingCycle (PreBindPreFlight, WaitOnPermit, PreBind, Bind,
    PostBind) -> on failure: Unreserve, forget, requeue.

Time is virtual: backoff and Permit timeouts advance a clock, nothing sleeps. Binding is
synchronous here, except for pods waiting at Permit, which resume when allowed, rejected or
timed out. The scheduler records what happened into a RunResult; it never renders.
"""

from __future__ import annotations

import calendar
import random
import time as _time
from dataclasses import dataclass, field
from typing import Any

from .algorithm import SchedulingAlgorithm, SchedulingError
from .api.types import Pod
from .backend.cache import Cache, Snapshot
from .backend.queue import PriorityQueue
from .config.types import KubeSchedulerConfiguration
from .framework.cycle_state import CycleState
from .framework.interface import ClusterEvent, Code, PostFilterResult, Status
from .framework.registry import Registry
from .framework.runtime import Framework
from .framework.types import FitError, PodInfo, QueuedPodInfo, fit_error_for_single_node
from .result import Placement, Preemption, RunResult, Skipped, Unschedulable
from .snapshot.loader import ClusterSnapshot, is_pending
from .versions import KubeVersion

ASSIGNED_POD_ADD = ClusterEvent("AssignedPod", "Add")
ASSIGNED_POD_DELETE = ClusterEvent("AssignedPod", "Delete")


class VirtualClock:
    """Seconds since the epoch, advanced only by the simulation."""

    def __init__(self, start: float = 0.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def advance_to(self, t: float) -> None:
        self.t = max(self.t, t)


def parse_rfc3339(text: str | None) -> float | None:
    if not text:
        return None
    try:
        return float(calendar.timegm(_time.strptime(text.replace("Z", "")[:19], "%Y-%m-%dT%H:%M:%S")))
    except ValueError:
        return None


@dataclass
class _InFlightBinding:
    """A pod past Permit with Wait: its binding cycle resumes when the waiting pod is resolved."""

    fwk: Framework
    state: CycleState
    qpi: QueuedPodInfo
    assumed: Pod
    host: str
    cycle: int
    score: int | None


@dataclass
class _PodOutcome:
    message: str = ""
    reasons: dict[str, int] = field(default_factory=dict)
    error: bool = False


class SimulatedClient:
    """The API calls plugins make (bind, preempt), applied to the simulated cluster."""

    def __init__(self, scheduler: "Scheduler", dry_run: bool = False) -> None:
        self.scheduler = scheduler
        self.dry_run = dry_run
        self.last_preemption: Preemption | None = None

    def bind(self, pod: Pod, node_name: str) -> Status:
        return Status()

    def preempt(self, preemptor: Pod, node_name: str, victims: list[Pod]) -> None:
        """prepareCandidate: delete the victims (or, in a dry run, only remember them)."""
        record = Preemption(preemptor.key, node_name, [v.key for v in victims], self.scheduler.clock.now())
        self.last_preemption = record
        if not self.dry_run:
            self.scheduler.delete_victims(preemptor, record, victims)


class Scheduler:
    def __init__(self, cluster: ClusterSnapshot, config: KubeSchedulerConfiguration, registry: Registry,
                 version: KubeVersion, seed: int | None = None, dry_run: bool = False) -> None:
        self.cluster = cluster
        self.objects = cluster.objects
        self.version = version
        self.rng = random.Random(seed)
        self.client = SimulatedClient(self, dry_run)
        self.clock = VirtualClock(self._start_time(cluster))
        self.cache = Cache()
        self.snapshot = Snapshot()
        for node in cluster.nodes:
            self.cache.add_node(node)
        for pod in cluster.bound_pods:
            self.cache.add_pod(pod)
        self.profiles: dict[str, Framework] = {}
        self.nominator: Any = None
        for profile in config.profiles:
            self.profiles[profile.scheduler_name] = Framework(profile, registry, self)
        first = next(iter(self.profiles.values()))
        self.queue = PriorityQueue(first.queue_sort_less, self.clock, self._pre_enqueue, self._plugin_events,
                                   float(config.pod_initial_backoff_seconds), float(config.pod_max_backoff_seconds))
        self.nominator = self.queue.nominator
        self.algorithm = SchedulingAlgorithm(config.percentage_of_nodes_to_score or 0, self.rng)
        self.result = RunResult(kube_version=str(version))
        self.outcomes: dict[str, _PodOutcome] = {}
        self.waiting: dict[str, _InFlightBinding] = {}
        self.placements_by_uid: dict[str, Placement] = {}
        self.deleted: set[str] = set()

    @staticmethod
    def _start_time(cluster: ClusterSnapshot) -> float:
        stamps = [t for t in (parse_rfc3339(p.meta.creation_timestamp) for p in cluster.pods) if t is not None]
        return max(stamps, default=0.0)

    # --- queue wiring ----------------------------------------------------------------------
    def _pre_enqueue(self, pod: Pod) -> Status:
        return self.profiles[pod.scheduler_name].run_pre_enqueue_plugins(pod)

    def _plugin_events(self, pod: Pod) -> dict[str, list]:
        fwk = self.profiles[pod.scheduler_name]
        out: dict[str, list] = {}
        for name, plugin in fwk.instances.items():
            fn = getattr(plugin, "events_to_register", None)
            if callable(fn):
                out[name] = fn()
        return out

    def enqueue_pending(self) -> None:
        """Every pending pod: queued if a profile is responsible for it, else reported skipped."""
        seq = 0
        for pod in self.cluster.pods:
            if not is_pending(pod):
                continue
            self.result.pending += 1
            if pod.scheduler_name not in self.profiles:
                self.result.skipped.append(Skipped(pod.key, f"no profile for schedulerName {pod.scheduler_name!r}"))
                continue
            seq += 1
            created = parse_rfc3339(pod.meta.creation_timestamp)
            qpi = QueuedPodInfo(PodInfo.of(pod), timestamp=created if created is not None else self.clock.now(), seq=seq)
            self.queue.add(qpi)

    # --- the run ---------------------------------------------------------------------------
    def run(self) -> RunResult:
        self.enqueue_pending()
        while True:
            qpi = self.queue.pop()
            if qpi is None:
                if not self._advance_waiting_pods():
                    break
                continue
            self.schedule_one(qpi)
            self._resume_resolved_waiting_pods()
        self._finish()
        return self.result

    def _finish(self) -> None:
        for qpi in self.queue.pending():
            pod = qpi.pod
            if qpi.gated:
                self.result.skipped.append(Skipped(pod.key, qpi.gating_message or f"gated by {qpi.gating_plugin}"))
                continue
            outcome = self.outcomes.get(pod.uid, _PodOutcome())
            self.result.unschedulable.append(Unschedulable(
                pod.key, pod.scheduler_name, qpi.attempts, outcome.message, outcome.reasons,
                self.nominator.nominated_node_of(pod), outcome.error))

    # --- ScheduleOne -----------------------------------------------------------------------
    def framework_for_pod(self, pod: Pod) -> Framework:
        return self.profiles[pod.scheduler_name]

    def schedule_one(self, qpi: QueuedPodInfo) -> None:
        pod = qpi.pod
        fwk = self.framework_for_pod(pod)
        state = CycleState()
        cycle = self.queue.scheduling_cycle
        outcome = self.scheduling_cycle(fwk, state, qpi, cycle)
        if outcome is None:
            return
        assumed, host, score = outcome
        st = fwk.run_permit_plugins(state, assumed, host)
        if st.is_wait():
            self.waiting[pod.uid] = _InFlightBinding(fwk, state, qpi, assumed, host, cycle, score)
            return
        if not st.is_success():
            self._fail_after_assume(fwk, state, qpi, assumed, host, st, cycle)
            return
        self.binding_cycle(fwk, state, qpi, assumed, host, cycle, score)

    def scheduling_cycle(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo,
                         cycle: int) -> tuple[Pod, str, int | None] | None:
        pod = qpi.pod
        self.cache.update_snapshot(self.snapshot)
        for f in self.profiles.values():
            f.snapshot = self.snapshot
        try:
            result = self.algorithm.schedule_pod(fwk, state, qpi, self.snapshot)
        except FitError as fit_error:
            nominating = self._run_post_filter(fwk, state, pod, fit_error)
            self.handle_scheduling_failure(qpi, fit_error=fit_error, nominating=nominating, cycle=cycle)
            return None
        except SchedulingError as err:
            self.handle_scheduling_failure(qpi, status=err.status, cycle=cycle)
            return None
        assumed_info = qpi.pod_info.with_node_name(result.suggested_host)
        assumed = assumed_info.pod
        self.cache.assume_pod(assumed)
        self.nominator.delete_nominated_pod_if_exists(pod)
        st = fwk.run_reserve_plugins_reserve(state, assumed, result.suggested_host)
        if not st.is_success():
            self._fail_after_assume(fwk, state, qpi, assumed, result.suggested_host, st, cycle)
            return None
        return assumed, result.suggested_host, result.total_score_of(result.suggested_host)

    def _run_post_filter(self, fwk: Framework, state: CycleState, pod: Pod, fit_error: FitError) -> PostFilterResult | None:
        if not fwk.has_post_filter_plugins():
            return None
        result, status = fwk.run_post_filter_plugins(state, pod, fit_error.diagnosis.node_to_status)
        fit_error.diagnosis.post_filter_msg = status.message()
        return result

    def _fail_after_assume(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, assumed: Pod, host: str,
                           status: Status, cycle: int) -> None:
        """Unreserve in reverse order, forget the assumed pod, and fail the attempt."""
        fwk.run_reserve_plugins_unreserve(state, assumed, host)
        self.cache.forget_pod(assumed)
        self.queue.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, assumed, None, exclude=[assumed.uid])
        if status.is_rejected():
            self.handle_scheduling_failure(qpi, fit_error=fit_error_for_single_node(qpi.pod, host, status), cycle=cycle)
        else:
            self.handle_scheduling_failure(qpi, status=status, cycle=cycle)

    # --- binding cycle ---------------------------------------------------------------------
    def binding_cycle(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, assumed: Pod, host: str,
                      cycle: int, score: int | None) -> None:
        pod = qpi.pod
        fwk.run_pre_bind_pre_flights(state, assumed, host)
        self.queue.done(pod.uid)
        st = fwk.run_pre_bind_plugins(state, assumed, host)
        if st.is_success():
            st = fwk.run_bind_plugins(state, assumed, host)
            if st.is_skip():
                st = Status(Code.Error, "bind plugins skipped all; no plugin bound the pod")
        if not st.is_success():
            self._fail_after_assume(fwk, state, qpi, assumed, host, st, cycle)
            return
        self.cache.finish_binding(assumed)
        placement = Placement(pod.key, host, fwk.profile_name, qpi.attempts, score, self.clock.now())
        self.result.placements.append(placement)
        self.placements_by_uid[pod.uid] = placement
        self.outcomes.pop(pod.uid, None)
        fwk.run_post_bind_plugins(state, assumed, host)
        self.queue.move_all_to_active_or_backoff_queue(ASSIGNED_POD_ADD, None, assumed)

    # --- Permit waits ----------------------------------------------------------------------
    def _resume_resolved_waiting_pods(self) -> None:
        for uid, b in list(self.waiting.items()):
            wp = b.fwk.get_waiting_pod(uid)
            if wp is None or wp.result is None:
                continue
            del self.waiting[uid]
            b.fwk.waiting_pods.pop(uid, None)
            if wp.result.is_success():
                self.binding_cycle(b.fwk, b.state, b.qpi, b.assumed, b.host, b.cycle, b.score)
            else:
                self._fail_after_assume(b.fwk, b.state, b.qpi, b.assumed, b.host, wp.result, b.cycle)

    def _advance_waiting_pods(self) -> bool:
        """Nothing to pop: move the clock to the next Permit deadline or backoff expiry."""
        deadlines = []
        for uid, b in self.waiting.items():
            wp = b.fwk.get_waiting_pod(uid)
            if wp is not None and wp.pending_plugins:
                deadlines.append((min(wp.pending_plugins.values()), uid))
        if not deadlines:
            return False
        deadline, uid = min(deadlines)
        self.clock.advance_to(deadline)
        b = self.waiting[uid]
        wp = b.fwk.get_waiting_pod(uid)
        assert wp is not None
        plugin = min(wp.pending_plugins, key=lambda p: wp.pending_plugins[p])
        timeout = _go_duration(wp.timeouts.get(plugin, 0.0))
        wp.reject(plugin, f"rejected due to timeout after waiting {timeout} at plugin {plugin}")
        self._resume_resolved_waiting_pods()
        return True

    # --- failures --------------------------------------------------------------------------
    def handle_scheduling_failure(self, qpi: QueuedPodInfo, *, fit_error: FitError | None = None,
                                  status: Status | None = None, nominating: PostFilterResult | None = None,
                                  cycle: int = 0) -> None:
        pod = qpi.pod
        if fit_error is not None:
            qpi.unschedulable_plugins = set(fit_error.diagnosis.unschedulable_plugins)
            qpi.pending_plugins = set(fit_error.diagnosis.pending_plugins)
            self.outcomes[pod.uid] = _PodOutcome(fit_error.message(), fit_error.reason_histogram())
        else:
            assert status is not None
            self.outcomes[pod.uid] = _PodOutcome(status.message(), {}, error=status.code == Code.Error)
            if status.code != Code.Error and status.plugin:
                qpi.unschedulable_plugins = {status.plugin}
        if nominating is not None and nominating.mode != "Noop":
            pod.nominated_node_name = nominating.nominated_node_name
            self.nominator.add_nominated_pod(qpi.pod_info, nominating.nominated_node_name)
        if pod.uid in self.deleted:
            return
        self.queue.add_unschedulable_if_not_present(qpi, cycle)

    # --- preemption side effects -----------------------------------------------------------
    def delete_victims(self, preemptor: Pod, record: Preemption, victims: list[Pod]) -> None:
        self.result.preemptions.append(record)
        for victim in victims:
            wait = self.waiting.pop(victim.uid, None)
            if wait is not None:
                wait.fwk.waiting_pods.pop(victim.uid, None)
            current = self.cache.get_pod(victim.uid) or victim
            self.cache.remove_pod(current)
            self.deleted.add(victim.uid)
            placement = self.placements_by_uid.get(victim.uid)
            if placement is not None:
                placement.preempted_by = preemptor.key
        # Lower-priority pods nominated to the node must look elsewhere (prepareCandidate).
        for info in self.nominator.nominated_pods_for_node(record.node):
            if info.pod.effective_priority() < preemptor.effective_priority():
                self.nominator.delete_nominated_pod_if_exists(info.pod)
                info.pod.nominated_node_name = ""
        for victim in victims:
            self.queue.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, victim, None)


def _go_duration(seconds: float) -> str:
    """time.Duration.String() for whole seconds and minutes (e.g. 5m0s, 10s)."""
    total = int(seconds)
    if total >= 60:
        return f"{total // 60}m{total % 60}s"
    return f"{total}s"
