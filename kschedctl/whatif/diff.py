"""`kschedctl diff`: the same snapshot scheduled twice — configuration, release or feature gates
A against B, same seed — and what changed for each pod, each node and the packing.

Both sides are ordinary runs of the Scheduler. Side B carries an attempt recorder (an
AttemptRecorder attached to its SchedulingAlgorithm, ``sched.algorithm.recorders``) that
keeps, for every pod A placed, what B's own scoring said about A's node in B's attempt: its
total and the best total (the score table the attempt built), or the filter status that
rejected it. That is how a move is classed without scoring
anything twice:

- *tieBreakOnly*: A's node had B's best total too — B's random tie-break among equal nodes
  chose another one, so the move is seed noise, not an effect of the change;
- *scoresChanged*: A's node scored lower under B (``outranked``), was rejected by B's filters
  (``filtered``), or was not looked at (``notEvaluated``: percentageOfNodesToScore stopped the
  search before it, or B only evaluated the pod's nominated node);
- *unknown*: no recorded attempt of B chose B's node (a pod group placement, for instance).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kschedctl.cluster.loader import ClusterSnapshot
from kschedctl.explain.verdict import word_run
from kschedctl.framework.config_types import KubeSchedulerConfiguration
from kschedctl.framework.registry import Registry
from kschedctl.framework.types import QueuedPodInfo
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.scheduler.algorithm import AttemptRecorder, ScheduleResult
from kschedctl.scheduler.result import RunResult
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.versions import KubeVersion
from kschedctl.whatif.usage import ClusterUsage, PackingMeasures, cluster_usage, pod_shape

SCORES_CHANGED = "scoresChanged"
TIE_BREAK_ONLY = "tieBreakOnly"
UNKNOWN = "unknown"

# change kinds, in the order the table lists them
MOVED = "moved"
BECAME_UNSCHEDULABLE = "unschedulable"
BECAME_SCHEDULABLE = "schedulable"
PROFILE = "profile"
PREEMPTION = "preemption"
MESSAGE = "message"
KINDS = (MOVED, BECAME_UNSCHEDULABLE, BECAME_SCHEDULABLE, PROFILE, PREEMPTION, MESSAGE)


@dataclass
class Side:
    """One side of the comparison: what the user asked for, and the loaded objects."""

    label: str  # "a" or "b"
    config_path: str | None
    version: KubeVersion
    feature_gates: str | None
    config: KubeSchedulerConfiguration
    cluster: ClusterSnapshot

    def describe(self) -> dict[str, Any]:
        return {"config": self.config_path, "kubeVersion": self.version.version, "featureGates": self.feature_gates or None}


@dataclass
class PodOutcome:
    """Where one pod ended on one side."""

    status: str  # Scheduled | Unschedulable | Skipped | Preempted (placed, then evicted in the run)
    node: str | None = None
    message: str | None = None
    profile: str | None = None
    score: int | None = None
    victims: list[str] = field(default_factory=list)  # what this pod's preemptions evicted
    preempted_by: str | None = None
    nominated_node: str | None = None

    @property
    def placed(self) -> bool:
        return self.status in ("Scheduled", "Preempted")

    def preemption_signature(self) -> tuple[tuple[str, ...], str | None, str | None]:
        return tuple(self.victims), self.preempted_by, self.nominated_node

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "node": self.node, "message": self.message}
        if self.profile:
            out["profile"] = self.profile
        if self.score is not None:
            out["score"] = self.score
        if self.victims:
            out["victims"] = list(self.victims)
        if self.preempted_by:
            out["preemptedBy"] = self.preempted_by
        if self.nominated_node:
            out["nominatedNode"] = self.nominated_node
        return out


@dataclass
class AttemptView:
    """What B's attempt that chose ``host`` said about A's node (``old``)."""

    host: str
    old: str
    best: int | None  # the best total of the attempt (None: one feasible node, nothing scored)
    tied: int  # how many scored nodes had the best total
    old_total: int | None  # A's node's total, when B scored it
    old_rejection: str | None  # why B's filters rejected A's node, when they did
    nominated_only: bool = False  # B evaluated only the pod's nominated node (the host)


@dataclass
class MoveCause:
    cls: str  # scoresChanged | tieBreakOnly | unknown
    why: str  # tied | outranked | filtered | notEvaluated | notRecorded
    detail: str
    best: int | None = None
    old_score: int | None = None
    tied: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"class": self.cls, "why": self.why, "detail": self.detail}
        if self.best is not None:
            out["bestScore"] = self.best
            out["tiedNodes"] = self.tied
        if self.old_score is not None:
            out["oldNodeScore"] = self.old_score
        return out


@dataclass
class PodChange:
    pod: str
    kind: str
    a: PodOutcome
    b: PodOutcome
    move: MoveCause | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pod": self.pod, "kind": self.kind, "a": self.a.to_dict(), "b": self.b.to_dict()}
        if self.move is not None:
            out["move"] = self.move.to_dict()
        return out


@dataclass
class SideResult:
    side: Side
    run: RunResult
    usage: ClusterUsage
    packing: PackingMeasures


@dataclass
class DiffResult:
    a: SideResult
    b: SideResult
    seed: int
    changes: list[PodChange]
    outcomes: dict[str, tuple[PodOutcome, PodOutcome]]  # every pending pod, both sides

    def summary(self) -> dict[str, Any]:
        moves = [c for c in self.changes if c.kind == MOVED]
        out: dict[str, Any] = {"pods": len(self.outcomes), "changed": len(self.changes)}
        for kind in KINDS:
            out[kind] = sum(1 for c in self.changes if c.kind == kind)
        out[SCORES_CHANGED] = sum(1 for c in moves if c.move and c.move.cls == SCORES_CHANGED)
        out[TIE_BREAK_ONLY] = sum(1 for c in moves if c.move and c.move.cls == TIE_BREAK_ONLY)
        out["a"] = self.a.run.summary()
        out["b"] = self.b.run.summary()
        return out

    def node_rows(self) -> list[dict[str, Any]]:
        """Every node: allocatable, and requested before (A) and after (B)."""
        b_nodes = {n.name: n for n in self.b.usage.nodes}
        rows = []
        for n in self.a.usage.nodes:
            other = b_nodes.get(n.name)
            rows.append(
                {
                    "name": n.name,
                    "zone": n.zone,
                    **({"pool": n.pool} if n.pool else {}),
                    "allocatable": dict(n.allocatable),
                    "requested": {"a": dict(n.requested), "b": dict(other.requested) if other else {}},
                    "pods": {"a": n.pods, "b": other.pods if other else 0},
                }
            )
        return rows

    def zone_rows(self) -> list[dict[str, Any]]:
        b_zones = {z.name: z for z in self.b.usage.by_zone()}
        rows = []
        for z in self.a.usage.by_zone():
            other = b_zones.get(z.name)
            rows.append(
                {
                    "zone": z.name,
                    "nodes": z.nodes,
                    "allocatable": dict(z.allocatable),
                    "requested": {"a": dict(z.requested), "b": dict(other.requested) if other else {}},
                    "pods": {"a": z.pods, "b": other.pods if other else 0},
                }
            )
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.side.describe(),
            "b": self.b.side.describe(),
            "seed": self.seed,
            "changes": [c.to_dict() for c in self.changes],
            "summary": self.summary(),
            "packing": {"a": self.a.packing.to_dict(), "b": self.b.packing.to_dict()},
            "zones": self.zone_rows(),
            "nodes": self.node_rows(),
        }


class OldNodeRecorder(AttemptRecorder):
    """An attempt recorder for side B: keeps, per pod, the view of A's node in B's last attempt."""

    def __init__(self, old_nodes: dict[str, str]) -> None:
        self.old_nodes = old_nodes
        self.views: dict[str, AttemptView] = {}

    def chose(self, qpi: QueuedPodInfo, result: ScheduleResult) -> None:
        pod = qpi.pod
        old = self.old_nodes.get(pod.key)
        if old is None:
            return
        names, totals = _names_and_totals(result)
        best = max(totals) if totals else None
        tied = sum(1 for t in totals if t == best) if totals else 0
        old_total = None
        if names is not None and old in names:
            old_total = int(totals[names.index(old)])
        rejection = None
        if old_total is None and result.diagnosis is not None:
            rejection = _rejection(result.diagnosis, old)
        nominated_only = bool(pod.nominated_node_name) and result.evaluated_nodes == 1 and result.suggested_host == pod.nominated_node_name
        self.views[pod.key] = AttemptView(
            result.suggested_host, old, None if best is None else int(best), tied, old_total, rejection, nominated_only
        )


def _names_and_totals(result: Any) -> tuple[list[str] | None, list[int]]:
    """The scored nodes of an attempt and their totals, from the attempt's own score table."""
    if result.table is not None:
        return list(result.table.names), [int(t) for t in result.table.totals]
    if result.feasible_nodes > 1:
        scores = result.scores
        return [s.name for s in scores], [int(s.total_score) for s in scores]
    return None, []


def _rejection(diagnosis: Any, node: str) -> str | None:
    """The status B's filters gave the node, or None when the node was not evaluated."""
    nts = diagnosis.node_to_status
    status = nts.node_to_status.get(node)
    if status is None and nts.absent_nodes_status.reasons:  # left out by a PreFilterResult
        status = nts.absent_nodes_status
    if status is None:
        return None
    reasons = ", ".join(status.reasons) or status.code.name
    return f"{status.plugin}: {reasons}" if status.plugin else reasons


def classify_move(pod: str, a_node: str, b_node: str, view: AttemptView | None) -> MoveCause:
    if view is None or view.host != b_node:
        return MoveCause(UNKNOWN, "notRecorded", f"no recorded attempt of B chose {b_node}")
    if view.old_total is not None:
        if view.best is not None and view.old_total == view.best:
            return MoveCause(
                TIE_BREAK_ONLY,
                "tied",
                f"{a_node} was among B's {view.tied} best nodes (total {view.best}); the tie-break chose {b_node}",
                view.best,
                view.old_total,
                view.tied,
            )
        return MoveCause(
            SCORES_CHANGED,
            "outranked",
            f"under B {a_node} scored {view.old_total}, {b_node} {view.best}",
            view.best,
            view.old_total,
            view.tied,
        )
    if view.old_rejection is not None:
        return MoveCause(SCORES_CHANGED, "filtered", f"under B {a_node} did not fit: {view.old_rejection}", view.best, None, view.tied)
    why = "only its nominated node was evaluated" if view.nominated_only else "the node search stopped before it"
    return MoveCause(SCORES_CHANGED, "notEvaluated", f"under B the attempt did not evaluate {a_node} ({why})", view.best, None, view.tied)


def run_side(
    side: Side,
    registry: Registry,
    seed: int,
    recorders: Sequence[AttemptRecorder] = (),
    progress: Callable[[int, int], None] | None = None,
    plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT,
) -> SideResult:
    sched = Scheduler(side.cluster, side.config, registry, side.version, seed=seed, plugin_timeout=plugin_timeout)
    sched.algorithm.recorders.extend(recorders)
    result = word_run(sched.run(progress=progress))
    usage = cluster_usage(sched.cache.nodes)
    packing = usage.packing([pod_shape(p) for p in side.cluster.pending_pods])
    return SideResult(side, result, usage, packing)


def outcomes_of(run: RunResult) -> dict[str, PodOutcome]:
    """pod key -> its outcome, for every pending pod of the run."""
    victims: dict[str, list[str]] = {}
    for pre in run.preemptions:
        victims.setdefault(pre.preemptor, []).extend(pre.victims)
    out: dict[str, PodOutcome] = {}
    for p in run.placements:
        out[p.pod] = PodOutcome(
            "Preempted" if p.preempted_by else "Scheduled", p.node, None, p.profile, p.score, victims.get(p.pod, []), p.preempted_by
        )
    for u in run.unschedulable:
        out[u.pod] = PodOutcome("Unschedulable", None, u.message, u.profile, None, victims.get(u.pod, []), None, u.nominated_node or None)
    for s in run.skipped:
        out[s.pod] = PodOutcome("Skipped", None, s.reason)
    return out


def change_kind(a: PodOutcome, b: PodOutcome) -> str | None:
    if (a.status == "Skipped") != (b.status == "Skipped"):
        return PROFILE
    if a.placed and not b.placed:
        return BECAME_UNSCHEDULABLE
    if b.placed and not a.placed:
        return BECAME_SCHEDULABLE
    if a.placed and a.node != b.node:
        return MOVED
    if a.preemption_signature() != b.preemption_signature() or a.status != b.status:
        return PREEMPTION
    if a.message != b.message:
        return MESSAGE
    return None


def diff(
    side_a: Side,
    side_b: Side,
    registry: Registry,
    seed: int,
    progress: Callable[[str, int, int], None] | None = None,
    plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT,
) -> DiffResult:
    """Run A, then B with the recorder, and compare every pending pod's outcome."""

    def side_progress(label: str) -> Callable[[int, int], None] | None:
        return None if progress is None else (lambda done, total: progress(label, done, total))

    a = run_side(side_a, registry, seed, progress=side_progress("a"), plugin_timeout=plugin_timeout)
    a_outcomes = outcomes_of(a.run)
    recorder = OldNodeRecorder({k: o.node for k, o in a_outcomes.items() if o.placed and o.node})
    b = run_side(side_b, registry, seed, [recorder], progress=side_progress("b"), plugin_timeout=plugin_timeout)
    b_outcomes = outcomes_of(b.run)
    both: dict[str, tuple[PodOutcome, PodOutcome]] = {}
    changes: list[PodChange] = []
    for key in sorted(set(a_outcomes) | set(b_outcomes)):
        oa = a_outcomes.get(key) or PodOutcome("Skipped", message="not pending on this side")
        ob = b_outcomes.get(key) or PodOutcome("Skipped", message="not pending on this side")
        both[key] = (oa, ob)
        kind = change_kind(oa, ob)
        if kind is None:
            continue
        move = classify_move(key, oa.node or "", ob.node or "", recorder.views.get(key)) if kind == MOVED else None
        changes.append(PodChange(key, kind, oa, ob, move))
    changes.sort(key=lambda c: (KINDS.index(c.kind), c.pod))
    return DiffResult(a, b, seed, changes, both)
