"""A PreFilterResult's node names narrow Filter to those nodes in the snapshot's order
(kschedctl/scheduler/algorithm.py _narrowed): looked up by name when they are few, walked
otherwise; both give the same list, and a name the snapshot lacks or a list that is not the
snapshot's falls back to the walk."""

from __future__ import annotations

import random

from kschedctl.backend.cache.cache import Snapshot
from kschedctl.framework.types import NodeInfo
from kschedctl.scheduler.algorithm import _narrowed
from kschedctl.testing import make_node


def _snapshot(count: int) -> Snapshot:
    snap = Snapshot()
    for i in range(count):
        info = NodeInfo()
        info.set_node(make_node(f"n{i:03d}").obj())
        info.index = i
        snap.node_info_map[info.name] = info
        snap.node_info_list.append(info)
    return snap


def _walk(all_nodes: list[NodeInfo], wanted: set[str]) -> list[NodeInfo]:
    return [n for n in all_nodes if n.name in wanted]


def test_few_names_are_looked_up_and_ordered_as_the_walk_orders_them() -> None:
    snap = _snapshot(200)
    rng = random.Random(3)
    for size in (0, 1, 2, 5, 24, 25, 60, 200):
        wanted = {f"n{i:03d}" for i in rng.sample(range(200), size)}
        assert _narrowed(snap.node_info_list, wanted, snap) == _walk(snap.node_info_list, wanted)


def test_unknown_names_and_foreign_lists_fall_back_to_the_walk() -> None:
    snap = _snapshot(100)
    assert _narrowed(snap.node_info_list, {"n007", "nope"}, snap) == [snap.node_info_list[7]]
    subset = snap.node_info_list[50:]  # not the snapshot's list: the indexes do not match it
    assert _narrowed(subset, {"n060", "n010"}, snap) == [snap.node_info_list[60]]
    assert _narrowed(snap.node_info_list, {"n001"}, object()) == [snap.node_info_list[1]]  # no get()
