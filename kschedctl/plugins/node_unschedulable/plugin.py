"""NodeUnschedulable (Filter): cordoned nodes take only pods that tolerate the unschedulable taint.

Upstream: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go.
"""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import (
    TAINT_EFFECT_NO_SCHEDULE,
    Pod,
    Taint,
    tolerations_tolerate_taint,
)
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

NAME = names.NodeUnschedulable
ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_UNSCHEDULABLE_TAINT = Taint(TAINT_NODE_UNSCHEDULABLE, "", TAINT_EFFECT_NO_SCHEDULE)


class NodeUnschedulable:
    def __init__(self, args: dict[str, Any] | None, handle: Handle | None) -> None:
        pass

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent("Node", "Add")),
            ClusterEventWithHint(ClusterEvent("Node", "UpdateNodeTaint")),
            ClusterEventWithHint(ClusterEvent("Pod", "UpdatePodToleration")),
        ]

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is None:
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNKNOWN_CONDITION)
        if not node.unschedulable:
            return None
        if tolerations_tolerate_taint(pod.tolerations, _UNSCHEDULABLE_TAINT):
            return None
        return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNSCHEDULABLE)
