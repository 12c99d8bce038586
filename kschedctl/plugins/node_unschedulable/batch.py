"""The vectorised twin of the NodeUnschedulable port: the class the registry builds, plugin.py's
NodeUnschedulable plus its batch forms, which take many nodes at once (numpy arrays and the columnar
view where they pay) and give exactly the per-node results (tests/test_batch_equivalence.py
guards that).

No upstream counterpart: kube-scheduler runs Filter and Score per node in goroutines. Kept out
of plugin.py so that file reads like upstream's. A subclass rather than a mixin because the
batch forms read the port's state keys, reasons and helpers: the twin sits above the port, and
no import runs the other way."""

from __future__ import annotations

from collections.abc import Sequence

from kschedctl.api.types import (
    Pod,
)
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import (
    Status,
)
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins.helper import flagged_filter_batch, node_only_filter_batch
from kschedctl.plugins.node_unschedulable import plugin


class NodeUnschedulable(plugin.NodeUnschedulable):
    """The NodeUnschedulable port (plugin.py) with its batch forms: the class the registry builds."""

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """filter() for many nodes: only nodes marked unschedulable in the columnar view are checked."""
        return flagged_filter_batch(node_infos, "unschedulable", lambda ni: self.filter(state, pod, ni))

    def filter_batch_with_added_pods(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], added: Sequence[Sequence[PodInfo]]
    ) -> list[Status | None] | None:
        """The Filter reads only the Node: the nominated pods of the first pass change nothing."""
        return node_only_filter_batch(self, state, pod, node_infos)
