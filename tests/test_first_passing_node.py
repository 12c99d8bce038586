"""Framework.first_passing_node finds the node a walk calling run_filter_plugins node by node
finds (cluster-autoscaler's FitsAnyNodeMatching, which `capacity --nodes-for` walks for every
pod over the nodes it added), whether it filters in batches or not: with plugins that reject
some nodes, a plugin that fails with an Error on some (the walk goes on after it), and nodes
with nominated pods (which the batch would filter in two passes)."""

from __future__ import annotations

import random

import pytest

from kschedctl.backend.queue.nominator import Nominator
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, Status
from kschedctl.framework.types import PodInfo
from kschedctl.plugins.taint_toleration import TaintToleration
from kschedctl.testing import make_node, make_pod, new_framework


def _cluster(rng: random.Random, n: int):
    nodes, bound = [], []
    for i in range(n):
        b = make_node(f"n{i:03d}").capacity(cpu="4", memory="8Gi", pods=str(rng.choice([1, 5, 10])))
        if rng.random() < 0.1:
            b = b.taint("dedicated", "a")
        if rng.random() < 0.05:
            b = b.unschedulable()
        nodes.append(b.obj())
        # most nodes nearly full: a big pod fits few of them, far into the order
        if rng.random() < 0.99:
            bound.append(make_pod(f"b{i}").req(cpu=rng.choice(["1500m", "3", "3"])).node(f"n{i:03d}").obj())
    return nodes, bound


def _walk(fwk, state, pod, nodes) -> int | None:
    for i, info in enumerate(nodes):
        if fwk.run_filter_plugins(state, pod, info).is_success():
            return i
    return None


def _order(rng: random.Random, infos: list) -> list:
    start = rng.randrange(len(infos))
    order = infos[start:] + infos[:start]
    return [info for info in order if rng.random() < 0.8]


@pytest.mark.parametrize("seed", range(5))
def test_first_passing_node_equals_the_walk(seed):
    rng = random.Random(seed)
    nodes, bound = _cluster(rng, 300)
    fwk = new_framework(nodes=nodes, pods=bound)
    infos = fwk.snapshot.list()
    found_late = 0
    for p in range(20):
        pod = make_pod(f"p{p}").req(cpu=rng.choice(["1", "2", "3"])).obj()
        state = CycleState()
        fwk.run_pre_filter_plugins(state, pod, infos)
        order = _order(rng, infos)
        fwk.use_batch = False
        walked = _walk(fwk, state, pod, order)
        fwk.use_batch = True
        assert fwk.first_passing_node(state, pod, order) == walked, p
        found_late += walked is None or walked >= 64
    assert found_late  # past the first chunk, or nowhere: more than one batch was filtered


def test_an_error_on_a_node_lets_the_walk_go_on(monkeypatch):
    """TaintToleration fails with an Error on the first nodes: run_filter_plugins_batch gives
    the nodes after such a node that Error without asking; the walk asks them, and so must
    first_passing_node (the first node past the failing ones that fits)."""
    nodes = [make_node(f"n{i:03d}").capacity(cpu="4", memory="8Gi", pods="10").obj() for i in range(200)]
    bound = [make_pod(f"b{i}").req(cpu="3").node(f"n{i:03d}").obj() for i in range(200) if i < 150]
    fwk = new_framework(nodes=nodes, pods=bound)
    failing = {f"n{i:03d}" for i in range(0, 100, 7)}
    original = TaintToleration.filter

    def filter_(self, state, pod, node_info):
        if node_info.name in failing:
            return Status(Code.Error, "boom")
        return original(self, state, pod, node_info)

    monkeypatch.setattr(TaintToleration, "filter", filter_)
    monkeypatch.setattr(TaintToleration, "filter_batch", lambda self, state, pod, nodes: None, raising=False)
    infos = fwk.snapshot.list()
    pod = make_pod("p").req(cpu="2").obj()
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod, infos)
    fwk.use_batch = False
    walked = _walk(fwk, state, pod, infos)
    fwk.use_batch = True
    assert walked == 150
    assert fwk.first_passing_node(state, pod, infos) == walked


def test_nodes_with_nominated_pods_are_walked_plainly():
    """A nominated pod on one of the nodes: the batch would add it (two passes); the walk does
    not (RunFilterPlugins), so neither does first_passing_node."""
    nodes = [make_node(f"n{i:03d}").capacity(cpu="4", memory="8Gi", pods="10").obj() for i in range(100)]
    bound = [make_pod(f"b{i}").req(cpu="3").node(f"n{i:03d}").obj() for i in range(100) if i != 70]
    fwk = new_framework(nodes=nodes, pods=bound)
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo.of(make_pod("nom").req(cpu="3").priority(10).obj()), "n070")
    fwk.services.nominator = nominator
    infos = fwk.snapshot.list()
    pod = make_pod("p").req(cpu="2").priority(5).obj()
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod, infos)
    assert fwk.run_filter_plugins_batch(state, pod, infos[70:71])[0] is not None  # two passes: full
    assert fwk.first_passing_node(state, pod, infos) == 70
