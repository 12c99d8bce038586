"""Per-cycle work that must not grow with the cluster: InterPodAffinity's PreFilter and PreScore
return Skip before walking any node when nothing can be counted (upstream
pkg/scheduler/framework/plugins/interpodaffinity/filtering.go PreFilter: no required terms and
no existing pod with required anti-affinity; scoring.go PreScore: no preferred terms and no
existing pod with affinity, i.e. an empty topologyScore), and the snapshot's have-pods-with-
affinity lists, updated in place, equal the lists rebuilt from the node list (cache.go
updateNodeInfoSnapshotList) after every change."""

from __future__ import annotations

import random

import pytest

from kschedctl.backend.cache.cache import Cache, Snapshot
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code
from kschedctl.testing import make_node, make_pod, new_framework

ZONE = "topology.kubernetes.io/zone"


class _NoWalk:
    """A lister whose node list must not be read (a walk would be O(nodes))."""

    def __init__(self, base: Snapshot) -> None:
        self.base = base

    def list(self):
        raise AssertionError("walked every node")

    def __getattr__(self, name):
        return getattr(self.base, name)


def _nodes(n: int = 4):
    return [make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods="10").zone(f"z{i % 2}").obj() for i in range(n)]


PLAIN = make_pod("p").label("app", "a").req(cpu="100m").obj()


# (case, bound pods, incoming pod, PreFilter skips, without a walk; PreScore skips, without a walk)
CASES = [
    ("no affinity anywhere", [make_pod("b").label("app", "x").node("n0").obj()], PLAIN, True, True, True, True),
    (
        "existing preferred affinity only",
        [make_pod("b").label("app", "x").pod_affinity_in("app", ZONE, ["a"], weight=5).node("n0").obj()],
        PLAIN,
        True,
        True,
        False,
        False,
    ),
    (
        "existing required anti-affinity matching the pod",
        [make_pod("b").label("app", "x").pod_affinity_in("app", ZONE, ["a"], anti=True).node("n1").obj()],
        PLAIN,
        False,
        False,
        True,
        False,
    ),
    (
        "existing required anti-affinity not matching: counted, then Skip",
        [make_pod("b").label("app", "x").pod_affinity_in("app", ZONE, ["zzz"], anti=True).node("n1").obj()],
        PLAIN,
        True,
        False,
        True,
        False,
    ),
    (
        "incoming required anti-affinity",
        [],
        make_pod("p").label("app", "a").pod_affinity_in("app", ZONE, ["a"], anti=True).obj(),
        False,
        False,
        True,
        True,
    ),
]


@pytest.mark.parametrize(("case", "bound", "pod", "pf_skip", "pf_no_walk", "ps_skip", "ps_no_walk"), CASES, ids=[c[0] for c in CASES])
def test_inter_pod_affinity_skips_without_walking(case, bound, pod, pf_skip, pf_no_walk, ps_skip, ps_no_walk):
    fwk = new_framework(nodes=_nodes(), pods=bound)
    pl = fwk.instances["InterPodAffinity"]
    snapshot = fwk.snapshot
    nodes = snapshot.list()
    fwk.snapshot = _NoWalk(snapshot) if pf_no_walk else snapshot
    _, st = pl.pre_filter(CycleState(), pod, nodes)
    assert (st is not None and st.code == Code.Skip) == pf_skip, case
    fwk.snapshot = _NoWalk(snapshot) if ps_no_walk else snapshot
    st = pl.pre_score(CycleState(), pod, nodes)
    assert (st is not None and st.code == Code.Skip) == ps_skip, case


def test_affinity_lists_updated_in_place_equal_a_rebuild():
    rng = random.Random(5)
    cache, snap = Cache(), Snapshot()
    for n in _nodes(12):
        cache.add_node(n)
    cache.update_snapshot(snap)
    placed = []
    for step in range(200):
        if placed and rng.random() < 0.35:
            cache.remove_pod(placed.pop(rng.randrange(len(placed))))
        else:
            b = make_pod(f"p{step}").label("app", rng.choice("ab")).node(f"n{rng.randrange(12)}")
            kind = rng.randrange(3)
            if kind == 1:
                b = b.pod_affinity_in("app", ZONE, ["a"], anti=True)
            elif kind == 2:
                b = b.pod_affinity_in("app", ZONE, ["b"], weight=3)
            pod = b.obj()
            cache.add_pod(pod)
            placed.append(pod)
        cache.update_snapshot(snap)
        nodes = snap.list()
        assert snap.have_pods_with_affinity_list() == [n for n in nodes if n.pods_with_affinity], step
        assert snap.have_pods_with_required_anti_affinity_list() == [n for n in nodes if n.pods_with_required_anti_affinity], step


def test_spread_domains_walk_order_kept_only_while_the_labels_stay():
    """PodTopologySpread's domains in walk order (calPreFilterState's map fill order) are kept
    between cycles; a node relabelled, losing its key, removed or added gives the order a
    fresh walk over the snapshot's nodes gives."""
    from kschedctl.plugins.pod_topology_spread.common import Constraint
    from kschedctl.plugins.pod_topology_spread.filtering import _domains_in_walk_order
    from kschedctl.plugins.row_aggregate import tracked_rows

    rng = random.Random(11)
    constraints = [Constraint(1, ZONE, None), Constraint(1, "rack", None)]

    def node(i: int) -> object:
        b = make_node(f"n{i:02d}").capacity(cpu="4", memory="8Gi", pods="10")
        if rng.random() < 0.9:
            b = b.zone(f"z{rng.randrange(40)}")
        if rng.random() < 0.9:
            b = b.label("rack", f"r{rng.randrange(20)}")
        return b.obj()

    cache, snap = Cache(), Snapshot()
    current = {i: node(i) for i in range(30)}
    for n in current.values():
        cache.add_node(n)
    next_index = 30
    for step in range(60):
        cache.update_snapshot(snap)
        want: list[list[str]] = [[], []]
        for ni in snap.list():
            labels = ni.node.labels
            if ZONE in labels and "rack" in labels:
                for i, key in enumerate((ZONE, "rack")):
                    if labels[key] not in want[i]:
                        want[i].append(labels[key])
        assert _domains_in_walk_order(snap, tracked_rows(snap), constraints) == want, step
        assert _domains_in_walk_order(snap, tracked_rows(snap), constraints) == want, step  # kept
        kind = rng.randrange(4)
        i = rng.choice(sorted(current))
        if kind == 0 and len(current) > 26:
            cache.remove_node(current.pop(i))
        elif kind == 1:
            current[next_index] = node(next_index)
            cache.add_node(current[next_index])
            next_index += 1
        elif kind == 2:
            new = node(i)
            cache.update_node(current[i], new)
            current[i] = new


def test_used_pvc_set_kept_in_place_equals_a_rebuild():
    """The snapshot's usedPVCSet, moved by the replaced nodes only, equals the set rebuilt from
    every node (cache.go updateNodeInfoSnapshotList) after pods with claims come and go (shared
    claims, ephemeral volumes) and nodes are added and removed."""
    rng = random.Random(9)
    cache, snap = Cache(), Snapshot()
    nodes = _nodes(8)
    for n in nodes:
        cache.add_node(n)
    cache.update_snapshot(snap)
    placed = []
    for step in range(300):
        pick = rng.random()
        if placed and pick < 0.35:
            cache.remove_pod(placed.pop(rng.randrange(len(placed))))
        elif pick < 0.4:
            node = nodes[rng.randrange(len(nodes))]
            cache.remove_node(node)
            placed = [p for p in placed if p.node_name != node.name]
            cache.add_node(node)
        else:
            b = make_pod(f"p{step}").node(f"n{rng.randrange(8)}")
            for k in range(rng.randint(0, 2)):
                b = b.pvc(f"c{rng.randrange(10)}") if rng.random() < 0.8 else b.volume({"name": f"e{k}", "ephemeral": {}})
            pod = b.obj()
            cache.add_pod(pod)
            placed.append(pod)
        cache.update_snapshot(snap)
        assert snap.used_pvc_set == {key for info in snap.list() for key in info.pvc_ref_counts}, step
