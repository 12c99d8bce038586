"""The per-row values NodeResourcesFit and NodeResourcesBalancedAllocation keep across cycles
(kschedctl/plugins/row_memo.py) are the values the ports give now.

A Cache-kept snapshot changes under the memos the ways a run changes it: pods assumed and
removed, a node's allocatable changed, nodes added (the view grows) and removed, and more row
writes than the journal keeps. After each change, batches of several sizes (a few unknown
rows: node by node; many: the batch form) must give, for pods of a few shapes, exactly the
per-node Filter statuses and Scores of the ports (fit.go fitsRequest, least_allocated.go,
balanced_allocation.go: pkg/scheduler/framework/plugins/noderesources/). Then whole runs with
and without the memos must write the same output.

No upstream counterpart (kube-scheduler scores every node afresh each cycle).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from kschedctl.backend.cache.cache import Cache, Snapshot
from kschedctl.backend.cache.columnar import NodeBatch, columns_of
from kschedctl.cluster.loader import ClusterSnapshot, resolve_priorities
from kschedctl.config.loader import load_config_file
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code
from kschedctl.output.render import render_run
from kschedctl.plugins import row_memo
from kschedctl.plugins.node_resources import batch as node_resources_batch
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import make_node, make_pod, new_framework
from kschedctl.versions import parse_version

SHAPES = [("100m", "200Mi"), ("1", "1Gi"), ("3", "6Gi"), ("0", "0")]
PLUGINS = ("NodeResourcesFit", "NodeResourcesBalancedAllocation")


def _node(name: str, rng: random.Random) -> Any:
    return make_node(name).capacity(cpu=str(rng.choice([2, 4, 8])), memory=rng.choice(["4Gi", "8Gi", "16Gi"]), pods="6").obj()


def _status_key(s: Any) -> tuple[Any, tuple[str, ...]]:
    return (Code.Success, ()) if s is None or s.code == Code.Success else (s.code, tuple(s.reasons))


def _check(fwk: Any, snap: Snapshot, rng: random.Random) -> int:
    """Every shape, on batches of several sizes: memoised batch forms == the ports per node.
    Returns how many batch answers were compared."""
    infos = snap.list()
    compared = 0
    for cpu, mem in SHAPES:
        pod = make_pod(f"p-{cpu}-{mem}").req(cpu=cpu, memory=mem).obj()
        state = CycleState()
        fwk.run_pre_filter_plugins(state, pod, infos)
        fwk.run_pre_score_plugins(state, pod, infos)
        for size in (3, len(infos)):
            start = rng.randrange(len(infos))
            chunk = [infos[(start + i) % len(infos)] for i in range(min(size, len(infos)))]
            for name in PLUGINS:
                pl = fwk.instances[name]
                batch = NodeBatch(chunk, columns_of(snap))
                if name == "NodeResourcesFit":
                    got = pl.filter_batch(state, pod, batch)
                    assert got is not None
                    assert [_status_key(s) for s in got] == [_status_key(pl.filter(state, pod, ni)) for ni in chunk]
                    compared += 1
                scores = pl.score_batch(state, pod, NodeBatch(chunk, columns_of(snap)))
                assert scores is not None
                assert [int(v) for v in scores] == [pl.score(state, pod, ni)[0] for ni in chunk], (name, cpu, mem)
                compared += 1
    return compared


@pytest.mark.parametrize("release", ["1.35", "1.37"])
@pytest.mark.parametrize("seed", [1, 2])
def test_kept_rows_follow_every_change_of_the_snapshot(seed: int, release: str) -> None:
    rng = random.Random(seed)
    nodes = {f"n{i}": _node(f"n{i}", rng) for i in range(12)}
    cache, snap = Cache(), Snapshot()
    for n in nodes.values():
        cache.add_node(n)
    fwk = new_framework(nodes=list(nodes.values())[:1], version=parse_version(release))
    placed: list[Any] = []
    journal_dropped = False
    for step in range(60):
        cache.update_snapshot(snap)
        fwk.snapshot = snap
        assert _check(fwk, snap, rng)
        cols = columns_of(snap)
        assert cols is not None
        base = cols.journal_base
        action = rng.choice(["assume", "assume", "assume", "remove", "resize", "add", "drop", "churn"])
        names = sorted(nodes)
        if action == "assume":
            cpu, mem = rng.choice(SHAPES)
            pod = make_pod(f"b{step}").req(cpu=cpu, memory=mem).node(rng.choice(names)).obj()
            cache.assume_pod(pod)
            placed.append(pod)
        elif action == "remove" and placed:
            cache.remove_pod(placed.pop(rng.randrange(len(placed))))
        elif action == "resize":
            name = rng.choice(names)
            new = _node(name, rng)
            cache.update_node(nodes[name], new)
            nodes[name] = new
        elif action == "add":
            name = f"x{step}"
            nodes[name] = _node(name, rng)
            cache.add_node(nodes[name])
        elif action == "drop" and len(nodes) > 4:
            name = rng.choice(names)
            cache.remove_node(nodes.pop(name))
            placed = [p for p in placed if p.node_name != name]
        elif action == "churn":
            # a change, then more row writes than the journal keeps (of one unchanged row):
            # the change is no longer in the journal, so the memos must start again
            cache.assume_pod(make_pod(f"b{step}").req(cpu="1", memory="1Gi").node(rng.choice(names)).obj())
            cache.update_snapshot(snap)
            cols.rows(snap.list())
            first = snap.list()[0]
            for _ in range(4 * cols.size + 1100):
                cols._write(0, first)
        cache.update_snapshot(snap)
        journal_dropped = journal_dropped or cols.journal_base != base
    assert journal_dropped


def test_a_memo_of_other_columns_is_not_read() -> None:
    """Two snapshots (two views) under one plugin instance: each answers for its own nodes."""
    rng = random.Random(3)
    fwk = new_framework(nodes=[_node("n0", rng)])
    snaps = []
    for k in range(2):
        cache, snap = Cache(), Snapshot()
        for i in range(10):
            cache.add_node(_node(f"n{i}", rng))
        for i in range(k * 5):
            cache.assume_pod(make_pod(f"b{k}{i}").req(cpu="1", memory="1Gi").node(f"n{i}").obj())
        cache.update_snapshot(snap)
        snaps.append(snap)
    for snap in snaps * 2:
        fwk.snapshot = snap
        assert _check(fwk, snap, rng)


def _cluster(seed: int) -> ClusterSnapshot:
    rng = random.Random(seed)
    nodes = [_node(f"n{i:02d}", rng) for i in range(40)]
    # more shapes than a plugin keeps memos for, repeated: memos are dropped and rebuilt
    shapes = [(f"{100 * (1 + i % 11)}m", f"{256 * (1 + i % 5)}Mi") for i in range(30)]
    pods = [make_pod(f"p{i:03d}").req(cpu=shapes[i % len(shapes)][0], memory=shapes[i % len(shapes)][1]).obj() for i in range(180)]
    cluster = ClusterSnapshot(nodes=nodes, pods=pods)
    resolve_priorities(cluster)
    return cluster


@pytest.mark.parametrize("release", ["1.35", "1.36", "1.37"])
def test_a_run_with_kept_rows_writes_what_a_run_without_them_writes(release: str, monkeypatch: pytest.MonkeyPatch) -> None:
    version = parse_version(release)
    registry = default_registry().registry

    def run() -> str:
        sched = Scheduler(_cluster(7), load_config_file(None, version, registry), registry, version, seed=3)
        return render_run(sched.run(), "json", 100)

    kept = run()
    calls: list[int] = []
    real = row_memo.memoised

    def counting(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(node_resources_batch, "memoised", counting)
    assert run() == kept and calls  # the memos were asked
    monkeypatch.setattr(node_resources_batch, "memoised", lambda *args: None)  # the plain batch forms
    plain = run()
    assert plain == kept
    assert '"node": "n' in plain  # pods were placed
