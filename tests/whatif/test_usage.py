"""Packing measures (kschedctl/whatif/usage.py, README "Packing measures"), computed by hand on
a four-node cluster."""

from __future__ import annotations

import math

import pytest

from kschedctl.backend.cache.cache import Cache
from kschedctl.testing import make_node, make_pod
from kschedctl.whatif.usage import cluster_usage, pod_shape


def _usage(nodes, pods):
    cache = Cache()
    for n in nodes:
        cache.add_node(n.obj())
    for p in pods:
        cache.add_pod(p.obj())
    return cluster_usage(cache.nodes)


@pytest.fixture
def usage():
    """n1: 3.5 of 4 cpu, 2 of 8Gi.  n2: 1 of 4 cpu, 7 of 8Gi.  n3: only a DaemonSet pod (100m).
    n4: empty. Zones: n1, n2 in z1; n3, n4 in z2."""
    ds = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "ds", "controller": True}]
    return _usage(
        [make_node(f"n{i}").capacity(cpu="4", memory="8Gi").zone("z1" if i < 3 else "z2") for i in (1, 2, 3, 4)],
        [
            make_pod("a").req(cpu="3500m", memory="2Gi").node("n1"),
            make_pod("b").req(cpu="1", memory="7Gi").node("n2"),
            make_pod("agent").req(cpu="100m").node("n3").set("metadata.ownerReferences", ds),
        ],
    )


def test_used_and_empty_nodes_ignore_daemon_set_pods(usage) -> None:
    packing = usage.packing([{"cpu": 1000, "memory": 1 << 30}])
    assert (packing.nodes, packing.nodes_used, packing.empty_nodes) == (4, 2, 2)


def test_utilisation_mean_and_population_stddev(usage) -> None:
    packing = usage.packing(None)
    cpu = [3.5 / 4, 1 / 4, 0.1 / 4, 0.0]
    mean = sum(cpu) / 4
    assert packing.utilisation_mean["cpu"] == pytest.approx(mean)
    assert packing.utilisation_stddev["cpu"] == pytest.approx(math.sqrt(sum((c - mean) ** 2 for c in cpu) / 4))
    assert packing.utilisation_mean["memory"] == pytest.approx((2 / 8 + 7 / 8) / 4)
    assert packing.fragmentation == {"cpu": None, "memory": None}  # no pending shapes: undefined


def test_fragmentation_is_the_free_share_on_used_nodes_no_shape_fits(usage) -> None:
    """Shape 1 cpu / 1Gi: n1 has 500m free (no fit), n2 has 3 cpu but 1Gi free (fits).
    Free on used nodes: cpu 0.5 + 3 = 3.5, memory 6Gi + 1Gi = 7Gi; stranded on n1: 0.5 cpu, 6Gi."""
    packing = usage.packing([{"cpu": 1000, "memory": 1 << 30}])
    assert packing.stranded == {"cpu": 500, "memory": 6 << 30}
    assert packing.fragmentation["cpu"] == pytest.approx(0.5 / 3.5)
    assert packing.fragmentation["memory"] == pytest.approx(6 / 7)
    # a smaller shape fits both nodes: nothing stranded
    assert usage.packing([{"cpu": 500}]).fragmentation == {"cpu": 0.0, "memory": 0.0}
    # any one of several shapes fitting is enough
    assert usage.packing([{"cpu": 2000, "memory": 2 << 30}, {"cpu": 400}]).fragmentation["cpu"] == 0.0


def test_zones_and_shapes(usage) -> None:
    zones = {z.name: z for z in usage.by_zone()}
    assert zones["z1"].requested == {"cpu": 4500, "memory": 9 << 30}
    assert zones["z2"].allocatable["cpu"] == 8000 and zones["z2"].pods == 1
    assert usage.grouping()[0] == "zone"
    assert pod_shape(make_pod("p").req(cpu="250m", memory="1Gi").obj()) == {"cpu": 250, "memory": 1 << 30}
    assert usage.resources() == ["cpu", "memory"]
