"""explain in the run: the attempts `schedule` made for one pod, in the state each one saw.

Plain `explain` evaluates the pod against the snapshot as given (bound pods count, the other
pending pods do not). `schedule` places the pods one after another, so a pod may meet a
cluster that earlier placements, preemptions and nominations have changed. ``--in-run`` runs
`schedule` itself (same configuration, seed, release and flags: the same Scheduler.run) with
an AttemptRecorder on its algorithm that records only the target pod's attempts — the nodes
each attempt filtered (a node it did not reach is NotEvaluated: kube samples), their scores and
the facts behind each rejection, the attempt number and the event that moved the pod back to
the queue before it (``movedBy``) — and reads each attempt's outcome from the run's trace.
Nothing of the scheduling is copied, and nothing is rendered here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.cluster.loader import ClusterSnapshot, is_pending
from kschedctl.explain.node_table import NodeTable
from kschedctl.explain.verdict import fits_verdict, word_run
from kschedctl.framework.config_types import KubeSchedulerConfiguration
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Status
from kschedctl.framework.registry import Registry
from kschedctl.framework.types import Diagnosis, NodeInfo, QueuedPodInfo
from kschedctl.runtime.score_table import ScoreTable
from kschedctl.scheduler.algorithm import AttemptRecorder, ScheduleResult
from kschedctl.scheduler.result import ExplainResult, RunResult
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.scheduler.victims import VictimExit
from kschedctl.versions import KubeVersion

# Plain explain runs `schedule` to compare outcomes only up to this many pending pods (a bigger
# run is what --in-run is for).
MAX_PENDING_TO_COMPARE = 2000


class PodAttempts(AttemptRecorder):
    """The target pod's attempts in a run, each with its own NodeTable (sampled: the attempt
    may have looked at part of the nodes only)."""

    def __init__(self, sched: Scheduler, uid: str, all_filters: bool) -> None:
        self.sched = sched
        self.uid = uid
        self.all_filters = all_filters
        self.attempts: list[dict[str, Any]] = []
        self._tables: list[NodeTable] = []

    def filtered(
        self,
        qpi: QueuedPodInfo,
        state: CycleState,
        nodes: Sequence[NodeInfo],
        feasible: Sequence[NodeInfo],
        diagnosis: Diagnosis,
        error: Status,
    ) -> None:
        if qpi.pod.uid != self.uid:
            return
        sched = self.sched
        table = NodeTable(sched.framework_for_pod(qpi.pod), all_filters=self.all_filters, sampled=True)
        table.filtered(qpi, state, nodes, feasible, diagnosis, error)
        self._tables.append(table)
        self.attempts.append(
            {
                "attempt": qpi.attempts,
                "time": sched.clock.now() - sched.start,
                "movedBy": qpi.moved_by if qpi.attempts > 1 and qpi.moved_by else None,
                # the state the attempt saw, as the run had made it
                "before": {
                    "placed": len(sched.result.placements),
                    "preemptions": len(sched.result.preemptions),
                    "nominatedNode": sched.nominator.nominated_node_of(qpi.pod) or None,
                },
                "evaluatedNodes": len(feasible) + diagnosis.node_to_status.len(),
                "chosen": None,
            }
        )

    def scored(self, qpi: QueuedPodInfo, table: ScoreTable) -> None:
        if qpi.pod.uid == self.uid and self._tables:
            self._tables[-1].scored(qpi, table)

    def chose(self, qpi: QueuedPodInfo, result: ScheduleResult) -> None:
        if qpi.pod.uid == self.uid and self.attempts:
            self.attempts[-1]["chosen"] = result.suggested_host

    def finish(self, trace: list[dict[str, Any]], pod_key: str) -> list[dict[str, Any]]:
        """Each attempt with its outcome from the run's trace (Scheduled or FailedScheduling of
        this pod with that attempt number) and its per-node table."""
        outcomes: dict[int, dict[str, Any]] = {}
        for entry in trace:
            if entry.get("pod") == pod_key and entry["event"] in ("Scheduled", "FailedScheduling"):
                outcomes[int(entry.get("attempts", 0))] = entry
        out = []
        for attempt, table in zip(self.attempts, self._tables, strict=True):
            entry = outcomes.get(attempt["attempt"], {})
            attempt = dict(attempt)
            attempt["outcome"] = (
                {"event": entry.get("event"), "node": entry.get("node"), "message": entry.get("message")} if entry else None
            )
            attempt["nodes"] = {n.name: n.to_dict() for n in table.rows}
            out.append(attempt)
        return out


def pod_state(sched: Scheduler, pod: Pod) -> tuple[str, str]:
    """What the pod is before anything is evaluated, and that in words: ``terminal``,
    ``bound`` (to which node), ``no-profile``, ``gated`` (what `schedule` reports: the gates),
    ``nominated`` (to which node) or ``pending``. Read after ``enqueue_pending`` (or the run): the
    queue's PreEnqueue verdict is the one `schedule` acts on."""
    if pod.is_terminal or pod.is_terminating:
        phase = pod.raw.get("status", {}).get("phase") if isinstance(pod.raw.get("status"), dict) else None
        return "terminal", ("being deleted" if pod.is_terminating else f"phase {phase}") + ": not scheduled"
    if pod.node_name:
        return "bound", f"bound to node {pod.node_name}"
    if pod.scheduler_name not in sched.profiles:
        return "no-profile", f"no profile for schedulerName {pod.scheduler_name!r}: `schedule` skips it"
    for qpi in sched.queue.pending():
        if qpi.pod.uid == pod.uid and qpi.gated:
            return "gated", f"skipped by `schedule`: {qpi.gating_message or f'gated by {qpi.gating_plugin}'}"
    if pod.nominated_node_name:
        return "nominated", f"nominated to node {pod.nominated_node_name} (status.nominatedNodeName)"
    return "pending", ""


def run_outcome(result: RunResult, pod_key: str) -> dict[str, Any]:
    """What `schedule` reports for the pod: Scheduled (node, attempts), Unschedulable (attempts,
    message), Skipped (reason), or Preempted (by whom) when a later pod evicted it."""
    for p in result.placements:
        if p.pod == pod_key:
            out: dict[str, Any] = {"status": "Scheduled", "node": p.node, "attempts": p.attempts}
            if p.preempted_by:
                out["preemptedBy"] = p.preempted_by
            return out
    for u in result.unschedulable:
        if u.pod == pod_key:
            return {"status": "Unschedulable", "node": None, "attempts": u.attempts, "message": u.message}
    for s in result.skipped:
        if s.pod == pod_key:
            return {"status": "Skipped", "node": None, "reason": s.reason}
    return {"status": "Deleted", "node": None}


def _new_run(
    cluster: ClusterSnapshot,
    config: KubeSchedulerConfiguration,
    registry: Registry,
    version: KubeVersion,
    seed: int | None,
    plugin_timeout: float | None,
    victim_exit: VictimExit | None = None,
) -> Scheduler:
    return Scheduler(cluster, config, registry, version, seed=seed, plugin_timeout=plugin_timeout, victim_exit=victim_exit)


def compare_with_schedule(
    result: ExplainResult,
    cluster: ClusterSnapshot,
    config: KubeSchedulerConfiguration,
    registry: Registry,
    version: KubeVersion,
    seed: int | None,
    plugin_timeout: float | None,
    run: bool = True,
    victim_exit: VictimExit | None = None,
) -> None:
    """The note plain `explain` gives: it evaluated the snapshot as given; and, when `schedule`
    (run here on ``cluster``, a copy, when ``run``: other pods pending, up to
    MAX_PENDING_TO_COMPARE) ends differently for this pod, what it does and that ``--in-run`` shows it."""
    others = sum(1 for p in cluster.pods if is_pending(p)) - 1
    result.note = "evaluated against the snapshot as given: bound pods count, other pending pods are not placed"
    if others <= 0:
        return
    if not run:
        result.note += f"; {others} other pod(s) are pending: `explain --in-run` shows what `schedule` does"
        return
    outcome = run_outcome(_new_run(cluster, config, registry, version, seed, plugin_timeout, victim_exit).run(), result.pod)
    here = "Scheduled" if result.node else "Unschedulable"
    outcome["differs"] = outcome["status"] != here or outcome.get("node") != result.node
    result.run = outcome
    if outcome["differs"]:
        where = f" on {outcome['node']}" if outcome.get("node") else ""
        result.note += (
            f"; `schedule` ends differently for this pod ({outcome['status']}{where}, in a run with "
            f"the {others} other pending pod(s)): `explain --in-run` shows its attempts"
        )
        if seed is None and _tied(result, outcome.get("node")):
            result.note += " (its node ties with this one on total score: without --seed, kube's pick is random)"


def _tied(result: ExplainResult, node: str | None) -> bool:
    """The run's node has the chosen node's total score here: a tie kube breaks at random."""
    totals = {n.name: n.total for n in result.nodes if n.total is not None}
    return node is not None and result.node is not None and totals.get(node) == totals.get(result.node) is not None


def explain_in_run(
    cluster: ClusterSnapshot,
    pod: Pod,
    config: KubeSchedulerConfiguration,
    registry: Registry,
    version: KubeVersion,
    seed: int | None = None,
    plugin_timeout: float | None = None,
    all_filters: bool = False,
    victim_exit: VictimExit | None = None,
) -> ExplainResult:
    """The `schedule` run, with the target pod's attempts recorded (see the module's docstring)."""
    sched = _new_run(cluster, config, registry, version, seed, plugin_timeout, victim_exit)
    recorder = PodAttempts(sched, pod.uid, all_filters)
    sched.algorithm.recorders.append(recorder)
    run = word_run(sched.run())
    outcome = run_outcome(run, pod.key)
    profile = pod.scheduler_name
    state, detail = pod_state(sched, pod)
    result = ExplainResult(
        pod.key, profile, outcome.get("node"), outcome.get("message") or outcome.get("reason"), state=state, state_detail=detail
    )
    result.run = outcome
    result.attempts = recorder.finish(sched.trace, pod.key)
    last = result.attempts[-1] if result.attempts else None
    if last is not None:
        result.nodes = [_row(name, data) for name, data in last["nodes"].items()]
        failed = next((u for u in run.unschedulable if u.pod == pod.key), None)
        result.verdict = failed.diagnosis if failed is not None else fits_verdict(result.nodes)
    result.evaluated = bool(result.attempts)
    if result.attempts:
        result.note = (
            f"`schedule`'s run (same configuration, seed, release): {len(result.attempts)} attempt(s) "
            f"for this pod; the table is its last attempt, in the state it saw"
        )
    else:
        result.note = f"`schedule`'s run made no attempt for this pod ({outcome['status']})"
    result.warnings = list(run.warnings)
    return result


def _row(name: str, data: dict[str, Any]) -> Any:
    """A NodeExplanation back from the attempt's dict (the last attempt is the main table)."""
    from kschedctl.scheduler.result import NodeExplanation

    flt = data["filter"]
    row = NodeExplanation(
        name,
        flt["code"],
        flt.get("plugin", ""),
        list(flt.get("reasons", [])),
        data.get("scores"),
        data.get("total"),
        data.get("dra"),
        data.get("details"),
        data.get("alsoRejectedBy"),
    )
    return row


__all__ = ["MAX_PENDING_TO_COMPARE", "PodAttempts", "compare_with_schedule", "explain_in_run", "pod_state", "run_outcome"]
