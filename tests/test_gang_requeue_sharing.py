"""A gang's gated members share one requeue per event (PriorityQueue.move_pods_to_active_or_
backoff_queue with Framework.pre_enqueue_share_key): the queue must end up exactly as when every
member is requeued on its own (PreEnqueue and hints asked per pod), whatever the members differ
in: scheduling gates, claims (DynamicResources gates them first), the profile, the group, other
rejectors from a failed attempt, deletions, bound members, events no hint cares about."""

from __future__ import annotations

import random
from typing import Any

import pytest
import yaml

from kschedctl.api.resourceclaim import ResourceClaim
from kschedctl.api.types import Pod
from kschedctl.cluster.loader import ClusterSnapshot, _build, resolve_priorities
from kschedctl.config.loader import load_config_text
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.runtime.framework import Framework
from kschedctl.scheduler.eventhandlers import (
    add_node_to_cache,
    add_pod,
    add_resource_claim,
    delete_pod,
    delete_resource_claim,
    update_pod_in_scheduling_queue,
)
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import GANG_GATES, make_node, make_pod, make_pod_group
from kschedctl.versions import KubeVersion

TWO_PROFILES = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: second-scheduler
"""
GROUPS = {"g0": 4, "g1": 3, "g2": 6}  # group -> minCount


def _objects(version: str) -> list[tuple[str, dict[str, Any]]]:
    if version == "1.35":
        workload = {
            "apiVersion": "scheduling.k8s.io/v1alpha1",
            "kind": "Workload",
            "metadata": {"name": "job", "namespace": "default"},
            "spec": {"podGroups": [{"name": g, "policy": {"gang": {"minCount": n}}} for g, n in GROUPS.items()]},
        }
        return [("Workload", workload)]
    return [("PodGroup", make_pod_group(g, min_count=n)) for g, n in GROUPS.items()]


def _scheduler(version: str, pop_from_backoff_q: bool = True) -> Scheduler:
    v = KubeVersion(version).with_gates(GenericWorkload=True, GangScheduling=True, SchedulerPopFromBackoffQ=pop_from_backoff_q)
    reg = default_registry().registry
    conf = load_config_text(TWO_PROFILES, "<test>", v, reg)
    cluster = ClusterSnapshot(nodes=[make_node(f"n{i}").capacity(cpu="4", memory="8Gi").obj() for i in range(2)], pods=[])
    for kind, raw in _objects(version):
        _build(kind, raw, cluster.objects)
    resolve_priorities(cluster)
    s = Scheduler(cluster, conf, reg, v, seed=1)
    add_resource_claim(s, _claim())
    return s


def _claim() -> ResourceClaim:
    """A claim some pods name: deleted and created again by the steps (DynamicResources, ahead
    of GangScheduling, then gates those pods instead)."""
    meta = {"name": "present", "namespace": "default", "uid": "claim-uid"}
    return ResourceClaim.from_dict({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta, "spec": {"devices": {}}})


def _pod(rng: random.Random, i: int, version: str, bound: bool = False) -> Pod:
    builder = make_pod(f"p{i}").req(cpu="100m")
    group = rng.choice([*GROUPS, "missing", None])
    if group is not None:
        builder = builder.workload_ref("job", group) if version == "1.35" else builder.pod_group(group)
    if rng.random() < 0.15:
        builder = builder.gates("example.com/hold")
    claim = rng.choice([None] * 6 + ["absent", "present", "present"])
    if claim is not None:
        builder = builder.set("spec.resourceClaims", [{"name": "c", "resourceClaimName": claim}])
    if rng.random() < 0.2:
        builder = builder.scheduler("second-scheduler")
    if bound:
        builder = builder.node(rng.choice(["n0", "n1"]))
    return builder.obj()


def _queue_state(s: Scheduler) -> list[Any]:
    q = s.queue
    pool = [
        (uid, qpi.gated, qpi.gating_plugin, qpi.gating_message, qpi.requeued_by, sorted(qpi.unschedulable_plugins))
        for uid, qpi in q.unschedulable.items()
    ]
    heaps = [[(p.pod.uid, p.requeued_by) for p in h.list()] for h in (q.active, q.backoff, q.error_backoff)]
    return [pool, heaps, q.move_request_cycle, q.move_request_event]


def _step(s: Scheduler, rng: random.Random, i: int, version: str) -> None:
    """One cluster change or queue action, drawn from ``rng``."""
    roll = rng.random()
    pending = [p for p in s.pods_by_uid.values() if not p.node_name]
    if roll < 0.55:
        add_pod(s, _pod(rng, i, version))
    elif roll < 0.65:
        add_pod(s, _pod(rng, i, version, bound=True))  # AssignedPodAdd: may complete a gang too
    elif roll < 0.72 and pending:
        gated = [p for p in pending if p.scheduling_gates]
        if gated:
            old = rng.choice(gated)
            raw = dict(old.raw, spec={k: v for k, v in old.raw["spec"].items() if k != "schedulingGates"})
            update_pod_in_scheduling_queue(s, old, Pod.from_dict(raw))
    elif roll < 0.8 and pending:
        delete_pod(s, rng.choice(pending))
    elif roll < 0.84:
        add_node_to_cache(s, make_node(f"extra{i}").capacity(cpu="1", memory="1Gi").obj())
    elif roll < 0.88:
        claim = s.objects.resource_claims.get("default/present")
        if claim is not None:
            delete_resource_claim(s, claim)
        else:
            add_resource_claim(s, _claim())
    else:  # an attempt that fails: the pod comes back with other rejectors than its gate
        qpi = s.queue.pop()
        if qpi is not None:
            # DefaultBinder registers no events: its "hint" queues the pod at every event
            rejectors = rng.choice(
                [["NodeResourcesFit"], ["GangScheduling"], ["NodeResourcesFit", "GangScheduling"], ["DefaultBinder", "GangScheduling"]]
            )
            qpi.unschedulable_plugins = set(rejectors)
            s.queue.add_unschedulable_if_not_present(qpi, s.queue.scheduling_cycle)


@pytest.mark.parametrize(
    "version,pop_from_backoff_q", [("1.35", True), ("1.36", True), ("1.35", False)], ids=["1.35", "1.36", "1.35-no-PopFromBackoffQ"]
)
@pytest.mark.parametrize("seed", range(5))
def test_shared_requeue_leaves_the_queue_as_asking_each_pod_does(version: str, pop_from_backoff_q: bool, seed: int) -> None:
    """Without SchedulerPopFromBackoffQ a rejected pod still backing off goes to backoffQ with
    no PreEnqueue: it is never shared."""
    shared, alone = _scheduler(version, pop_from_backoff_q), _scheduler(version, pop_from_backoff_q)
    alone.queue.pre_enqueue_share_key = None  # every gated pod asked on its own
    calls = {"shared": 0, "alone": 0}
    for name, s in (("shared", shared), ("alone", alone)):
        ask = s.queue.pre_enqueue

        def counted(pod: Pod, ask: Any = ask, name: str = name) -> Any:
            calls[name] += 1
            return ask(pod)

        s.queue.pre_enqueue = counted
    rng_shared, rng_alone = random.Random(seed), random.Random(seed)
    for i in range(120):
        _step(shared, rng_shared, i, version)
        _step(alone, rng_alone, i, version)
        assert _queue_state(shared) == _queue_state(alone), f"step {i}"
    assert calls["shared"] < calls["alone"]  # the sharing did happen


@pytest.mark.parametrize("sharing", [True, False], ids=["shared", "alone"])
def test_a_member_with_another_rejector_is_asked_on_its_own(sharing: bool) -> None:
    """a1 and b1 are gated by GangScheduling in the same gang; b1 was also rejected by a plugin
    whose hint queues it at every event (DefaultBinder registers none). A bound pod of no group
    comes: GangScheduling's hint skips a1, b1 is requeued and gated again (to the end of the
    pool, behind x); a1's outcome must not be taken for b1's, nor b1's for a1's."""
    s = _scheduler("1.35")
    if not sharing:
        s.queue.pre_enqueue_share_key = None
    for name in ("a1", "b1"):
        add_pod(s, make_pod(name).workload_ref("job", "g0").obj())
    s.queue.unschedulable[make_pod("b1").obj().uid].unschedulable_plugins = {"DefaultBinder", "GangScheduling"}
    add_pod(s, make_pod("x").obj())
    x = s.queue.pop()
    assert x is not None and x.pod.name == "x"
    x.unschedulable_plugins = {"NodeResourcesFit"}
    s.queue.add_unschedulable_if_not_present(x, s.queue.scheduling_cycle)
    assert [q.pod.name for q in s.queue.unschedulable.values()] == ["b1", "a1", "x"]  # b1's add requeued a1
    add_pod(s, make_pod("bound").node("n0").obj())
    assert [q.pod.name for q in s.queue.unschedulable.values()] == ["a1", "x", "b1"]
    assert all(q.gated for q in s.queue.unschedulable.values() if q.pod.name != "x")


def test_a_subclass_that_overrides_pre_enqueue_is_not_vouched_for() -> None:
    """The promises (always admits, share key) hold for the class that defines PreEnqueue."""
    from kschedctl.plugins.gang_scheduling.plugin import GangScheduling
    from kschedctl.plugins.scheduling_gates.plugin import SchedulingGates
    from kschedctl.runtime.framework import _vouched

    class Stricter(SchedulingGates):
        def pre_enqueue(self, pod: Pod) -> Any:
            return None

    assert _vouched(SchedulingGates(None, None), "pre_enqueue_always_admits") == "pre_enqueue_always_admits"
    assert _vouched(Stricter(None, None), "pre_enqueue_always_admits") is None
    assert _vouched(object(), "pre_enqueue_always_admits") is None
    assert GangScheduling.pre_enqueue_share_key.__qualname__.startswith("GangScheduling.")


def _scenario(tmp_path: Any) -> tuple[str, str]:
    """A gang of 5 (minCount 4) whose members differ: one held by a scheduling gate until 20s,
    one in the second profile; a pod of another gang; members arrive one by one."""
    nodes = [make_node(f"n{i}").capacity(cpu="2", memory="8Gi").dict() for i in range(4)]
    workload = _objects("1.35")[0][1]
    pods = []
    for i in range(5):
        builder = make_pod(f"w{i}").req(cpu="1").workload_ref("job", "g0")
        if i == 1:
            builder = builder.gates("example.com/hold")
        if i == 3:
            builder = builder.scheduler("second-scheduler")
        pods.append(builder.dict())
    other = make_pod("x0").req(cpu="1").workload_ref("job", "g1").dict()
    events = [{"at": f"{2 * i}s", "action": "createPod", "object": p} for i, p in enumerate([*pods, other])]
    events.append({"at": "20s", "action": "ungatePod", "pod": "default/w1"})
    scenario = {
        "apiVersion": "kschedctl.io/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "gang"},
        "objects": [*nodes, workload],
        "events": events,
    }
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario, sort_keys=False))
    config = tmp_path / "config.yaml"
    config.write_text(TWO_PROFILES)
    return str(path), str(config)


def test_simulate_reports_the_same_with_and_without_sharing(run_cli: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    path, config = _scenario(tmp_path)
    args = ("simulate", path, "--config", config, "-o", "json", "--seed", "1", "--kube-version", "1.35", "--feature-gates", GANG_GATES)
    with_sharing = run_cli(*args)
    assert with_sharing.exit_code == 0, with_sharing.stderr
    monkeypatch.setattr(Framework, "pre_enqueue_share_key", lambda self, pod, plugin: None)
    without = run_cli(*args)
    assert without.exit_code == 0, without.stderr
    assert with_sharing.json() == without.json()
    placed = {p["pod"]: p for p in with_sharing.json()["placements"]}
    # gated w1 counts towards minCount (4 pods known at 6s) but waits for its gate; w3, of
    # another profile, is of the gang too: the quorum of 4 scheduled comes with w4 at 8s
    assert sorted(placed) == [f"default/w{i}" for i in range(5)]
    assert [placed[f"default/w{i}"]["time"] for i in (0, 2, 4)] == [8, 8, 8]
    assert placed["default/w1"]["time"] >= 20


def test_waiting_pods_are_looked_at_again_after_any_result_or_removal() -> None:
    """resume_resolved_waiting_pods looks for resolved waiting pods only when one got a result
    or left its framework's map since it last looked: a result set by plain assignment counts."""
    from kschedctl.framework.interface import Status
    from kschedctl.framework.waiting_pods import WaitingPod, WaitingPodsMap
    from kschedctl.scheduler.schedule_one import resume_resolved_waiting_pods

    before = WaitingPod.changes
    wp = WaitingPod(make_pod("a").obj(), "n0", {"GangScheduling": 300.0})
    assert WaitingPod.changes == before  # waiting, unresolved
    wp.result = Status()
    assert WaitingPod.changes == before + 1
    pods = WaitingPodsMap(a=wp)
    pods.pop("a")
    assert WaitingPod.changes == before + 2

    s = _scheduler("1.35")
    for i in range(2):  # g0 needs 4: both members wait at Permit
        add_pod(s, make_pod(f"m{i}").req(cpu="100m").workload_ref("job", "g0").obj())
    add_pod(s, make_pod("m2").req(cpu="100m").workload_ref("job", "g0").obj())
    add_pod(s, make_pod("m3").req(cpu="100m").workload_ref("job", "g0").gates("hold").obj())  # counted, never tried
    while (qpi := s.queue.pop()) is not None:
        s.schedule_one(qpi)
        resume_resolved_waiting_pods(s)
    assert sorted(s.waiting) == sorted(make_pod(f"m{i}").obj().uid for i in range(3))
    resume_resolved_waiting_pods(s)
    assert len(s.waiting) == 3 and not s.result.placements
    uid = make_pod("m1").obj().uid
    s.waiting[uid].fwk.get_waiting_pod(uid).result = Status()  # a plugin's doing, not allow()
    resume_resolved_waiting_pods(s)
    assert [p.pod for p in s.result.placements] == ["default/m1"] and uid not in s.waiting


@pytest.mark.parametrize("version", ["1.35", "1.36"])
def test_a_member_updated_into_another_group_is_not_moved_with_its_old_one(version: str) -> None:
    """The share key a gated pod keeps is dropped when its pod object changes: b1, gated in g2,
    is updated into g1 (an update no hint of GangScheduling cares for leaves it in the pool,
    gated). The next pod of g2 requeues g2's members; b1 is asked as what it is now, a member
    of g1, exactly as when every gated pod is asked on its own."""

    def member(name: str, group: str) -> Pod:
        b = make_pod(name).req(cpu="100m").label("v", "1")
        return (b.workload_ref("job", group) if version == "1.35" else b.pod_group(group)).obj()

    states = []
    for sharing in (True, False):
        s = _scheduler(version)
        if not sharing:
            s.queue.pre_enqueue_share_key = None
        for name in ("a1", "a2", "b1", "a3"):
            add_pod(s, member(name, "g2"))
        assert len(s.queue.unschedulable) == 4  # g2 wants 6
        old = s.pods_by_uid[member("b1", "g2").uid]
        update_pod_in_scheduling_queue(s, old, member("b1", "g1"))
        steps = [_queue_state(s)]
        for name, group in (("a4", "g2"), ("c1", "g1"), ("a5", "g2")):
            add_pod(s, member(name, group))
            steps.append(_queue_state(s))
        states.append(steps)
    assert states[0] == states[1]
