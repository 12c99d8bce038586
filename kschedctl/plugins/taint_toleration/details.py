"""TaintToleration's rejection: the node's taints with NoSchedule/NoExecute the pod does not
tolerate, as ``key=value:effect`` (upstream: tainttoleration/taint_toleration.go Filter)."""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod, Taint
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins.taint_toleration.plugin import _DO_NOT_SCHEDULE, tolerations_tolerate


def taint_text(taint: Taint) -> str:
    """kubectl's way of writing a taint: ``key=value:effect`` (``key:effect`` without a value)."""
    return f"{taint.key}={taint.value}:{taint.effect}" if taint.value else f"{taint.key}:{taint.effect}"


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    node = info.node
    if node is None:
        return None
    untolerated = [
        taint_text(t)
        for t in node.taints
        if t.effect in _DO_NOT_SCHEDULE and not tolerations_tolerate(pod.tolerations, t, plugin.comparison_ops)[0]
    ]
    if not untolerated:
        return None
    return {"untoleratedTaints": untolerated, "summary": f"untolerated taint {', '.join(untolerated)}"}
