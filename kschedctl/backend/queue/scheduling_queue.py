"""The scheduling queue: activeQ, backoffQ, the unschedulable pods pool, in-flight events, the nominator.

Upstream: pkg/scheduler/backend/queue/{scheduling_queue.go,active_queue.go,backoff_queue.go,
unschedulable_pods.go,nominator.go}. Time is the scheduler's virtual clock (seconds); the
two background loops (backoffQ flush every whole second, unschedulable-pool flush every 30 s)
are driven by the scheduler, which asks here when they would next move a pod.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.backend.queue.heap import Heap
from kschedctl.backend.queue.nominator import Nominator
from kschedctl.framework import events as ev
from kschedctl.framework.interface import (
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from kschedctl.framework.types import PodInfo, QueuedPodInfo

DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 5 * 60.0
UNSCHEDULABLE_FLUSH_INTERVAL = 30.0  # flushUnschedulablePodsLeftover runs every 30 s
BACKOFF_ORDERING_WINDOW = 1.0  # backoffQOrderingWindowDuration (KEP-5142)
# Kept for callers of the first version of this module.
UNSCHEDULABLE_TIMEOUT = ev.EVENT_UNSCHEDULABLE_TIMEOUT
WILDCARD_EVENT = ev.EVENT_WILDCARD
# moved_by of a pod taken with its pod group's cycle (PopSpecificPod), not moved by an event
POD_GROUP_CYCLE = "PodGroupCycle"

ACTIVE_Q, BACKOFF_Q, UNSCHEDULABLE_PODS = "activeQ", "backoffQ", "unschedulablePods"

# What one event did to the first gated pod of a share key (move_pods_to_active_or_backoff_queue)
_LEFT_AS_IS, _GATED_AGAIN, _OWN_WAY = 0, 1, 2


def _none_hinted(hinted: frozenset[str], rejected: set[str], pending: set[str]) -> bool:
    """Whether none of a pod's rejecting or pending plugins registered a hint for the event:
    is_pod_worth_requeuing then answers QUEUE_SKIP without asking one, and _move_pods may
    remember that answer for the event's kind."""
    return hinted.isdisjoint(rejected) and hinted.isdisjoint(pending)


class QueueingStrategy(IntEnum):
    """queueingStrategy: what an event (or an in-flight history) means for a rejected pod."""

    QUEUE_SKIP = 0
    QUEUE_AFTER_BACKOFF = 1
    QUEUE_IMMEDIATELY = 2


@dataclass(frozen=True, slots=True)
class QueueingHintFunction:
    """One registration of the QueueingHintMap: the plugin, its event and its hint function."""

    plugin_name: str
    event: ClusterEvent
    fn: Callable[[Pod, Any, Any], QueueingHint] | None


def _default_hint(pod: Pod, old: Any, new: Any) -> QueueingHint:
    return QueueingHint.Queue


def build_queueing_hint_map(
    extensions: Iterable[tuple[str, list[ClusterEventWithHint] | None]], hints_enabled: bool = True
) -> list[QueueingHintFunction]:
    """buildQueueingHintMap (scheduler.go) for one profile, from its Framework's
    ``enqueue_extensions()``: (plugin name, EventsToRegister's registrations).

    A plugin without EventsToRegister (None) is interested in every event
    (defaultEnqueueExtension); one that registers nothing is skipped (only its pod's own
    updates can move the pod). A plugin that registers Node/Add without Node/UpdateNodeTaint
    also gets the latter (#109437).
    """
    out: list[QueueingHintFunction] = []
    for name, registered in extensions:
        if registered is None:
            out.append(QueueingHintFunction(name, ev.EVENT_WILDCARD, None))
            continue
        node_add = node_taint = False
        for h in registered:
            fn = h.queueing_hint_fn if hints_enabled else None
            if h.event.resource == "Node":
                node_add = node_add or ev.action_bits(h.event.action) & ev.action_bits("Add") != 0
                node_taint = node_taint or ev.action_bits(h.event.action) & ev.action_bits("UpdateNodeTaint") != 0
            out.append(QueueingHintFunction(name, h.event, fn))
        if node_add and not node_taint:
            out.append(QueueingHintFunction(name, ClusterEvent("Node", "UpdateNodeTaint"), None))
    return out


class PriorityQueue:
    """activeQ ordered by the QueueSort plugin; backoffQ (rejected pods) and errorBackoffQ by
    backoff expiry; the unschedulable pool; in-flight pods and the events seen meanwhile."""

    def __init__(
        self,
        less: Callable[[QueuedPodInfo, QueuedPodInfo], bool],
        clock: Any,
        pre_enqueue: Callable[[Pod], Any],
        hint_maps: dict[str, list[QueueingHintFunction]] | None = None,
        initial_backoff: float = 1.0,
        max_backoff: float = 10.0,
        max_in_unschedulable: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
        queueing_hints: bool = True,
        pop_from_backoff_q: bool = True,
        nominate_on_add: bool = False,
        sort_key: Callable[[QueuedPodInfo], Any] | None = None,
        pre_enqueue_share_key: Callable[[Pod, str], Hashable | None] | None = None,
    ) -> None:
        self.less = less
        self.clock = clock
        self.pre_enqueue = pre_enqueue  # pod -> Status of its profile's PreEnqueue plugins
        # (pod, gating plugin) -> the profile's Framework.pre_enqueue_share_key: gated pods with
        # equal keys fare alike under one event (move_pods_to_active_or_backoff_queue)
        self.pre_enqueue_share_key = pre_enqueue_share_key
        self._share_keys: dict[tuple[object, str], tuple[object, str]] = {}  # one object per key
        self.hint_maps = hint_maps  # profile -> registrations; None: every event is worth a retry
        # (profile, resource, action) -> the matching registrations and their plugins (_matching)
        self._matching_hints: dict[tuple[str, str, str], tuple[list[QueueingHintFunction], frozenset[str]] | None] = {}
        self._interest: dict[tuple[int, str, str], bool] = {}  # is_event_of_interest, remembered
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.max_in_unschedulable = max_in_unschedulable
        self.queueing_hints = queueing_hints
        self.pop_from_backoff_q = pop_from_backoff_q
        # addPod records a new pod's nomination before PreEnqueue, gated or not (1.37,
        # versions.py NominateGatedPodsOnAdd); before, only moveToActiveQ did, for ungated pods.
        self.nominate_on_add = nominate_on_add
        self.start_time = clock.now()
        self.active = Heap(less, sort_key)  # sort_key: less's order as a key (PrioritySort's)
        self.backoff = Heap(self._less_backoff_with_priority if pop_from_backoff_q else self._less_backoff)
        self.error_backoff = Heap(self._less_backoff)
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        # Bumped by every change of the pool or of what its pods' requeue by an event reads
        # (gate, rejecting plugins, pod object): (resource, action) -> the pool version at
        # which every pool pod was left where it was without a hint asked (_move_pods). An
        # event of that kind then skips the walk while the version holds.
        self.pool_version = 0
        self._hint_free_skips: dict[tuple[str, str], int] = {}
        self.in_flight: dict[str, tuple[QueuedPodInfo, int]] = {}  # uid -> (pod, events seen before its pop)
        self.in_flight_events: list[tuple[int, ClusterEvent, Any, Any]] = []
        self._event_seq = 0
        self.nominator = Nominator()
        self.scheduling_cycle = 0
        self.move_request_cycle = -1
        self.move_request_event = ""  # the label of the event of the last move request

    # --- backoff (backoff_queue.go) --------------------------------------------------------
    def calculate_backoff_duration(self, count: int, entity_size: int = 1) -> float:
        """initial × 2^(count−1), capped at max: 1, 2, 4, 8, 10, 10 s with the defaults. For an
        entity of several pods (a pod group) the cap is max × sqrt(size), truncated to whole
        nanoseconds as time.Duration(float64(max) * math.Sqrt(size)) does."""
        if count <= 0:
            return 0.0
        max_backoff = self.max_backoff
        if entity_size > 1:
            max_backoff = int(self.max_backoff * 1e9 * math.sqrt(entity_size)) / 1e9
        shift = count - 1
        if shift > 62 or self.initial_backoff * (1 << shift) > max_backoff:
            return max_backoff
        return self.initial_backoff * (1 << shift)

    def backoff_duration(self, qpi: QueuedPodInfo) -> float:
        """The pod's entity_size is >1 only for pod-group members (PodGroupBackoffSqrtSize)."""
        return self.calculate_backoff_duration(self._backoff_count(qpi), qpi.entity_size)

    @staticmethod
    def _backoff_count(qpi: QueuedPodInfo) -> int:
        """Consecutive errors when the last attempt erred, else rejections (getBackoffTime)."""
        return qpi.consecutive_errors_count if qpi.consecutive_errors_count > 0 else qpi.unschedulable_count

    def align_to_window(self, t: float) -> float:
        return math.floor(t / BACKOFF_ORDERING_WINDOW) * BACKOFF_ORDERING_WINDOW if self.pop_from_backoff_q else t

    def get_backoff_time(self, qpi: QueuedPodInfo) -> float | None:
        """Backoff expiry, cached until the next pop; None (zero time) when there is no backoff."""
        if self.max_backoff == 0 or self._backoff_count(qpi) == 0:
            return None
        if qpi.backoff_expiration is None:
            qpi.backoff_expiration = self.align_to_window(qpi.timestamp + self.backoff_duration(qpi))
        return qpi.backoff_expiration

    backoff_expiry = get_backoff_time

    def is_pod_backing_off(self, qpi: QueuedPodInfo) -> bool:
        """Still backing off while its expiry is not before the current window's start."""
        expiry = self.get_backoff_time(qpi)
        return expiry is not None and not expiry < self.align_to_window(self.clock.now())

    is_backing_off = is_pod_backing_off

    def _less_backoff(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return (self.get_backoff_time(a) or 0.0) < (self.get_backoff_time(b) or 0.0)

    def _less_backoff_with_priority(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        ea, eb = self.get_backoff_time(a) or 0.0, self.get_backoff_time(b) or 0.0
        return ea < eb if ea != eb else self.less(a, b)

    # --- adding ----------------------------------------------------------------------------
    def add(self, qpi: QueuedPodInfo) -> None:
        """Add: a new pending pod; PreEnqueue sends it to activeQ or (gated) to the pool."""
        self._add_pod(qpi, ev.label(ev.EVENT_UNSCHEDULED_POD_ADD))

    def _add_pod(self, qpi: QueuedPodInfo, event: str) -> None:
        """addPod: from 1.37 the pod's status.nominatedNodeName is recorded first, so a gated
        pod's nomination holds its node against pods of lower or equal priority."""
        if self.nominate_on_add:
            self.nominator.add_nominated_pod(qpi.pod_info, None)
        self.move_to_active_q(qpi, event)

    def run_pre_enqueue_plugins(self, qpi: QueuedPodInfo) -> None:
        """PreEnqueue's verdict as the pod's gate. The only place a pod is gated: its share key
        (_shared_gate_key) is dropped here, and while the pod stays gated nothing else changes
        what the key was worked out from but update(), which drops it too."""
        self.pool_version += 1
        qpi.pre_enqueue_share = None
        status = self.pre_enqueue(qpi.pod)
        if status.is_success():
            qpi.gated, qpi.gating_plugin, qpi.gating_message = False, "", ""
            return
        qpi.unschedulable_plugins.add(status.plugin)
        qpi.gated, qpi.gating_plugin, qpi.gating_message = True, status.plugin, status.message()

    def move_to_active_q(self, qpi: QueuedPodInfo, event: str, moves_from_backoff: bool = False) -> bool:
        """moveToActiveQ: PreEnqueue (skipped straight from backoffQ), then activeQ or the pool."""
        uid = qpi.pod.uid
        if not (self.pop_from_backoff_q and moves_from_backoff):
            self.run_pre_enqueue_plugins(qpi)
        if qpi.gated:
            if uid not in self.active and uid not in self.backoff and uid not in self.error_backoff:
                self.unschedulable.setdefault(uid, qpi)
                self.pool_version += 1
            return False
        if qpi.initial_attempt_timestamp is None:
            qpi.initial_attempt_timestamp = self.clock.now()
        if self.unschedulable.pop(uid, None) is not None:
            self.pool_version += 1
        self.backoff.delete(uid)
        self.error_backoff.delete(uid)
        self.active.add(qpi)
        if not self.nominate_on_add and event in (ev.label(ev.EVENT_UNSCHEDULED_POD_ADD), ev.label(ev.EVENT_UNSCHEDULED_POD_UPDATE)):
            self.nominator.add_nominated_pod(qpi.pod_info, None)
        return True

    def move_to_backoff_q(self, qpi: QueuedPodInfo, event: str) -> bool:
        """moveToBackoffQ: with PopFromBackoffQ PreEnqueue runs here; errors go to errorBackoffQ."""
        uid = qpi.pod.uid
        if self.pop_from_backoff_q:
            self.run_pre_enqueue_plugins(qpi)
            if qpi.gated:
                self.unschedulable.setdefault(uid, qpi)
                self.pool_version += 1
                return False
        if self.unschedulable.pop(uid, None) is not None:
            self.pool_version += 1
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            self.backoff.delete(uid)
            self.error_backoff.add(qpi)
        else:
            self.error_backoff.delete(uid)
            self.backoff.add(qpi)
        return True

    # --- popping ---------------------------------------------------------------------------
    def pop(self) -> QueuedPodInfo | None:
        """activeQ's head; with SchedulerPopFromBackoffQ, else the head of backoffQ (never of
        errorBackoffQ) even though it is still backing off. None when neither has a pod."""
        qpi = self.active.pop()
        if qpi is None and self.pop_from_backoff_q:
            qpi = self.backoff.pop()
            if qpi is not None and not qpi.requeued_by:
                qpi.requeued_by = ev.POP_FROM_BACKOFF_Q
        if qpi is None:
            return None
        qpi.moved_by, qpi.requeued_by = qpi.requeued_by, ""
        qpi.attempts += 1
        qpi.backoff_expiration = None
        if qpi.initial_attempt_timestamp is None:
            qpi.initial_attempt_timestamp = self.clock.now()
        if self.queueing_hints:
            self._start_in_flight(qpi.pod.uid, qpi)
        self.scheduling_cycle += 1
        qpi.unschedulable_plugins = set()
        qpi.pending_plugins = set()
        qpi.gating_plugin, qpi.gated = "", False
        return qpi

    def pop_specific(self, uid: str) -> QueuedPodInfo | None:
        """PopSpecificPod: a pod group's sibling taken out of activeQ, backoffQ or the pool
        (not a gated one) for the group's cycle, with the bookkeeping of pop. None: not queued."""
        qpi = None
        for heap in (self.active, self.backoff, self.error_backoff):
            qpi = heap.get(uid)
            if qpi is not None:
                heap.delete(uid)
                break
        if qpi is None:
            qpi = self.unschedulable.get(uid)
            if qpi is None or qpi.gated:
                return None
            del self.unschedulable[uid]
            self.pool_version += 1
        qpi.moved_by, qpi.requeued_by = qpi.requeued_by or POD_GROUP_CYCLE, ""
        qpi.attempts += 1
        qpi.backoff_expiration = None
        if qpi.initial_attempt_timestamp is None:
            qpi.initial_attempt_timestamp = self.clock.now()
        if self.queueing_hints:
            self._start_in_flight(uid, qpi)
        qpi.unschedulable_plugins = set()
        qpi.pending_plugins = set()
        qpi.gating_plugin, qpi.gated = "", False
        return qpi

    def _start_in_flight(self, uid: str, qpi: QueuedPodInfo) -> None:
        """The pod is in flight from the current event on. Entries stay in the order of their
        markers (a pod taken again is put last), so the oldest marker is the first entry's."""
        self.in_flight.pop(uid, None)
        self.in_flight[uid] = (qpi, self._event_seq)

    def done(self, uid: str) -> None:
        """Done: the pod is no longer in flight; events nobody in flight can need are dropped."""
        if self.in_flight.pop(uid, None) is None:
            return
        if not self.in_flight:
            self.in_flight_events.clear()
            return
        oldest = next(iter(self.in_flight.values()))[1]  # the smallest marker (_start_in_flight)
        if self.in_flight_events and self.in_flight_events[0][0] <= oldest:  # in event order: else none to drop
            self.in_flight_events = [e for e in self.in_flight_events if e[0] > oldest]

    def _add_event_if_any_in_flight(self, event: ClusterEvent, old: Any, new: Any) -> None:
        if self.in_flight:
            self._event_seq += 1
            self.in_flight_events.append((self._event_seq, event, old, new))

    def cluster_events_for_pod(self, uid: str) -> list[tuple[int, ClusterEvent, Any, Any]]:
        entry = self.in_flight.get(uid)
        if entry is None:
            return []
        return [e for e in self.in_flight_events if e[0] > entry[1]]

    # --- failures --------------------------------------------------------------------------
    def add_unschedulable_if_not_present(self, qpi: QueuedPodInfo, pod_scheduling_cycle: int) -> None:
        """AddUnschedulableIfNotPresent: count the failure, then replay the in-flight events
        through the hints (or, without hints, honour a move request) to pick the queue."""
        uid = qpi.pod.uid
        try:
            if uid in self.unschedulable or uid in self.active or uid in self.backoff or uid in self.error_backoff:
                return
            if not qpi.unschedulable_plugins and not qpi.pending_plugins:
                qpi.consecutive_errors_count += 1
            else:
                qpi.unschedulable_count += 1
                qpi.consecutive_errors_count = 0
            qpi.timestamp = self.clock.now()
            qpi.backoff_expiration = None
            if not self.queueing_hints:
                rejected = bool(qpi.unschedulable_plugins or qpi.pending_plugins)
                if self.move_request_cycle >= pod_scheduling_cycle or not rejected:
                    qpi.requeued_by = ev.SCHEDULE_ATTEMPT_FAILURE if not rejected else self.move_request_event
                    self.move_to_backoff_q(qpi, ev.SCHEDULE_ATTEMPT_FAILURE)
                else:
                    self.unschedulable[uid] = qpi
                    self.pool_version += 1
                return
            hint = self.determine_scheduling_hint_for_in_flight_pod(qpi)
            self.requeue_pod_with_queueing_strategy(qpi, hint, ev.SCHEDULE_ATTEMPT_FAILURE)
        finally:
            self.done(uid)

    def determine_scheduling_hint_for_in_flight_pod(self, qpi: QueuedPodInfo) -> QueueingStrategy:
        """(Also notes in ``qpi.requeued_by`` the in-flight event that requeues the pod.)"""
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            qpi.requeued_by = ev.SCHEDULE_ATTEMPT_FAILURE
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        strategy = QueueingStrategy.QUEUE_SKIP
        for _, event, old, new in self.cluster_events_for_pod(qpi.pod.uid):
            hint = self.is_pod_worth_requeuing(qpi, event, old, new)
            if hint == QueueingStrategy.QUEUE_IMMEDIATELY:
                qpi.requeued_by = ev.label(event)
                return hint
            if hint == QueueingStrategy.QUEUE_AFTER_BACKOFF:
                if strategy != hint:
                    qpi.requeued_by = ev.label(event)
                strategy = hint
                if not qpi.pending_plugins:
                    return strategy
        return strategy

    def requeue_pod_with_queueing_strategy(self, qpi: QueuedPodInfo, strategy: QueueingStrategy, event: str) -> str:
        """The queue the pod goes to: the pool (skip), backoffQ (still backing off) or activeQ."""
        if strategy == QueueingStrategy.QUEUE_SKIP:
            self.unschedulable[qpi.pod.uid] = qpi
            self.pool_version += 1
            return UNSCHEDULABLE_PODS
        if strategy == QueueingStrategy.QUEUE_AFTER_BACKOFF and self.is_pod_backing_off(qpi):
            return BACKOFF_Q if self.move_to_backoff_q(qpi, event) else UNSCHEDULABLE_PODS
        return ACTIVE_Q if self.move_to_active_q(qpi, event) else UNSCHEDULABLE_PODS

    # --- events ----------------------------------------------------------------------------
    def is_event_of_interest(self, event: ClusterEvent) -> bool:
        """Whether any plugin registered for the event (answered once per event and set of
        registrations: every binding asks it for the same AssignedPodAdd)."""
        if ev.is_wildcard(event) or self.hint_maps is None:
            return True
        key = (id(self.hint_maps), event.resource, event.action)
        known = self._interest.get(key)
        if known is None:
            known = self._interest[key] = any(ev.match_cluster_events(h.event, event) for hints in self.hint_maps.values() for h in hints)
        return known

    def is_pod_worth_requeuing(self, qpi: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> QueueingStrategy:
        """isPodWorthRequeuing: ask the hints of the plugins that rejected the pod. A pod none
        of whose rejectors has a hint for the event is answered QUEUE_SKIP without a walk of
        the hints: every binding asks it of each pod in the pool."""
        rejected, pending = qpi.unschedulable_plugins, qpi.pending_plugins
        if not rejected and not pending:
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        if ev.is_wildcard(event):
            if new is not None and (not isinstance(new, Pod) or new.uid != qpi.pod.uid):
                return QueueingStrategy.QUEUE_SKIP  # a wildcard aimed at another pod
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        matching = self._matching(qpi.pod.scheduler_name, event)
        if matching is None:
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        hints, hinted = matching
        if _none_hinted(hinted, rejected, pending):
            return QueueingStrategy.QUEUE_SKIP  # no rejector's hint to ask
        rejectors = rejected | pending
        strategy = QueueingStrategy.QUEUE_SKIP
        for h in hints:
            if h.plugin_name not in rejectors:
                continue
            try:
                hint = (h.fn or _default_hint)(qpi.pod, old, new)
            except Exception:  # noqa: BLE001 - an erroring hint counts as Queue (never stuck; sandboxed
                # plugins' hints raise nothing else)
                hint = QueueingHint.Queue
            if hint == QueueingHint.QueueSkip:
                continue
            if h.plugin_name in qpi.pending_plugins:
                return QueueingStrategy.QUEUE_IMMEDIATELY
            if not qpi.pending_plugins:
                return QueueingStrategy.QUEUE_AFTER_BACKOFF
            strategy = QueueingStrategy.QUEUE_AFTER_BACKOFF
        return strategy

    def _matching(self, profile: str, event: ClusterEvent) -> tuple[list[QueueingHintFunction], frozenset[str]] | None:
        """The profile's registrations whose event matches ``event``, in registration order,
        and the names of their plugins (None: the profile registered none). Matching reads the
        event's resource and action only, so a pool of thousands of pods matches each
        registration once per event kind."""
        key = (profile, event.resource, event.action)
        if key in self._matching_hints:
            return self._matching_hints[key]
        registered = None if self.hint_maps is None else self.hint_maps.get(profile)
        found = None
        if registered is not None:
            hints = [h for h in registered if ev.match_cluster_events(h.event, event)]
            found = (hints, frozenset(h.plugin_name for h in hints))
        self._matching_hints[key] = found
        return found

    def gate_opens(self, qpi: QueuedPodInfo, event: ClusterEvent) -> bool:
        """Whether ``event`` is one its gating plugin registered: only those can let a gated pod
        in. The matching registrations come from _matching, kept per event kind."""
        matching = self._matching(qpi.pod.scheduler_name, event)
        return matching is not None and qpi.gating_plugin in matching[1]

    def move_all_to_active_or_backoff_queue(
        self,
        event: ClusterEvent,
        old: Any = None,
        new: Any = None,
        pre_check: Callable[[Pod], bool] | None = None,
        *,
        except_uid: str | None = None,
    ) -> int:
        """MoveAllToActiveOrBackoffQueue over the pool (optionally pre-filtered); returns moved.
        ``except_uid``: a pod left out (the pod whose own event it is), as a pre-check that
        leaves out only that pod would, without a call per pod."""
        if not self.is_event_of_interest(event):
            return 0
        if self._hint_free_skips.get((event.resource, event.action)) == self.pool_version and not ev.is_wildcard(event):
            self._moved(event, old, new)  # every pod stays, as the last walk of this kind found
            return 0
        items = list(self.unschedulable.items())
        whole = pre_check is None
        if except_uid is not None and except_uid in self.unschedulable:
            items.remove((except_uid, self.unschedulable[except_uid]))
            whole = False
        if pre_check is not None:
            items = [(uid, q) for uid, q in items if pre_check(q.pod)]
        return self._move_pods(items, event, old, new, whole)

    def move_pods_to_active_or_backoff_queue(self, pods: list[QueuedPodInfo], event: ClusterEvent, old: Any = None, new: Any = None) -> int:
        """movePodsToActiveOrBackoffQueue over these pods (see _move_pods)."""
        return self._move_pods([(q.pod.uid, q) for q in pods], event, old, new)

    def _move_pods(
        self, items: list[tuple[str, QueuedPodInfo]], event: ClusterEvent, old: Any = None, new: Any = None, whole: bool = False
    ) -> int:
        """movePodsToActiveOrBackoffQueue. A gated pod is asked again (its gating plugin's hints,
        then PreEnqueue) only if the event is one its gating plugin registered.

        Gated pods that share a key (_shared_gate_key: a gang's members gated by
        GangScheduling) fare alike under one event: the first one's requeue is made in full,
        and when it left the pod where it was (not asked, skipped by the hint, or gated again
        by the same plugin with the same message) the others get the same without asking: a
        gang's every pod event asked PreEnqueue for each of its gated members. A pod gated
        again goes to the end of the pool, as the full requeue does (the pool's order is the
        order the pods later move in).

        ``whole``: the items are the whole pool. When every pod was then left where it was
        without a hint asked (a gate this event cannot open, or no rejector with a hint for
        it), the answer depends on the event's kind alone: the next event of the kind skips
        the walk until the pool or one of its pods changes (pool_version)."""
        if not self.is_event_of_interest(event):
            return 0
        label = ev.label(event)
        hint_free = whole and not ev.is_wildcard(event)
        version = self.pool_version
        shared: dict[tuple[object, str], int] | None = {} if self.pre_enqueue_share_key is not None and not ev.is_wildcard(event) else None
        unschedulable = self.unschedulable
        moved = 0
        last_key: tuple[object, str] | None = None
        last_outcome: int | None = None
        pop_from_backoff_q = self.pop_from_backoff_q
        reordered = False
        for uid, qpi in items:
            key = None
            if qpi.gated:
                if shared is not None:
                    memo = qpi.pre_enqueue_share  # _shared_gate_key's, when it still holds
                    if (
                        memo is not None and pop_from_backoff_q and last_key is not None and memo[3] is last_key
                        # the key just asked, kept since the pod was gated (run_pre_enqueue_plugins
                        # and update drop it): the checks below hold
                    ) or (
                        memo is not None
                        and memo[0] is qpi.pod_info
                        and memo[1] == qpi.gating_plugin
                        and memo[2] == qpi.gating_message
                        and pop_from_backoff_q
                        and len(qpi.unschedulable_plugins) == 1
                        and memo[1] in qpi.unschedulable_plugins
                        and not qpi.pending_plugins
                    ):
                        key = memo[3]
                    else:
                        key = self._shared_gate_key(qpi)
                    if key is not None:
                        if key is last_key:  # keys are interned: a gang's members hold one object
                            outcome = last_outcome
                        else:
                            outcome = shared.get(key)
                            if outcome is not None:  # final: set once per key and event
                                last_key, last_outcome = key, outcome
                        if outcome == _LEFT_AS_IS:
                            continue
                        if outcome == _GATED_AGAIN and uid in unschedulable:
                            del unschedulable[uid]  # to the end of the pool, as gated again
                            unschedulable[uid] = qpi
                            reordered = True  # pool_version moves once, after the walk
                            qpi.requeued_by = ""
                            continue
                        if outcome is not None:
                            key = None  # asked on its own
                if not self.gate_opens(qpi, event):
                    if key is not None and shared is not None:
                        shared[key] = _LEFT_AS_IS
                    continue  # only the gating plugin's events can let a gated pod in
                hint_free = False  # the gate may open: its hints and PreEnqueue are asked
            hint = self.is_pod_worth_requeuing(qpi, event, old, new)
            if hint == QueueingStrategy.QUEUE_SKIP:
                if key is not None and shared is not None:
                    shared[key] = _LEFT_AS_IS
                if hint_free:
                    hint_free = self._no_rejector_hinted(qpi, event)
                continue
            hint_free = False
            plugin, message = qpi.gating_plugin, qpi.gating_message
            if unschedulable.pop(uid, None) is not None:
                self.pool_version += 1
            qpi.requeued_by = label
            if self.requeue_pod_with_queueing_strategy(qpi, hint, label) != UNSCHEDULABLE_PODS:
                moved += 1
                outcome = _OWN_WAY
            else:
                qpi.requeued_by = ""
                outcome = (
                    _GATED_AGAIN
                    if self._shared_gate_key(qpi) == key and (plugin, message) == (qpi.gating_plugin, qpi.gating_message)
                    else _OWN_WAY
                )
            if key is not None and shared is not None:
                shared[key] = outcome
                last_key, last_outcome = key, outcome
        if reordered:
            self.pool_version += 1
        elif hint_free and self.pool_version == version:
            self._hint_free_skips[(event.resource, event.action)] = version
        self._moved(event, old, new)
        return moved

    def pods_changed(self) -> None:
        """A queued pod's gate or rejecting plugins were changed outside the queue: the walks
        remembered as skipping every pod no longer hold."""
        self.pool_version += 1

    def _moved(self, event: ClusterEvent, old: Any, new: Any) -> None:
        """What every move request notes, whether or not it moved a pod."""
        self.move_request_cycle = self.scheduling_cycle
        self.move_request_event = ev.label(event)
        if self.queueing_hints:
            self._add_event_if_any_in_flight(event, old, new)

    def _no_rejector_hinted(self, qpi: QueuedPodInfo, event: ClusterEvent) -> bool:
        """Whether none of the plugins that rejected the pod registered a hint for the event's
        kind: is_pod_worth_requeuing's QUEUE_SKIP without a hint asked, which holds for every
        event of the kind while the pod is the same."""
        matching = self._matching(qpi.pod.scheduler_name, event)
        if matching is None:
            return False
        rejected, pending = qpi.unschedulable_plugins, qpi.pending_plugins
        return bool(rejected or pending) and _none_hinted(matching[1], rejected, pending)

    def _shared_gate_key(self, qpi: QueuedPodInfo) -> tuple[object, str] | None:
        """The key under which a gated pod's requeue may be shared with other gated pods
        (move_pods_to_active_or_backoff_queue), or None. Only for a pod whose one rejector is
        its gating plugin (its hints are then the only ones asked), that nothing sends to
        backoffQ without PreEnqueue (without PopFromBackoffQ a pod still backing off goes
        there), and whose profile's Framework.pre_enqueue_share_key gives one (kept with the
        pod while its pod object and gating plugin are the same); the message it was gated
        with is part of the key (gated again means: with the same message)."""
        plugin = qpi.gating_plugin
        rejectors = qpi.unschedulable_plugins
        if qpi.pending_plugins or len(rejectors) != 1 or plugin not in rejectors or self.pre_enqueue_share_key is None:
            return None
        if not self.pop_from_backoff_q and self.is_pod_backing_off(qpi):
            return None
        memo = qpi.pre_enqueue_share
        base: object | None
        if memo is None or memo[0] is not qpi.pod_info or memo[1] != plugin:
            share = self.pre_enqueue_share_key(qpi.pod, plugin)
            base = None if share is None else (qpi.pod.scheduler_name, share)
        else:
            base = None if memo[3] is None else memo[3][0]
        message = qpi.gating_message
        key = None if base is None else self._share_keys.setdefault((base, message), (base, message))
        qpi.pre_enqueue_share = (qpi.pod_info, plugin, message, key)
        return key

    def update(self, old: Pod, new: Pod) -> None:
        """Update: a pending pod changed; an update may make a pool pod schedulable (hints)."""
        uid = new.uid
        events = ev.pod_scheduling_properties_change(new, old)
        if uid in self.in_flight:
            for e in events:
                self._add_event_if_any_in_flight(e, old, new)
            return
        for heap in (self.active, self.backoff, self.error_backoff):
            qpi = heap.get(uid)
            if qpi is not None:
                qpi.pod_info = PodInfo.of(new)
                qpi.pre_enqueue_share = None
                heap.add(qpi)
                self.nominator.update_nominated_pod(qpi.pod_info)
                return
        qpi = self.unschedulable.get(uid)
        if qpi is None:
            self._add_pod(QueuedPodInfo(PodInfo.of(new), timestamp=self.clock.now()), ev.label(ev.EVENT_UNSCHEDULED_POD_UPDATE))
            return
        qpi.pod_info = PodInfo.of(new)
        qpi.pre_enqueue_share = None
        self.pool_version += 1
        self.nominator.update_nominated_pod(qpi.pod_info)
        for e in events:
            hint = self.is_pod_worth_requeuing(qpi, e, old, new)
            qpi.requeued_by = ev.label(e)
            if self.requeue_pod_with_queueing_strategy(qpi, hint, ev.label(e)) != UNSCHEDULABLE_PODS:
                break
            qpi.requeued_by = ""

    def delete(self, pod: Pod) -> None:
        """Delete: the pod left the queue (deleted, or bound); its nomination goes too."""
        self.nominator.delete_nominated_pod_if_exists(pod)
        uid = pod.uid
        if not self.active.delete(uid) and not self.backoff.delete(uid) and not self.error_backoff.delete(uid):
            if self.unschedulable.pop(uid, None) is not None:
                self.pool_version += 1

    # --- background flushes ----------------------------------------------------------------
    def flush_backoff_q_completed(self) -> int:
        """Pods whose backoff window has passed move to activeQ (PreEnqueue not re-run)."""
        moved = 0
        for heap in (self.backoff, self.error_backoff):
            while True:
                qpi = heap.peek()
                if qpi is None or self.is_pod_backing_off(qpi):
                    break
                heap.pop()
                moved += self.move_to_active_q(qpi, ev.BACKOFF_COMPLETE, moves_from_backoff=True)
        return moved

    def flush_unschedulable_pods_left_over(self) -> int:
        """Pods in the pool longer than podMaxInUnschedulablePodsDuration move on UnschedulableTimeout."""
        now = self.clock.now()
        pods = [q for q in self.unschedulable.values() if now - q.timestamp > self.max_in_unschedulable]
        if not pods:
            return 0
        return self.move_pods_to_active_or_backoff_queue(pods, ev.EVENT_UNSCHEDULABLE_TIMEOUT)

    def next_backoff_flush_time(self, wanted: Callable[[QueuedPodInfo], bool] | None = None) -> float | None:
        """The first flush tick (a whole second) at which a backoff pod (passing ``wanted``) completes."""
        times = []
        for qpi in self.backoff.list() + self.error_backoff.list():
            if wanted is not None and not wanted(qpi):
                continue
            expiry = self.get_backoff_time(qpi) or 0.0
            times.append(math.floor(expiry / BACKOFF_ORDERING_WINDOW + 1) * BACKOFF_ORDERING_WINDOW)
        return min(times, default=None)

    def next_unschedulable_flush_time(self, wanted: Callable[[QueuedPodInfo], bool] | None = None) -> float | None:
        """The first 30-second tick at which a non-gated pool pod (passing ``wanted``) times out."""
        times = []
        for qpi in self.unschedulable.values():
            if qpi.gated or (wanted is not None and not wanted(qpi)):
                continue
            k = math.floor((qpi.timestamp + self.max_in_unschedulable - self.start_time) / UNSCHEDULABLE_FLUSH_INTERVAL) + 1
            times.append(self.start_time + k * UNSCHEDULABLE_FLUSH_INTERVAL)
        return min(times, default=None)

    def is_unschedulable_flush_tick(self, t: float) -> bool:
        elapsed = t - self.start_time
        return elapsed > 0 and math.isclose(elapsed / UNSCHEDULABLE_FLUSH_INTERVAL, round(elapsed / UNSCHEDULABLE_FLUSH_INTERVAL))

    # --- listing ---------------------------------------------------------------------------
    def pending(self) -> list[QueuedPodInfo]:
        """Every pod the queue holds (not the in-flight ones), activeQ order first."""
        return self.active.list() + self.backoff.list() + self.error_backoff.list() + list(self.unschedulable.values())

    def is_empty_of_work(self) -> bool:
        return not len(self.active) and not len(self.backoff) and not len(self.error_backoff)

    def next_backoff_expiry(self) -> float | None:
        return min((self.get_backoff_time(q) or 0.0 for q in self.backoff.list() + self.error_backoff.list()), default=None)
