"""The batch twin of the VolumeZone port: the class the registry builds, plugin.py's VolumeZone
plus the first pass of the Filter with nominated pods for many nodes at once, which gives
exactly the per-node statuses (tests/test_batch_equivalence.py guards that).

No upstream counterpart: kube-scheduler's RunFilterPluginsWithNominatedPods copies the node,
adds the pods nominated to it and runs Filter on the copy. VolumeZone's Filter reads only the
Node's labels and its PreFilter state (PV topologies; no AddPod/RemovePod), so the pods added
to a node change nothing: the first pass is the plain Filter on the node itself, and the
runtime needs no copy for it. Kept out of plugin.py so that file reads like upstream's."""

from __future__ import annotations

from collections.abc import Sequence

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Status
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins.helper import node_only_filter_batch
from kschedctl.plugins.volume_zone import plugin


class VolumeZone(plugin.VolumeZone):
    """The VolumeZone port (plugin.py) with its batch form: the class the registry builds."""

    def filter_batch_with_added_pods(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], added: Sequence[Sequence[PodInfo]]
    ) -> list[Status | None] | None:
        """The Filter reads only the Node: the nominated pods of the first pass change nothing,
        so each node's status is its plain one (the port's, called on the node itself)."""
        return node_only_filter_batch(self, state, pod, node_infos)
