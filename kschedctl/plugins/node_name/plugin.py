"""NodeName (Filter): a pod with spec.nodeName set fits only that node.

Upstream: pkg/scheduler/framework/plugins/nodename/node_name.go. Some upstream revisions add a
PreFilter returning the named node as a PreFilterResult; kube-scheduler 1.35.4, run in-process,
has no NodeName at PreFilter (reference section 12), so neither do we.
"""

from __future__ import annotations

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
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins import names

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
