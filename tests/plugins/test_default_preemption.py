"""DefaultPreemption: eligibility, victims per node, candidate budget, node choice, PostFilter.

Cases come from upstream pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go
(TestPostFilter, TestDryRunPreemption, TestSelectBestCandidate, TestPodEligibleToPreemptOthers,
TestPreempt), with upstream's resources: small 100m/100, medium 200m/200, large 300m/300,
very large 500m/500 (nodes have very large unless stated). Upstream's registered plugins are
replaced by a profile with the same Filter/PreFilter plugins.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from kschedctl.api.objects import ClusterObjects
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, Status
from kschedctl.framework.types import NodeToStatus
from kschedctl.plugins.default_preemption import (
    Candidate,
    DefaultPreemptionArgs,
    earliest_pod_start_time,
    pick_one_node_for_preemption,
)
from kschedctl.preemption.evaluator import default_score_funcs
from kschedctl.testing import (
    args_defaults,
    args_errors,
    make_node,
    make_pod,
    new_framework,
)
from kschedctl.testing import make_pdb as pdb


def default_args(args: dict | None, version: Any = None) -> dict:
    return args_defaults(DefaultPreemptionArgs, args, version)


def validate_args(args: dict, version: Any = None) -> list:
    return args_errors(DefaultPreemptionArgs, args, version)


NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
ONE_POD = {"pods": "1"}


def _config(*plugins: str, args: dict | None = None) -> str:
    enabled = "".join(f"\n        - name: {p}" for p in ("PrioritySort", "DefaultBinder", "DefaultPreemption", *plugins))
    cfg = f"""
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        disabled:
        - name: "*"
        enabled:{enabled}
"""
    if args:
        cfg += "    pluginConfig:\n    - name: DefaultPreemption\n      args:\n" + "".join(f"        {k}: {v}\n" for k, v in args.items())
    return cfg


FIT = ("NodeResourcesFit",)


def pod(name, priority=None, req=None, node=None, start=None, labels=None):
    b = make_pod(name).uid(name)
    if priority is not None:
        b = b.priority(priority)
    if req is not None:
        b = b.res(req)
    if node is not None:
        b = b.node(node)
    if start is not None:
        b = b.start_time(start)
    if labels:
        b = b.labels(labels)
    return b


def epoch(n: int) -> str:
    """upstream epochTimeN (time.Unix(0, N)); seconds here, same order."""
    return f"1970-01-01T00:00:{n:02d}Z"


def node(name, res=None, labels=None):
    b = make_node(name)
    r = dict(VERY_LARGE if res is None else res)
    pods = r.pop("pods", "32")  # st.MakeNode().Capacity: 32 pods unless given
    b = b.capacity(pods=pods, **r)
    for k, v in (labels or {}).items():
        b = b.label(k, v)
    return b.obj()


class RecordingClient:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, list[str]]] = []

    def preempt(self, preemptor, node_name, victims) -> None:
        self.calls.append((preemptor.name, node_name, sorted(v.name for v in victims)))


def setup(preemptor, nodes, pods, plugins=FIT, pdbs=(), args=None, offsets=None):
    objects = ClusterObjects(pdbs=list(pdbs))
    fwk = new_framework(_config(*plugins, args=args), nodes=nodes, pods=[p.obj() for p in pods], objects=objects)
    fwk.services.client = RecordingClient()
    pl = fwk.instances["DefaultPreemption"]
    if offsets is not None:
        it = iter(offsets)
        pl.offset_rand = lambda n: next(it)
    state = CycleState()
    _, st, _ = fwk.run_pre_filter_plugins(state, preemptor, fwk.snapshot.list())
    assert st.is_success(), st
    return fwk, pl, state


def statuses(explicit: dict[str, Code]) -> NodeToStatus:
    m = NodeToStatus()
    for name, code in explicit.items():
        m.set(name, Status(code))
    return m


# --- PostFilter ----------------------------------------------------------------------------

U, UU = Code.Unschedulable, Code.UnschedulableAndUnresolvable
NODE_RES = {"cpu": "200m", "memory": "400"}


@pytest.mark.parametrize(
    "preemptor,pods,nodes,node_status,pdbs,want_node,want_code,want_msg",
    [
        # upstream: TestPostFilter "pod with higher priority can be made schedulable"
        pytest.param(
            pod("p", HIGH),
            [pod("p1", node="node1")],
            [node("node1", ONE_POD)],
            {"node1": U},
            (),
            "node1",
            Code.Success,
            "",
            id="higher-priority-made-schedulable",
        ),
        # upstream: TestPostFilter "pod with tied priority is still unschedulable"
        pytest.param(
            pod("p"),
            [pod("p1", node="node1")],
            [node("node1", ONE_POD)],
            {"node1": U},
            (),
            "",
            U,
            "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
            id="tied-priority",
        ),
        # upstream: TestPostFilter "preemption should respect filteredNodesStatuses"
        pytest.param(
            pod("p", HIGH),
            [pod("p1", node="node1")],
            [node("node1", ONE_POD)],
            {"node1": UU},
            (),
            "",
            U,
            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
            id="respects-unresolvable-status",
        ),
        # upstream: TestPostFilter "preemption should respect absent NodeToStatusReader entry meaning UnschedulableAndUnresolvable"
        pytest.param(
            pod("p", HIGH),
            [pod("p1", node="node1")],
            [node("node1", ONE_POD)],
            {},
            (),
            "",
            U,
            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
            id="absent-means-unresolvable",
        ),
        # upstream: TestPostFilter "pod can be made schedulable on one node"
        pytest.param(
            pod("p", MID),
            [pod("p1", HIGH, node="node1"), pod("p2", LOW, node="node2")],
            [node("node1", ONE_POD), node("node2", ONE_POD)],
            {"node1": U, "node2": U},
            (),
            "node2",
            Code.Success,
            "",
            id="schedulable-on-one-node",
        ),
        # upstream: TestPostFilter "pod can be made schedulable on minHighestPriority node" (PDBs)
        pytest.param(
            pod("p", VERY_HIGH),
            [
                pod("p1", HIGH, node="node1", labels={"test.kubernetes.io/is-violating-pdb": "non-violating"}),
                pod("p2", LOW, node="node1", labels={"test.kubernetes.io/is-violating-pdb": "violating"}),
                pod("p3", MID, node="node2", labels={"test.kubernetes.io/is-violating-pdb": "violating"}),
            ],
            [node("node1", ONE_POD), node("node2", ONE_POD)],
            {"node1": U, "node2": U},
            (
                pdb("violating-pdb", {"test.kubernetes.io/is-violating-pdb": "violating"}, 0),
                pdb("non-violating-pdb", {"test.kubernetes.io/is-violating-pdb": "non-violating"}, 2**31 - 1),
            ),
            "node2",
            Code.Success,
            "",
            id="min-highest-priority-node-with-pdbs",
        ),
        # upstream: TestPostFilter "no candidate nodes found, no enough resource after removing low priority pods"
        pytest.param(
            pod("p", HIGH, LARGE),
            [pod("p1", node="node1"), pod("p2", node="node2")],
            [node("node1", NODE_RES), node("node2", NODE_RES)],
            {"node1": U, "node2": U},
            (),
            "",
            U,
            "preemption: 0/2 nodes are available: 2 Insufficient cpu.",
            id="insufficient-after-removal",
        ),
        # upstream: TestPostFilter "no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU resource"
        pytest.param(
            pod("p", HIGH, LARGE),
            [pod("p1", HIGH, node="node1"), pod("p2", node="node2"), pod("p3", HIGH, node="node3")],
            [node("node1", ONE_POD), node("node2", NODE_RES), node("node3", ONE_POD)],
            {"node1": U, "node2": U, "node3": U},
            (),
            "",
            U,
            "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod.",
            id="mixed-reasons",
        ),
        # upstream: TestPostFilter "no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and 2 nodes don't have enough CPU resource"
        pytest.param(
            pod("p", HIGH, LARGE),
            [pod("p1", node="node1"), pod("p2", node="node2")],
            [node(f"node{i}", NODE_RES) for i in range(1, 5)],
            {"node1": U, "node2": U, "node4": UU},
            (),
            "",
            U,
            "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling.",
            id="mixed-unresolvable-and-insufficient",
        ),
        # upstream: TestPreempt "no preempting in pod" (PreemptNever), message from PodEligibleToPreemptOthers
        pytest.param(
            pod("p", HIGH, VERY_LARGE).preemption_policy("Never"),
            [pod("p1.1", LOW, SMALL, node="node1")],
            [node("node1")],
            {"node1": U},
            (),
            None,
            U,
            "preemption: not eligible due to preemptionPolicy=Never.",
            id="preempt-never",
        ),
    ],
)
def test_post_filter(preemptor, pods, nodes, node_status, pdbs, want_node, want_code, want_msg):
    p = preemptor.obj()
    fwk, pl, state = setup(p, nodes, pods, pdbs=pdbs, offsets=[0] * 10)
    result, status = pl.post_filter(state, p, statuses(node_status))
    assert status.code == want_code
    assert status.message() == want_msg
    if want_node is None:
        assert result is None
    else:
        assert result is not None and result.nominated_node_name == want_node and result.mode == "Override"
    client = fwk.services.client
    if want_code == Code.Success:
        assert [c[1] for c in client.calls] == [want_node]
    else:
        assert client.calls == []


# --- DryRunPreemption (SelectVictimsOnNode + candidate budget) -----------------------------


@pytest.mark.parametrize(
    "preemptor,init_pods,node_names,plugins,pdbs,args,offset,expected",
    [
        # upstream: TestDryRunPreemption "a pod that fits on both nodes when lower priority pods are preempted"
        pytest.param(
            pod("p", HIGH, LARGE),
            [pod("p1", MID, LARGE, node="node1"), pod("p2", MID, LARGE, node="node2")],
            ["node1", "node2"],
            FIT,
            (),
            None,
            0,
            {"node1": (["p1"], 0), "node2": (["p2"], 0)},
            id="fits-on-both-nodes",
        ),
        # upstream: TestDryRunPreemption "a pod that would fit on the nodes, but other pods running are higher priority, no preemption would happen"
        pytest.param(
            pod("p", LOW, LARGE),
            [pod("p1", MID, LARGE, node="node1"), pod("p2", MID, LARGE, node="node2")],
            ["node1", "node2"],
            FIT,
            (),
            None,
            0,
            {},
            id="higher-priority-pods-running",
        ),
        # upstream: TestDryRunPreemption "medium priority pod is preempted, but lower priority one stays as it is small"
        pytest.param(
            pod("p", HIGH, LARGE),
            [pod("p1.1", LOW, SMALL, node="node1"), pod("p1.2", MID, LARGE, node="node1"), pod("p2", MID, LARGE, node="node2")],
            ["node1", "node2"],
            FIT,
            (),
            None,
            0,
            {"node1": (["p1.2"], 0), "node2": (["p2"], 0)},
            id="small-low-priority-stays",
        ),
        # upstream: TestDryRunPreemption "mixed priority pods are preempted"
        pytest.param(
            pod("p", HIGH, LARGE),
            [
                pod("p1.1", MID, SMALL, node="node1"),
                pod("p1.2", LOW, SMALL, node="node1"),
                pod("p1.3", MID, MEDIUM, node="node1"),
                pod("p1.4", HIGH, SMALL, node="node1"),
                pod("p2", HIGH, LARGE, node="node2"),
            ],
            ["node1", "node2"],
            FIT,
            (),
            None,
            0,
            {"node1": (["p1.2", "p1.3"], 0)},
            id="mixed-priorities",
        ),
        # upstream: TestDryRunPreemption "mixed priority pods are preempted, pick later StartTime one when priorities are equal"
        pytest.param(
            pod("p", HIGH, LARGE),
            [
                pod("p1.1", LOW, SMALL, node="node1", start=epoch(5)),
                pod("p1.2", LOW, SMALL, node="node1", start=epoch(4)),
                pod("p1.3", MID, MEDIUM, node="node1", start=epoch(3)),
                pod("p1.4", HIGH, SMALL, node="node1", start=epoch(2)),
                pod("p2", HIGH, LARGE, node="node2", start=epoch(1)),
            ],
            ["node1", "node2"],
            FIT,
            (),
            None,
            0,
            {"node1": (["p1.1", "p1.3"], 0)},
            id="later-start-time-preempted",
        ),
        # upstream: TestDryRunPreemption "pod with anti-affinity is preempted"
        pytest.param(
            pod("p", HIGH, SMALL, labels={"foo": ""}),
            [
                pod("p1.1", LOW, SMALL, node="node1", labels={"foo": ""}).pod_affinity_exists("foo", "hostname", anti=True),
                pod("p1.2", MID, SMALL, node="node1"),
                pod("p1.3", HIGH, SMALL, node="node1"),
                pod("p2", HIGH, SMALL, node="node2"),
            ],
            ["node1", "node2"],
            FIT + ("InterPodAffinity",),
            (),
            None,
            0,
            {"node1": (["p1.1"], 0)},
            id="anti-affinity-victim",
        ),
        # upstream: TestDryRunPreemption "preemption to resolve pod topology spread filter failure"
        pytest.param(
            pod("p", HIGH, labels={"foo": ""})
            .spread(1, "zone", selector={"matchExpressions": [{"key": "foo", "operator": "Exists"}]})
            .spread(1, "hostname", selector={"matchExpressions": [{"key": "foo", "operator": "Exists"}]}),
            [
                pod("pod-a1", MID, node="node-a", labels={"foo": ""}),
                pod("pod-a2", LOW, node="node-a", labels={"foo": ""}),
                pod("pod-b1", LOW, node="node-b", labels={"foo": ""}),
                pod("pod-x1", HIGH, node="node-x", labels={"foo": ""}),
                pod("pod-x2", HIGH, node="node-x", labels={"foo": ""}),
            ],
            ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
            ("PodTopologySpread",),
            (),
            None,
            0,
            {"node-a": (["pod-a2"], 0), "node-b": (["pod-b1"], 0)},
            id="pod-topology-spread",
        ),
        # upstream: TestDryRunPreemption "preemption with violation of same pdb"
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [pod("p1.1", MID, MEDIUM, node="node1", labels={"app": "foo"}), pod("p1.2", MID, MEDIUM, node="node1", labels={"app": "foo"})],
            ["node1"],
            FIT,
            (pdb("pdb", {"app": "foo"}, 1),),
            None,
            0,
            {"node1": (["p1.1", "p1.2"], 1)},
            id="pdb-same-violated",
        ),
        # upstream: TestDryRunPreemption "... the victim doesn't belong to DisruptedPods"
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [pod("p1.1", MID, MEDIUM, node="node1", labels={"app": "foo"}), pod("p1.2", MID, MEDIUM, node="node1", labels={"app": "foo"})],
            ["node1"],
            FIT,
            (pdb("pdb", {"app": "foo"}, 1, disrupted=("p2",)),),
            None,
            0,
            {"node1": (["p1.1", "p1.2"], 1)},
            id="pdb-disrupted-other-pod",
        ),
        # upstream: TestDryRunPreemption "... the victim belongs to DisruptedPods"
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [pod("p1.1", MID, MEDIUM, node="node1", labels={"app": "foo"}), pod("p1.2", MID, MEDIUM, node="node1", labels={"app": "foo"})],
            ["node1"],
            FIT,
            (pdb("pdb", {"app": "foo"}, 1, disrupted=("p1.2",)),),
            None,
            0,
            {"node1": (["p1.1", "p1.2"], 0)},
            id="pdb-victim-already-disrupted",
        ),
        # upstream: TestDryRunPreemption "... the victim which belongs to DisruptedPods is treated as 'nonViolating'"
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [
                pod("p1.1", MID, MEDIUM, node="node1", labels={"app": "foo"}),
                pod("p1.2", MID, MEDIUM, node="node1", labels={"app": "foo"}),
                pod("p1.3", MID, MEDIUM, node="node1", labels={"app": "foo"}),
            ],
            ["node1"],
            FIT,
            (pdb("pdb", {"app": "foo"}, 1, disrupted=("p1.3",)),),
            None,
            0,
            {"node1": (["p1.1", "p1.2", "p1.3"], 1)},
            id="pdb-disrupted-is-non-violating",
        ),
        # upstream: TestDryRunPreemption "all nodes are possible candidates, but DefaultPreemptionArgs limits to 2"
        # (Go's rand seeded with 4 gives offset 4)
        pytest.param(
            pod("p", HIGH, LARGE),
            [pod(f"p{i}", MID, LARGE, node=f"node{i}") for i in range(1, 6)],
            [f"node{i}" for i in range(1, 6)],
            FIT,
            (),
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
            4,
            {"node5": (["p5"], 0), "node1": (["p1"], 0)},
            id="budget-limits-to-2",
        ),
        # upstream: TestDryRunPreemption "some nodes are not possible candidates, DefaultPreemptionArgs limits to 2"
        pytest.param(
            pod("p", HIGH, LARGE),
            [
                pod("p1", MID, LARGE, node="node1"),
                pod("p2", VERY_HIGH, LARGE, node="node2"),
                pod("p3", MID, LARGE, node="node3"),
                pod("p4", MID, LARGE, node="node4"),
                pod("p5", VERY_HIGH, LARGE, node="node5"),
            ],
            [f"node{i}" for i in range(1, 6)],
            FIT,
            (),
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
            4,
            {"node1": (["p1"], 0), "node3": (["p3"], 0)},
            id="budget-skips-impossible-nodes",
        ),
        # upstream: TestDryRunPreemption "preemption looks past numCandidates until a non-PDB violating node is found"
        pytest.param(
            pod("p", HIGH, LARGE),
            [
                pod("p1", MID, LARGE, node="node1", labels={"app": "foo"}),
                pod("p2", MID, LARGE, node="node2", labels={"app": "foo"}),
                pod("p3", MID, LARGE, node="node3"),
                pod("p4", MID, LARGE, node="node4"),
                pod("p5", MID, LARGE, node="node5", labels={"app": "foo"}),
            ],
            [f"node{i}" for i in range(1, 6)],
            FIT,
            (pdb("pdb", {"app": "foo"}, 0),),
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2},
            4,
            {"node3": (["p3"], 0), "node5": (["p5"], 1), "node1": (["p1"], 1)},
            id="looks-past-budget-for-non-violating",
        ),
    ],
)
def test_dry_run_preemption(preemptor, init_pods, node_names, plugins, pdbs, args, offset, expected):
    nodes = []
    for spec in node_names:
        parts = spec.split("/")
        nodes.append(node(parts[0], labels=dict(zip(("hostname", "zone", "region"), parts))))
    p = preemptor.obj()
    fwk, pl, state = setup(p, nodes, init_pods, plugins=plugins, pdbs=pdbs, args=args, offsets=[offset])
    infos = sorted(fwk.snapshot.list(), key=lambda n: n.name)
    off, num = pl.get_offset_and_num_candidates(len(infos))
    candidates, _, err = pl.evaluator.dry_run_preemption(state, p, infos, list(pdbs), off, num)
    assert err is None
    got = {c.name: (sorted(v.name for v in c.victims), c.num_pdb_violations) for c in candidates}
    assert got == expected
    # non-violating candidates first, each group in dry-run order from the offset
    assert [c.name for c in candidates] == list(expected)


def test_dry_run_offset_across_cycles_wraps_around():
    # upstream: TestDryRunPreemption "preemption offset across multiple scheduling cycles and wrap around"
    nodes = [node(f"node{i}") for i in range(1, 6)]
    init = [pod(f"p{i}", MID, LARGE, node=f"node{i}") for i in range(1, 6)]
    want = [{"node5", "node1"}, {"node2", "node3"}, {"node4", "node5"}]
    args = {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1}
    fwk = None
    for cycle, offset in enumerate([4, 1, 3]):  # Go's rand seeded with 4
        p = pod(f"tp{cycle + 1}", HIGH, LARGE).obj()
        fwk, pl, state = setup(p, nodes, init, args=args, offsets=[offset])
        infos = sorted(fwk.snapshot.list(), key=lambda n: n.name)
        off, num = pl.get_offset_and_num_candidates(len(infos))
        assert num == 2
        candidates, _, _ = pl.evaluator.dry_run_preemption(state, p, infos, [], off, num)
        assert {c.name for c in candidates} == want[cycle]


# --- SelectCandidate / pickOneNodeForPreemption --------------------------------------------


@pytest.mark.parametrize(
    "node_names,preemptor,pods,expected",
    [
        # upstream: TestSelectBestCandidate "a pod that fits on both nodes when lower priority pods are preempted"
        pytest.param(
            ["node1", "node2"],
            pod("p", HIGH, LARGE),
            [pod("p1", MID, LARGE, node="node1", start=epoch(0)), pod("p2", MID, LARGE, node="node2", start=epoch(0))],
            "node1",
            id="tie-first-candidate",
        ),
        # upstream: TestSelectBestCandidate "node with min highest priority pod is picked"
        pytest.param(
            ["node1", "node2", "node3"],
            pod("p", HIGH, VERY_LARGE),
            [
                pod("p1.1", MID, MEDIUM, node="node1", start=epoch(0)),
                pod("p1.2", MID, LARGE, node="node1", start=epoch(0)),
                pod("p2.1", MID, MEDIUM, node="node2", start=epoch(0)),
                pod("p2.2", LOW, MEDIUM, node="node2", start=epoch(0)),
                pod("p3.1", LOW, MEDIUM, node="node3", start=epoch(0)),
                pod("p3.2", LOW, MEDIUM, node="node3", start=epoch(0)),
            ],
            "node3",
            id="min-highest-priority",
        ),
        # upstream: TestSelectBestCandidate "when highest priorities are the same, minimum sum of priorities is picked"
        pytest.param(
            ["node1", "node2", "node3"],
            pod("p", HIGH, VERY_LARGE),
            [
                pod("p1.1", MID, MEDIUM, node="node1", start=epoch(0)),
                pod("p1.2", MID, LARGE, node="node1", start=epoch(0)),
                pod("p2.1", MID, LARGE, node="node2", start=epoch(0)),
                pod("p2.2", LOW, MEDIUM, node="node2", start=epoch(0)),
                pod("p3.1", MID, MEDIUM, node="node3", start=epoch(0)),
                pod("p3.2", MID, MEDIUM, node="node3", start=epoch(0)),
            ],
            "node2",
            id="min-sum-of-priorities",
        ),
        # upstream: TestSelectBestCandidate "when highest priority and sum are the same, minimum number of pods is picked"
        pytest.param(
            ["node1", "node2", "node3"],
            pod("p", HIGH, VERY_LARGE),
            [
                pod("p1.1", MID, SMALL, node="node1", start=epoch(0)),
                pod("p1.2", NEG, SMALL, node="node1", start=epoch(0)),
                pod("p1.3", MID, SMALL, node="node1", start=epoch(0)),
                pod("p1.4", NEG, SMALL, node="node1", start=epoch(0)),
                pod("p2.1", MID, LARGE, node="node2", start=epoch(0)),
                pod("p2.2", NEG, MEDIUM, node="node2", start=epoch(0)),
                pod("p3.1", MID, MEDIUM, node="node3", start=epoch(0)),
                pod("p3.2", NEG, SMALL, node="node3", start=epoch(0)),
                pod("p3.3", LOW, SMALL, node="node3", start=epoch(0)),
            ],
            "node2",
            id="min-number-of-pods",
        ),
        # upstream: TestSelectBestCandidate "sum of adjusted priorities is considered"
        pytest.param(
            ["node1", "node2", "node3"],
            pod("p", HIGH, VERY_LARGE),
            [
                pod("p1.1", MID, SMALL, node="node1", start=epoch(0)),
                pod("p1.2", NEG, SMALL, node="node1", start=epoch(0)),
                pod("p1.3", NEG, SMALL, node="node1", start=epoch(0)),
                pod("p2.1", MID, LARGE, node="node2", start=epoch(0)),
                pod("p2.2", NEG, MEDIUM, node="node2", start=epoch(0)),
                pod("p3.1", MID, MEDIUM, node="node3", start=epoch(0)),
                pod("p3.2", NEG, SMALL, node="node3", start=epoch(0)),
                pod("p3.3", LOW, SMALL, node="node3", start=epoch(0)),
            ],
            "node2",
            id="adjusted-sum-of-priorities",
        ),
        # upstream: TestSelectBestCandidate "non-overlapping lowest high priority, sum priorities, and number of pods"
        pytest.param(
            ["node1", "node2", "node3", "node4"],
            pod("p", VERY_HIGH, VERY_LARGE),
            [
                pod("p1.1", MID, SMALL, node="node1", start=epoch(0)),
                pod("p1.2", LOW, SMALL, node="node1", start=epoch(0)),
                pod("p1.3", LOW, SMALL, node="node1", start=epoch(0)),
                pod("p2.1", HIGH, LARGE, node="node2", start=epoch(0)),
                pod("p3.1", MID, MEDIUM, node="node3", start=epoch(0)),
                pod("p3.2", LOW, SMALL, node="node3", start=epoch(0)),
                pod("p3.3", LOW, SMALL, node="node3", start=epoch(0)),
                pod("p3.4", LOW, MEDIUM, node="node3", start=epoch(0)),
                pod("p4.1", MID, MEDIUM, node="node4", start=epoch(0)),
                pod("p4.2", MID, SMALL, node="node4", start=epoch(0)),
                pod("p4.3", MID, SMALL, node="node4", start=epoch(0)),
                pod("p4.4", NEG, SMALL, node="node4", start=epoch(0)),
            ],
            "node1",
            id="non-overlapping-criteria",
        ),
        # upstream: TestSelectBestCandidate "same priority, same number of victims, different start time for each node's pod"
        pytest.param(
            ["node1", "node2", "node3"],
            pod("p", HIGH, VERY_LARGE),
            [
                pod("p1.1", MID, MEDIUM, node="node1", start=epoch(2)),
                pod("p1.2", MID, MEDIUM, node="node1", start=epoch(2)),
                pod("p2.1", MID, MEDIUM, node="node2", start=epoch(3)),
                pod("p2.2", MID, MEDIUM, node="node2", start=epoch(3)),
                pod("p3.1", MID, MEDIUM, node="node3", start=epoch(1)),
                pod("p3.2", MID, MEDIUM, node="node3", start=epoch(1)),
            ],
            "node2",
            id="latest-start-time-per-node",
        ),
        # upstream: TestSelectBestCandidate "same priority, same number of victims, different start time for all pods"
        pytest.param(
            ["node1", "node2", "node3"],
            pod("p", HIGH, VERY_LARGE),
            [
                pod("p1.1", MID, MEDIUM, node="node1", start=epoch(4)),
                pod("p1.2", MID, MEDIUM, node="node1", start=epoch(2)),
                pod("p2.1", MID, MEDIUM, node="node2", start=epoch(5)),
                pod("p2.2", MID, MEDIUM, node="node2", start=epoch(1)),
                pod("p3.1", MID, MEDIUM, node="node3", start=epoch(3)),
                pod("p3.2", MID, MEDIUM, node="node3", start=epoch(6)),
            ],
            "node3",
            id="latest-earliest-start-all-pods",
        ),
        # upstream: TestSelectBestCandidate "different priority, same number of victims, different start time for all pods"
        pytest.param(
            ["node1", "node2", "node3"],
            pod("p", HIGH, VERY_LARGE),
            [
                pod("p1.1", LOW, MEDIUM, node="node1", start=epoch(4)),
                pod("p1.2", MID, MEDIUM, node="node1", start=epoch(2)),
                pod("p2.1", MID, MEDIUM, node="node2", start=epoch(6)),
                pod("p2.2", LOW, MEDIUM, node="node2", start=epoch(1)),
                pod("p3.1", LOW, MEDIUM, node="node3", start=epoch(3)),
                pod("p3.2", MID, MEDIUM, node="node3", start=epoch(5)),
            ],
            "node2",
            id="start-time-of-highest-priority-victims",
        ),
    ],
)
def test_select_best_candidate(node_names, preemptor, pods, expected):
    p = preemptor.obj()
    fwk, pl, state = setup(p, [node(n) for n in node_names], pods, offsets=[0])
    infos = fwk.snapshot.list()
    off, num = pl.get_offset_and_num_candidates(len(infos))
    candidates, _, _ = pl.evaluator.dry_run_preemption(state, p, infos, [], off, num)
    best = pl.evaluator.select_candidate(candidates)
    assert best is not None and best.name == expected


def _cand(name, priorities, violations=0, starts=None):
    victims = [pod(f"{name}-v{i}", pr, start=(starts[i] if starts else None)).obj() for i, pr in enumerate(priorities)]
    return Candidate(name, victims, violations)


@pytest.mark.parametrize(
    "candidates,expected",
    [
        # pickOneNodeForPreemption criterion 1: fewest PDB violations beats everything after it
        pytest.param([_cand("a", [LOW], 1), _cand("b", [HIGH, HIGH], 0)], "b", id="1-fewest-pdb-violations"),
        # criterion 2: lowest highest-priority victim
        pytest.param([_cand("a", [MID]), _cand("b", [LOW, LOW, LOW])], "b", id="2-min-highest-priority"),
        # criterion 3: lowest sum of (priority + 2^31): one NEG victim beats two NEG victims
        pytest.param([_cand("a", [NEG, NEG]), _cand("b", [NEG])], "b", id="3-min-adjusted-sum"),
        # criterion 4 only matters when sums tie, which with the +2^31 shift means equal counts: ties go on
        pytest.param([_cand("a", [LOW], starts=[epoch(1)]), _cand("b", [LOW], starts=[epoch(2)])], "b", id="5-latest-earliest-start"),
        # criterion 5: a victim without startTime counts as started now (latest)
        pytest.param([_cand("a", [LOW], starts=[epoch(9)]), _cand("b", [LOW])], "b", id="5-missing-start-is-now"),
        # criterion 6: all tied: the first candidate in order
        pytest.param([_cand("a", [LOW], starts=[epoch(1)]), _cand("b", [LOW], starts=[epoch(1)])], "a", id="6-first"),
    ],
)
def test_pick_one_node_criteria_in_order(candidates, expected):
    assert pick_one_node_for_preemption({c.name: c for c in candidates}) == expected


def test_pick_one_node_default_criteria_equal_the_staged_loop():
    # The default criteria are compared as one key per candidate; with the criteria given as
    # functions, the loop keeps the best of each in turn. Both pick the same node, ties
    # included (small ranges of priorities, counts and starts make ties on every criterion).
    rng = random.Random(7)
    priorities = [NEG, LOW, MID]
    for trial in range(300):
        candidates = []
        for i in range(rng.randint(2, 6)):
            count = rng.randint(1, 3)
            prios = [rng.choice(priorities) for _ in range(count)]
            starts = [rng.choice([None, epoch(1), epoch(2)]) for _ in range(count)]
            candidates.append(_cand(f"n{i}", prios, rng.randint(0, 1), starts))
        by_name = {c.name: c for c in candidates}
        assert pick_one_node_for_preemption(by_name) == pick_one_node_for_preemption(by_name, default_score_funcs(by_name)), trial


def test_earliest_start_time_among_highest_priority_victims():
    # utils.go GetEarliestPodStartTime: only the highest-priority victims count
    victims = [pod("a", MID, start=epoch(5)).obj(), pod("b", LOW, start=epoch(1)).obj(), pod("c", MID, start=epoch(3)).obj()]
    assert earliest_pod_start_time(victims) == earliest_pod_start_time([victims[2]])


# --- PDB steering the node choice -----------------------------------------------------------


@pytest.mark.parametrize(
    "pdbs,expected_node,expected_victims",
    [
        # Without a PDB, node1's victim (priority 0) is cheaper than node2's (priority 50).
        pytest.param((), "node1", ["db-0"], id="no-pdb-cheapest-victim"),
        # upstream: default_preemption.go filterPodsWithPDBViolation + pickOneNodeForPreemption criterion 1:
        # a PDB with no disruptions left makes node1 violating, so node2 wins despite its pricier victim.
        pytest.param((pdb("db", {"app": "db"}, 0),), "node2", ["web-0"], id="pdb-steers-away"),
        # A PDB with budget left is not violated.
        pytest.param((pdb("db", {"app": "db"}, 1),), "node1", ["db-0"], id="pdb-with-budget"),
        # A PDB in another namespace does not match.
        pytest.param((pdb("db", {"app": "db"}, 0, namespace="other"),), "node1", ["db-0"], id="pdb-other-namespace"),
    ],
)
def test_pdb_steers_node_choice(pdbs, expected_node, expected_victims):
    preemptor = pod("critical", HIGH, LARGE).obj()
    pods = [pod("db-0", 0, LARGE, node="node1", labels={"app": "db"}), pod("web-0", 50, LARGE, node="node2", labels={"app": "web"})]
    fwk, pl, state = setup(preemptor, [node("node1"), node("node2")], pods, pdbs=pdbs, offsets=[0])
    result, status = pl.post_filter(state, preemptor, statuses({"node1": U, "node2": U}))
    assert status.is_success(), status
    assert result.nominated_node_name == expected_node
    assert fwk.services.client.calls == [("critical", expected_node, expected_victims)]


# --- TestPreempt ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "preemptor,pods,expected_node,expected_victims",
    [
        # upstream: TestPreempt "basic preemption logic"
        pytest.param(
            pod("p", HIGH, VERY_LARGE).preemption_policy("PreemptLowerPriority"),
            [
                pod("p1.1", LOW, SMALL, node="node1"),
                pod("p1.2", LOW, SMALL, node="node1"),
                pod("p2.1", HIGH, LARGE, node="node2"),
                pod("p3.1", MID, MEDIUM, node="node3"),
            ],
            "node1",
            ["p1.1", "p1.2"],
            id="basic",
        ),
        # upstream: TestPreempt "PreemptionPolicy is nil"
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [
                pod("p1.1", LOW, SMALL, node="node1"),
                pod("p1.2", LOW, SMALL, node="node1"),
                pod("p2.1", HIGH, LARGE, node="node2"),
                pod("p3.1", MID, MEDIUM, node="node3"),
            ],
            "node1",
            ["p1.1", "p1.2"],
            id="policy-nil",
        ),
    ],
)
def test_preempt_evicts_victims(preemptor, pods, expected_node, expected_victims):
    p = preemptor.obj()
    fwk, pl, state = setup(p, [node("node1"), node("node2"), node("node3")], pods, offsets=[0])
    result, status = pl.post_filter(state, p, statuses({"node1": U, "node2": U, "node3": U}))
    assert status.is_success()
    assert result.nominated_node_name == expected_node
    assert fwk.services.client.calls == [("p", expected_node, expected_victims)]


def test_preempt_for_topology_spread_constraints():
    # upstream: TestPreempt "preemption for topology spread constraints"
    sel = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
    p = pod("p", HIGH, labels={"foo": ""}).spread(1, "zone", selector=sel).spread(1, "hostname", selector=sel).obj()
    pods = [
        pod("p-a1", HIGH, node="node-a", labels={"foo": ""}),
        pod("p-a2", HIGH, node="node-a", labels={"foo": ""}),
        pod("p-b1", LOW, node="node-b", labels={"foo": ""}),
        pod("p-x1", HIGH, node="node-x", labels={"foo": ""}),
        pod("p-x2", HIGH, node="node-x", labels={"foo": ""}),
    ]
    nodes = [node(n, labels={"hostname": n, "zone": z}) for n, z in (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"))]
    fwk, pl, state = setup(p, nodes, pods, plugins=("PodTopologySpread",), offsets=[0])
    m = NodeToStatus()
    for info in fwk.snapshot.list():
        m.set(info.name, fwk.run_filter_plugins(state, p, info))
    result, status = pl.post_filter(state, p, m)
    assert status.is_success(), status
    assert result.nominated_node_name == "node-b"
    assert fwk.services.client.calls == [("p", "node-b", ["p-b1"])]


# --- PodEligibleToPreemptOthers -------------------------------------------------------------

DISRUPTION = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]


@pytest.mark.parametrize(
    "preemptor,pods,nodes,nominated_status,expected",
    [
        # upstream: TestPodEligibleToPreemptOthers "Pod with nominated node"
        pytest.param(
            pod("p_with_nominated_node", HIGH).nominated("node1"),
            [pod("p1", LOW, node="node1").terminating()],
            ["node1"],
            Status(UU, "node(s) had untolerated taint(s)"),
            (True, ""),
            id="nominated-node-unresolvable",
        ),
        # upstream: TestPodEligibleToPreemptOthers "Pod without nominated node"
        pytest.param(pod("p_without_nominated_node", HIGH), [], [], None, (True, ""), id="no-nominated-node"),
        # upstream: TestPodEligibleToPreemptOthers "Pod with 'PreemptNever' preemption policy"
        pytest.param(
            pod("p_with_preempt_never_policy", HIGH).preemption_policy("Never"),
            [],
            [],
            None,
            (False, "not eligible due to preemptionPolicy=Never."),
            id="preempt-never",
        ),
        # upstream: TestPodEligibleToPreemptOthers "preemption victim pod terminating, as indicated by the dedicated DisruptionTarget condition"
        pytest.param(
            pod("p_with_nominated_node", HIGH).nominated("node1"),
            [pod("p1", LOW, node="node1").terminating().set("status.conditions", DISRUPTION)],
            ["node1"],
            None,
            (False, "not eligible due to a terminating pod on the nominated node."),
            id="victim-terminating",
        ),
        # upstream: TestPodEligibleToPreemptOthers "non-victim Pods terminating"
        pytest.param(
            pod("p_with_nominated_node", HIGH).nominated("node1"),
            [pod("p1", LOW, node="node1").terminating()],
            ["node1"],
            None,
            (True, ""),
            id="non-victim-terminating",
        ),
    ],
)
def test_pod_eligible_to_preempt_others(preemptor, pods, nodes, nominated_status, expected):
    p = preemptor.obj()
    fwk = new_framework(_config(*FIT), nodes=[node(n) for n in nodes], pods=[x.obj() for x in pods])
    pl = fwk.instances["DefaultPreemption"]
    assert pl.pod_eligible_to_preempt_others(p, nominated_status) == expected


def test_terminating_victim_blocks_post_filter():
    # The FitError part DefaultPreemption adds when its previous victims are still terminating.
    p = pod("p", HIGH, LARGE).nominated("node1").obj()
    pods = [pod("p1", LOW, LARGE, node="node1").terminating().set("status.conditions", DISRUPTION)]
    fwk, pl, state = setup(p, [node("node1", NODE_RES)], pods, offsets=[0])
    result, status = pl.post_filter(state, p, statuses({"node1": U}))
    assert result is None
    assert (status.code, status.message()) == (U, "preemption: not eligible due to a terminating pod on the nominated node.")


# --- candidate budget and args --------------------------------------------------------------


@pytest.mark.parametrize(
    "pct,absolute,num_nodes,expected",
    [
        pytest.param(10, 100, 50, 50, id="defaults-small-cluster-all-nodes"),
        pytest.param(10, 100, 5000, 500, id="defaults-large-cluster-10-percent"),
        pytest.param(10, 100, 300, 100, id="defaults-absolute-floor"),
        pytest.param(40, 1, 5, 2, id="40-percent-of-5"),
        pytest.param(0, 3, 10, 3, id="absolute-only"),
        pytest.param(33, 0, 10, 3, id="percent-truncates"),
    ],
)
def test_calculate_num_candidates(pct, absolute, num_nodes, expected):
    # upstream: default_preemption_test.go TestNodesWherePreemptionMightHelp/calculateNumCandidates
    fwk = new_framework(_config(*FIT, args={"minCandidateNodesPercentage": pct, "minCandidateNodesAbsolute": absolute}))
    assert fwk.instances["DefaultPreemption"].calculate_num_candidates(num_nodes) == expected


def test_default_args():
    assert default_args(None, None) == {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}
    assert default_args({"minCandidateNodesPercentage": 0}, None)["minCandidateNodesPercentage"] == 0


@pytest.mark.parametrize(
    "args,errors",
    [
        pytest.param({"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}, [], id="valid"),
        pytest.param(
            {"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": 100},
            [("minCandidateNodesPercentage", "Invalid value: -1: not in valid range [0, 100]")],
            id="pct-negative",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": 101, "minCandidateNodesAbsolute": 100},
            [("minCandidateNodesPercentage", "Invalid value: 101: not in valid range [0, 100]")],
            id="pct-over-100",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": -1},
            [("minCandidateNodesAbsolute", "Invalid value: -1: not in valid range [0, inf)")],
            id="abs-negative",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
            [
                ("minCandidateNodesPercentage", "Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute"),
                ("minCandidateNodesAbsolute", "Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage"),
            ],
            id="both-zero",
        ),
    ],
)
def test_validate_args(args, errors):
    # upstream: validation_pluginargs.go ValidateDefaultPreemptionArgs
    assert validate_args(args, None) == errors


def test_pre_enqueue_always_admits():
    fwk = new_framework(_config(*FIT))
    assert fwk.instances["DefaultPreemption"].pre_enqueue(pod("p", HIGH).obj()) is None
