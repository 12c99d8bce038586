"""explain's table: what one attempt of the algorithm said of each node, as an AttemptRecorder.

Used by plain `explain` (an attempt with ``find_all``), by pod-group explain (each member's
attempt in the group's simulated state) and by ``--in-run`` (the attempts `schedule` made).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, Status
from kschedctl.framework.types import Diagnosis, NodeInfo, QueuedPodInfo
from kschedctl.runtime.framework import Framework
from kschedctl.runtime.score_table import ScoreTable
from kschedctl.scheduler.algorithm import AttemptRecorder
from kschedctl.scheduler.result import NodeExplanation


class NodeTable(AttemptRecorder):
    """explain's recorder: one NodeExplanation per node, in snapshot order, with its scores,
    the facts behind each rejection (kschedctl/plugins/details, called only for the rejected
    (node, plugin) pairs, after the filters ran) and, for a pod with ResourceClaims,
    DynamicResources' view of each node it filtered. ``all_filters``: each rejected node is
    also run through every other Filter plugin (kube stops at the first failure). ``sampled``:
    the attempt may not have looked at every node (an attempt of the run): a node it did not
    reach is ``NotEvaluated``. ``details=False``: no facts behind the rejections, no DRA view
    (a plugin call per node: the report's tables, pod_tables.py, leave them to `explain`)."""

    def __init__(self, fwk: Framework, all_filters: bool = False, sampled: bool = False, details: bool = True) -> None:
        self.fwk = fwk
        self.all_filters = all_filters
        self.sampled = sampled
        self.details = details
        self.rows: list[NodeExplanation] = []
        dra = fwk.instances.get("DynamicResources")
        self.dra = dra if dra is not None and getattr(dra, "enabled", False) else None

    def filtered(
        self,
        qpi: QueuedPodInfo,
        state: CycleState,
        nodes: Sequence[NodeInfo],
        feasible: Sequence[NodeInfo],
        diagnosis: Diagnosis,
        error: Status,
    ) -> None:
        passed = {info.name for info in feasible}
        nts = diagnosis.node_to_status  # every other node's status, an Error included
        for info in nodes:
            if self.sampled and info.name not in passed and info.name not in nts.node_to_status and not nts.absent_nodes_status.reasons:
                self.rows.append(NodeExplanation(info.name, "NotEvaluated"))
                continue
            st = Status() if info.name in passed else nts.get(info.name)
            row = NodeExplanation(info.name, st.code.name, st.plugin, list(st.reasons))
            if not self.details:
                self.rows.append(row)
                continue
            if self.dra is not None and (info.name in passed or info.name in nts.node_to_status):
                row.dra = self._dra_details(state, info)  # a node the filters ran on
            if st.is_rejected() and info.name in nts.node_to_status:
                self._explain_rejection(row, state, qpi, info, st)
            elif st.is_rejected() and not st.plugin:  # left out by a PreFilter result: no plugin ran on it
                row.details = _pre_filter_result_details(qpi, nodes)
            self.rows.append(row)

    def _explain_rejection(self, row: NodeExplanation, state: CycleState, qpi: QueuedPodInfo, info: NodeInfo, st: Status) -> None:
        """The facts behind the rejecting plugin's verdict, and with ``all_filters`` every other
        plugin that rejects the node, with its facts."""
        from kschedctl.plugins.details import filter_details

        rejecting = [st]
        if self.all_filters:
            others = [o for o in self.fwk.run_each_filter_plugin(state, qpi.pod, info) if o.plugin != st.plugin]
            row.also = [{"plugin": o.plugin, "code": o.code.name, "reasons": list(o.reasons)} for o in others]
            rejecting += others
        details = {}
        nominated = self.fwk.nominated_pods_added(qpi.pod, info)
        seen = info
        if nominated:  # the first pass of the Filter saw the node with them (addGENominatedPods)
            seen = info.clone()
            for pi in nominated:
                seen.add_pod_info(pi)
            details["NominatedPods"] = _nominated_facts(qpi, info, nominated)
        for s in rejecting:
            if s.plugin and s.code != Code.Error:
                facts = filter_details(s.plugin, self.fwk.instances.get(s.plugin), state, qpi.pod, seen)
                if facts:
                    details[s.plugin] = facts
        row.details = details or None

    def _dra_details(self, state: CycleState, info: NodeInfo) -> dict[str, Any] | None:
        """DynamicResources' view of the node, read from the state its Filter left (additive:
        kube's statuses stay as they are)."""
        from kschedctl.plugins.dynamic_resources.details import explain_node

        return explain_node(self.dra, state, info)

    def scored(self, qpi: QueuedPodInfo, table: ScoreTable) -> None:
        at = {name: i for i, name in enumerate(table.names)}
        for row in self.rows:
            i = at.get(row.name)
            if i is not None:
                row.scores = {name: {"score": values[i], "weight": weight} for name, weight, values in table.plugins}
                row.total = table.totals[i]


def _nominated_facts(qpi: QueuedPodInfo, info: NodeInfo, nominated: Sequence[Any]) -> dict[str, Any]:
    """Who holds the room: kube filters a pod against the node as if the pods nominated there
    (of its priority or higher) were already running, so an empty node can be full."""
    from kschedctl.framework.resource import compute_pod_resource_request
    from kschedctl.plugins.details import format_quantity

    pods = []
    for pi in nominated:
        req = compute_pod_resource_request(pi.pod)
        asks = {"cpu": format_quantity("cpu", req.milli_cpu), "memory": format_quantity("memory", req.memory)}
        pods.append({"pod": pi.pod.key, "priority": pi.pod.effective_priority(), "requests": asks})
    named = ", ".join(f"{p['pod']} (priority {p['priority']}, cpu {p['requests']['cpu']}, memory {p['requests']['memory']})" for p in pods)
    return {
        "pods": pods,
        "summary": f"nominated here by preemption and counted as running: {named}; "
        f"this pod (priority {qpi.pod.effective_priority()}) gets the room only "
        "once they are bound elsewhere or gone",
    }


def verdict_notes(rows: Sequence[Any]) -> str:
    """What the facts add to the verdict: pods nominated to rejected nodes, and each fact's own
    ``verdictNote`` (a cluster-wide blocker such as a ReadWriteOncePod claim), once each."""
    notes = [nominated_note(rows)]
    seen: set[str] = set()
    for row in rows:
        for facts in (row.details or {}).values():
            note = facts.get("verdictNote") if isinstance(facts, dict) else None
            if note and note not in seen:
                seen.add(note)
                notes.append(" " + note)
    return "".join(notes)


def nominated_note(rows: Sequence[Any]) -> str:
    """A sentence for the verdict when pods nominated to rejected nodes hold the room."""
    holders: dict[str, int] = {}  # nominated pod -> its priority
    nodes: list[str] = []
    for row in rows:
        facts = (row.details or {}).get("NominatedPods")
        if facts:
            nodes.append(row.name)
            for p in facts["pods"]:
                holders.setdefault(p["pod"], p["priority"])
    if not holders:
        return ""
    who = ", ".join(f"{k} (priority {v})" for k, v in holders.items())
    return (
        f" Pods nominated by preemption hold room on {len(nodes)} node(s) ({', '.join(nodes[:3])}"
        f"{' ...' if len(nodes) > 3 else ''}): {who}; kube counts them there until they are bound."
    )


def _pre_filter_result_details(qpi: QueuedPodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Any] | None:
    """Why a node no Filter ran on was left out: NodeAffinity's PreFilter result keeps only the
    nodes the pod names by matchFields metadata.name (nodeaffinity.go PreFilter), and a name
    the snapshot has no node of is said as such."""
    from kschedctl.cluster.references import required_node_names

    wanted = required_node_names(qpi.pod)
    if not wanted:
        return None
    present = {info.name for info in nodes}
    missing = [n for n in wanted if n not in present]
    summary = f"the pod requires one of the nodes {', '.join(wanted)} (matchFields metadata.name); this is none of them"
    if missing:
        summary += f"; no node {', '.join(missing)} in the snapshot"
    return {"NodeAffinity": {"wanted": wanted, "missing": missing, "summary": summary}}


__all__ = ["NodeTable"]
