"""TaintToleration tests, from upstream tainttoleration/taint_toleration_test.go."""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, NodeScore, QueueingHint, Status
from kschedctl.plugins.taint_toleration import TaintToleration
from kschedctl.testing import make_node, make_pod, new_framework, only_plugins
from kschedctl.versions import KubeVersion

CONFIG = only_plugins("TaintToleration")
UNTOLERATED = Status(Code.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)")


def _plugin(nodes=(), comparison_ops=False, version="1.37"):
    v = KubeVersion(version).with_gates(TaintTolerationComparisonOperators=comparison_ops)
    fwk = new_framework(CONFIG, nodes=list(nodes), version=v)
    return fwk, TaintToleration(None, fwk.handle)


def _pod(*tols):
    b = make_pod("pod1")
    for key, op, value, effect in tols:
        b.toleration(key=key, value=value, effect=effect, operator=op)
    return b.obj()


def _node(name, *taints):
    b = make_node(name)
    for key, value, effect in taints:
        b.taint(key, value, effect)
    return b.obj()


FILTER_CASES = [
    (
        "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
        _pod(),
        _node("nodeA", ("dedicated", "user1", "NoSchedule")),
        UNTOLERATED,
        False,
    ),
    (
        "A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
        _pod(("dedicated", "", "user1", "NoSchedule")),
        _node("nodeA", ("dedicated", "user1", "NoSchedule")),
        None,
        False,
    ),
    (
        "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
        _pod(("dedicated", "Equal", "user2", "NoSchedule")),
        _node("nodeA", ("dedicated", "user1", "NoSchedule")),
        UNTOLERATED,
        False,
    ),
    (
        "A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node",
        _pod(("foo", "Exists", "", "NoSchedule")),
        _node("nodeA", ("foo", "bar", "NoSchedule")),
        None,
        False,
    ),
    (
        "A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node",
        _pod(("dedicated", "Equal", "user2", "NoSchedule"), ("foo", "Exists", "", "NoSchedule")),
        _node("nodeA", ("dedicated", "user2", "NoSchedule"), ("foo", "bar", "NoSchedule")),
        None,
        False,
    ),
    (
        "A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, "
        "can't be scheduled onto the node",
        _pod(("foo", "Equal", "bar", "PreferNoSchedule")),
        _node("nodeA", ("foo", "bar", "NoSchedule")),
        UNTOLERATED,
        False,
    ),
    (
        "The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, "
        "and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
        _pod(("foo", "Equal", "bar", "")),
        _node("nodeA", ("foo", "bar", "NoSchedule")),
        None,
        False,
    ),
    (
        "The pod has a toleration that key and value don't match the taint on the node, "
        "but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
        _pod(("dedicated", "Equal", "user2", "NoSchedule")),
        _node("nodeA", ("dedicated", "user1", "PreferNoSchedule")),
        None,
        False,
    ),
    (
        "The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
        _pod(),
        _node("nodeA", ("dedicated", "user1", "PreferNoSchedule")),
        None,
        False,
    ),
    (
        "Pod with Gt toleration cannot be scheduled on node when taint value is lower than threshold",
        _pod(("node.example.com/priority-level", "Gt", "950", "NoSchedule")),
        _node("nodeA", ("node.example.com/priority-level", "800", "NoSchedule")),
        UNTOLERATED,
        True,
    ),
    (
        "Pod with Gt toleration can be scheduled on node when taint value is higher than threshold",
        _pod(("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")),
        _node("nodeA", ("node.kubernetes.io/sla", "950", "NoSchedule")),
        None,
        True,
    ),
    (
        "Pod with Lt toleration cannot be scheduled on node when taint value is higher than threshold",
        _pod(("node.example.com/priority-level", "Lt", "800", "NoSchedule")),
        _node("nodeA", ("node.example.com/priority-level", "950", "NoSchedule")),
        UNTOLERATED,
        True,
    ),
    (
        "Pod with Lt toleration can be scheduled on node when taint value is lower than threshold",
        _pod(("node.kubernetes.io/sla", "Lt", "950", "NoSchedule")),
        _node("nodeA", ("node.kubernetes.io/sla", "800", "NoSchedule")),
        None,
        True,
    ),
    (
        "Pod with Gt toleration cannot be scheduled on node with non-numeric taint value",
        _pod(("node.kubernetes.io/sla", "Gt", "950", "NoSchedule")),
        _node("nodeA", ("node.kubernetes.io/sla", "high", "NoSchedule")),
        Status(
            Code.UnschedulableAndUnresolvable,
            'failed to parse taint value "high" as int64: must be a valid decimal integer in canonical form',
        ),
        True,
    ),
]

# upstream: taint_toleration_test.go TestTaintTolerationFilterWithFeatureGate
FEATURE_GATE_CASES = [
    (
        "Pod with Gt toleration can be scheduled when feature gate is enabled and taint value is higher",
        _pod(("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")),
        _node("nodeA", ("node.kubernetes.io/sla", "950", "NoSchedule")),
        None,
        True,
    ),
    (
        "Pod with Gt toleration cannot be scheduled when feature gate is disabled",
        _pod(("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")),
        _node("nodeA", ("node.kubernetes.io/sla", "950", "NoSchedule")),
        UNTOLERATED,
        False,
    ),
    (
        "Pod with Lt toleration can be scheduled when feature gate is enabled and taint value is lower",
        _pod(("node.kubernetes.io/sla", "Lt", "950", "NoSchedule")),
        _node("nodeA", ("node.kubernetes.io/sla", "800", "NoSchedule")),
        None,
        True,
    ),
    (
        "Pod with Lt toleration cannot be scheduled when feature gate is disabled",
        _pod(("node.kubernetes.io/sla", "Lt", "950", "NoSchedule")),
        _node("nodeA", ("node.kubernetes.io/sla", "800", "NoSchedule")),
        UNTOLERATED,
        False,
    ),
    (
        "Pod with mixed tolerations (Equal and Gt) when feature gate is disabled - only Equal is honored",
        _pod(("dedicated", "Equal", "user1", "NoSchedule"), ("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")),
        _node("nodeA", ("dedicated", "user1", "NoSchedule")),
        None,
        False,
    ),
    (
        "Pod with mixed tolerations, Gt toleration needed but filtered out when feature gate is disabled",
        _pod(("dedicated", "Equal", "user1", "NoSchedule"), ("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")),
        _node("nodeA", ("dedicated", "user1", "NoSchedule"), ("node.kubernetes.io/sla", "950", "NoSchedule")),
        UNTOLERATED,
        False,
    ),
]


# upstream: taint_toleration_test.go TestTaintTolerationFilter (and ...WithFeatureGate), every case by name
@pytest.mark.parametrize(
    "name, pod, node, want, comparison_ops", FILTER_CASES + FEATURE_GATE_CASES, ids=[c[0][:90] for c in FILTER_CASES + FEATURE_GATE_CASES]
)
@pytest.mark.parametrize("version", ["1.35", "1.36", "1.37"])
def test_filter(name, pod, node, want, comparison_ops, version):
    fwk, pl = _plugin([node], comparison_ops, version)
    got = pl.filter(CycleState(), pod, fwk.snapshot.get(node.name))
    if want is None:
        assert got is None
    else:
        assert got is not None and got.code == want.code and got.message() == want.message()


def test_filter_reports_first_untolerated_over_parse_error():
    # upstream: component-helpers FindMatchingUntoleratedTaint prefers a cleanly untolerated taint
    pod = _pod(("node.kubernetes.io/sla", "Gt", "950", "NoSchedule"))
    node = _node("nodeA", ("node.kubernetes.io/sla", "high", "NoSchedule"), ("dedicated", "user1", "NoExecute"))
    fwk, pl = _plugin([node], True)
    got = pl.filter(CycleState(), pod, fwk.snapshot.get("nodeA"))
    assert got == UNTOLERATED


SCORE_CASES = [
    (
        "node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
        _pod(("foo", "Equal", "bar", "PreferNoSchedule")),
        [_node("nodeA", ("foo", "bar", "PreferNoSchedule")), _node("nodeB", ("foo", "blah", "PreferNoSchedule"))],
        [100, 0],
        False,
    ),
    (
        "the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has",
        _pod(("cpu-type", "Equal", "arm64", "PreferNoSchedule"), ("disk-type", "Equal", "ssd", "PreferNoSchedule")),
        [
            _node("nodeA"),
            _node("nodeB", ("cpu-type", "arm64", "PreferNoSchedule")),
            _node("nodeC", ("cpu-type", "arm64", "PreferNoSchedule"), ("disk-type", "ssd", "PreferNoSchedule")),
        ],
        [100, 100, 100],
        False,
    ),
    (
        "the more intolerable taints a node has, the lower score it gets.",
        _pod(("foo", "Equal", "bar", "PreferNoSchedule")),
        [
            _node("nodeA"),
            _node("nodeB", ("cpu-type", "arm64", "PreferNoSchedule")),
            _node("nodeC", ("cpu-type", "arm64", "PreferNoSchedule"), ("disk-type", "ssd", "PreferNoSchedule")),
        ],
        [100, 50, 0],
        False,
    ),
    (
        "only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations priority function",
        _pod(("cpu-type", "Equal", "arm64", "NoSchedule"), ("disk-type", "Equal", "ssd", "NoSchedule")),
        [
            _node("nodeA"),
            _node("nodeB", ("cpu-type", "arm64", "NoSchedule")),
            _node("nodeC", ("cpu-type", "arm64", "PreferNoSchedule"), ("disk-type", "ssd", "PreferNoSchedule")),
        ],
        [100, 100, 0],
        False,
    ),
    (
        "Default behaviour No taints and tolerations, lands on node with no taints",
        _pod(),
        [_node("nodeA"), _node("nodeB", ("cpu-type", "arm64", "PreferNoSchedule"))],
        [100, 0],
        False,
    ),
    (
        "Numeric Gt operator: pod with Gt toleration prefers nodes with matching SLA taint",
        _pod(("node.kubernetes.io/sla", "Gt", "950", "PreferNoSchedule")),
        [
            _node("nodeA", ("node.kubernetes.io/sla", "800", "PreferNoSchedule")),
            _node("nodeB", ("node.kubernetes.io/sla", "999", "PreferNoSchedule")),
        ],
        [0, 100],
        True,
    ),
    (
        "Numeric Lt operator: pod with Lt toleration prefers nodes with matching SLA taint",
        _pod(("node.kubernetes.io/sla", "Lt", "800", "PreferNoSchedule")),
        [
            _node("nodeA", ("node.kubernetes.io/sla", "950", "PreferNoSchedule")),
            _node("nodeB", ("node.kubernetes.io/sla", "700", "PreferNoSchedule")),
        ],
        [0, 100],
        True,
    ),
    (
        "Score ignores parse errors from numeric PreferNoSchedule taint value",
        _pod(("node.kubernetes.io/sla", "Gt", "950", "PreferNoSchedule")),
        [_node("nodeA"), _node("nodeB", ("node.kubernetes.io/sla", "high", "PreferNoSchedule"))],
        [100, 0],
        True,
    ),
]


# upstream: taint_toleration_test.go TestTaintTolerationScore, every case by name
@pytest.mark.parametrize("name, pod, nodes, want, comparison_ops", SCORE_CASES, ids=[c[0][:90] for c in SCORE_CASES])
def test_score(name, pod, nodes, want, comparison_ops):
    fwk, pl = _plugin(nodes, comparison_ops)
    state = CycleState()
    infos = fwk.snapshot.list()
    assert pl.pre_score(state, pod, infos) is None
    scores = []
    for info in infos:
        score, status = pl.score(state, pod, info)
        assert status is None
        scores.append(NodeScore(info.name, score))
    assert pl.score_extensions().normalize_score(state, pod, scores) is None
    assert [s.score for s in scores] == want


def test_raw_score_counts_untolerated_prefer_no_schedule():
    # upstream: taint_toleration.go countIntolerableTaintsPreferNoSchedule (NoSchedule taints are not counted)
    node = _node("n", ("a", "1", "PreferNoSchedule"), ("b", "2", "PreferNoSchedule"), ("c", "3", "NoSchedule"))
    pod = _pod(("a", "Exists", "", ""))
    fwk, pl = _plugin([node])
    state = CycleState()
    pl.pre_score(state, pod, fwk.snapshot.list())
    assert pl.score(state, pod, fwk.snapshot.get("n")) == (1, None)


@pytest.mark.parametrize(
    "old, new, want",
    [
        # upstream: taint_toleration_test.go TestIsSchedulableAfterNodeChange, by name
        pytest.param(
            None,
            _node("nodeA", ("dedicated", "user1", "NoSchedule")),
            QueueingHint.QueueSkip,
            id="skip-queue-on-untoleratedtaint-node-added",
        ),
        pytest.param(
            None, _node("nodeA", ("dedicated", "user2", "NoSchedule")), QueueingHint.Queue, id="queue-on-toleratedtaint-node-added"
        ),
        pytest.param(
            _node("nodeA", ("dedicated", "user1", "NoSchedule")),
            _node("nodeA", ("dedicated", "user1", "NoSchedule"), ("dedicated", "user3", "NoSchedule")),
            QueueingHint.QueueSkip,
            id="skip-unrelated-change",
        ),
        pytest.param(
            _node("nodeA", ("dedicated", "user1", "NoSchedule")),
            _node("nodeA", ("dedicated", "user2", "NoSchedule")),
            QueueingHint.Queue,
            id="queue-on-taint-change",
        ),
    ],
)
def test_is_schedulable_after_node_change(old, new, want):
    _, pl = _plugin()
    pod = _pod(("dedicated", "Equal", "user2", "NoSchedule"))
    assert pl.is_schedulable_after_node_change(pod, old, new) == want


def test_is_schedulable_after_node_change_wrong_object():
    # upstream: TestIsSchedulableAfterNodeChange 'backoff-wrong-new-object' (an error; the queue treats it as Queue)
    _, pl = _plugin()
    with pytest.raises(TypeError):
        pl.is_schedulable_after_node_change(_pod(), None, "not-a-node")


def test_is_schedulable_after_pod_toleration_change():
    # upstream: Test_isSchedulableAfterTargetPodTolerationChange 'queue-on-toleration-added'
    _, pl = _plugin()
    pod = make_pod("pod-1", "ns-1").obj()
    new = make_pod("pod-1", "ns-1").toleration(key="foo", effect="NoSchedule").obj()
    assert pl.is_schedulable_after_pod_toleration_change(pod, pod, new) == QueueingHint.Queue
    other = make_pod("pod-2", "ns-1").obj()
    assert pl.is_schedulable_after_pod_toleration_change(pod, other, other) == QueueingHint.QueueSkip


def test_events_to_register():
    _, pl = _plugin()
    assert [(e.event.resource, e.event.action) for e in pl.events_to_register()] == [
        ("Node", "Add"),
        ("Node", "UpdateNodeTaint"),
        ("Pod", "UpdatePodToleration"),
    ]
