"""The pool walk an event kind is known to skip (PriorityQueue._hint_free_skips).

When every pod of the unschedulable pool stayed where it was under an event without a hint
asked (its gate cannot open on it, or none of its rejectors registered a hint for it), the next
event of that kind skips the walk until the pool or one of its pods changes. These tests drive
the same operations through a queue that remembers and one that walks every time, and compare
everything the walk could have changed after each step.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from kschedctl.backend.queue.scheduling_queue import PriorityQueue, build_queueing_hint_map
from kschedctl.framework import events as ev
from kschedctl.framework.interface import ClusterEvent, Code, Status
from kschedctl.framework.types import PodInfo, QueuedPodInfo
from kschedctl.testing import FakeClock, make_node, make_pod, new_framework


class _Forgetful(dict[tuple[str, str], int]):
    """A memo that keeps nothing: every event walks the pool."""

    def __setitem__(self, key: tuple[str, str], value: int) -> None:
        return None


def _less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    pa, pb = a.pod.effective_priority(), b.pod.effective_priority()
    return pa > pb if pa != pb else (a.timestamp, a.seq) < (b.timestamp, b.seq)


def _admit(pod: Any) -> Status:
    if pod.scheduling_gates:
        return Status(Code.UnschedulableAndUnresolvable, "waiting for scheduling gates", plugin="SchedulingGates")
    return Status()


@pytest.fixture(scope="module")
def hints() -> dict[str, Any]:
    return {"default-scheduler": build_queueing_hint_map(new_framework().enqueue_extensions())}


def _queue(hints: dict[str, Any], remember: bool) -> PriorityQueue:
    q = PriorityQueue(_less, FakeClock(0.0), _admit, hints)
    if not remember:
        q._hint_free_skips = _Forgetful()
    return q


def _events(hints: dict[str, Any]) -> list[ClusterEvent]:
    kinds = {(h.event.resource, h.event.action) for h in hints["default-scheduler"]}
    return [ClusterEvent(r, a) for r, a in sorted(kinds) if r != "*" and a != "*"] + [ev.EVENT_ASSIGNED_POD_ADD]


def _state(q: PriorityQueue) -> tuple[Any, ...]:
    pool = [(uid, x.requeued_by, x.gated, sorted(x.unschedulable_plugins)) for uid, x in q.unschedulable.items()]
    names = lambda heap: [x.pod.name for x in heap.list()]  # noqa: E731
    return names(q.active), names(q.backoff), names(q.error_backoff), pool, q.move_request_event, q.move_request_cycle


def _drive(q: PriorityQueue, hints: dict[str, Any], seed: int) -> tuple[list[Any], int]:
    """Random adds (some gated), failed attempts, updates, deletes and events, repeated kinds
    included; the state after each step, and how many events skipped the walk."""
    rng = random.Random(seed)
    plugins = sorted({h.plugin_name for h in hints["default-scheduler"]})
    events = _events(hints)
    walks = 0
    real = q._move_pods

    def counting(*args: Any, **kwargs: Any) -> int:
        nonlocal walks
        walks += 1
        return real(*args, **kwargs)

    q._move_pods = counting  # type: ignore[method-assign]
    small = make_node("small").capacity(cpu="1", memory="1Gi").obj()
    large = make_node("large").capacity(cpu="16", memory="64Gi").obj()
    seen: list[Any] = []
    pods: dict[str, Any] = {}
    moves = 0
    for step in range(400):
        roll = rng.random()
        if roll < 0.15:
            b = make_pod(f"p{step}").req(cpu=str(rng.randint(1, 9)))
            if rng.random() < 0.3:
                b = b.gates("example.com/wait")
            pod = b.obj()
            pods[pod.uid] = pod
            q.add(QueuedPodInfo(PodInfo.of(pod), timestamp=q.clock.now(), seq=step))
        elif roll < 0.3:
            popped = q.pop()
            if popped is not None:
                popped.unschedulable_plugins = set(rng.sample(plugins, rng.randint(0, 2)))
                q.add_unschedulable_if_not_present(popped, q.scheduling_cycle)
        elif roll < 0.37 and q.unschedulable:
            uid = rng.choice(sorted(q.unschedulable))
            old = pods[uid]
            new = make_pod(old.name).req(cpu=str(rng.randint(1, 9))).obj()  # the same uid
            pods[uid] = new
            q.update(old, new)
        elif roll < 0.42 and q.unschedulable:
            uid = rng.choice(sorted(q.unschedulable))
            q.delete(pods[uid])
        else:
            event = rng.choice(events)
            if event.resource in ("Pod", "AssignedPod", "UnscheduledPod"):
                new = make_pod(f"x{step}").req(cpu="1").node("large").obj()
            else:
                new = rng.choice([small, large])
            moves += 1
            seen.append(("moved", q.move_all_to_active_or_backoff_queue(event, None, new)))
        q.clock.t += rng.choice([0.0, 0.5, 2.0])
        seen.append(_state(q))
    return seen, moves - walks


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_remembered_skip_moves_what_the_walk_moves(hints: dict[str, Any], seed: int) -> None:
    remembered, skipped = _drive(_queue(hints, True), hints, seed)
    walked, none_skipped = _drive(_queue(hints, False), hints, seed)
    assert none_skipped == 0
    assert skipped > 0  # the memo was used
    assert remembered == walked


def test_a_change_to_the_pool_or_a_pod_ends_the_skip(hints: dict[str, Any]) -> None:
    """A pool of pods rejected by NodeResourcesFit, which has no hint for an assigned pod's add:
    the second AssignedPodAdd skips the walk. A pod whose rejector has one (InterPodAffinity)
    joins the pool: the next event walks again and moves it."""
    q = _queue(hints, True)
    for i in range(3):
        p = QueuedPodInfo(PodInfo.of(make_pod(f"big{i}").req(cpu="64").obj()), seq=i)
        q.add(p)
        popped = q.pop()
        assert popped is p
        popped.unschedulable_plugins = {"NodeResourcesFit"}
        q.add_unschedulable_if_not_present(popped, q.scheduling_cycle)
    assigned = make_pod("bound").label("app", "web").req(cpu="1").node("n").obj()
    assert q.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_ADD, None, assigned) == 0
    key = (ev.EVENT_ASSIGNED_POD_ADD.resource, ev.EVENT_ASSIGNED_POD_ADD.action)
    assert q._hint_free_skips[key] == q.pool_version
    walks = []
    real = q._move_pods
    q._move_pods = lambda *a, **k: walks.append(1) or real(*a, **k)  # type: ignore[method-assign]
    assert q.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_ADD, None, assigned) == 0
    assert walks == []
    affine = make_pod("affine").pod_affinity_exists("app", "kubernetes.io/hostname").req(cpu="1").obj()
    other = QueuedPodInfo(PodInfo.of(affine), seq=9)
    q.add(other)
    popped = q.pop()
    popped.unschedulable_plugins = {"InterPodAffinity"}
    q.add_unschedulable_if_not_present(popped, q.scheduling_cycle)
    assert q.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_ADD, None, assigned) == 1
    assert walks == [1]
    assert "affine" in [x.pod.name for x in q.backoff.list() + q.active.list()]
