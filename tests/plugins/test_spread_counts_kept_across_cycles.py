"""PodTopologySpread's PreFilter counts (calPreFilterState, upstream
pkg/scheduler/framework/plugins/podtopologyspread/filtering.go) taken from the per-snapshot sums
kept across cycles equal a walk over every node, in the same domain order: 1.35/1.36 keep two
criticalPaths (criticalPaths.update), whose content on ties and after AddPod/RemovePod depends on
the order the domains are met, so the sums must present the domains as the walk meets them
(first appearance in the node list), also for hostname-like keys whose domain leaves and
re-enters the sums each time its node changes."""

from __future__ import annotations

import random

import pytest

from kschedctl.api.labels import LabelSelector
from kschedctl.backend.cache.cache import Cache, Snapshot
from kschedctl.plugins.pod_topology_spread.common import Constraint
from kschedctl.plugins.pod_topology_spread.filtering import cal_pre_filter_state
from kschedctl.testing import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _state_view(s):
    """The state as the Filter reads it: the domains in order where the order matters (criticalPaths)."""
    domains = [list(m.items()) if not s.exact else sorted(m.items()) for m in s.tp_value_to_match_num]
    return (domains, [p.paths for p in s.critical_paths], s.min_match_num, s.domains_at_count)


@pytest.mark.parametrize("exact", [False, True], ids=["criticalPaths-1.35", "exact-min-1.37"])
@pytest.mark.parametrize("keys", [(ZONE,), (HOST,), (ZONE, HOST)], ids=["zone", "hostname", "zone+hostname"])
def test_counts_from_kept_sums_equal_the_walk(exact, keys):
    rng = random.Random(11)
    cache, snap = Cache(), Snapshot()
    for i in range(10):
        b = make_node(f"n{i}").capacity(cpu="8", memory="8Gi", pods="50")
        if i != 3:  # one node without a zone: not eligible
            b = b.zone(f"z{rng.randrange(3)}")
        cache.add_node(b.obj())
    cache.update_snapshot(snap)
    selector = LabelSelector(match_labels=(("app", "a"),))
    constraints = [Constraint(max_skew=1, topology_key=k, selector=selector) for k in keys]
    pod = make_pod("incoming").label("app", "a").obj()
    placed = []
    for step in range(120):
        if placed and rng.random() < 0.4:
            cache.remove_pod(placed.pop(rng.randrange(len(placed))))
        else:
            p = make_pod(f"p{step}").label("app", rng.choice("ab")).node(f"n{rng.randrange(10)}").obj()
            cache.add_pod(p)
            placed.append(p)
        cache.update_snapshot(snap)
        nodes = snap.list()
        kept = cal_pre_filter_state(pod, constraints, nodes, exact, snap)
        walked = cal_pre_filter_state(pod, constraints, nodes, exact, None)
        assert _state_view(kept) == _state_view(walked), step
