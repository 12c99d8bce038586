"""NodeResourcesFit's rejection, per resource it found short: the pod's request, the node's
allocatable, what is already requested there, what is free, and whether the request exceeds
the allocatable outright (no eviction could ever make room). The checks are fitsRequest's own
(noderesources/fit.go), run once more with the plugin's args."""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.resource import compute_pod_resource_request
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins.details import format_quantity
from kschedctl.plugins.node_resources.fit import PRE_FILTER_STATE_KEY, fits_request


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    req = state.get(PRE_FILTER_STATE_KEY)
    if req is None:
        req = compute_pod_resource_request(pod)
    short = fits_request(req, info, plugin.ignored_resources, plugin.ignored_resource_groups, plugin._delegate_to_dra())
    if not short:
        return None
    resources = []
    lines = []
    for r in short:

        def q(v: int, name: str = r.resource_name) -> str:
            return format_quantity(name, v)

        free = max(r.capacity - r.used, 0)
        resources.append(
            {
                "resource": r.resource_name,
                "requested": q(r.requested),
                "allocatable": q(r.capacity),
                "alreadyRequested": q(r.used),
                "free": q(free),
                "exceedsAllocatable": r.unresolvable,
            }
        )
        if r.resource_name == "pods":
            lines.append(f"pods: {r.used} of {r.capacity} already on the node")
        elif r.unresolvable:
            lines.append(f"{r.resource_name}: the pod asks {q(r.requested)}, more than the node's allocatable {q(r.capacity)}")
        else:
            lines.append(f"{r.resource_name}: the pod asks {q(r.requested)}, {q(free)} free ({q(r.used)} of {q(r.capacity)} requested)")
    return {"resources": resources, "summary": "; ".join(lines)}
