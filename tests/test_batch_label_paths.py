"""The label-code batch forms' two guards and NodeAffinity's two tables.

- ``NodeBatch.all_have_nodes`` (the rows' ``nodeless`` flags) replaces a Python pass over the
  batch's NodeInfos in NodeAffinity, InterPodAffinity and PodTopologySpread: a batch holding a
  NodeInfo without its Node must still send them to the per-node form, and a batch of known
  nodes must not.
- NodeAffinity's filter_batch matches each combination of the selector keys' values once: by a
  table over every combination when there are few (``_DIRECT_LUT_MAX``), by ``np.unique``
  otherwise. Both must give the port's verdict on every node (plugin.py's Filter,
  pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go).

No upstream counterpart for the batch forms themselves (kube-scheduler filters node by node).
"""

from __future__ import annotations

from typing import Any

import pytest

from kschedctl.backend.cache.columnar import NodeBatch, columns_of, rows_with_nodes
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code
from kschedctl.plugins.node_affinity import batch as node_affinity_batch
from kschedctl.testing import make_node, make_pod, new_framework


def _nodes() -> list[Any]:
    out = []
    for i in range(40):
        b = make_node(f"n{i:02d}").capacity(cpu="4", memory="8Gi")
        if i % 5:
            b = b.zone(f"z{i % 3}")
        if i % 4:
            b = b.label("disk", "ssd" if i % 2 else "hdd")
        b = b.label("rack", str(i % 10))
        out.append(b.obj())
    return out


_SELECTORS = [
    [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["z1", "z2"]}]}],
    [
        {
            "matchExpressions": [
                {"key": "disk", "operator": "NotIn", "values": ["hdd"]},
                {"key": "rack", "operator": "Gt", "values": ["4"]},
            ]
        },
        {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "DoesNotExist"}]},
    ],
    [{"matchExpressions": [{"key": "disk", "operator": "Exists"}, {"key": "rack", "operator": "In", "values": ["1", "3", "7"]}]}],
]


def _status_key(s: Any) -> tuple[Any, tuple[str, ...]]:
    if s is None or s.code == Code.Success:
        return (Code.Success, ())
    return (s.code, tuple(s.reasons))


@pytest.mark.parametrize("direct_max", [node_affinity_batch._DIRECT_LUT_MAX, 0], ids=["table", "unique"])
@pytest.mark.parametrize("terms", _SELECTORS, ids=["one-key", "two-terms-three-keys", "exists-and-in"])
def test_node_affinity_batch_gives_the_ports_verdicts(terms: list[Any], direct_max: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(node_affinity_batch, "_DIRECT_LUT_MAX", direct_max)
    fwk = new_framework(nodes=_nodes())
    infos = fwk.snapshot.list()
    pod = make_pod("p").affinity({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}).obj()
    state = CycleState()
    _, status, _ = fwk.run_pre_filter_plugins(state, pod, infos)
    assert status.is_success()
    (plugin,) = [pl for pl in fwk.points["filter"] if pl.name() == "NodeAffinity"]
    out = plugin.filter_batch(state, pod, NodeBatch(infos, columns_of(fwk.snapshot)))
    assert out is not None  # the label-code path ran
    per_node = [_status_key(plugin.filter(state, pod, ni)) for ni in infos]
    assert [_status_key(s) for s in out] == per_node
    # the selectors reject some nodes and admit others: both verdicts are compared
    assert len(set(per_node)) == 2


def test_a_batch_with_a_node_info_without_its_node_goes_node_by_node() -> None:
    fwk = new_framework(nodes=_nodes())
    snap = fwk.snapshot
    infos = snap.list()
    known = NodeBatch(infos, columns_of(snap))
    assert known.all_have_nodes() and rows_with_nodes(known)
    # a NodeInfo whose Node is gone (edited in place: the standalone snapshot re-reads its row)
    infos[7].node = None
    infos[7]._bump()
    stale = NodeBatch(infos, columns_of(snap))
    assert not stale.all_have_nodes() and not rows_with_nodes(stale)
    assert not rows_with_nodes(list(infos))  # no rows at all
    pod = (
        make_pod("p")
        .node_affinity_in("disk", ["ssd"])
        .spread(1, "topology.kubernetes.io/zone", "DoNotSchedule", {"app": "a"})
        .label("app", "a")
        .pod_affinity_in("app", "kubernetes.io/hostname", ["b"], anti=True)
        .obj()
    )
    state = CycleState()
    fwk.snapshot = snap
    _, status, _ = fwk.run_pre_filter_plugins(state, pod, [ni for ni in infos if ni.node is not None])
    assert status.is_success()
    for name in ("NodeAffinity", "InterPodAffinity", "PodTopologySpread"):
        (plugin,) = [pl for pl in fwk.points["filter"] if pl.name() == name]
        assert plugin.filter_batch(state, pod, NodeBatch(infos[:7], columns_of(snap))) is not None, name
        out = plugin.filter_batch(state, pod, stale)
        if out is not None:  # NodeAffinity and PodTopologySpread walk the nodes themselves
            assert [_status_key(x) for x in out] == [_status_key(plugin.filter(state, pod, ni)) for ni in infos], name
            assert _status_key(out[7])[0] == Code.Error, name  # "node not found", not a label verdict
