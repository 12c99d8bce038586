"""The per-snapshot counts kept across cycles (kschedctl/plugins/row_aggregate.py) give exactly
the PreFilter / PreScore states of walking every node, for InterPodAffinity and
PodTopologySpread, while the cluster changes under a Cache-kept snapshot: pods assumed and
removed, node labels changed, nodes added and removed.

Property-based (hypothesis): each step computes the states twice on the same snapshot, once
tracked (``tracks_rows`` True) and once by the walk (``tracks_rows`` False), and compares
them; then schedules the whole run and checks the batch and per-node paths agree.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_batch_equivalence import ZONES, nodes_st, pod_st

from kschedctl.backend.cache.cache import Cache, Snapshot
from kschedctl.backend.cache.columnar import NodeBatch, columns_of
from kschedctl.framework.cycle_state import CycleState
from kschedctl.plugins.inter_pod_affinity import plugin as ipa
from kschedctl.plugins.pod_topology_spread import filtering as pts_filtering
from kschedctl.plugins.pod_topology_spread import scoring as pts_scoring
from kschedctl.testing import make_node, make_pod, new_framework


def _ipa_states(fwk, pod, infos):
    pl = fwk.instances["InterPodAffinity"]
    state = CycleState()
    _, st1 = pl.pre_filter(state, pod, infos)
    pf = None
    if st1 is None or st1.is_success():
        s = state.read(ipa.PRE_FILTER_STATE_KEY)
        pf = (s.existing_anti_affinity_counts, s.affinity_counts, s.anti_affinity_counts)
        # filter_batch reads tables kept with the sums when tracked, built from the counts
        # when walked: both must give the per-node Filter's verdicts
        batch = pl.filter_batch(state, pod, NodeBatch(infos, columns_of(fwk.snapshot)))
        if batch is not None:
            assert [_status_key(x) for x in batch] == [_status_key(pl.filter(state, pod, ni)) for ni in infos]
    st2 = pl.pre_score(state, pod, infos)
    ps = None
    if st2 is None or st2.is_success():
        # score_batch reads the kept count tables when tracked (before anything sums the
        # map), the map's table when walked: both must give the per-node Score's values
        scores = pl.score_batch(state, pod, NodeBatch(infos, columns_of(fwk.snapshot)))
        if scores is not None:
            assert scores.tolist() == [pl.score(state, pod, ni)[0] for ni in infos]
        ps = state.read(ipa.PRE_SCORE_STATE_KEY).topology_score
    return (st1 is not None and st1.is_skip(), pf, st2 is not None and st2.is_skip(), ps)


def _status_key(s):
    return (None, ()) if s is None or s.is_success() else (s.code, tuple(s.reasons))


def _pts_states(fwk, pod, infos):
    pl = fwk.instances["PodTopologySpread"]
    state = CycleState()
    _, st1 = pl.pre_filter(state, pod, infos)
    pf = None
    if st1 is None or st1.is_success():
        s = state.read(pts_filtering.PRE_FILTER_STATE_KEY)
        pf = (s.tp_value_to_match_num, [s.min_match(i) for i in range(len(s.constraints))], s.domains_at_count)
    st2 = pl.pre_score(state, pod, infos)
    ps = None
    if st2 is None or st2.is_success():
        s = state.read(pts_scoring.PRE_SCORE_STATE_KEY)
        ps = (s.topology_value_to_pod_counts, s.ignored_nodes, s.topology_normalizing_weight)
    return (pf, ps)


def _compare(fwk, snap, pod):
    infos = snap.list()
    tracked = (_ipa_states(fwk, pod, infos), _pts_states(fwk, pod, infos))
    snap.tracks_rows = False
    try:
        walked = (_ipa_states(fwk, pod, infos), _pts_states(fwk, pod, infos))
    finally:
        snap.tracks_rows = True
    assert tracked == walked


@st.composite
def story_st(draw):
    nodes = draw(nodes_st())
    names = [n.name for n in nodes]
    bound = [draw(pod_st(f"b{i}", names)) for i in range(draw(st.integers(0, 10)))]
    steps = []
    for i in range(draw(st.integers(1, 8))):
        pod = draw(pod_st(f"p{i}"))
        action = draw(st.sampled_from(["assume", "assume", "remove", "relabel", "add_node", "remove_node"]))
        steps.append((pod, action, draw(st.integers(0, 1000))))
    return nodes, bound, steps


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(story_st())
def test_tracked_counts_equal_walk(story):
    nodes, bound, steps = story
    cache, snap = Cache(), Snapshot()
    live_nodes = {n.name: n for n in nodes}
    for n in nodes:
        cache.add_node(n)
    placed = []
    for p in bound:
        cache.add_pod(p)
        placed.append(p)
    fwk = new_framework(nodes=nodes[:1])
    for k, (pod, action, r) in enumerate(steps):
        cache.update_snapshot(snap)
        fwk.snapshot = snap
        _compare(fwk, snap, pod)
        _compare(fwk, snap, pod)  # a second cycle on the same snapshot reuses the sums
        names = sorted(live_nodes)
        if action == "assume" and names:
            cache.assume_pod(
                make_pod(pod.name).labels(dict(pod.labels)).node(names[r % len(names)]).obj()
                if not pod.affinity and not pod.topology_spread_constraints
                else _bound_copy(pod, names[r % len(names)])
            )
        elif action == "remove" and placed:
            victim = placed.pop(r % len(placed))
            cache.remove_pod(victim)
        elif action == "relabel" and names:
            old = live_nodes[names[r % len(names)]]
            new = (
                make_node(old.name)
                .capacity(cpu="4", memory="8Gi", pods="10")
                .zone(ZONES[r % 3])
                .label("disk", "ssd" if r % 2 else "hdd")
                .obj()
            )
            cache.update_node(old, new)
            live_nodes[old.name] = new
        elif action == "add_node":
            new = make_node(f"x{k}").capacity(cpu="4", memory="8Gi", pods="10").zone(ZONES[r % 3]).label("disk", "ssd").obj()
            cache.add_node(new)
            live_nodes[new.name] = new
        elif action == "remove_node" and len(names) > 1:
            gone = live_nodes.pop(names[r % len(names)])
            for p in [p for p in placed if p.node_name == gone.name]:
                placed.remove(p)
                cache.remove_pod(p)
            cache.remove_node(gone)
    cache.update_snapshot(snap)
    fwk.snapshot = snap
    for pod, _, _ in steps:
        _compare(fwk, snap, pod)


def _bound_copy(pod, node_name):
    """The pending pod as bound to node_name (its affinity and spreading kept)."""
    from kschedctl.framework.types import PodInfo

    return PodInfo.of(pod).with_node_name(node_name).pod


def test_two_term_affinity_counts_pods_matching_all():
    """A pod with two required affinity terms: only pods matching both count, under each key
    (upstream: filtering_test.go TestRequiredAffinitySingleNode 'affinity with multiple terms')."""
    nodes = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods="10").zone(ZONES[i % 3]).obj() for i in range(4)]
    cache, snap = Cache(), Snapshot()
    for n in nodes:
        cache.add_node(n)
    cache.add_pod(make_pod("both").label("app", "a").label("tier", "web").node("n0").obj())
    cache.add_pod(make_pod("one").label("app", "a").node("n1").obj())
    cache.update_snapshot(snap)
    fwk = new_framework(nodes=nodes[:1])
    fwk.snapshot = snap
    pod = (
        make_pod("p")
        .label("app", "a")
        .pod_affinity_in("app", "topology.kubernetes.io/zone", ["a"])
        .pod_affinity_in("tier", "kubernetes.io/hostname", ["web"])
        .obj()
    )
    state = CycleState()
    fwk.instances["InterPodAffinity"].pre_filter(state, pod, snap.list())
    s = state.read(ipa.PRE_FILTER_STATE_KEY)
    assert s.affinity_counts == {("topology.kubernetes.io/zone", "z1"): 1, ("kubernetes.io/hostname", "n0"): 1}
    _compare(fwk, snap, pod)


def test_pre_score_domains_by_codes_equal_the_walk():
    """PreScore's domains registered from the feasible nodes' label codes equal the walk's
    (initPreScoreState): a node labelled "" and a node without the key both register "" when
    every topology is not required, are ignored when it is, and the weights count the domains."""
    labels = [{"zone": "a"}, {"zone": "b"}, {"zone": ""}, {}, {"zone": "a"}, {"zone": "c"}, {}]
    nodes = [
        make_node(f"n{i}").capacity(cpu="4", memory="8Gi").labels({"kubernetes.io/hostname": f"n{i}", **lab}).obj()
        for i, lab in enumerate(labels)
    ]
    cache, snap = Cache(), Snapshot()
    for n in nodes:
        cache.add_node(n)
    cache.update_snapshot(snap)
    zone = pts_scoring.Constraint(1, "zone", None)
    host = pts_scoring.Constraint(2, "kubernetes.io/hostname", None)
    for constraints in ([zone], [zone, host], [host]):
        for require_all in (False, True):
            for feasible in (snap.list(), snap.list()[1:5], snap.list()[3:4]):
                batch = NodeBatch(feasible, columns_of(snap))
                by_codes = pts_scoring.PreScoreState(constraints)
                pts_scoring.init_pre_score_state(by_codes, batch, require_all, snap)
                walked = pts_scoring.PreScoreState(constraints)
                pts_scoring.init_pre_score_state(walked, list(feasible), require_all, None)
                assert by_codes.topology_value_to_pod_counts == walked.topology_value_to_pod_counts
                assert by_codes.ignored_nodes == walked.ignored_nodes
                assert by_codes.topology_normalizing_weight == walked.topology_normalizing_weight
