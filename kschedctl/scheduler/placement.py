"""Placements for topology-aware pod group scheduling: node subsets, a restricted snapshot
view, and the PlacementGenerate / PlacementScore runs.

Upstream: schedule_one_podgroup.go (podGroupSchedulingPlacementAlgorithm, findBestPlacement,
makePodGroupAssignments), the framework's RunPlacementGeneratePlugins /
RunPlacementScorePlugins, and Snapshot.AssumePlacement (the snapshot lists only the
placement's nodes while the group is tried in it).

Plugin methods (kschedctl forms):
  placement_generate(group, parent: Placement) -> list[Placement] | (list, Status)
  placement_score(group, assignment: PodGroupAssignment) -> int | (int, Status)
  normalize_placement_score(group, scores: list[PlacementScore]) -> Status | None  (optional)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kschedctl.framework.interface import MAX_NODE_SCORE, Code, Status

if TYPE_CHECKING:
    from kschedctl.backend.podgroup import PodGroup


@dataclass
class Placement:
    name: str
    nodes: list[str]  # node names, in snapshot order


@dataclass
class PodGroupAssignment:
    """PodGroupAssignments: a placement and the hosts its feasible members got."""

    placement: Placement
    assignments: list[tuple[Any, str]]  # (pod, node name)


@dataclass
class PlacementScore:
    placement: Placement
    score: int = 0
    scores: dict[str, int] = field(default_factory=dict)


class PlacementView:
    """A snapshot restricted to a placement's nodes (AssumePlacement); reads the base lazily
    so that the members' simulated assumptions show through."""

    def __init__(self, base: Any, node_names: list[str]) -> None:
        self._base = base
        self._names = list(node_names)
        self._wanted = set(node_names)

    def list(self) -> list[Any]:
        return [n for n in (self._base.get(name) for name in self._names) if n is not None]

    def get(self, node_name: str) -> Any:
        return self._base.get(node_name) if node_name in self._wanted else None

    def num_nodes(self) -> int:
        return len(self._names)

    def have_pods_with_affinity_list(self) -> list[Any]:
        return [n for n in self._base.have_pods_with_affinity_list() if n.name in self._wanted]

    def have_pods_with_required_anti_affinity_list(self) -> list[Any]:
        return [n for n in self._base.have_pods_with_required_anti_affinity_list() if n.name in self._wanted]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)


def _plugins(fwk: Any, point: str) -> list[Any]:
    try:
        return list(fwk.plugins_at(point))
    except KeyError:
        return []


def generate_placements(fwk: Any, group: "PodGroup", snapshot: Any) -> list[Placement]:
    """RunPlacementGeneratePlugins: each plugin refines every placement of the previous one;
    with none, the whole cluster is the one placement."""
    placements = [Placement("", [n.name for n in snapshot.list()])]
    for pl in _plugins(fwk, "placementGenerate"):
        out: list[Placement] = []
        for parent in placements:
            res = pl.placement_generate(group, parent)
            if isinstance(res, tuple):
                res, st = res
                if st is not None and not st.is_success():
                    raise_error(pl.name(), st)
            out.extend(res or [])
        placements = out
    return placements


def raise_error(plugin: str, status: Status) -> None:
    from kschedctl.scheduler.algorithm import SchedulingError

    raise SchedulingError(Status(Code.Error, f"running PlacementGenerate plugin \"{plugin}\": {status.message()}"))


def placement_weight(fwk: Any, name: str) -> int:
    """The plugin's weight at placementScore (Framework.placement_score_weights); unset is 1."""
    weights = getattr(fwk, "placement_score_weights", None) or {}
    return int(weights.get(name) or 1)


def best_placement(fwk: Any, group: "PodGroup", feasible: list[tuple[Placement, Any]], scheduled: int,
                   rng: random.Random) -> Any:
    """findBestPlacement: weighted sum of the PlacementScore plugins (normalized where the
    plugin normalizes), highest wins, ties broken at random."""
    assignments = [PodGroupAssignment(p, [(r.pod, r.host) for r in attempt.results if r.host and r.status.is_success()])
                   for p, attempt in feasible]
    totals = [0] * len(feasible)
    for pl in _plugins(fwk, "placementScore"):
        scores = []
        for a in assignments:
            res = pl.placement_score(group, a)
            scores.append(PlacementScore(a.placement, int(res[0] if isinstance(res, tuple) else res)))
        normalize = getattr(pl, "normalize_placement_score", None)
        if callable(normalize):
            normalize(group, scores)
        w = placement_weight(fwk, pl.name())
        for i, s in enumerate(scores):
            totals[i] += s.score * w
    best = max(totals) if totals else 0
    ties = [i for i, t in enumerate(totals) if t == best]
    return feasible[ties[rng.randrange(len(ties))] if len(ties) > 1 else ties[0]][1]


__all__ = ["MAX_NODE_SCORE", "Placement", "PlacementScore", "PlacementView", "PodGroupAssignment",
           "best_placement", "generate_placements"]
