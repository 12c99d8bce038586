"""PlacementBinPacking (PlacementScore): how full the placement's nodes would be.

Upstream: pkg/scheduler/framework/plugins/noderesources/placement_bin_packing.go. The
requests of the proposed assignments plus what the placement's nodes already hold, over the
placement's summed allocatable, through the resource-allocation scorer of its scoring
strategy (MostAllocated over cpu and memory, weight 1 each, unless configured).
"""

from __future__ import annotations

from typing import Any

from kschedctl.backend import podgroup as pg
from kschedctl.framework.placement import PodGroupAssignment
from kschedctl.framework.runtime.registry import PluginSpec
from kschedctl.plugins.resource_allocation import (
    ResourceAllocationScorer,
    least_resource_scorer,
    most_resource_scorer,
    requested_to_capacity_ratio_scorer,
    resources_from_args,
)

NAME = "PlacementBinPacking"
DEFAULT_RESOURCES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def default_args(args: dict | None, version: Any) -> dict:
    out = dict(args or {})
    strategy = dict(out.get("scoringStrategy") or {})
    strategy.setdefault("type", "MostAllocated")
    strategy.setdefault("resources", DEFAULT_RESOURCES)
    out["scoringStrategy"] = strategy
    return out


def validate_args(args: dict, version: Any = None) -> list[tuple[str, str]]:
    """ValidatePlacementBinPackingArgs: the scoring strategy as NodeResourcesFit validates it
    (type, resources, shape); upstream also refuses the args while TopologyAwareWorkloadScheduling
    is off (placement_bin_packing_test.go TestPlacementBinPackingArgsValidation "Fails to validate
    if feature is not enabled"; that message is kschedctl's wording)."""
    from kschedctl.plugins.node_resources_fit import validate_args as validate_fit_args

    errs = validate_fit_args({"scoringStrategy": args.get("scoringStrategy")}, version)
    if version is not None and not version.feature_enabled("TopologyAwareWorkloadScheduling"):
        errs.append(("", "Forbidden: PlacementBinPacking requires the TopologyAwareWorkloadScheduling feature gate"))
    return errs


class PlacementBinPacking:
    def __init__(self, args: dict | None, handle: Any) -> None:
        self.handle = handle
        strategy = default_args(args, None)["scoringStrategy"]
        resources = resources_from_args(strategy.get("resources"))
        kind = strategy.get("type")
        if kind == "LeastAllocated":
            scorer = least_resource_scorer(resources)
        elif kind == "RequestedToCapacityRatio":
            shape = [(int(p.get("utilization", 0)), int(p.get("score", 0)))
                     for p in (strategy.get("requestedToCapacityRatio") or {}).get("shape") or ()]
            scorer = requested_to_capacity_ratio_scorer(resources, shape)
        else:
            scorer = most_resource_scorer(resources)
        self.allocation = ResourceAllocationScorer(NAME, resources, scorer)

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
    return PluginSpec(NAME, PlacementBinPacking, PlacementBinPacking, args_kind="PlacementBinPackingArgs",
                      default_args=default_args, validate_args=validate_args)
