"""What the pod-group placement extension points exchange (TopologyAwareWorkloadScheduling).

Upstream: the framework's Placement, PodGroupAssignments and PlacementScore types
(schedule_one_podgroup.go, interface.go PlacementGeneratePlugin / PlacementScorePlugin).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Placement:
    """A named subset of the cluster's nodes where a pod group may be placed."""

    name: str
    nodes: list[str]  # node names, in snapshot order


@dataclass
class PodGroupAssignment:
    """PodGroupAssignments: a placement and the hosts its feasible members got."""

    placement: Placement
    assignments: list[tuple[Any, str]]  # (pod, node name)


@dataclass
class PlacementScore:
    """One placement's score from one PlacementScore plugin (normalized in place)."""

    placement: Placement
    score: int = 0
    scores: dict[str, int] = field(default_factory=dict)


__all__ = ["Placement", "PlacementScore", "PodGroupAssignment"]
