"""The scheduling queue: activeQ, backoffQ, unschedulable pods, and the nominator.

Upstream: pkg/scheduler/backend/queue/{scheduling_queue.go,active_queue.go,backoff_queue.go,
unschedulable_pods.go,nominator.go}. Time is the scheduler's virtual clock (seconds).
"""

from __future__ import annotations

import heapq
from typing import Any, Callable, Iterable

from ..api.types import Pod
from ..framework.interface import ClusterEvent, QueueingHint
from ..framework.types import PodInfo, QueuedPodInfo

DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 5 * 60.0
UNSCHEDULABLE_TIMEOUT = ClusterEvent("*", "UnschedulableTimeout")
WILDCARD_EVENT = ClusterEvent("*", "*")


class _HeapItem:
    __slots__ = ("qpi", "less")

    def __init__(self, qpi: QueuedPodInfo, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]) -> None:
        self.qpi = qpi
        self.less = less

    def __lt__(self, other: "_HeapItem") -> bool:
        return self.less(self.qpi, other.qpi)


class Nominator:
    """node name -> the pods nominated to it (nominator.go)."""

    def __init__(self) -> None:
        self.nominated_pods: dict[str, list[PodInfo]] = {}
        self.nominated_pod_to_node: dict[str, str] = {}

    def add_nominated_pod(self, info: PodInfo, node_name: str) -> None:
        self.delete_nominated_pod_if_exists(info.pod)
        if not node_name:
            return
        self.nominated_pod_to_node[info.pod.uid] = node_name
        self.nominated_pods.setdefault(node_name, []).append(info)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        node = self.nominated_pod_to_node.pop(pod.uid, None)
        if node is None:
            return
        infos = self.nominated_pods.get(node, [])
        self.nominated_pods[node] = [i for i in infos if i.pod.uid != pod.uid]
        if not self.nominated_pods[node]:
            del self.nominated_pods[node]

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return list(self.nominated_pods.get(node_name, ()))

    def nominated_node_of(self, pod: Pod) -> str:
        return self.nominated_pod_to_node.get(pod.uid, "")


class PriorityQueue:
    """activeQ ordered by the QueueSort plugin, backoffQ by expiry, and the unschedulable pool."""

    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool], clock: Any,
                 pre_enqueue: Callable[[Pod], Any], plugin_events: Callable[[Pod], dict[str, list]] | None = None,
                 initial_backoff: float = 1.0, max_backoff: float = 10.0,
                 max_in_unschedulable: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION) -> None:
        self.less = less
        self.clock = clock
        self.pre_enqueue = pre_enqueue  # pod -> Status of the pod's profile's PreEnqueue plugins
        self.plugin_events = plugin_events  # pod -> {plugin: [ClusterEventWithHint]}
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.max_in_unschedulable = max_in_unschedulable
        self.active: list[_HeapItem] = []
        self.backoff: list[tuple[float, int, QueuedPodInfo]] = []
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        self.in_flight: dict[str, QueuedPodInfo] = {}
        self.nominator = Nominator()
        self.scheduling_cycle = 0
        self.move_request_cycle = -1
        self._seq = 0

    # --- adding ----------------------------------------------------------------------------
    def add(self, qpi: QueuedPodInfo) -> None:
        """A new pending pod: PreEnqueue decides between activeQ and the (gated) unschedulable pool."""
        qpi.timestamp = qpi.timestamp or self.clock.now()
        if qpi.pod.nominated_node_name:
            self.nominator.add_nominated_pod(qpi.pod_info, qpi.pod.nominated_node_name)
        self._move_to_active_or_gate(qpi)

    def _move_to_active_or_gate(self, qpi: QueuedPodInfo) -> bool:
        status = self.pre_enqueue(qpi.pod)
        if not status.is_success():
            qpi.gated = True
            qpi.gating_plugin = status.plugin
            qpi.gating_message = status.message()
            self.unschedulable[qpi.pod.uid] = qpi
            return False
        qpi.gated = False
        qpi.gating_plugin = ""
        heapq.heappush(self.active, _HeapItem(qpi, self.less))
        return True

    # --- popping ---------------------------------------------------------------------------
    def pop(self) -> QueuedPodInfo | None:
        """activeQ first; with SchedulerPopFromBackoffQ the earliest backoff pod when activeQ is empty."""
        if self.active:
            qpi = heapq.heappop(self.active).qpi
        elif self.backoff:
            qpi = self._pop_backoff()
        else:
            return None
        qpi.attempts += 1
        if qpi.initial_attempt_timestamp is None:
            qpi.initial_attempt_timestamp = self.clock.now()
        qpi.backoff_expiration = None
        qpi.unschedulable_plugins = set()
        qpi.pending_plugins = set()
        self.scheduling_cycle += 1
        self.in_flight[qpi.pod.uid] = qpi
        return qpi

    def _pop_backoff(self) -> QueuedPodInfo:
        # earliest expiry, then the activeQ order
        earliest = min(self.backoff, key=lambda e: e[0])[0]
        ready = [e for e in self.backoff if e[0] == earliest]
        chosen = ready[0]
        for e in ready[1:]:
            if self.less(e[2], chosen[2]):
                chosen = e
        self.backoff.remove(chosen)
        return chosen[2]

    def done(self, uid: str) -> None:
        self.in_flight.pop(uid, None)

    # --- failures --------------------------------------------------------------------------
    def backoff_duration(self, qpi: QueuedPodInfo) -> float:
        count = qpi.consecutive_errors_count if qpi.consecutive_errors_count > 0 else qpi.unschedulable_count
        if count == 0 or qpi.attempts == 0 or self.max_backoff == 0:
            return 0.0
        duration = self.initial_backoff
        for _ in range(1, count):
            duration *= 2
            if duration >= self.max_backoff:
                return self.max_backoff
        return min(duration, self.max_backoff)

    def backoff_expiry(self, qpi: QueuedPodInfo) -> float:
        if qpi.backoff_expiration is None:
            qpi.backoff_expiration = qpi.timestamp + self.backoff_duration(qpi)
        return qpi.backoff_expiration

    def is_backing_off(self, qpi: QueuedPodInfo) -> bool:
        return self.backoff_expiry(qpi) > self.clock.now()

    def add_unschedulable_if_not_present(self, qpi: QueuedPodInfo, pod_scheduling_cycle: int) -> None:
        """Return a failed pod: backoffQ on errors or a move request during its cycle, else the pool."""
        self.in_flight.pop(qpi.pod.uid, None)
        rejected = bool(qpi.unschedulable_plugins or qpi.pending_plugins)
        if rejected:
            qpi.unschedulable_count += 1
            qpi.consecutive_errors_count = 0
        else:
            qpi.consecutive_errors_count += 1
        qpi.timestamp = self.clock.now()
        qpi.backoff_expiration = None
        if not rejected or self.move_request_cycle >= pod_scheduling_cycle:
            self._to_backoff_or_active(qpi)
        else:
            self.unschedulable[qpi.pod.uid] = qpi

    def _to_backoff_or_active(self, qpi: QueuedPodInfo) -> None:
        if self.is_backing_off(qpi):
            self._seq += 1
            self.backoff.append((self.backoff_expiry(qpi), self._seq, qpi))
        else:
            heapq.heappush(self.active, _HeapItem(qpi, self.less))

    # --- events ----------------------------------------------------------------------------
    def move_all_to_active_or_backoff_queue(self, event: ClusterEvent, old: Any = None, new: Any = None,
                                            exclude: Iterable[str] = ()) -> int:
        """Move the unschedulable pods an event may help (isPodWorthRequeuing); returns how many."""
        excluded = set(exclude)
        moved = 0
        for uid, qpi in list(self.unschedulable.items()):
            if uid in excluded:
                continue
            if qpi.gated:
                continue  # gated pods wait for their gating plugin's events (see activate_gated)
            if self._worth_requeuing(qpi, event, old, new) == QueueingHint.QueueSkip:
                continue
            del self.unschedulable[uid]
            self._to_backoff_or_active(qpi)
            moved += 1
        self.move_request_cycle = self.scheduling_cycle
        return moved

    def _worth_requeuing(self, qpi: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> QueueingHint:
        rejectors = qpi.unschedulable_plugins | qpi.pending_plugins
        if not rejectors or event.resource == "*":
            return QueueingHint.Queue
        if self.plugin_events is None:
            return QueueingHint.Queue
        registered = self.plugin_events(qpi.pod)
        for plugin in rejectors:
            hints = registered.get(plugin)
            if hints is None:
                return QueueingHint.Queue  # no EnqueueExtensions: interested in everything
            for h in hints:
                if not _event_matches(h.event, event):
                    continue
                if h.queueing_hint_fn is None:
                    return QueueingHint.Queue
                try:
                    if h.queueing_hint_fn(qpi.pod, old, new) == QueueingHint.Queue:
                        return QueueingHint.Queue
                except Exception:  # noqa: BLE001 - an erroring hint counts as Queue
                    return QueueingHint.Queue
        return QueueingHint.QueueSkip

    def flush_backoff_q_completed(self) -> None:
        now = self.clock.now()
        for entry in sorted(self.backoff, key=lambda e: (e[0], e[1])):
            if entry[0] <= now:
                self.backoff.remove(entry)
                heapq.heappush(self.active, _HeapItem(entry[2], self.less))

    def flush_unschedulable_pods_left_over(self) -> None:
        now = self.clock.now()
        for uid, qpi in list(self.unschedulable.items()):
            if not qpi.gated and now - qpi.timestamp > self.max_in_unschedulable:
                del self.unschedulable[uid]
                self._to_backoff_or_active(qpi)

    def next_backoff_expiry(self) -> float | None:
        return min((e[0] for e in self.backoff), default=None)

    def next_unschedulable_flush(self) -> float | None:
        times = [q.timestamp + self.max_in_unschedulable for q in self.unschedulable.values() if not q.gated]
        return min(times, default=None)

    def delete(self, pod: Pod) -> None:
        self.unschedulable.pop(pod.uid, None)
        self.active = [i for i in self.active if i.qpi.pod.uid != pod.uid]
        heapq.heapify(self.active)
        self.backoff = [e for e in self.backoff if e[2].pod.uid != pod.uid]
        self.nominator.delete_nominated_pod_if_exists(pod)

    def pending(self) -> list[QueuedPodInfo]:
        return ([i.qpi for i in self.active] + [e[2] for e in self.backoff] + list(self.unschedulable.values()))

    def is_empty_of_work(self) -> bool:
        return not self.active and not self.backoff


def _event_matches(registered: ClusterEvent, event: ClusterEvent) -> bool:
    """A registration for "Pod" covers assigned and unscheduled pods alike (framework/events.go)."""
    resources = {"*", event.resource}
    if event.resource in ("AssignedPod", "UnscheduledPod"):
        resources.add("Pod")
    if registered.resource not in resources:
        return False
    return registered.action in ("*", event.action) or (registered.action == "Update" and event.action.startswith("Update"))

