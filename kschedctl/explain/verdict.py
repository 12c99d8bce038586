"""The answer first: one line saying why a pod fits nowhere, above kube's own message.

kube's FitError counts nodes per reason ("4 Insufficient cpu"); the verdict says what that
means for this pod: for a resource the pod's request, whether any node could hold it even empty
(its allocatable) or whether the request exceeds every node's allocatable (no node could ever
hold it), and whether preemption could help — said only when it could: the pod may preempt
(preemptionPolicy is not Never) and lower-priority pods run on nodes big enough for it.

`explain` and `schedule` give the same line for the same histogram. It is computed from the
histogram kube builds anyway and from ClusterFacts, built once per run from the nodes, so that
`schedule` pays for it only for the pods left unschedulable, once each, with memoised answers
for identical pods (replicas).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kschedctl.api.types import Pod
from kschedctl.framework.resource import Resource, compute_pod_resource_request
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins.details import format_quantity
from kschedctl.scheduler.result import NodeExplanation

INSUFFICIENT = "Insufficient "


def _amount(res: Resource, name: str) -> int:
    if name == "cpu":
        return res.milli_cpu
    if name == "memory":
        return res.memory
    if name == "ephemeral-storage":
        return res.ephemeral_storage
    return int(res.scalar_resources.get(name, 0))


@dataclass
class ClusterFacts:
    """What the verdict needs of the nodes: per node its allocatable and the lowest priority
    of the pods on it (None: no pod), read once."""

    nodes: list[tuple[Resource, int | None]]
    _sorted: dict[str, list[int]] = field(default_factory=dict)
    _memo: dict[tuple[object, ...], str] = field(default_factory=dict)

    @staticmethod
    def of(infos: Iterable[NodeInfo]) -> ClusterFacts:
        out = []
        for info in infos:
            prios = [p.pod.effective_priority() for p in info.pods]
            out.append((info.allocatable, min(prios) if prios else None))
        return ClusterFacts(out)

    def allocatables(self, name: str) -> list[int]:
        """Every node's allocatable of ``name``, sorted (for counting the nodes big enough)."""
        values = self._sorted.get(name)
        if values is None:
            values = self._sorted[name] = sorted(_amount(a, name) for a, _ in self.nodes)
        return values

    def big_enough(self, name: str, want: int) -> int:
        values = self.allocatables(name)
        return len(values) - bisect.bisect_left(values, want)

    def with_lower_priority(self, req: Resource, short: list[str], priority: int) -> int:
        """Nodes big enough (empty) for every short resource that run a pod of lower priority."""
        return sum(1 for alloc, low in self.nodes
                   if low is not None and low < priority and all(_amount(alloc, n) >= _amount(req, n) for n in short))


def verdict(pod: Pod, histogram: Mapping[str, int], num_nodes: int, facts: ClusterFacts) -> str:
    """The one-line answer for a pod no node fits (the same words in `explain` and `schedule`)."""
    key = (tuple(sorted(histogram.items())), num_nodes, pod.effective_priority(), pod.preemption_policy,
           _request_key(pod))
    cached = facts._memo.get(key)
    if cached is None:
        cached = facts._memo[key] = _verdict(pod, histogram, num_nodes, facts)
    return cached


def _request_key(pod: Pod) -> tuple[object, ...]:
    req = compute_pod_resource_request(pod)
    return (req.milli_cpu, req.memory, req.ephemeral_storage, tuple(sorted(req.scalar_resources.items())))


def _verdict(pod: Pod, histogram: Mapping[str, int], num_nodes: int, facts: ClusterFacts) -> str:
    req = compute_pod_resource_request(pod)
    ordered = sorted(histogram.items(), key=lambda kv: (-kv[1], kv[0]))
    short = [r[len(INSUFFICIENT):] for r, _ in ordered if r.startswith(INSUFFICIENT)]
    never = [n for n in short if facts.big_enough(n, _amount(req, n)) == 0]
    parts = []
    for reason, count in ordered:
        if not reason.startswith(INSUFFICIENT):
            parts.append(f"{count} {reason}")
            continue
        name = reason[len(INSUFFICIENT):]
        want = _amount(req, name)
        asks = f"the pod asks {format_quantity(name, want)} {name}"
        if name in never:
            largest = facts.allocatables(name)[-1] if facts.nodes else 0
            parts.append(f"{count} {reason} — {asks}, more than every node's allocatable "
                         f"(largest {format_quantity(name, largest)})")
        else:
            parts.append(f"{count} {reason} — {asks}, free now on none of these {count} node(s); "
                         f"{facts.big_enough(name, want)} node(s) have the allocatable for it (when empty)")
    head = f"{num_nodes} node(s), none fits: " + "; ".join(parts) + "."
    if never:
        return head + f" No node could ever hold it: its {' and '.join(never)} request exceeds every node's allocatable."
    if not short:
        return head
    return head + " " + _remedy(pod, req, short, facts)


def _remedy(pod: Pod, req: Resource, short: list[str], facts: ClusterFacts) -> str:
    """What would make room, said only when true of this pod and these nodes."""
    if pod.preemption_policy == "Never":
        return "More capacity (nodes, or fewer pods) could help; the pod never preempts (preemptionPolicy: Never)."
    lower = facts.with_lower_priority(req, short, pod.effective_priority())
    if lower == 0:
        return "More capacity (nodes, or fewer pods) could help; no node big enough for it runs a lower-priority pod to preempt."
    return (f"Preemption could help (lower-priority pods run on {lower} node(s) big enough for it), "
            f"or more nodes.")


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
        out += "; the others: " + ", ".join(f"{n} {reason}" for reason, n in
                                           sorted(histogram.items(), key=lambda kv: (-kv[1], kv[0])))
    return out


__all__ = ["ClusterFacts", "fits_verdict", "verdict"]


def group_verdict(min_count: int | None, policy: str, members: Sequence[dict]) -> str:
    """A pod group's answer first: the quorum it needs, how many members fit in its last cycle
    and where, and what blocks the rest (one clause per distinct message). ``members``: dicts
    with ``pod``, ``node`` (placed), ``feasibleNode`` (found a node, the group did not complete)
    and ``message``."""
    fit = [(m["pod"], m.get("node") or m.get("feasibleNode")) for m in members
           if m.get("node") or m.get("feasibleNode")]
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
        shown = ", ".join(pods[:3]) + (f" and {len(pods) - 3} more" if len(pods) > 3 else "")
        out += f"; {len(pods)} fit nowhere ({shown}): {message.rstrip('.')}"
    if policy == "gang" and min_count and len(fit) < min_count:
        out += f"; {min_count - len(fit)} more must fit before any member is bound"
    return out
