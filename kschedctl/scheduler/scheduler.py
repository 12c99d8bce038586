"""The Scheduler: its profiles, cache, queue and clock, and the run (pkg/scheduler/scheduler.go).

The life of each pod (ScheduleOne: scheduling cycle, binding cycle, failure handling) is
schedule_one.py, pod groups' schedule_one_podgroup.py, the cluster's changes eventhandlers.py;
the profiles are built once per run by profile.py (profile.NewMap).

Time is virtual (VirtualClock): nothing sleeps. When no pod can be popped, ``run`` moves the
clock to the next thing that can happen — a scenario event, a Permit timeout, a backoff or
unschedulable-pool flush — and stops when nothing can: the pods left in the queue are those no
event can help. The binding cycle runs at once, except for pods waiting at Permit, which
resume when allowed, rejected or timed out. The scheduler records into a RunResult (and a
trace of timed events for `simulate`); it never renders.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import random
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any

from kschedctl.api.gotime import format_rfc3339, seconds_of
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.types import Pod
from kschedctl.backend.cache import columnar
from kschedctl.backend.cache.cache import Cache, Snapshot
from kschedctl.backend.queue.nominator import Nominator
from kschedctl.backend.queue.scheduling_queue import (
    PriorityQueue,
    build_queueing_hint_map,
)
from kschedctl.cluster.loader import ClusterSnapshot, is_pending
from kschedctl.framework.args import PluginArgs
from kschedctl.framework.config_types import KubeSchedulerConfiguration, Profile
from kschedctl.framework.extender import EXTENDER_NAME, Extender
from kschedctl.framework.handle import ApiError
from kschedctl.framework.interface import Status
from kschedctl.framework.podgroup import group_of as pod_group_of
from kschedctl.framework.registry import Registry
from kschedctl.framework.types import QueuedPodInfo
from kschedctl.runtime.framework import Framework, FrameworkError
from kschedctl.runtime.profile import new_map
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.runtime.services import Services
from kschedctl.scheduler.algorithm import SchedulingAlgorithm
from kschedctl.scheduler.eventhandlers import (
    add_pod_to_scheduling_queue,
    add_resource_claim,
    create_template_claims,
    delete_pod,
    delete_resource_claim,
    patch_nominated_node_name,
    update_resource_claim,
)
from kschedctl.scheduler.result import (
    Placement,
    Preemption,
    RunResult,
    Skipped,
    Unschedulable,
)
from kschedctl.scheduler.schedule_one import (
    Binding,
    PodOutcome,
    expire_permit_waits,
    next_permit_deadline,
    resume_resolved_waiting_pods,
    schedule_one,
)
from kschedctl.scheduler.shortfall import ClusterFacts, count_shortfall
from kschedctl.scheduler.victims import VictimExit, mark_terminating
from kschedctl.versions import KubeVersion

if TYPE_CHECKING:
    from kschedctl.api.resourceclaim import ResourceClaim  # loaded by the first DRA object read
    from kschedctl.framework.podgroup import PodGroup
    from kschedctl.scheduler.schedule_one_podgroup import PodGroupCycle  # loaded by the first group pod

# Upstream retries a pod that keeps failing with an Error (not a rejection) forever, every
# podMaxBackoffSeconds; the simulation stops retrying it after this many consecutive errors
# once nothing else can happen, and reports it.
MAX_CONSECUTIVE_ERRORS = 8
# A run also stops when this many attempts in a row neither placed nor preempted a pod nor
# reached a scenario event (at least LIVELOCK_MIN_ATTEMPTS): only pods that keep failing
# against each other can do that, and upstream would retry them forever.
LIVELOCK_ATTEMPTS_PER_POD = 20
LIVELOCK_MIN_ATTEMPTS = 1000


def with_ignored_resources(profile: Profile, ignored: list[str]) -> Profile:
    """The profile with NodeResourcesFit's ignoredResources replaced by the extenders' ignored
    managed resources (buildExtenders; they take precedence over the plugin's own args). The
    profile is defaulted: its NodeResourcesFit args are decoded (NodeResourcesFitArgs)."""
    configs = []
    found = False
    for pc in profile.plugin_config:
        if pc.name == "NodeResourcesFit" and isinstance(pc.args, PluginArgs):
            # NodeResourcesFitArgs.ignoredResources, by name: the scheduler does not import the plugin.
            override: dict[str, Any] = {"ignored_resources": tuple(ignored)}
            pc = dataclasses.replace(pc, args=dataclasses.replace(pc.args, **override))
            found = True
        configs.append(pc)
    if not found:
        raise FrameworkError("can't find NodeResourcesFitArgs in plugin config")
    return dataclasses.replace(profile, plugin_config=configs)


class VirtualClock:
    """Seconds since the epoch, advanced only by the simulation."""

    def __init__(self, start: float = 0.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def advance_to(self, t: float) -> None:
        self.t = max(self.t, t)


def parse_rfc3339(text: str | None) -> float | None:
    """Seconds since the epoch of a metav1.Time text (kschedctl.api.gotime: offsets honoured)."""
    seconds = seconds_of(text)
    return None if seconds is None else float(seconds)


class SimulatedClient:
    """The API calls plugins make (bind, preempt, ResourceClaim writes), applied to the simulated
    cluster; its informers see each change at once. A dry run (explain) answers the writes and
    drops them."""

    def __init__(self, scheduler: "Scheduler", dry_run: bool = False) -> None:
        self.scheduler = scheduler
        self.dry_run = dry_run
        self.last_preemption: Preemption | None = None

    def update_resource_claim(self, claim: ResourceClaim) -> ResourceClaim:
        old = self.scheduler.objects.resource_claims.get(claim.key)
        if old is None:
            raise ApiError(f'resourceclaims.resource.k8s.io "{claim.name}" not found')
        if not self.dry_run:
            update_resource_claim(self.scheduler, old, claim)
        return claim

    def create_resource_claim(self, claim: ResourceClaim) -> ResourceClaim:
        if claim.key in self.scheduler.objects.resource_claims:
            raise ApiError(f'resourceclaims.resource.k8s.io "{claim.name}" already exists')
        if not self.dry_run:
            add_resource_claim(self.scheduler, claim)
        return claim

    def delete_resource_claim(self, claim: ResourceClaim) -> None:
        current = self.scheduler.objects.resource_claims.get(claim.key)
        if current is None:
            raise ApiError(f'resourceclaims.resource.k8s.io "{claim.name}" not found')
        if not self.dry_run:
            delete_resource_claim(self.scheduler, current)

    def patch_pod_status(self, pod: Pod, status: JSONObject) -> None:
        if not self.dry_run:
            live = self.scheduler.pods_by_uid.get(pod.uid)
            for target in {id(p): p for p in (pod, live) if p is not None}.values():
                target.raw.setdefault("status", {}).update(status)

    def bind(self, pod: Pod, node_name: str) -> Status:
        return Status()

    def update(self, obj: JSONObject) -> Status:
        """An object written by a plugin (PreBind): kept for --write-snapshot; a dry run writes nothing."""
        if not self.dry_run:
            self.scheduler.result.written.append(obj)
        return Status()

    def preempt(self, preemptor: Pod, node_name: str, victims: list[Pod]) -> None:
        """prepareCandidate: evict the victims (or, in a dry run, only remember them).

        A victim already terminating gets no eviction upstream (no API call, no event): it is
        neither listed nor removed, and keeps its node's resources until it is deleted (a
        scenario's deletePod); the preemptor stays nominated meanwhile, as in kube. Nor does one
        already deleted whose deletion the scheduler has not seen yet (a grace period of 0: the
        API answers NotFound, executor.go "Victim Pod is already deleted")."""
        evicted = [v for v in victims if not v.is_terminating and v.uid not in self.scheduler.leaving]
        record = Preemption(preemptor.key, node_name, [v.key for v in evicted], self.scheduler.clock.now())
        self.last_preemption = record
        if not self.dry_run:
            self.scheduler.delete_victims(preemptor, record, evicted)


class PodsByUID(dict[str, Pod]):
    """The scheduler's pods by uid, counting its changes (``version``), so that what is derived
    from the whole list (a pod group's members) is kept until a pod comes, goes or changes.

    It also keeps, per key function asked for, how many non-terminal pods have each key
    (``counts_by``) and how many of those are scheduled, bound or assumed (``scheduled_counts_by``;
    the cache tells ``assumed_changed``), up to date at every change: a gang's pod counts then
    cost no walk over every pod at each pod event (GangScheduling's PreEnqueue) and each
    Permit. A pod object's key, phase and node are fixed (an updated pod is a new object)."""

    version = 0

    def __init__(self, is_assumed: Callable[[str], bool] | None = None) -> None:
        super().__init__()
        self.is_assumed: Callable[[str], bool] = is_assumed if is_assumed is not None else _never
        self._tallies: dict[tuple[Callable[[Pod], str | None], bool], _Tally] = {}

    def counts_by(self, key_of: Callable[[Pod], str | None]) -> Mapping[str, int]:
        """key -> how many non-terminal pods have it (pods whose key is None are not counted)."""
        return self._tally(key_of, False).counts

    def scheduled_counts_by(self, key_of: Callable[[Pod], str | None]) -> Mapping[str, int]:
        """key -> how many non-terminal pods have it and are bound or assumed."""
        return self._tally(key_of, True).counts

    def assumed_changed(self, uid: str) -> None:
        """The cache assumed the pod, or no longer does."""
        self._changed(uid)

    def _tally(self, key_of: Callable[[Pod], str | None], scheduled: bool) -> _Tally:
        """Built by one walk at the first question, then kept by every change."""
        tally = self._tallies.get((key_of, scheduled))
        if tally is None:
            tally = self._tallies[(key_of, scheduled)] = _Tally(key_of, scheduled)
            for uid, pod in self.items():
                tally.recount(uid, pod, self.is_assumed)
        return tally

    def _changed(self, uid: str) -> None:
        if self._tallies:
            pod = self.get(uid)
            for tally in self._tallies.values():
                tally.recount(uid, pod, self.is_assumed)

    def __setitem__(self, key: str, value: Pod) -> None:
        self.version += 1
        super().__setitem__(key, value)
        self._changed(key)

    def __delitem__(self, key: str) -> None:
        self.version += 1
        super().__delitem__(key)
        self._changed(key)

    def pop(self, key: str, *default: Any) -> Any:
        self.version += 1
        had = key in self
        out = super().pop(key, *default)
        if had:
            self._changed(key)
        return out

    def popitem(self) -> tuple[str, Pod]:
        self.version += 1
        item = super().popitem()
        self._changed(item[0])
        return item

    def clear(self) -> None:
        self.version += 1
        super().clear()
        self._tallies.clear()  # counted again at the next question

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.version += 1
        super().update(*args, **kwargs)
        self._tallies.clear()

    def setdefault(self, key: str, default: Pod) -> Pod:
        self.version += 1
        had = key in self
        out = super().setdefault(key, default)
        if not had:
            self._changed(key)
        return out


def _never(uid: str) -> bool:
    return False


class _Tally:
    """Pods per key (only the scheduled ones when ``scheduled``), with the key each uid is
    counted under, so that a change recounts one pod."""

    __slots__ = ("key_of", "scheduled", "counts", "counted")

    def __init__(self, key_of: Callable[[Pod], str | None], scheduled: bool) -> None:
        self.key_of = key_of
        self.scheduled = scheduled
        self.counts: dict[str, int] = {}
        self.counted: dict[str, str] = {}

    def recount(self, uid: str, pod: Pod | None, is_assumed: Callable[[str], bool]) -> None:
        key = None
        if pod is not None and not pod.is_terminal and (not self.scheduled or pod.node_name or is_assumed(uid)):
            key = self.key_of(pod)
        old = self.counted.get(uid)
        if old == key:
            return
        if old is not None:
            left = self.counts[old] - 1
            if left:
                self.counts[old] = left
            else:
                del self.counts[old]
            del self.counted[uid]
        if key is not None:
            self.counts[key] = self.counts.get(key, 0) + 1
            self.counted[uid] = key


class _KnownPods:
    """The pod lister the Handle offers: every pod the scheduler knows (pods_by_uid)."""

    def __init__(self, sched: "Scheduler") -> None:
        self._sched = sched

    def list(self) -> list[Pod]:
        return list(self._sched.pods_by_uid.values())

    def version(self) -> int:
        """Changes whenever the list would (PodGroupManager keeps its groups until then)."""
        return self._sched.pods_by_uid.version

    def counts_by(self, key_of: Callable[[Pod], str | None]) -> Mapping[str, int]:
        """Non-terminal pods per key, kept up to date (PodGroupManager.all_pods_count)."""
        return self._sched.pods_by_uid.counts_by(key_of)

    def scheduled_counts_by(self, key_of: Callable[[Pod], str | None]) -> Mapping[str, int]:
        """Bound or assumed non-terminal pods per key (PodGroupManager.scheduled_pods_count)."""
        return self._sched.pods_by_uid.scheduled_counts_by(key_of)


class Scheduler:
    """The scheduler of one run: built from a cluster snapshot and a defaulted configuration
    (each profile's Framework once, profile.new_map), it schedules until nothing can happen.
    A profile that cannot be built raises ProfileError (an InputError)."""

    def __init__(
        self,
        cluster: ClusterSnapshot,
        config: KubeSchedulerConfiguration,
        registry: Registry,
        version: KubeVersion,
        seed: int | None = None,
        dry_run: bool = False,
        plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT,
        victim_exit: VictimExit | None = None,
    ) -> None:
        self.cluster = cluster
        self.victim_exit = victim_exit or VictimExit()
        self.objects = cluster.objects.with_own_dra_objects()  # claims written here, not in the input
        self.version = version
        self.rng = random.Random(seed)
        self.client = SimulatedClient(self, dry_run)
        self.clock = VirtualClock(self._start_time(cluster))
        self.start = self.clock.now()
        self.cache = Cache()
        self.snapshot = Snapshot(columnar_min_nodes=columnar.COLUMNAR_MIN_NODES)
        self.pods_by_uid: PodsByUID = PodsByUID(self.cache.assumed_pods.__contains__)
        self.cache.on_assumed_change = self.pods_by_uid.assumed_changed
        for node in cluster.nodes:
            self.cache.add_node(node)
        for pod in cluster.bound_pods:
            self.cache.add_pod(pod)
            self.pods_by_uid[pod.uid] = pod
        self.profiles: dict[str, Framework] = {}
        # what the frameworks (and, through each Handle, the plugins) may use of the scheduler
        self.services = Services(
            self.objects,
            version,
            self.rng,
            self.clock,
            client=self.client,
            pods=_KnownPods(self),
            assumed_pod=self._assumed_pod,
            plugin_timeout=plugin_timeout,
        )
        # buildExtenders: ignorable extenders last; resources they manage and the scheduler is
        # to ignore become NodeResourcesFit's ignoredResources in every profile
        self.extenders: list[Extender] = []
        ignored: list[str] = []
        if config.extenders:  # the HTTP extenders' modules only once a configuration has them
            from kschedctl.scheduler.extender import build_extenders

            built, ignored = build_extenders(config.extenders, self.services.warn, source=config.source)
            self.extenders = list(built)
        self.services.extenders = self.extenders
        if ignored:
            config = dataclasses.replace(config, profiles=[with_ignored_resources(p, ignored) for p in config.profiles])
        self.profiles = new_map(config, registry, self.services)
        self.queue = self._new_queue(config)
        self.nominator: Nominator = self.queue.nominator
        self.services.nominator = self.nominator
        self.algorithm = SchedulingAlgorithm(config.percentage_of_nodes_to_score or 0, self.rng)
        self.algorithm.extenders = self.extenders
        self.result = RunResult(kube_version=str(version), start_time=self.start)
        self.trace: list[dict[str, Any]] = []  # timed events, for `simulate`
        # evictions a pod-group cycle's PostFilter asked for, done when its algorithm ends
        self.deferred_evictions: list[tuple[Pod, Preemption, list[Pod]]] | None = None
        # victims preemption evicted (not those only rejected at Permit): what counts as progress
        self.victims_deleted = 0
        self.outcomes: dict[str, PodOutcome] = {}
        self.waiting: dict[str, Binding] = {}  # pods waiting at Permit: their binding cycles
        self.waiting_looked_at = -1  # WaitingPod.changes when resume_resolved_waiting_pods last looked
        self.placements_by_uid: dict[str, Placement] = {}
        self.deleted: set[str] = set()
        self.leaving: set[str] = set()  # preemption victims deleted, not yet gone from the cache
        self.timeline: list[tuple[float, int, Callable[[], None]]] = []
        self._timeline_seq = itertools.count()
        self._seq = 0
        self._generation = 0
        self.attempt_generation: dict[str, int] = {}  # uid -> state generation its last attempt saw
        self.late_failures: dict[str, int] = {}  # uid -> consecutive failures after a host was chosen
        self.dra_claims_created = 0  # claims the resourceclaim controller made from templates
        self._pod_groups: PodGroupCycle | None = None  # made by the first pod of a group (pod_groups)
        # ScheduleOne, the run loop's step for one popped pod (schedule_one.py). A field, as
        # kube's Scheduler holds SchedulePod and FailureHandler, so tests and benchmarks can
        # wrap it.
        self.schedule_one: Callable[[QueuedPodInfo], None] = lambda qpi: schedule_one(self, qpi)

    @property
    def pod_groups(self) -> PodGroupCycle:
        """The group side of the scheduler (scheduleOnePodGroup, schedule_one_podgroup.py),
        imported and made when first asked for: a run without a pod group scheduled as one
        (every release before 1.36, and any cluster without groups) never loads it."""
        if self._pod_groups is None:
            from kschedctl.scheduler.schedule_one_podgroup import PodGroupCycle

            self._pod_groups = PodGroupCycle(self)
        return self._pod_groups

    def group_of(self, pod: Pod) -> PodGroup | None:
        """The pod's group when it is scheduled as a group (1.36+, GenericWorkload on), asked
        of every popped pod (ScheduleOne)."""
        version = self.version
        if not version.feature_enabled("GenericWorkload") or not version.has("PodGroupSchedulingCycle"):
            return None
        return pod_group_of(self.objects, pod, version)

    def framework_for_pod(self, pod: Pod) -> Framework:
        """frameworkForPod (schedule_one.go): the profile named by the pod's schedulerName."""
        return self.profiles[pod.scheduler_name]

    def _new_queue(self, config: KubeSchedulerConfiguration) -> PriorityQueue:
        hints_on = self.version.feature_enabled("SchedulerQueueingHints")
        # with extenders, a defaultEnqueueExtension named "Extender" (framework.go NewFramework):
        # a pod they rejected nodes for is retried on any event
        extender_ext = [(EXTENDER_NAME, None)] if self.extenders else []
        hint_maps = {name: build_queueing_hint_map(extender_ext + f.enqueue_extensions(), hints_on) for name, f in self.profiles.items()}
        first = next(iter(self.profiles.values()))
        return PriorityQueue(
            first.queue_sort_less,
            self.clock,
            self._pre_enqueue,
            hint_maps,
            float(config.pod_initial_backoff_seconds),
            float(config.pod_max_backoff_seconds),
            queueing_hints=hints_on,
            pop_from_backoff_q=self.version.feature_enabled("SchedulerPopFromBackoffQ"),
            nominate_on_add=self.version.has("NominateGatedPodsOnAdd"),
            sort_key=first.queue_sort_key,
            pre_enqueue_share_key=self._pre_enqueue_share_key,
        )

    @staticmethod
    def _start_time(cluster: ClusterSnapshot) -> float:
        stamps = [t for t in (parse_rfc3339(p.meta.creation_timestamp) for p in cluster.pods) if t is not None]
        return max(stamps, default=0.0)

    def _assumed_pod(self, uid: str) -> Pod | None:
        """The assumed copy (with its node) of a pod assumed in the cache, else None."""
        return self.cache.get_pod(uid) if uid in self.cache.assumed_pods else None

    def _pre_enqueue(self, pod: Pod) -> Status:
        return self.profiles[pod.scheduler_name].run_pre_enqueue_plugins(pod)

    def _pre_enqueue_share_key(self, pod: Pod, gating_plugin: str) -> Hashable | None:
        return self.profiles[pod.scheduler_name].pre_enqueue_share_key(pod, gating_plugin)

    def update_snapshot(self) -> None:
        """UpdateSnapshot: the cache's state into the snapshot every profile reads."""
        self.cache.update_snapshot(self.snapshot)
        for f in self.profiles.values():
            f.snapshot = self.snapshot

    def state_changed(self) -> None:
        """Something a scheduling attempt reads (cache, nodes) changed."""
        self._generation += 1

    def state_generation(self) -> int:
        return self._generation + self.nominator.generation

    def record(self, kind: str, **fields: Any) -> None:
        """One timed entry of the trace (`simulate -o json` "events")."""
        self.trace.append({"time": self.clock.now() - self.start, "event": kind, **fields})

    def enqueue_pending(self) -> None:
        """Every pending pod: queued if a profile is responsible for it, else reported skipped."""
        for pod in self.cluster.pods:
            if is_pending(pod):
                self.admit_pending_pod(pod, parse_rfc3339(pod.meta.creation_timestamp))

    def admit_pending_pod(self, pod: Pod, created: float | None = None) -> None:
        self.result.pending += 1
        create_template_claims(self, pod)
        if pod.scheduler_name not in self.profiles:
            self.result.skipped.append(Skipped(pod.key, f"no profile for schedulerName {pod.scheduler_name!r}"))
            return
        self.pods_by_uid[pod.uid] = pod
        add_pod_to_scheduling_queue(self, pod, created)

    def at(self, t: float, action: Callable[[], None]) -> None:
        """Run ``action`` when the virtual clock reaches ``t`` (seconds since the start)."""
        heapq.heappush(self.timeline, (self.start + t, next(self._timeline_seq), action))

    # --- the run ---------------------------------------------------------------------------
    def run(self, progress: Callable[[int, int], None] | None = None) -> RunResult:
        """Schedule until nothing can happen any more; ``progress(attempts, pending)`` is called
        after every attempt (the CLI draws a bar with it)."""
        self.enqueue_pending()
        attempts = idle_attempts = 0
        marker = self._progress_marker()
        budget = max(LIVELOCK_MIN_ATTEMPTS, LIVELOCK_ATTEMPTS_PER_POD * self.result.pending)
        while True:
            qpi = self.queue.pop()
            if qpi is not None:
                self.schedule_one(qpi)
                resume_resolved_waiting_pods(self)
                attempts += 1
                if progress is not None:
                    progress(attempts, self.result.pending)
                now_marker = self._progress_marker()
                idle_attempts = 0 if now_marker != marker else idle_attempts + 1
                marker = now_marker
                if idle_attempts > budget:
                    self._stop_livelock(idle_attempts)
                    break
            elif not self.advance_clock():
                break
        self._finish()
        return self.result

    def _progress_marker(self) -> tuple[int, int, int]:
        """What counts as the run moving on: placements, pods preemption evicted, scenario events.
        A preemption whose victims were only waiting at Permit (rejected, back in the queue) or
        already terminating changes nothing that lasts: gangs that never complete and preempt
        each other's waiting members would otherwise keep the run going forever."""
        return len(self.result.placements), self.victims_deleted, len(self.timeline)

    def _stop_livelock(self, idle_attempts: int) -> None:
        """Pods rejecting each other forever (e.g. pod groups that can never complete retry at
        once under SchedulerPopFromBackoffQ): a real scheduler would spin; the simulation stops,
        fails the pods still waiting at Permit, and reports every pod with its last message."""
        earlier = dict(self.outcomes)
        for uid, b in list(self.waiting.items()):
            wp = b.fwk.get_waiting_pod(uid)
            if wp is not None and wp.result is None:
                wp.reject("", "the simulation stopped: pods kept failing without the cluster changing")
        resume_resolved_waiting_pods(self)
        # A pod stopped while waiting keeps the reason of its last real failure, if it had one.
        for uid, outcome in earlier.items():
            self.outcomes[uid] = outcome
        self.result.warnings.append(
            f"stopped after {idle_attempts} scheduling attempts in a row that placed nothing and changed "
            f"nothing: the pods left keep rejecting each other"
        )

    def advance_clock(self) -> bool:
        """Move the clock to the next thing that can happen; False when nothing can.

        Scenario events, Permit deadlines, error backoffs (up to MAX_CONSECUTIVE_ERRORS) and
        pool pods whose last attempt predates a state change drive the run. The periodic
        flushes in between are simulated as upstream runs them, but a flush that could only
        retry pods against the state they already failed on never keeps the run going.
        """
        generation = self.state_generation()
        drivers = [
            t
            for t in (
                self.timeline[0][0] if self.timeline else None,
                next_permit_deadline(self),
                self.queue.next_backoff_flush_time(
                    lambda q: (
                        (q.consecutive_errors_count < MAX_CONSECUTIVE_ERRORS or bool(q.unschedulable_plugins) or bool(q.pending_plugins))
                        and self.late_failures.get(q.pod.uid, 0) < MAX_CONSECUTIVE_ERRORS
                    )
                ),
                self.queue.next_unschedulable_flush_time(lambda q: self._worth_a_flush(q, generation)),
            )
            if t is not None
        ]
        if not drivers:
            return False
        passengers = [t for t in (self.queue.next_backoff_flush_time(), self.queue.next_unschedulable_flush_time()) if t is not None]
        now = min(drivers + passengers)
        self.clock.advance_to(now)
        while self.timeline and self.timeline[0][0] <= now:
            heapq.heappop(self.timeline)[2]()
        expire_permit_waits(self, now)
        resume_resolved_waiting_pods(self)
        self.queue.flush_backoff_q_completed()
        if self.queue.is_unschedulable_flush_tick(now):
            self.queue.flush_unschedulable_pods_left_over()
        return True

    def _worth_a_flush(self, qpi: QueuedPodInfo, generation: int) -> bool:
        """A pool pod is worth the 5-minute retry when the state changed since its attempt, or
        when it was rejected after a host was chosen (Reserve, Permit, binding), which is no
        verdict on the cluster state (bounded by MAX_CONSECUTIVE_ERRORS)."""
        late = self.late_failures.get(qpi.pod.uid, 0)
        return self.attempt_generation.get(qpi.pod.uid, -1) < generation or 0 < late < MAX_CONSECUTIVE_ERRORS

    def _finish(self) -> None:
        self.result.pod_groups = self._pod_groups.final_reports() if self._pod_groups is not None else []
        self.result.dra_objects = self.objects.dra_objects()
        self.result.warnings.extend(w for w in self.services.warnings if w not in self.result.warnings)
        self.result.warnings.extend(self.claims_created_warning())
        facts: ClusterFacts | None = None
        for qpi in self.queue.pending():
            pod = qpi.pod
            if qpi.gated:
                self.result.skipped.append(Skipped(pod.key, qpi.gating_message or f"gated by {qpi.gating_plugin}"))
                continue
            outcome = self.outcomes.get(pod.uid, PodOutcome())
            shortfall = None
            if outcome.reasons and outcome.num_nodes:  # a FitError: the counts its verdict is worded from
                facts = facts or ClusterFacts.of(self.cache.nodes.values())
                shortfall = count_shortfall(pod, outcome.reasons, outcome.num_nodes, facts)
            self.result.unschedulable.append(
                Unschedulable(
                    pod.key,
                    pod.scheduler_name,
                    qpi.attempts,
                    outcome.message,
                    outcome.reasons,
                    self.nominator.nominated_node_of(pod),
                    outcome.error,
                    outcome.time or self.clock.now(),
                    shortfall=shortfall,
                )
            )

    def claims_created_warning(self) -> list[str]:
        if not self.dra_claims_created:
            return []
        return [
            f"created {self.dra_claims_created} ResourceClaim(s) from ResourceClaimTemplates for pending pods "
            f"whose status names none, as kube's resourceclaim controller would"
        ]

    # --- preemption side effects -----------------------------------------------------------
    def delete_victims(self, preemptor: Pod, record: Preemption, victims: list[Pod]) -> None:
        """prepareCandidate: victims waiting at Permit are rejected, the others deleted; lower
        priority pods nominated to the node lose their nomination. Inside a pod-group cycle
        (``deferred_evictions`` set) this waits until the cycle's algorithm ends: upstream the
        evictions are API calls (async preemption) and the group's snapshot keeps the victims."""
        if self.deferred_evictions is not None:
            self.deferred_evictions.append((preemptor, record, victims))
            return
        self.result.preemptions.append(record)
        self.record("Preempted", preemptor=preemptor.key, node=record.node, victims=list(record.victims))
        for victim in victims:
            fwk = self.profiles.get(victim.scheduler_name)
            wp = fwk.get_waiting_pod(victim.uid) if fwk is not None else None
            if wp is not None:
                wp.reject("DefaultPreemption", "preempted")
                continue
            placement = self.placements_by_uid.get(victim.uid)
            if placement is not None:
                placement.preempted_by = preemptor.key
            self.evict(victim, preemptor)
        for info in self.nominator.nominated_pods_for_node(record.node):
            if info.pod.effective_priority() < preemptor.effective_priority():
                self.nominator.delete_nominated_pod_if_exists(info.pod)
                patch_nominated_node_name(self, info.pod, "")

    def evict(self, victim: Pod, preemptor: Pod) -> None:
        """The victim's delete call: gone at once in the instant reading, else gone from the cache
        when the informer sees it, on the virtual clock (kschedctl/scheduler/victims.py); a victim
        with a grace period is terminating meanwhile."""
        self.victims_deleted += 1
        delay = self.victim_exit.delay(victim)
        if delay is None:
            delete_pod(self, victim)
            return
        self.leaving.add(victim.uid)
        if self.victim_exit.grace_period(victim) > 0:
            when = format_rfc3339(int(self.clock.now()))
            for copy in {
                id(p): p for p in (victim, self.cache.get_pod(victim.uid), self.pods_by_uid.get(victim.uid)) if p is not None
            }.values():
                mark_terminating(copy, when, preemptor.scheduler_name)
            self.state_changed()
        self.at(self.clock.now() - self.start + delay, lambda: self._victim_gone(victim))

    def _victim_gone(self, victim: Pod) -> None:
        self.leaving.discard(victim.uid)
        if delete_pod(self, victim) is not None:
            self.record("PodDeleted", pod=victim.key, reason="preempted")
