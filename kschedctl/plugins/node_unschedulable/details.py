"""NodeUnschedulable's rejection: spec.unschedulable (cordoned), and the toleration that would
let the pod in anyway (nodeunschedulable/node_unschedulable.go)."""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    return {
        "unschedulable": True,
        "summary": "the node is cordoned (spec.unschedulable); the pod does not tolerate node.kubernetes.io/unschedulable:NoSchedule",
    }
