"""NodeAffinity tests, from upstream nodeaffinity/node_affinity_test.go."""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import (
    Code,
    NodeScore,
    PreFilterResult,
    QueueingHint,
    Status,
)
from kschedctl.plugins.node_affinity import NodeAffinity, plugin_spec
from kschedctl.plugins.node_affinity.args import NodeAffinityArgs
from kschedctl.testing import (
    args_defaults,
    args_errors,
    make_node,
    make_pod,
    new_framework,
    only_plugins,
)

CONFIG = only_plugins("NodeAffinity")
ERR_POD = Status(Code.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector")
ERR_ENFORCED = Status(Code.UnschedulableAndUnresolvable, "node(s) didn't match scheduler-enforced node affinity")
ERR_CONFLICT = Status(Code.UnschedulableAndUnresolvable, "pod affinity terms conflict")
SKIP = Status(Code.Skip)
NAME = "metadata.name"


def expr(key, op, values=None):
    r = {"key": key, "operator": op}
    if values is not None:
        r["values"] = values
    return r


def term(exprs=None, fields=None):
    t = {}
    if exprs is not None:
        t["matchExpressions"] = exprs
    if fields is not None:
        t["matchFields"] = fields
    return t


def required(*terms):
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}


def pod(node_affinity=None, node_selector=None):
    b = make_pod("p")
    if node_affinity is not None:
        b.affinity({"nodeAffinity": node_affinity})
    if node_selector is not None:
        b.node_selector(node_selector)
    return b.obj()


def node(name="", labels=None):
    b = make_node(name or "node")
    b.raw["metadata"]["labels"] = dict(labels or {})
    return b.obj()


# (name, pod, node labels, node name, want filter, want prefilter status, want prefilter result, args, run prefilter)
FILTER_CASES = [
    ("missing labels", pod(node_selector={"foo": "bar"}), None, "", ERR_POD, None, None, None, True),
    ("same labels", pod(node_selector={"foo": "bar"}), {"foo": "bar"}, "", None, None, None, None, True),
    ("node labels are superset", pod(node_selector={"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "", None, None, None, None, True),
    ("node labels are subset", pod(node_selector={"foo": "bar", "baz": "blah"}), {"foo": "bar"}, "", ERR_POD, None, None, None, True),
    (
        "Pod with matchExpressions using In operator that matches the existing node",
        pod(required(term([expr("foo", "In", ["bar", "value2"])]))),
        {"foo": "bar"},
        "",
        None,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with matchExpressions using Gt operator that matches the existing node",
        pod(required(term([expr("kernel-version", "Gt", ["0204"])]))),
        {"kernel-version": "0206"},
        "",
        None,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with matchExpressions using NotIn operator that matches the existing node",
        pod(required(term([expr("mem-type", "NotIn", ["DDR", "DDR2"])]))),
        {"mem-type": "DDR3"},
        "",
        None,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with matchExpressions using Exists operator that matches the existing node",
        pod(required(term([expr("GPU", "Exists")]))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        None,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with affinity that don't match node's labels won't schedule onto the node",
        pod(required(term([expr("foo", "In", ["value1", "value2"])]))),
        {"foo": "bar"},
        "",
        ERR_POD,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
        pod(required(term([]))),
        {"foo": "bar"},
        "",
        ERR_POD,
        None,
        None,
        None,
        True,
    ),
    ("Pod with no Affinity will schedule onto a node", pod(), {"foo": "bar"}, "", None, SKIP, None, None, True),
    ("Pod with Affinity but nil NodeSelector will schedule onto a node", pod({}), {"foo": "bar"}, "", None, SKIP, None, None, True),
    (
        "Pod with multiple matchExpressions ANDed that matches the existing node",
        pod(required(term([expr("GPU", "Exists"), expr("GPU", "NotIn", ["AMD", "INTER"])]))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        None,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
        pod(required(term([expr("GPU", "Exists"), expr("GPU", "In", ["AMD", "INTER"])]))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        ERR_POD,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
        pod(required(term([expr("foo", "In", ["bar", "value2"])]), term([expr("diffkey", "In", ["wrong", "value2"])]))),
        {"foo": "bar"},
        "",
        None,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, "
        "will schedule onto the node",
        pod(required(term([expr("foo", "Exists")])), {"foo": "bar"}),
        {"foo": "bar"},
        "",
        None,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) "
        "is not satisfied, won't schedule onto the node",
        pod(required(term([expr("foo", "Exists")])), {"foo": "bar"}),
        {"foo": "barrrrrr"},
        "",
        ERR_POD,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with an invalid value in Affinity term won't be scheduled onto the node",
        pod(required(term([expr("foo", "NotIn", ["invalid value: ___@#$%^"])]))),
        {"foo": "bar"},
        "",
        ERR_POD,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with matchFields using In operator that matches the existing node",
        pod(required(term(fields=[expr(NAME, "In", ["node1"])]))),
        None,
        "node1",
        None,
        None,
        PreFilterResult({"node1"}),
        None,
        True,
    ),
    (
        "Pod with matchFields using In operator that does not match the existing node",
        pod(required(term(fields=[expr(NAME, "In", ["node1"])]))),
        None,
        "node2",
        ERR_POD,
        None,
        PreFilterResult({"node1"}),
        None,
        True,
    ),
    (
        "Pod with two terms: matchFields does not match, but matchExpressions matches",
        pod(required(term(fields=[expr(NAME, "In", ["node1"]), expr(NAME, "In", ["node2"])]), term([expr("foo", "In", ["bar"])]))),
        {"foo": "bar"},
        "node2",
        None,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with one term: matchFields does not match, but matchExpressions matches",
        pod(required(term([expr("foo", "In", ["bar"])], [expr(NAME, "In", ["node1"])]))),
        {"foo": "bar"},
        "node2",
        ERR_POD,
        None,
        PreFilterResult({"node1"}),
        None,
        True,
    ),
    (
        "Pod with one term: both matchFields and matchExpressions match",
        pod(required(term([expr("foo", "In", ["bar"])], [expr(NAME, "In", ["node1"])]))),
        {"foo": "bar"},
        "node1",
        None,
        None,
        PreFilterResult({"node1"}),
        None,
        True,
    ),
    (
        "Pod with two terms: both matchFields and matchExpressions do not match",
        pod(required(term(fields=[expr(NAME, "In", ["node1"])]), term([expr("foo", "In", ["not-match-to-bar"])]))),
        {"foo": "bar"},
        "node2",
        ERR_POD,
        None,
        None,
        None,
        True,
    ),
    (
        "Pod with two terms of node.Name affinity",
        pod(required(term(fields=[expr(NAME, "In", ["node1"])]), term(fields=[expr(NAME, "In", ["node2"])]))),
        None,
        "node2",
        None,
        None,
        PreFilterResult({"node1", "node2"}),
        None,
        True,
    ),
    (
        "Pod with two conflicting mach field requirements",
        pod(required(term(fields=[expr(NAME, "In", ["node1"]), expr(NAME, "In", ["node2"])]))),
        {"foo": "bar"},
        "node2",
        ERR_POD,
        ERR_CONFLICT,
        None,
        None,
        True,
    ),
    (
        "Matches added affinity and Pod's node affinity",
        pod(required(term([expr("zone", "In", ["foo"])]))),
        {"zone": "foo"},
        "node2",
        None,
        None,
        None,
        {"addedAffinity": required(term(fields=[expr(NAME, "In", ["node2"])]))},
        True,
    ),
    (
        "Matches added affinity but not Pod's node affinity",
        pod(required(term([expr("zone", "In", ["bar"])]))),
        {"zone": "foo"},
        "node2",
        ERR_POD,
        None,
        None,
        {"addedAffinity": required(term(fields=[expr(NAME, "In", ["node2"])]))},
        True,
    ),
    (
        "Doesn't match added affinity",
        pod(),
        {"zone": "foo"},
        "node2",
        ERR_ENFORCED,
        None,
        None,
        {"addedAffinity": required(term([expr("zone", "In", ["bar"])]))},
        True,
    ),
    (
        "Matches node selector correctly even if PreFilter is not called",
        pod(node_selector={"foo": "bar"}),
        {"foo": "bar", "baz": "blah"},
        "",
        None,
        None,
        None,
        None,
        False,
    ),
    (
        "Matches node affinity correctly even if PreFilter is not called",
        pod(required(term([expr("GPU", "Exists"), expr("GPU", "NotIn", ["AMD", "INTER"])]))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        None,
        None,
        None,
        None,
        False,
    ),
]


# upstream: node_affinity_test.go TestNodeAffinity, every case by name
@pytest.mark.parametrize(
    "name, pod_, labels, node_name, want, want_pf_status, want_pf_result, args, run_pf", FILTER_CASES, ids=[c[0][:90] for c in FILTER_CASES]
)
def test_node_affinity_filter(name, pod_, labels, node_name, want, want_pf_status, want_pf_result, args, run_pf):
    n = node(node_name, labels)
    fwk = new_framework(CONFIG, nodes=[n])
    pl = NodeAffinity(args, fwk.handle)
    state = CycleState()
    info = fwk.snapshot.get(n.name)
    if run_pf:
        result, status = pl.pre_filter(state, pod_, fwk.snapshot.list())
        assert status == want_pf_status
        if want_pf_status is not None:
            assert status.message() == want_pf_status.message()
        assert result == want_pf_result
    got = pl.filter(state, pod_, info)
    if want is None:
        assert got is None
    else:
        assert got is not None and got.code == want.code and got.message() == want.message()


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 2, "preference": term([expr("foo", "In", ["bar"])])}]}
AFFINITY2 = {
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 2, "preference": term([expr("foo", "In", ["bar"])])},
        {"weight": 4, "preference": term([expr("key", "In", ["value"])])},
        {"weight": 5, "preference": term([expr("foo", "In", ["bar"]), expr("key", "In", ["value"]), expr("az", "In", ["az1"])])},
    ]
}

SCORE_CASES = [
    (
        "all nodes are same priority as NodeAffinity is nil",
        pod(),
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
        [0, 0, 0],
        None,
        True,
    ),
    (
        "no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero",
        pod(AFFINITY1),
        [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)],
        [0, 0, 0],
        None,
        True,
    ),
    (
        "only node1 matches the preferred scheduling requirements of pod",
        pod(AFFINITY1),
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
        [100, 0, 0],
        None,
        True,
    ),
    (
        "all nodes matches the preferred scheduling requirements of pod but with different priorities ",
        pod(AFFINITY2),
        [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
        [18, 100, 36],
        None,
        True,
    ),
    ("added affinity", pod(), [("node1", LABEL1), ("node2", LABEL2)], [100, 0], {"addedAffinity": AFFINITY1}, True),
    (
        "added affinity and pod has default affinity",
        pod(AFFINITY1),
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)],
        [40, 60, 100],
        {
            "addedAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 3, "preference": term([expr("key", "In", ["value"])])}]
            }
        },
        True,
    ),
    (
        "calculate the priorities correctly even if PreScore is not called",
        pod(AFFINITY2),
        [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
        [18, 100, 36],
        None,
        False,
    ),
]


# upstream: node_affinity_test.go TestNodeAffinityPriority, every case by name
@pytest.mark.parametrize("name, pod_, nodes, want, args, run_pre_score", SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_node_affinity_score(name, pod_, nodes, want, args, run_pre_score):
    fwk = new_framework(CONFIG, nodes=[node(n, labels) for n, labels in nodes])
    pl = NodeAffinity(args, fwk.handle)
    state = CycleState()
    if run_pre_score:
        status = pl.pre_score(state, pod_, fwk.snapshot.list())
        if args is None and pod_.affinity is None:
            assert status == SKIP  # nothing to score: the framework leaves this plugin out
        else:
            assert status is None
    scores = []
    for n, _ in nodes:
        score, status = pl.score(state, pod_, fwk.snapshot.get(n))
        assert status is None
        scores.append(NodeScore(n, score))
    assert pl.score_extensions().normalize_score(state, pod_, scores) is None
    assert [s.score for s in scores] == want


def test_raw_preferred_score_sums_matching_weights():
    # upstream: nodeaffinity.go PreferredSchedulingTerms.Score (weights of matching terms; weight 0 ignored)
    aff = {
        "preferredDuringSchedulingIgnoredDuringExecution": AFFINITY2["preferredDuringSchedulingIgnoredDuringExecution"]
        + [{"weight": 0, "preference": term([expr("foo", "Exists")])}, {"weight": 7, "preference": {}}]
    }
    fwk = new_framework(CONFIG, nodes=[node("node5", LABEL5)])
    pl = NodeAffinity(None, fwk.handle)
    state = CycleState()
    p = pod(aff)
    assert pl.pre_score(state, p, fwk.snapshot.list()) is None
    assert pl.score(state, p, fwk.snapshot.get("node5")) == (11, None)


def test_pre_score_error_on_invalid_preferred_term():
    # upstream: NewPreferredSchedulingTerms returns an error that PreScore turns into an Error status
    aff = {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": term([expr("foo", "In", [])])}]}
    fwk = new_framework(CONFIG, nodes=[node("n1", LABEL1)])
    status = NodeAffinity(None, fwk.handle).pre_score(CycleState(), pod(aff), fwk.snapshot.list())
    assert status is not None and status.code == Code.Error
    assert status.message() == (
        "[0].matchExpressions[0].values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"
    )


POD_WITH_AFFINITY = pod(required(term([expr("foo", "In", ["bar"])])))
ADDED_FOO_BAR = {"addedAffinity": required(term([expr("foo", "In", ["bar"])]))}


@pytest.mark.parametrize(
    "args, old, new, want",
    [
        # upstream: node_affinity_test.go Test_isSchedulableAfterNodeChange, by name
        pytest.param(None, None, node("n"), QueueingHint.QueueSkip, id="skip-queue-on-add"),
        pytest.param(None, None, node("n", {"foo": "bar"}), QueueingHint.Queue, id="queue-on-add"),
        pytest.param(None, node("n"), node("n"), QueueingHint.QueueSkip, id="skip-unrelated-changes"),
        pytest.param(None, node("n"), node("n", {"k": "v"}), QueueingHint.QueueSkip, id="skip-unrelated-changes-on-labels"),
        pytest.param(
            None,
            node("n", {"foo": "bar"}),
            node("n", {"foo": "bar", "k": "v"}),
            QueueingHint.QueueSkip,
            id="skip-labels-changes-on-suitable-node",
        ),
        pytest.param(
            None,
            node("n", {"foo": "bar"}),
            node("n", {"k": "v"}),
            QueueingHint.QueueSkip,
            id="skip-labels-changes-on-node-from-suitable-to-unsuitable",
        ),
        pytest.param(None, node("n"), node("n", {"foo": "bar"}), QueueingHint.Queue, id="queue-on-labels-change-makes-pod-schedulable"),
        pytest.param(ADDED_FOO_BAR, None, node("n"), QueueingHint.QueueSkip, id="skip-queue-on-add-scheduler-enforced-node-affinity"),
        pytest.param(
            ADDED_FOO_BAR, None, node("n", {"foo": "bar"}), QueueingHint.Queue, id="queue-on-add-scheduler-enforced-node-affinity"
        ),
    ],
)
def test_is_schedulable_after_node_change(args, old, new, want):
    pl = NodeAffinity(args, new_framework(CONFIG).handle)
    assert pl.is_schedulable_after_node_change(POD_WITH_AFFINITY, old, new) == want


def test_is_schedulable_after_node_change_wrong_objects():
    # upstream: Test_isSchedulableAfterNodeChange 'backoff-wrong-new-object' / 'backoff-wrong-old-object'
    pl = NodeAffinity(None, new_framework(CONFIG).handle)
    with pytest.raises(TypeError):
        pl.is_schedulable_after_node_change(POD_WITH_AFFINITY, None, "not-a-node")
    with pytest.raises(TypeError):
        pl.is_schedulable_after_node_change(POD_WITH_AFFINITY, "not-a-node", node("n"))


def test_events_to_register():
    pl = NodeAffinity(None, new_framework(CONFIG).handle)
    assert [(e.event.resource, e.event.action) for e in pl.events_to_register()] == [("Node", "Add"), ("Node", "UpdateNodeLabel")]


def test_args_defaults_and_validation():
    # upstream: NodeAffinityArgs has no defaults; ValidateNodeAffinityArgs rejects terms that do not parse
    spec = plugin_spec()
    assert spec.args_kind == "NodeAffinityArgs"
    assert args_defaults(NodeAffinityArgs, None) == {}
    assert args_errors(NodeAffinityArgs, {}) == []
    assert args_errors(NodeAffinityArgs, ADDED_FOO_BAR) == []
    errs = args_errors(NodeAffinityArgs, {"addedAffinity": required(term([expr("foo", "In", [])]))})
    assert errs == [
        (
            "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values",
            "Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
        )
    ]
    errs = args_errors(NodeAffinityArgs, {"addedAffinity": required(term(fields=[expr(NAME, "In", ["a", "b"])]))})
    assert errs == [
        (
            "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values",
            'Invalid value: ["a","b"]: must have one element',
        )
    ]


def test_empty_node_selector_map_runs_prefilter():
    # upstream: PreFilter skips only when pod.Spec.NodeSelector is nil; an empty map is not nil
    p = make_pod("p").set("spec.nodeSelector", {}).obj()
    fwk = new_framework(CONFIG, nodes=[node("n1")])
    assert NodeAffinity(None, fwk.handle).pre_filter(CycleState(), p, fwk.snapshot.list()) == (None, None)
