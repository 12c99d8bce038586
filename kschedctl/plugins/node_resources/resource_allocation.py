"""The resource-allocation scorer shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

Upstream: pkg/scheduler/framework/plugins/noderesources/{resource_allocation.go, least_allocated.go,
most_allocated.go, requested_to_capacity_ratio.go} and pkg/scheduler/framework/plugins/helper/shape_score.go.

A scorer sees, per configured resource (in the order of the args), three numbers: what the node
would have requested with the pod (``requested``), what it has requested without it
(``allocated``, only the newer BalancedAllocation formula reads it) and the node's allocatable.
A resource the node does not offer (allocatable 0), or an extended resource the pod does not
request, reaches the scorer as all zeros and is skipped by every strategy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kschedctl.api.types import Pod
from kschedctl.framework.gosemantics import (
    go_div,
    go_round,
)
from kschedctl.framework.interface import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_NODE_SCORE,
    Code,
    Status,
)
from kschedctl.framework.resource import CPU, EPHEMERAL_STORAGE, MEMORY, pod_requests, scheduler_units
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins.node_resources.args import (
    LEAST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    ScoringStrategy,
    shape_points,
)

# (requested, allocated, allocatable) -> score, each list in the order of the configured resources
Scorer = Callable[[Sequence[int], Sequence[int], Sequence[int]], int]


# --- resource names --------------------------------------------------------------------------


def is_scalar_resource_name(name: str) -> bool:
    """schedutil.IsScalarResourceName: extended, hugepages-*, kubernetes.io/-prefixed or attachable-volumes-*."""
    return "/" in name or name.startswith("hugepages-") or name.startswith("attachable-volumes-")


# --- the shared scorer -----------------------------------------------------------------------


@dataclass
class ResourceAllocationScorer:
    """resourceAllocationScorer: the per-node inputs of a strategy, then the strategy itself.

    ``use_requested`` is BalancedAllocation's mode: real requests everywhere. Without it (Fit),
    cpu and memory use the non-zero defaults (100m / 200Mi for containers that request nothing)
    for the pod and NodeInfo.NonZeroRequested for the node.
    """

    name: str
    resources: list[tuple[str, int]]
    scorer: Scorer
    use_requested: bool = False
    # resourceAllocationScorer.enablePodLevelResources: whether the pod's own request reads
    # spec.resources (PodLevelResources); see NodeResourcesFit for the scorer where it is off.
    pod_level_resources: bool = True

    def pod_request(self, pod: Pod, resource: str) -> int:
        """calculatePodResourceRequest, in scheduler units (cpu in millicores)."""
        if not self.pod_level_resources and pod.pod_requests:
            # PodRequests with SkipPodLevelResources and, for Fit, the 100m / 200Mi defaults
            # of NonMissingContainerRequests per container lacking a cpu / memory request
            reqs = pod_requests(pod, non_zero=not self.use_requested, skip_pod_level=True)
            return scheduler_units(resource, reqs.get(resource, 0))
        info = PodInfo.of(pod)
        if not self.use_requested:
            if resource == CPU:
                return info.non_zero_cpu
            if resource == MEMORY:
                return info.non_zero_mem
        return info.requests.get(resource)

    def pod_request_list(self, pod: Pod) -> list[int]:
        """calculatePodResourceRequestList: the pod's request per configured resource."""
        return [self.pod_request(pod, name) for name, _ in self.resources]

    def allocatable_and_requested(self, node_info: NodeInfo, resource: str, pod_request: int) -> tuple[int, int]:
        """calculateResourceAllocatableRequest: (allocatable, node requested + pod request)."""
        requested = node_info.requested if self.use_requested else node_info.non_zero_requested
        if pod_request == 0 and is_scalar_resource_name(resource):
            # an extended resource the pod does not ask for takes no part in the score
            return 0, 0
        if resource == CPU:
            return node_info.allocatable.milli_cpu, requested.milli_cpu + pod_request
        if resource == MEMORY:
            return node_info.allocatable.memory, requested.memory + pod_request
        if resource == EPHEMERAL_STORAGE:
            return node_info.allocatable.ephemeral_storage, node_info.requested.ephemeral_storage + pod_request
        if resource in node_info.allocatable.scalar_resources:
            return (node_info.allocatable.scalar_resources[resource], node_info.requested.scalar_resources.get(resource, 0) + pod_request)
        return 0, 0

    def score(self, node_info: NodeInfo, pod_requests: Sequence[int]) -> tuple[int, Status | None]:
        """resourceAllocationScorer.score."""
        if node_info.node is None:
            return 0, Status(Code.Error, "node not found")
        if not self.resources:
            return 0, Status(Code.Error, "resources not found")
        n = len(self.resources)
        requested, allocated, allocatable = [0] * n, [0] * n, [0] * n
        for i, (name, _) in enumerate(self.resources):
            alloc, req = self.allocatable_and_requested(node_info, name, pod_requests[i])
            if alloc == 0:  # only fill in resources the node offers
                continue
            allocatable[i] = alloc
            requested[i] = req
            allocated[i] = req - pod_requests[i]
        return self.scorer(requested, allocated, allocatable), None


# --- LeastAllocated / MostAllocated ----------------------------------------------------------


def least_requested_score(requested: int, capacity: int) -> int:
    """(capacity - requested) * MaxNodeScore / capacity; 0 when unknown or over capacity."""
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * MAX_NODE_SCORE, capacity)


def most_requested_score(requested: int, capacity: int) -> int:
    """requested * MaxNodeScore / capacity, requested capped at capacity (pods without requests
    can push the non-zero total above allocatable; such a node is simply full)."""
    if capacity == 0:
        return 0
    requested = min(requested, capacity)
    return go_div(requested * MAX_NODE_SCORE, capacity)


def _weighted(per_resource: Callable[[int, int], int], resources: Sequence[tuple[str, int]]) -> Scorer:
    def scorer(requested: Sequence[int], _allocated: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, (_, weight) in enumerate(resources):
            if allocatable[i] == 0:
                continue
            node_score += per_resource(requested[i], allocatable[i]) * weight
            weight_sum += weight
        return 0 if weight_sum == 0 else go_div(node_score, weight_sum)

    return scorer


def least_resource_scorer(resources: Sequence[tuple[str, int]]) -> Scorer:
    """least_allocated.go: favours nodes with more room left, weighted per resource."""
    return _weighted(least_requested_score, resources)


def most_resource_scorer(resources: Sequence[tuple[str, int]]) -> Scorer:
    """most_allocated.go: favours fuller nodes (bin packing), weighted per resource."""
    return _weighted(most_requested_score, resources)


# --- RequestedToCapacityRatio ----------------------------------------------------------------


def build_broken_linear_function(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """helper/shape_score.go BuildBrokenLinearFunction over (utilization, score) points sorted by
    utilization: flat before the first and after the last point, linear (integer-truncated
    toward zero, which matters for decreasing segments) in between."""
    points = list(shape)

    def f(p: int) -> int:
        for i, (util, score) in enumerate(points):
            if p <= util:
                if i == 0:
                    return points[0][1]
                prev_util, prev_score = points[i - 1]
                return prev_score + go_div((score - prev_score) * (p - prev_util), util - prev_util)
        return points[-1][1]

    return f


def requested_to_capacity_ratio_scorer(resources: Sequence[tuple[str, int]], shape: Sequence[tuple[int, int]]) -> Scorer:
    """requested_to_capacity_ratio.go: a configured utilization->score curve (scores 0..10 scaled
    to 0..100); only resources scoring above 0 count, and the mean is rounded (math.Round)."""
    scaled = [(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape]
    raw = build_broken_linear_function(scaled)
    max_utilization = 100

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(max_utilization)
        return raw(go_div(requested * max_utilization, capacity))

    def scorer(requested: Sequence[int], _allocated: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, (_, weight) in enumerate(resources):
            if allocatable[i] == 0:
                continue
            s = resource_score(requested[i], allocatable[i])
            if s > 0:
                node_score += s * weight
                weight_sum += weight
        if weight_sum == 0:
            return 0
        return go_round(float(node_score) / float(weight_sum))

    return scorer


def scorer_for(strategy: ScoringStrategy, resources: Sequence[tuple[str, int]]) -> Scorer:
    """The scorer of a (validated) strategy; MostAllocated for an unknown type."""
    if strategy.type == LEAST_ALLOCATED:
        return least_resource_scorer(resources)
    if strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        return requested_to_capacity_ratio_scorer(resources, shape_points(strategy.requested_to_capacity_ratio))
    return most_resource_scorer(resources)
