"""Score + NormalizeScore of NodeResourcesAllocatable, from upstream's test table.

upstream: kubernetes-sigs/scheduler-plugins pkg/noderesources/allocatable_test.go
TestNodeResourcesAllocatable (each case named by its upstream name).
"""

from __future__ import annotations

import pytest
from kschedctl_node_resources_allocatable import NodeResourcesAllocatable

from kschedctl.framework.gosemantics import int64, int64_div
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    Code,
    NodeScore,
)
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.testing import make_node, make_pod

MID = (MIN_NODE_SCORE + MAX_NODE_SCORE) // 2
MiB = 1 << 20

# 1 millicore weighted the same as 1 MiB / 1 GiB.
DEFAULT_SET = [{"name": "cpu", "weight": 1 << 20}, {"name": "memory", "weight": 1}]
CPU_SET = [{"name": "cpu", "weight": 1 << 30}, {"name": "memory", "weight": 1}]


def node_info(name: str, milli_cpu: int, memory: int, pods=()) -> NodeInfo:
    """makeNodeInfo: allocatable = capacity = milli_cpu, memory bytes."""
    node = make_node(name).capacity(cpu=f"{milli_cpu}m", memory=str(memory)).obj()
    return NodeInfo(node, [PodInfo(p) for p in pods])


def no_resources():
    return make_pod("noResources").obj()


def cpu_and_memory():
    return make_pod("cpuAndMemory").req(cpu="1000m", memory="1Gi").obj()


def big_cpu():
    return make_pod("bigCpu").req(cpu="8000m", memory="1Gi").obj()


def scheduled_pod(node: str):
    """scheduledPod: two containers with cpu 1000m / 2000m and memory 0, bound to the node."""
    return make_pod(f"scheduled-{node}").req(cpu="1000m", memory="0").req(cpu="2000m", memory="0").node(node).obj()


def labelled_pod(name: str, node: str, labels: dict[str, str]):
    return make_pod(name).labels(labels).node(node).obj()


LABELS1 = {"foo": "bar", "baz": "blah"}
LABELS2 = {"bar": "foo", "baz": "blah"}

CASES = [
    pytest.param(
        no_resources,
        lambda: [node_info("machine1", 4000, 10000), node_info("machine2", 4000, 10000)],
        {"resources": DEFAULT_SET, "mode": "Least"},
        [MIN_NODE_SCORE, MIN_NODE_SCORE],
        id="nothing scheduled, nothing requested",
    ),
    pytest.param(
        cpu_and_memory,
        lambda: [node_info("machine1", 4000, 10000), node_info("machine2", 6000, 10000)],
        {"resources": DEFAULT_SET, "mode": "Least"},
        [MAX_NODE_SCORE, MIN_NODE_SCORE],
        id="nothing scheduled, resources requested, differently sized machines, least mode",
    ),
    pytest.param(
        cpu_and_memory,
        lambda: [node_info("machine1", 4000, 10000), node_info("machine2", 6000, 10000)],
        {"resources": DEFAULT_SET, "mode": "Most"},
        [MIN_NODE_SCORE, MAX_NODE_SCORE],
        id="nothing scheduled, resources requested, differently sized machines, most mode",
    ),
    # Upstream puts these pods in an informer only; here they are on the nodes, which must not matter.
    pytest.param(
        no_resources,
        lambda: [
            node_info("machine1", 4000, 10000, [labelled_pod("a", "machine1", LABELS2), labelled_pod("b", "machine1", LABELS1)]),
            node_info("machine2", 4000, 10000, [labelled_pod("c", "machine2", LABELS1), labelled_pod("d", "machine2", LABELS1)]),
        ],
        {"resources": DEFAULT_SET, "mode": "Least"},
        [MIN_NODE_SCORE, MIN_NODE_SCORE],
        id="no resources requested, pods scheduled",
    ),
    pytest.param(
        no_resources,
        lambda: [
            node_info("machine1", 10000, 20000, [scheduled_pod("machine1")]),
            node_info("machine2", 10000, 20000),
        ],
        {"resources": DEFAULT_SET, "mode": "Least"},
        [MIN_NODE_SCORE, MIN_NODE_SCORE],
        id="no resources requested, pods scheduled with resources",
    ),
    pytest.param(
        cpu_and_memory,
        lambda: [
            node_info("machine1", 10000, 20000, [scheduled_pod("machine1")]),
            node_info("machine2", 10000, 20000),
        ],
        {"resources": DEFAULT_SET, "mode": "Least"},
        [MIN_NODE_SCORE, MIN_NODE_SCORE],
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        big_cpu,
        lambda: [node_info("machine1", 4000, 1000), node_info("machine2", 5000, 1000)],
        {"resources": DEFAULT_SET, "mode": "Least"},
        [MAX_NODE_SCORE, MIN_NODE_SCORE],
        id="resources requested with more than the node, differently sized machines, least mode",
    ),
    pytest.param(
        big_cpu,
        lambda: [node_info("machine1", 4000, 1000), node_info("machine2", 5000, 1000)],
        {"resources": DEFAULT_SET, "mode": "Most"},
        [MIN_NODE_SCORE, MAX_NODE_SCORE],
        id="resources requested with more than the node, differently sized machines, most mode",
    ),
    # (upstream's names of the next two have "most"/"least" swapped relative to their args)
    pytest.param(
        cpu_and_memory,
        lambda: [node_info("machine1", 1000, 2000), node_info("machine2", 1005, 1000)],
        {"resources": CPU_SET, "mode": "Least"},
        [MAX_NODE_SCORE, MIN_NODE_SCORE],
        id="nothing scheduled, resources requested, differently sized machines, cpu weighted, most mode",
    ),
    pytest.param(
        cpu_and_memory,
        lambda: [node_info("machine1", 1000, 2000), node_info("machine2", 1005, 1000)],
        {"resources": CPU_SET, "mode": "Most"},
        [MIN_NODE_SCORE, MAX_NODE_SCORE],
        id="nothing scheduled, resources requested, differently sized machines, cpu weighted, least mode",
    ),
    pytest.param(
        cpu_and_memory,
        lambda: [node_info("machine1", 1000, 1000 * MiB), node_info("machine2", 2000, 2000 * MiB), node_info("machine3", 3000, 3000 * MiB)],
        {"resources": DEFAULT_SET, "mode": "Least"},
        [MAX_NODE_SCORE, MID, MIN_NODE_SCORE],
        id="nothing scheduled, resources requested, 3 differently sized machines, least mode",
    ),
    pytest.param(
        cpu_and_memory,
        lambda: [node_info("machine1", 1000, 1000 * MiB), node_info("machine2", 2000, 2000 * MiB), node_info("machine3", 3000, 3000 * MiB)],
        {"resources": DEFAULT_SET, "mode": "Most"},
        [MIN_NODE_SCORE, MID, MAX_NODE_SCORE],
        id="nothing scheduled, resources requested, 3 differently sized machines, most mode",
    ),
]


def run_score(plugin: NodeResourcesAllocatable, pod, infos: list[NodeInfo]) -> list[NodeScore]:
    scores = []
    for info in infos:
        value, status = plugin.score(None, pod, info)
        assert status is None, status
        scores.append(NodeScore(info.name, value))
    assert plugin.score_extensions().normalize_score(None, pod, scores) is None
    return scores


@pytest.mark.parametrize("make_pod_, make_infos, args, expected", CASES)
def test_node_resources_allocatable(make_pod_, make_infos, args, expected):
    # upstream: allocatable_test.go TestNodeResourcesAllocatable (case = test id)
    plugin = NodeResourcesAllocatable(args, handle=None)
    infos = make_infos()
    scores = run_score(plugin, make_pod_(), infos)
    assert [s.name for s in scores] == [i.name for i in infos]
    assert [s.score for s in scores] == expected


@pytest.mark.parametrize(
    "args, want_err",
    [
        # upstream: allocatable_test.go TestNodeResourcesAllocatable "resource with negative weight"
        pytest.param(
            {"resources": [{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}]},
            "resource Weight of memory should be a positive value, got -1",
            id="resource with negative weight",
        ),
        # upstream: allocatable_test.go TestNodeResourcesAllocatable "resource with zero weight"
        pytest.param(
            {"resources": [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}]},
            "resource Weight of cpu should be a positive value, got 0",
            id="resource with zero weight",
        ),
        # upstream: allocatable.go NewAllocatable (invalid mode branch)
        pytest.param({"mode": "Sideways"}, "invalid mode, got Sideways", id="invalid mode"),
    ],
)
def test_new_allocatable_errors(args, want_err):
    with pytest.raises(ValueError) as exc:
        NodeResourcesAllocatable(args, handle=None)
    assert str(exc.value) == want_err


def test_raw_scores_are_weighted_means_in_go_int64():
    # upstream: allocatable.go resourceScorer: (sum -alloc*weight) / sum(weight), truncated toward zero
    plugin = NodeResourcesAllocatable(None, handle=None)  # defaults: Least, cpu 1<<20, memory 1
    info = node_info("n", 4000, 10000)
    value, status = plugin.score(None, no_resources(), info)
    assert status is None
    assert value == int64_div(-(4000 * (1 << 20) + 10000), (1 << 20) + 1) == -4000
    most = NodeResourcesAllocatable(
        {"mode": "Most", "resources": [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 2}]}, handle=None
    )
    assert most.score(None, no_resources(), info)[0] == (4000 * 3 + 10000 * 2) // 5


def test_scalar_and_unknown_resources():
    # upstream: resource_allocation.go calculateResourceAllocatableRequest: scalar resources are
    # read from allocatable; a resource that is neither native nor scalar (pods) counts 0.
    plugin = NodeResourcesAllocatable(
        {"mode": "Most", "resources": [{"name": "example.com/gpu", "weight": 1}, {"name": "pods", "weight": 1}]}, handle=None
    )
    with_gpu = NodeInfo(make_node("gpu").capacity(cpu="1", memory="1Gi").res({"example.com/gpu": "8"}).obj())
    without = NodeInfo(make_node("plain").capacity(cpu="1", memory="1Gi").obj())
    assert plugin.score(None, no_resources(), with_gpu)[0] == 4  # (8 + 0) / 2
    assert plugin.score(None, no_resources(), without)[0] == 0


def test_node_not_found():
    # upstream: resource_allocation.go score: `node not found` Error when the NodeInfo has no node
    value, status = NodeResourcesAllocatable(None, handle=None).score(None, no_resources(), NodeInfo())
    assert value == 0 and status.code == Code.Error and status.message() == "node not found"


def test_normalize_score_truncates_and_handles_empty():
    # upstream: allocatable.go NormalizeScore: ((s - lowest) * 100 / (highest - lowest)) in int64
    plugin = NodeResourcesAllocatable(None, handle=None)
    scores = [NodeScore("a", -3), NodeScore("b", 0), NodeScore("c", -1)]
    plugin.normalize_score(None, None, scores)
    assert [s.score for s in scores] == [0, 100, 66]
    empty: list[NodeScore] = []
    assert plugin.normalize_score(None, None, empty) is None and empty == []


def test_go_int64_helpers():
    assert int64_div(-7, 2) == -3 and int64_div(7, -2) == -3 and int64_div(-7, -2) == 3
    assert int64(1 << 63) == -(1 << 63)
    assert int64(-(1 << 63) - 1) == (1 << 63) - 1
