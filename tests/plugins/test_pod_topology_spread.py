"""PodTopologySpread PreFilter / Filter / PreFilterExtensions, from upstream filtering_test.go
(pkg/scheduler/framework/plugins/podtopologyspread) unless stated otherwise."""

from __future__ import annotations

import pytest
from pts_helpers import BAR, FOO, TAINTS, node, plugin_for, pod

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code
from kschedctl.framework.types import PodInfo
from kschedctl.testing import make_pod
from kschedctl.versions import KubeVersion

S, U, UU = Code.Success, Code.Unschedulable, Code.UnschedulableAndUnresolvable

FOUR_NODES = [
    node("node-a", {"zone": "zone1", "node": "node-a"}),
    node("node-b", {"zone": "zone1", "node": "node-b"}),
    node("node-x", {"zone": "zone2", "node": "node-x"}),
    node("node-y", {"zone": "zone2", "node": "node-y"}),
]
SPREAD_2103 = [  # matching pods spread as 2/1/0/3 over node-a/b/x/y
    pod("p-a1", "node-a", {"foo": ""}),
    pod("p-a2", "node-a", {"foo": ""}),
    pod("p-b1", "node-b", {"foo": ""}),
    pod("p-y1", "node-y", {"foo": ""}),
    pod("p-y2", "node-y", {"foo": ""}),
    pod("p-y3", "node-y", {"foo": ""}),
]


def run_filter(incoming, nodes, pods, **kw):
    pl, fwk = plugin_for(nodes, pods, **kw)
    state = CycleState()
    _, st = pl.pre_filter(state, incoming, fwk.snapshot.list())
    assert st is None or st.is_success(), st
    out = {}
    for n in nodes:
        res = pl.filter(state, incoming, fwk.snapshot.get(n.name))
        out[n.name] = Code.Success if res is None else res.code
    return out, state


SINGLE = [
    # upstream: filtering_test.go TestSingleConstraint "no existing pods"
    (
        "no existing pods",
        make_pod("p").label("foo", "").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES,
        [],
        {"node-a": S, "node-b": S, "node-x": S, "node-y": S},
    ),
    # upstream: TestSingleConstraint "no existing pods, incoming pod doesn't match itself"
    (
        "no existing pods, incoming pod doesn't match itself",
        make_pod("p").label("foo", "").spread(1, "zone", selector=BAR).obj(),
        FOUR_NODES,
        [],
        {"node-a": S, "node-b": S, "node-x": S, "node-y": S},
    ),
    # upstream: TestSingleConstraint "existing pods in a different namespace do not count"
    (
        "existing pods in a different namespace do not count",
        make_pod("p").label("foo", "").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES,
        [
            pod("p-a1", "node-a", {"foo": ""}, ns="ns1"),
            pod("p-b1", "node-a", {"foo": ""}, ns="ns2"),
            pod("p-x1", "node-x", {"foo": ""}),
            pod("p-y1", "node-y", {"foo": ""}),
        ],
        {"node-a": S, "node-b": S, "node-x": U, "node-y": U},
    ),
    # upstream: TestSingleConstraint "pods spread across zones as 3/3, all nodes fit"
    (
        "pods spread across zones as 3/3, all nodes fit",
        make_pod("p").label("foo", "").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES,
        [
            pod("p-a1", "node-a", {"foo": ""}),
            pod("p-a2", "node-a", {"foo": ""}),
            pod("p-b1", "node-b", {"foo": ""}),
            pod("p-y1", "node-y", {"foo": ""}),
            pod("p-y2", "node-y", {"foo": ""}),
            pod("p-y3", "node-y", {"foo": ""}),
        ],
        {"node-a": S, "node-b": S, "node-x": S, "node-y": S},
    ),
    # upstream: TestSingleConstraint "pods spread across zones as 1/2 due to absence of label 'zone' on node-b"
    (
        "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
        make_pod("p").label("foo", "").spread(1, "zone", selector=FOO).obj(),
        [FOUR_NODES[0], node("node-b", {"zon": "zone1", "node": "node-b"}), FOUR_NODES[2], FOUR_NODES[3]],
        [
            pod("p-a1", "node-a", {"foo": ""}),
            pod("p-b1", "node-b", {"foo": ""}),
            pod("p-x1", "node-x", {"foo": ""}),
            pod("p-y1", "node-y", {"foo": ""}),
        ],
        {"node-a": S, "node-b": UU, "node-x": U, "node-y": U},
    ),
    # upstream: TestSingleConstraint "pod cannot be scheduled as all nodes don't have label 'rack'"
    (
        "pod cannot be scheduled as all nodes don't have label 'rack'",
        make_pod("p").label("foo", "").spread(1, "rack", selector=FOO).obj(),
        [FOUR_NODES[0], FOUR_NODES[2]],
        [],
        {"node-a": UU, "node-x": UU},
    ),
    # upstream: TestSingleConstraint "pods spread across nodes as 2/1/0/3, only node-x fits"
    (
        "pods spread across nodes as 2/1/0/3, only node-x fits",
        make_pod("p").label("foo", "").spread(1, "node", selector=FOO).obj(),
        FOUR_NODES,
        SPREAD_2103,
        {"node-a": U, "node-b": U, "node-x": S, "node-y": U},
    ),
    # upstream: TestSingleConstraint "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit"
    (
        "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
        make_pod("p").label("foo", "").spread(2, "node", selector=FOO).obj(),
        FOUR_NODES,
        SPREAD_2103,
        {"node-a": U, "node-b": S, "node-x": S, "node-y": U},
    ),
    # upstream: TestSingleConstraint "pods spread across nodes as 2/1/0/3, but pod doesn't match itself"
    (
        "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
        make_pod("p").label("bar", "").spread(1, "node", selector=FOO).obj(),
        FOUR_NODES,
        SPREAD_2103,
        {"node-a": U, "node-b": S, "node-x": S, "node-y": U},
    ),
    # upstream: TestSingleConstraint "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits"
    (
        "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
        make_pod("p").label("foo", "").node_affinity_in("node", ["node-a", "node-y"]).spread(1, "node", selector=FOO).obj(),
        FOUR_NODES,
        SPREAD_2103,
        {"node-a": S, "node-b": S, "node-x": S, "node-y": U},
    ),
    # upstream: TestSingleConstraint "terminating Pods should be excluded"
    (
        "terminating Pods should be excluded",
        make_pod("p").label("foo", "").spread(1, "node", selector=FOO).obj(),
        [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"})],
        [pod("p-a", "node-a", {"foo": ""}, terminating=True), pod("p-b", "node-b", {"foo": ""})],
        {"node-a": S, "node-b": U},
    ),
]

MULTI = [
    # upstream: TestMultipleConstraints "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]"
    (
        "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
        make_pod("p").label("foo", "").spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO).obj(),
        FOUR_NODES,
        SPREAD_2103,
        {"node-a": U, "node-b": U, "node-x": S, "node-y": U},
    ),
]

# test/integration/scheduler/filters/filters_test.go TestPodTopologySpreadFilter: minDomains cases,
# zone-1 = node-0/node-1, zone-2 = node-2/node-3.
ZONE_NODES = [node(f"node-{i}", {"zone": f"zone-{1 + i // 2}", "node": f"node-{i}"}) for i in range(4)]
ZONE_PODS = [pod("p1a", "node-0", {"foo": ""}), pod("p2a", "node-1", {"foo": ""}), pod("p3a", "node-2", {"foo": ""})]
MIN_DOMAINS = [
    (
        "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
        make_pod("p").label("foo", "").spread(2, "zone", selector=FOO, minDomains=3).obj(),
        ZONE_NODES,
        ZONE_PODS,
        {"node-0": U, "node-1": U, "node-2": S, "node-3": S},
    ),
    (
        "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the all nodes fit",
        make_pod("p").label("foo", "").spread(2, "zone", selector=FOO, minDomains=1).obj(),
        ZONE_NODES,
        ZONE_PODS,
        {"node-0": S, "node-1": S, "node-2": S, "node-3": S},
    ),
]

POLICIES = [
    # upstream: TestPreFilterState "NodeAffinityPolicy ignored with labelSelectors" (counts 1/2/0): node-c
    # counts, so the global minimum is 0 and node-a (1 + 1 - 0) and node-b (2 + 1 - 0) exceed maxSkew 1.
    (
        "NodeAffinityPolicy ignored: node-c's empty domain counts",
        make_pod("p").label("bar", "").node_selector({"foo": ""}).spread(1, "node", selector=BAR, nodeAffinityPolicy="Ignore").obj(),
        [
            node("node-a", {"node": "node-a", "foo": ""}),
            node("node-b", {"node": "node-b", "foo": ""}),
            node("node-c", {"node": "node-c", "bar": ""}),
        ],
        [pod("p-a", "node-a", {"bar": ""}), pod("p-b", "node-b", {"bar": ""}), pod("p-c", "node-b", {"bar": ""}), pod("p-d", "node-c")],
        {"node-a": U, "node-b": U, "node-c": S},
    ),
    # upstream: TestPreFilterState "NodeAffinityPolicy honored with nodeAffinity": node-c is not counted,
    # minimum is node-a's 1.
    (
        "NodeAffinityPolicy honored: node-c not counted",
        make_pod("p").label("bar", "").node_affinity_in("foo", [""]).spread(1, "node", selector=BAR).obj(),
        [
            node("node-a", {"node": "node-a", "foo": ""}),
            node("node-b", {"node": "node-b", "foo": ""}),
            node("node-c", {"node": "node-c", "bar": ""}),
        ],
        [pod("p-a", "node-a", {"bar": ""}), pod("p-c", "node-b", {"bar": ""}), pod("p-d", "node-b", {"bar": ""}), pod("p-e", "node-c")],
        {"node-a": S, "node-b": U, "node-c": S},
    ),
    # upstream: TestPreFilterState "NodeTaintsPolicy honored": the tainted node-c is not counted.
    (
        "NodeTaintsPolicy honored: tainted node-c not counted",
        make_pod("p").label("bar", "").spread(1, "node", selector=BAR, nodeTaintsPolicy="Honor").obj(),
        [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"}), node("node-c", {"node": "node-c", "bar": ""}, TAINTS)],
        [pod("p-a", "node-a", {"bar": ""}), pod("p-b", "node-b", {"bar": ""}), pod("p-c", "node-b", {"bar": ""}), pod("p-d", "node-c")],
        {"node-a": S, "node-b": U, "node-c": S},
    ),
    # upstream: TestPreFilterState "NodeTaintsPolicy ignored": node-c's 0 is the minimum.
    (
        "NodeTaintsPolicy ignored: tainted node-c counted",
        make_pod("p").label("bar", "").spread(1, "node", selector=BAR).obj(),
        [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"}), node("node-c", {"node": "node-c", "bar": ""}, TAINTS)],
        [pod("p-a", "node-a", {"bar": ""}), pod("p-b", "node-b", {"bar": ""}), pod("p-c", "node-b", {"bar": ""}), pod("p-d", "node-c")],
        {"node-a": U, "node-b": U, "node-c": S},
    ),
]


@pytest.mark.parametrize(
    "incoming,nodes,pods,want",
    [c[1:] for c in SINGLE + MULTI + MIN_DOMAINS + POLICIES],
    ids=[c[0] for c in SINGLE + MULTI + MIN_DOMAINS + POLICIES],
)
def test_filter_status_codes(incoming, nodes, pods, want):
    got, _ = run_filter(incoming, nodes, pods)
    assert got == want


def test_filter_reasons():
    # upstream: plugin.go ErrReasonConstraintsNotMatch / ErrReasonNodeLabelNotMatch
    incoming = make_pod("p").label("foo", "").spread(1, "zone", selector=FOO).obj()
    nodes = [FOUR_NODES[0], node("node-b", {"zon": "zone1"}), FOUR_NODES[2]]
    pods = [pod("p-a1", "node-a", {"foo": ""})]
    pl, fwk = plugin_for(nodes, pods)
    state = CycleState()
    pl.pre_filter(state, incoming, fwk.snapshot.list())
    st_a = pl.filter(state, incoming, fwk.snapshot.get("node-a"))
    st_b = pl.filter(state, incoming, fwk.snapshot.get("node-b"))
    assert (st_a.code, st_a.reasons) == (U, ["node(s) didn't match pod topology spread constraints"])
    assert (st_b.code, st_b.reasons) == (UU, ["node(s) didn't match pod topology spread constraints (missing required label)"])
    assert pl.filter(state, incoming, fwk.snapshot.get("node-x")) is None


PRE_FILTER_STATE = [
    # upstream: TestPreFilterState "clean cluster with one spreadConstraint"
    (
        "clean cluster with one spreadConstraint",
        make_pod("p").label("foo", "").spread(5, "zone", selector=FOO).obj(),
        FOUR_NODES,
        [],
        [{"zone1": 0, "zone2": 0}],
        [0],
    ),
    # upstream: TestPreFilterState "normal case with one spreadConstraint"
    (
        "normal case with one spreadConstraint",
        make_pod("p").label("foo", "").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES,
        SPREAD_2103,
        [{"zone1": 3, "zone2": 3}],
        [3],
    ),
    # upstream: TestPreFilterState "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore"
    (
        "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        make_pod("p")
        .label("foo", "")
        .node_selector({"foo": ""})
        .spread(1, "zone", selector=FOO)
        .spread(1, "node", selector=FOO, nodeAffinityPolicy="Ignore")
        .obj(),
        [
            node("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
            node("node-b", {"zone": "zone1", "node": "node-b"}),
            node("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
        ],
        [pod("p-b1", "node-b", {"foo": ""}), pod("p-b2", "node-b", {"foo": ""}), pod("p-x1", "node-x", {"foo": ""})],
        [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
        [0, 0],
    ),
    # upstream: TestPreFilterState "two node inclusion Constraints, zone: honor/honor, node: honor/ignore"
    (
        "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        make_pod("p").label("foo", "").spread(1, "zone", selector=FOO, nodeTaintsPolicy="Honor").spread(1, "node", selector=FOO).obj(),
        [
            node("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
            node("node-b", {"zone": "zone1", "node": "node-b"}, TAINTS),
            node("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
        ],
        [pod("p-b1", "node-b", {"foo": ""}), pod("p-b2", "node-b", {"foo": ""}), pod("p-x1", "node-x", {"foo": ""})],
        [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
        [0, 0],
    ),
    # upstream: TestPreFilterState "NodeTaintsPolicy honored with tolerated taints"
    (
        "NodeTaintsPolicy honored with tolerated taints",
        make_pod("p")
        .label("foo", "")
        .toleration("node.kubernetes.io/unschedulable", operator="Exists")
        .spread(1, "node", selector=BAR, nodeTaintsPolicy="Honor")
        .obj(),
        [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"}), node("node-c", {"node": "node-c", "bar": ""}, TAINTS)],
        [pod("p-a", "node-a", {"bar": ""}), pod("p-b", "node-b", {"bar": ""}), pod("p-c", "node-b", {"bar": ""}), pod("p-d", "node-c")],
        [{"node-a": 1, "node-b": 2, "node-c": 0}],
        [0],
    ),
]


@pytest.mark.parametrize(
    "incoming,nodes,pods,want_counts,want_min", [c[1:] for c in PRE_FILTER_STATE], ids=[c[0] for c in PRE_FILTER_STATE]
)
def test_pre_filter_state(incoming, nodes, pods, want_counts, want_min):
    _, state = run_filter(incoming, nodes, pods)
    s = state.read("PreFilterPodTopologySpread")
    assert s.tp_value_to_match_num == want_counts
    assert [s.min_match(i) for i in range(len(s.constraints))] == want_min


def test_pre_filter_skips_without_hard_constraints():
    # upstream: filtering.go PreFilter returns Skip when there are no constraints (system defaults are soft)
    pl, fwk = plugin_for(FOUR_NODES, [])
    _, st = pl.pre_filter(CycleState(), make_pod("p").label("foo", "").spread(1, "zone", "ScheduleAnyway", FOO).obj(), fwk.snapshot.list())
    assert st.code == Code.Skip


def test_nil_selector_matches_nothing():
    # common.go: a nil labelSelector is labels.Nothing(): no pod counts and the pod does not match itself,
    # so every node with the key passes.
    incoming = make_pod("p").label("foo", "").spread(1, "node").obj()
    got, _ = run_filter(incoming, FOUR_NODES, SPREAD_2103)
    assert got == {"node-a": S, "node-b": S, "node-x": S, "node-y": S}


REMOVE_POD = [
    # upstream: TestPreFilterStateRemovePod "one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged"
    (
        "one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
        make_pod("p").label("foo", "").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES[:3],
        [pod("p-a1", "node-a", {"foo": ""}), pod("p-b1", "node-b", {"foo": ""}), pod("p-x1", "node-x", {"foo": ""})],
        0,
        "node-a",
        [{"zone1": 1, "zone2": 1}],
        [1],
    ),
    # upstream: TestPreFilterStateRemovePod "one spreadConstraint on node, topologyKeyToMinPodsMap changed"
    (
        "one spreadConstraint on node, topologyKeyToMinPodsMap changed",
        make_pod("p").label("foo", "").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES,
        [
            pod("p-a1", "node-a", {"foo": ""}),
            pod("p-b1", "node-b", {"foo": ""}),
            pod("p-x1", "node-x", {"foo": ""}),
            pod("p-y1", "node-y", {"foo": ""}),
        ],
        0,
        "node-a",
        [{"zone1": 1, "zone2": 2}],
        [1],
    ),
    # upstream: TestPreFilterStateRemovePod "delete an irrelevant pod won't help"
    (
        "delete an irrelevant pod won't help",
        make_pod("p").label("foo", "").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES,
        [
            pod("p-a0", "node-a", {"bar": ""}),
            pod("p-a1", "node-a", {"foo": ""}),
            pod("p-b1", "node-b", {"foo": ""}),
            pod("p-x1", "node-x", {"foo": ""}),
            pod("p-y1", "node-y", {"foo": ""}),
        ],
        0,
        "node-a",
        [{"zone1": 2, "zone2": 2}],
        [2],
    ),
    # upstream: TestPreFilterStateRemovePod "two spreadConstraints"
    (
        "two spreadConstraints",
        make_pod("p").label("foo", "").spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO).obj(),
        FOUR_NODES[:3],
        [
            pod("p-a1", "node-a", {"foo": ""}),
            pod("p-a2", "node-a", {"foo": ""}),
            pod("p-b1", "node-b", {"foo": ""}),
            pod("p-x1", "node-x", {"foo": ""}),
            pod("p-x2", "node-x", {"foo": ""}),
        ],
        3,
        "node-x",
        [{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}],
        [1, 1],
    ),
]


@pytest.mark.parametrize("version", ["1.36", "1.37"])
@pytest.mark.parametrize(
    "incoming,nodes,pods,idx,node_name,want_counts,want_min", [c[1:] for c in REMOVE_POD], ids=[c[0] for c in REMOVE_POD]
)
def test_remove_pod(incoming, nodes, pods, idx, node_name, want_counts, want_min, version):
    pl, fwk = plugin_for(nodes, pods, version=KubeVersion(version))
    state = CycleState()
    pl.pre_filter(state, incoming, fwk.snapshot.list())
    ext = pl.pre_filter_extensions()
    assert ext.remove_pod(state, incoming, PodInfo(pods[idx]), fwk.snapshot.get(node_name)) is None
    s = state.read("PreFilterPodTopologySpread")
    assert s.tp_value_to_match_num == want_counts
    assert [s.min_match(i) for i in range(len(s.constraints))] == want_min


def test_add_pod_on_clone_leaves_original_untouched():
    # filtering.go Clone: AddPod on a cloned state (nominated pods, preemption) must not leak back.
    incoming = make_pod("p").label("foo", "").spread(1, "node", selector=FOO).obj()
    pl, fwk = plugin_for(FOUR_NODES, SPREAD_2103)
    state = CycleState()
    pl.pre_filter(state, incoming, fwk.snapshot.list())
    clone = state.clone()
    added = PodInfo(pod("p-x1", "node-x", {"foo": ""}))
    assert pl.add_pod(clone, incoming, added, fwk.snapshot.get("node-x")) is None
    assert clone.read("PreFilterPodTopologySpread").tp_value_to_match_num == [{"node-a": 2, "node-b": 1, "node-x": 1, "node-y": 3}]
    assert state.read("PreFilterPodTopologySpread").tp_value_to_match_num == [{"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 3}]
    # with node-x at 1 the minimum moves to 1: node-b (1 + 1 - 1) now fits, node-a still does not.
    assert pl.filter(clone, incoming, fwk.snapshot.get("node-b")) is None
    assert pl.filter(clone, incoming, fwk.snapshot.get("node-a")).code == U
    # a pod from another namespace changes nothing
    other = PodInfo(pod("q", "node-b", {"foo": ""}, ns="other"))
    pl.add_pod(clone, incoming, other, fwk.snapshot.get("node-b"))
    assert clone.read("PreFilterPodTopologySpread").tp_value_to_match_num[0]["node-b"] == 1


def test_critical_paths_vs_exact_minimum():
    # 1.36 keeps two critical paths (can overstate the minimum after updates); 1.37 is exact.
    # Domains A=1, B=1, C=1: adding to two of them leaves the true minimum at 1.
    nodes = [node(n, {"node": n}) for n in ("A", "B", "C")]
    pods = [pod(f"p-{n}", n, {"foo": ""}) for n in ("A", "B", "C")]
    incoming = make_pod("p").label("foo", "").spread(1, "node", selector=FOO).obj()
    mins = {}
    for version in ("1.36", "1.37"):
        pl, fwk = plugin_for(nodes, pods, version=KubeVersion(version))
        state = CycleState()
        pl.pre_filter(state, incoming, fwk.snapshot.list())
        for i, target in enumerate(("A", "B")):
            pl.add_pod(state, incoming, PodInfo(pod(f"n{i}", target, {"foo": ""})), fwk.snapshot.get(target))
        mins[version] = state.read("PreFilterPodTopologySpread").min_match(0)
    assert mins == {"1.36": 2, "1.37": 1}


def test_match_label_keys_merged_once():
    # common.go filterTopologySpreadConstraints: matchLabelKeys add `key In (value)`; merging a key
    # the API server already merged does not change the selector again.
    incoming = (
        make_pod("p")
        .labels({"foo": "", "app": "web"})
        .spread(
            1,
            "node",
            selector={"matchExpressions": [{"key": "foo", "operator": "Exists"}, {"key": "app", "operator": "In", "values": ["web"]}]},
            matchLabelKeys=["app"],
        )
        .obj()
    )
    pods = [
        pod("p-a1", "node-a", {"foo": "", "app": "web"}),
        pod("p-a2", "node-a", {"foo": "", "app": "db"}),
        pod("p-a3", "node-a", {"foo": "", "app": "db"}),
    ]
    nodes = [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"})]
    got, state = run_filter(incoming, nodes, pods)
    s = state.read("PreFilterPodTopologySpread")
    assert len(s.constraints[0].selector.match_expressions) == 2
    assert s.tp_value_to_match_num == [{"node-a": 1, "node-b": 0}]
    assert got == {"node-a": U, "node-b": S}
