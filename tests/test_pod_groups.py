"""Pod groups and gang scheduling (scheduleOnePodGroup, GangScheduling, topology placement).

upstream: schedule_one_podgroup_test.go / algorithm_podgroup_test.go (group cycle outcomes),
gangscheduling_test.go TestPlacementFeasible, topology_placement_test.go."""

from __future__ import annotations

import pytest

from kschedctl.cluster.loader import ClusterSnapshot, _build, resolve_priorities
from kschedctl.config.loader import load_config_text
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.eventhandlers import add_node_to_cache
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import make_node, make_pod, make_pod_group
from kschedctl.versions import KubeVersion


def sched(nodes, pods, groups, version="1.37", topology=False):
    gates = dict(GenericWorkload=True, GangScheduling=True)
    if topology:
        gates["TopologyAwareWorkloadScheduling"] = True
    v = KubeVersion(version).with_gates(**gates)
    reg = default_registry().registry
    conf = load_config_text("", "<test>", v, reg)
    cluster = ClusterSnapshot(nodes=[n.obj() for n in nodes], pods=[p.obj() for p in pods])
    for g in groups:
        _build("PodGroup", g, cluster.objects)
    resolve_priorities(cluster)
    return Scheduler(cluster, conf, reg, v, seed=1)


def nodes(n, cpu="2"):
    return [make_node(f"n{i}").capacity(cpu=cpu, memory="8Gi") for i in range(n)]


def gang(prefix, group, n, cpu="1500m"):
    return [make_pod(f"{prefix}{i}").req(cpu=cpu).pod_group(group) for i in range(n)]


@pytest.mark.parametrize(
    "version,gang_msg,fit_msg",
    [
        # upstream: gangscheduling_test.go TestPlacementFeasible "not enough remaining pods"; the 1.37
        # group cycle runs no single-pod PostFilter (algorithm_podgroup.go schedulePod)
        pytest.param(
            "1.37",
            "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining",
            "0/3 nodes are available: 3 Insufficient cpu.",
            id="1.37-placement-feasible",
        ),
        # upstream: gangscheduling_test.go TestGangScheduling "gang pod passes PreEnqueue, but waits at Permit";
        # 1.36.2 runs PostFilter for the member that fits nowhere (podGroupPodSchedulingAlgorithm);
        # the others' status is their Permit's Wait (the plugin's reason and RunPermitPlugins') built
        # WithError(errPodGroupUnschedulable) (kschedoracle 1.36.2 -mode sequential, pod-group cycle)
        pytest.param(
            "1.36",
            "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, "
            "one or more plugins asked to wait and no plugin rejected pod",
            "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: "
            "0/3 nodes are available: 3 No preemption victims found for incoming pod.",
            id="1.36-permit",
        ),
    ],
)
def test_gang_of_four_where_three_fit_places_nothing(version, gang_msg, fit_msg):
    s = sched(nodes(3), gang("p", "g", 4), [make_pod_group("g", min_count=4)], version)
    r = s.run()
    assert r.placements == []
    msgs = {u.pod: u.message for u in r.unschedulable}
    assert len(msgs) == 4
    assert sorted(m for m in msgs.values() if m == gang_msg) == [gang_msg] * 3
    assert fit_msg in msgs.values()
    assert not s.cache.assumed_pods
    assert all(not ni.pods for ni in s.snapshot.list())
    assert r.to_dict()["podGroups"][0]["status"] == "Unschedulable"


def test_same_gang_after_a_node_is_added_places_all_four():
    # upstream: scheduling_queue / GangScheduling: NodeAdd requeues the rejected member, its group follows
    s = sched(nodes(3), gang("p", "g", 4), [make_pod_group("g", min_count=4)])
    s.at(10, lambda: add_node_to_cache(s, make_node("n3").capacity(cpu="2", memory="8Gi").obj()))
    r = s.run()
    assert sorted(p.node for p in r.placements) == ["n0", "n1", "n2", "n3"]


def test_min_count_three_of_four_places_three():
    # upstream: algorithm_podgroup_test.go "gang with minCount satisfied by a subset"
    r = sched(nodes(3), gang("p", "g", 4), [make_pod_group("g", min_count=3)]).run()
    assert len(r.placements) == 3 and len(r.unschedulable) == 1


def test_two_competing_gangs_one_placed_whole_other_untouched():
    # upstream: schedule_one_podgroup_test.go "second pod group does not fit"
    s = sched(nodes(3), gang("a", "ga", 3) + gang("b", "gb", 3), [make_pod_group("ga", min_count=3), make_pod_group("gb", min_count=3)])
    r = s.run()
    placed = {p.pod.split("/")[1][0] for p in r.placements}
    assert len(r.placements) == 3 and len(placed) == 1
    assert len(r.unschedulable) == 3


def test_topology_aware_group_placed_within_one_zone():
    # upstream: topology_placement_test.go + schedule_one_podgroup_test.go placement algorithm
    ns = [
        make_node("a1").capacity(cpu="2", memory="8Gi").zone("za"),
        make_node("b1").capacity(cpu="2", memory="8Gi").zone("zb"),
        make_node("b2").capacity(cpu="2", memory="8Gi").zone("zb"),
        make_node("b3").capacity(cpu="2", memory="8Gi").zone("zb"),
    ]
    s = sched(ns, gang("p", "g", 3), [make_pod_group("g", min_count=3, topology_key="topology.kubernetes.io/zone")], topology=True)
    r = s.run()
    assert sorted(p.node for p in r.placements) == ["b1", "b2", "b3"]
    assert r.to_dict()["podGroups"][0]["placement"] == "zb"


def test_topology_no_zone_fits_reports_placements():
    ns = [make_node("a1").capacity(cpu="2", memory="8Gi").zone("za"), make_node("b1").capacity(cpu="2", memory="8Gi").zone("zb")]
    r = sched(ns, gang("p", "g", 2), [make_pod_group("g", min_count=2, topology_key="topology.kubernetes.io/zone")], topology=True).run()
    assert r.placements == []
    assert any(u.message.startswith("0/2 placements are available, first placement status: ") for u in r.unschedulable)


def test_a_workloads_pod_group_is_read_again_for_a_new_object() -> None:
    """workload_pod_group keeps one PodGroup per Workload object and group name: the same object
    answers the same group, an updated Workload (a new object) is read afresh."""
    from kschedctl.framework import podgroup as pg

    def workload(min_count: int) -> dict:
        group = {"name": "g", "policy": {"gang": {"minCount": min_count}}}
        return {"metadata": {"name": "w", "namespace": "ns"}, "spec": {"podGroups": [group]}}

    first = workload(3)
    group = pg.workload_pod_group(first, "g")
    assert group is not None and (group.min_count, group.key) == (3, "ns/w/g")
    assert pg.workload_pod_group(first, "g") is group
    assert pg.workload_pod_group(first, "other") is None
    for count in range(4, 40):
        again = pg.workload_pod_group(workload(count), "g")
        assert again is not None and again.min_count == count


def test_a_pods_workload_ref_is_read_from_its_own_spec() -> None:
    from kschedctl.framework import podgroup as pg

    assert pg.workload_ref(make_pod("p").obj()) is None
    fresh = make_pod("q").obj()
    fresh.raw["spec"]["workloadRef"] = {"name": "w", "podGroup": "g"}
    assert pg.workload_ref(fresh) == ("w", "g")
    assert pg.workload_ref(fresh) == ("w", "g")


def test_the_workload_group_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The memo holds at most content_memo.LIMIT entries (it starts again when full) and still
    answers each Workload's own group."""
    from kschedctl.api import content_memo
    from kschedctl.framework import podgroup as pg

    monkeypatch.setattr(pg, "_WORKLOAD_GROUPS", {})
    monkeypatch.setattr(content_memo, "LIMIT", 3)
    for count in range(1, 9):
        raw = {
            "metadata": {"name": f"w{count}", "namespace": "ns"},
            "spec": {"podGroups": [{"name": "g", "policy": {"gang": {"minCount": count}}}]},
        }
        group = pg.workload_pod_group(raw, "g")
        assert group is not None and group.min_count == count
        assert len(pg._WORKLOAD_GROUPS) <= 3
