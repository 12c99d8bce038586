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
