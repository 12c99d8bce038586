"""NodeName (PreFilter, Filter): a pod with spec.nodeName set fits only that node.

Upstream: pkg/scheduler/framework/plugins/nodename/node_name.go.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..api.types import Pod
from ..framework.cycle_state import CycleState
from ..framework.interface import ClusterEvent, ClusterEventWithHint, Code, PreFilterResult, Status
from ..framework.registry import PluginSpec
from ..framework.types import NodeInfo
from . import names

NAME = names.NodeName
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName:
    def __init__(self, args: dict | None, handle: Any) -> None:
        pass

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Node", "Add"))]

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.node_name:
            return None, Status(Code.Skip)
        return PreFilterResult({pod.node_name}), None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if pod.node_name and pod.node_name != node_info.name:
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON)
        return None


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, NodeName, NodeName)
