"""NodeResourcesBalancedAllocation scores, from upstream
pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go.

Upstream's table (read at a 1.35-era revision) holds the <= 1.35 scores; the 1.36+ column applies
balanced_allocation.go's newer formula (kubernetes/kubernetes#135573, in CHANGELOG-1.36
v1.36.0-alpha.1) to the same inputs: 50 + (50 + withPod - withoutPod) / 2, worked out in the
comments."""

from __future__ import annotations

from typing import Any

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code
from kschedctl.plugins.node_resources import NodeResourcesBalancedAllocation
from kschedctl.plugins.node_resources.args import NodeResourcesBalancedAllocationArgs
from kschedctl.plugins.node_resources.balanced_allocation import (
    balanced_resource_score,
    balanced_resource_scorer_improvement,
)
from kschedctl.testing import (
    args_defaults,
    args_errors,
    make_node,
    make_pod,
    new_framework,
    only_plugins,
)
from kschedctl.versions import CHANGES, KubeVersion

CONFIG = only_plugins("NodeResourcesBalancedAllocation")


def default_args(args: dict | None, version: Any = None) -> dict:
    return args_defaults(NodeResourcesBalancedAllocationArgs, args, version)


def validate_args(args: dict, version: Any = None) -> list:
    return args_errors(NodeResourcesBalancedAllocationArgs, args, version)


GPU = "nvidia.com/gpu"
DEFAULT_SET = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
GPU_SET = DEFAULT_SET + [{"name": GPU, "weight": 1}]


def framework(version: str, nodes=(), pods=()) -> Any:
    return new_framework(CONFIG, nodes=nodes, pods=pods, version=KubeVersion(version))


def node(name: str, milli_cpu: int, memory: int, gpu: int | None = None):
    extra = {GPU: str(gpu)} if gpu is not None else {}
    return make_node(name).capacity(cpu=f"{milli_cpu}m", memory=str(memory), **extra).obj()


# balanced_allocation_test.go pod specs
def cpu_only(name: str, node_name: str | None = None):
    b = make_pod(name).req(cpu="1000m", memory="0").req(cpu="2000m", memory="0")
    return (b.node(node_name) if node_name else b).obj()


def cpu_and_memory(name: str, node_name: str | None = None):
    b = make_pod(name).req(cpu="1000m", memory="2000").req(cpu="2000m", memory="3000")
    return (b.node(node_name) if node_name else b).obj()


def cpu_memory_gpu(name: str, node_name: str):
    return make_pod(name).req(cpu="1000m", memory="2000").res({"cpu": "2000m", "memory": "3000", GPU: "3"}).node(node_name).obj()


EXISTING = [cpu_only("e1", "node1"), cpu_and_memory("e2", "node2")]

# (name, pod, nodes, existing pods, resources, run PreScore, scores <= 1.35, scores >= 1.36)
CASES = [
    # upstream: 'nothing scheduled, resources requested, differently sized nodes'
    # 1.36: node1 with (.75,.5) -> 87, without (0,0) -> 100: 50 + (50+87-100)/2 = 68; node2 100/100 -> 75
    (
        "nothing scheduled, resources requested, differently sized nodes",
        cpu_and_memory("p"),
        [node("node1", 4000, 10000), node("node2", 6000, 10000)],
        [],
        DEFAULT_SET,
        True,
        [87, 100],
        [68, 75],
    ),
    # upstream: 'resources requested, pods scheduled with resources'
    # 1.36: node1 with (.6,.25) -> 82, without (.3,0) -> 85: 73; node2 with (.6,.5) -> 95, without (.3,.25) -> 97: 74
    (
        "resources requested, pods scheduled with resources",
        cpu_and_memory("p"),
        [node("node1", 10000, 20000), node("node2", 10000, 20000)],
        EXISTING,
        DEFAULT_SET,
        True,
        [82, 95],
        [73, 74],
    ),
    # upstream: 'resources requested, pods scheduled with resources, differently sized nodes'
    # 1.36: node2 with (.6,.2) -> 80, without (.3,.1) -> 90: 50 + 40/2 = 70
    (
        "resources requested, pods scheduled with resources, differently sized nodes",
        cpu_and_memory("p"),
        [node("node1", 10000, 20000), node("node2", 10000, 50000)],
        EXISTING,
        DEFAULT_SET,
        True,
        [82, 80],
        [73, 70],
    ),
    # upstream: 'requested resources at node capacity'
    # 1.36: node1 with (1,0) -> 50, without (.5,0) -> 75: 62; node2 with (1,.5) -> 75, without (.5,.5) -> 100: 62
    (
        "requested resources at node capacity",
        cpu_only("p"),
        [node("node1", 6000, 10000), node("node2", 6000, 10000)],
        EXISTING,
        DEFAULT_SET,
        True,
        [50, 75],
        [62, 62],
    ),
    # upstream: 'include scalar resource on a node for balanced resource allocation'
    (
        "include scalar resource on a node for balanced resource allocation",
        make_pod("p").res({"memory": "0", GPU: "1"}).obj(),
        [node("node1", 3500, 40000, 8), node("node2", 3500, 40000, 8)],
        # 1.36: node1 with (.857,.125,.5) -> 70, without (.857,.125,.375) -> 69: 50 + 51/2 = 75;
        #       node2 with (.857,.125,.125) -> 65, without (.857,.125,0) -> 62: 50 + 53/2 = 76
        [cpu_and_memory("e1", "node2"), cpu_memory_gpu("e2", "node1")],
        GPU_SET,
        True,
        [70, 65],
        [75, 76],
    ),
    # upstream: 'node without the scalar resource should skip the scalar resource'
    (
        "node without the scalar resource should skip the scalar resource",
        cpu_and_memory("p"),
        [node("node1", 3500, 40000, 8), node("node2", 3500, 40000)],
        [],
        GPU_SET,
        True,
        [63, 63],
        [56, 56],
    ),
    # upstream: 'resources requested, pods scheduled with resources if PreScore not called'
    (
        "resources requested, pods scheduled with resources if PreScore not called",
        cpu_and_memory("p"),
        [node("node1", 10000, 20000), node("node2", 10000, 20000)],
        EXISTING,
        DEFAULT_SET,
        False,
        [82, 95],
        [73, 74],
    ),
]


@pytest.mark.parametrize("version", ["1.35", "1.36", "1.37"])
@pytest.mark.parametrize("pod,nodes,existing,resources,pre,legacy,improved", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_balanced_allocation(version, pod, nodes, existing, resources, pre, legacy, improved):
    fwk = framework(version, nodes, existing)
    plugin = NodeResourcesBalancedAllocation({"resources": resources}, fwk.handle)
    state = CycleState()
    if pre:
        assert plugin.pre_score(state, pod, fwk.snapshot.list()) is None
    got = []
    for n in nodes:
        score, status = plugin.score(state, pod, fwk.snapshot.get(n.name))
        assert status is None
        got.append(score)
    assert got == (legacy if version == "1.35" else improved)


def test_best_effort_pod_skipped_in_pre_score():
    # upstream: balanced_allocation_test.go 'nothing scheduled, nothing requested, skip in PreScore'
    nodes = [node("node1", 4000, 10000), node("node2", 4000, 10000)]
    fwk = framework("1.37", nodes)
    plugin = NodeResourcesBalancedAllocation(None, fwk.handle)
    status = plugin.pre_score(CycleState(), make_pod("p").obj(), fwk.snapshot.list())
    assert status.code == Code.Skip
    # without PreScore, Score gives 0 for a best-effort pod (balanced_allocation.go Score)
    assert plugin.score(CycleState(), make_pod("p").obj(), fwk.snapshot.get("node1")) == (0, None)


def test_real_requests_not_non_zero_defaults():
    # balanced_allocation.go uses useRequested: a container without requests counts as 0, so a
    # pod asking only for memory is not best-effort and cpu stays at 0.
    fwk = framework("1.35", [node("node1", 4000, 10000)])
    plugin = NodeResourcesBalancedAllocation(None, fwk.handle)
    pod = make_pod("p").req(memory="5000").obj()
    state = CycleState()
    assert plugin.pre_score(state, pod, fwk.snapshot.list()) is None
    # fractions (0, .5): std .25 -> 75
    assert plugin.score(state, pod, fwk.snapshot.get("node1")) == (75, None)


@pytest.mark.parametrize(
    "requested,allocatable,want",
    [
        ([3000, 5000], [4000, 10000], 87),
        ([0, 0], [0, 0], 100),
        ([7000, 5000], [4000, 10000], 75),  # cpu fraction capped at 1
        ([1, 1, 1], [2, 4, 8], 84),  # three fractions: population std .156
        ([5, 7], [10, 0], 100),  # one fraction: std 0
    ],
)
def test_balanced_resource_score(requested, allocatable, want):
    assert balanced_resource_score(requested, allocatable) == want


@pytest.mark.parametrize(
    "requested,allocated,want",
    [
        ([10, 10], [10, 0], 100),  # perfectly imbalanced to balanced
        ([10, 0], [0, 0], 50),  # balanced to perfectly imbalanced
        ([3, 3], [1, 1], 75),  # no change in balance
    ],
)
def test_improvement_formula_range(requested, allocated, want):
    assert balanced_resource_scorer_improvement(requested, allocated, [10, 10]) == want


def test_change_entry_release():
    # CHANGELOG-1.36.md v1.36.0-alpha.1 lists kubernetes/kubernetes#135573
    assert CHANGES["BalancedAllocationScoresImprovement"].since == "1.36"


def test_default_args():
    # apis/config/v1 defaults.go SetDefaults_NodeResourcesBalancedAllocationArgs
    assert default_args(None) == {"resources": DEFAULT_SET}
    assert default_args({"resources": [{"name": GPU}]}) == {"resources": [{"name": GPU, "weight": 1}]}


@pytest.mark.parametrize(
    "args,want",
    [
        ({"resources": DEFAULT_SET}, []),
        ({"resources": [{"name": "cpu", "weight": 2}]}, [("resources[0].weight", "Invalid value: 2: must be 1")]),
        ({"resources": [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}]}, [("resources[1].name", 'Duplicate value: "cpu"')]),
    ],
    ids=["valid", "weight not 1", "duplicate"],
)
def test_validate_args(args, want):
    # validation_pluginargs.go ValidateNodeResourcesBalancedAllocationArgs
    assert validate_args(args) == want


def test_invalid_args_reject_the_plugin():
    with pytest.raises(ValueError, match="must be 1"):
        NodeResourcesBalancedAllocation({"resources": [{"name": "cpu", "weight": 3}]}, framework("1.37").handle)
