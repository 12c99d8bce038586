"""VolumeZone's rejection: each bound PersistentVolume's zone (or region) label and the node's
value for it (volumezone/volume_zone.go Filter)."""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins.volume_zone.plugin import _TO_GA


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    topologies, status = plugin._pv_topologies(pod)
    node = info.node
    if status is not None or node is None:
        return None
    conflicts = []
    for topo in topologies:
        value = node.labels.get(topo.key)
        if value is None:
            value = node.labels.get(_TO_GA.get(topo.key, topo.key))
        if value is None or value not in topo.values:
            conflicts.append({"volume": topo.pv_name, "label": topo.key, "volumeValues": sorted(topo.values), "nodeValue": value})
    if not conflicts:
        return None
    return {
        "volumes": conflicts,
        "summary": "; ".join(
            f"PersistentVolume {c['volume']} is in {c['label']}={'/'.join(c['volumeValues'])}, the node "
            + ("has no such label" if c["nodeValue"] is None else f"is in {c['nodeValue']}")
            for c in conflicts
        ),
    }
