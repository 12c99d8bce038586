"""The batch twin of the VolumeBinding port: the class the registry builds, plugin.py's
VolumeBinding plus its batch Filter, which answers many nodes at once and gives exactly the
per-node statuses and the same per-node PodVolumes (tests/test_batch_equivalence.py guards the
statuses).

No upstream counterpart: kube-scheduler runs FindPodVolumes per node in goroutines. When every
claim of the pod is bound (scheduler_perf's volume workloads), FindPodVolumes only looks up
each bound claim's PV and checks its node affinity; the lookups are the same on every node, and
a PV without a required node affinity fits every node. The batch form therefore answers such a
pod once for the whole batch; anything that depends on the node (an unbound claim, a PV with
node affinity) is left to the per-node form."""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from kschedctl.api.types import Node, Pod
from kschedctl.backend.cache.columnar import NodeBatch
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, Status, by_identity
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins.helper import node_only_filter_batch
from kschedctl.plugins.volume_binding import plugin
from kschedctl.plugins.volume_binding.plugin import ERR_REASON_PV_NOT_EXIST, STATE_KEY, PodVolumes

_NODE = attrgetter("node")
_NAME = attrgetter("name")


class VolumeBinding(plugin.VolumeBinding):
    """The VolumeBinding port (plugin.py) with its batch Filter: the class the registry builds."""

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """filter() for many nodes when its answer cannot depend on the node: all claims bound,
        no PV (up to the first missing one) with a required node affinity. Passing nodes get one
        shared, empty PodVolumes (nothing writes to it: Reserve and PreBind only read)."""
        s = state.get(STATE_KEY)
        if not isinstance(s, plugin._State):
            return None  # the per-node form reports the missing state
        n = len(node_infos)
        if s.claims is None:
            return [None] * n
        same = self.same_on_every_node(s)
        if same is None:
            return None  # depends on the node: the per-node form
        nodes = list(map(_NODE, node_infos))
        if None in nodes:
            return None  # the per-node form's "node not found"
        if same is plugin.NO_NODE_HAS_THE_PV:
            return [Status(Code.UnschedulableAndUnresolvable, ERR_REASON_PV_NOT_EXIST)] * n
        s.pod_volumes_by_node.update(dict.fromkeys(_names(node_infos, nodes), PodVolumes()))
        return [None] * n

    def score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[int] | None:
        """score() for many nodes when every node scores 0: no scorer, or no PodVolumes of the
        pod on any node holding a static binding or a provisioning (a pod without claims has
        none at all; one whose claims are all bound, one shared empty PodVolumes). With
        StorageCapacityScoring on (1.37) PreScore never skips, and score() per node was a
        Python call per pod and node for pods that have no volumes to score."""
        n = len(node_infos)
        if self.scorer is None:
            return [0] * n
        s = state.get(STATE_KEY)
        if not isinstance(s, plugin._State):
            return None  # the per-node form reports the missing state
        # the nodes share PodVolumes objects (filter_batch gives every node one): each looked at once
        for volumes in by_identity(s.pod_volumes_by_node.values()).values():
            if volumes.static_bindings or volumes.dynamic_provisions:
                return None  # a node's volumes to score: the per-node form
        return [0] * n

    def filter_batch_with_added_pods(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], added: Sequence[Sequence[PodInfo]]
    ) -> list[Status | None] | None:
        """FindPodVolumes reads the node (its name and labels), the claims and PVs, never the
        pods on the node: the nominated pods of the first pass change nothing, so the plain
        statuses (and the same PodVolumes written to the shared state, which a copy's state
        shares too: _State.clone returns itself)."""
        return node_only_filter_batch(self, state, pod, node_infos)


def _names(node_infos: Sequence[NodeInfo], nodes: list[Node]) -> list[str]:
    """The nodes' names, from the columnar view when the batch has its rows."""
    if isinstance(node_infos, NodeBatch) and node_infos.columns is not None:
        rows = node_infos.rows
        if rows is not None:
            return node_infos.columns.names_of(rows)
    return list(map(_NAME, nodes))
