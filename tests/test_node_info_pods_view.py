"""A clone's pods (framework/types.py NodeInfo.pods): taken from the list it was cloned from only
when read, always the pods its source had at the clone, whatever the source, the clone or their
own clones do afterwards; and a node that every pending pod is bound for is not copied per cycle
when nothing reads its pods."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kschedctl.cluster.loader import ClusterSnapshot, resolve_priorities
from kschedctl.config.loader import load_config_file
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import make_node, make_pod
from kschedctl.versions import parse_version

POOL = [PodInfo.of(make_pod(f"p{i}").req(cpu="100m").obj()) for i in range(12)]

# (operation, which NodeInfo, which pod)
OPS = st.lists(
    st.tuples(st.sampled_from(["add", "remove", "remove_many", "clone", "read", "count"]), st.integers(0, 50), st.integers(0, 11)),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(OPS)
def test_every_node_info_holds_the_pods_it_would_hold_with_eager_copies(ops: list[tuple[str, int, int]]) -> None:
    """Random adds, removals, clones (of clones too) and reads against a model in which every
    clone copies its list at once, as upstream's Snapshot does."""
    infos = [NodeInfo(make_node("n").obj())]
    model: list[list[PodInfo]] = [[]]
    for op, which, pick in ops:
        i = which % len(infos)
        info, pods = infos[i], model[i]
        pod = POOL[pick]
        if op == "add" and pod not in pods:
            info.add_pod_info(pod)
            pods.append(pod)
        elif op == "remove":
            assert info.remove_pod(pod.pod) == (pod in pods)
            if pod in pods:
                pods.remove(pod)
        elif op == "remove_many":
            gone = [p for p in pods if POOL.index(p) % 3 == pick % 3]
            info.remove_pod_infos(gone)
            model[i] = [p for p in pods if p not in gone]
        elif op == "clone":
            infos.append(info.clone())
            model.append(list(pods))
        elif op == "read":
            assert info.pods == pods
        else:
            assert info.num_pods == len(pods)
    for info, pods in zip(infos, model):
        assert info.num_pods == len(pods)
        assert info.pods == pods
        assert info.requested.milli_cpu == 100 * len(pods)


def test_a_clone_read_after_its_source_moved_on_is_its_own_list() -> None:
    source = NodeInfo(make_node("n").obj(), POOL[:3])
    clone = source.clone()
    source.add_pod_info(POOL[3])
    source.remove_pod(POOL[0].pod)
    assert [p.pod.name for p in clone.pods] == ["p0", "p1", "p2"]
    clone.pods.append(POOL[5])  # a reader changing the clone's list leaves the source alone
    assert [p.pod.name for p in source.pods] == ["p1", "p2", "p3"]
    assert clone.num_pods == 4 and source.num_pods == 3


@pytest.mark.parametrize("seed", [1, 2])
def test_a_node_every_pod_is_bound_for_is_not_copied_per_cycle(seed: int) -> None:
    """SchedulingDaemonset's shape, scaled down: every pending pod is for one named node
    (matchFields metadata.name), on a 30-node cluster (the columnar view's size). The run places
    them all there, and the snapshot's NodeInfo of that node still holds its view: the cycles read
    its pod count, not its pods. Reading them then gives exactly the placed pods."""
    nodes = [make_node(f"node-{i:02d}").capacity(cpu="64", memory="64Gi", pods=500).obj() for i in range(30)]
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-07"]}]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
    names = [f"ds-{i}" for i in range(40)]
    random.Random(seed).shuffle(names)
    pods = [make_pod(name).req(cpu="10m").affinity(affinity).obj() for name in names]
    cluster = ClusterSnapshot(nodes=nodes, pods=pods)
    resolve_priorities(cluster)
    version = parse_version("1.35")
    registry = default_registry().registry
    sched = Scheduler(cluster, load_config_file(None, version, registry), registry, version, seed=seed)
    result = sched.run()
    assert sorted(p.node for p in result.placements) == ["node-07"] * 40
    info = sched.snapshot.node_info_map["node-07"]
    assert info._pods is None  # still the view the last snapshot update took
    assert info.num_pods == 39  # the snapshot as the last cycle saw it, before its own pod
    assert sorted(p.pod.name for p in info.pods) == sorted(n for n in names if n != result.placements[-1].pod.split("/")[1])
