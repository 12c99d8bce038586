"""PodGroupPodsCount (PlacementScore): favours placements that fit more pods of the group.

Upstream: pkg/scheduler/framework/plugins/podgrouppodscount/podgroup_pods_count.go. The raw
score is the group's already scheduled pods plus the placement's proposed assignments;
normalisation scales by the largest count to [0, 100] (Go integer division).
"""

from __future__ import annotations

from typing import Any

from kschedctl.framework import podgroup as pg
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, Code, Status
from kschedctl.framework.placement import PlacementScore, PodGroupAssignment
from kschedctl.framework.registry import PluginSpec

NAME = "PodGroupPodsCount"


class PodGroupPodsCount:
    def __init__(self, args: dict[str, Any] | None, handle: Handle) -> None:
        self.handle = handle

    def name(self) -> str:
        return NAME

    def placement_score(self, group: pg.PodGroup, assignment: PodGroupAssignment) -> tuple[int, Status | None]:
        scheduled = self.handle.pod_group_manager().state(group.key).scheduled_pods_count()
        return scheduled + len(assignment.assignments), None

    def normalize_placement_score(self, group: pg.PodGroup, scores: list[PlacementScore]) -> Status | None:
        top = max((s.score for s in scores), default=0)
        if top == 0:
            return Status(Code.Error, "no pods from pod group are assigned to any of the candidate placements")
        for s in scores:
            s.score = MIN_NODE_SCORE + s.score * (MAX_NODE_SCORE - MIN_NODE_SCORE) // top
        return None


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, PodGroupPodsCount, PodGroupPodsCount)
