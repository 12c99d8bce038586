"""PodTopologySpread's rejection, per constraint the node breaks: its topologyKey and maxSkew,
the matching pods in each eligible domain, the global minimum, the node's domain and the skew
placing the pod there would make (``matchNum + selfMatch - minMatch``, podtopologyspread/
filtering.go Filter), or the missing topology label."""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins.pod_topology_spread.filtering import PRE_FILTER_STATE_KEY, PreFilterState


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    s = state.get(PRE_FILTER_STATE_KEY)
    node = info.node
    if not isinstance(s, PreFilterState) or node is None:
        return None
    broken = []
    lines = []
    for i, c in enumerate(s.constraints):
        value = node.labels.get(c.topology_key)
        if value is None:
            broken.append({"topologyKey": c.topology_key, "maxSkew": c.max_skew, "nodeDomain": None})
            lines.append(f"{c.topology_key}: the node has no such label")
            continue
        min_match = s.min_match(i)
        self_match = 1 if c.matches(pod.labels) else 0
        match_num = s.tp_value_to_match_num[i].get(value, 0)
        skew = match_num + self_match - min_match
        if skew <= c.max_skew:
            continue
        broken.append(
            {
                "topologyKey": c.topology_key,
                "maxSkew": c.max_skew,
                "nodeDomain": value,
                "domains": dict(sorted(s.tp_value_to_match_num[i].items())),
                "globalMinimum": min_match,
                "skew": skew,
            }
        )
        lines.append(
            f"{c.topology_key}={value} has {match_num} matching pod(s), the global minimum is {min_match}: "
            f"skew {skew} > maxSkew {c.max_skew}"
        )
    if not broken:
        return None
    return {"constraints": broken, "summary": "; ".join(lines)}
