"""SchedulingAlgorithm pieces: numFeasibleNodesToFind (algorithm.go; schedule_one_test.go
TestNumFeasibleNodesToFind), the node tree order (backend/cache/node_tree.go, node_tree_test.go),
Go integer division, and host selection among ties."""

import random

import pytest

from kschedctl.backend.cache.cache import Cache, NodeTree, Snapshot
from kschedctl.framework.interface import NodePluginScores
from kschedctl.scheduler.algorithm import SchedulingAlgorithm, go_div
from kschedctl.testing import make_node, make_pod


@pytest.mark.parametrize(
    "percentage,num_nodes,expected",
    [
        # upstream TestNumFeasibleNodesToFind cases
        (None, 10, 10),  # "not set percentageOfNodesToScore and nodes number not more than 50"
        (40, 10, 10),  # "set percentageOfNodesToScore and nodes number not more than 50"
        (None, 1000, 420),  # "not set ... nodes number more than 50": 50 - 1000/125 = 42%
        (40, 1000, 400),  # "set percentageOfNodesToScore and nodes number more than 50"
        (None, 6000, 300),  # "not set ... more than 50*125": adaptive floor of 5%
        (40, 6000, 2400),
        (None, 100, 100),  # 50% of 100 is raised to minFeasibleNodesToFind
        (None, 5000, 500),
        (None, 99, 99),
    ],
)
def test_num_feasible_nodes_to_find(percentage, num_nodes, expected):
    algo = SchedulingAlgorithm(0)
    assert algo.num_feasible_nodes_to_find(percentage, num_nodes) == expected


def test_global_percentage_applies_when_the_profile_has_none():
    assert SchedulingAlgorithm(20).num_feasible_nodes_to_find(None, 1000) == 200
    assert SchedulingAlgorithm(20).num_feasible_nodes_to_find(30, 1000) == 300


@pytest.mark.parametrize("a,b,q", [(7, 2, 3), (-7, 2, -3), (7, -2, -3), (-7, -2, 3), (0, 5, 0)])
def test_go_division_truncates_toward_zero(a, b, q):
    assert go_div(a, b) == q


def test_node_tree_interleaves_zones_in_first_seen_order():
    # node_tree_test.go TestNodeTree_List-like: one node of each zone in turn, zones by first appearance.
    tree = NodeTree()
    for name, zone in [("a1", "a"), ("a2", "a"), ("b1", "b"), ("a3", "a"), ("c1", "c"), ("b2", "b")]:
        tree.add_node(make_node(name).zone(zone, "r").obj())
    tree.add_node(make_node("nozone").obj())
    assert tree.list() == ["a1", "b1", "c1", "nozone", "a2", "b2", "a3"]


def test_snapshot_follows_node_tree_order_and_counts_bound_pods():
    nodes = [make_node(f"{z}{i}").zone(z).capacity(cpu="4", memory="8Gi").obj() for z in "ab" for i in range(2)]
    pods = [make_pod("p").req(cpu="1").node("b0").obj(), make_pod("done").req(cpu="1").node("b0").phase("Succeeded").obj()]
    snap = Snapshot.from_nodes_and_pods(nodes, pods)
    assert [n.name for n in snap.list()] == ["a0", "b0", "a1", "b1"]
    assert snap.get("b0").requested.milli_cpu == 1000  # the Succeeded pod uses nothing
    assert [n.index for n in snap.list()] == [0, 1, 2, 3]


def test_cache_assume_and_forget_update_the_snapshot_incrementally():
    cache = Cache()
    cache.add_node(make_node("n1").capacity(cpu="4").obj())
    cache.add_node(make_node("n2").capacity(cpu="4").obj())
    snap = Snapshot()
    cache.update_snapshot(snap)
    untouched = snap.get("n2")
    pod = make_pod("p").req(cpu="1").node("n1").obj()
    cache.assume_pod(pod)
    cache.update_snapshot(snap)
    assert snap.get("n1").requested.milli_cpu == 1000
    assert snap.get("n2") is untouched  # only changed NodeInfos are copied
    cache.forget_pod(pod)
    cache.update_snapshot(snap)
    assert snap.get("n1").requested.milli_cpu == 0


def test_select_host_picks_the_best_and_breaks_ties_uniformly():
    scores = [NodePluginScores("a", [], 10), NodePluginScores("b", [], 30), NodePluginScores("c", [], 30)]
    picks = {SchedulingAlgorithm(0, random.Random(seed)).select_host(scores) for seed in range(40)}
    assert picks == {"b", "c"}
    same = [SchedulingAlgorithm(0, random.Random(7)).select_host(scores) for _ in range(3)]
    assert len(set(same)) == 1  # the same seed gives the same choice


def _search(use_batch: bool):
    """Three pods of 100m on 200 equal nodes; n100, n101 and n150 tainted."""
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import PodInfo, QueuedPodInfo
    from kschedctl.testing import new_framework

    nodes = []
    for i in range(200):
        b = make_node(f"n{i:03d}").capacity(cpu="4", memory="8Gi", pods="110")
        nodes.append((b.taint("x", "v", "NoSchedule") if i in (100, 101, 150) else b).obj())
    fwk = new_framework(nodes=nodes)
    fwk.use_batch = use_batch
    cache, snap = Cache(), Snapshot()
    for n in nodes:
        cache.add_node(n)
    alg = SchedulingAlgorithm(0, random.Random(1))
    out = []
    for j in range(3):
        cache.update_snapshot(snap)
        fwk.snapshot = snap
        qpi = QueuedPodInfo(PodInfo.of(make_pod(f"p{j}").req(cpu="100m").obj()))
        r = alg.schedule_pod(fwk, CycleState(), qpi, snap)
        out.append((r.evaluated_nodes, alg.next_start_node_index))
        cache.assume_pod(qpi.pod_info.with_node_name(r.suggested_host).pod)
    return out


@pytest.mark.parametrize("use_batch", [False, True], ids=["per-node", "batched"])
def test_search_filters_until_one_feasible_node_past_the_limit(use_batch):
    # kschedoracle -mode sequential -sample (parallelism 1), 200 nodes, taints on n100, n101, n150:
    # numNodesToFind 100; p0 filters n000..n099, n100, n101 (rejected), n102 (feasible: dropped,
    # not counted) -> EvaluatedNodes 102, nextStartNodeIndex 102; p1 from n102 (n150 rejected,
    # wraps to n002, n003 dropped) -> 101, 3; p2 -> 102, 105.
    # upstream: schedule_one.go (1.35) / algorithm.go findNodesThatPassFilters (`length > numNodesToFind`)
    assert _search(use_batch) == [(102, 102), (101, 3), (102, 105)]


@pytest.mark.parametrize(
    "labels,expected",
    [
        ({}, ""),
        ({"topology.kubernetes.io/zone": "z1"}, ":\x00:z1"),
        ({"topology.kubernetes.io/zone": "z1", "failure-domain.beta.kubernetes.io/zone": "zb"}, ":\x00:zb"),
        (
            {"topology.kubernetes.io/region": "r1", "failure-domain.beta.kubernetes.io/region": "rb", "topology.kubernetes.io/zone": "z1"},
            "rb:\x00:z1",
        ),
        # present but empty still wins (a map look-up with ok, not a fallback on "")
        ({"topology.kubernetes.io/zone": "z1", "failure-domain.beta.kubernetes.io/zone": ""}, ""),
    ],
    ids=["none", "ga", "beta-zone-first", "beta-region-first", "beta-empty"],
)
def test_zone_key_reads_the_beta_labels_first(labels, expected):
    # upstream: component-helpers node/topology/helpers.go GetZoneKey (node_tree.go)
    from kschedctl.backend.cache.cache import zone_key

    assert zone_key(make_node("n").labels(labels).obj()) == expected


def test_diagnosis_names_the_plugin_that_narrowed_the_nodes():
    # kschedoracle -mode explain: NodeAffinity's PreFilterResult keeps n1 only, where
    # NodeResourcesFit rejects: unschedulablePlugins [NodeAffinity NodeResourcesFit] (the queueing
    # hints of both may requeue the pod).
    # upstream: schedule_one.go (1.35) findNodesThatFitPod (diagnosis.UnschedulablePlugins =
    # RunPreFilterPlugins' plugin set), runtime/framework.go RunPreFilterPlugins
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import FitError, PodInfo, QueuedPodInfo
    from kschedctl.testing import new_framework

    nodes = [make_node("n1").capacity(cpu="1", memory="8Gi").obj(), make_node("n2").capacity(cpu="4", memory="8Gi").obj()]
    pod = (
        make_pod("web")
        .req(cpu="2")
        .affinity(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]
                    }
                }
            }
        )
        .obj()
    )
    fwk = new_framework(nodes=nodes)
    with pytest.raises(FitError) as err:
        SchedulingAlgorithm(0, random.Random(1)).schedule_pod(fwk, CycleState(), QueuedPodInfo(PodInfo.of(pod)), fwk.snapshot)
    assert err.value.diagnosis.unschedulable_plugins == {"NodeAffinity", "NodeResourcesFit"}
    assert err.value.message() == "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy plugin(s) [NodeAffinity]."
