"""Where the Scheduler's snapshot has a columnar view (kschedctl/backend/cache/columnar.py): from
COLUMNAR_MIN_NODES nodes on. A smaller run calls every plugin node by node, keeps its scores in
lists and never imports numpy (benchmarks/startup.py: a fifth of a 10-node `schedule`).

No upstream counterpart (kube-scheduler has no batch forms). Pinned here: where the view
starts, that a view made after the snapshot has changed still mirrors every node, and that a
small run decides exactly as the same run with the view (the whole JSON output: placements,
scores, messages, preemptions), on the examples under every profile and release.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedctl.backend.cache import columnar
from kschedctl.backend.cache.cache import Cache, Snapshot
from kschedctl.backend.cache.columnar import COLUMNAR_MIN_NODES, columns_of
from kschedctl.cluster.loader import ClusterSnapshot, load_snapshot, resolve_priorities
from kschedctl.config.loader import load_config_file
from kschedctl.output.render import render_run
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import GANG_GATES, make_node, make_pod
from kschedctl.versions import parse_version

ROOT = Path(__file__).resolve().parent.parent


def _requested_cpu(snap: Snapshot) -> tuple[list[int], list[int]]:
    """(the view's requested cpu of each node, the NodeInfos' own)."""
    cols = columns_of(snap)
    assert cols is not None
    rows = cols.rows(snap.list())
    return cols.req_cpu[rows].tolist(), [ni.requested.milli_cpu for ni in snap.list()]


@pytest.mark.parametrize(
    ("nodes", "has_view"), [(COLUMNAR_MIN_NODES - 1, False), (COLUMNAR_MIN_NODES, True)], ids=["one-node-short", "at-the-threshold"]
)
def test_the_schedulers_snapshot_has_a_view_from_columnar_min_nodes_on(nodes: int, has_view: bool) -> None:
    version = parse_version("1.37")
    registry = default_registry().registry
    cluster = ClusterSnapshot(
        nodes=[make_node(f"n{i}").capacity(cpu="4", memory="8Gi").obj() for i in range(nodes)],
        pods=[make_pod(f"p{i}").req(cpu="1").obj() for i in range(3)],
    )
    resolve_priorities(cluster)
    sched = Scheduler(cluster, load_config_file(None, version, registry), registry, version, seed=1)
    result = sched.run()
    assert len(result.placements) == 3
    assert (sched.snapshot.columns is not None) is has_view
    if has_view:
        sched.cache.update_snapshot(sched.snapshot)  # the last pod's placement too
        view, own = _requested_cpu(sched.snapshot)
        assert view == own and sum(own) == 3000


def test_a_view_made_after_the_snapshot_changed_mirrors_every_node() -> None:
    """The rows replaced before the view existed are not the only ones it must write."""
    cache, snap = Cache(), Snapshot()
    for i in range(3):
        cache.add_node(make_node(f"n{i}").capacity(cpu="4", memory="8Gi").obj())
        cache.add_pod(make_pod(f"b{i}").req(cpu=f"{i + 1}00m").node(f"n{i}").obj())
    cache.update_snapshot(snap)
    cache.assume_pod(make_pod("p").req(cpu="1").node("n1").obj())
    cache.update_snapshot(snap)
    view, own = _requested_cpu(snap)
    assert view == own == [100, 1200, 300]


def test_a_snapshot_that_grows_to_the_threshold_gets_its_view() -> None:
    cache, snap = Cache(), Snapshot(columnar_min_nodes=4)
    for i in range(3):
        cache.add_node(make_node(f"n{i}").capacity(cpu="4", memory="8Gi").obj())
        cache.add_pod(make_pod(f"b{i}").req(cpu="500m").node(f"n{i}").obj())
    cache.update_snapshot(snap)
    assert snap.columns is None and columns_of(snap) is None
    cache.add_node(make_node("n3").capacity(cpu="4", memory="8Gi").obj())
    cache.update_snapshot(snap)
    view, own = _requested_cpu(snap)
    assert view == own == [500, 500, 500, 0]


def _schedule_json(cluster_file: Path, profile: Path, release: str) -> tuple[str, bool]:
    """`kschedctl schedule FILE --config PROFILE -o json --seed 5`'s output, and whether the
    run's snapshot had a columnar view."""
    version = parse_version(release, GANG_GATES if "gang" in profile.name else None)
    registry = default_registry().registry
    sched = Scheduler(load_snapshot([str(cluster_file)]), load_config_file(str(profile), version, registry), registry, version, seed=5)
    return render_run(sched.run(), "json", 100), sched.snapshot.columns is not None


@pytest.mark.parametrize("release", ["1.35", "1.36", "1.37"])
@pytest.mark.parametrize("profile", sorted(p.name for p in (ROOT / "profiles").glob("*.yaml")))
@pytest.mark.parametrize("example", ["cluster.yaml", "whatif-cluster.yaml", "dra-gpu-cluster.yaml"])
def test_a_small_run_decides_as_with_the_view(example: str, profile: str, release: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cluster_file, config = ROOT / "examples" / example, ROOT / "profiles" / profile
    plain, had_view = _schedule_json(cluster_file, config, release)
    monkeypatch.setattr(columnar, "COLUMNAR_MIN_NODES", 0)
    viewed, has_view = _schedule_json(cluster_file, config, release)
    assert (had_view, has_view) == (False, True)
    assert plain == viewed


def test_flag_counts_follow_the_rows_and_a_taint_is_found_again() -> None:
    """Columns.flagged counts the rows set in each boolean column, so that a batch over a
    cluster without taints (or unschedulable nodes) asks for no positions at all; a taint
    added, an unschedulable node, a node taken away and back: every count equals its column,
    and flagged_positions finds exactly the flagged nodes of the snapshot."""
    from kschedctl.backend.cache.columnar import NodeBatch, flagged_positions

    cache, snap = Cache(), Snapshot(columnar_min_nodes=2)
    nodes = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi").obj() for i in range(5)]
    for n in nodes:
        cache.add_node(n)

    def flagged(column: str) -> list[str]:
        cache.update_snapshot(snap)
        cols = columns_of(snap)
        assert cols is not None
        batch = NodeBatch(snap.list(), cols)
        positions = flagged_positions(batch, column)
        assert positions is not None
        for name in ("unschedulable", "has_taints", "nodeless"):
            assert cols.flagged[name] == int(getattr(cols, name)[: cols.size].sum()), name
        return [batch[i].name for i in positions]

    assert flagged("has_taints") == [] and flagged("unschedulable") == []
    tainted = make_node("n3").capacity(cpu="4", memory="8Gi").taint("dedicated", "a", "NoSchedule").obj()
    cache.update_node(nodes[3], tainted)
    assert flagged("has_taints") == ["n3"]
    off = make_node("n1").capacity(cpu="4", memory="8Gi").unschedulable().obj()
    cache.update_node(nodes[1], off)
    assert flagged("unschedulable") == ["n1"] and flagged("has_taints") == ["n3"]
    cache.update_node(tainted, nodes[3])
    assert flagged("has_taints") == []
    cache.remove_node(off)
    assert flagged("unschedulable") == []
    cache.add_node(off)
    assert sorted(flagged("unschedulable")) == ["n1"]
