"""NodePorts (PreFilter, Filter): the host ports a pod asks for must be free on the node.

Upstream: pkg/scheduler/framework/plugins/nodeports/node_ports.go, with the wanted ports from
pkg/scheduler/util/utils.go (GetHostPorts: containers and restartable init containers) and the
conflict rules of framework.HostPortInfo (0.0.0.0 overlaps every IP).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    PreFilterResult,
    QueueingHint,
    Status,
)
from kschedctl.framework.registry import PluginSpec
from kschedctl.framework.types import HostPortInfo, NodeInfo, PodInfo, host_ports_of
from kschedctl.plugins import names

NAME = names.NodePorts
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


class _PreFilterState:
    """The (hostIP, protocol, hostPort) triples the pod wants; never mutated, so clone is itself."""

    __slots__ = ("ports",)

    def __init__(self, ports: list[tuple[str, str, int]]) -> None:
        self.ports = ports

    def clone(self) -> "_PreFilterState":
        return self


def fits_ports(wanted: Sequence[tuple[str, str, int]], node_info: NodeInfo) -> bool:
    """fitsPorts: no wanted port conflicts with one already used on the node."""
    used = node_info.used_ports
    return not any(used.check_conflict(ip, protocol, port) for ip, protocol, port in wanted)


class NodePorts:
    def __init__(self, args: dict[str, Any] | None, handle: Handle | None) -> None:
        self.handle = handle

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Ports are immutable, so only a deleted pod or a new node can free one (queueing hints on).
        return [
            ClusterEventWithHint(ClusterEvent("Pod", "Delete"), self.is_schedulable_after_pod_deleted),
            ClusterEventWithHint(ClusterEvent("Node", "Add")),
        ]

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Queue only if the deleted pod was bound and held a port this pod wants."""
        if not isinstance(old, Pod):
            raise TypeError(f"unexpected object {type(old).__name__}, want Pod")
        if not old.node_name and not old.nominated_node_name:
            return QueueingHint.QueueSkip  # an unscheduled pod held no ports
        freed = host_ports_of(old)
        if not freed:
            return QueueingHint.QueueSkip
        in_use = HostPortInfo()
        for ip, protocol, port in freed:
            in_use.add(ip, protocol, port)
        if any(in_use.check_conflict(ip, protocol, port) for ip, protocol, port in host_ports_of(pod)):
            return QueueingHint.Queue
        return QueueingHint.QueueSkip

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        ports = host_ports_of(pod)
        if not ports:
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(ports))
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            wanted = state.read(PRE_FILTER_STATE_KEY).ports
        except StateNotFound:
            return Status(Code.Error, f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if not fits_ports(wanted, node_info):
            return Status(Code.Unschedulable, ERR_REASON)
        return None

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


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, NodePorts, NodePorts)
