"""TopologyPlacementGenerator (PlacementGenerate): one placement per topology domain.

Upstream: pkg/scheduler/framework/plugins/topologyaware/topology_placement.go. With no
spec.schedulingConstraints.topology on the PodGroup the parent placement is returned as is;
otherwise the parent's nodes are split by the value of the first topology key (nodes without
the label are dropped). When some pods of the group are already scheduled, only their domain
is proposed (more than one domain is an error). Upstream iterates a map; the domains here come
in the order their first node appears in the snapshot.
"""

from __future__ import annotations

from typing import Any

from kschedctl.framework import podgroup as pg
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import Code, Status
from kschedctl.framework.placement import Placement
from kschedctl.framework.registry import PluginSpec

NAME = "TopologyPlacementGenerator"


class TopologyPlacementGenerator:
    def __init__(self, args: dict[str, Any] | None, handle: Handle) -> None:
        self.handle = handle

    def name(self) -> str:
        return NAME

    def placement_generate(self, group: pg.PodGroup, parent: Placement) -> tuple[list[Placement], Status | None]:
        if not group.topology_keys:
            return [parent], None
        key = group.topology_keys[0]
        snap = self.handle.snapshot_shared_lister()
        required: str | None = None
        for pod in self.handle.pod_group_manager().state(group.key).scheduled:  # assumed ones with their node
            info = snap.get(pod.node_name) if pod.node_name else None
            if info is None or info.node is None:
                continue
            domain = info.node.labels.get(key)
            if domain is None:
                return [], Status(
                    Code.Error, f"cannot determine domain for already scheduled pods: no topology domain found for pod {pod.key}"
                )
            if required is not None and required != domain:
                return [], Status(
                    Code.Error,
                    f"cannot determine domain for already scheduled pods: more than 1 domain found for pod group: {required}, {domain}",
                )
            required = domain
        domains: dict[str, list[str]] = {}
        for name in parent.nodes:
            info = snap.get(name)
            if info is None or info.node is None or key not in info.node.labels:
                continue
            domain = info.node.labels[key]
            if required is None or required == domain:
                domains.setdefault(domain, []).append(name)
        return [Placement(d, nodes) for d, nodes in domains.items() if nodes], None


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, TopologyPlacementGenerator, TopologyPlacementGenerator)
