"""NodeName's rejection: the node the pod names in spec.nodeName (nodename/node_name.go)."""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    wanted = pod.node_name
    if not wanted:
        return None
    return {"wanted": wanted, "summary": f"the pod asks for node {wanted}"}
