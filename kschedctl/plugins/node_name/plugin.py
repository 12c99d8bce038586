"""NodeName (Filter): a pod with spec.nodeName set fits only that node.

Upstream: pkg/scheduler/framework/plugins/nodename/node_name.go. Some upstream revisions add a
PreFilter returning the named node as a PreFilterResult; kube-scheduler 1.35.4, run in-process,
has no NodeName at PreFilter (reference section 12), so neither do we.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    Status,
)
from kschedctl.framework.registry import PluginSpec
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins import names
from kschedctl.plugins.helper import node_only_filter_batch

NAME = names.NodeName
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName:
    def __init__(self, args: dict[str, Any] | None, handle: Handle | None) -> None:
        pass

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Node", "Add")), ClusterEventWithHint(ClusterEvent("Node", "Update"))]

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if pod.node_name and pod.node_name != node_info.name:
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """filter() for many nodes: a pod without spec.nodeName fits every node."""
        if not pod.node_name:
            return [None] * len(node_infos)
        return None  # the per-node form

    def filter_batch_with_added_pods(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], added: Sequence[Sequence[PodInfo]]
    ) -> list[Status | None] | None:
        """The Filter reads only the Node: the nominated pods of the first pass change nothing."""
        return node_only_filter_batch(self, state, pod, node_infos)


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, NodeName, NodeName)
