"""The batch path (filter_batch / score_batch / normalize_score_batch, columnar view, chunked
filtering) decides exactly as the per-node path: same statuses, scores, feasible nodes, chosen
hosts and start index.

Property-based (hypothesis): random small clusters and pods. The batch contract is checked on
every batch form of every in-tree plugin, for every profile of profiles/ and every scoring
strategy and plugin argument that changes a batch form, under every emulated release (1.35
has the legacy BalancedAllocation formula):

* every call of a batch form made during a scheduling run is shadowed by the per-node form on
  the same nodes and state and must equal it (None means "use the per-node form");
* the same run with ``Framework.use_batch`` off decides exactly the same;
* a meta-test fails when a registered batch method never returned a result in this module
  (a batch form no test exercises is a batch form no test checks).

Upstream has no batch forms (kube-scheduler filters per node in goroutines): what is pinned is
that kschedctl's faster path is the per-node path (framework/interface.py).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kschedctl.backend.cache import columnar
from kschedctl.backend.cache.cache import Cache, Snapshot
from kschedctl.backend.cache.columnar import NodeBatch, columns_of
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, NodeScore, SparseStatuses
from kschedctl.framework.types import FitError, PodInfo, QueuedPodInfo
from kschedctl.scheduler.algorithm import SchedulingAlgorithm, SchedulingError
from kschedctl.testing import make_node, make_pod, new_framework
from kschedctl.versions import KubeVersion

ZONES = ["z1", "z2", "z3"]
CPUS = ["0", "1", "2", "4"]
MEMS = ["0", "1Gi", "4Gi"]
REQ_CPU = ["0", "100m", "500m", "1", "3"]
REQ_MEM = ["0", "200Mi", "1Gi", "3Gi"]


@st.composite
def nodes_st(draw):
    out = []
    for i in range(draw(st.integers(1, 9))):
        b = make_node(f"n{i}").capacity(
            cpu=draw(st.sampled_from(CPUS)), memory=draw(st.sampled_from(MEMS)), pods=str(draw(st.integers(0, 4)))
        )
        b = b.zone(draw(st.sampled_from(ZONES))).label("disk", draw(st.sampled_from(["ssd", "hdd"])))
        if draw(st.booleans()) and draw(st.booleans()):
            b = b.taint(
                "dedicated", draw(st.sampled_from(["a", "b"])), draw(st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"]))
            )
        if draw(st.integers(0, 5)) == 0:
            b = b.unschedulable()
        if draw(st.booleans()):
            b = b.images([([draw(st.sampled_from(["img:1", "img:2"]))], draw(st.integers(0, 2000)) * 1024 * 1024)])
        out.append(b.obj())
    return out


@st.composite
def pod_st(draw, name: str, node_names: list[str] | None = None):
    b = make_pod(name).req(cpu=draw(st.sampled_from(REQ_CPU)), memory=draw(st.sampled_from(REQ_MEM)))
    b = b.label("app", draw(st.sampled_from(["a", "b"])))
    if draw(st.booleans()):
        b = b.image(draw(st.sampled_from(["img:1", "img:2", "other"])))
    if draw(st.integers(0, 3)) == 0:
        b = b.node_affinity_in("disk", [draw(st.sampled_from(["ssd", "hdd"]))])
    if draw(st.integers(0, 3)) == 0:
        b = b.toleration("dedicated", draw(st.sampled_from(["a", "b"])), operator="Equal")
    if draw(st.integers(0, 4)) == 0:
        b = b.host_port(draw(st.sampled_from([80, 8080])))
    if draw(st.integers(0, 4)) == 0:
        b = b.spread(1, "topology.kubernetes.io/zone", draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])), {"app": "a"})
    if draw(st.integers(0, 4)) == 0:
        b = b.pod_affinity_in(
            "app",
            draw(st.sampled_from(["topology.kubernetes.io/zone", "kubernetes.io/hostname"])),
            [draw(st.sampled_from(["a", "b"]))],
            anti=draw(st.booleans()),
            weight=draw(st.integers(1, 100)),
        )
    # required (anti-)affinity, one or two terms, and hostname spreading: the batch forms of
    # InterPodAffinity and PodTopologySpread (label codes) and their per-snapshot counts
    for _ in range(draw(st.integers(0, 2)) if draw(st.integers(0, 2)) == 0 else 0):
        b = b.pod_affinity_in(
            "app",
            draw(st.sampled_from(["topology.kubernetes.io/zone", "kubernetes.io/hostname", "disk"])),
            [draw(st.sampled_from(["a", "b"]))],
            anti=draw(st.booleans()),
        )
    if draw(st.integers(0, 5)) == 0:
        b = b.spread(
            draw(st.integers(1, 2)),
            draw(st.sampled_from(["kubernetes.io/hostname", "disk"])),
            draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])),
            {"app": draw(st.sampled_from(["a", "b"]))},
        )
    if node_names is not None:
        b = b.node(draw(st.sampled_from(node_names)))
    if draw(st.integers(0, 9)) == 0 and node_names is None:
        b = b.set("spec.nodeName", "")
    return b.obj()


@st.composite
def cluster_st(draw):
    nodes = draw(nodes_st())
    names = [n.name for n in nodes]
    bound = [draw(pod_st(f"b{i}", names)) for i in range(draw(st.integers(0, 8)))]
    pending = [draw(pod_st(f"p{i}")) for i in range(draw(st.integers(1, 5)))]
    return nodes, bound, pending


def _status_key(s):
    if s is None or s.code == Code.Success:
        return (Code.Success, ())
    return (s.code, tuple(s.reasons))


def _batch_keys_equal_two_passes(fwk, state, pod, infos):
    """The runtime's batch Filter gives every node the two-pass loop's status
    (RunFilterPluginsWithNominatedPods, asked node by node with the batch forms off): asserted,
    and the statuses' keys returned."""
    fwk.use_batch = False
    two_passes = [_status_key(fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)) for ni in infos]
    fwk.use_batch = True
    assert [_status_key(st) for st in fwk.run_filter_plugins_batch(state, pod, infos)] == two_passes
    return two_passes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster_st())
def test_plugin_batch_forms_equal_per_node(cluster):
    nodes, bound, pending = cluster
    fwk = new_framework(nodes=nodes, pods=bound)
    snap = fwk.snapshot
    infos = snap.list()
    for pod in pending:
        state = CycleState()
        _, status, _ = fwk.run_pre_filter_plugins(state, pod, infos)
        if status.is_success():
            for pl in fwk.points["filter"]:
                if pl.name() in state.skip_filter_plugins or not hasattr(pl, "filter_batch"):
                    continue
                out = pl.filter_batch(state, pod, NodeBatch(infos, columns_of(snap)))
                if out is not None:  # None: "use the per-node form"
                    assert [_status_key(s) for s in out] == [_status_key(pl.filter(state, pod, ni)) for ni in infos], pl.name()
        if fwk.run_pre_score_plugins(state, pod, infos).is_success():
            for pl in fwk.points["score"]:
                if pl.name() in state.skip_score_plugins or not hasattr(pl, "score_batch"):
                    continue
                out = pl.score_batch(state, pod, NodeBatch(infos, columns_of(snap)))
                if out is not None:
                    assert [int(v) for v in out] == [pl.score(state, pod, ni)[0] for ni in infos], pl.name()
            _check_normalize_batch(fwk, state, pod, infos)
        # the whole runtime: statuses of every node and the score table
        _batch_keys_equal_two_passes(fwk, state, pod, infos)


def _check_normalize_batch(fwk, state, pod, infos):
    """normalize_score_batch == normalize_score, on the plugin's own scores and on arbitrary
    ones (negative, all zero, ties) so that every branch of the normalisation is compared."""
    rng = random.Random(len(infos))
    for pl in fwk.points["score"]:
        ext = pl.score_extensions()
        if pl.name() in state.skip_score_plugins or ext is None or not hasattr(ext, "normalize_score_batch"):
            continue
        own = [pl.score(state, pod, ni)[0] for ni in infos]
        for values in (own, [0] * len(infos), [rng.randint(-5, 40) for _ in infos], [rng.randint(0, 3) for _ in infos]):
            scores = [NodeScore(ni.name, v) for ni, v in zip(infos, values)]
            st = ext.normalize_score(state, pod, scores)
            assert st is None or st.is_success()
            batch = ext.normalize_score_batch(state, pod, NodeBatch(infos, columns_of(fwk.snapshot)), np.asarray(values, np.int64))
            assert [int(v) for v in batch] == [s.score for s in scores], (pl.name(), values)


def _kinds_found(out: SparseStatuses) -> list[int]:
    """The ids of the distinct Status objects a batch holds, found by walking it."""
    return sorted({id(st) for st in out if st is not None})


def _kinds(out: SparseStatuses) -> list[int]:
    """The ids of the distinct Status objects the batch says it holds (distinct(): its maker's
    kinds when given), each checked to be the object it names."""
    kinds = out.distinct()
    assert all(id(st) == key for key, st in kinds.items())
    return sorted(kinds)


def _run(nodes, bound, pending, use_batch: bool, seed: int = 7, percentage: int = 0, config_yaml=None, version=None):
    """A minimal scheduling loop (cache -> snapshot -> schedule_pod -> assume) in input order."""
    fwk = new_framework(config_yaml, nodes=nodes, version=version)
    fwk.use_batch = use_batch
    cache, snap = Cache(), Snapshot()
    for n in nodes:
        cache.add_node(n)
    for p in bound:
        cache.add_pod(p)
    alg = SchedulingAlgorithm(percentage, random.Random(seed))
    trace = []
    for pod in pending:
        cache.update_snapshot(snap)
        fwk.snapshot = snap
        qpi = QueuedPodInfo(PodInfo.of(pod))
        try:
            r = alg.schedule_pod(fwk, CycleState(), qpi, snap)
        except FitError as e:
            statuses = sorted((n, _status_key(s)) for n, s in e.diagnosis.node_to_status.node_to_status.items())
            trace.append(("fit", e.message(), statuses, sorted(e.diagnosis.unschedulable_plugins), alg.next_start_node_index))
            continue
        except SchedulingError as e:
            trace.append(("error", e.status.message(), alg.next_start_node_index))
            continue
        scores = [(s.name, s.total_score, [(p.name, p.score) for p in s.scores]) for s in r.scores]
        trace.append(("ok", r.suggested_host, r.evaluated_nodes, r.feasible_nodes, scores, alg.next_start_node_index))
        cache.assume_pod(qpi.pod_info.with_node_name(r.suggested_host).pod)
    return trace


def test_chunking_and_start_index_at_scale():
    """150 nodes (more than minFeasibleNodesToFind) and percentageOfNodesToScore cut-offs."""
    rng = random.Random(3)
    nodes = [
        make_node(f"n{i}").capacity(cpu=rng.choice(["1", "2", "4"]), memory="8Gi", pods="5").zone(ZONES[i % 3]).obj() for i in range(150)
    ]
    pending = [make_pod(f"p{i}").req(cpu=rng.choice(["100m", "900m", "2"]), memory="1Gi").obj() for i in range(60)]
    for pct in (0, 10, 100):
        assert _run(nodes, [], pending, True, 5, pct) == _run(nodes, [], pending, False, 5, pct)


def test_sparse_statuses_say_where_the_statuses_are(monkeypatch):
    """NodeResourcesFit's batch Filter and the runtime's batch answer SparseStatuses: their
    ``failing`` is exactly where the Statuses are, and the search decides the same when it
    reads them as a plain list (every node walked), rejections and fit errors included."""
    from kschedctl.runtime.framework import Framework

    rng = random.Random(11)
    nodes = [make_node(f"n{i}").capacity(cpu=rng.choice(["1", "2", "4"]), memory="8Gi", pods="5").obj() for i in range(150)]
    pending = [make_pod(f"p{i}").req(cpu=rng.choice(["100m", "900m", "2", "5"]), memory="1Gi").obj() for i in range(60)]
    fwk = new_framework(nodes=nodes)
    state, pod = CycleState(), make_pod("two").req(cpu="2", memory="1Gi").obj()  # the 1-cpu nodes fail
    fwk.run_pre_filter_plugins(state, pod, fwk.snapshot.list())
    statuses = fwk.run_filter_plugins_batch(state, pod, NodeBatch(fwk.snapshot.list(), columns_of(fwk.snapshot)))
    assert statuses.__class__ is SparseStatuses
    assert statuses.failing == [i for i, st in enumerate(statuses) if st is not None]
    assert statuses.kinds is not None and _kinds(statuses) == _kinds_found(statuses)  # the runtime's own
    assert statuses.failing and {st.reasons[0] for st in statuses if st is not None} == {"Insufficient cpu"}

    sparse = [_run(nodes, [], pending, True, 5, pct) for pct in (0, 10)]
    real = Framework.run_filter_plugins_batch
    monkeypatch.setattr(Framework, "run_filter_plugins_batch", lambda self, *a: list(real(self, *a)))
    assert [_run(nodes, [], pending, True, 5, pct) for pct in (0, 10)] == sparse
    assert any(step[0] == "fit" for step in sparse[0])  # the 5-cpu pods fit nowhere


def _rejecting_cluster() -> tuple[list[Any], list[Any], list[Any]]:
    """150 nodes that every node-reading Filter rejects somewhere: nodes without a zone
    (PodTopologySpread's missing label), a zone crowded by bound pods (its skew), ssd and hdd
    disks (NodeAffinity), NoSchedule taints (TaintToleration), unschedulable nodes, small
    nodes (NodeResourcesFit); and 60 pending pods that spread, select and tolerate."""
    rng = random.Random(13)
    nodes = []
    for i in range(150):
        b = make_node(f"n{i}").capacity(cpu=rng.choice(["1", "2", "4"]), memory="8Gi", pods="6")
        b = b.label("disk", "ssd" if i % 3 else "hdd")
        if i % 10:
            b = b.zone(ZONES[i % 3])
        if i % 7 == 0:
            b = b.taint("dedicated", "infra")
        if i % 13 == 0:
            b = b.unschedulable()
        nodes.append(b.obj())
    bound = [make_pod(f"b{i}").label("app", "web").req(cpu="100m").node(f"n{3 * i + 1}").obj() for i in range(8)]  # zone z2
    pending = []
    for i in range(60):
        b = make_pod(f"p{i}").label("app", "web").req(cpu="5" if i % 9 == 4 else rng.choice(["100m", "900m", "2"]), memory="1Gi")
        b = b.spread(1, "topology.kubernetes.io/zone", selector={"matchLabels": {"app": "web"}})
        if i % 2:
            b = b.node_affinity_in("disk", ["ssd"])
        if i % 5 == 0:
            b = b.toleration("dedicated", "infra", "NoSchedule")
        pending.append(b.obj())
    return nodes, bound, pending


def test_every_node_filter_batch_says_where_its_statuses_are(monkeypatch):
    """PodTopologySpread (both of its reasons, by label code), NodeAffinity, TaintToleration
    and NodeUnschedulable answer SparseStatuses whose ``failing`` is exactly where their
    Statuses are; and a run where every batch answers a plain list (the runtime then walks
    every node of every batch) decides the same, fit errors and their statuses included."""
    nodes, bound, pending = _rejecting_cluster()
    fwk = new_framework(nodes=nodes, pods=bound)
    pod = (
        make_pod("probe")
        .label("app", "web")
        .req(cpu="100m")
        .spread(1, "topology.kubernetes.io/zone", selector={"matchLabels": {"app": "web"}})
    )
    pod = pod.node_affinity_in("disk", ["ssd"]).obj()
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod, fwk.snapshot.list())
    batch = NodeBatch(fwk.snapshot.list(), columns_of(fwk.snapshot))
    reasons = {}
    for pl in fwk.points["filter"]:
        if pl.name() not in ("PodTopologySpread", "NodeAffinity", "TaintToleration", "NodeUnschedulable"):
            continue
        out = pl.filter_batch(state, pod, batch)
        assert out.__class__ is SparseStatuses, pl.name()
        assert out.failing == [i for i, st in enumerate(out) if st is not None], pl.name()
        assert _kinds(out) == _kinds_found(out), pl.name()
        reasons[pl.name()] = {st.reasons[0] for st in out if st is not None}
    assert reasons["PodTopologySpread"] == {
        "node(s) didn't match pod topology spread constraints (missing required label)",
        "node(s) didn't match pod topology spread constraints",
    }
    assert reasons["NodeAffinity"] == {"node(s) didn't match Pod's node affinity/selector"}
    assert reasons["TaintToleration"] == {"node(s) had untolerated taint(s)"}
    assert reasons["NodeUnschedulable"] == {"node(s) were unschedulable"}

    from kschedctl.runtime.framework import Framework

    filter_batches = {cls: fn for (cls, method), fn in _batch_classes().items() if method == "filter_batch"}
    rejected: dict[str, int] = {}  # by plugin, the rejections the runs' batches said where they are

    def counted(self: Any, *args: Any, _fn: Any) -> Any:
        out = _fn(self, *args)
        if out.__class__ is SparseStatuses:
            rejected[self.name()] = rejected.get(self.name(), 0) + len(out.failing)
        return out

    with monkeypatch.context() as patch:
        for cls, fn in filter_batches.items():
            patch.setattr(cls, "filter_batch", lambda self, *a, _fn=fn: counted(self, *a, _fn=_fn))
        sparse = [_run(nodes, bound, pending, True, 5, pct) for pct in (0, 10)]
    assert all(rejected.get(name) for name in reasons), rejected  # each one's rejections reached
    for cls, fn in filter_batches.items():
        monkeypatch.setattr(cls, "filter_batch", lambda self, *a, _fn=fn: None if (r := _fn(self, *a)) is None else list(r))
    real = Framework.run_filter_plugins_batch
    monkeypatch.setattr(Framework, "run_filter_plugins_batch", lambda self, *a: list(real(self, *a)))
    assert [_run(nodes, bound, pending, True, 5, pct) for pct in (0, 10)] == sparse
    assert {step[0] for step in sparse[0]} == {"ok", "fit"}


def _six_node_tracked_snapshot() -> tuple[Cache, Snapshot, Any]:
    """A Cache-kept snapshot of six empty nodes (three zones), its columns synced once."""
    cache, snap = Cache(), Snapshot()
    for i in range(6):
        cache.add_node(make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods="10").zone(ZONES[i % 3]).obj())
    cache.update_snapshot(snap)
    cols = columns_of(snap)
    cols.rows(snap.list())
    return cache, snap, cols


def test_tracked_columns_follow_snapshot_updates():
    """A Cache-kept snapshot: the columnar rows follow assume/forget through replaced_rows only,
    and a clone of a member (preemption's dry run) gets its own row values and gives them back."""
    cache, snap, cols = _six_node_tracked_snapshot()
    assert snap.tracks_rows
    pod = make_pod("p").req(cpu="1", memory="1Gi").node("n2").obj()
    cache.assume_pod(pod)
    cache.update_snapshot(snap)
    row = snap.get("n2").index
    assert snap.replaced_rows == {row}
    rows = cols.rows(snap.list())
    assert cols.req_cpu[rows].tolist() == [ni.requested.milli_cpu for ni in snap.list()]
    clone = snap.get("n2").clone()
    clone.remove_pod(pod)
    assert cols.req_cpu[cols.rows([clone])].tolist() == [0]
    assert cols.req_cpu[cols.rows([snap.get("n2")])].tolist() == [1000]
    cache.forget_pod(pod)
    cache.update_snapshot(snap)
    assert cols.req_cpu[cols.rows(snap.list())].tolist() == [0] * 6


@pytest.mark.parametrize("first,size", [(0, 6), (2, 3), (4, 4), (5, 6)], ids=["all", "middle", "wraps", "wraps-all"])
def test_range_rows_of_the_snapshot_list_equal_checked_rows(first, size):
    """A chunk of the snapshot's own node list (the filter search's chunks): its rows taken as
    positions (Columns.range_rows, after syncing the rows replaced by an assume) are the rows
    the per-node check finds, and the columns there hold the nodes' current values."""
    cache, snap, cols = _six_node_tracked_snapshot()
    cache.assume_pod(make_pod("p").req(cpu="1", memory="1Gi").node("n3").obj())
    cache.update_snapshot(snap)  # n3's row is replaced, not yet synced
    members = snap.node_info_list
    chunk = [members[(first + i) % len(members)] for i in range(size)]
    rows = cols.range_rows(snap, first, size)
    assert cols.req_cpu[rows].tolist() == [ni.requested.milli_cpu for ni in chunk]  # synced by range_rows
    assert rows.tolist() == cols.rows(chunk).tolist()
    assert cols.range_rows(Snapshot(), first, size) is None  # not the columns' own snapshot


def test_standalone_snapshot_sees_in_place_edits():
    """from_nodes_and_pods snapshots do not track rows: an in-place edit is seen by generation."""
    fwk = new_framework(nodes=[make_node("n0").capacity(cpu="4", memory="8Gi").obj()])
    snap = fwk.snapshot
    assert not snap.tracks_rows
    cols = columns_of(snap)
    assert cols.req_cpu[cols.rows(snap.list())].tolist() == [0]
    snap.get("n0").add_pod(make_pod("p").req(cpu="1").node("n0").obj())
    assert cols.req_cpu[cols.rows(snap.list())].tolist() == [1000]


def _image_node(rng: random.Random, name: str, zone: str):
    b = make_node(name).capacity(cpu="4", memory="8Gi").zone(zone)
    imgs = [([f"img:{k}"], rng.randint(0, 3000) * 1024 * 1024) for k in range(4) if rng.random() < 0.4]
    if imgs:
        b = b.images(imgs)
    return b.obj()


def test_image_locality_index_matches_per_node():
    """ImageLocality's batch form reads the snapshot's image index; equal to score() per node,
    with images on some nodes (sizes differing per node: the cache's first size counts), repeated
    images in the pod, after nodes are added, after nodes change their images (only the changed rows
    are cloned, the others keep their holder counts), after nodes are removed and after a pod
    lands on a node (its row alone is cloned again, with the counts of now)."""
    rng = random.Random(11)
    nodes = [_image_node(rng, f"n{i}", ZONES[i % 3]) for i in range(40)]
    cache, snap = Cache(), Snapshot()
    for n in nodes[:30]:
        cache.add_node(n)
    fwk = new_framework(nodes=nodes[:1])

    def change_images():
        for i in (3, 7, 12):
            old = cache.nodes[f"n{i}"].node
            cache.update_node(old, _image_node(rng, f"n{i}", ZONES[i % 3]))

    def remove_some():
        for i in (0, 5):
            cache.remove_node(cache.nodes[f"n{i}"].node)

    def bind_a_pod():  # n1 is cloned again without a structural change: fresh counts, same index
        cache.add_pod(make_pod("bound").uid("bound").node("n1").obj())

    steps = [lambda: [cache.add_node(n) for n in nodes[30:]], change_images, remove_some, bind_a_pod, lambda: None]
    for step in steps:
        cache.update_snapshot(snap)
        fwk.snapshot = snap
        plugin = fwk.instances["ImageLocality"]
        infos = snap.list()
        for images in (["img:0"], ["img:1", "img:1", "img:2"], ["none"], ["img:3", "img:0", "img:2", "img:1"]):
            b = make_pod("p")
            for im in images:
                b = b.image(im)
            pod = b.obj()
            batch = plugin.score_batch(CycleState(), pod, NodeBatch(infos, columns_of(snap)))
            assert [int(v) for v in batch] == [plugin.score(CycleState(), pod, ni)[0] for ni in infos], images
        step()


def test_image_locality_without_images_anywhere_scores_zero_for_any_pod():
    """No node of the snapshot reports an image (scheduler_perf's nodes; snapshots without
    node.status.images): the batch form answers 0 for every node without reading the pod, and
    score() per node agrees for pods with no container, one, many, init containers and image
    volumes (calculate_priority clamps a sum of 0 up to MIN_THRESHOLD: 0 whatever the count)."""
    cache, snap = Cache(), Snapshot()
    for i in range(12):
        cache.add_node(make_node(f"n{i}").capacity(cpu="4", memory="8Gi").obj())
    cache.update_snapshot(snap)
    fwk = new_framework(nodes=[make_node("n0").obj()])
    fwk.snapshot = snap
    plugin = fwk.instances["ImageLocality"]
    infos = snap.list()
    assert not snap.image_index
    pods = [make_pod("none").obj()]
    for count in (1, 3, 9):
        b = make_pod(f"c{count}")
        for k in range(count):
            b = b.image(f"img:{k}")
        pods.append(b.obj())
    with_init = make_pod("init").image("a").obj()
    with_init.init_containers = list(with_init.containers) * 2
    pods.append(with_init)
    for pod in pods:
        batch = plugin.score_batch(CycleState(), pod, NodeBatch(infos, columns_of(snap)))
        per_node = [plugin.score(CycleState(), pod, ni)[0] for ni in infos]
        assert [int(v) for v in batch] == per_node == [0] * len(infos)


def _ipa_cases():
    """upstream: filtering_test.go TestRequiredAffinitySingleNode / TestRequiredAffinityMultipleNodes
    shapes: the first pod of a self-affine group, a node without the topology key, existing
    anti-affinity by zone, incoming anti-affinity by host, affinity satisfied in one zone."""
    zone, host = "topology.kubernetes.io/zone", "kubernetes.io/hostname"
    nodes = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods="10").zone(ZONES[i % 3]).obj() for i in range(5)]
    nodes.append(make_node("nozone").capacity(cpu="4", memory="8Gi", pods="10").obj())
    first = make_pod("first").label("app", "a").pod_affinity_in("app", zone, ["a"]).obj()
    return [
        ("first pod of a self-affine group", nodes, [], first),
        ("affinity satisfied in one zone", nodes, [make_pod("b0").label("app", "a").node("n1").obj()], first),
        (
            "existing anti-affinity by zone",
            nodes,
            [make_pod("b0").label("app", "x").pod_affinity_in("app", zone, ["a"], anti=True).node("n0").obj()],
            make_pod("p").label("app", "a").obj(),
        ),
        (
            "incoming anti-affinity by host",
            nodes,
            [make_pod("b0").label("app", "a").node("n2").obj()],
            make_pod("p").label("app", "b").pod_affinity_in("app", host, ["a"], anti=True).obj(),
        ),
        ("not self-affine, nothing matches", nodes, [], make_pod("p").label("app", "b").pod_affinity_in("app", zone, ["a"]).obj()),
    ]


def test_inter_pod_affinity_batch_cases():
    for name, nodes, bound, pod in _ipa_cases():
        fwk = new_framework(nodes=nodes, pods=bound)
        infos = fwk.snapshot.list()
        pl = fwk.instances["InterPodAffinity"]
        state = CycleState()
        _, st0 = pl.pre_filter(state, pod, infos)
        assert st0 is None, name
        per_node = [_status_key(pl.filter(state, pod, ni)) for ni in infos]
        batch = [_status_key(s) for s in pl.filter_batch(state, pod, NodeBatch(infos, columns_of(fwk.snapshot)))]
        assert batch == per_node, name
        assert len(set(per_node)) > 1 or name.startswith(("first", "not")), name


# --- the batch contract over (profile x release) ----------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
RELEASES = ("1.35", "1.36", "1.37")
BATCH_METHODS = ("filter_batch", "score_batch", "normalize_score_batch", "filter_batch_with_added_pods")


def _fit(strategy: str) -> str:
    return f"""
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
{strategy}"""


CONFIGS: dict[str, str | None] = {
    "default": None,
    **{f"profiles/{p.name}": p.read_text() for p in sorted((ROOT / "profiles").glob("*.yaml"))},
    "Fit-LeastAllocated-weighted": _fit("""            type: LeastAllocated
            resources: [{name: cpu, weight: 3}, {name: memory, weight: 1}]"""),
    "Fit-MostAllocated": _fit("""            type: MostAllocated
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 2}]"""),
    "Fit-RequestedToCapacityRatio": _fit("""            type: RequestedToCapacityRatio
            resources: [{name: cpu, weight: 2}, {name: memory, weight: 1}]
            requestedToCapacityRatio:
              shape: [{utilization: 0, score: 0}, {utilization: 60, score: 8}, {utilization: 100, score: 3}]"""),
    "args-IPA-NodeAffinity-PTS-Balanced": """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    pluginConfig:
      - name: InterPodAffinity
        args: {hardPodAffinityWeight: 7, ignorePreferredTermsOfExistingPods: true}
      - name: NodeAffinity
        args:
          addedAffinity:
            preferredDuringSchedulingIgnoredDuringExecution:
              - weight: 5
                preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}
      - name: PodTopologySpread
        args:
          defaultingType: List
          defaultConstraints:
            - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}
      - name: NodeResourcesBalancedAllocation
        args:
          resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
""",
}

# (plugin name, method) -> number of calls that returned a result and matched the per-node form
EXERCISED: dict[tuple[str, str], int] = {}
RAN: set[tuple[str, str]] = set()


def _record(pl: Any, method: str) -> None:
    key = (pl.name(), method)
    EXERCISED[key] = EXERCISED.get(key, 0) + 1


# Every difference a shadowed batch call found. The runtime catches what a batch form raises
# and falls back to the per-node form (which would hide a wrong batch form behind a right
# decision), so differences are collected here and _shadow fails the test on them.
MISMATCHES: list[tuple[Any, Any, Any]] = []


def _expect_equal(batch: Any, per_node: Any, where: Any) -> None:
    if batch != per_node:
        MISMATCHES.append((where, batch, per_node))
        raise AssertionError((where, batch, per_node))


def _shadowed(cls: type, method: str, orig: Any) -> Any:
    """``orig`` followed by the per-node form on the same arguments, compared."""
    if method == "filter_batch":

        def filter_batch(self: Any, state: Any, pod: Any, node_infos: Any) -> Any:
            out = orig(self, state, pod, node_infos)
            if out is not None:
                per_node = [_status_key(self.filter(state, pod, ni)) for ni in node_infos]
                _expect_equal([_status_key(s) for s in out], per_node, (self.name(), method, pod.name))
                if out.__class__ is SparseStatuses:  # where it says its Statuses are, they are
                    where = [i for i, st in enumerate(out) if st is not None]
                    _expect_equal(out.failing, where, (self.name(), method, pod.name, "failing"))
                    _expect_equal(_kinds(out), _kinds_found(out), (self.name(), method, pod.name, "kinds"))
                _record(self, method)
            return out

        return filter_batch
    if method == "filter_batch_with_added_pods":

        def filter_batch_with_added_pods(self: Any, state: Any, pod: Any, node_infos: Any, added: Any) -> Any:
            out = orig(self, state, pod, node_infos, added)
            if out is not None:
                per_node = []
                for ni, pods in zip(node_infos, added):
                    copy = ni.clone()  # the first pass's node: its pods and the nominated ones
                    for pi in pods:
                        copy.add_pod_info(pi)
                    per_node.append(_status_key(self.filter(state, pod, copy)))
                _expect_equal([_status_key(s) for s in out], per_node, (self.name(), method, pod.name))
                _record(self, method)
            return out

        return filter_batch_with_added_pods
    if method == "score_batch":

        def score_batch(self: Any, state: Any, pod: Any, node_infos: Any) -> Any:
            out = orig(self, state, pod, node_infos)
            if out is not None:
                per_node = [self.score(state, pod, ni)[0] for ni in node_infos]
                _expect_equal([int(v) for v in out], per_node, (self.name(), method, pod.name))
                _record(self, method)
            return out

        return score_batch

    def normalize_score_batch(self: Any, state: Any, pod: Any, node_infos: Any, values: Any) -> Any:
        given_values = [int(v) for v in values]
        out = orig(self, state, pod, node_infos, values)
        if out is not None:
            scores = [NodeScore(ni.name, v) for ni, v in zip(node_infos, given_values)]
            st = self.normalize_score(state, pod, scores)
            assert st is None or st.is_success(), (self.name(), st)
            _expect_equal([int(v) for v in out], [s.score for s in scores], (self.name(), method, given_values))
            _record(self, method)
        return out

    return normalize_score_batch


def _batch_classes() -> dict[tuple[type, str], Any]:
    """Every in-tree plugin class with a batch method, with that method."""
    from kschedctl.plugins.plugin_manager import default_registry

    out: dict[tuple[type, str], Any] = {}
    for spec in default_registry().registry.values():
        cls = spec.plugin_class
        if spec.source != "in-tree" or not isinstance(cls, type):
            continue
        for method in BATCH_METHODS:
            fn = cls.__dict__.get(method)
            if fn is not None:
                out[(cls, method)] = fn
    return out


@contextmanager
def _shadow(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for (cls, method), fn in _batch_classes().items():
        monkeypatch.setattr(cls, method, _shadowed(cls, method, fn))
    MISMATCHES.clear()
    yield
    assert not MISMATCHES, f"batch forms differ from their per-node forms: {MISMATCHES[:3]}"


def _check(config: str, release: str, cluster: Any, seed: int) -> None:
    nodes, bound, pending = cluster
    version = KubeVersion(release)
    with pytest.MonkeyPatch.context() as mp, _shadow(mp):
        batched = _run(nodes, bound, pending, True, seed, config_yaml=CONFIGS[config], version=version)
    per_node = _run(nodes, bound, pending, False, seed, config_yaml=CONFIGS[config], version=version)
    assert batched == per_node


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("config", list(CONFIGS))
@settings(
    max_examples=5, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(cluster=cluster_st())
def test_batch_forms_equal_per_node(config: str, release: str, cluster: Any) -> None:
    RAN.add((config, release))
    _check(config, release, cluster, seed=random.Random(len(cluster[0])).randrange(1000))


@pytest.mark.parametrize("release", ["1.35", "1.37"])
def test_dynamic_resources_batch_forms_equal_per_node(release: str, tmp_path: Path) -> None:
    """DynamicResources' batch Filter / Score / NormalizeScore on a DRA cluster filling up
    (benchmarks/dra_schedule.py): shadowed by the per-node forms during a whole run."""
    from kschedctl.cluster.loader import load_snapshot
    from kschedctl.config.loader import load_config_file
    from kschedctl.plugins.plugin_manager import default_registry
    from kschedctl.scheduler.scheduler import Scheduler

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import dra_schedule

    path = tmp_path / "dra.json"
    path.write_text(json.dumps(dra_schedule.build(nodes=6, devices=2, pods=16)))
    version = KubeVersion(release)
    registry = default_registry().registry
    with pytest.MonkeyPatch.context() as mp, _shadow(mp):
        mp.setattr(columnar, "COLUMNAR_MIN_NODES", 0)  # 6 nodes: the batch forms run only with the view
        result = Scheduler(load_snapshot([str(path)]), load_config_file(None, version, registry), registry, version, seed=1).run()
    assert result.placements and result.unschedulable  # the cluster fills up


@st.composite
def nominated_cluster_st(draw):
    """A cluster, pods nominated to its nodes (priorities below, equal to and above the pending
    pods', some with host ports), and pending pods."""
    nodes, bound, pending = draw(cluster_st())
    names = [n.name for n in nodes]
    nominated = []
    for i in range(draw(st.integers(1, 8))):
        b = make_pod(f"nom{i}").req(cpu=draw(st.sampled_from(REQ_CPU)), memory=draw(st.sampled_from(REQ_MEM)))
        b = b.priority(draw(st.sampled_from([-5, 0, 0, 10])))
        if draw(st.integers(0, 5)) == 0:
            b = b.host_port(draw(st.sampled_from([80, 8080])))
        nominated.append((b.obj(), draw(st.sampled_from(names))))
    pending = [
        p if draw(st.booleans()) else make_pod(p.name).req(cpu=draw(st.sampled_from(REQ_CPU))).priority(draw(st.sampled_from([0, 5]))).obj()
        for p in pending
    ]
    # NodeAffinity and NodePorts active: their first pass is asked too
    pending.append(
        make_pod("selective")
        .req(cpu=draw(st.sampled_from(REQ_CPU)))
        .host_port(8080)
        .node_affinity_in("disk", [draw(st.sampled_from(["ssd", "hdd"]))])
        .obj()
    )
    return nodes, bound, pending, nominated


NOMINATED_CONFIGS = ["default", "profiles/" + sorted((ROOT / "profiles").glob("*.yaml"))[0].name]


@pytest.mark.parametrize("config", NOMINATED_CONFIGS)
@settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(cluster=nominated_cluster_st())
def test_first_pass_with_nominated_pods_batch_equals_two_passes(config: str, cluster: Any) -> None:
    """Nodes with nominated pods: the batch's first pass (filter_batch_with_added_pods of every
    active Filter plugin, shadowed by Filter on a copy with the pods added) and the per-node
    two-pass loop (run_filter_plugins_with_nominated_pods, runtime/filter_points.py; upstream
    framework.go RunFilterPluginsWithNominatedPods) give every node the same status."""
    from kschedctl.backend.queue.nominator import Nominator

    nodes, bound, pending, nominated = cluster
    fwk = new_framework(CONFIGS[config], nodes=nodes, pods=bound)
    nominator = Nominator()
    for pod, node in nominated:
        nominator.add_nominated_pod(PodInfo.of(pod), node)
    fwk.services.nominator = nominator
    infos = fwk.snapshot.list()
    with pytest.MonkeyPatch.context() as mp, _shadow(mp):
        for pod in pending:
            state = CycleState()
            _, status, _ = fwk.run_pre_filter_plugins(state, pod, infos)
            if not status.is_success():
                continue
            _batch_keys_equal_two_passes(fwk, state, pod, infos)


def test_kept_first_pass_adds_follow_the_nominator() -> None:
    """The batch keeps each node's nominated pods to add across cycles (FilterPoints._adds_for_priority):
    a pod nominated, removed or updated on a node, another priority, and the pod that is itself
    nominated each give the statuses of the two-pass loop, which looks afresh every time. On
    4-CPU nodes a 3-CPU nominated pod that is added rejects a 2-CPU pod; one that is not leaves
    it room, so each status says which pods were added."""
    from kschedctl.backend.queue.nominator import Nominator

    nodes = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods="10").obj() for i in range(5)]
    fwk = new_framework(nodes=nodes)
    nominator = Nominator()
    fwk.services.nominator = nominator
    infos = fwk.snapshot.list()

    def nominated(name: str, priority: int) -> PodInfo:
        return PodInfo.of(make_pod(name).req(cpu="3").priority(priority).obj())

    def statuses(pod: Any) -> list[Any]:
        state = CycleState()
        fwk.run_pre_filter_plugins(state, pod, infos)
        two_passes = _batch_keys_equal_two_passes(fwk, state, pod, infos)
        return ["fits" if key[0] == Code.Success else "full" for key in two_passes]

    pending = {prio: make_pod(f"p{prio}").req(cpu="2").priority(prio).obj() for prio in (0, 5, 10)}
    a = nominated("a", 10)
    for info, node in ((a, "n0"), (nominated("b", 0), "n1"), (nominated("c", 5), "n2")):
        nominator.add_nominated_pod(info, node)
    assert statuses(pending[5]) == ["full", "fits", "full", "fits", "fits"]
    assert statuses(pending[0]) == ["full", "full", "full", "fits", "fits"]  # the same lists, another priority
    assert statuses(pending[10]) == ["full", "fits", "fits", "fits", "fits"]
    nominator.delete_nominated_pod_if_exists(a.pod)
    nominator.add_nominated_pod(nominated("d", 0), "n0")
    assert statuses(pending[5]) == ["fits", "fits", "full", "fits", "fits"]  # n0's list changed
    nominator.update_nominated_pod(nominated("b", 10))
    assert statuses(pending[5]) == ["fits", "full", "full", "fits", "fits"]  # b's PodInfo changed
    nominator.add_nominated_pod(a, "n3")
    nominator.add_nominated_pod(nominated("e", 10), "n3")
    assert statuses(pending[10]) == ["fits", "full", "fits", "full", "fits"]
    assert statuses(a.pod) == ["fits", "full", "fits", "full", "fits"]  # e is added on n3, a itself is not
    nominator.delete_nominated_pod_if_exists(make_pod("e").obj())
    assert statuses(a.pod) == ["fits", "full", "fits", "fits", "fits"]
    assert statuses(pending[10]) == ["fits", "full", "fits", "full", "fits"]  # a is added for another pod
    kept = fwk._kept_adds_by_node[1]  # handed to every plugin's first pass: none can edit them
    assert sorted(kept) == [0, 5, 10]
    assert all(type(added) is tuple for _, lists in kept.values() for added in lists.values())
    # what is kept for priority 10 is n1's b and n3's a (e left), each read at the last change
    changes, lists = kept[10]
    assert changes == nominator.changes
    assert {name: [pi.pod.name for pi in added] for name, added in lists.items()} == {"n1": ["b"], "n3": ["a"]}


def _full_cluster_with_nominated_pods(fits_on_every_other: bool) -> tuple[Any, list[Any]]:
    """80 4-CPU nodes, each holding a 3-CPU pod (or, with ``fits_on_every_other``, only the
    even ones), and a 3-CPU pod of priority 10 nominated to each of the first 50: a 2-CPU pod
    of priority 5 fails every full node in both passes, the way a preemptor meets a full
    cluster."""
    from kschedctl.backend.queue.nominator import Nominator

    nodes = [make_node(f"n{i:02d}").capacity(cpu="4", memory="8Gi", pods="10").obj() for i in range(80)]
    bound = [make_pod(f"b{i:02d}").req(cpu="3").node(f"n{i:02d}").obj() for i in range(80) if not fits_on_every_other or i % 2 == 0]
    fwk = new_framework(nodes=nodes, pods=bound)
    nominator = Nominator()
    for i in range(50):
        nominator.add_nominated_pod(PodInfo.of(make_pod(f"nom{i:02d}").req(cpu="3").priority(10).obj()), f"n{i:02d}")
    fwk.services.nominator = nominator
    return fwk, fwk.snapshot.list()


@pytest.mark.parametrize("fits_on_every_other", [False, True])
def test_many_failing_nodes_are_recorded_as_the_two_passes_record_them(fits_on_every_other: bool) -> None:
    """A batch with many failing nodes (from 32 on, recorded by C-level walks:
    runtime/filter_points.py _record_failing) gives each node the two-pass loop's status
    (framework.go RunFilterPluginsWithNominatedPods), and says where the rejected nodes are."""
    fwk, infos = _full_cluster_with_nominated_pods(fits_on_every_other)
    pod = make_pod("p").req(cpu="2").priority(5).obj()
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod, infos)
    fwk.use_batch = False
    two_passes = [fwk.run_filter_plugins_with_nominated_pods(state, pod, ni) for ni in infos]
    fwk.use_batch = True
    batch = fwk.run_filter_plugins_batch(state, pod, infos)
    assert [_status_key(st) for st in batch] == [_status_key(st) for st in two_passes]
    rejected = [i for i, st in enumerate(two_passes) if not st.is_success()]
    # every full node: the even ones hold the 3-CPU pod; of the odd ones, those with a nominated pod
    expected = [i for i in range(80) if i % 2 == 0 or i < 50] if fits_on_every_other else list(range(80))
    assert rejected == expected
    if isinstance(batch, SparseStatuses):
        assert batch.failing == rejected
        assert _kinds(batch) == _kinds_found(batch)


def test_an_error_in_the_plain_pass_sends_the_batch_the_exact_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Filter batch that answers Error for nodes with nominated pods: the Error of the plain
    pass may have been repeated onto later nodes without a call, so the batch answers each node
    by the two-pass loop (runtime/filter_points.py), which calls the plugin's per-node Filter.
    Here that Filter passes, so no node may keep the batch's Error."""
    from kschedctl.framework.interface import Status
    from kschedctl.plugins.taint_toleration import TaintToleration

    fwk, infos = _full_cluster_with_nominated_pods(True)
    monkeypatch.setattr(
        TaintToleration, "filter_batch", lambda self, state, pod, nodes: [Status(Code.Error, "boom")] * len(nodes), raising=False
    )
    pod = make_pod("p").req(cpu="2").priority(5).obj()
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod, infos)
    batch = _batch_keys_equal_two_passes(fwk, state, pod, infos)
    assert all(code != Code.Error for code, _ in batch)


def test_every_registered_batch_method_is_exercised() -> None:
    """Meta-test: each batch method of an in-tree plugin returned a result (compared with its
    per-node form) at least once in this module; run alone, it drives the tests above first."""
    for config in CONFIGS:
        for release in RELEASES:
            if (config, release) not in RAN:
                test_batch_forms_equal_per_node(config, release)
    if _never_exercised():  # run alone: the DRA cluster and the nominated pods too
        with tempfile.TemporaryDirectory() as tmp:
            test_dynamic_resources_batch_forms_equal_per_node("1.37", Path(tmp))
        for config in NOMINATED_CONFIGS:
            test_first_pass_with_nominated_pods_batch_equals_two_passes(config)
        with tempfile.TemporaryDirectory() as tmp:
            test_volume_batch_forms_equal_per_node(0, Path(tmp))
        with tempfile.TemporaryDirectory() as tmp:
            test_volume_preemption_equals_copies(2, Path(tmp))  # a seed whose first passes reach VolumeZone
        _check("default", "1.37", _preferred_affinity_cluster(), seed=1)  # InterPodAffinity's Score
        _check("default", "1.37", _preferred_spread_cluster(), seed=1)  # PodTopologySpread's Score
    never = _never_exercised()
    assert not never, f"batch methods no test exercised: {never}"


def _preferred_affinity_cluster() -> tuple[list[Any], list[Any], list[Any]]:
    """Six nodes in three zones, pods labelled a and b on some, and pending pods with
    preferred affinity and anti-affinity: InterPodAffinity scores (and normalizes) them."""
    nodes = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi").zone(ZONES[i % 3]).obj() for i in range(6)]
    bound = [make_pod(f"b{i}").label("app", "ab"[i % 2]).node(f"n{i}").obj() for i in range(4)]
    zone = "topology.kubernetes.io/zone"
    pending = [
        make_pod("p0").label("app", "a").pod_affinity_in("app", zone, ["a"], weight=10).obj(),
        make_pod("p1").label("app", "b").pod_affinity_in("app", zone, ["b"], anti=True, weight=50).obj(),
    ]
    return nodes, bound, pending


def _preferred_spread_cluster() -> tuple[list[Any], list[Any], list[Any]]:
    """Six nodes in three zones, pods labelled app=s on three of them, and pending app=s pods
    spread over zones with ScheduleAnyway: PodTopologySpread scores (and normalizes) them."""
    nodes = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi").zone(ZONES[i % 3]).obj() for i in range(6)]
    bound = [make_pod(f"b{i}").label("app", "s").node(f"n{i}").obj() for i in range(3)]
    zone = "topology.kubernetes.io/zone"
    selector = {"matchLabels": {"app": "s"}}
    pending = [make_pod(f"p{i}").label("app", "s").spread(1, zone, when="ScheduleAnyway", selector=selector).obj() for i in range(4)]
    return nodes, bound, pending


def _never_exercised() -> list[tuple[str, str]]:
    return sorted({(_plugin_name(cls), method) for cls, method in _batch_classes()} - set(EXERCISED))


def _plugin_name(cls: type) -> str:
    from kschedctl.plugins.plugin_manager import default_registry

    return next(spec.name for spec in default_registry().registry.values() if spec.plugin_class is cls)


# --- the volume plugins (NodeVolumeLimits, VolumeBinding) ----------------------------------

EBS = "ebs.csi.aws.com"


def _volume_cluster(seed: int) -> list[dict[str, Any]]:
    """A random cluster for the volume Filters: nodes with and without CSINodes (small limits,
    CSI and migrated in-tree drivers), CSI and in-tree PVs (some with node affinity, some
    missing), claims shared by several pods, pods bound with volumes, VolumeAttachments, an
    unbound WaitForFirstConsumer claim and an existing ephemeral volume whose claim is not the
    pod's (its node's pods fail to resolve)."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = [
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "wait"},
            "provisioner": EBS,
            "volumeBindingMode": "WaitForFirstConsumer",
        },
    ]
    names = [f"n{i:02d}" for i in range(rng.randint(6, 30))]
    for name in names:
        items.append(make_node(name).capacity(cpu="8", memory="8Gi", pods="20").zone(rng.choice(ZONES)).obj().raw)
        kind = rng.choice(["none", "csi", "csi", "migrated", "other"])
        if kind != "none":
            driver = EBS if kind != "other" else "other.csi.example.com"
            drivers: list[dict[str, Any]] = [{"name": driver, "nodeID": name, "allocatable": {"count": rng.randint(0, 3)}}]
            if rng.random() < 0.2:
                drivers[0].pop("allocatable")
            ann = {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs" if kind == "migrated" else ""}
            items.append(
                {
                    "apiVersion": "storage.k8s.io/v1",
                    "kind": "CSINode",
                    "metadata": {"name": name, "annotations": ann},
                    "spec": {"drivers": drivers},
                }
            )
    claims: list[str] = []
    for i in range(rng.randint(4, 14)):
        pv_name, pvc_name = f"pv-{i}", f"pvc-{i}"
        pv_spec: dict[str, Any] = {
            "accessModes": ["ReadOnlyMany"],
            "capacity": {"storage": "1Gi"},
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "default", "name": pvc_name},
        }
        if rng.random() < 0.5:
            pv_spec["csi"] = {"driver": EBS, "volumeHandle": pv_name}
        else:
            pv_spec["awsElasticBlockStore"] = {"volumeID": f"vol-{i}"}
        if rng.random() < 0.15:
            hosts = rng.sample(names, min(3, len(names)))
            pv_spec["nodeAffinity"] = {
                "required": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": hosts}]}]
                }
            }
        if rng.random() > 0.15:  # else the claim is bound to a missing PV
            items.append(
                {
                    "apiVersion": "v1",
                    "kind": "PersistentVolume",
                    "metadata": {"name": pv_name},
                    "spec": pv_spec,
                    "status": {"phase": "Bound"},
                }
            )
        items.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": pvc_name, "namespace": "default", "annotations": {"pv.kubernetes.io/bind-completed": "true"}},
                "spec": {"accessModes": ["ReadOnlyMany"], "resources": {"requests": {"storage": "1Gi"}}, "volumeName": pv_name},
                "status": {"phase": "Bound"},
            }
        )
        claims.append(pvc_name)
    items.append(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "late", "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "wait", "resources": {"requests": {"storage": "1Gi"}}},
        }
    )
    for name in rng.sample(names, min(3, len(names))):
        pv = f"pv-{rng.randrange(len(claims))}"
        items.append(
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "VolumeAttachment",
                "metadata": {"name": f"va-{name}-{pv}"},
                "spec": {"attacher": EBS, "nodeName": name, "source": {"persistentVolumeName": pv}},
            }
        )

    def pod(name: str, node: str | None) -> dict[str, Any]:
        b = make_pod(name).req(cpu="100m")
        raw = b.obj().raw
        vols = [{"name": f"v{k}", "persistentVolumeClaim": {"claimName": c}} for k, c in enumerate(rng.sample(claims, rng.randint(1, 2)))]
        if rng.random() < 0.1:
            vols.append({"name": "late", "persistentVolumeClaim": {"claimName": "late"}})
        if rng.random() < 0.1:
            vols.append({"name": "inline", "awsElasticBlockStore": {"volumeID": f"vol-inline-{name}"}})
        raw["spec"]["volumes"] = vols
        if node is not None:
            raw["spec"]["nodeName"] = node
        return raw

    for i in range(rng.randint(0, 12)):
        items.append(pod(f"b{i}", rng.choice(names)))
    if rng.random() < 0.2:  # an ephemeral volume whose claim has no owner: its node's pods fail to resolve
        bad = pod("eph", rng.choice(names))
        bad["spec"]["volumes"] = [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]
        items.append(bad)
        items.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": "eph-scratch", "namespace": "default"},
                "spec": {"volumeName": "pv-0"},
                "status": {"phase": "Bound"},
            }
        )
    for i in range(rng.randint(4, 16)):
        items.append(pod(f"p{i:02d}", None))
    return items


NO_VOLUME_ZONE = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        disabled: [{name: VolumeZone}]
"""


@pytest.mark.parametrize("seed", range(8))
def test_volume_batch_forms_equal_per_node(seed: int, tmp_path: Path) -> None:
    """NodeVolumeLimits' and VolumeBinding's batch Filters during whole `schedule` runs of random
    volume clusters, shadowed by the per-node forms, decide as runs without them."""
    from kschedctl.plugins.node_volume_limits.batch import NodeVolumeLimits
    from kschedctl.plugins.volume_binding.batch import VolumeBinding

    path = tmp_path / "volumes.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _volume_cluster(seed)}))
    args: tuple[str, ...] = ("schedule", str(path), "-o", "json", "--seed", "1")
    if seed % 2:  # without VolumeZone (whose PreFilter rejects a claim bound to a missing PV first)
        config = tmp_path / "config.yaml"
        config.write_text(NO_VOLUME_ZONE)
        args += ("--config", str(config))
    with pytest.MonkeyPatch.context() as mp, _shadow(mp):
        mp.setattr(columnar, "COLUMNAR_MIN_NODES", 0)  # a few nodes: the batch forms run only with the view
        batched = _cli(*args)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(columnar, "COLUMNAR_MIN_NODES", 0)
        for cls in (NodeVolumeLimits, VolumeBinding):
            mp.setattr(cls, "filter_batch", lambda self, state, pod, node_infos: None)
        per_node = _cli(*args)
    assert batched == per_node
    assert batched[0] == 0, batched


def _preempting_volume_cluster(seed: int) -> list[dict[str, Any]]:
    """_volume_cluster made to preempt: every node (8 or 16 cpu) is filled with low-priority
    3-cpu pods up to 2 or 1 cpu free (most with volumes), the pending pods ask for 1, 3 or 5 cpu at a higher priority, some
    PVs sit in a zone (VolumeZone active). Preemptors are nominated while others are still
    pending, so the Filter with nominated pods has nodes to add them to (some with room to
    spare, where the volume plugins are asked), and the dry runs see the volume Filters."""
    rng = random.Random(seed + 1000)
    items = _volume_cluster(seed)
    claims = [it["metadata"]["name"] for it in items if it["kind"] == "PersistentVolumeClaim" and it["metadata"]["name"] != "late"]
    for it in items:
        if it["kind"] == "PersistentVolume" and rng.random() < 0.3:
            it["metadata"]["labels"] = {"topology.kubernetes.io/zone": rng.choice(ZONES)}
        elif it["kind"] == "Pod":
            spec = it["spec"]
            bound = "nodeName" in spec
            spec["priority"] = rng.choice([0, 10]) if bound else rng.choice([10, 100])
            spec["containers"][0]["resources"]["requests"]["cpu"] = "3" if bound else rng.choice(["1", "3", "5"])
        elif it["kind"] == "Node" and rng.random() < 0.5:
            for key in ("capacity", "allocatable"):
                it["status"][key]["cpu"] = "16"
    for node in [it for it in items if it["kind"] == "Node"]:
        for k in range(2 if node["status"]["allocatable"]["cpu"] == "8" else 5):
            raw = make_pod(f"f-{node['metadata']['name']}-{k}").req(cpu="3").priority(rng.choice([0, 0, 10])).obj().raw
            raw["spec"]["nodeName"] = node["metadata"]["name"]
            raw["status"] = {"phase": "Running", "startTime": f"2024-01-01T00:00:{rng.randrange(60):02d}Z"}
            if rng.random() < 0.7:
                raw["spec"]["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": rng.choice(claims)}}]
            items.append(raw)
    return items


@pytest.mark.parametrize("seed", range(8))
def test_volume_preemption_equals_copies(seed: int, tmp_path: Path) -> None:
    """Preemption on volume clusters: the first pass of the Filter with nominated pods asked of
    the volume plugins in a batch (filter_batch_with_added_pods, each shadowed by Filter on a
    copy of the node with the pods added) and DefaultPreemption's dry run without copies
    (NodeVolumeLimits, VolumeBinding and VolumeZone beside NodeResourcesFit) decide as runs
    that copy: the volume plugins' first pass declined (the runtime's two passes on copies)
    and the dry-run shortcuts off (SelectVictimsOnNode on copies, every Filter run)."""
    from kschedctl.plugins.default_preemption.plugin import DefaultPreemption
    from kschedctl.plugins.node_volume_limits.batch import NodeVolumeLimits
    from kschedctl.plugins.volume_binding.batch import VolumeBinding
    from kschedctl.plugins.volume_zone.batch import VolumeZone

    path = tmp_path / "volumes.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _preempting_volume_cluster(seed)}))
    args: tuple[str, ...] = ("schedule", str(path), "-o", "json", "--seed", "1", "--kube-version", RELEASES[seed % len(RELEASES)])
    if seed % 2:
        config = tmp_path / "config.yaml"
        config.write_text(NO_VOLUME_ZONE)
        args += ("--config", str(config))
    with pytest.MonkeyPatch.context() as mp, _shadow(mp):
        mp.setattr(columnar, "COLUMNAR_MIN_NODES", 0)
        fast = _cli(*args)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(columnar, "COLUMNAR_MIN_NODES", 0)
        for cls in (NodeVolumeLimits, VolumeBinding, VolumeZone):
            mp.setattr(cls, "filter_batch_with_added_pods", lambda self, state, pod, node_infos, added: None)
        mp.setattr(DefaultPreemption, "dry_run_shortcuts", False)
        copies = _cli(*args)
    assert fast == copies
    assert fast[0] == 0, fast
    assert json.loads(fast[1])["preemptions"], "the case must preempt"


def _cli(*args: str) -> tuple[int, str, str]:
    """kschedctl in-process (tests/conftest.py's run_cli, callable outside a fixture)."""
    from typer.testing import CliRunner

    from kschedctl.cli.app import app

    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_first_pass_sums_kept_past_the_table_size_and_for_own_lists() -> None:
    """More nominated nodes than the kept sums' first table holds (64 rows, batch.py
    _KeptSums), lists changing between cycles and a pod nominated itself (its node's list,
    without it, summed afresh): every cycle gives the two-pass loop's statuses
    (framework.go RunFilterPluginsWithNominatedPods)."""
    from kschedctl.backend.queue.nominator import Nominator

    nodes = [make_node(f"n{i:03d}").capacity(cpu="4", memory="8Gi", pods="10").obj() for i in range(150)]
    fwk = new_framework(nodes=nodes)
    nominator = Nominator()
    fwk.services.nominator = nominator
    infos = fwk.snapshot.list()
    for i in range(0, 150, 2):  # 75 nodes, a 1- to 3-CPU pod each
        cpu = str(1 + i % 3)
        nominator.add_nominated_pod(PodInfo.of(make_pod(f"nom{i:03d}").req(cpu=cpu).priority(10).obj()), f"n{i:03d}")
    own = PodInfo.of(make_pod("self").req(cpu="2").priority(10).obj())
    nominator.add_nominated_pod(own, "n004")  # n004 also holds a 2-CPU pod: only that one is added

    def check(pod: Any) -> list[str]:
        state = CycleState()
        fwk.run_pre_filter_plugins(state, pod, infos)
        two_passes = _batch_keys_equal_two_passes(fwk, state, pod, infos)
        return [ni.name for ni, key in zip(infos, two_passes) if key[0] != Code.Success]

    pending = make_pod("p").req(cpu="2").priority(10).obj()
    full = check(pending)
    assert full == [f"n{i:03d}" for i in range(0, 150, 2) if 1 + i % 3 == 3 or i == 4]
    assert check(own.pod) == [f"n{i:03d}" for i in range(0, 150, 2) if 1 + i % 3 == 3]  # n004: itself left out
    assert len(fwk.instances["NodeResourcesFit"]._kept_sums.held) > 64
    nominator.add_nominated_pod(PodInfo.of(make_pod("more").req(cpu="3").priority(10).obj()), "n001")
    nominator.delete_nominated_pod_if_exists(make_pod("nom002").obj())
    assert check(pending) == ["n001"] + full[1:]  # n001 now full, n002 freed


def test_chunks_sized_by_the_last_pass_rate(monkeypatch):
    """Pods that keep apart by hostname fill the cluster for each other: the search's chunks
    grow with the share of nodes the last search rejected, so a cycle takes fewer batches than
    chunks sized for a cluster that passes; the decisions (hosts, scores, evaluated nodes, the
    start index) are those of the per-node search either way."""
    from kschedctl.runtime.framework import Framework

    nodes = [make_node(f"n{i}").capacity(cpu="8", memory="8Gi", pods="20").zone(ZONES[i % 3]).obj() for i in range(150)]
    pending = [
        make_pod(f"p{i}").req(cpu="100m").label("app", "a").pod_affinity_in("app", "kubernetes.io/hostname", ["a"], anti=True).obj()
        for i in range(140)
    ]
    batches = []
    real = Framework.run_filter_plugins_batch

    def counted(self: Any, *a: Any) -> Any:
        batches.append(1)
        return real(self, *a)

    monkeypatch.setattr(Framework, "run_filter_plugins_batch", counted)
    sized = _run(nodes, [], pending, True)
    grown = len(batches)
    monkeypatch.setattr(SchedulingAlgorithm, "_chunk_for", lambda self, need: need + need // 4)
    batches.clear()
    assert _run(nodes, [], pending, True) == sized == _run(nodes, [], pending, False)
    assert all(step[0] == "ok" for step in sized)
    assert grown < len(batches) * 3 // 4, (grown, len(batches))


def test_a_search_over_several_chunks_hands_scoring_its_rows(monkeypatch):
    """The feasible nodes of a search over several chunks of the snapshot's node list reach
    scoring as a NodeBatch whose rows are the ones the columnar view finds for them (a
    member's row is its index), so scoring does not look each node's row up again; the
    decisions stay the per-node search's."""
    from kschedctl.runtime.framework import Framework

    nodes = [make_node(f"n{i}").capacity(cpu="8", memory="8Gi", pods="20").zone(ZONES[i % 3]).obj() for i in range(150)]
    pending = [
        make_pod(f"p{i}")
        .req(cpu=["100m", "2"][i % 2])
        .label("app", "a")
        .pod_affinity_in("app", "kubernetes.io/hostname", ["a"], anti=True)
        .obj()
        for i in range(60)
    ]
    handed = []
    real = Framework.run_score_plugins_table

    def scored(self: Any, state: Any, pod: Any, feasible: Any) -> Any:
        cols = columns_of(self.snapshot)
        if isinstance(feasible, NodeBatch) and cols is not None:
            handed.append((feasible.rows is not None, feasible.rows.tolist() == cols.rows(list(feasible)).tolist()))
        return real(self, state, pod, feasible)

    monkeypatch.setattr(Framework, "run_score_plugins_table", scored)
    monkeypatch.setattr(SchedulingAlgorithm, "_chunk_for", lambda self, need: 32)  # every search several chunks
    batched = _run(nodes, [], pending, True)
    assert batched == _run(nodes, [], pending, False)
    assert len(handed) == len(pending) and all(has and same for has, same in handed), handed[:3]
