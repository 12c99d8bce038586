"""Per-pod node tables for `--report`: what the last attempt of some pods of a run said of each
node (the filter verdict per node, each score plugin's score), recorded on the run's own
attempts, never recomputed.

Bounded, since a report must not make a big run slow: attached only when `--report` is given;
tables are kept for the pods whose attempt found no node (the ones a user looks into) up to
MAX_UNSCHEDULABLE_PODS, plus the first MAX_SAMPLED_PODS pods that were placed, as a sample; a
pod keeps its last attempt only. Rows are NodeTable's (node_table.py), without the facts behind
each rejection (kschedctl/plugins/details), which cost a plugin call per rejected node: `explain`
gives those. The report words and draws them (kschedctl/output/report.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kschedctl.explain.node_table import NodeTable
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Status
from kschedctl.framework.types import Diagnosis, NodeInfo, QueuedPodInfo
from kschedctl.runtime.framework import Framework
from kschedctl.runtime.score_table import ScoreTable
from kschedctl.scheduler.algorithm import AttemptRecorder
from kschedctl.scheduler.result import NodeExplanation
from kschedctl.scheduler.scheduler import Scheduler

MAX_UNSCHEDULABLE_PODS = 50
MAX_SAMPLED_PODS = 10


@dataclass
class PodTable:
    """One pod's last recorded attempt: its profile's Filter and Score plugins in order, and a
    row per node (NotEvaluated for a node a sampled search did not reach)."""

    pod: str
    attempt: int
    filter_plugins: list[str]
    score_plugins: list[str]
    rows: list[NodeExplanation] = field(default_factory=list)
    feasible: int = 0


class PodTables(AttemptRecorder):
    """Records the tables: per pod its last failed attempt and its last successful one."""

    def __init__(self, framework_for: Any, max_unschedulable: int = MAX_UNSCHEDULABLE_PODS, max_sampled: int = MAX_SAMPLED_PODS) -> None:
        self.framework_for = framework_for  # Scheduler.framework_for_pod
        self.max_unschedulable = max_unschedulable
        self.max_sampled = max_sampled
        self.failed: dict[str, PodTable] = {}
        self.placed: dict[str, PodTable] = {}
        self._current: tuple[str, NodeTable, PodTable] | None = None

    def filtered(
        self,
        qpi: QueuedPodInfo,
        state: CycleState,
        nodes: Sequence[NodeInfo],
        feasible: Sequence[NodeInfo],
        diagnosis: Diagnosis,
        error: Status,
    ) -> None:
        self._current = None
        key = qpi.pod.key
        if feasible:
            # a sample of placed pods, and every pod with a failed attempt recorded (a preemptor:
            # its failure says why it preempted, its last attempt where it went)
            if key not in self.failed and (key in self.placed or len(self.placed) >= self.max_sampled):
                return
            bucket = self.placed
        else:
            if key not in self.failed and len(self.failed) >= self.max_unschedulable:
                return  # over the cap: the report says how many have no table
            bucket = self.failed
            self.placed.pop(key, None)  # a later failure: the earlier success is not the story
        fwk = self.framework_for(qpi.pod)
        table = NodeTable(fwk, sampled=True, details=False)
        table.filtered(qpi, state, nodes, feasible, diagnosis, error)
        filters, scores = plugin_names(fwk)
        pod_table = PodTable(key, qpi.attempts, filters, scores, table.rows, len(feasible))
        bucket[key] = pod_table
        self._current = (key, table, pod_table)

    def scored(self, qpi: QueuedPodInfo, table: ScoreTable) -> None:
        if self._current is not None and self._current[0] == qpi.pod.key:
            self._current[1].scored(qpi, table)

    def tables(self) -> list[PodTable]:
        """Each pod's last failed attempt, then its later success if any; then the sampled
        placed pods."""
        out: list[PodTable] = []
        for key, table in self.failed.items():
            out.append(table)
            if key in self.placed:
                out.append(self.placed[key])
        return out + [t for k, t in self.placed.items() if k not in self.failed]


def attach_pod_tables(sched: Scheduler) -> Callable[[], list[PodTable]]:
    """A PodTables on the scheduler's attempts (simulate's ``attach``); gives its tables."""
    recorder = PodTables(sched.framework_for_pod)
    sched.algorithm.recorders.append(recorder)
    return recorder.tables


def plugin_names(fwk: Framework) -> tuple[list[str], list[str]]:
    """The profile's Filter and Score plugins, in the order they run."""
    return ([fwk.plugin_names[id(p)] for p in fwk.points["filter"]], [fwk.plugin_names[id(p)] for p in fwk.points["score"]])


__all__ = ["PodTable", "PodTables", "attach_pod_tables", "MAX_UNSCHEDULABLE_PODS", "MAX_SAMPLED_PODS"]
