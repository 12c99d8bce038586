"""The batch path (filter_batch / score_batch, columnar view, chunked filtering) decides exactly
as the per-node path: same statuses, scores, feasible nodes, chosen hosts and start index.

Property-based (hypothesis): random small clusters and pods; for every pod, every filter and
score plugin with a batch form is compared node by node, then whole scheduling runs with
``Framework.use_batch`` on and off are compared with the same seed.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kschedctl.backend.cache.cache import Cache, Snapshot
from kschedctl.backend.cache.columnar import NodeBatch, columns_of
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, NodeScore
from kschedctl.framework.types import FitError, PodInfo, QueuedPodInfo
from kschedctl.scheduler.algorithm import SchedulingAlgorithm, SchedulingError
from kschedctl.testing import make_node, make_pod, new_framework

ZONES = ["z1", "z2", "z3"]
CPUS = ["0", "1", "2", "4"]
MEMS = ["0", "1Gi", "4Gi"]
REQ_CPU = ["0", "100m", "500m", "1", "3"]
REQ_MEM = ["0", "200Mi", "1Gi", "3Gi"]


@st.composite
def nodes_st(draw):
    out = []
    for i in range(draw(st.integers(1, 9))):
        b = make_node(f"n{i}").capacity(cpu=draw(st.sampled_from(CPUS)), memory=draw(st.sampled_from(MEMS)),
                                        pods=str(draw(st.integers(0, 4))))
        b = b.zone(draw(st.sampled_from(ZONES))).label("disk", draw(st.sampled_from(["ssd", "hdd"])))
        if draw(st.booleans()) and draw(st.booleans()):
            b = b.taint("dedicated", draw(st.sampled_from(["a", "b"])),
                        draw(st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"])))
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
        b = b.spread(1, "topology.kubernetes.io/zone", draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])),
                     {"app": "a"})
    if draw(st.integers(0, 4)) == 0:
        b = b.pod_affinity_in("app", draw(st.sampled_from(["topology.kubernetes.io/zone", "kubernetes.io/hostname"])),
                              [draw(st.sampled_from(["a", "b"]))], anti=draw(st.booleans()),
                              weight=draw(st.integers(1, 100)))
    # required (anti-)affinity, one or two terms, and hostname spreading: the batch forms of
    # InterPodAffinity and PodTopologySpread (label codes) and their per-snapshot counts
    for _ in range(draw(st.integers(0, 2)) if draw(st.integers(0, 2)) == 0 else 0):
        b = b.pod_affinity_in("app", draw(st.sampled_from(["topology.kubernetes.io/zone", "kubernetes.io/hostname",
                                                             "disk"])),
                              [draw(st.sampled_from(["a", "b"]))], anti=draw(st.booleans()))
    if draw(st.integers(0, 5)) == 0:
        b = b.spread(draw(st.integers(1, 2)), draw(st.sampled_from(["kubernetes.io/hostname", "disk"])),
                     draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])), {"app": draw(st.sampled_from(["a", "b"]))})
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
                per_node = [_status_key(pl.filter(state, pod, ni)) for ni in infos]
                batch = [_status_key(s) for s in pl.filter_batch(state, pod, NodeBatch(infos, columns_of(snap)))]
                assert batch == per_node, pl.name()
        if fwk.run_pre_score_plugins(state, pod, infos).is_success():
            for pl in fwk.points["score"]:
                if pl.name() in state.skip_score_plugins or not hasattr(pl, "score_batch"):
                    continue
                per_node = [pl.score(state, pod, ni)[0] for ni in infos]
                batch = [int(v) for v in pl.score_batch(state, pod, NodeBatch(infos, columns_of(snap)))]
                assert batch == per_node, pl.name()
            _check_normalize_batch(fwk, state, pod, infos)
        # the whole runtime: statuses of every node and the score table
        fwk.use_batch = False
        seq = [_status_key(fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)) for ni in infos]
        fwk.use_batch = True
        bat = [_status_key(s) for s in fwk.run_filter_plugins_batch(state, pod, infos)]
        assert bat == seq


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
            batch = ext.normalize_score_batch(state, pod, NodeBatch(infos, columns_of(fwk.snapshot)),
                                              np.asarray(values, np.int64))
            assert [int(v) for v in batch] == [s.score for s in scores], (pl.name(), values)


def _run(nodes, bound, pending, use_batch: bool, seed: int = 7, percentage: int = 0):
    """A minimal scheduling loop (cache -> snapshot -> schedule_pod -> assume) in input order."""
    fwk = new_framework(nodes=nodes)
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
            trace.append(("fit", e.message(), statuses, sorted(e.diagnosis.unschedulable_plugins),
                          alg.next_start_node_index))
            continue
        except SchedulingError as e:
            trace.append(("error", e.status.message(), alg.next_start_node_index))
            continue
        scores = [(s.name, s.total_score, [(p.name, p.score) for p in s.scores]) for s in r.scores]
        trace.append(("ok", r.suggested_host, r.evaluated_nodes, r.feasible_nodes, scores, alg.next_start_node_index))
        cache.assume_pod(qpi.pod_info.with_node_name(r.suggested_host).pod)
    return trace


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster_st(), st.integers(0, 1000))
def test_scheduling_runs_equal(cluster, seed):
    nodes, bound, pending = cluster
    assert _run(nodes, bound, pending, True, seed) == _run(nodes, bound, pending, False, seed)


def test_chunking_and_start_index_at_scale():
    """150 nodes (more than minFeasibleNodesToFind) and percentageOfNodesToScore cut-offs."""
    rng = random.Random(3)
    nodes = [make_node(f"n{i}").capacity(cpu=rng.choice(["1", "2", "4"]), memory="8Gi", pods="5")
             .zone(ZONES[i % 3]).obj() for i in range(150)]
    pending = [make_pod(f"p{i}").req(cpu=rng.choice(["100m", "900m", "2"]), memory="1Gi").obj() for i in range(60)]
    for pct in (0, 10, 100):
        assert _run(nodes, [], pending, True, 5, pct) == _run(nodes, [], pending, False, 5, pct)


def test_tracked_columns_follow_snapshot_updates():
    """A Cache-kept snapshot: the columnar rows follow assume/forget through replaced_rows only,
    and a clone of a member (preemption's dry run) gets its own row values and gives them back."""
    nodes = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods="10").zone(ZONES[i % 3]).obj() for i in range(6)]
    cache, snap = Cache(), Snapshot()
    for n in nodes:
        cache.add_node(n)
    cache.update_snapshot(snap)
    cols = columns_of(snap)
    assert snap.tracks_rows
    cols.rows(snap.list())
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


def test_standalone_snapshot_sees_in_place_edits():
    """from_nodes_and_pods snapshots do not track rows: an in-place edit is seen by generation."""
    fwk = new_framework(nodes=[make_node("n0").capacity(cpu="4", memory="8Gi").obj()])
    snap = fwk.snapshot
    assert not snap.tracks_rows
    cols = columns_of(snap)
    assert cols.req_cpu[cols.rows(snap.list())].tolist() == [0]
    snap.get("n0").add_pod(make_pod("p").req(cpu="1").node("n0").obj())
    assert cols.req_cpu[cols.rows(snap.list())].tolist() == [1000]


def test_image_locality_index_matches_per_node():
    """ImageLocality's batch form reads the snapshot's image index; equal to score() per node,
    with images on some nodes, repeated images in the pod, and after a node is added."""
    rng = random.Random(11)
    nodes = []
    for i in range(40):
        b = make_node(f"n{i}").capacity(cpu="4", memory="8Gi").zone(ZONES[i % 3])
        imgs = [([f"img:{k}"], rng.randint(0, 3000) * 1024 * 1024) for k in range(4) if rng.random() < 0.4]
        if imgs:
            b = b.images(imgs)
        nodes.append(b.obj())
    cache, snap = Cache(), Snapshot()
    for n in nodes[:30]:
        cache.add_node(n)
    fwk = new_framework(nodes=nodes[:1])
    for _step in range(2):
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
        for n in nodes[30:]:
            cache.add_node(n)


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
        ("existing anti-affinity by zone", nodes,
         [make_pod("b0").label("app", "x").pod_affinity_in("app", zone, ["a"], anti=True).node("n0").obj()],
         make_pod("p").label("app", "a").obj()),
        ("incoming anti-affinity by host", nodes, [make_pod("b0").label("app", "a").node("n2").obj()],
         make_pod("p").label("app", "b").pod_affinity_in("app", host, ["a"], anti=True).obj()),
        ("not self-affine, nothing matches", nodes, [],
         make_pod("p").label("app", "b").pod_affinity_in("app", zone, ["a"]).obj()),
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
