"""A node added at the end of the node tree's list is appended to the snapshot: its lists, map,
columns and usedPVCSet equal what listing every node again gives (cache.go
updateNodeInfoSnapshotList after a node add, which kschedctl's Cache does only when a change
of the node set is not such an append)."""

from __future__ import annotations

import random

import pytest

from kschedctl.backend.cache.cache import Cache, NodeTree, Snapshot
from kschedctl.testing import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"


def _node(name: str, zone: int | None, rng: random.Random):
    b = make_node(name).capacity(cpu="4", memory="8Gi", pods="20")
    if zone is not None:
        b = b.zone(f"z{zone}")
    if rng.random() < 0.3:
        b = b.images([([f"img{rng.randrange(4)}"], 1000 * (1 + rng.randrange(5)))])
    return b.obj()


@pytest.mark.parametrize("seed", range(6))
def test_node_tree_says_when_a_node_ends_its_list(seed):
    """add_node's answer is exactly whether list() is the old list with the node after it."""
    rng = random.Random(seed)
    tree = NodeTree()
    for i in range(60):
        zone = rng.choice([None, 0, 1, 2, 3]) if seed % 2 else rng.choice([0, 0, 0, 1])
        before = tree.list()
        last = tree.add_node(_node(f"n{i}", zone, rng))
        assert last == (tree.list() == [*before, f"n{i}"]), i


def _round_robin(tree: NodeTree) -> list[str]:
    """node_tree.go's list, spelled out: one node of each zone in turn, in zone order, a zone
    that has run out skipped, until every node is listed."""
    out: list[str] = []
    rounds = 0
    while len(out) < tree.num_nodes:
        for zone in tree.zones:
            names = tree.tree[zone]
            if rounds < len(names):
                out.append(names[rounds])
        rounds += 1
    return out


@pytest.mark.parametrize("seed", range(4))
def test_node_tree_lists_zones_in_turn(seed):
    """list() takes one node of each zone in turn, zones coming and going (removals included)."""
    rng = random.Random(seed)
    tree = NodeTree()
    nodes = {}
    for i in range(150):
        if nodes and rng.random() < 0.3:
            tree.remove_node(nodes.pop(rng.choice(sorted(nodes))))
        else:
            node = _node(f"n{i}", rng.choice([None, 0, 1, 2, 3, 4]), rng)
            nodes[node.name] = node
            tree.add_node(node)
        assert tree.list() == _round_robin(tree), i
    assert NodeTree().list() == []


def _pod(step: int, nodes: list[str], rng: random.Random):
    b = make_pod(f"p{step}").label("app", rng.choice("ab")).req(cpu="100m").node(rng.choice(nodes))
    kind = rng.randrange(5)
    if kind == 1:
        b = b.pod_affinity_in("app", ZONE, ["a"], anti=True)
    elif kind == 2:
        b = b.pod_affinity_in("app", ZONE, ["b"], weight=3)
    elif kind == 3:
        b = b.pvc(f"c{rng.randrange(6)}")
    return b.obj()


def _view(snap: Snapshot) -> dict[str, object]:
    infos = snap.list()
    return {
        "order": [i.name for i in infos],
        "index": [i.index for i in infos],
        "map": sorted(snap.node_info_map),
        "same": all(snap.node_info_map[i.name] is i for i in infos),
        "pods": [sorted(p.pod.name for p in i.pods) for i in infos],
        "requested": [(i.requested.milli_cpu, i.num_pods) for i in infos],
        "images": [sorted((k, v.size, v.num_nodes) for k, v in i.image_states.items()) for i in infos],
        "affinity": [i.name for i in snap.have_pods_with_affinity_list()],
        "anti": [i.name for i in snap.have_pods_with_required_anti_affinity_list()],
        "pvc": sorted(snap.used_pvc_set),
    }


def _columns_match(snap: Snapshot) -> bool:
    columns = snap.columns
    assert columns is not None
    rows = columns.rows(snap.list())
    assert rows is not None
    infos = snap.list()
    return columns.req_cpu[rows].tolist() == [i.requested.milli_cpu for i in infos] and columns.pod_count[rows].tolist() == [
        i.num_pods for i in infos
    ]


@pytest.mark.parametrize("seed", range(4))
def test_appended_nodes_equal_listing_every_node(seed, monkeypatch):
    """Two caches take the same changes; one lists every node at each change of the node set
    (its appends forgotten), the other appends where it can. Their snapshots agree at every
    step, and the appends were taken."""
    rng = random.Random(seed)
    rebuilds = {"kept": 0}
    original = Cache._rebuild_lists

    def counted(self, snapshot):
        if self is kept:
            rebuilds["kept"] += 1
        return original(self, snapshot)

    monkeypatch.setattr(Cache, "_rebuild_lists", counted)
    kept, full = Cache(), Cache()
    snap_kept, snap_full = Snapshot(columnar_min_nodes=0), Snapshot(columnar_min_nodes=0)
    names: list[str] = []
    placed = []
    added = 0
    for step in range(250):
        pick = rng.random()
        if pick < 0.25 or not names:
            node = _node(f"n{len(names)}", rng.choice([None, 0, 1]) if seed % 2 else 0, rng)
            names.append(node.name)
            added += 1
            for cache in (kept, full):
                cache.add_node(node)
        elif pick < 0.3:
            node = _node(rng.choice(names), rng.choice([0, 1]), rng)
            old = kept.nodes[node.name].node
            for cache in (kept, full):
                cache.update_node(old, node)
        elif placed and pick < 0.45:
            pod = placed.pop(rng.randrange(len(placed)))
            for cache in (kept, full):
                cache.remove_pod(pod)
        else:
            pod = _pod(step, names, rng)
            placed.append(pod)
            for cache in (kept, full):
                cache.add_pod(pod)
        full._appended = None  # list every node at every change of the node set
        kept.update_snapshot(snap_kept)
        full.update_snapshot(snap_full)
        assert _view(snap_kept) == _view(snap_full), step
        assert _columns_match(snap_kept), step
    # in one zone most adds are appends (the others follow an update of a node); zones taken
    # at random put fewer new nodes last, but some
    assert rebuilds["kept"] < (added if seed % 2 else added // 2)


def test_a_snapshot_the_cache_did_not_keep_is_listed_again():
    """The appends are the ones since the snapshot the cache last updated: another snapshot
    gets every node listed."""
    rng = random.Random(1)
    cache = Cache()
    first = Snapshot()
    cache.add_node(_node("a", 0, rng))
    cache.update_snapshot(first)
    cache.add_node(_node("b", 0, rng))
    other = Snapshot()
    cache.update_snapshot(other)
    assert [i.name for i in other.list()] == ["a", "b"]
    assert [i.index for i in other.list()] == [0, 1]
