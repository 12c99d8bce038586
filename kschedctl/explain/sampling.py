"""What kube's own search looked at for one attempt, so that explain can say it.

Above 100 nodes kube does not filter every node: findNodesThatPassFilters starts at the rotating
nextStartNodeIndex and stops once it has percentageOfNodesToScore worth of feasible nodes (the
adaptive default: 50 - nodes/125 %, at least 5 %, at least 100 nodes), and only those are
scored (schedule_one.go numFeasibleNodesToFind). explain's table filters and scores every node,
so its best node may be one the attempt never looked at; and when several scored nodes tie, kube
picks one at random (selectHost). SampleRecorder watches the deciding attempt and says both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Status
from kschedctl.framework.types import Diagnosis, NodeInfo, QueuedPodInfo
from kschedctl.runtime.score_table import ScoreTable
from kschedctl.scheduler.algorithm import AttemptRecorder


class SampleRecorder(AttemptRecorder):
    """The nodes the deciding attempt filtered (in visiting order), those that passed, and the
    totals it scored them with."""

    def __init__(self, start_index: int) -> None:
        self.start_index = start_index
        self.all_nodes: list[str] = []
        self.evaluated: list[str] = []
        self.feasible: list[str] = []
        self.totals: dict[str, int] = {}

    def filtered(
        self,
        qpi: QueuedPodInfo,
        state: CycleState,
        nodes: Sequence[NodeInfo],
        feasible: Sequence[NodeInfo],
        diagnosis: Diagnosis,
        error: Status,
    ) -> None:
        self.all_nodes = [n.name for n in nodes]
        self.feasible = [n.name for n in feasible]
        visited = set(self.feasible) | set(diagnosis.node_to_status.node_to_status)
        n = len(self.all_nodes)
        order = [self.all_nodes[(self.start_index + i) % n] for i in range(n)] if n else []
        self.evaluated = [name for name in order if name in visited]

    def scored(self, qpi: QueuedPodInfo, table: ScoreTable) -> None:
        self.totals = dict(zip(table.names, table.totals))


def sampling_facts(rec: SampleRecorder, chosen: str | None, full_totals: dict[str, int | None]) -> dict[str, Any] | None:
    """explain's ``sampling`` (None when the attempt looked at every node): how many nodes kube
    evaluated and from where (and which, ``evaluatedNodes``, in visiting order), how many passed
    and were scored, and the best node of the full
    table that the attempt never considered, when it beats the chosen one there."""
    total = len(rec.all_nodes)
    if not total or len(rec.evaluated) >= total:
        return None
    considered = set(rec.feasible)
    outside = [(t, name) for name, t in full_totals.items() if t is not None and name not in considered]
    out: dict[str, Any] = {
        "nodes": total,
        "evaluated": len(rec.evaluated),
        "startNode": rec.evaluated[0],
        "feasible": len(rec.feasible),
        "scored": len(rec.totals) or len(rec.feasible),
    }
    # JSON only (the table says the count): the names in kube's visiting order, so that the
    # statement can be checked against kube's own search (tools/difftest explain-sampling);
    # at most every node's name once, small beside the per-node table.
    out["evaluatedNodes"] = list(rec.evaluated)
    chosen_full = full_totals.get(chosen) if chosen else None
    if outside:
        best_total = max(t for t, _ in outside)
        best = next(name for name, t in full_totals.items() if t == best_total and name not in considered)
        if chosen_full is None or best_total > chosen_full:
            out["betterOutside"] = {"node": best, "total": best_total}
    return out


def tie_facts(rec: SampleRecorder, chosen: str | None) -> dict[str, Any] | None:
    """When the best total of the deciding attempt is shared: how many nodes, the total, and the
    one kube's random pick gave here (selectHost's reservoir sampling)."""
    if not rec.totals or chosen is None:
        return None
    best = max(rec.totals.values())
    tied = [name for name, t in rec.totals.items() if t == best]
    if len(tied) < 2:
        return None
    return {"total": best, "nodes": len(tied), "chosen": chosen}


def sampling_line(s: dict[str, Any]) -> str:
    line = (
        f"sampling: kube evaluates {s['evaluated']} of {s['nodes']} nodes for this pod (percentageOfNodesToScore), "
        f"starting at {s['startNode']} (the rotating start index); {s['feasible']} feasible, {s['scored']} scored"
    )
    better = s.get("betterOutside")
    if better:
        line += (
            f"; {better['node']} (total {better['total']} in the table below) scores better but is outside "
            "the sample, so kube does not consider it"
        )
    return line


def tie_line(t: dict[str, Any]) -> str:
    return f"tie: {t['nodes']} nodes tie at {t['total']}; kube picks one at random (here {t['chosen']})"
