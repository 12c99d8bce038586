"""What a run produces: plain data that every renderer (table, wide, json, yaml) reads.

The scheduler fills these; it never formats them. Keys of ``to_dict`` are the contract's
(../shared/contract.md, `schedule -o json` and `explain -o json`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kschedctl.scheduler.shortfall import Shortfall


@dataclass
class Placement:
    """A pod the run scheduled: its node, profile, attempts and the node's total score."""

    pod: str
    node: str
    profile: str
    attempts: int
    score: int | None
    time: float = 0.0
    preempted_by: str | None = None  # set when a later pod of the run evicted it

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pod": self.pod, "node": self.node, "profile": self.profile, "attempts": self.attempts, "score": self.score}
        if self.preempted_by:
            out["preemptedBy"] = self.preempted_by
        return out


@dataclass
class Unschedulable:
    """A pod the run could not schedule: its last attempt's message and reasons (reason -> number of nodes)."""

    pod: str
    profile: str
    attempts: int
    message: str
    reasons: dict[str, int] = field(default_factory=dict)
    nominated_node: str = ""
    error: bool = False  # the last attempt ended in an Error status rather than a FitError
    time: float = 0.0  # when the last attempt failed (virtual clock, seconds since the epoch)
    diagnosis: str | None = None  # the verdict, next to kube's message: worded by kschedctl/explain/verdict.py
    # the counts behind it, recorded by the run (a FitError only); never in to_dict
    shortfall: Shortfall | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pod": self.pod,
            "profile": self.profile,
            "attempts": self.attempts,
            "message": self.message,
            "reasons": dict(sorted(self.reasons.items())),
        }
        if self.nominated_node:
            out["nominatedNode"] = self.nominated_node
        if self.error:
            out["error"] = True
        if self.diagnosis:
            out["diagnosis"] = self.diagnosis
        return out


@dataclass
class Preemption:
    """A preemption of the run: the preemptor, the node, and the victims evicted for it."""

    preemptor: str
    node: str
    victims: list[str]
    time: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"preemptor": self.preemptor, "node": self.node, "victims": list(self.victims)}


@dataclass
class Skipped:
    """A pending pod the run did not schedule, and why: no profile for its schedulerName, or still gated at the end
    (a PreEnqueue plugin, e.g. SchedulingGates, held it back)."""

    pod: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"pod": self.pod, "reason": self.reason}


@dataclass
class Deleted:
    """A pending pod deleted before it was placed (a scenario's deletePod, a drain of a node it
    was waiting for): pending, yet neither scheduled, unschedulable nor skipped."""

    pod: str
    time: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"pod": self.pod}


@dataclass
class RunResult:
    """The outcome of a run: each pending pod placed, unschedulable, skipped or deleted, the preemptions, and what
    --write-snapshot applies."""

    placements: list[Placement] = field(default_factory=list)
    unschedulable: list[Unschedulable] = field(default_factory=list)
    preemptions: list[Preemption] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    pending: int = 0
    kube_version: str = ""
    pod_groups: list[dict[str, Any]] = field(default_factory=list)  # one report per pod group
    warnings: list[str] = field(default_factory=list)  # said on stderr by the CLI
    deleted: list[Deleted] = field(default_factory=list)
    # objects plugins wrote through the client during the run (PreBind: PVs, PVCs), in order;
    # not rendered: --write-snapshot applies them (kschedctl/output/after_run.py)
    written: list[dict[str, Any]] = field(default_factory=list)
    start_time: float = 0.0  # the virtual clock at the start (seconds since the epoch)
    # DRA objects as the run left them, {kind: {key: raw}} (claims allocated, reserved, released,
    # created from templates; a scenario's slices and classes): not rendered, --write-snapshot's
    dra_objects: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    # --report only: per-pod node tables of some attempts (kschedctl/explain/pod_tables.py), not rendered elsewhere
    pod_tables: list[Any] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        """pending = scheduled + unschedulable + skipped (+ deleted, a key present when some were)."""
        out = {
            "pending": self.pending,
            "scheduled": len(self.placements),
            "unschedulable": len(self.unschedulable),
            "skipped": len(self.skipped),
            "preempted": sum(len(p.victims) for p in self.preemptions),
        }
        if self.deleted:
            out["deleted"] = len(self.deleted)
        return out

    def in_namespace(self, namespace: str) -> "RunResult":
        """The same run seen from one namespace (kubectl's -n): its pods' outcomes only.

        Every pending pod was still scheduled, in the cluster's order; only the view is narrowed.
        """

        def mine(key: str) -> bool:
            return key.split("/", 1)[0] == namespace

        view = RunResult(
            placements=[p for p in self.placements if mine(p.pod)],
            unschedulable=[u for u in self.unschedulable if mine(u.pod)],
            preemptions=[p for p in self.preemptions if mine(p.preemptor)],
            skipped=[s for s in self.skipped if mine(s.pod)],
            kube_version=self.kube_version,
            pod_groups=[g for g in self.pod_groups if mine(str(g.get("podGroup", "")))],
            warnings=list(self.warnings),
            deleted=[d for d in self.deleted if mine(d.pod)],
            written=self.written,
            start_time=self.start_time,
            dra_objects=self.dra_objects,
        )
        view.pending = len(view.placements) + len(view.unschedulable) + len(view.skipped) + len(view.deleted)
        return view

    def to_dict(self) -> dict[str, Any]:
        return {
            "placements": [p.to_dict() for p in self.placements],
            "unschedulable": [u.to_dict() for u in self.unschedulable],
            "preemptions": [p.to_dict() for p in self.preemptions],
            "skipped": [s.to_dict() for s in self.skipped],
            **({"deleted": [d.to_dict() for d in self.deleted]} if self.deleted else {}),
            "summary": self.summary(),
            **({"podGroups": list(self.pod_groups)} if self.pod_groups else {}),
        }


@dataclass
class NodeExplanation:
    """One node in `explain`: its Filter outcome (code, plugin, reasons) and, when scored, each plugin's score and the total."""

    name: str
    code: str
    plugin: str = ""
    reasons: list[str] = field(default_factory=list)
    scores: dict[str, dict[str, int]] | None = None  # plugin -> {"score", "weight"}
    total: int | None = None
    dra: dict[str, Any] | None = None  # DynamicResources: the devices picked, or why none could be
    # the facts behind the rejection, per plugin (kschedctl/plugins/details): {"summary": ..., ...}
    details: dict[str, dict[str, Any]] | None = None
    # --all-filters: every other Filter plugin that rejects the node too (kube stops at the first)
    also: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        flt: dict[str, Any] = {"code": self.code}
        if self.code != "Success":
            if self.plugin:
                flt["plugin"] = self.plugin
            flt["reasons"] = list(self.reasons)
        out: dict[str, Any] = {"filter": flt}
        if self.scores is not None:
            out["scores"] = self.scores
            out["total"] = self.total
        if self.dra is not None:
            out["dra"] = self.dra
        if self.also:
            out["alsoRejectedBy"] = self.also
        if self.details:
            out["details"] = self.details
        return out


def ranking(nodes: list[NodeExplanation]) -> list[dict[str, Any]]:
    """The scored nodes by total score, best first (snapshot order among equals), each with its
    rank and ``tie`` when another node has the same total (kube then picks one at random)."""
    scored = [n for n in nodes if n.total is not None]
    scored.sort(key=lambda n: -(n.total or 0))
    counts: dict[int, int] = {}
    for n in scored:
        counts[n.total or 0] = counts.get(n.total or 0, 0) + 1
    out, rank = [], 0
    for i, n in enumerate(scored):
        if i == 0 or n.total != scored[i - 1].total:
            rank = i + 1
        out.append({"node": n.name, "total": n.total, "rank": rank, "tie": counts[n.total or 0] > 1})
    return out


@dataclass
class ExplainResult:
    """`explain` of one pod: its outcome, every node's view, its state before evaluation and the verdict."""

    pod: str
    profile: str
    node: str | None
    message: str | None
    nodes: list[NodeExplanation] = field(default_factory=list)
    preemption: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)  # said on stderr, not part of the result
    # what the pod is before anything is evaluated: pending, gated, bound, terminal, nominated,
    # no-profile; ``state_detail`` says it in words (the gates, the node)
    state: str = "pending"
    state_detail: str = ""
    evaluated: bool = True  # False: a gated, bound, terminal or no-profile pod not evaluated
    note: str = ""  # what was evaluated (the snapshot as given) and, when it differs, the run's outcome
    run: dict[str, Any] | None = None  # the outcome `schedule` gives this pod, when it was looked up
    verdict: str | None = None  # the answer first (kschedctl/explain/verdict.py)
    attempts: list[dict[str, Any]] | None = None  # --in-run: the run's attempts for this pod
    sampling: dict[str, Any] | None = None  # the nodes kube's search looked at, when not all (sampling.py)
    tie: dict[str, Any] | None = None  # the best total shared by several scored nodes: kube's random pick

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pod": self.pod,
            "profile": self.profile,
            "node": self.node,
            "message": self.message,
            "nodes": {n.name: n.to_dict() for n in self.nodes},
        }
        if self.node is None:
            out["preemption"] = self.preemption or {"nominatedNode": None, "victims": []}
        out["state"] = self.state
        if self.state_detail:
            out["stateDetail"] = self.state_detail
        out["evaluated"] = self.evaluated
        if self.note:
            out["note"] = self.note
        if self.run is not None:
            out["run"] = self.run
        if self.verdict:
            out["verdict"] = self.verdict
        if self.evaluated:
            out["ranking"] = ranking(self.nodes)
        if self.attempts is not None:
            out["attempts"] = self.attempts
        if self.sampling is not None:
            out["sampling"] = self.sampling
        if self.tie is not None:
            out["tie"] = self.tie
        return out


@dataclass
class GroupMemberExplanation:
    """One member of a pod group attempt in `explain podgroup`: its node, or the message why none, and its per-node view."""

    pod: str
    node: str | None
    message: str | None
    nodes: list[NodeExplanation] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"pod": self.pod, "node": self.node, "message": self.message, "nodes": {n.name: n.to_dict() for n in self.nodes}}


@dataclass
class ExplainGroupResult:
    """`explain podgroup/NS/NAME`: the members of one group attempt, each with its per-node view."""

    pod_group: str
    profile: str
    status: str
    message: str | None
    placement: str | None = None
    members: list[GroupMemberExplanation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # said on stderr, not part of the result
    min_count: int | None = None  # the group's quorum (gang policy), for its verdict
    policy: str = "basic"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"podGroup": self.pod_group, "profile": self.profile, "status": self.status, "message": self.message}
        if self.placement is not None:
            out["placement"] = self.placement
        out["members"] = [m.to_dict() for m in self.members]
        return out
