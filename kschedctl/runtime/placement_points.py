"""The pod-group placement points: framework.go's RunPlacementGeneratePlugins,
RunPlacementScorePlugins and RunPlacementFeasiblePlugins (TopologyAwareWorkloadScheduling,
GangPlacementFeasible).
"""

from __future__ import annotations

from typing import Any

from kschedctl.framework.interface import Code, Status
from kschedctl.framework.placement import Placement, PlacementScore, PodGroupAssignment
from kschedctl.runtime.calls import PluginCalls
from kschedctl.runtime.guard import is_int, pair, status_of


class PlacementPoints(PluginCalls):
    """PlacementGenerate, PlacementScore and PlacementFeasible of one profile."""

    placement_score_weights: dict[str, int]

    # --- pod-group placement points --------------------------------------------------------
    def run_placement_generate_plugins(self, group: Any, placements: list[Placement]) -> tuple[list[Placement], Status]:
        """RunPlacementGeneratePlugins: each plugin refines every placement of the previous one."""
        for pl, name in self._named("placementGenerate"):
            out: list[Placement] = []
            for parent in placements:
                got = self._call(name, "PlacementGenerate", pl, "placement_generate", group, parent)
                if isinstance(got, list):
                    got = (got, None)
                checked = pair(
                    name,
                    "PlacementGenerate",
                    got,
                    lambda r: r is None or (isinstance(r, list) and all(isinstance(p, Placement) for p in r)),
                    "a list of Placement (or a (list, Status | None) pair)",
                )
                if isinstance(checked, Status):
                    res, st = None, checked
                else:
                    res, st = checked
                if not st.is_success():
                    return [], Status(Code.Error, f'running PlacementGenerate plugin "{name}": {st.message()}', plugin=name)
                out.extend(res or [])
            placements = out
        return placements, Status()

    def run_placement_score_plugins(self, group: Any, assignments: list[PodGroupAssignment]) -> tuple[list[int], Status]:
        """RunPlacementScorePlugins: each plugin's scores (normalized where it normalizes) times
        its placementScore weight, summed per placement."""
        totals = [0] * len(assignments)
        for pl, name in self._named("placementScore"):
            scores = []
            for a in assignments:
                got = self._call(name, "PlacementScore", pl, "placement_score", group, a)
                if is_int(got):
                    got = (got, None)
                checked = pair(name, "PlacementScore", got, is_int, "an int (or an (int, Status | None) pair)")
                if isinstance(checked, Status) or not checked[1].is_success():
                    st = checked if isinstance(checked, Status) else checked[1]
                    return [], Status(Code.Error, f'running PlacementScore plugin "{name}": {st.message()}', plugin=name)
                scores.append(PlacementScore(a.placement, int(checked[0])))
            if self._opt(pl, "normalize_placement_score") is not None:
                st = status_of(
                    name,
                    "NormalizePlacementScore",
                    self._call(name, "NormalizePlacementScore", pl, "normalize_placement_score", group, scores),
                )
                if st.is_success() and not all(isinstance(s, PlacementScore) and is_int(s.score) for s in scores):
                    st = Status(Code.Error, f'plugin "{name}" left scores that are not integers', plugin=name)
                if not st.is_success():
                    return [], Status(Code.Error, f'running NormalizePlacementScore plugin "{name}": {st.message()}', plugin=name)
            w = int(self.placement_score_weights.get(name) or 1)
            for i, s in enumerate(scores):
                totals[i] += int(s.score) * w
        return totals, Status()

    def run_placement_feasible_plugins(self, group: Any, scheduled: int, remaining: int) -> Status:
        """RunPlacementFeasiblePlugins (1.37): the first non-success status; without such a
        plugin the group is feasible."""
        for pl, name in self._named("placementFeasible"):
            st = status_of(
                name, "PlacementFeasible", self._call(name, "PlacementFeasible", pl, "placement_feasible", group, scheduled, remaining)
            )
            if not st.is_success():
                st.plugin = st.plugin or name
                return st
        return Status()


__all__ = ["PlacementPoints"]
