"""The batch path (filter_batch / score_batch, columnar view, chunked filtering) decides exactly
as the per-node path: same statuses, scores, feasible nodes, chosen hosts and start index.

Property-based (hypothesis): random small clusters and pods; for every pod, every filter and
score plugin with a batch form is compared node by node, then whole scheduling runs with
``Framework.use_batch`` on and off are compared with the same seed.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kschedctl.algorithm import SchedulingAlgorithm, SchedulingError
from kschedctl.backend.cache import Cache, Snapshot
from kschedctl.backend.columnar import NodeBatch, columns_of
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code
from kschedctl.framework.types import FitError, PodInfo, QueuedPodInfo
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
                batch = list(pl.score_batch(state, pod, NodeBatch(infos, columns_of(snap))))
                assert batch == per_node, pl.name()
        # the whole runtime: statuses of every node and the score table
        fwk.use_batch = False
        seq = [_status_key(fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)) for ni in infos]
        fwk.use_batch = True
        bat = [_status_key(s) for s in fwk.run_filter_plugins_batch(state, pod, infos)]
        assert bat == seq


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
