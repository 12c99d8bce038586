"""The vectorised twin of the NodePorts port: the class the registry builds, plugin.py's
NodePorts plus its batch forms, which take many nodes at once (numpy arrays and the columnar
view where they pay) and give exactly the per-node results (tests/test_batch_equivalence.py
guards that).

No upstream counterpart: kube-scheduler runs Filter and Score per node in goroutines. Kept out
of plugin.py so that file reads like upstream's. A subclass rather than a mixin because the
batch forms read the port's state keys, reasons and helpers: the twin sits above the port, and
no import runs the other way."""

from __future__ import annotations

from collections.abc import Sequence

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import (
    Status,
)
from kschedctl.framework.types import NodeInfo, PodInfo, host_ports_of
from kschedctl.plugins.node_ports import plugin
from kschedctl.plugins.node_ports.plugin import PRE_FILTER_STATE_KEY


class NodePorts(plugin.NodePorts):
    """The NodePorts port (plugin.py) with its batch forms: the class the registry builds."""

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """filter() for many nodes: a node with no host port in use has no conflict."""
        if state.get(PRE_FILTER_STATE_KEY) is None:
            return None  # the per-node form reports the missing state
        return [self.filter(state, pod, ni) if ni.used_ports.ports else None for ni in node_infos]

    def filter_batch_with_added_pods(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], added: Sequence[Sequence[PodInfo]]
    ) -> list[Status | None] | None:
        """Added pods that use no host port leave the node's ports as they are: the plain
        statuses. None (the runtime's two passes on a copy) when one of them uses a host port."""
        if any(host_ports_of(pi.pod) for pods in added for pi in pods):
            return None
        out = self.filter_batch(state, pod, node_infos)
        return out if out is not None else [self.filter(state, pod, ni) for ni in node_infos]
