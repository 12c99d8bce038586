"""What a run records about a pod no node fits: the counts behind the verdict, not its words.

kube's FitError counts nodes per reason ("4 Insufficient cpu"). For each resource the pod is
short of, the run also counts what the verdict needs: the pod's request, how many nodes could
hold it even empty (their allocatable), the largest allocatable, and, when preemption could be
the remedy, on how many nodes big enough for it a lower-priority pod runs. The words are
explain's (kschedctl/explain/verdict.py), shared by `explain` and `schedule`'s `diagnosis`: the
scheduler records, the layers above it say.

ClusterFacts is built once per run from the nodes, so that `schedule` pays for the counts only
for the pods left unschedulable, once each, memoised for identical pods (replicas).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kschedctl.api.types import Pod
from kschedctl.framework.resource import Resource, compute_pod_resource_request
from kschedctl.framework.types import NodeInfo

INSUFFICIENT = "Insufficient "


def amount(res: Resource, name: str) -> int:
    """One resource of a Resource, by its name as the FitError reason spells it."""
    if name == "cpu":
        return res.milli_cpu
    if name == "memory":
        return res.memory
    if name == "ephemeral-storage":
        return res.ephemeral_storage
    return int(res.scalar_resources.get(name, 0))


@dataclass
class ClusterFacts:
    """What the counts need of the nodes: per node its allocatable and the lowest priority
    of the pods on it (None: no pod), read once."""

    nodes: list[tuple[Resource, int | None]]
    _sorted: dict[str, list[int]] = field(default_factory=dict)
    _memo: dict[tuple[object, ...], Shortfall] = field(default_factory=dict)

    @staticmethod
    def of(infos: Iterable[NodeInfo]) -> ClusterFacts:
        out = []
        for info in infos:
            prios = [p.priority for p in info.pods]
            out.append((info.allocatable, min(prios) if prios else None))
        return ClusterFacts(out)

    def allocatables(self, name: str) -> list[int]:
        """Every node's allocatable of ``name``, sorted (for counting the nodes big enough)."""
        values = self._sorted.get(name)
        if values is None:
            values = self._sorted[name] = sorted(amount(a, name) for a, _ in self.nodes)
        return values

    def big_enough(self, name: str, want: int) -> int:
        values = self.allocatables(name)
        return len(values) - bisect.bisect_left(values, want)

    def with_lower_priority(self, req: Resource, short: list[str], priority: int) -> int:
        """Nodes big enough (empty) for every short resource that run a pod of lower priority."""
        return sum(
            1 for alloc, low in self.nodes if low is not None and low < priority and all(amount(alloc, n) >= amount(req, n) for n in short)
        )


@dataclass(frozen=True)
class Short:
    """One resource the pod is short of: its request, the nodes big enough for it when
    empty, and the largest allocatable of all."""

    want: int
    big_enough: int
    largest: int


@dataclass(frozen=True)
class Shortfall:
    """The counts behind the verdict of one pod no node fits."""

    num_nodes: int
    reasons: tuple[tuple[str, int], ...]  # kube's histogram, most nodes first, then by reason
    short: dict[str, Short]  # by resource name, for each "Insufficient <name>" reason
    never: tuple[str, ...]  # the short resources no node could ever hold (request > every allocatable)
    never_preempts: bool  # preemptionPolicy: Never
    lower_priority: int  # nodes big enough for it running a lower-priority pod (0 unless asked)
    cluster_nodes: int = 0  # the nodes of the cluster (a FitError of fewer is a one-node wrap)


def count_shortfall(pod: Pod, histogram: Mapping[str, int], num_nodes: int, facts: ClusterFacts) -> Shortfall:
    """The counts for a pod no node fits, memoised per identical pod and histogram."""
    key = (tuple(sorted(histogram.items())), num_nodes, pod.effective_priority(), pod.preemption_policy, _request_key(pod))
    cached = facts._memo.get(key)
    if cached is None:
        cached = facts._memo[key] = _count(pod, histogram, num_nodes, facts)
    return cached


def _request_key(pod: Pod) -> tuple[object, ...]:
    req = compute_pod_resource_request(pod)
    return (req.milli_cpu, req.memory, req.ephemeral_storage, tuple(sorted(req.scalar_resources.items())))


def _count(pod: Pod, histogram: Mapping[str, int], num_nodes: int, facts: ClusterFacts) -> Shortfall:
    req = compute_pod_resource_request(pod)
    ordered = tuple(sorted(histogram.items(), key=lambda kv: (-kv[1], kv[0])))
    names = [r[len(INSUFFICIENT) :] for r, _ in ordered if r.startswith(INSUFFICIENT)]
    short = {}
    for name in names:
        want = amount(req, name)
        short[name] = Short(want, facts.big_enough(name, want), facts.allocatables(name)[-1] if facts.nodes else 0)
    never = tuple(n for n in names if short[n].big_enough == 0)
    never_preempts = pod.preemption_policy == "Never"
    lower = 0
    if names and not never and not never_preempts:
        lower = facts.with_lower_priority(req, names, pod.effective_priority())
    return Shortfall(num_nodes, ordered, short, never, never_preempts, lower, len(facts.nodes))


__all__ = ["ClusterFacts", "Short", "Shortfall", "amount", "count_shortfall"]
