"""NodeVolumeLimits' rejection: per attach limit exceeded, the volumes already attached to the
node, the pod's new ones and the limit (nodevolumelimits/csi.go Filter)."""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    csi_node = plugin.handle.objects.csi_nodes.get(info.name)
    new_volumes: dict[str, str] = {}
    plugin._attachable_volumes(pod, csi_node, True, new_volumes)
    limits = plugin._volume_limits(info, csi_node)
    attached: dict[str, str] = {}
    for existing in info.pods:
        plugin._attachable_volumes(existing.pod, csi_node, False, attached)
    attached_count: dict[str, int] = {}
    for unique, key in attached.items():
        new_volumes.pop(unique, None)
        attached_count[key] = attached_count.get(key, 0) + 1
    new_count: dict[str, int] = {}
    for key in new_volumes.values():
        new_count[key] = new_count.get(key, 0) + 1
    over = [
        {"limit": key, "max": limits[key], "attached": attached_count.get(key, 0), "new": count}
        for key, count in sorted(new_count.items())
        if limits.get(key) is not None and attached_count.get(key, 0) + count > limits[key]
    ]
    if not over:
        return None
    return {
        "limits": over,
        "summary": "; ".join(f"{o['limit']}: {o['attached']} attached + {o['new']} new > limit {o['max']}" for o in over),
    }
