"""Placements for topology-aware pod group scheduling: node subsets, a restricted snapshot
view, and the PlacementGenerate / PlacementScore runs.

Upstream: schedule_one_podgroup.go (podGroupSchedulingPlacementAlgorithm, findBestPlacement,
makePodGroupAssignments), the framework's RunPlacementGeneratePlugins /
RunPlacementScorePlugins, and Snapshot.AssumePlacement (the snapshot lists only the
placement's nodes while the group is tried in it).

The plugins are called by the runtime (Framework.run_placement_*_plugins); their
protocols are in framework/interface.py and the types they exchange in framework/placement.py.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from kschedctl.framework.interface import MAX_NODE_SCORE, Status
from kschedctl.framework.placement import Placement, PlacementScore, PodGroupAssignment
from kschedctl.scheduler.algorithm import SchedulingError

if TYPE_CHECKING:
    from kschedctl.framework.handle import SharedLister
    from kschedctl.framework.podgroup import PodGroup
    from kschedctl.framework.types import NodeInfo
    from kschedctl.runtime.framework import Framework
    from kschedctl.scheduler.schedule_one_podgroup import GroupAttempt


class PlacementView:
    """A snapshot restricted to a placement's nodes (AssumePlacement); reads the base lazily
    so that the members' simulated assumptions show through."""

    def __init__(self, base: SharedLister, node_names: list[str]) -> None:
        self._base = base
        self._names = list(node_names)
        self._wanted = set(node_names)

    def get(self, node_name: str) -> NodeInfo | None:
        return self._base.get(node_name) if node_name in self._wanted else None

    def num_nodes(self) -> int:
        return len(self._names)

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        return [n for n in self._base.have_pods_with_affinity_list() if n.name in self._wanted]

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        return [n for n in self._base.have_pods_with_required_anti_affinity_list() if n.name in self._wanted]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)

    # NodeInfos().List(), defined last: the method's name would hide the builtin ``list`` in
    # the annotations of the methods after it.
    def list(self) -> list[NodeInfo]:
        return [n for n in (self._base.get(name) for name in self._names) if n is not None]


def generate_placements(fwk: Framework, group: PodGroup, snapshot: SharedLister) -> list[Placement]:
    """RunPlacementGeneratePlugins: each plugin refines every placement of the previous one;
    with none, the whole cluster is the one placement. A plugin's failure is the group's
    SchedulingError."""
    placements, status = fwk.run_placement_generate_plugins(group, [Placement("", [n.name for n in snapshot.list()])])
    if not status.is_success():
        raise SchedulingError(status)
    return placements


def best_placement(
    fwk: Framework, group: PodGroup, feasible: list[tuple[Placement, GroupAttempt]], scheduled: int, rng: random.Random
) -> tuple[GroupAttempt | None, Status]:
    """findBestPlacement: weighted sum of the PlacementScore plugins (normalized where the
    plugin normalizes), highest wins, ties broken at random. (attempt, Status): the Status of
    a PlacementScore plugin that failed."""
    assignments = [
        PodGroupAssignment(p, [(r.pod, r.host) for r in attempt.results if r.host and r.status.is_success()]) for p, attempt in feasible
    ]
    totals, status = fwk.run_placement_score_plugins(group, assignments)
    if not status.is_success():
        return None, status
    best = max(totals) if totals else 0
    ties = [i for i, t in enumerate(totals) if t == best]
    return feasible[ties[rng.randrange(len(ties))] if len(ties) > 1 else ties[0]][1], status


__all__ = ["MAX_NODE_SCORE", "Placement", "PlacementScore", "PlacementView", "PodGroupAssignment", "best_placement", "generate_placements"]
