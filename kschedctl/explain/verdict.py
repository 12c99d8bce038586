"""The answer first: one line saying why a pod fits nowhere, above kube's own message.

kube's FitError counts nodes per reason ("4 Insufficient cpu"); the verdict says what that
means for this pod: for a resource the pod's request, whether any node could hold it even empty
(its allocatable) or whether the request exceeds every node's allocatable (no node could ever
hold it), and whether preemption could help — said only when it could: the pod may preempt
(preemptionPolicy is not Never) and lower-priority pods run on nodes big enough for it.

`explain` and `schedule` give the same line for the same histogram.
The counts are the run's (kschedctl/scheduler/shortfall.py, recorded on each Unschedulable);
the words are said here, for `explain` and for `schedule`'s results alike (`word_run`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.types import Pod
from kschedctl.cluster.references import first_names
from kschedctl.plugins.details import format_quantity
from kschedctl.scheduler.result import NodeExplanation, RunResult
from kschedctl.scheduler.shortfall import INSUFFICIENT, ClusterFacts, Shortfall, count_shortfall


def verdict(pod: Pod, histogram: Mapping[str, int], num_nodes: int, facts: ClusterFacts) -> str:
    """The one-line answer for a pod no node fits (the same words in `explain` and `schedule`)."""
    return word(count_shortfall(pod, histogram, num_nodes, facts))


def word_run(run: RunResult) -> RunResult:
    """Each unschedulable pod's `diagnosis`, worded from the counts its run recorded (once per
    distinct count: replicas share theirs)."""
    said: dict[int, str] = {}
    for u in run.unschedulable:
        if u.shortfall is not None and u.diagnosis is None:
            key = id(u.shortfall)
            if key not in said:
                said[key] = word(u.shortfall)
            u.diagnosis = said[key]
    return run


def word(s: Shortfall) -> str:
    parts = []
    for reason, count in s.reasons:
        if not reason.startswith(INSUFFICIENT):
            parts.append(f"{count} {reason}")
            continue
        name = reason[len(INSUFFICIENT) :]
        short = s.short[name]
        asks = f"the pod asks {format_quantity(name, short.want)} {name}"
        if name in s.never:
            parts.append(f"{count} {reason} — {asks}, more than every node's allocatable (largest {format_quantity(name, short.largest)})")
        else:
            parts.append(
                f"{count} {reason} — {asks}, free now on none of these {count} node(s); "
                f"{short.big_enough} node(s) have the allocatable for it (when empty)"
            )
    if s.num_nodes == 1 and s.cluster_nodes > 1 and not s.short:
        # kube wraps a rejection at Permit (or in the binding cycle) as a FitError of one node
        # (schedule_one.go): the pod had found a node; "1 node(s)" would read as the cluster's size
        return (
            "rejected after a node was found for it, at Permit or while binding (kube reports that as "
            f"a FitError of 1 node, of {s.cluster_nodes}): " + "; ".join(parts) + "."
        )
    head = f"{s.num_nodes} node(s), none fits: " + "; ".join(parts) + "."
    if s.never:
        return head + f" No node could ever hold it: its {' and '.join(s.never)} request exceeds every node's allocatable."
    if not s.short:
        return head
    return head + " " + _remedy(s)


def _remedy(s: Shortfall) -> str:
    """What would make room, said only when true of this pod and these nodes."""
    if s.never_preempts:
        return "More capacity (nodes, or fewer pods) could help; the pod never preempts (preemptionPolicy: Never)."
    if s.lower_priority == 0:
        return "More capacity (nodes, or fewer pods) could help; no node big enough for it runs a lower-priority pod to preempt."
    return f"Preemption could help (lower-priority pods run on {s.lower_priority} node(s) big enough for it), or more nodes."


def fits_verdict(rows: Sequence[NodeExplanation]) -> str:
    """The answer for a pod that fits: on how many nodes, and what kept it off the others
    (their reasons counted as kube's FitError counts them)."""
    fit = sum(1 for r in rows if r.code == "Success")
    histogram: dict[str, int] = {}
    for r in rows:
        if r.code not in ("Success", "NotEvaluated"):
            for reason in r.reasons:
                histogram[reason] = histogram.get(reason, 0) + 1
    out = f"fits {fit} of {len(rows)} node(s)"
    if histogram:
        out += "; the others: " + ", ".join(f"{n} {reason}" for reason, n in sorted(histogram.items(), key=lambda kv: (-kv[1], kv[0])))
    return out


__all__ = ["fits_verdict", "group_verdict", "verdict", "word", "word_coscheduling_groups", "word_run"]


def group_verdict(min_count: int | None, policy: str, members: Sequence[JSONObject]) -> str:
    """A pod group's answer first: the quorum it needs, how many members fit in its last cycle
    and where, and what blocks the rest (one clause per distinct message). ``members``: dicts
    with ``pod``, ``node`` (placed), ``feasibleNode`` (found a node, the group did not complete)
    and ``message``."""
    fit = [(m["pod"], m.get("node") or m.get("feasibleNode")) for m in members if m.get("node") or m.get("feasibleNode")]
    blocked: dict[str, list[str]] = {}
    for m in members:
        if not (m.get("node") or m.get("feasibleNode")):
            blocked.setdefault(str(m.get("message") or "not evaluated"), []).append(m["pod"])
    where = ", ".join(f"{pod} on {node}" for pod, node in fit[:4]) + (", ..." if len(fit) > 4 else "")
    need = f"the group needs {min_count} (minCount)" if policy == "gang" and min_count else "a basic group"
    out = f"{need}; {len(fit)} of {len(members)} member(s) fit" + (f" ({where})" if fit else "")
    for message, pods in blocked.items():
        if policy == "gang" and message.startswith("minCount"):
            continue  # the group's own verdict, already said by the counts
        shown = first_names(pods)
        out += f"; {len(pods)} fit nowhere ({shown}): {message.rstrip('.')}"
    if policy == "gang" and min_count and len(fit) < min_count:
        out += f"; {min_count - len(fit)} more must fit before any member is bound"
    return out


COSCHEDULING_LABEL = "scheduling.x-k8s.io/pod-group"


def word_coscheduling_groups(run: RunResult, cluster: Any) -> RunResult:
    """For scheduler-plugins' PodGroups (the Coscheduling package; scheduling.x-k8s.io), each
    unschedulable member's diagnosis states the group's quorum, how many members found a node
    and waited at Permit (rejected there when the group could not complete), and what keeps the
    others from any node. The package reports no group of its own; this is read from the run's
    record and the snapshot's PodGroup objects (spec.minMember)."""
    from kschedctl.framework.podgroup import X_K8S_POD_GROUP_KIND

    groups = {key: obj for (kind, key), obj in (cluster.objects.pod_groups or {}).items() if kind == X_K8S_POD_GROUP_KIND}
    if not groups:
        return run
    member_of = {p.key: f"{p.namespace}/{p.labels[COSCHEDULING_LABEL]}" for p in cluster.pods if COSCHEDULING_LABEL in p.labels}
    by_group: dict[str, list[Any]] = {}
    for u in run.unschedulable:
        group = member_of.get(u.pod)
        if group is not None and group in groups:
            by_group.setdefault(group, []).append(u)
    placed = {p.pod for p in run.placements}
    for group, members in by_group.items():
        spec = groups[group].raw.get("spec") or {}
        need = spec.get("minMember") if isinstance(spec.get("minMember"), int) else None
        waited = [u for u in members if u.message.startswith("0/1 nodes are available")]
        nowhere = [u for u in members if u not in waited]
        bound = sum(1 for key, g in member_of.items() if g == group and key in placed)
        text = f"pod group {group} needs {need} (minMember)" if need else f"pod group {group}"
        text += f"; {bound} placed, {len(waited)} found a node and waited at Permit"
        if nowhere:
            shown = first_names([u.pod for u in nowhere])
            text += f"; {len(nowhere)} fit nowhere ({shown}): {nowhere[0].message.split('. ')[0].rstrip('.')}"
        if need and bound + len(waited) < need:
            text += f"; {need - bound - len(waited)} more must find a node before the group is bound"
        for u in members:
            u.diagnosis = text + (f". This pod: {u.diagnosis}" if u.diagnosis else "")
    return run
