"""PodTopologySpread PreScore / Score / NormalizeScore, default constraints, args and events,
from upstream scoring_test.go (pkg/scheduler/framework/plugins/podtopologyspread) unless stated."""

from __future__ import annotations

import pytest
from pts_helpers import BAR, FOO, TAINTS, node, plugin_for, pod

from kschedctl.api.objects import ClusterObjects
from kschedctl.api.types import GenericObject
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import ClusterEvent, Code, NodeScore, QueueingHint
from kschedctl.plugins.pod_topology_spread import plugin_spec
from kschedctl.testing import args_defaults, args_errors, make_pod
from kschedctl.versions import KubeVersion

H = "kubernetes.io/hostname"


def hn(name: str, **labels: str) -> object:
    return node(name, {H: name, **labels})


def foo_pods(spec: dict[str, int], labels: dict | None = None) -> list:
    return [pod(f"p-{n[-1]}{i}", n, labels or {"foo": ""}) for n, k in spec.items() for i in range(k)]


def run_score(incoming, nodes, failed, pods, **kw) -> list[tuple[str, int]]:
    pl, fwk = plugin_for(list(nodes) + list(failed), pods, **kw)
    state = CycleState()
    filtered = [fwk.snapshot.get(n.name) for n in nodes]
    st = pl.pre_score(state, incoming, filtered)
    assert st is None, st
    scores = []
    for info in filtered:
        value, st = pl.score(state, incoming, info)
        assert st is None
        scores.append(NodeScore(info.name, value))
    assert pl.score_extensions().normalize_score(state, incoming, scores) is None
    return [(s.name, s.score) for s in scores]


def spread(max_skew: int, key: str, selector=FOO, labels=None, **extra):
    b = make_pod("p").labels(labels or {"foo": ""}).spread(max_skew, key, "ScheduleAnyway", selector, **extra)
    return b


ABCD = [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")]
ZONED = [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-x", zone="zone2"), hn("node-y", zone="zone2")]
P_4_2_1_3 = foo_pods({"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3})
SVC = GenericObject.from_dict(
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "default"}, "spec": {"selector": {"foo": ""}}},
    namespaced=True,
)

SCORE_CASES = [
    # upstream: scoring_test.go TestPodTopologySpreadScore "one constraint on node, no existing pods"
    ("one constraint on node, no existing pods", spread(1, H).obj(), ABCD[:2], [], [], [("node-a", 100), ("node-b", 100)], {}),
    # upstream: TestPodTopologySpreadScore "one constraint on node, only one node is candidate"
    (
        "one constraint on node, only one node is candidate",
        spread(1, H).obj(),
        ABCD[:1],
        ABCD[1:2],
        foo_pods({"node-a": 2, "node-b": 1}),
        [("node-a", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "one constraint on node, all nodes have the same number of matching pods"
    (
        "one constraint on node, all nodes have the same number of matching pods",
        spread(1, H).obj(),
        ABCD[:2],
        [],
        foo_pods({"node-a": 1, "node-b": 1}),
        [("node-a", 100), ("node-b", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "one constraint on node, all 4 nodes are candidates"
    (
        "one constraint on node, all 4 nodes are candidates",
        spread(1, H).obj(),
        ABCD,
        [],
        foo_pods({"node-a": 2, "node-b": 1, "node-d": 3}),
        [("node-a", 20), ("node-b", 60), ("node-c", 100), ("node-d", 0)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "one constraint on node, null selector"
    (
        "one constraint on node, null selector",
        spread(1, H, selector=None).obj(),
        ABCD,
        [],
        foo_pods({"node-a": 2, "node-b": 1, "node-d": 3}),
        [("node-a", 100), ("node-b", 100), ("node-c", 100), ("node-d", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "one constraint on node, all 4 nodes are candidates, maxSkew=2"
    (
        "one constraint on node, all 4 nodes are candidates, maxSkew=2",
        spread(2, H).obj(),
        ABCD,
        [],
        foo_pods({"node-a": 2, "node-b": 1, "node-d": 3}),
        [("node-a", 33), ("node-b", 66), ("node-c", 100), ("node-d", 16)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "one constraint on node, all 4 nodes are candidates, maxSkew=3"
    (
        "one constraint on node, all 4 nodes are candidates, maxSkew=3",
        spread(3, H).obj(),
        ABCD,
        [],
        foo_pods({"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}),
        [("node-a", 44), ("node-b", 66), ("node-c", 77), ("node-d", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "system defaulting, nodes don't have zone, pods match service"
    (
        "system defaulting, nodes don't have zone, pods match service",
        make_pod("p").label("foo", "").obj(),
        ABCD,
        [],
        foo_pods({"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}),
        [("node-a", 44), ("node-b", 66), ("node-c", 77), ("node-d", 100)],
        {"objects": ClusterObjects(services=[SVC])},
    ),
    # upstream: TestPodTopologySpreadScore "one constraint on node, 3 out of 4 nodes are candidates"
    (
        "one constraint on node, 3 out of 4 nodes are candidates",
        spread(1, H).obj(),
        ZONED[:3],
        ZONED[3:],
        P_4_2_1_3,
        [("node-a", 33), ("node-b", 83), ("node-x", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "one constraint on node, 3 out of 4 nodes are candidates, one node
    # doesn't match topology key"
    (
        "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
        spread(1, H).obj(),
        [hn("node-a"), node("node-b", {"n": "node-b"}), hn("node-x")],
        [hn("node-y")],
        P_4_2_1_3,
        [("node-a", 16), ("node-b", 0), ("node-x", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "one constraint on zone, 3 out of 4 nodes are candidates"
    (
        "one constraint on zone, 3 out of 4 nodes are candidates",
        spread(1, "zone").obj(),
        ZONED[:3],
        ZONED[3:],
        P_4_2_1_3,
        [("node-a", 75), ("node-b", 75), ("node-x", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "two Constraints on zone and node, 2 out of 4 nodes are candidates"
    (
        "two Constraints on zone and node, 2 out of 4 nodes are candidates",
        spread(1, "zone").spread(1, H, "ScheduleAnyway", FOO).obj(),
        [ZONED[0], ZONED[2]],
        [ZONED[1], ZONED[3]],
        foo_pods({"node-a": 2, "node-b": 1, "node-x": 2, "node-y": 4}),
        [("node-a", 100), ("node-x", 63)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "two Constraints on zone and node, with different labelSelectors"
    (
        "two Constraints on zone and node, with different labelSelectors",
        spread(1, "zone", labels={"foo": "", "bar": ""}).spread(1, H, "ScheduleAnyway", BAR).obj(),
        ZONED,
        [],
        [
            pod("p-a1", "node-a", {"foo": ""}),
            pod("p-b1", "node-b", {"foo": "", "bar": ""}),
            pod("p-y1", "node-y", {"foo": ""}),
            pod("p-y2", "node-y", {"bar": ""}),
        ],
        [("node-a", 60), ("node-b", 20), ("node-x", 100), ("node-y", 60)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "two Constraints on zone and node, with different labelSelectors, some
    # nodes have 0 pods"
    (
        "two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
        spread(1, "zone", labels={"foo": "", "bar": ""}).spread(1, H, "ScheduleAnyway", BAR).obj(),
        ZONED,
        [],
        [pod("p-b1", "node-b", {"bar": ""}), pod("p-x1", "node-x", {"foo": ""}), pod("p-y1", "node-y", {"foo": "", "bar": ""})],
        [("node-a", 100), ("node-b", 60), ("node-x", 40), ("node-y", 0)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "two Constraints on zone and node, with different labelSelectors, 3 out
    # of 4 nodes are candidates"
    (
        "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
        spread(1, "zone", labels={"foo": "", "bar": ""}).spread(1, H, "ScheduleAnyway", BAR).obj(),
        ZONED[:3],
        ZONED[3:],
        [
            pod("p-a1", "node-a", {"foo": ""}),
            pod("p-b1", "node-b", {"foo": "", "bar": ""}),
            pod("p-y1", "node-y", {"foo": ""}),
            pod("p-y2", "node-y", {"bar": ""}),
        ],
        [("node-a", 50), ("node-b", 25), ("node-x", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "existing pods in a different namespace do not count"
    (
        "existing pods in a different namespace do not count",
        spread(1, H).obj(),
        ABCD[:2],
        [],
        [
            pod("p-a1", "node-a", {"foo": ""}, ns="ns1"),
            pod("p-a2", "node-a", {"foo": ""}),
            pod("p-b1", "node-b", {"foo": ""}),
            pod("p-b2", "node-b", {"foo": ""}),
        ],
        [("node-a", 100), ("node-b", 33)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "terminating Pods should be excluded"
    (
        "terminating Pods should be excluded",
        spread(1, H).obj(),
        ABCD[:2],
        [],
        [pod("p-a", "node-a", {"foo": ""}, terminating=True), pod("p-b", "node-b", {"foo": ""})],
        [("node-a", 100), ("node-b", 0)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "minDomains has no effect when ScheduleAnyway"
    (
        "minDomains has no effect when ScheduleAnyway",
        spread(2, "node", minDomains=10).obj(),
        [node(n, {"node": n}) for n in ("node-a", "node-b", "node-c")],
        [],
        foo_pods({"node-a": 2, "node-b": 2, "node-c": 1}),
        [("node-a", 75), ("node-b", 75), ("node-c", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "NodeAffinityPolicy honoed with labelSelectors"
    (
        "NodeAffinityPolicy honoed with labelSelectors",
        spread(1, "node").node_selector({"foo": ""}).obj(),
        [node("node-a", {"node": "node-a", "foo": ""}), node("node-b", {"node": "node-b", "foo": ""}), node("node-c", {"node": "node-c"})],
        [],
        foo_pods({"node-a": 2, "node-b": 1, "node-c": 1}),
        [("node-a", 0), ("node-b", 33), ("node-c", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "NodeAffinityPolicy ignored with labelSelectors"
    (
        "NodeAffinityPolicy ignored with labelSelectors",
        spread(1, "node", nodeAffinityPolicy="Ignore").node_selector({"foo": ""}).obj(),
        [node("node-a", {"node": "node-a", "foo": ""}), node("node-b", {"node": "node-b", "foo": ""}), node("node-c", {"node": "node-c"})],
        [],
        foo_pods({"node-a": 2, "node-b": 1, "node-c": 1}),
        [("node-a", 66), ("node-b", 100), ("node-c", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "NodeAffinityPolicy honoed with nodeAffinity"
    (
        "NodeAffinityPolicy honoed with nodeAffinity",
        spread(1, "node").node_affinity_in("foo", [""]).obj(),
        [node("node-a", {"node": "node-a", "foo": ""}), node("node-b", {"node": "node-b", "foo": ""}), node("node-c", {"node": "node-c"})],
        [],
        foo_pods({"node-a": 2, "node-b": 1, "node-c": 1}),
        [("node-a", 0), ("node-b", 33), ("node-c", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "NodeTaintsPolicy honored"
    (
        "NodeTaintsPolicy honored",
        spread(1, "node", nodeTaintsPolicy="Honor").obj(),
        [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"}), node("node-c", {"node": "node-c"}, TAINTS)],
        [],
        foo_pods({"node-a": 2, "node-b": 1, "node-c": 1}),
        [("node-a", 0), ("node-b", 33), ("node-c", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "NodeTaintsPolicy ignored"
    (
        "NodeTaintsPolicy ignored",
        spread(1, "node").obj(),
        [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"}), node("node-c", {"node": "node-c"}, TAINTS)],
        [],
        foo_pods({"node-a": 2, "node-b": 1, "node-c": 1}),
        [("node-a", 66), ("node-b", 100), ("node-c", 100)],
        {},
    ),
]

_MLK_NODES = [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-c", zone="zone2"), hn("node-d", zone="zone2")]
_MLK_PODS = [
    pod("p-a1", "node-a", {"foo": ""}),
    pod("p-b1", "node-b", {"foo": "", "bar": ""}),
    pod("p-y1", "node-c", {"foo": ""}),
    pod("p-y2", "node-c", {"bar": ""}),
]
SCORE_CASES += [
    # upstream: TestPodTopologySpreadScore "matchLabelKeys ignored when feature gate disabled"
    (
        "matchLabelKeys ignored when feature gate disabled",
        spread(1, "zone", labels={"foo": "", "bar": "", "baz": ""}, matchLabelKeys=["baz"])
        .spread(1, H, "ScheduleAnyway", BAR, matchLabelKeys=["baz"])
        .obj(),
        _MLK_NODES,
        [],
        _MLK_PODS,
        [("node-a", 60), ("node-b", 20), ("node-c", 60), ("node-d", 100)],
        {"version": KubeVersion().with_gates(MatchLabelKeysInPodTopologySpread=False)},
    ),
    # upstream: TestPodTopologySpreadScore "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty"
    (
        "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        spread(1, "zone", selector={}, labels={"foo": "", "bar": ""}, matchLabelKeys=["foo"])
        .spread(1, H, "ScheduleAnyway", {}, matchLabelKeys=["bar"])
        .obj(),
        _MLK_NODES,
        [],
        _MLK_PODS,
        [("node-a", 60), ("node-b", 20), ("node-c", 60), ("node-d", 100)],
        {},
    ),
    # upstream: TestPodTopologySpreadScore "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty"
    (
        "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        spread(1, "zone", labels={"foo": "", "bar": "", "baz": ""}).spread(1, H, "ScheduleAnyway", BAR, matchLabelKeys=["baz"]).obj(),
        _MLK_NODES,
        [],
        [
            pod("p-a1", "node-a", {"foo": ""}),
            pod("p-b1", "node-b", {"foo": "", "bar": "", "baz": ""}),
            pod("p-c1", "node-c", {"foo": ""}),
            pod("p-c2", "node-c", {"bar": ""}),
            pod("p-d3", "node-c", {"bar": "", "baz": ""}),
        ],
        [("node-a", 60), ("node-b", 20), ("node-c", 60), ("node-d", 100)],
        {},
    ),
]


@pytest.mark.parametrize("incoming,nodes,failed,pods,want,kw", [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES])
def test_score(incoming, nodes, failed, pods, want, kw):
    assert run_score(incoming, nodes, failed, pods, **kw) == want


def test_system_defaults_zone_and_hostname():
    # plugin.go systemDefaultConstraints (hostname/3, zone/5) with the Service-derived selector:
    # zone1 holds 3 matching pods (a:2, b:1), zone2 1 (x:1). Weights: hostname ln(4+2), zone ln(2+2).
    incoming = make_pod("p").label("foo", "").obj()
    pods = foo_pods({"node-a": 2, "node-b": 1, "node-x": 1})
    zoned = [
        hn(n, **{"topology.kubernetes.io/zone": z})
        for n, z in (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"), ("node-y", "zone2"))
    ]
    got = run_score(incoming, zoned, [], pods, objects=ClusterObjects(services=[SVC]))
    # raw: a = round(2*ln6+2 + 3*ln4+4) = 14, b = round(ln6+2 + 3*ln4+4) = 12, x = round(ln6+2 + ln4+4) = 9,
    # y = round(2 + ln4+4) = 7; normalized 100*(14+7-raw)/14
    assert got == [("node-a", 50), ("node-b", 64), ("node-x", 85), ("node-y", 100)]


def test_pre_score_skips_without_soft_constraints_or_default_selector():
    # scoring.go PreScore: Skip when the pod has no soft constraints; buildDefaultConstraints: no
    # Service/owner selects the pod -> empty selector -> no default constraints.
    pl, fwk = plugin_for(ABCD, [])
    nodes = fwk.snapshot.list()
    assert pl.pre_score(CycleState(), make_pod("p").label("foo", "").obj(), nodes).code == Code.Skip
    hard = make_pod("p").label("foo", "").spread(1, H, "DoNotSchedule", FOO).obj()
    assert pl.pre_score(CycleState(), hard, nodes).code == Code.Skip


def _owned(kind: str, api: str) -> object:
    return (
        make_pod("p")
        .labels({"app": "web", "tier": "fe"})
        .set("metadata.ownerReferences", [{"apiVersion": api, "kind": kind, "name": "owner", "controller": True}])
        .obj()
    )


@pytest.mark.parametrize(
    "kind,api,collection,selector",
    [
        ("ReplicaSet", "apps/v1", "replica_sets", {"matchLabels": {"app": "web"}}),
        ("StatefulSet", "apps/v1", "stateful_sets", {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}),
        ("ReplicationController", "v1", "replication_controllers", {"app": "web"}),
    ],
)
def test_default_selector_from_controller(kind, api, collection, selector):
    # helper/spread.go DefaultSelector: the controller owner's selector becomes the spreading selector.
    owner = GenericObject.from_dict(
        {"apiVersion": api, "kind": kind, "metadata": {"name": "owner", "namespace": "default"}, "spec": {"selector": selector}},
        namespaced=True,
    )
    objects = ClusterObjects(**{collection: [owner]})
    pods = [pod("w1", "node-a", {"app": "web"}), pod("w2", "node-a", {"app": "web"}), pod("d1", "node-b", {"app": "db"})]
    got = run_score(_owned(kind, api), ABCD[:2], [], pods, objects=objects)
    # hostname/3 (weight ln(2+2)): raw a = round(2*ln4 + 2) = 5, b = 2; the nodes have no zone label, so
    # the zone/5 default is skipped at Score. Normalized 100*(5+2-raw)/5.
    assert got == [("node-a", 40), ("node-b", 100)]


def test_list_defaulting_uses_args_constraints():
    # plugin.go: defaultingType List uses args.defaultConstraints (here hard, so Filter applies), and
    # requireAllTopologies holds for them.
    args = {"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"}]}
    nodes = [node(n, {"node": n}) for n in ("node-a", "node-b")]
    pods = foo_pods({"node-a": 1})
    pl, fwk = plugin_for(nodes, pods, args=args, objects=ClusterObjects(services=[SVC]))
    state = CycleState()
    incoming = make_pod("p").label("foo", "").obj()
    _, st = pl.pre_filter(state, incoming, fwk.snapshot.list())
    assert st is None
    assert pl.filter(state, incoming, fwk.snapshot.get("node-a")).code == Code.Unschedulable
    assert pl.filter(state, incoming, fwk.snapshot.get("node-b")) is None


VALIDATION = [
    # upstream: validation_pluginargs_test.go TestValidatePodTopologySpreadArgs cases
    (
        "valid config",
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"},
                {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},
            ],
        },
        [],
    ),
    (
        "maxSkew less than zero",
        {"defaultingType": "List", "defaultConstraints": [{"maxSkew": -1, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"}]},
        [("defaultConstraints[0].maxSkew", "Invalid value: -1: not in valid range (0, inf)")],
    ),
    (
        "empty topology key",
        {"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": "DoNotSchedule"}]},
        [("defaultConstraints[0].topologyKey", "Required value: can not be empty")],
    ),
    (
        "whenUnsatisfiable is empty",
        {"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": ""}]},
        [("defaultConstraints[0].whenUnsatisfiable", "Required value: can not be empty")],
    ),
    (
        "whenUnsatisfiable contains unsupported action",
        {"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": "unknown action"}]},
        [
            (
                "defaultConstraints[0].whenUnsatisfiable",
                'Unsupported value: "unknown action": supported values: "DoNotSchedule", "ScheduleAnyway"',
            )
        ],
    ),
    (
        "duplicated constraints",
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"},
                {"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"},
            ],
        },
        [("defaultConstraints[1]", 'Duplicate value: "{node, DoNotSchedule}"')],
    ),
    (
        "label selector present",
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": "key", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"a": "b"}}}
            ],
        },
        [("defaultConstraints[0].labelSelector", "Forbidden: constraint must not define a selector, as they deduced for each pod")],
    ),
    ("list default constraints, no constraints", {"defaultingType": "List"}, []),
    ("system default constraints", {"defaultingType": "System"}, []),
    (
        "wrong constraints",
        {"defaultingType": "System", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"}]},
        [("defaultingType", 'Invalid value: "System": when .defaultConstraints are not empty')],
    ),
    (
        "unsupported defaultingType",
        {"defaultingType": "Foo"},
        [("defaultingType", 'Unsupported value: "Foo": supported values: "System", "List"')],
    ),
    (
        "invalid topologyKey",
        {"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "a/b/c", "whenUnsatisfiable": "DoNotSchedule"}]},
        [
            (
                "defaultConstraints[0].topologyKey",
                "Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and "
                "must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
                "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
                "'/' (e.g. 'example.com/MyName')",
            )
        ],
    ),
]


@pytest.mark.parametrize("args,want", [c[1:] for c in VALIDATION], ids=[c[0] for c in VALIDATION])
def test_validate_args(args, want):
    spec = plugin_spec()
    assert spec.args_kind == "PodTopologySpreadArgs"
    assert args_errors(spec.args_type, args, KubeVersion()) == want


def test_default_args():
    # v1 defaults.go SetDefaults_PodTopologySpreadArgs: defaultingType System when unset
    spec = plugin_spec()
    assert args_defaults(spec.args_type, None, KubeVersion()) == {"defaultingType": "System"}
    assert args_defaults(spec.args_type, {"defaultingType": "List"}, KubeVersion()) == {"defaultingType": "List"}


def test_events_to_register():
    # plugin.go EventsToRegister (QueueingHints on): Pod Add|UpdatePodLabel|UpdatePodToleration|Delete,
    # Node Add|Delete|UpdateNodeLabel|UpdateNodeTaint
    pl, _ = plugin_for(ABCD, [])
    got = [(e.event.resource, e.event.action) for e in pl.events_to_register()]
    assert got == [
        ("Pod", "Add"),
        ("Pod", "UpdatePodLabel"),
        ("Pod", "UpdatePodToleration"),
        ("Pod", "Delete"),
        ("Node", "Add"),
        ("Node", "Delete"),
        ("Node", "UpdateNodeLabel"),
        ("Node", "UpdateNodeTaint"),
    ]
    assert all(e.queueing_hint_fn is not None for e in pl.events_to_register())
    assert isinstance(pl.events_to_register()[0].event, ClusterEvent)


def test_queueing_hints():
    # plugin_test.go Test_isSchedulableAfterPodChange / Test_isSchedulableAfterNodeChange (selected cases)
    pl, _ = plugin_for(ABCD, [])
    target = make_pod("p").label("foo", "").spread(1, "zone", "DoNotSchedule", FOO).obj()
    # "add pod with labels match topologySpread selector"
    assert pl.is_schedulable_after_pod_change(target, None, pod("q", "node-a", {"foo": ""})) == QueueingHint.Queue
    # "add un-scheduled pod"
    assert pl.is_schedulable_after_pod_change(target, None, pod("q", "", {"foo": ""})) == QueueingHint.QueueSkip
    # "add pod with different namespace"
    assert pl.is_schedulable_after_pod_change(target, None, pod("q", "node-a", {"foo": ""}, ns="ns")) == QueueingHint.QueueSkip
    # "update pod but not change labels"
    old, new = pod("q", "node-a", {"foo": ""}), pod("q", "node-a", {"foo": ""})
    assert pl.is_schedulable_after_pod_change(target, old, new) == QueueingHint.QueueSkip
    # "delete pod with labels that match topologySpread selector"
    assert pl.is_schedulable_after_pod_change(target, old, None) == QueueingHint.Queue
    # node: "add node with the same topology key" / "add node without the topology key"
    assert pl.is_schedulable_after_node_change(target, None, node("n", {"zone": "z"})) == QueueingHint.Queue
    assert pl.is_schedulable_after_node_change(target, None, node("n", {"foo": "z"})) == QueueingHint.QueueSkip
    # "update node with different topology value"
    assert pl.is_schedulable_after_node_change(target, node("n", {"zone": "a"}), node("n", {"zone": "b"})) == QueueingHint.Queue
    assert (
        pl.is_schedulable_after_node_change(target, node("n", {"zone": "a"}), node("n", {"zone": "a", "x": "y"})) == QueueingHint.QueueSkip
    )
