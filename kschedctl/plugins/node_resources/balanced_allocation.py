"""NodeResourcesBalancedAllocation (PreScore, Score): favour nodes whose resource fractions
(cpu vs memory, by default) stay close to each other.

Upstream: pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go,
resource_allocation.go; apis/config/v1/defaults.go (SetDefaults_NodeResourcesBalancedAllocationArgs);
apis/config/validation/validation_pluginargs.go (ValidateNodeResourcesBalancedAllocationArgs).

Real requests are used (no non-zero defaults), so best-effort pods are skipped at PreScore
(kubernetes/kubernetes#129138). Up to 1.35 the score is the balance with the pod; from 1.36
(CHANGES "BalancedAllocationScoresImprovement", kubernetes/kubernetes#135573) it is the change
in balance the pod causes, mapped to [50, 100] with 75 meaning "no change".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.gosemantics import go_div
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import MAX_NODE_SCORE, SKIP, Status
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins import names
from kschedctl.plugins.node_resources.args import (
    NodeResourcesBalancedAllocationArgs,
    resources_from_args,
)
from kschedctl.plugins.node_resources.resource_allocation import (
    ResourceAllocationScorer,
    Scorer,
)

NAME = names.NodeResourcesBalancedAllocation
PRE_SCORE_STATE_KEY = "PreScore" + NAME
SCORES_IMPROVEMENT = "BalancedAllocationScoresImprovement"


@dataclass(slots=True)
class _PreScoreState:
    """preScoreState: the pod's request of each configured resource, written by PreScore for Score."""

    pod_requests: list[int]

    def clone(self) -> "_PreScoreState":
        return self


def balanced_resource_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """int64((1 - std) * MaxNodeScore) over the fractions requested/allocatable (capped at 1) of
    the resources the node offers: |f1 - f2| / 2 for two, the population std for more, 0 else."""
    fractions: list[float] = []
    total_fraction = 0.0  # summed in order, like Go (Python's sum() compensates since 3.12)
    for req, alloc in zip(requested, allocatable):
        if alloc == 0:
            continue
        fraction = min(float(req) / float(alloc), 1.0)
        total_fraction += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total_fraction / len(fractions)
        total = 0.0
        for f in fractions:
            total = total + (f - mean) * (f - mean)
        std = math.sqrt(total / len(fractions))
    return int((1 - std) * float(MAX_NODE_SCORE))


def balanced_resource_scorer_legacy(requested: Sequence[int], _allocated: Sequence[int], allocatable: Sequence[int]) -> int:
    """<= 1.35: the balance of the node with the pod."""
    return balanced_resource_score(requested, allocatable)


def balanced_resource_scorer_improvement(requested: Sequence[int], allocated: Sequence[int], allocatable: Sequence[int]) -> int:
    """>= 1.36: MaxNodeScore/2 + (MaxNodeScore/2 + withPod - withoutPod) / 2 (Go integer division)."""
    with_pod = balanced_resource_score(requested, allocatable)
    without_pod = balanced_resource_score(allocated, allocatable)
    half = MAX_NODE_SCORE // 2
    return half + go_div(half + with_pod - without_pod, 2)


class NodeResourcesBalancedAllocation:
    def __init__(self, args: NodeResourcesBalancedAllocationArgs | dict[str, Any] | None, handle: Handle) -> None:
        ba_args = NodeResourcesBalancedAllocationArgs.of(args, handle.features)
        self.handle = handle
        improved = handle.version.has(SCORES_IMPROVEMENT)
        scorer: Scorer = balanced_resource_scorer_improvement if improved else balanced_resource_scorer_legacy
        self.scorer = ResourceAllocationScorer(NAME, resources_from_args(ba_args.resources), scorer, use_requested=True)

    def name(self) -> str:
        return NAME

    @staticmethod
    def _is_best_effort(pod_requests: Sequence[int]) -> bool:
        return not any(pod_requests)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Skip for pods that request none of the resources (upstream #129138)."""
        pod_requests = self.scorer.pod_request_list(pod)
        if self._is_best_effort(pod_requests):
            return Status(SKIP)
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(pod_requests))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY) if state is not None else None
        if isinstance(s, _PreScoreState):
            pod_requests = s.pod_requests
        else:
            pod_requests = self.scorer.pod_request_list(pod)
            if self._is_best_effort(pod_requests):
                return 0, None
        return self.scorer.score(node_info, pod_requests)

    def score_extensions(self) -> None:
        return None
