"""InterPodAffinity PreFilter/Filter, from upstream interpodaffinity/filtering_test.go.

Upstream's default namespace "" is our "default"; unnamed upstream pods get names p0, p1, ...
"""

from __future__ import annotations

from typing import Any

import pytest
from inter_pod_affinity_helpers import (
    TEAM1_SELECTOR,
    TEAM_NAMESPACES,
    multi_term,
    new_plugin,
    node,
    pods_named,
    term,
)

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, QueueingHint, Status
from kschedctl.framework.types import PodInfo
from kschedctl.plugins.inter_pod_affinity import plugin_spec
from kschedctl.plugins.inter_pod_affinity.args import InterPodAffinityArgs
from kschedctl.plugins.inter_pod_affinity.plugin import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH as AFF,
)
from kschedctl.plugins.inter_pod_affinity.plugin import (
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH as ANTI,
)
from kschedctl.plugins.inter_pod_affinity.plugin import (
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH as EXISTING,
)
from kschedctl.plugins.inter_pod_affinity.plugin import (
    PRE_FILTER_STATE_KEY,
    PreFilterState,
)
from kschedctl.testing import args_defaults, args_errors, make_pod


def default_args(args: dict | None, version: Any = None) -> dict:
    return args_defaults(InterPodAffinityArgs, args, version)


def validate_args(args: dict, version: Any = None) -> list:
    return args_errors(InterPodAffinityArgs, args, version)


UAU = lambda reason: Status(Code.UnschedulableAndUnresolvable, reason)  # noqa: E731
UNS = lambda reason: Status(Code.Unschedulable, reason)  # noqa: E731
SKIP = Status(Code.Skip)

POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = node("node1", {"region": "r1", "zone": "z11"})


def _existing():
    return make_pod("x").labels(POD_LABEL).node("node1")


def _with_terms(ns: str, labels: dict, affinity: list[dict] | None, anti: list[dict] | None):
    """createPodWithAffinityTerms: both podAffinity and podAntiAffinity present (possibly empty)."""
    return (
        make_pod("incoming", ns)
        .labels(labels)
        .affinity(
            {
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": affinity or []},
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": anti or []},
            }
        )
    )


def _run(pod, pods, nodes, namespaces=None):
    pl, snapshot = new_plugin(nodes, pods_named(pods), namespaces=namespaces)
    state = CycleState()
    _, pre = pl.pre_filter(state, pod.obj(), snapshot.list())
    if pre is not None and not pre.is_success():
        return pre, None
    return pre, [pl.filter(state, pod.obj(), snapshot.get(n.name)) for n in nodes]


# upstream: filtering_test.go TestRequiredAffinitySingleNode (cases named as upstream)
SINGLE_NODE = [
    (
        "A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
        make_pod("incoming"),
        [],
        SKIP,
        None,
    ),
    (
        "satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
        make_pod("incoming").labels(POD_LABEL2).pod_affinity_in("service", "region", ["securityscan", "value2"]),
        [_existing()],
        None,
        None,
    ),
    (
        "satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
        make_pod("incoming").labels(POD_LABEL2).pod_affinity_not_in("service", "region", ["securityscan3", "value3"]),
        [_existing()],
        None,
        None,
    ),
    (
        "Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
        _with_terms("default", POD_LABEL2, [term("service", "In", ["securityscan", "value2"], namespaces=["DiffNameSpace"])], None),
        [make_pod("x", "ns").label("service", "securityscan").node("node1")],
        None,
        UAU(AFF),
    ),
    (
        "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
        make_pod("incoming").labels(POD_LABEL).pod_affinity_in("service", "", ["antivirusscan", "value2"]),
        [_existing()],
        None,
        UAU(AFF),
    ),
    (
        "satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution",
        _with_terms(
            "default",
            POD_LABEL2,
            [
                multi_term([{"key": "service", "operator": "Exists"}, {"key": "wrongkey", "operator": "DoesNotExist"}], "region"),
                multi_term(
                    [
                        {"key": "service", "operator": "In", "values": ["securityscan"]},
                        {"key": "service", "operator": "NotIn", "values": ["WrongValue"]},
                    ],
                    "region",
                ),
            ],
            None,
        ),
        [_existing()],
        None,
        None,
    ),
    (
        "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
        _with_terms(
            "default",
            POD_LABEL2,
            [
                multi_term([{"key": "service", "operator": "Exists"}, {"key": "wrongkey", "operator": "DoesNotExist"}], "region"),
                multi_term(
                    [
                        {"key": "service", "operator": "In", "values": ["securityscan2"]},
                        {"key": "service", "operator": "NotIn", "values": ["WrongValue"]},
                    ],
                    "region",
                ),
            ],
            None,
        ),
        [_existing()],
        None,
        UAU(AFF),
    ),
    (
        "satisfies the PodAffinity and PodAntiAffinity with the existing pod",
        make_pod("incoming")
        .labels(POD_LABEL2)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_affinity_in("service", "node", ["antivirusscan", "value2"], anti=True),
        [_existing()],
        None,
        None,
    ),
    (
        "satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
        make_pod("incoming")
        .labels(POD_LABEL2)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_affinity_in("service", "node", ["antivirusscan", "value2"], anti=True),
        [_existing().pod_affinity_in("service", "node", ["antivirusscan", "value2"], anti=True)],
        None,
        None,
    ),
    (
        "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
        make_pod("incoming")
        .labels(POD_LABEL2)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_affinity_in("service", "zone", ["securityscan", "value2"], anti=True),
        [_existing()],
        None,
        UNS(ANTI),
    ),
    (
        "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
        make_pod("incoming")
        .labels(POD_LABEL)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_affinity_in("service", "node", ["antivirusscan", "value2"], anti=True),
        [_existing().pod_affinity_in("service", "zone", ["securityscan", "value2"], anti=True)],
        None,
        UNS(EXISTING),
    ),
    (
        "pod matches its own Label in PodAffinity and that matches the existing pod Labels",
        make_pod("incoming").labels(POD_LABEL).pod_affinity_not_in("service", "region", ["securityscan", "value2"]),
        [make_pod("x").label("service", "securityscan").node("node2")],
        None,
        UAU(AFF),
    ),
    (
        "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
        make_pod("incoming").labels(POD_LABEL),
        [_existing().pod_affinity_in("service", "zone", ["securityscan", "value2"], anti=True)],
        None,
        UNS(EXISTING),
    ),
    (
        "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
        make_pod("incoming").labels(POD_LABEL),
        [_existing().pod_affinity_not_in("service", "zone", ["securityscan", "value2"], anti=True)],
        SKIP,
        None,
    ),
    (
        "satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
        make_pod("incoming")
        .labels(POD_LABEL)
        .pod_affinity_exists("service", "region", anti=True)
        .pod_affinity_exists("security", "region", anti=True),
        [make_pod("x").labels(POD_LABEL2).node("node1").pod_affinity_exists("security", "zone", anti=True)],
        None,
        UNS(ANTI),
    ),
    (
        "PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms",
        make_pod("incoming")
        .labels(POD_LABEL)
        .pod_affinity_exists("service", "zone", anti=True)
        .pod_affinity_exists("security", "zone", anti=True),
        [make_pod("x").labels(POD_LABEL2).node("node1").pod_affinity_exists("security", "zone", anti=True)],
        None,
        UNS(ANTI),
    ),
    (
        "PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
        make_pod("incoming").labels(POD_LABEL2).pod_affinity_exists("security", "zone", anti=True),
        [
            make_pod("x")
            .labels(POD_LABEL)
            .node("node1")
            .pod_affinity_exists("service", "zone", anti=True)
            .pod_affinity_exists("security", "zone", anti=True)
        ],
        None,
        UNS(EXISTING),
    ),
    (
        "PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
        make_pod("incoming")
        .labels({"abc": "", "xyz": ""})
        .pod_affinity_exists("abc", "zone", anti=True)
        .pod_affinity_exists("def", "zone", anti=True),
        [
            make_pod("x")
            .labels({"def": "", "xyz": ""})
            .node("node1")
            .pod_affinity_exists("abc", "zone", anti=True)
            .pod_affinity_exists("def", "zone", anti=True)
        ],
        None,
        UNS(ANTI),
    ),
    (
        "PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
        make_pod("incoming")
        .labels({"def": "", "xyz": ""})
        .pod_affinity_exists("abc", "zone", anti=True)
        .pod_affinity_exists("def", "zone", anti=True),
        [
            make_pod("x")
            .labels({"abc": "", "xyz": ""})
            .node("node1")
            .pod_affinity_exists("abc", "zone", anti=True)
            .pod_affinity_exists("def", "zone", anti=True)
        ],
        None,
        UNS(ANTI),
    ),
    (
        "affinity with NamespaceSelector",
        _with_terms("default", POD_LABEL2, [term("service", "In", ["securityscan", "value2"], "region", ns_selector=TEAM1_SELECTOR)], None),
        [make_pod("x", "subteam1.team1").labels(POD_LABEL).node("node1")],
        None,
        None,
    ),
    (
        "affinity with non-matching NamespaceSelector",
        _with_terms("default", POD_LABEL2, [term("service", "In", ["securityscan", "value2"], "region", ns_selector=TEAM1_SELECTOR)], None),
        [make_pod("x", "subteam1.team2").labels(POD_LABEL).node("node1")],
        None,
        UAU(AFF),
    ),
    (
        "anti-affinity with matching NamespaceSelector",
        _with_terms(
            "subteam1.team1", POD_LABEL2, None, [term("service", "In", ["securityscan", "value2"], "zone", ns_selector=TEAM1_SELECTOR)]
        ),
        [make_pod("x", "subteam2.team1").labels(POD_LABEL).node("node1")],
        None,
        UNS(ANTI),
    ),
    (
        "anti-affinity with matching all NamespaceSelector",
        _with_terms("subteam1.team1", POD_LABEL2, None, [term("service", "In", ["securityscan", "value2"], "zone", ns_selector={})]),
        [make_pod("x", "subteam2.team1").labels(POD_LABEL).node("node1")],
        None,
        UNS(ANTI),
    ),
    (
        "anti-affinity with non-matching NamespaceSelector",
        _with_terms(
            "subteam1.team1", POD_LABEL2, None, [term("service", "In", ["securityscan", "value2"], "zone", ns_selector=TEAM1_SELECTOR)]
        ),
        [make_pod("x", "subteam1.team2").labels(POD_LABEL).node("node1")],
        None,
        None,
    ),
]


@pytest.mark.parametrize("name,pod,pods,want_pre,want_filter", SINGLE_NODE, ids=[c[0][:90] for c in SINGLE_NODE])
def test_required_affinity_single_node(name, pod, pods, want_pre, want_filter):
    pre, filters = _run(pod, pods, [NODE1], TEAM_NAMESPACES)
    assert pre == want_pre
    if filters is not None:
        assert filters == [want_filter]
        if want_filter is not None:
            assert filters[0].code == want_filter.code and filters[0].reasons == want_filter.reasons


RG_CHINA = {"region": "China"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
RG_INDIA = {"region": "India"}


def _n(name, **labels):
    return node(name, labels)


THREE_AB = [_n("nodeA", region="r1", zone="z1", hostname="nodeA"), _n("nodeB", region="r1", zone="z2", hostname="nodeB")]

# upstream: filtering_test.go TestRequiredAffinityMultipleNodes (cases named as upstream)
MULTI_NODE = [
    (
        "A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules",
        make_pod("incoming").pod_affinity_in("foo", "region", ["bar"]),
        [make_pod("p1").node("node1").labels({"foo": "bar"})],
        [node("node1", RG_CHINA), node("node2", RG_CHINA_AZ1), node("node3", RG_INDIA)],
        None,
        [None, None, UAU(AFF)],
    ),
    (
        "The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection should not be blocked from being scheduled onto any node, even there's no existing pod that matches the rule anywhere.",
        make_pod("incoming")
        .labels({"foo": "bar", "service": "securityscan"})
        .pod_affinity_in("foo", "zone", ["bar"])
        .pod_affinity_in("service", "zone", ["securityscan"]),
        [make_pod("p1").node("nodeA").labels({"foo": "bar"})],
        [_n("nodeA", zone="az1", hostname="h1"), _n("nodeB", zone="az2", hostname="h2")],
        None,
        [None, None],
    ),
    (
        "The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
        make_pod("incoming")
        .labels({"foo": "bar", "service": "securityscan"})
        .pod_affinity_in("foo", "zone", ["bar"])
        .pod_affinity_in("service", "zone", ["securityscan"]),
        [make_pod("p1").node("nodeA").labels({"foo": "bar"})],
        [_n("nodeA", zoneLabel="az1", hostname="h1"), _n("nodeB", zoneLabel="az2", hostname="h2")],
        None,
        [UAU(AFF), UAU(AFF)],
    ),
    (
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
        make_pod("incoming").pod_affinity_in("foo", "region", ["abc"], anti=True),
        [make_pod("p").node("nodeA").labels({"foo": "abc"})],
        [_n("nodeA", region="r1", hostname="nodeA"), _n("nodeB", region="r1", hostname="nodeB")],
        None,
        [UNS(ANTI), UNS(ANTI)],
    ),
    (
        "This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
        make_pod("incoming")
        .pod_affinity_in("foo", "region", ["abc"], anti=True)
        .pod_affinity_in("service", "zone", ["securityscan"], anti=True),
        [make_pod("p").node("nodeA").labels({"foo": "abc", "service": "securityscan"})],
        [_n("nodeA", region="r1", zone="z1", hostname="nodeA"), _n("nodeB", region="r1", zone="z2", hostname="nodeB")],
        None,
        [UNS(ANTI), UNS(ANTI)],
    ),
    (
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
        make_pod("incoming").pod_affinity_in("foo", "region", ["abc"], anti=True),
        [make_pod("p").node("nodeA").labels({"foo": "abc"})],
        [node("nodeA", RG_CHINA), node("nodeB", RG_CHINA_AZ1), node("nodeC", RG_INDIA)],
        None,
        [UNS(ANTI), UNS(ANTI), None],
    ),
    (
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
        make_pod("incoming", "NS1").labels({"foo": "123"}).pod_affinity_in("foo", "region", ["bar"], anti=True),
        [
            make_pod("p", "NS1").node("nodeA").labels({"foo": "bar"}),
            make_pod("p", "NS2").node("nodeC").pod_affinity_in("foo", "region", ["123"], anti=True),
        ],
        [node("nodeA", RG_CHINA), node("nodeB", RG_CHINA_AZ1), node("nodeC", RG_INDIA)],
        None,
        [UNS(ANTI), UNS(ANTI), None],
    ),
    (
        "Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
        make_pod("incoming").label("foo", ""),
        [make_pod("p").node("nodeA").pod_affinity_exists("foo", "invalid-node-label", anti=True)],
        [_n("nodeA", region="r1", zone="z1", hostname="nodeA"), _n("nodeB", region="r1", zone="z1", hostname="nodeB")],
        SKIP,
        None,
    ),
    (
        "Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
        make_pod("incoming").node("nodeA").pod_affinity_exists("foo", "invalid-node-label", anti=True),
        [make_pod("p").node("nodeA").labels({"foo": ""})],
        [_n("nodeA", region="r1", zone="z1", hostname="nodeA"), _n("nodeB", region="r1", zone="z1", hostname="nodeB")],
        None,
        [None, None],
    ),
    (
        "Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each existingPod's terms on all nodes",
        make_pod("incoming").label("foo", "").label("bar", ""),
        [
            make_pod("p").node("nodeA").pod_affinity_exists("foo", "zone", anti=True),
            make_pod("p").node("nodeA").pod_affinity_exists("bar", "region", anti=True),
        ],
        THREE_AB,
        None,
        [UNS(EXISTING), UNS(EXISTING)],
    ),
    (
        "Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates one anti-affinity rule of existingPod",
        make_pod("incoming").pod_affinity_exists("foo", "zone", anti=True).pod_affinity_exists("bar", "region", anti=True),
        [make_pod("p").node("nodeA").labels({"foo": ""}), make_pod("p").node("nodeB").labels({"bar": ""})],
        THREE_AB,
        None,
        [UNS(ANTI), UNS(ANTI)],
    ),
    (
        "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
        make_pod("incoming").label("foo", "").label("bar", ""),
        [
            make_pod("p")
            .node("nodeA")
            .pod_affinity_exists("foo", "invalid-node-label", anti=True)
            .pod_affinity_exists("bar", "zone", anti=True)
        ],
        THREE_AB,
        None,
        [UNS(EXISTING), None],
    ),
    (
        "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
        make_pod("incoming").pod_affinity_exists("foo", "invalid-node-label", anti=True).pod_affinity_exists("bar", "zone", anti=True),
        [make_pod("podA").node("nodeA").labels({"foo": "", "bar": ""})],
        THREE_AB,
        None,
        [UNS(ANTI), None],
    ),
    (
        "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
        make_pod("incoming").label("foo", "").label("bar", ""),
        [make_pod("p").node("nodeA").pod_affinity_exists("foo", "region", anti=True).pod_affinity_exists("bar", "zone", anti=True)],
        THREE_AB,
        None,
        [UNS(EXISTING), UNS(EXISTING)],
    ),
    (
        "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
        make_pod("incoming").pod_affinity_exists("foo", "region", anti=True).pod_affinity_exists("bar", "zone", anti=True),
        [make_pod("p").node("nodeA").labels({"foo": "", "bar": ""})],
        THREE_AB,
        None,
        [UNS(ANTI), UNS(ANTI)],
    ),
    (
        "Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
        make_pod("incoming").label("foo", "").label("bar", ""),
        [
            make_pod("p").node("nodeA").pod_affinity_exists("foo", "zone", anti=True).pod_affinity_exists("labelA", "zone", anti=True),
            make_pod("p").node("nodeB").pod_affinity_exists("bar", "zone", anti=True).pod_affinity_exists("labelB", "zone", anti=True),
        ],
        THREE_AB + [_n("nodeC", region="r1", zone="z3", hostname="nodeC")],
        None,
        [UNS(EXISTING), UNS(EXISTING), None],
    ),
    (
        "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match",
        make_pod("incoming").pod_affinity_exists("foo", "region").pod_affinity_exists("bar", "zone"),
        [make_pod("pod1").labels({"foo": "", "bar": ""}).node("nodeA")],
        [_n("nodeA", region="r1", zone="z1", hostname="nodeA"), _n("nodeB", region="r1", zone="z1", hostname="nodeB")],
        None,
        [None, None],
    ),
    (
        "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match, and the match logic should be satisfied on the same pod",
        make_pod("incoming").pod_affinity_exists("foo", "region").pod_affinity_exists("bar", "zone"),
        [make_pod("pod1").node("nodeA").labels({"foo": ""}), make_pod("pod2").node("nodeB").labels({"bar": ""})],
        THREE_AB,
        None,
        [UAU(AFF), UAU(AFF)],
    ),
]


@pytest.mark.parametrize("name,pod,pods,nodes,want_pre,want_filters", MULTI_NODE, ids=[c[0][:90] for c in MULTI_NODE])
def test_required_affinity_multiple_nodes(name, pod, pods, nodes, want_pre, want_filters):
    pre, filters = _run(pod, pods, nodes, {"NS1": {}})
    assert pre == want_pre
    if filters is not None:
        assert filters == want_filters
        for got, want in zip(filters, want_filters):
            if want is not None:
                assert (got.code, got.reasons) == (want.code, want.reasons)


def test_pre_filter_disabled():
    # upstream: filtering_test.go TestPreFilterDisabled
    pl, snapshot = new_plugin([NODE1], [])
    status = pl.filter(CycleState(), make_pod("p").obj(), snapshot.get("node1"))
    assert status.code == Code.Error
    assert status.reasons == ['error reading "PreFilterInterPodAffinity" from cycleState: not found']


# upstream: filtering_test.go TestPreFilterStateAddRemovePod
ANTI_FOO_BAR = [term("foo", "In", ["bar"], "region")]
COMPLEX = [term("foo", "In", ["bar", "buzz"], "region"), term("service", "NotIn", ["bar", "security", "test"], "zone")]
ADD_REMOVE_NODES = [
    node("nodeA", {"region": "r1", "zone": "z11"}),
    node("nodeB", {"region": "r1", "zone": "z12"}),
    node("nodeC", {"region": "r2", "zone": "z21"}),
]


def _aff(affinity=None, anti=None):
    out = {}
    if affinity is not None:
        out["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": affinity}
    if anti is not None:
        out["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": anti}
    return out


ADD_REMOVE = [
    (
        "preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
        _aff(anti=ANTI_FOO_BAR),
        _aff(anti=ANTI_FOO_BAR),
        "nodeB",
        _aff(anti=ANTI_FOO_BAR),
        {("region", "r1"): 2},
        {},
    ),
    (
        "preFilterState anti-affinity terms are updated correctly after adding and removing a pod (complex)",
        _aff(anti=COMPLEX),
        _aff(anti=ANTI_FOO_BAR),
        "nodeA",
        _aff(anti=COMPLEX),
        {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1},
        {},
    ),
    (
        "preFilterState matching pod affinity and anti-affinity are updated correctly after adding and removing a pod",
        _aff(affinity=COMPLEX),
        _aff(affinity=COMPLEX, anti=ANTI_FOO_BAR),
        "nodeA",
        _aff(anti=COMPLEX),
        {},
        {("region", "r1"): 2, ("zone", "z11"): 2},
    ),
]


@pytest.mark.parametrize("name,pending_aff,p2_aff,added_node,added_aff,want_anti,want_aff", ADD_REMOVE, ids=[c[0] for c in ADD_REMOVE])
def test_pre_filter_state_add_remove_pod(name, pending_aff, p2_aff, added_node, added_aff, want_anti, want_aff):
    pending = make_pod("pending").labels({"foo": "bar"}).affinity(pending_aff).obj()
    existing = [make_pod("p1").labels({"foo": "bar"}).node("nodeA").obj(), make_pod("p2").node("nodeC").affinity(p2_aff).obj()]
    added = make_pod("addedPod").labels({"foo": "bar"}).node(added_node).affinity(added_aff).obj()

    def state_for(pods):
        pl, snapshot = new_plugin(ADD_REMOVE_NODES, pods)
        cs = CycleState()
        _, status = pl.pre_filter(cs, pending, snapshot.list())
        assert status is None
        return pl, cs, cs.read(PRE_FILTER_STATE_KEY), snapshot

    _, _, all_pods_state, _ = state_for(existing + [added])
    pl, cs, state, snapshot = state_for(existing)
    original = state.clone()
    assert pl.pre_filter_extensions().add_pod(cs, pending, PodInfo.of(added), snapshot.get(added_node)) is None
    assert state.anti_affinity_counts == want_anti
    assert state.affinity_counts == want_aff
    for attr in ("existing_anti_affinity_counts", "affinity_counts", "anti_affinity_counts"):
        assert getattr(state, attr) == getattr(all_pods_state, attr)
    assert pl.pre_filter_extensions().remove_pod(cs, pending, PodInfo.of(added), snapshot.get(added_node)) is None
    for attr in ("existing_anti_affinity_counts", "affinity_counts", "anti_affinity_counts"):
        assert getattr(state, attr) == getattr(original, attr)


def test_pre_filter_state_clone():
    # upstream: filtering_test.go TestPreFilterStateClone
    source = PreFilterState(PodInfo.of(make_pod("p").obj()), {}, lambda ns: {})
    source.existing_anti_affinity_counts = {("name", "node1"): 1, ("name", "node2"): 1}
    source.affinity_counts = {("name", "nodeA"): 1, ("name", "nodeC"): 2}
    source.anti_affinity_counts = {("name", "nodeN"): 3, ("name", "nodeM"): 1}
    clone = source.clone()
    assert clone is not source
    for attr in ("existing_anti_affinity_counts", "affinity_counts", "anti_affinity_counts"):
        assert getattr(clone, attr) == getattr(source, attr)
        assert getattr(clone, attr) is not getattr(source, attr)
    clone.affinity_counts[("name", "nodeA")] = 7
    assert source.affinity_counts[("name", "nodeA")] == 1


def _normal(*labels):
    return make_pod("normal").node("nodeA").labels({label: "" for label in labels})


# upstream: filtering_test.go TestGetTPMapMatchingIncomingAffinityAntiAffinity
INCOMING_COUNTS = [
    ("nil test", make_pod("aaa-normal"), [], None, None),
    ("incoming pod without affinity/anti-affinity causes a no-op", make_pod("aaa-normal"), [_normal("aaa")], None, None),
    (
        "no pod has label that violates incoming pod's affinity and anti-affinity",
        make_pod("aaa-anti").pod_affinity_exists("aaa", "hostname").pod_affinity_exists("aaa", "hostname", anti=True),
        [_normal("bbb")],
        {},
        {},
    ),
    (
        "existing pod matches incoming pod's affinity and anti-affinity - single term case",
        make_pod("affi-antiaffi").pod_affinity_exists("aaa", "hostname").pod_affinity_exists("aaa", "hostname", anti=True),
        [_normal("aaa")],
        {("hostname", "nodeA"): 1},
        {("hostname", "nodeA"): 1},
    ),
    (
        "existing pod matches incoming pod's affinity and anti-affinity - multiple terms case",
        make_pod("affi-antiaffi")
        .pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("bbb", "hostname")
        .pod_affinity_exists("aaa", "hostname", anti=True),
        [_normal("aaa", "bbb")],
        {("hostname", "nodeA"): 2},
        {("hostname", "nodeA"): 1},
    ),
    (
        "existing pod not match incoming pod's affinity but matches anti-affinity",
        make_pod("affi-antiaffi")
        .pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("bbb", "hostname")
        .pod_affinity_exists("aaa", "hostname", anti=True)
        .pod_affinity_exists("bbb", "hostname", anti=True),
        [_normal("aaa")],
        {},
        {("hostname", "nodeA"): 1},
    ),
    (
        "incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 1",
        make_pod("anaffi-antiaffiti")
        .pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("ccc", "hostname")
        .pod_affinity_exists("aaa", "hostname", anti=True)
        .pod_affinity_exists("ccc", "hostname", anti=True),
        [_normal("aaa", "bbb")],
        {},
        {("hostname", "nodeA"): 1},
    ),
    (
        "incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 2",
        make_pod("affi-antiaffi")
        .pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("bbb", "hostname")
        .pod_affinity_exists("aaa", "hostname", anti=True)
        .pod_affinity_exists("bbb", "hostname", anti=True),
        [_normal("bbb")],
        {},
        {("hostname", "nodeA"): 1},
    ),
]


@pytest.mark.parametrize("name,pod,pods,want_aff,want_anti", INCOMING_COUNTS, ids=[c[0] for c in INCOMING_COUNTS])
def test_incoming_affinity_anti_affinity_counts(name, pod, pods, want_aff, want_anti):
    pl, snapshot = new_plugin([node("nodeA", {"hostname": "nodeA"})], [p.obj() for p in pods])
    cs = CycleState()
    _, status = pl.pre_filter(cs, pod.obj(), snapshot.list())
    if want_aff is None:  # no required terms anywhere: both maps empty, so PreFilter skips
        assert status == SKIP
        return
    state = cs.read(PRE_FILTER_STATE_KEY)
    assert state.affinity_counts == want_aff
    assert state.anti_affinity_counts == want_anti


# --- args and registration -----------------------------------------------------------------


def test_default_args():
    # upstream: apis/config/v1/defaults_test.go (InterPodAffinityArgs): unset weight -> 1, explicit 0 kept
    assert default_args(None, None) == {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False}
    assert default_args({"hardPodAffinityWeight": 0}, None)["hardPodAffinityWeight"] == 0


@pytest.mark.parametrize(
    "weight,errors",
    [
        (0, []),
        (100, []),
        (1, []),
        (-1, [("hardPodAffinityWeight", "Invalid value: -1: not in valid range [0-100]")]),
        (101, [("hardPodAffinityWeight", "Invalid value: 101: not in valid range [0-100]")]),
    ],
)
def test_validate_args(weight, errors):
    # upstream: apis/config/validation/validation_pluginargs_test.go TestValidateInterPodAffinityArgs
    assert validate_args({"hardPodAffinityWeight": weight}, None) == errors


def test_plugin_spec_and_events():
    spec = plugin_spec()
    assert spec.args_kind == "InterPodAffinityArgs"
    assert set(spec.extension_points) == {"preFilter", "filter", "preScore", "score"}
    pl, _ = new_plugin([NODE1], [])
    events = [(e.event.resource, e.event.action) for e in pl.events_to_register()]
    assert events == [
        ("Pod", "Add"),
        ("Pod", "UpdatePodLabel"),
        ("Pod", "Delete"),
        ("Node", "Add"),
        ("Node", "UpdateNodeLabel"),
        ("Node", "UpdateNodeTaint"),
    ]


def test_queueing_hints():
    # upstream: plugin_test.go Test_isSchedulableAfterPodChange / Test_isSchedulableAfterNodeChange (behaviour)
    pl, _ = new_plugin([NODE1], [])
    hints = {(e.event.resource, e.event.action): e.queueing_hint_fn for e in pl.events_to_register()}
    waiting = make_pod("w").pod_affinity_in("service", "region", ["securityscan"]).obj()
    assigned = make_pod("a").labels(POD_LABEL).node("node1").obj()
    unassigned = make_pod("u").labels(POD_LABEL).obj()
    assert hints[("Pod", "Add")](waiting, None, assigned) == QueueingHint.Queue
    assert hints[("Pod", "Add")](waiting, None, unassigned) == QueueingHint.QueueSkip
    assert hints[("Pod", "Add")](waiting, None, make_pod("o").node("node1").obj()) == QueueingHint.QueueSkip
    anti_waiting = make_pod("w").pod_affinity_in("service", "region", ["securityscan"], anti=True).obj()
    assert hints[("Pod", "Delete")](anti_waiting, assigned, None) == QueueingHint.Queue
    assert hints[("Pod", "Delete")](waiting, assigned, None) == QueueingHint.QueueSkip
    assert hints[("Node", "Add")](waiting, None, node("n", {"region": "r"})) == QueueingHint.Queue
    assert hints[("Node", "Add")](waiting, None, node("n", {"zone": "z"})) == QueueingHint.QueueSkip
