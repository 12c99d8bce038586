"""InterPodAffinity PreScore/Score/NormalizeScore, from upstream interpodaffinity/scoring_test.go.

Upstream's default namespace "" is our "default"; unnamed upstream pods get names p0, p1, ...
"""

from __future__ import annotations

import pytest
from inter_pod_affinity_helpers import (
    TEAM1_SELECTOR,
    TEAM_NAMESPACES,
    new_plugin,
    node,
    pods_named,
    term,
)

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, NodeScore, Status
from kschedctl.framework.types import PodInfo
from kschedctl.plugins.inter_pod_affinity.plugin import PRE_SCORE_STATE_KEY, PreScoreState
from kschedctl.testing import make_pod

SKIP = Status(Code.Skip)
MAX = 100
S1 = {"security": "S1"}
S2 = {"security": "S2"}
RG_CHINA = {"region": "China"}
RG_INDIA = {"region": "India"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}


def _pref(weight: int, t: dict) -> dict:
    return {"weight": weight, "podAffinityTerm": t}


STAY_WITH_S1_IN_REGION = {
    "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pref(5, term("security", "In", ["S1"], "region"))]}
}
STAY_WITH_S2_IN_REGION = {
    "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pref(6, term("security", "In", ["S2"], "region"))]}
}
AFFINITY3 = {
    "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            _pref(
                8,
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "security", "operator": "NotIn", "values": ["S1"]},
                            {"key": "security", "operator": "In", "values": ["S2"]},
                        ]
                    },
                    "topologyKey": "region",
                },
            ),
            _pref(
                2,
                {
                    "labelSelector": {
                        "matchExpressions": [{"key": "security", "operator": "Exists"}, {"key": "wrongkey", "operator": "DoesNotExist"}]
                    },
                    "topologyKey": "region",
                },
            ),
        ]
    }
}
HARD_AFFINITY = {
    "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            term("security", "In", ["S1", "value2"], "region"),
            {
                "labelSelector": {
                    "matchExpressions": [{"key": "security", "operator": "Exists"}, {"key": "wrongkey", "operator": "DoesNotExist"}]
                },
                "topologyKey": "region",
            },
        ]
    }
}
AWAY_FROM_S1_IN_AZ = {
    "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pref(5, term("security", "In", ["S1"], "az"))]}
}
AWAY_FROM_S2_IN_AZ = {
    "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pref(5, term("security", "In", ["S2"], "az"))]}
}
STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ = {
    "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pref(8, term("security", "In", ["S1"], "region"))]},
    "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pref(5, term("security", "In", ["S2"], "az"))]},
}
AFFINITY_NAMESPACE_SELECTOR = {
    "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            _pref(5, term("security", "In", ["S1"], "region", namespaces=["subteam2.team2"], ns_selector=TEAM1_SELECTOR))
        ]
    }
}
ANTI_AFFINITY_NAMESPACE_SELECTOR = {
    "podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            _pref(5, term("security", "In", ["S1"], "region", namespaces=["subteam2.team2"], ns_selector=TEAM1_SELECTOR))
        ]
    }
}


def P(node_name: str = "", labels: dict | None = None, affinity: dict | None = None, ns: str = "default"):
    b = make_pod("p", ns).labels(labels or {})
    if node_name:
        b.node(node_name)
    if affinity is not None:
        b.affinity(affinity)
    return b


def N(name: str, labels: dict):
    return node(name, labels)


def _score(pod, pods, nodes, args):
    pl, snapshot = new_plugin(nodes, pods_named(pods), args=args, namespaces=TEAM_NAMESPACES)
    state = CycleState()
    incoming = pod.obj()
    status = pl.pre_score(state, incoming, snapshot.list())
    if status is not None and not status.is_success():
        return status, None
    got = []
    for n in nodes:
        s, st = pl.score(state, incoming, snapshot.get(n.name))
        assert st is None
        got.append(NodeScore(n.name, s))
    assert pl.score_extensions().normalize_score(state, incoming, got) is None
    return status, [(ns.name, ns.score) for ns in got]


# upstream: scoring_test.go TestPreferredAffinity (cases named as upstream)
PREFERRED = [
    (
        "all nodes are same priority as Affinity is nil",
        P(labels=S1),
        [],
        [N("node1", RG_CHINA), N("node2", RG_INDIA), N("node3", AZ1)],
        False,
        SKIP,
        None,
    ),
    (
        "Affinity: pod that matches topology key & pods in nodes will get high score comparing to otherswhich doesn't match either pods in nodes or in topology key",
        P(labels=S1, affinity=STAY_WITH_S1_IN_REGION),
        [P("node1", S1), P("node2", S2), P("node3", S1)],
        [N("node1", RG_CHINA), N("node2", RG_INDIA), N("node3", AZ1)],
        False,
        None,
        [MAX, 0, 0],
    ),
    (
        "All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
        P(affinity=STAY_WITH_S1_IN_REGION),
        [P("node1", S1)],
        [N("node1", RG_CHINA), N("node2", RG_CHINA_AZ1), N("node3", RG_INDIA)],
        False,
        None,
        [MAX, MAX, 0],
    ),
    (
        "Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score",
        P(labels=S1, affinity=STAY_WITH_S2_IN_REGION),
        [P("node1", S2), P("node1", S2), P("node2", S2), P("node3", S2), P("node4", S2), P("node5", S2)],
        [N("node1", RG_CHINA), N("node2", RG_INDIA), N("node3", RG_CHINA), N("node4", RG_CHINA), N("node5", RG_INDIA)],
        False,
        None,
        [MAX, 0, MAX, MAX, 0],
    ),
    (
        "Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures ",
        P(labels=S1, affinity=AFFINITY3),
        [P("node1", S1), P("node2", S2), P("node3", S1)],
        [N("node1", RG_CHINA), N("node2", RG_INDIA), N("node3", AZ1)],
        False,
        None,
        [20, MAX, 0],
    ),
    (
        "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
        P(labels=S2),
        [P("node1", S1, STAY_WITH_S1_IN_REGION), P("node2", S2, STAY_WITH_S2_IN_REGION)],
        [N("node1", RG_CHINA), N("node2", RG_INDIA), N("node3", AZ1)],
        False,
        None,
        [0, MAX, 0],
    ),
    (
        "Affinity symmetry with namespace selector",
        P(labels=S1, ns="subteam1.team1"),
        [P("node1", S1, AFFINITY_NAMESPACE_SELECTOR), P("node2", S2, STAY_WITH_S2_IN_REGION)],
        [N("node1", RG_CHINA), N("node2", RG_INDIA), N("node3", AZ1)],
        False,
        None,
        [MAX, 0, 0],
    ),
    (
        "AntiAffinity symmetry with namespace selector",
        P(labels=S1, ns="subteam1.team1"),
        [P("node1", S1, ANTI_AFFINITY_NAMESPACE_SELECTOR), P("node2", S2, STAY_WITH_S2_IN_REGION)],
        [N("node1", RG_CHINA), N("node2", RG_INDIA), N("node3", AZ1)],
        False,
        None,
        [0, MAX, MAX],
    ),
    (
        "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
        P(labels=S1),
        [P("node1", S1, HARD_AFFINITY), P("node2", S2, HARD_AFFINITY)],
        [N("node1", RG_CHINA), N("node2", RG_INDIA), N("node3", AZ1)],
        False,
        None,
        [MAX, MAX, 0],
    ),
    (
        "Anti Affinity: pod that does not match existing pods in node will get high score ",
        P(labels=S1, affinity=AWAY_FROM_S1_IN_AZ),
        [P("node1", S1), P("node2", S2)],
        [N("node1", AZ1), N("node2", RG_CHINA)],
        False,
        None,
        [0, MAX],
    ),
    (
        "Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others ",
        P(labels=S1, affinity=AWAY_FROM_S1_IN_AZ),
        [P("node1", S1), P("node2", S1)],
        [N("node1", AZ1), N("node2", RG_CHINA)],
        False,
        None,
        [0, MAX],
    ),
    (
        "Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
        P(labels=S1, affinity=AWAY_FROM_S1_IN_AZ),
        [P("node1", S1), P("node1", S1), P("node2", S2)],
        [N("node1", AZ1), N("node2", RG_INDIA)],
        False,
        None,
        [0, MAX],
    ),
    (
        "Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
        P(labels=S2),
        [P("node1", S1, AWAY_FROM_S2_IN_AZ), P("node2", S2, AWAY_FROM_S1_IN_AZ)],
        [N("node1", AZ1), N("node2", AZ2)],
        False,
        None,
        [0, MAX],
    ),
    (
        "Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity",
        P(labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [P("node1", S1), P("node2", S1)],
        [N("node1", RG_CHINA), N("node2", AZ1)],
        False,
        None,
        [MAX, 0],
    ),
    (
        "Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
        P(labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [P("node1", S1), P("node1", S1), P("node2", S1), P("node3", S1), P("node3", S1), P("node4", S1), P("node5", S1)],
        [N("node1", RG_CHINA_AZ1), N("node2", RG_INDIA), N("node3", RG_CHINA), N("node4", RG_CHINA), N("node5", RG_INDIA)],
        False,
        None,
        [MAX, 0, MAX, MAX, 0],
    ),
    (
        "Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
        P(labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [P("node1", S1), P("node2", S2), P("node3", None, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ), P("node4", None, AWAY_FROM_S1_IN_AZ)],
        [N("node1", RG_CHINA), N("node2", AZ1), N("node3", RG_INDIA), N("node4", AZ2)],
        False,
        None,
        [MAX, 0, MAX, 0],
    ),
    (
        "Avoid panic when partial nodes in a topology don't have pods with affinity",
        P(labels=S1),
        [P("node1", S1), P("node2", None, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ)],
        [N("node1", RG_CHINA), N("node2", RG_CHINA)],
        False,
        None,
        [0, 0],
    ),
    (
        "Affinity with pods matching NamespaceSelector",
        P(labels=S1, affinity=AFFINITY_NAMESPACE_SELECTOR, ns="subteam1.team1"),
        [
            P("node1", S1, ns="subteam1.team1"),
            P("node1", S1, ns="subteam1.team1"),
            P("node1", S1, ns="subteam1.team2"),
            P("node2", S1, ns="subteam2.team1"),
        ],
        [N("node1", RG_CHINA), N("node2", RG_INDIA)],
        False,
        None,
        [MAX, 0],
    ),
    (
        "Affinity with pods matching both NamespaceSelector and Namespaces fields",
        P(labels=S1, affinity=AFFINITY_NAMESPACE_SELECTOR, ns="subteam1.team1"),
        [
            P("node1", S1, ns="subteam1.team1"),
            P("node1", S1, ns="subteam1.team1"),
            P("node1", S1, ns="subteam2.team2"),
            P("node2", S1, ns="subteam2.team1"),
        ],
        [N("node1", RG_CHINA), N("node2", RG_INDIA)],
        False,
        None,
        [MAX, 0],
    ),
    (
        "Affinity with pods matching NamespaceSelector (anti-affinity)",
        P(labels=S1, affinity=ANTI_AFFINITY_NAMESPACE_SELECTOR, ns="subteam1.team1"),
        [
            P("node1", S1, ns="subteam1.team1"),
            P("node1", S1, ns="subteam1.team1"),
            P("node1", S1, ns="subteam1.team2"),
            P("node2", S1, ns="subteam2.team1"),
        ],
        [N("node1", RG_CHINA), N("node2", RG_INDIA)],
        False,
        None,
        [0, MAX],
    ),
    (
        "Affinity with pods matching both NamespaceSelector and Namespaces fields (anti-affinity)",
        P(labels=S1, affinity=ANTI_AFFINITY_NAMESPACE_SELECTOR, ns="subteam1.team1"),
        [
            P("node1", S1, ns="subteam1.team1"),
            P("node1", S1, ns="subteam1.team1"),
            P("node1", S1, ns="subteam2.team2"),
            P("node2", S1, ns="subteam2.team1"),
        ],
        [N("node1", RG_CHINA), N("node2", RG_INDIA)],
        False,
        None,
        [0, MAX],
    ),
    (
        "Ignore preferred terms of existing pods",
        P(labels=S2),
        [P("node1", S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ), P("node2", S2, STAY_WITH_S2_IN_REGION)],
        [N("node1", RG_CHINA), N("node2", RG_INDIA)],
        True,
        SKIP,
        None,
    ),
    (
        "Do not ignore preferred terms of existing pods",
        P(labels=S2),
        [P("node1", S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ), P("node2", S2, STAY_WITH_S2_IN_REGION)],
        [N("node1", RG_CHINA), N("node2", RG_INDIA)],
        False,
        None,
        [0, MAX],
    ),
    ("No nodes to score", P(labels=S2), [], [], False, SKIP, None),
]


@pytest.mark.parametrize("name,pod,pods,nodes,ignore,want_status,want_scores", PREFERRED, ids=[c[0][:90] for c in PREFERRED])
def test_preferred_affinity(name, pod, pods, nodes, ignore, want_status, want_scores):
    args = {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": ignore}
    status, scores = _score(pod, pods, nodes, args)
    assert status == want_status
    if want_scores is not None:
        assert scores == [(n.name, s) for n, s in zip(nodes, want_scores)]


HARD_POD_AFFINITY = {
    "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            term("service", "In", ["S1"], "region", namespaces=["default", "subteam2.team2"], ns_selector=TEAM1_SELECTOR)
        ]
    }
}
HARD_NODES = [N("node1", RG_CHINA), N("node2", RG_INDIA), N("node3", AZ1)]
SERVICE_S1 = {"service": "S1"}

# upstream: scoring_test.go TestPreferredAffinityWithHardPodAffinitySymmetricWeight
HARD_WEIGHT = [
    ("with default weight", "default", 1, None, [MAX, MAX, 0]),
    ("with zero weight", "default", 0, SKIP, None),
    ("with no matching namespace", "subteam1.team2", 1, SKIP, None),
    ("with matching NamespaceSelector", "subteam1.team1", 1, None, [MAX, MAX, 0]),
    ("with matching Namespaces", "subteam2.team2", 1, None, [MAX, MAX, 0]),
]


@pytest.mark.parametrize("name,ns,weight,want_status,want_scores", HARD_WEIGHT, ids=[c[0] for c in HARD_WEIGHT])
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(name, ns, weight, want_status, want_scores):
    pods = [P("node1", None, HARD_POD_AFFINITY), P("node2", None, HARD_POD_AFFINITY)]
    status, scores = _score(P(labels=SERVICE_S1, ns=ns), pods, HARD_NODES, {"hardPodAffinityWeight": weight})
    assert status == want_status
    if want_scores is not None:
        assert scores == [(n.name, s) for n, s in zip(HARD_NODES, want_scores)]


def _normalize(raw: list[int]) -> list[int]:
    pl, _ = new_plugin([], [])
    state = CycleState()
    s = PreScoreState(PodInfo.of(make_pod("p").obj()), {})
    s.topology_score = {"k": {"v": 1}}
    state.write(PRE_SCORE_STATE_KEY, s)
    scores = [NodeScore(f"n{i}", v) for i, v in enumerate(raw)]
    assert pl.normalize_score(state, make_pod("p").obj(), scores) is None
    return [ns.score for ns in scores]


@pytest.mark.parametrize(
    "raw,want",
    [
        # scoring.go NormalizeScore: min/max over the given scores (not clamped at 0), float then truncated.
        ([-5, 0, 10], [0, 33, 100]),
        ([3, 6, 9], [0, 50, 100]),
        ([-6, -3, -9], [50, 100, 0]),
        ([7, 7], [0, 0]),
        ([0, 1, 2], [0, 50, 100]),
        ([0, 1, 3], [0, 33, 100]),
        ([0, 2, 3], [0, 66, 100]),
    ],
)
def test_normalize_score(raw, want):
    # upstream: scoring.go NormalizeScore (formula), covered by scoring_test.go's expected lists
    assert _normalize(raw) == want


def test_score_without_pre_score_is_error():
    pl, snapshot = new_plugin([N("node1", RG_CHINA)], [])
    score, status = pl.score(CycleState(), make_pod("p").obj(), snapshot.get("node1"))
    assert (score, status.code) == (0, Code.Error)
    assert status.reasons == ['failed to read "PreScoreInterPodAffinity" from cycleState: not found']


def test_pre_score_scans_only_nodes_with_affinity_pods_when_incoming_has_no_preferred_terms():
    # scoring.go PreScore: without preferred terms of its own, the incoming pod's required terms do not
    # count (only existing pods with affinity are scanned), so a pod with only required affinity skips.
    pod = make_pod("in").labels(S1).pod_affinity_in("security", "region", ["S1"])
    status, _ = _score(pod, [P("node1", S1)], [N("node1", RG_CHINA), N("node2", RG_INDIA)], None)
    assert status == SKIP
