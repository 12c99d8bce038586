"""The Scheduler over virtual time: backoff, events that make a pod schedulable, the pool flush,
Reserve/Permit/Bind faults.

Cases follow pkg/scheduler/schedule_one_test.go (TestSchedulerScheduleOne: bind/reserve/permit
failures; TestSchedulerBinding), scheduling_queue_test.go (backoff, flush) and
framework/runtime/framework_test.go (TestRecordingMetrics / TestPermitPlugins: Permit timeout).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kschedctl.cluster.loader import ClusterSnapshot, resolve_priorities
from kschedctl.config.loader import load_config_text
from kschedctl.framework.interface import Code, Status
from kschedctl.framework.registry import PluginSpec, Registry
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.eventhandlers import add_node_to_cache, update_node_in_cache
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import make_node, make_pod
from kschedctl.versions import KubeVersion


def config(**points: list[str]) -> str:
    """A profile whose extension points get these plugins (bind replaces DefaultBinder)."""
    lines = [
        "apiVersion: kubescheduler.config.k8s.io/v1",
        "kind: KubeSchedulerConfiguration",
        "profiles:",
        "- schedulerName: default-scheduler",
        "  plugins:",
    ]
    for point, names in points.items():
        lines.append(f"    {point}:")
        lines.append("      enabled: [" + ", ".join(f"{{name: {n}}}" for n in names) + "]")
        if point == "bind":
            lines.append("      disabled: [{name: DefaultBinder}]")
    return "\n".join(lines) + "\n"


def new_scheduler(
    nodes: list,
    pods: list,
    specs: list[PluginSpec] = (),
    cfg: str = "",
    timeline: list[tuple[float, Callable[[Scheduler], Any]]] = (),
    seed: int = 1,
) -> Scheduler:
    registry = Registry()
    registry.merge(default_registry().registry)
    for spec in specs:
        registry.register(spec)
    version = KubeVersion()
    conf = load_config_text(cfg, "<test>", version, registry)
    cluster = ClusterSnapshot(nodes=[n.obj() for n in nodes], pods=[p.obj() for p in pods])
    resolve_priorities(cluster)
    sched = Scheduler(cluster, conf, registry, version, seed=seed)
    for t, action in timeline:
        sched.at(t, lambda action=action: action(sched))
    return sched


def trace(sched: Scheduler, kind: str, pod: str | None = None) -> list[dict]:
    return [e for e in sched.trace if e["event"] == kind and (pod is None or e.get("pod") == pod)]


class FlakyBinder:
    """Bind fails on chosen (pod name, attempt) pairs, with an Error or a rejection."""

    def __init__(self, failures: dict[tuple[str, int], Code]) -> None:
        self.failures = failures
        self.calls: dict[str, int] = {}

    def name(self) -> str:
        return "FlakyBinder"

    def bind(self, state: Any, pod: Any, node_name: str) -> Status | None:
        n = self.calls[pod.name] = self.calls.get(pod.name, 0) + 1
        code = self.failures.get((pod.name, n))
        return Status(code, f"binding {pod.name} failed") if code is not None else None


def flaky_binder(failures: dict[tuple[str, int], Code]) -> PluginSpec:
    return PluginSpec("FlakyBinder", lambda args, handle: FlakyBinder(failures), FlakyBinder)


# --- backoff timing ------------------------------------------------------------------------


def test_error_backoff_spaces_retries_1_2_4_8_10_10_seconds():
    """upstream: scheduling_queue_test.go TestBackoffPodLater / backoff_queue_test.go: an Error
    (here from Bind) sends the pod to the error backoffQ; it is retried once its backoff window
    has passed (the flush runs on whole seconds, after the window holding the expiry)."""
    failures = {("p", i): Code.Error for i in range(1, 7)}
    sched = new_scheduler(
        [make_node("n1").capacity(cpu="4", memory="8Gi")],
        [make_pod("p").req(cpu="1")],
        [flaky_binder(failures)],
        config(bind=["FlakyBinder"]),
    )
    result = sched.run()
    failed_at = [e["time"] for e in trace(sched, "FailedScheduling")]
    [placed] = trace(sched, "Scheduled")
    attempt_times = failed_at + [placed["time"]]
    assert attempt_times == [0, 2, 5, 10, 19, 30, 41]
    assert [b - a - 1 for a, b in zip(attempt_times, attempt_times[1:])] == [1, 2, 4, 8, 10, 10]
    assert result.placements[0].attempts == 7 and not result.unschedulable


def test_pod_that_keeps_erring_is_reported_after_bounded_retries():
    failures = {("p", i): Code.Error for i in range(1, 100)}
    sched = new_scheduler(
        [make_node("n1").capacity(cpu="4", memory="8Gi")],
        [make_pod("p").req(cpu="1")],
        [flaky_binder(failures)],
        config(bind=["FlakyBinder"]),
    )
    [u] = sched.run().unschedulable
    assert u.error and "binding p failed" in u.message and u.attempts == 8


# --- events --------------------------------------------------------------------------------


def _add_node(name: str, cpu: str) -> Callable[[Scheduler], None]:
    return lambda s: add_node_to_cache(s, make_node(name).capacity(cpu=cpu, memory="16Gi").obj())


def _relabel(name: str, value: str) -> Callable[[Scheduler], None]:
    def act(s: Scheduler) -> None:
        old = s.cache.nodes[name].node
        update_node_in_cache(s, old, make_node(name).capacity(cpu="2", memory="4Gi").label("tier", value).obj())

    return act


def test_pod_is_retried_only_when_a_node_that_fits_it_is_added():
    """upstream: scheduling_queue_test.go TestPriorityQueue_MoveAllToActiveOrBackoffQueue with
    NodeResourcesFit's hints: a label change and a too-small node do not retry the pod."""
    sched = new_scheduler(
        [make_node("small").capacity(cpu="2", memory="4Gi")],
        [make_pod("big").req(cpu="4")],
        timeline=[(10, _relabel("small", "a")), (20, _add_node("small-2", "2")), (60, _add_node("large", "8"))],
    )
    result = sched.run()
    assert [e["time"] for e in trace(sched, "FailedScheduling")] == [0]
    [p] = result.placements
    assert (p.node, p.attempts, p.time - sched.start) == ("large", 2, 60)


def test_unschedulable_pool_flush_retries_after_five_minutes_only_while_something_changed():
    """upstream: TestPriorityQueue_FlushUnschedulablePodsLeftover: pods in the pool longer than
    podMaxInUnschedulablePodsDuration (5 min) are retried on the 30 s flush tick."""
    sched = new_scheduler(
        [make_node("small").capacity(cpu="2", memory="4Gi")],
        [make_pod("big").req(cpu="4")],
        timeline=[(100, _relabel("small", "a")), (600, _relabel("small", "b"))],
    )
    result = sched.run()
    assert [e["time"] for e in trace(sched, "FailedScheduling")] == [0, 330, 660]
    [u] = result.unschedulable
    assert u.attempts == 3 and u.reasons == {"Insufficient cpu": 1}


def test_run_ends_when_no_event_can_help():
    sched = new_scheduler([make_node("small").capacity(cpu="2", memory="4Gi")], [make_pod("big").req(cpu="4")])
    [u] = sched.run().unschedulable
    assert u.attempts == 1 and sched.clock.now() == sched.start


# --- Reserve / Permit faults ---------------------------------------------------------------


class Reserver:
    def __init__(self, name: str, log: list[str], fail_first: bool) -> None:
        self._name, self.log, self.fail_first, self.seen = name, log, fail_first, 0

    def name(self) -> str:
        return self._name

    def reserve(self, state: Any, pod: Any, node_name: str) -> Status | None:
        self.seen += 1
        self.log.append(f"reserve {self._name}")
        if self.fail_first and self.seen == 1:
            return Status(Code.Unschedulable, f"{self._name} is full")
        return None

    def unreserve(self, state: Any, pod: Any, node_name: str) -> None:
        self.log.append(f"unreserve {self._name}")


def test_reserve_failure_runs_every_unreserve_in_reverse_order_and_requeues():
    """upstream: schedule_one_test.go TestSchedulerScheduleOne "reserve failed": Unreserve of
    every Reserve plugin in reverse order, the assumed pod forgotten, the pod requeued."""
    log: list[str] = []
    specs = [
        PluginSpec("ReserveA", lambda a, h: Reserver("ReserveA", log, False), Reserver),
        PluginSpec("ReserveB", lambda a, h: Reserver("ReserveB", log, True), Reserver),
    ]
    sched = new_scheduler(
        [make_node("n1").capacity(cpu="4", memory="8Gi")], [make_pod("p").req(cpu="1")], specs, config(reserve=["ReserveA", "ReserveB"])
    )
    result = sched.run()
    assert log[:4] == ["reserve ReserveA", "reserve ReserveB", "unreserve ReserveB", "unreserve ReserveA"]
    [first] = trace(sched, "FailedScheduling")
    assert first["message"] == "0/1 nodes are available: 1 ReserveB is full."
    [p] = result.placements
    assert p.attempts == 2 and p.time - sched.start == 330  # the pool flush: no event helps a Reserve rejection


class Waiter:
    """Permit asks the first attempt of each pod named "waiter" to wait an hour."""

    def __init__(self) -> None:
        self.seen = 0

    def name(self) -> str:
        return "Waiter"

    def permit(self, state: Any, pod: Any, node_name: str) -> tuple[Status | None, float]:
        if pod.name != "waiter":
            return None, 0
        self.seen += 1
        return (Status(Code.Wait), 3600) if self.seen == 1 else (None, 0)


def test_permit_wait_holds_resources_until_the_capped_timeout():
    """upstream: framework_test.go TestPermitPlugins / waiting_pods_map.go: Wait is capped at
    15 minutes; on timeout the pod is rejected with upstream's message, forgotten, and the
    AssignedPodDelete event lets the pod it was blocking in."""
    sched = new_scheduler(
        [make_node("n1").capacity(cpu="2", memory="8Gi")],
        [make_pod("waiter").priority(10).preemption_policy("Never").req(cpu="2"), make_pod("other").req(cpu="2")],
        [PluginSpec("Waiter", lambda a, h: Waiter(), Waiter)],
        config(permit=["Waiter"]),
    )
    result = sched.run()
    timeout, retry = trace(sched, "FailedScheduling", "default/waiter")
    assert (timeout["time"], timeout["message"]) == (
        900,
        "0/1 nodes are available: 1 rejected due to timeout after waiting 15m0s at plugin Waiter.",
    )
    # "other" was in the pool while the waiter held the node; the 5-minute flush retried it
    assert [e["time"] for e in trace(sched, "FailedScheduling", "default/other")] == [0, 330, 660]
    assert [(p.pod, p.node, p.attempts, p.time - sched.start) for p in result.placements] == [("default/other", "n1", 4, 900)]
    # the waiter's Permit rejection matched its own (wildcard) registration on other's bind
    assert retry["time"] == 900 and retry["message"].startswith("0/1 nodes are available: 1 Insufficient cpu.")
    [u] = result.unschedulable
    assert u.pod == "default/waiter" and u.attempts == 2


# --- fault injection -----------------------------------------------------------------------


def _failures(pattern: int) -> dict[tuple[str, int], Code]:
    out = {}
    for i in range(14):
        for attempt in (1, 2, 3):
            if (i * 7 + attempt * pattern) % 4 == 0:
                out[(f"p{i}", attempt)] = Code.Error if i % 2 else Code.Unschedulable
    return out


@pytest.mark.parametrize("pattern,seed", [(1, 1), (3, 7), (5, 42)], ids=["pattern-1", "pattern-3", "pattern-5"])
def test_bind_faults_lose_and_duplicate_nothing_and_never_overcommit(pattern, seed):
    """upstream: schedule_one_test.go TestSchedulerScheduleOne "bind failed" (and
    TestSchedulerFailedSchedulingReasons): failed binds are unreserved, forgotten and retried;
    here over many pods and attempts, with Error and Unschedulable binds mixed."""
    nodes = [make_node(f"n{i}").capacity(cpu="4", memory="16Gi", pods="110") for i in range(3)]
    pods = [make_pod(f"p{i}").priority(i % 3).req(cpu="1", memory="1Gi") for i in range(14)]
    failures = _failures(pattern)
    assert any(c == Code.Error for c in failures.values()) and any(c == Code.Unschedulable for c in failures.values())
    sched = new_scheduler(nodes, pods, [flaky_binder(failures)], config(bind=["FlakyBinder"]), seed=seed)
    result = sched.run()
    placed = [p.pod for p in result.placements]
    alive = [p.pod for p in result.placements if not p.preempted_by]
    victims = [v for pre in result.preemptions for v in pre.victims]
    reported = [u.pod for u in result.unschedulable]
    assert len(placed) == len(set(placed)) and len(alive) == 12
    assert sorted(alive + reported + victims) == sorted(f"default/p{i}" for i in range(14))
    for name, info in sched.cache.nodes.items():
        assert info.requested.milli_cpu <= info.allocatable.milli_cpu, name
        assert sorted(p.pod.key for p in info.pods) == sorted(p.pod for p in result.placements if p.node == name and not p.preempted_by)
    assert not sched.cache.assumed_pods and not sched.queue.in_flight and not sched.waiting
    assert any(e["event"] == "FailedScheduling" for e in sched.trace)


# --- Filter errors and where the search stops ------------------------------------------------


class ErrOn:
    """A Filter that fails with an Error on the named nodes."""

    def __init__(self, nodes: set[str]) -> None:
        self.nodes = nodes

    def name(self) -> str:
        return "ErrOn"

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status | None:
        return Status(Code.Error, "boom") if node_info.name in self.nodes else None


NO_SCORE = config(filter=["ErrOn"]).replace("  plugins:\n", '  plugins:\n    score:\n      disabled: [{name: "*"}]\n')


def _err_on(*nodes: str) -> PluginSpec:
    return PluginSpec("ErrOn", lambda args, handle: ErrOn(set(nodes)), ErrOn)


def test_error_on_the_nominated_node_falls_back_to_the_search(either_view):
    # upstream: schedule_one.go (1.35) / algorithm.go findNodesThatFitPod: evaluateNominatedNode's
    # error is only logged. Without Score plugins one feasible node is wanted: n0 is found, n2
    # (feasible, one too many) stops the search before n1 is filtered again.
    nodes = [make_node(n).capacity(cpu="4", memory="8Gi") for n in ("n0", "n2", "n1")]
    sched = new_scheduler(nodes, [make_pod("p").req(cpu="1").nominated("n1")], [_err_on("n1")], NO_SCORE)
    result = sched.run()
    assert [(p.pod, p.node) for p in result.placements] == [("default/p", "n0")]


def test_error_past_the_last_needed_feasible_node_fails_the_attempt(either_view):
    # upstream: findNodesThatPassFilters with one worker: after n0 (the one feasible node wanted)
    # the search goes on to n1, whose Error cancels it: the attempt fails with that error.
    nodes = [make_node(n).capacity(cpu="4", memory="8Gi") for n in ("n0", "n1", "n2")]
    sched = new_scheduler(nodes, [make_pod("p").req(cpu="1")], [_err_on("n1")], NO_SCORE)
    sched.run()
    first = trace(sched, "FailedScheduling", "default/p")[0]
    assert first["message"] == 'running "ErrOn" filter plugin: boom'


class ReadsMissingState:
    """A Filter that reads a CycleState key nobody wrote, without checking."""

    def name(self) -> str:
        return "ReadsMissingState"

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status | None:
        state.read("PreFilterNobody")
        return None


def test_a_missing_cycle_state_entry_reads_not_found_even_unchecked():
    # upstream: framework/cycle_state.go Read returns framework.ErrNotFound ("not found"); the
    # runtime wraps a Filter error as `running %q filter plugin: %w` (runtime/framework.go)
    spec = PluginSpec("ReadsMissingState", lambda args, handle: ReadsMissingState(), ReadsMissingState)
    sched = new_scheduler(
        [make_node("n1").capacity(cpu="4", memory="8Gi")], [make_pod("p").req(cpu="1")], [spec], config(filter=["ReadsMissingState"])
    )
    sched.run()
    first = trace(sched, "FailedScheduling", "default/p")[0]
    assert first["message"] == 'running "ReadsMissingState" filter plugin: not found'
