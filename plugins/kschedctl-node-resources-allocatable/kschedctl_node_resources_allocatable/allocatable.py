"""NodeResourcesAllocatable (Score): favour nodes by their weighted allocatable resources.

Upstream (kubernetes-sigs/scheduler-plugins): pkg/noderesources/allocatable.go (Score,
NormalizeScore, NewAllocatable) and pkg/noderesources/resource_allocation.go (the allocatable
value of each resource). In mode Least a node's raw score is minus its weighted mean
allocatable (smaller nodes win, packing pods onto them); in mode Most it is the weighted
mean itself. NormalizeScore then maps [lowest, highest] linearly onto [0, 100].

The arithmetic is Go's int64: products and sums wrap around, division truncates toward zero.
Only allocatable counts: what is already requested on the node plays no part (upstream
computes it and ignores it).
"""

from __future__ import annotations

from typing import Any

from kschedctl.framework import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    Code,
    CycleState,
    Handle,
    NodeInfo,
    NodeScore,
    Pod,
    Status,
)
from kschedctl.framework.gosemantics import INT64_MAX, int64, int64_div

from .args import LEAST, MOST, NodeResourcesAllocatableArgs, parse_args

NAME = "NodeResourcesAllocatable"


def is_scalar_resource_name(name: str) -> bool:
    """schedutil.IsScalarResourceName: extended (domain-prefixed), kubernetes.io/-prefixed native,
    hugepages-* or attachable-volumes-* resources."""
    return "/" in name or name.startswith("hugepages-") or name.startswith("attachable-volumes-")


def allocatable_of(node_info: NodeInfo, resource: str) -> int:
    """calculateResourceAllocatableRequest's allocatable half: cpu in millicores, memory and
    ephemeral-storage in bytes, scalar resources as counted; anything else (e.g. pods) is 0."""
    alloc = node_info.allocatable
    if resource == "cpu":
        return alloc.milli_cpu
    if resource == "memory":
        return alloc.memory
    if resource == "ephemeral-storage":
        return alloc.ephemeral_storage
    if is_scalar_resource_name(resource):
        return alloc.scalar_resources.get(resource, 0)
    return 0


def resource_score(capacity: int, mode: str) -> int:
    """score(capacity, mode): -capacity for Least, capacity for Most, 0 otherwise."""
    if mode == LEAST:
        return int64(-capacity)
    if mode == MOST:
        return capacity
    return 0


class NodeResourcesAllocatable:
    """The plugin: Score plus its own NormalizeScore (ScoreExtensions)."""

    def __init__(self, args: NodeResourcesAllocatableArgs | dict[str, Any] | None, handle: Handle | None) -> None:
        # NewAllocatable: defaults for what is missing, ValueError for a bad mode or weight.
        self.handle = handle
        self.mode, self.resource_to_weight = parse_args(args)

    def name(self) -> str:
        return NAME

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """resourceAllocationScorer.score with resourceScorer: the weighted mean of the node's
        allocatable resources, negated in mode Least."""
        if node_info.node is None:
            return 0, Status(Code.Error, "node not found")
        if not self.resource_to_weight:
            return 0, Status(Code.Error, "resources not found")
        node_score = 0
        weight_sum = 0
        for resource, weight in self.resource_to_weight.items():
            value = resource_score(allocatable_of(node_info, resource), self.mode)
            node_score = int64(node_score + int64(value * weight))
            weight_sum = int64(weight_sum + weight)
        if weight_sum == 0:
            # Go would panic on this integer division; the framework turns it into an Error.
            return 0, Status(Code.Error, "integer divide by zero: resource weights sum to 0")
        return int64_div(node_score, weight_sum), None

    def score_extensions(self) -> "NodeResourcesAllocatable":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """NormalizeScore: (score - lowest) * 100 / (highest - lowest); every node 0 when all equal."""
        highest = -INT64_MAX
        lowest = INT64_MAX
        for ns in scores:
            highest = max(highest, ns.score)
            lowest = min(lowest, ns.score)
        old_range = int64(highest - lowest)
        new_range = MAX_NODE_SCORE - MIN_NODE_SCORE
        for ns in scores:
            if old_range == 0:
                ns.score = MIN_NODE_SCORE
            else:
                ns.score = int64(int64_div(int64(int64(ns.score - lowest) * new_range), old_range) + MIN_NODE_SCORE)
        return None
