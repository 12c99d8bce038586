"""The args of the NodeResources plugins: NodeResourcesFitArgs, NodeResourcesBalancedAllocationArgs,
PlacementBinPackingArgs and the ScoringStrategy types they share.

Upstream: pkg/scheduler/apis/config/types_pluginargs.go (the types), apis/config/v1/defaults.go
(SetDefaults_*) and apis/config/validation/validation_pluginargs.go (Validate*).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from kschedctl.api.validation import qualified_name_errors
from kschedctl.framework.args import ArgsStruct, Int32, Int64, PluginArgs
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import FieldError, duplicate, forbidden, invalid, not_supported
from kschedctl.framework.interface import MAX_CUSTOM_PRIORITY_SCORE
from kschedctl.framework.resource import CPU, MEMORY

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"

# apis/config/v1 defaults.go: defaultResourceSpec
DEFAULT_RESOURCES: tuple[tuple[str, int], ...] = ((CPU, 1), (MEMORY, 1))

FIT_ARGS_KIND = "NodeResourcesFitArgs"
BALANCED_ALLOCATION_ARGS_KIND = "NodeResourcesBalancedAllocationArgs"


# --- args types shared by the resource-allocation plugins (types_pluginargs.go) -------------


@dataclass(frozen=True)
class ResourceSpec(ArgsStruct):
    """A resource and its weight."""

    name: str = ""
    weight: Int64 = 0


@dataclass(frozen=True)
class UtilizationShapePoint(ArgsStruct):
    """One point of a utilization -> score curve (score 0..10)."""

    utilization: Int32 = 0
    score: Int32 = 0


@dataclass(frozen=True)
class RequestedToCapacityRatioParam(ArgsStruct):
    """The RequestedToCapacityRatio strategy's parameters: the utilization -> score shape."""

    shape: tuple[UtilizationShapePoint, ...] | None = None


@dataclass(frozen=True)
class ScoringStrategy(ArgsStruct):
    """How NodeResourcesFit (and PlacementBinPacking) score: the strategy and its resources."""

    type: str = ""
    resources: tuple[ResourceSpec, ...] | None = None
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None


def resources_from_args(specs: Sequence[ResourceSpec] | None) -> list[tuple[str, int]]:
    """A ResourceSpec list as (name, weight) pairs."""
    return [(r.name, r.weight) for r in specs or ()]


def shape_points(param: RequestedToCapacityRatioParam | None) -> list[tuple[int, int]]:
    """requestedToCapacityRatio.shape as (utilization, score) pairs."""
    return [(p.utilization, p.score) for p in param.shape or ()] if param is not None else []


def default_resource_specs(specs: Sequence[ResourceSpec] | None) -> tuple[ResourceSpec, ...]:
    """v1 defaulting of a ResourceSpec list: cpu and memory when empty, weight 0 becomes 1."""
    items = tuple(specs or ()) or tuple(ResourceSpec(n, w) for n, w in DEFAULT_RESOURCES)
    return tuple(r if r.weight else replace(r, weight=1) for r in items)


def validate_resources(resources: Sequence[ResourceSpec] | None, path: str) -> list[FieldError]:
    """validateResources: each weight in (0, 100]."""
    return [
        invalid(f"{path}[{i}].weight", r.weight, f"resource weight of {r.name} not in valid range (0, 100]")
        for i, r in enumerate(resources or ())
        if r.weight <= 0 or r.weight > 100
    ]


def validate_function_shape(shape: Sequence[UtilizationShapePoint] | None, path: str) -> list[FieldError]:
    """validateFunctionShape: at least one point, utilization strictly increasing in [0, 100],
    score in [0, 10]."""
    points = list(shape or ())
    if not points:
        return [FieldError(path, "Required value: at least one point must be specified")]
    errs: list[FieldError] = []
    for i in range(1, len(points)):
        if points[i - 1].utilization >= points[i].utilization:
            errs.append(invalid(f"{path}[{i}].utilization", points[i].utilization, "values must be sorted in increasing order"))
            break
    for i, p in enumerate(points):
        if p.utilization < 0 or p.utilization > 100:
            errs.append(invalid(f"{path}[{i}].utilization", p.utilization, "not in valid range [0, 100]"))
        if p.score < 0 or p.score > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(invalid(f"{path}[{i}].score", p.score, f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errs


SUPPORTED_STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)


def validate_scoring_strategy(strategy: ScoringStrategy | None) -> list[FieldError]:
    """The ScoringStrategy part of ValidateNodeResourcesFitArgs."""
    if strategy is None:
        return [FieldError("scoringStrategy", "Required value: ScoringStrategy field is required")]
    errs: list[FieldError] = []
    if strategy.type not in SUPPORTED_STRATEGIES:
        errs.append(not_supported("scoringStrategy.type", strategy.type, SUPPORTED_STRATEGIES))
    errs += validate_resources(strategy.resources, "scoringStrategy.resources")
    rtcr = strategy.requested_to_capacity_ratio
    if strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        if rtcr is None:
            errs.append(
                FieldError(
                    "scoringStrategy.requestedToCapacityRatio", "Required value: must be specified when type is RequestedToCapacityRatio"
                )
            )
        else:
            errs += validate_function_shape(rtcr.shape, "scoringStrategy.requestedToCapacityRatio.shape")
    elif rtcr is not None:
        errs.append(
            FieldError("scoringStrategy.requestedToCapacityRatio", "Forbidden: must be nil when type is not RequestedToCapacityRatio")
        )
    return errs


# --- args ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeResourcesFitArgs(PluginArgs):
    """NodeResourcesFitArgs (types_pluginargs.go)."""

    KIND: ClassVar[str] = FIT_ARGS_KIND
    ignored_resources: tuple[str, ...] | None = None
    ignored_resource_groups: tuple[str, ...] | None = None
    scoring_strategy: ScoringStrategy | None = None

    def defaulted(self, features: Features | None) -> "NodeResourcesFitArgs":
        """SetDefaults_NodeResourcesFitArgs: LeastAllocated over cpu and memory; weight 0 becomes 1."""
        strategy = self.scoring_strategy or ScoringStrategy(type=LEAST_ALLOCATED)
        return replace(self, scoring_strategy=replace(strategy, resources=default_resource_specs(strategy.resources)))

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidateNodeResourcesFitArgs (field paths relative to the args)."""
        errs: list[FieldError] = []
        for i, res in enumerate(self.ignored_resources or ()):
            errs += [invalid(f"ignoredResources[{i}]", res, m) for m in qualified_name_errors(res)]
        for i, group in enumerate(self.ignored_resource_groups or ()):
            if "/" in group:
                errs.append(invalid(f"ignoredResourceGroups[{i}]", group, "resource group name can't contain '/'"))
            errs += [invalid(f"ignoredResourceGroups[{i}]", group, m) for m in qualified_name_errors(group)]
        return errs + validate_scoring_strategy(self.scoring_strategy)


@dataclass(frozen=True)
class NodeResourcesBalancedAllocationArgs(PluginArgs):
    """NodeResourcesBalancedAllocationArgs (types_pluginargs.go)."""

    KIND: ClassVar[str] = BALANCED_ALLOCATION_ARGS_KIND
    resources: tuple[ResourceSpec, ...] | None = None

    def defaulted(self, features: Features | None) -> "NodeResourcesBalancedAllocationArgs":
        """SetDefaults_NodeResourcesBalancedAllocationArgs: cpu and memory when empty; weight 0 becomes 1."""
        return replace(self, resources=default_resource_specs(self.resources))

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidateNodeResourcesBalancedAllocationArgs: names unique, every weight exactly 1."""
        errs: list[FieldError] = []
        seen: set[str] = set()
        for i, r in enumerate(self.resources or ()):
            if r.name in seen:
                errs.append(duplicate(f"resources[{i}].name", r.name))
            else:
                seen.add(r.name)
            if r.weight != 1:
                errs.append(invalid(f"resources[{i}].weight", r.weight, "must be 1"))
        return errs


BIN_PACKING_RESOURCES = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


@dataclass(frozen=True)
class PlacementBinPackingArgs(PluginArgs):
    """PlacementBinPackingArgs: the scoring strategy of the placement scorer."""

    KIND: ClassVar[str] = "PlacementBinPackingArgs"
    scoring_strategy: ScoringStrategy | None = None

    def defaulted(self, features: Features | None) -> "PlacementBinPackingArgs":
        """MostAllocated over cpu and memory (weight 1 each) for what is unset."""
        strategy = self.scoring_strategy or ScoringStrategy()
        return replace(
            self,
            scoring_strategy=replace(
                strategy,
                type=strategy.type or MOST_ALLOCATED,
                resources=BIN_PACKING_RESOURCES if strategy.resources is None else strategy.resources,
            ),
        )

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidatePlacementBinPackingArgs: the scoring strategy as NodeResourcesFit validates it
        (type, resources, shape); upstream also refuses the args while TopologyAwareWorkloadScheduling
        is off (placement_bin_packing_test.go TestPlacementBinPackingArgsValidation "Fails to validate
        if feature is not enabled"; that message is kschedctl's wording)."""
        features = features or Features.default()
        errs = validate_scoring_strategy(self.scoring_strategy)
        if not features.topology_aware_workload_scheduling:
            errs.append(forbidden("", "PlacementBinPacking requires the TopologyAwareWorkloadScheduling feature gate"))
        return errs
