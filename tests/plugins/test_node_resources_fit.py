"""NodeResourcesFit: filter statuses and scores, from upstream
pkg/scheduler/framework/plugins/noderesources/{fit_test.go, least_allocated_test.go,
most_allocated_test.go, requested_to_capacity_ratio_test.go}."""

from __future__ import annotations

from typing import Any

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, QueueingHint
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins.node_resources import NodeResourcesFit, fit
from kschedctl.plugins.node_resources.args import NodeResourcesFitArgs
from kschedctl.plugins.node_resources.resource_allocation import (
    ResourceAllocationScorer,
    build_broken_linear_function,
    least_resource_scorer,
)
from kschedctl.testing import (
    args_defaults,
    args_errors,
    make_node,
    make_pod,
    new_framework,
    only_plugins,
)
from kschedctl.versions import KubeVersion

CONFIG = only_plugins("NodeResourcesFit")


def default_args(args: dict | None, version: Any = None) -> dict:
    return args_defaults(NodeResourcesFitArgs, args, version)


def validate_args(args: dict, version: Any = None) -> list:
    return args_errors(NodeResourcesFitArgs, args, version)


EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"


def framework(version: str = "1.37", nodes=(), pods=(), **gates: bool) -> Any:
    return new_framework(CONFIG, nodes=nodes, pods=pods, version=KubeVersion(version).with_gates(**gates))


# --- fit_test.go helpers: newResourcePod / newResourceInitPod / makeAllocatableResources --------


def _container(r: dict) -> dict:
    """A container requesting cpu (millicores), memory, pods 0, ephemeral-storage and scalars,
    every key present even when 0, as newResourcePod writes them."""
    out = {"cpu": f"{r.get('cpu', 0)}m", "memory": str(r.get("mem", 0)), "pods": "0", "ephemeral-storage": str(r.get("storage", 0))}
    out.update({k: str(v) for k, v in r.get("scalar", {}).items()})
    return out


def rpod(*usage: dict, init: tuple = (), overhead: dict | None = None, pod_level: dict | None = None, name: str = "p"):
    b = make_pod(name)
    for r in usage:
        b.res(_container(r))
    for r in init:
        b.init_req(_container(r))
    if overhead:
        b.set("spec.overhead", overhead)
    if pod_level:
        b.set("spec.resources", {"requests": pod_level})
    return b.obj()


def node_info(alloc: tuple[int, int, int, int, int, int], *existing: dict) -> NodeInfo:
    cpu, mem, pods, ext_a, storage, huge = alloc
    node = (
        make_node("n")
        .capacity(**{"cpu": f"{cpu}m", "memory": mem, "pods": pods, EXT_A: ext_a, "ephemeral-storage": storage, HUGE_A: huge})
        .obj()
    )
    return NodeInfo(node, [PodInfo.of(rpod(r, name=f"e{i}")) for i, r in enumerate(existing)])


DEFAULT_ALLOC = (10, 20, 32, 5, 20, 5)
U = Code.Unschedulable
UU = Code.UnschedulableAndUnresolvable


def ins(r: str) -> str:
    return f"Insufficient {r}"


def run_filter(plugin: NodeResourcesFit, pod, ni: NodeInfo):
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, [ni])
    assert status is None
    return plugin.filter(state, pod, ni)


# upstream: fit_test.go TestEnoughRequests (case names as upstream; DRA cases left out)
ENOUGH = [
    ("no resources requested always fits", make_pod("p").obj(), [{"cpu": 10, "mem": 20}], None, None),
    ("too many resources fails", rpod({"cpu": 1, "mem": 1}), [{"cpu": 10, "mem": 20}], None, (U, [ins("cpu"), ins("memory")])),
    (
        "too many resources fails due to init container cpu",
        rpod({"cpu": 1, "mem": 1}, init=({"cpu": 3, "mem": 1},)),
        [{"cpu": 8, "mem": 19}],
        None,
        (U, [ins("cpu")]),
    ),
    (
        "too many resources fails due to highest init container cpu",
        rpod({"cpu": 1, "mem": 1}, init=({"cpu": 3, "mem": 1}, {"cpu": 2, "mem": 1})),
        [{"cpu": 8, "mem": 19}],
        None,
        (U, [ins("cpu")]),
    ),
    (
        "too many resources fails due to init container memory",
        rpod({"cpu": 1, "mem": 1}, init=({"cpu": 1, "mem": 3},)),
        [{"cpu": 9, "mem": 19}],
        None,
        (U, [ins("memory")]),
    ),
    (
        "too many resources fails due to highest init container memory",
        rpod({"cpu": 1, "mem": 1}, init=({"cpu": 1, "mem": 3}, {"cpu": 1, "mem": 2})),
        [{"cpu": 9, "mem": 19}],
        None,
        (U, [ins("memory")]),
    ),
    (
        "init container fits because it's the max, not sum, of containers and init containers",
        rpod({"cpu": 1, "mem": 1}, init=({"cpu": 1, "mem": 1},)),
        [{"cpu": 9, "mem": 19}],
        None,
        None,
    ),
    (
        "multiple init containers fit because it's the max, not sum, of containers and init containers",
        rpod({"cpu": 1, "mem": 1}, init=({"cpu": 1, "mem": 1}, {"cpu": 1, "mem": 1})),
        [{"cpu": 9, "mem": 19}],
        None,
        None,
    ),
    ("both resources fit", rpod({"cpu": 1, "mem": 1}), [{"cpu": 5, "mem": 5}], None, None),
    ("one resource memory fits", rpod({"cpu": 2, "mem": 1}), [{"cpu": 9, "mem": 5}], None, (U, [ins("cpu")])),
    ("one resource cpu fits", rpod({"cpu": 1, "mem": 2}), [{"cpu": 5, "mem": 19}], None, (U, [ins("memory")])),
    ("equal edge case", rpod({"cpu": 5, "mem": 1}), [{"cpu": 5, "mem": 19}], None, None),
    ("equal edge case for init container", rpod({"cpu": 4, "mem": 1}, init=({"cpu": 5, "mem": 1},)), [{"cpu": 5, "mem": 19}], None, None),
    ("extended resource fits", rpod({"scalar": {EXT_A: 1}}), [{}], None, None),
    ("extended resource fits for init container", rpod({}, init=({"scalar": {EXT_A: 1}},)), [{}], None, None),
    (
        "extended resource capacity enforced",
        rpod({"cpu": 1, "mem": 1, "scalar": {EXT_A: 10}}),
        [{"scalar": {EXT_A: 0}}],
        None,
        (UU, [ins(EXT_A)]),
    ),
    (
        "extended resource capacity enforced for init container",
        rpod({}, init=({"cpu": 1, "mem": 1, "scalar": {EXT_A: 10}},)),
        [{"scalar": {EXT_A: 0}}],
        None,
        (UU, [ins(EXT_A)]),
    ),
    (
        "extended resource allocatable enforced",
        rpod({"cpu": 1, "mem": 1, "scalar": {EXT_A: 1}}),
        [{"scalar": {EXT_A: 5}}],
        None,
        (U, [ins(EXT_A)]),
    ),
    (
        "extended resource allocatable enforced for init container",
        rpod({}, init=({"cpu": 1, "mem": 1, "scalar": {EXT_A: 1}},)),
        [{"scalar": {EXT_A: 5}}],
        None,
        (U, [ins(EXT_A)]),
    ),
    (
        "extended resource allocatable enforced for multiple containers",
        rpod({"cpu": 1, "mem": 1, "scalar": {EXT_A: 3}}, {"cpu": 1, "mem": 1, "scalar": {EXT_A: 3}}),
        [{"scalar": {EXT_A: 2}}],
        None,
        (UU, [ins(EXT_A)]),
    ),
    (
        "extended resource allocatable admits multiple init containers",
        rpod({}, init=({"cpu": 1, "mem": 1, "scalar": {EXT_A: 3}}, {"cpu": 1, "mem": 1, "scalar": {EXT_A: 3}})),
        [{"scalar": {EXT_A: 2}}],
        None,
        None,
    ),
    (
        "extended resource allocatable enforced for multiple init containers",
        rpod({}, init=({"cpu": 1, "mem": 1, "scalar": {EXT_A: 6}}, {"cpu": 1, "mem": 1, "scalar": {EXT_A: 3}})),
        [{"scalar": {EXT_A: 2}}],
        None,
        (UU, [ins(EXT_A)]),
    ),
    (
        "extended resource allocatable enforced for unknown resource",
        rpod({"cpu": 1, "mem": 1, "scalar": {EXT_B: 1}}),
        [{}],
        None,
        (UU, [ins(EXT_B)]),
    ),
    (
        "extended resource allocatable enforced for unknown resource for init container",
        rpod({}, init=({"cpu": 1, "mem": 1, "scalar": {EXT_B: 1}},)),
        [{}],
        None,
        (UU, [ins(EXT_B)]),
    ),
    ("kubernetes.io resource capacity enforced", rpod({"cpu": 1, "mem": 1, "scalar": {K8S_IO_A: 10}}), [{}], None, (UU, [ins(K8S_IO_A)])),
    (
        "kubernetes.io resource capacity enforced for init container",
        rpod({}, init=({"cpu": 1, "mem": 1, "scalar": {K8S_IO_B: 10}},)),
        [{}],
        None,
        (UU, [ins(K8S_IO_B)]),
    ),
    (
        "hugepages resource capacity enforced",
        rpod({"cpu": 1, "mem": 1, "scalar": {HUGE_A: 10}}),
        [{"scalar": {HUGE_A: 0}}],
        None,
        (UU, [ins(HUGE_A)]),
    ),
    (
        "hugepages resource capacity enforced for init container",
        rpod({}, init=({"cpu": 1, "mem": 1, "scalar": {HUGE_A: 10}},)),
        [{"scalar": {HUGE_A: 0}}],
        None,
        (UU, [ins(HUGE_A)]),
    ),
    (
        "hugepages resource allocatable enforced for multiple containers",
        rpod({"cpu": 1, "mem": 1, "scalar": {HUGE_A: 3}}, {"cpu": 1, "mem": 1, "scalar": {HUGE_A: 3}}),
        [{"scalar": {HUGE_A: 2}}],
        None,
        (UU, [ins(HUGE_A)]),
    ),
    (
        "skip checking ignored extended resource",
        rpod({"cpu": 1, "mem": 1, "scalar": {EXT_B: 1}}),
        [{}],
        {"ignoredResources": [EXT_B]},
        None,
    ),
    (
        "resources + pod overhead fits",
        rpod({"cpu": 1, "mem": 1}, overhead={"cpu": "3m", "memory": "13"}),
        [{"cpu": 5, "mem": 5}],
        None,
        None,
    ),
    (
        "requests + overhead does not fit for memory",
        rpod({"cpu": 1, "mem": 1}, overhead={"cpu": "1m", "memory": "15"}),
        [{"cpu": 5, "mem": 5}],
        None,
        (U, [ins("memory")]),
    ),
    (
        "skip checking ignored extended resource via resource groups",
        rpod({"cpu": 1, "mem": 1, "scalar": {EXT_B: 1, K8S_IO_A: 1}}),
        [{}],
        {"ignoredResourceGroups": ["example.com"]},
        (UU, [ins(K8S_IO_A)]),
    ),
    (
        "skip checking extended resource request with quantity zero via resource groups",
        rpod({"cpu": 1, "mem": 1, "scalar": {EXT_A: 0}}),
        [{"scalar": {EXT_A: 6}}],
        None,
        None,
    ),
    (
        "skip checking resource request with quantity zero",
        rpod({"scalar": {EXT_A: 1}}),
        [{"cpu": 20, "mem": 30, "scalar": {EXT_A: 1}}],
        None,
        None,
    ),
    (
        "both pod-level and container-level resources fit",
        rpod({"cpu": 1, "mem": 1}, pod_level={"cpu": "1m", "memory": "2"}),
        [{"cpu": 5, "mem": 5}],
        None,
        None,
    ),
    (
        "pod-level cpu resource not fit",
        rpod({"cpu": 1, "mem": 1}, pod_level={"cpu": "7m", "memory": "2"}),
        [{"cpu": 5, "mem": 5}],
        None,
        (U, [ins("cpu")]),
    ),
    (
        "pod-level memory resource not fit",
        rpod({"cpu": 1, "mem": 1}, pod_level={"cpu": "3m", "memory": "2"}),
        [{"cpu": 5, "mem": 19}],
        None,
        (U, [ins("memory")]),
    ),
    ("pod-level hugepages resource fit", rpod(pod_level={"cpu": "3m", "memory": "2", HUGE_A: "5"}), [], None, None),
    (
        "both pod-level and container-level hugepages resource fit",
        rpod({"cpu": 1, "mem": 1, "scalar": {HUGE_A: 3}}, pod_level={"cpu": "3m", "memory": "2", HUGE_A: "5"}),
        [],
        None,
        None,
    ),
    ("pod-level hugepages resource not fit", rpod(pod_level={"cpu": "3m", "memory": "2", HUGE_A: "10"}), [], None, (UU, [ins(HUGE_A)])),
    (
        "one pod-level cpu resource fits and all init and non-init containers resources fit",
        rpod({"cpu": 1, "mem": 1}, init=({"cpu": 1, "mem": 1},), pod_level={"cpu": "3m", "memory": "2"}),
        [{"cpu": 5, "mem": 19}],
        None,
        (U, [ins("memory")]),
    ),
]


@pytest.mark.parametrize("pod,existing,args,want", [c[1:] for c in ENOUGH], ids=[c[0] for c in ENOUGH])
def test_enough_requests(pod, existing, args, want):
    plugin = NodeResourcesFit(args, framework().handle)
    status = run_filter(plugin, pod, node_info(DEFAULT_ALLOC, *existing))
    if want is None:
        assert status is None
    else:
        assert (status.code, status.reasons) == (want[0], want[1])


def test_insufficient_resource_details():
    # upstream: fit_test.go TestEnoughRequests 'extended resource allocatable enforced for multiple containers'
    # (wantInsufficientResources)
    pod = rpod({"cpu": 1, "mem": 1, "scalar": {EXT_A: 3}}, {"cpu": 1, "mem": 1, "scalar": {EXT_A: 3}})
    got = fit.fits_request(PodInfo.of(pod).requests, node_info(DEFAULT_ALLOC, {"scalar": {EXT_A: 2}}))
    assert got == [fit.InsufficientResource(EXT_A, ins(EXT_A), 6, 2, 5, True)]


def test_scalar_reasons_sorted_by_name():
    # upstream ranges over a Go map here; kschedctl sorts the scalar reasons (reference 2.7)
    pod = rpod({"cpu": 1, "mem": 1, "scalar": {EXT_B: 1, K8S_IO_A: 1, EXT_A: 9}})
    status = run_filter(NodeResourcesFit(None, framework().handle), pod, node_info(DEFAULT_ALLOC))
    assert status.reasons == [ins(EXT_A), ins(EXT_B), ins(K8S_IO_A)]


def test_pre_filter_disabled():
    # upstream: fit_test.go TestPreFilterDisabled
    plugin = NodeResourcesFit(None, framework().handle)
    status = plugin.filter(CycleState(), make_pod("p").obj(), node_info(DEFAULT_ALLOC))
    assert status.code == Code.Error


# upstream: fit_test.go TestNotEnoughRequests
NOT_ENOUGH = [
    (
        "even without specified resources, predicate fails when there's no space for additional pod",
        make_pod("p").obj(),
        {"cpu": 10, "mem": 20},
    ),
    (
        "even if both resources fit, predicate fails when there's no space for additional pod",
        rpod({"cpu": 1, "mem": 1}),
        {"cpu": 5, "mem": 5},
    ),
    (
        "even for equal edge case, predicate fails when there's no space for additional pod",
        rpod({"cpu": 5, "mem": 1}),
        {"cpu": 5, "mem": 19},
    ),
    (
        "even for equal edge case, predicate fails when there's no space for additional pod due to init container",
        rpod({"cpu": 5, "mem": 1}, init=({"cpu": 5, "mem": 1},)),
        {"cpu": 5, "mem": 19},
    ),
]


@pytest.mark.parametrize("pod,existing", [c[1:] for c in NOT_ENOUGH], ids=[c[0] for c in NOT_ENOUGH])
def test_not_enough_requests(pod, existing):
    status = run_filter(NodeResourcesFit(None, framework().handle), pod, node_info((10, 20, 1, 0, 0, 0), existing))
    assert (status.code, status.reasons) == (Code.Unschedulable, ["Too many pods"])


# upstream: fit_test.go TestStorageRequests
STORAGE = [
    ("empty storage requested, and pod fits", rpod({"cpu": 1, "mem": 1}), {"cpu": 2, "mem": 10}, None),
    (
        "storage ephemeral local storage request exceeds allocatable",
        rpod({"storage": 25}),
        {"cpu": 2, "mem": 2},
        (UU, [ins("ephemeral-storage")]),
    ),
    ("ephemeral local storage is sufficient", rpod({"storage": 5}), {"cpu": 2, "mem": 2, "storage": 10}, None),
    ("pod fits", rpod({"storage": 10}), {"cpu": 2, "mem": 2}, None),
]


@pytest.mark.parametrize("pod,existing,want", [c[1:] for c in STORAGE], ids=[c[0] for c in STORAGE])
def test_storage_requests(pod, existing, want):
    status = run_filter(NodeResourcesFit(None, framework().handle), pod, node_info(DEFAULT_ALLOC, existing))
    assert (None if status is None else (status.code, status.reasons)) == want


def _sidecar_pod(regular: str | None, sidecar: str | None):
    b = make_pod("p").container({"cpu": regular} if regular else None)
    b.init_req({"cpu": sidecar} if sidecar else {}, sidecar=True)
    return b.obj()


# upstream: fit_test.go TestRestartableInitContainers (node: cpu 2m, pods 1)
RESTARTABLE = [
    ("allow pod without restartable init containers if sidecar containers is disabled", False, make_pod("p").container().obj(), None, None),
    (
        "not allow pod with restartable init containers if sidecar containers is disabled",
        False,
        _sidecar_pod(None, None),
        (UU, [fit.ERR_SIDECARS_DISABLED]),
        None,
    ),
    ("allow pod with restartable init containers if sidecar containers is enabled", True, _sidecar_pod(None, None), None, None),
    (
        "allow pod if the total requested resources do not exceed the node's allocatable resources",
        True,
        _sidecar_pod("1m", "1m"),
        None,
        None,
    ),
    (
        "not allow pod if the total requested resources do exceed the node's allocatable resources",
        True,
        _sidecar_pod("1m", "2m"),
        None,
        (UU, [ins("cpu")]),
    ),
]


@pytest.mark.parametrize("sidecars,pod,want_pre,want_filter", [c[1:] for c in RESTARTABLE], ids=[c[0] for c in RESTARTABLE])
def test_restartable_init_containers(sidecars, pod, want_pre, want_filter):
    plugin = NodeResourcesFit(None, framework(SidecarContainers=sidecars).handle)
    ni = NodeInfo(make_node("n").capacity(cpu="2m", memory="0", pods=1).obj())
    state = CycleState()
    _, pre = plugin.pre_filter(state, pod, [ni])
    assert (None if pre is None else (pre.code, pre.reasons)) == want_pre
    if pre is None:
        status = plugin.filter(state, pod, ni)
        assert (None if status is None else (status.code, status.reasons)) == want_filter


# --- scores ---------------------------------------------------------------------------------


def score_nodes(args: dict | None, pod, nodes, existing, run_pre_score: bool = True, version: str = "1.37"):
    fwk = framework(version, nodes=nodes, pods=existing)
    plugin = NodeResourcesFit(args, fwk.handle)
    state = CycleState()
    out = []
    for n in nodes:
        if run_pre_score:
            assert plugin.pre_score(state, pod, fwk.snapshot.list()) is None
        score, status = plugin.score(state, pod, fwk.snapshot.get(n.name))
        assert status is None
        out.append(score)
    return out


def node(name: str, cpu: str, memory: str, **extra: str):
    return make_node(name).capacity(cpu=cpu, memory=memory, **extra).obj()


def existing_pod(name: str, node_name: str, cpu: str | None = None, memory: str | None = None, sidecar: bool = False):
    b = make_pod(name).node(node_name)
    if cpu is not None:
        b.req(cpu=cpu, memory=memory)
        if sidecar:
            b.init_req({"cpu": cpu, "memory": memory}, sidecar=True)
    return b.obj()


def strategy(kind: str, shape: list | None = None, resources: list | None = None) -> dict:
    s: dict = {"type": kind, "resources": resources or [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
    if shape is not None:
        s["requestedToCapacityRatio"] = {"shape": [{"utilization": u, "score": v} for u, v in shape]}
    return {"scoringStrategy": s}


TWO_NODES = [node("node1", "4000", "10000"), node("node2", "6000", "10000")]
TWO_EXISTING = [existing_pod("e1", "node1", "2000", "4000"), existing_pod("e2", "node2", "1000", "2000")]
SIDECAR_NODES = [node("node1", "4000", "10000"), node("node2", "4000", "10000")]
SIDECAR_EXISTING = [existing_pod("e1", "node1", "1000", "2000", sidecar=True), existing_pod("e2", "node2", "1000", "2000")]
BIG = make_pod("p").req(cpu="3000", memory="5000").obj()
SMALL = make_pod("p").req(cpu="1000", memory="2000").obj()

# upstream: fit_test.go TestFitScore (DRA cases left out)
FIT_SCORE = [
    (
        "test case for ScoringStrategy RequestedToCapacityRatio case1",
        strategy("RequestedToCapacityRatio", [(0, 10), (100, 0)]),
        BIG,
        TWO_NODES,
        TWO_EXISTING,
        True,
        [10, 32],
    ),
    (
        "test case for ScoringStrategy RequestedToCapacityRatio case2",
        strategy("RequestedToCapacityRatio", [(0, 0), (100, 10)]),
        BIG,
        TWO_NODES,
        TWO_EXISTING,
        True,
        [95, 68],
    ),
    ("test case for ScoringStrategy MostAllocated", strategy("MostAllocated"), SMALL, TWO_NODES, TWO_EXISTING, True, [67, 36]),
    ("test case for ScoringStrategy LeastAllocated", strategy("LeastAllocated"), SMALL, TWO_NODES, TWO_EXISTING, True, [32, 63]),
    (
        "test case for ScoringStrategy RequestedToCapacityRatio case1 if PreScore is not called",
        strategy("RequestedToCapacityRatio", [(0, 10), (100, 0)]),
        BIG,
        TWO_NODES,
        TWO_EXISTING,
        False,
        [10, 32],
    ),
    (
        "test case for ScoringStrategy MostAllocated if PreScore is not called",
        strategy("MostAllocated"),
        SMALL,
        TWO_NODES,
        TWO_EXISTING,
        False,
        [67, 36],
    ),
    (
        "test case for ScoringStrategy LeastAllocated if PreScore is not called",
        strategy("LeastAllocated"),
        SMALL,
        TWO_NODES,
        TWO_EXISTING,
        False,
        [32, 63],
    ),
    (
        "test case for ScoringStrategy MostAllocated with sidecar container",
        strategy("MostAllocated"),
        SMALL,
        SIDECAR_NODES,
        SIDECAR_EXISTING,
        True,
        [67, 45],
    ),
    (
        "test case for ScoringStrategy LeastAllocated with sidecar container",
        strategy("LeastAllocated"),
        SMALL,
        SIDECAR_NODES,
        SIDECAR_EXISTING,
        True,
        [32, 55],
    ),
]


@pytest.mark.parametrize("args,pod,nodes,existing,pre,want", [c[1:] for c in FIT_SCORE], ids=[c[0] for c in FIT_SCORE])
def test_fit_score(args, pod, nodes, existing, pre, want):
    assert score_nodes(args, pod, nodes, existing, pre) == want


EXT = "abc.com/xyz"
EXT_SET = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}]
TWO_CONTAINERS = make_pod("p").req(cpu="1000", memory="2000").req(cpu="2000", memory="3000").obj()

# upstream: least_allocated_test.go TestLeastAllocatedScoringStrategy
LEAST = [
    (
        "nothing scheduled, nothing requested",
        make_pod("p").obj(),
        [node("node1", "4000", "10000"), node("node2", "4000", "10000")],
        [],
        None,
        [100, 100],
    ),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        TWO_CONTAINERS,
        [node("node1", "4000", "10000"), node("node2", "6000", "10000")],
        [],
        None,
        [37, 50],
    ),
    (
        "no resources requested, pods scheduled",
        make_pod("p").obj(),
        [node("node1", "4000", "10000"), node("node2", "4000", "10000")],
        [existing_pod(f"e{i}", n) for i, n in enumerate(["node1", "node1", "node2", "node2"])],
        None,
        [100, 100],
    ),
    (
        "no resources requested, pods scheduled with resources",
        make_pod("p").obj(),
        [node("node1", "10000", "20000"), node("node2", "10000", "20000")],
        [
            existing_pod("e1", "node1", "3000", "0"),
            existing_pod("e2", "node1", "3000", "0"),
            existing_pod("e3", "node2", "3000", "0"),
            existing_pod("e4", "node2", "3000", "5000"),
        ],
        None,
        [70, 57],
    ),
    (
        "resources requested, pods scheduled with resources",
        TWO_CONTAINERS,
        [node("node1", "10000", "20000"), node("node2", "10000", "20000")],
        [existing_pod("e1", "node1", "3000", "0"), existing_pod("e2", "node2", "3000", "5000")],
        None,
        [57, 45],
    ),
    (
        "resources requested, pods scheduled with resources, differently sized nodes",
        TWO_CONTAINERS,
        [node("node1", "10000", "20000"), node("node2", "10000", "50000")],
        [existing_pod("e1", "node1", "3000", "0"), existing_pod("e2", "node2", "3000", "5000")],
        None,
        [57, 60],
    ),
    (
        "requested resources exceed node capacity",
        make_pod("p").req(cpu="3000", memory="0").obj(),
        [node("node1", "4000", "10000"), node("node2", "4000", "10000")],
        [existing_pod("e1", "node1", "3000", "0"), existing_pod("e2", "node2", "3000", "5000")],
        None,
        [50, 25],
    ),
    (
        "zero node resources, pods scheduled with resources",
        make_pod("p").obj(),
        [make_node("node1").obj(), make_node("node2").obj()],
        [existing_pod("e1", "node1", "3000", "0"), existing_pod("e2", "node2", "3000", "5000")],
        None,
        [0, 0],
    ),
    (
        "nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes",
        TWO_CONTAINERS,
        [node("node1", "4000", "10000"), node("node2", "6000", "10000")],
        [],
        [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}],
        [41, 50],
    ),
    (
        "bypass extended resource if the pod does not request",
        TWO_CONTAINERS,
        [node("node1", "6000", "10000"), node("node2", "6000", "10000", **{EXT: "4"})],
        [],
        EXT_SET,
        [50, 50],
    ),
    (
        "honor extended resource if the pod requests",
        make_pod("p").res({"cpu": "3000", "memory": "5000", EXT: "2"}).obj(),
        [node("node1", "6000", "10000", **{EXT: "4"}), node("node2", "6000", "10000", **{EXT: "10"})],
        [],
        EXT_SET,
        [50, 60],
    ),
]


@pytest.mark.parametrize("pod,nodes,existing,resources,want", [c[1:] for c in LEAST], ids=[c[0] for c in LEAST])
def test_least_allocated(pod, nodes, existing, resources, want):
    assert score_nodes(strategy("LeastAllocated", resources=resources), pod, nodes, existing) == want


def test_resources_not_set_is_an_error():
    # upstream: least_allocated_test.go 'Resources not set, pods scheduled with error'
    fwk = framework(nodes=[node("node1", "4000", "10000")])
    scorer = ResourceAllocationScorer("LeastAllocated", [], least_resource_scorer([]))
    score, status = scorer.score(fwk.snapshot.get("node1"), [])
    assert (score, status.code) == (0, Code.Error)


# upstream: requested_to_capacity_ratio_test.go TestRequestedToCapacityRatio (shape 0->10, 100->0; memory, cpu)
RTCR = [
    (
        "nothing scheduled, nothing requested (default - least requested nodes have priority)",
        make_pod("p").req(cpu="0", memory="0").obj(),
        [node("node1", "4000m", "10000"), node("node2", "4000m", "10000")],
        [existing_pod("e1", "node1", "0", "0"), existing_pod("e2", "node2", "0", "0")],
        [100, 100],
    ),
    (
        "nothing scheduled, resources requested, differently sized machines (default - least requested nodes have priority)",
        make_pod("p").req(cpu="3000m", memory="5000").obj(),
        [node("node1", "4000m", "10000"), node("node2", "6000m", "10000")],
        [existing_pod("e1", "node1", "0", "0"), existing_pod("e2", "node2", "0", "0")],
        [38, 50],
    ),
    (
        "no resources requested, pods scheduled with resources (default - least requested nodes have priority)",
        make_pod("p").req(cpu="0", memory="0").obj(),
        [node("node1", "4000m", "10000"), node("node2", "6000m", "10000")],
        [existing_pod("e1", "node1", "3000m", "5000"), existing_pod("e2", "node2", "3000m", "5000")],
        [38, 50],
    ),
]


@pytest.mark.parametrize("pod,nodes,existing,want", [c[1:] for c in RTCR], ids=[c[0] for c in RTCR])
def test_requested_to_capacity_ratio(pod, nodes, existing, want):
    args = strategy("RequestedToCapacityRatio", [(0, 10), (100, 0)], [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 1}])
    assert score_nodes(args, pod, nodes, existing) == want


# upstream: requested_to_capacity_ratio_test.go TestBrokenLinearFunction
BROKEN_LINEAR = [
    ([(10, 1), (90, 9)], [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9), (100, 9), (110, 9)]),
    ([(0, 2), (40, 10), (100, 0)], [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)]),
    ([(0, 2), (40, 2), (100, 2)], [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)]),
]


@pytest.mark.parametrize("points,assertions", BROKEN_LINEAR, ids=["increasing", "up-then-down", "flat"])
def test_broken_linear_function(points, assertions):
    f = build_broken_linear_function(points)
    assert [(p, f(p)) for p, _ in assertions] == assertions


def test_broken_linear_function_truncates_toward_zero():
    # helper/shape_score.go: Go integer division; (0-10)*15/100 = -1 (floor division would give -2)
    assert build_broken_linear_function([(0, 10), (100, 0)])(15) == 9


FOO, BAR = "intel.com/foo", "intel.com/bar"


def ext_node(name: str, **ext: str):
    return make_node(name).capacity(cpu="4000m", memory=str(10000 * 1024 * 1024), **ext).obj()


# upstream: requested_to_capacity_ratio_test.go TestResourceBinPackingSingleExtended (shape 0->0, 100->1)
SINGLE_EXT = [
    ("nothing scheduled, nothing requested", make_pod("p").obj(), [], [0, 0]),
    ("resources requested, pods scheduled with less resources", make_pod("p").res({FOO: "2"}).obj(), [], [2, 5]),
    (
        "resources requested, pods scheduled with resources, on node with existing pod running",
        make_pod("p").res({FOO: "2"}).obj(),
        [make_pod("e").res({FOO: "2"}).node("machine2").obj()],
        [2, 10],
    ),
    ("resources requested, pods scheduled with more resources", make_pod("p").res({FOO: "4"}).obj(), [], [5, 10]),
]


@pytest.mark.parametrize("pod,existing,want", [c[1:] for c in SINGLE_EXT], ids=[c[0] for c in SINGLE_EXT])
def test_bin_packing_single_extended(pod, existing, want):
    nodes = [ext_node("machine1", **{FOO: "8"}), ext_node("machine2", **{FOO: "4"})]
    args = strategy("RequestedToCapacityRatio", [(0, 0), (100, 1)], [{"name": FOO, "weight": 1}])
    assert score_nodes(args, pod, nodes, existing) == want


@pytest.mark.parametrize(
    "pod,want",
    [
        (make_pod("p").obj(), [0, 0]),
        (make_pod("p").res({FOO: "2", BAR: "2"}).obj(), [4, 3]),
    ],
    ids=["nothing scheduled, nothing requested", "resources requested, pods scheduled with less resources"],
)
def test_bin_packing_multiple_extended(pod, want):
    # upstream: requested_to_capacity_ratio_test.go TestResourceBinPackingMultipleExtended (foo weight 3, bar weight 5)
    nodes = [ext_node("machine1", **{FOO: "8", BAR: "4"}), ext_node("machine2", **{FOO: "4", BAR: "8"})]
    args = strategy("RequestedToCapacityRatio", [(0, 0), (100, 1)], [{"name": FOO, "weight": 3}, {"name": BAR, "weight": 5}])
    assert score_nodes(args, pod, nodes, []) == want


def test_most_allocated_caps_requested_at_capacity():
    # most_allocated.go: pods without requests can push the non-zero total over allocatable;
    # the resource then scores as full (100), not 0. cpu 300m of defaults on a 200m node.
    nodes = [node("node1", "200m", "10000Mi")]
    existing = [make_pod(f"e{i}").container().node("node1").obj() for i in range(2)]
    pod = make_pod("p").container().obj()  # 100m, 200Mi by default
    # cpu: min(300, 200) * 100 / 200 = 100; memory: 600Mi * 100 / 10000Mi = 6 -> (100 + 6) / 2 = 53
    assert score_nodes(strategy("MostAllocated"), pod, nodes, existing) == [53]


# --- args ------------------------------------------------------------------------------------


def test_default_args():
    # apis/config/v1 defaults.go SetDefaults_NodeResourcesFitArgs
    assert default_args(None) == {
        "scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
    }
    got = default_args({"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu"}]}})
    assert got["scoringStrategy"] == {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}]}


VALIDATION = [
    # upstream: least_allocated_test.go 'resource with negative weight' / 'resource weight larger than MaxNodeScore'
    (
        "negative weight",
        {"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}]}},
        [("scoringStrategy.resources[0].weight", "Invalid value: -1: resource weight of memory not in valid range (0, 100]")],
    ),
    (
        "weight larger than MaxNodeScore",
        {"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 101}]}},
        [("scoringStrategy.resources[1].weight", "Invalid value: 101: resource weight of cpu not in valid range (0, 100]")],
    ),
    (
        "unsupported type",
        {"scoringStrategy": {"type": "Foo", "resources": [{"name": "cpu", "weight": 1}]}},
        [
            (
                "scoringStrategy.type",
                'Unsupported value: "Foo": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
            )
        ],
    ),
    (
        "rtcr without params",
        {"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": []}},
        [("scoringStrategy.requestedToCapacityRatio", "Required value: must be specified when type is RequestedToCapacityRatio")],
    ),
    (
        "params with another type",
        {"scoringStrategy": {"type": "MostAllocated", "resources": [], "requestedToCapacityRatio": {"shape": []}}},
        [("scoringStrategy.requestedToCapacityRatio", "Forbidden: must be nil when type is not RequestedToCapacityRatio")],
    ),
    (
        "empty shape",
        strategy("RequestedToCapacityRatio", []),
        [("scoringStrategy.requestedToCapacityRatio.shape", "Required value: at least one point must be specified")],
    ),
    (
        "shape out of order and out of range",
        strategy("RequestedToCapacityRatio", [(10, 1), (10, 11), (101, 2)]),
        [
            (
                "scoringStrategy.requestedToCapacityRatio.shape[1].utilization",
                "Invalid value: 10: values must be sorted in increasing order",
            ),
            ("scoringStrategy.requestedToCapacityRatio.shape[1].score", "Invalid value: 11: not in valid range [0, 10]"),
            ("scoringStrategy.requestedToCapacityRatio.shape[2].utilization", "Invalid value: 101: not in valid range [0, 100]"),
        ],
    ),
    (
        "resource group with a slash",
        {**default_args(None), "ignoredResourceGroups": ["example.com/aa"]},
        [("ignoredResourceGroups[0]", "Invalid value: \"example.com/aa\": resource group name can't contain '/'")],
    ),
    (
        "bad ignored resource name",
        {**default_args(None), "ignoredResources": ["-bad"]},
        [
            (
                "ignoredResources[0]",
                "Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' "
                "or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
                "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            )
        ],
    ),
    ("valid", {**default_args(None), "ignoredResources": ["example.com/bbb"], "ignoredResourceGroups": ["example.com"]}, []),
]


@pytest.mark.parametrize("args,want", [c[1:] for c in VALIDATION], ids=[c[0] for c in VALIDATION])
def test_validate_args(args, want):
    assert validate_args(args) == want


def test_invalid_args_reject_the_plugin():
    with pytest.raises(ValueError, match=r"scoringStrategy.resources\[0\].weight"):
        NodeResourcesFit({"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 200}]}}, framework().handle)


# --- events and queueing hints ---------------------------------------------------------------


def test_events_to_register():
    # upstream: fit.go EventsToRegister with queueing hints and InPlacePodVerticalScaling on
    got = [(e.event.resource, e.event.action) for e in NodeResourcesFit(None, framework().handle).events_to_register()]
    assert got == [("Pod", "Delete"), ("Pod", "UpdatePodScaleDown"), ("Node", "Add"), ("Node", "UpdateNodeAllocatable")]
    got = [
        (e.event.resource, e.event.action)
        for e in NodeResourcesFit(None, framework(SchedulerQueueingHints=False).handle).events_to_register()
    ]
    assert ("Node", "UpdateNodeTaint") in got and ("Node", "UpdateNodeLabel") in got


def test_queueing_hints():
    plugin = NodeResourcesFit(None, framework().handle)
    pod = make_pod("p").req(cpu="2").obj()
    small, big = node("n", "1", "1Gi"), node("n", "4", "1Gi")
    assert plugin.is_schedulable_after_node_change(pod, None, big) == QueueingHint.Queue
    assert plugin.is_schedulable_after_node_change(pod, None, small) == QueueingHint.QueueSkip
    assert plugin.is_schedulable_after_node_change(pod, small, big) == QueueingHint.Queue
    assert plugin.is_schedulable_after_node_change(pod, big, big) == QueueingHint.QueueSkip
    bound = make_pod("b").req(cpu="1").node("n").obj()
    assert plugin.is_schedulable_after_pod_event(pod, bound, None) == QueueingHint.Queue
    assert plugin.is_schedulable_after_pod_event(pod, make_pod("u").obj(), None) == QueueingHint.QueueSkip
    shrunk = make_pod("b").req(cpu="500m").node("n").obj()
    assert plugin.is_schedulable_after_pod_event(pod, bound, shrunk) == QueueingHint.Queue
