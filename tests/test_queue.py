"""PriorityQueue: backoff, the unschedulable pool, PopFromBackoffQ, PreEnqueue gating, events and hints.

Cases follow pkg/scheduler/backend/queue/{scheduling_queue_test.go,backoff_queue_test.go}.
"""

from __future__ import annotations

import pytest

from kschedctl.backend.queue.scheduling_queue import (
    ACTIVE_Q,
    BACKOFF_Q,
    UNSCHEDULABLE_PODS,
    PriorityQueue,
    QueueingStrategy,
    build_queueing_hint_map,
)
from kschedctl.framework import events as ev
from kschedctl.framework.interface import ClusterEvent, Code, Status
from kschedctl.framework.types import PodInfo, QueuedPodInfo
from kschedctl.testing import FakeClock, make_node, make_pod, new_framework


def _less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    pa, pb = a.pod.effective_priority(), b.pod.effective_priority()
    return pa > pb if pa != pb else (a.timestamp, a.seq) < (b.timestamp, b.seq)


def _admit(pod) -> Status:
    if pod.scheduling_gates:
        return Status(Code.UnschedulableAndUnresolvable, "waiting for scheduling gates", plugin="SchedulingGates")
    return Status()


@pytest.fixture
def fwk():
    return new_framework()


def new_queue(fwk=None, clock=None, **kw) -> PriorityQueue:
    hints = None if fwk is None else {"default-scheduler": build_queueing_hint_map(fwk.enqueue_extensions())}
    return PriorityQueue(_less, clock or FakeClock(0.0), _admit, hints, **kw)


def qpi(name: str, priority: int = 0, ts: float = 0.0, **spec) -> QueuedPodInfo:
    b = make_pod(name).priority(priority).req(cpu=spec.get("cpu", "1"))
    return QueuedPodInfo(PodInfo.of(b.obj()), timestamp=ts)


def fail(q: PriorityQueue, p: QueuedPodInfo, plugins: set[str] | None) -> None:
    """Pop the pod and return it as rejected by ``plugins`` (None: an Error)."""
    popped = q.pop()
    assert popped is p
    popped.unschedulable_plugins = set(plugins or ())
    q.add_unschedulable_if_not_present(popped, q.scheduling_cycle)


# --- backoff -------------------------------------------------------------------------------


# upstream: backoff_queue_test.go TestBackoffQueue_calculateBackoffDuration
@pytest.mark.parametrize(
    "initial,maximum,want",
    [
        pytest.param(1, 10, [1, 2, 4, 8, 10, 10], id="defaults 1s/10s"),
        pytest.param(2, 5, [2, 4, 5, 5, 5, 5], id="initial 2s max 5s"),
        pytest.param(1, 0, [0, 0, 0, 0, 0, 0], id="max 0 disables backoff"),
    ],
)
def test_backoff_duration_doubles_up_to_the_max(initial, maximum, want):
    q = new_queue(initial_backoff=initial, max_backoff=maximum)
    assert [q.calculate_backoff_duration(c) if maximum else 0 for c in range(1, 7)] == want


def test_error_backoff_expiries_follow_1_2_4_8_10_10():
    """upstream: scheduling_queue_test.go TestPriorityQueue_AddUnschedulableIfNotPresent_Backoff:
    each consecutive error restarts the clock at the failure and doubles the wait."""
    clock = FakeClock(100.0)
    q = new_queue(clock=clock)
    p = qpi("p")
    q.add(p)
    waits = []
    for _ in range(6):
        assert q.pop() is p
        q.add_unschedulable_if_not_present(p, q.scheduling_cycle)
        assert p in q.error_backoff.list() and q.is_pod_backing_off(p)
        waits.append(q.get_backoff_time(p) - clock.now())
        # the flush moves it one window after its expiry (isPodBackingoff: expiry >= window start)
        clock.t = q.get_backoff_time(p)
        assert q.flush_backoff_q_completed() == 0
        clock.t = q.next_backoff_flush_time()
        assert q.flush_backoff_q_completed() == 1
    assert waits == [1, 2, 4, 8, 10, 10]


def test_a_rejection_resets_the_error_count():
    """upstream: TestPriorityQueue_AddUnschedulableIfNotPresent: ConsecutiveErrorsCount = 0 on rejection."""
    clock = FakeClock(0.0)
    q = new_queue(clock=clock)
    p = qpi("p")
    q.add(p)
    fail(q, p, None)
    assert (p.consecutive_errors_count, p.unschedulable_count, q.backoff_duration(p)) == (1, 0, 1)
    clock.t = q.next_backoff_flush_time()
    q.flush_backoff_q_completed()
    fail(q, p, {"NodeResourcesFit"})
    assert (p.consecutive_errors_count, p.unschedulable_count, q.backoff_duration(p)) == (0, 1, 1)
    assert q.unschedulable == {p.pod.uid: p}


def test_pop_from_backoffq_when_activeq_is_empty_but_never_errors():
    """upstream: TestPriorityQueue_Pop with SchedulerPopFromBackoffQ: the backoffQ head is
    popped although still backing off; podErrorBackoffQ is not popped early."""
    q = new_queue()
    rejected, erred = qpi("rejected"), qpi("erred")
    for p in (rejected, erred):
        q.add(p)
        p.attempts = 1
    q.active.delete(rejected.pod.uid)
    q.active.delete(erred.pod.uid)
    rejected.unschedulable_plugins, rejected.unschedulable_count = {"NodeResourcesFit"}, 1
    erred.consecutive_errors_count = 1
    assert q.move_to_backoff_q(rejected, "test") and q.move_to_backoff_q(erred, "test")
    assert q.pop() is rejected and rejected.attempts == 2
    assert q.pop() is None
    assert len(q.error_backoff) == 1


def test_without_pop_from_backoffq_nothing_is_popped_while_backing_off():
    q = new_queue(pop_from_backoff_q=False)
    p = qpi("p")
    q.add(p)
    fail(q, p, {"NodeResourcesFit"})
    q.move_all_to_active_or_backoff_queue(ev.EVENT_NODE_ADD, None, make_node("n").capacity(cpu="8").obj())
    assert p in q.backoff.list() and q.pop() is None


# --- the unschedulable pool ----------------------------------------------------------------


def test_unschedulable_pool_is_flushed_after_five_minutes_on_a_30s_tick():
    """upstream: TestPriorityQueue_FlushUnschedulablePodsLeftover (podMaxInUnschedulablePodsDuration)."""
    clock = FakeClock(0.0)
    q = new_queue(clock=clock)
    p = qpi("p")
    q.add(p)
    fail(q, p, {"NodeResourcesFit"})
    assert q.unschedulable == {p.pod.uid: p}
    assert q.next_unschedulable_flush_time() == 330.0  # the first tick strictly after 300 s
    clock.t = 300.0
    assert q.flush_unschedulable_pods_left_over() == 0
    clock.t = 330.0
    assert q.is_unschedulable_flush_tick(330.0) and not q.is_unschedulable_flush_tick(315.0)
    assert q.flush_unschedulable_pods_left_over() == 1
    assert q.pop() is p and p.attempts == 2


def test_gated_pods_are_not_flushed_and_wait_for_their_gating_plugin(fwk):
    """upstream: TestPriorityQueue_MoveAllToActiveOrBackoffQueue_PreEnqueueChecksGatingPlugin."""
    clock = FakeClock(0.0)
    q = new_queue(fwk, clock=clock)
    pod = make_pod("gated").gates("example.com/wait").obj()
    gated = QueuedPodInfo(PodInfo.of(pod))
    q.add(gated)
    assert gated.gated and gated.gating_plugin == "SchedulingGates" and q.pop() is None
    assert q.next_unschedulable_flush_time() is None
    clock.t = 1000.0
    assert q.flush_unschedulable_pods_left_over() == 0
    q.move_all_to_active_or_backoff_queue(ev.EVENT_NODE_ADD, None, make_node("n").obj())
    assert gated.pod.uid in q.unschedulable
    ungated = make_pod("gated").obj()
    q.update(pod, ungated)
    assert q.pop() is gated and not gated.gated


# --- events and queueing hints -------------------------------------------------------------


def test_node_add_moves_only_pods_it_can_help(fwk):
    """upstream: TestPriorityQueue_MoveAllToActiveOrBackoffQueue with NodeResourcesFit's hint
    isSchedulableAfterNodeChange: a node too small for the pod is skipped."""
    q = new_queue(fwk)
    big = qpi("big", cpu="6")
    q.add(big)
    fail(q, big, {"NodeResourcesFit"})
    small = make_node("small").capacity(cpu="2", memory="4Gi").obj()
    assert q.move_all_to_active_or_backoff_queue(ev.EVENT_NODE_ADD, None, small) == 0
    assert q.move_all_to_active_or_backoff_queue(ClusterEvent("Node", "UpdateNodeLabel"), small, small) == 0
    large = make_node("large").capacity(cpu="8", memory="16Gi").obj()
    assert q.move_all_to_active_or_backoff_queue(ev.EVENT_NODE_ADD, None, large) == 1
    assert big in q.backoff.list()  # still backing off: queueAfterBackoff


def test_event_seen_while_in_flight_requeues_the_pod(fwk):
    """upstream: TestPriorityQueue_AddUnschedulableIfNotPresent with in-flight events: an event
    that arrived during the attempt is replayed through the hints when the pod comes back."""
    q = new_queue(fwk)
    p = qpi("p", cpu="6")
    q.add(p)
    popped = q.pop()
    q.move_all_to_active_or_backoff_queue(ev.EVENT_NODE_ADD, None, make_node("n").capacity(cpu="8").obj())
    popped.unschedulable_plugins = {"NodeResourcesFit"}
    q.add_unschedulable_if_not_present(popped, q.scheduling_cycle)
    assert p in q.backoff.list() and not q.in_flight and not q.in_flight_events


@pytest.mark.parametrize(
    "rejectors,pending,event,want",
    [
        pytest.param(set(), set(), ev.EVENT_NODE_ADD, QueueingStrategy.QUEUE_AFTER_BACKOFF, id="no rejectors: error"),
        pytest.param(
            {"NodeResourcesFit"}, set(), ev.EVENT_UNSCHEDULABLE_TIMEOUT, QueueingStrategy.QUEUE_AFTER_BACKOFF, id="wildcard event"
        ),
        pytest.param(
            {"NodeResourcesFit"},
            set(),
            ClusterEvent("Node", "UpdateNodeLabel"),
            QueueingStrategy.QUEUE_SKIP,
            id="event the rejector did not register",
        ),
        pytest.param(
            {"NodeAffinity"},
            set(),
            ClusterEvent("Node", "UpdateNodeTaint"),
            QueueingStrategy.QUEUE_AFTER_BACKOFF,
            id="Node/Add registrant also gets UpdateNodeTaint",
        ),
        pytest.param(set(), {"NodeResourcesFit"}, ev.EVENT_NODE_ADD, QueueingStrategy.QUEUE_IMMEDIATELY, id="Queue from a Pending plugin"),
    ],
)
def test_is_pod_worth_requeuing(fwk, rejectors, pending, event, want):
    """upstream: scheduling_queue_test.go Test_isPodWorthRequeuing."""
    q = new_queue(fwk)
    p = qpi("p", cpu="1")
    p.unschedulable_plugins, p.pending_plugins = set(rejectors), set(pending)
    node = make_node("n").capacity(cpu="8", memory="8Gi").obj()
    old = make_node("n").capacity(cpu="8", memory="8Gi").taint("k", "v", "NoSchedule").obj()
    new = None if ev.is_wildcard(event) else node
    assert q.is_pod_worth_requeuing(p, event, old if "Update" in event.action else None, new) == want


def test_requeue_strategy_picks_the_queue():
    q = new_queue()
    p = qpi("p")
    p.attempts, p.unschedulable_count, p.timestamp = 1, 1, 0.0
    p.unschedulable_plugins = {"X"}
    assert q.requeue_pod_with_queueing_strategy(p, QueueingStrategy.QUEUE_SKIP, "e") == UNSCHEDULABLE_PODS
    assert q.requeue_pod_with_queueing_strategy(p, QueueingStrategy.QUEUE_AFTER_BACKOFF, "e") == BACKOFF_Q
    assert q.requeue_pod_with_queueing_strategy(p, QueueingStrategy.QUEUE_IMMEDIATELY, "e") == ACTIVE_Q


def test_add_feeds_the_nominator_from_status_nominated_node_name():
    """upstream: TestPriorityQueue_Add: an unscheduled pod with status.nominatedNodeName is nominated."""
    q = new_queue()
    pod = make_pod("p").priority(10).obj()
    pod.nominated_node_name = "n1"
    q.add(QueuedPodInfo(PodInfo.of(pod)))
    assert [i.pod.name for i in q.nominator.nominated_pods_for_node("n1")] == ["p"]
    q.delete(pod)
    assert q.nominator.nominated_pods_for_node("n1") == []


def test_activeq_order_is_priority_then_timestamp():
    q = new_queue()
    for p in (qpi("low", 0, 1.0), qpi("high", 10, 5.0), qpi("early", 0, 0.5)):
        q.add(p)
    assert [q.pop().pod.name for _ in range(3)] == ["high", "early", "low"]


def test_priority_sort_key_orders_the_active_queue_as_less_does() -> None:
    """PrioritySort.sort_key: the active heap compares keys instead of calling less; popping a
    shuffled mix of priorities, equal queue times and input orders gives less's order exactly,
    and a subclass that overrides less gets no key (the framework checks sort_key.orders)."""
    import random

    from kschedctl.backend.queue.heap import Heap
    from kschedctl.plugins.priority_sort.plugin import PrioritySort
    from kschedctl.runtime.framework import _sort_key

    plugin = PrioritySort()
    rng = random.Random(7)
    qpis = []
    for i in range(200):
        pod = make_pod(f"p{i}").priority(rng.choice([0, 5, 10])).obj()
        qpis.append(QueuedPodInfo(PodInfo.of(pod), timestamp=float(rng.choice([1, 2, 3])), seq=rng.randrange(50)))
    keyed, plain = Heap(plugin.less, _sort_key(plugin)), Heap(plugin.less)
    assert keyed.key is not None
    for q in qpis:
        keyed.add(q)
        plain.add(q)
    keyed.delete(qpis[3].pod.uid)
    plain.delete(qpis[3].pod.uid)
    assert [q.pod.uid for q in keyed.list()] == [q.pod.uid for q in plain.list()]
    out = [[h.pop().pod.uid for _ in range(len(h))] for h in (keyed, plain)]  # type: ignore[union-attr]
    assert out[0] == out[1] and len(out[0]) == 199

    class Reversed(PrioritySort):
        def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
            return super().less(b, a)

    assert _sort_key(Reversed()) is None


def _hinted_events(fwk) -> list[ClusterEvent]:
    """Every non-wildcard event kind the default profile registered, and one nobody did."""
    kinds = {(h.event.resource, h.event.action) for h in build_queueing_hint_map(fwk.enqueue_extensions())}
    events = [ClusterEvent(r, a) for r, a in sorted(kinds) if r != "*" and a != "*"]
    return [*events, ev.EVENT_ASSIGNED_POD_ADD, ev.EVENT_NODE_ADD, ClusterEvent("Node", "UpdateNodeLabel")]


def _asking_every_hint(q: PriorityQueue, plugins: list[str], monkeypatch) -> None:
    """is_pod_worth_requeuing without its shortcut: every plugin counts as hinted, so the
    matching hints of the pod's rejectors are walked and asked."""
    real = q._matching
    every = frozenset(plugins)

    def matching(profile, event):
        found = real(profile, event)
        return None if found is None else (found[0], every)

    monkeypatch.setattr(q, "_matching", matching)


def test_a_pool_pod_no_hint_applies_to_is_skipped_as_asking_would(fwk, monkeypatch):
    """is_pod_worth_requeuing answers, without walking the hints, a pod whose rejectors have no
    hint for the event: QUEUE_SKIP, what asking gives; and the same as asking for every
    rejector set of the default plugins and every event they registered."""
    import itertools

    q, asking = new_queue(fwk), new_queue(fwk)
    plugins = sorted({h.plugin_name for h in build_queueing_hint_map(fwk.enqueue_extensions())})
    assert len(plugins) >= 5
    _asking_every_hint(asking, plugins, monkeypatch)
    node = make_node("n").capacity(cpu="8", memory="8Gi").obj()
    pod = make_pod("other").req(cpu="1").node("n").obj()
    skipped = asked = 0
    for event in _hinted_events(fwk):
        new = pod if event.resource in ("Pod", "AssignedPod", "UnscheduledPod") else node
        hinted = q._matching("default-scheduler", event)
        for size in (0, 1, 2):
            for rejectors in itertools.combinations(plugins, size):
                for pending in [(), *((x,) for x in plugins)]:  # pending plugins need not be rejectors
                    p = qpi("p", cpu="1")
                    p.unschedulable_plugins, p.pending_plugins = set(rejectors), set(pending)
                    answer = q.is_pod_worth_requeuing(p, event, None, new)
                    assert answer == asking.is_pod_worth_requeuing(p, event, None, new), (event, rejectors, pending)
                    if hinted is not None and (rejectors or pending) and hinted[1].isdisjoint({*rejectors, *pending}):
                        skipped += 1
                        assert answer == QueueingStrategy.QUEUE_SKIP, (event, rejectors)
                    else:
                        asked += 1
    assert skipped and asked  # both ways were taken


def test_moving_the_pool_with_and_without_the_skip_agrees(fwk, monkeypatch):
    """The same pool and events, with the shortcut and with every pod's hints asked: the same
    pods move, to the same queues, in the same order."""
    import random

    plugins = sorted({h.plugin_name for h in build_queueing_hint_map(fwk.enqueue_extensions())})

    def run(skip: bool) -> list:
        rng = random.Random(7)
        q = new_queue(fwk)
        if not skip:
            _asking_every_hint(q, plugins, monkeypatch)
        for i in range(60):
            p = qpi(f"p{i}", cpu=str(rng.randint(1, 9)))
            q.add(p)
            popped = q.pop()
            popped.unschedulable_plugins = set(rng.sample(plugins, rng.randint(0, 2)))
            q.add_unschedulable_if_not_present(popped, q.scheduling_cycle)
        seen = []
        node = make_node("n").capacity(cpu="8", memory="8Gi").obj()
        for event in _hinted_events(fwk) * 2:
            new = make_pod("x").req(cpu="1").node("n").obj() if "Pod" in event.resource else node
            moved = q.move_all_to_active_or_backoff_queue(event, None, new)
            seen.append((moved, [x.pod.name for x in q.active.list()], [x.pod.name for x in q.backoff.list()], list(q.unschedulable)))
        return seen

    assert run(True) == run(False)
