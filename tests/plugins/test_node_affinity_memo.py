"""RequiredNodeAffinity remembers verdicts per distinct label values (and node name when a term uses
matchFields): one instance asked about many nodes must answer as a fresh instance would."""

import itertools

from kschedctl.plugins.node_affinity.selector import RequiredNodeAffinity
from kschedctl.testing import make_node, make_pod


def test_memoised_verdicts_equal_fresh_ones():
    pod = (
        make_pod("p")
        .node_selector({"disk": "ssd"})
        .affinity(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]},
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["special"]}]},
                        ]
                    }
                }
            }
        )
        .obj()
    )
    shared = RequiredNodeAffinity(pod)
    nodes = []
    for i, (disk, zone, name) in enumerate(itertools.product([None, "ssd", "hdd", ""], [None, "a", "c"], ["special", "plain"])):
        b = make_node(f"{name}-{i}" if name == "plain" else name)
        if disk is not None:
            b.label("disk", disk)
        if zone is not None:
            b.label("zone", zone)
        nodes.append(b.obj())
    for node in nodes + list(reversed(nodes)):
        assert shared.matches(node) == RequiredNodeAffinity(pod).matches(node), node.name
    assert any(shared.matches(n) for n in nodes) and not all(shared.matches(n) for n in nodes)


def _run(pods, nodes, share: bool, monkeypatch):
    """A whole run (PreFilter, Filter, the batch forms on 30 nodes); ``share`` False makes every
    pod's RequiredNodeAffinity afresh, as before the plugin kept them."""
    from kschedctl.cluster.loader import ClusterSnapshot, resolve_priorities
    from kschedctl.config.loader import load_config_file
    from kschedctl.plugins.node_affinity.plugin import NodeAffinity
    from kschedctl.plugins.plugin_manager import default_registry
    from kschedctl.scheduler.scheduler import Scheduler
    from kschedctl.versions import parse_version

    made: list[RequiredNodeAffinity] = []
    real = NodeAffinity._required_affinity

    def spy(self, pod, required):
        got = real(self, pod, required) if share else RequiredNodeAffinity(pod)
        made.append(got)
        return got

    monkeypatch.setattr(NodeAffinity, "_required_affinity", spy)
    cluster = ClusterSnapshot(nodes=nodes, pods=pods)
    resolve_priorities(cluster)
    version = parse_version("1.35")
    registry = default_registry().registry
    result = Scheduler(cluster, load_config_file(None, version, registry), registry, version, seed=3).run()
    placed = sorted((p.pod, p.node) for p in result.placements)
    failed = sorted((u.pod, u.message) for u in result.unschedulable)
    return placed, failed, made


def test_pods_sharing_an_affinity_share_its_verdicts_and_decide_the_same(monkeypatch):
    """A Deployment's replicas share one Affinity object (api/types.py): NodeAffinity's PreFilter
    hands them one RequiredNodeAffinity per distinct (selector, nodeSelector), and the run places
    and rejects every pod as when each pod gets its own."""
    nodes = [
        make_node(f"n{i:02d}")
        .capacity(cpu="4", memory="8Gi", pods=20)
        .labels({"zone": "abc"[i % 3], "disk": "ssd" if i % 2 else "hdd"})
        .obj()
        for i in range(30)
    ]
    terms = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]}
    by_name = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n04"]}]}]}

    def pods():
        out = []
        for i in range(24):
            b = make_pod(f"web-{i}").req(cpu="500m")
            b.affinity({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": by_name if i % 4 == 3 else terms}})
            if i % 3 == 0:
                b.node_selector({"disk": "ssd"})
            if i == 22:
                b.node_selector({"disk": "nvme"})  # nowhere: unschedulable
            out.append(b.obj())
        return out

    shared = _run(pods(), nodes, True, monkeypatch)
    fresh = _run(pods(), nodes, False, monkeypatch)
    assert shared[:2] == fresh[:2]
    assert shared[1] and shared[0]  # some pods placed, some rejected
    distinct = {id(r) for r in shared[2]}
    assert len(distinct) <= 5 < len(shared[2])  # (terms | by_name) x (none | ssd | nvme), not one per attempt
    assert len({id(r) for r in fresh[2]}) == len(fresh[2])
