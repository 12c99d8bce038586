"""PlacementBinPacking (PlacementScore): how full the placement's nodes would be.

Upstream: pkg/scheduler/framework/plugins/noderesources/placement_bin_packing.go. The
requests of the proposed assignments plus what the placement's nodes already hold, over the
placement's summed allocatable, through the resource-allocation scorer of its scoring
strategy (MostAllocated over cpu and memory, weight 1 each, unless configured).
"""

from __future__ import annotations

from typing import Any

from kschedctl.framework import podgroup as pg
from kschedctl.framework.handle import Handle
from kschedctl.framework.placement import PodGroupAssignment
from kschedctl.framework.registry import PluginSpec
from kschedctl.plugins.node_resources.args import (
    PlacementBinPackingArgs,
    resources_from_args,
)
from kschedctl.plugins.node_resources.resource_allocation import (
    ResourceAllocationScorer,
    scorer_for,
)

NAME = "PlacementBinPacking"


class PlacementBinPacking:
    def __init__(self, args: PlacementBinPackingArgs | dict[str, Any] | None, handle: Handle) -> None:
        self.handle = handle
        pbp_args = args if isinstance(args, PlacementBinPackingArgs) else PlacementBinPackingArgs.from_dict(args, handle.features)
        strategy = pbp_args.scoring_strategy
        assert strategy is not None  # defaulted
        resources = resources_from_args(strategy.resources)
        self.allocation = ResourceAllocationScorer(NAME, resources, scorer_for(strategy, resources))

    def name(self) -> str:
        return NAME

    def placement_score(self, group: pg.PodGroup, assignment: PodGroupAssignment) -> int:
        n = len(self.allocation.resources)
        requested = [0] * n
        snap = self.handle.snapshot_shared_lister()
        for pod, node_name in assignment.assignments:
            if snap.get(node_name) is None:
                continue
            for i, r in enumerate(self.allocation.pod_request_list(pod)):
                requested[i] += r
        allocatable, allocated = [0] * n, [0] * n
        for name in assignment.placement.nodes:
            info = snap.get(name)
            if info is None or info.node is None:
                continue
            for i, (res, _) in enumerate(self.allocation.resources):
                alloc, req = self.allocation.allocatable_and_requested(info, res, 0)
                allocatable[i] += alloc
                allocated[i] += req
                requested[i] += req
        return self.allocation.scorer(requested, allocated, allocatable)


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, PlacementBinPacking, PlacementBinPacking, args_type=PlacementBinPackingArgs)
