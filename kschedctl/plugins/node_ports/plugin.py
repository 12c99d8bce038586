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
    SKIP,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    PreFilterResult,
    QueueingHint,
    Status,
)
from kschedctl.framework.types import HostPortInfo, NodeInfo, host_ports_of
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
            return None, Status(SKIP)
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
