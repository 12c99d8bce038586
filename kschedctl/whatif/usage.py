"""How full each node is after a run: requested vs allocatable per node, zone and node pool, and
the packing measures `diff` compares (nodes used, empty nodes, utilisation mean and spread,
fragmentation).

Requested amounts are the scheduler's own (NodeInfo.requested, kept by the cache as pods are
added and removed), so these numbers are exactly what NodeResourcesFit saw. Units are the
scheduler's: cpu in millicores, memory and every other resource in its base unit (bytes for
memory, hugepages and ephemeral storage, a count for extended resources).

Definitions (README, "Packing measures"):
- a node is *used* when it hosts at least one pod that no DaemonSet owns (DaemonSet pods run on
  every node whatever the packing, as cluster-autoscaler's scale-down ignores them); *empty*
  otherwise;
- *utilisation* of a resource on a node is requested / allocatable (0 when the node offers
  none); the mean and the population standard deviation are over all nodes;
- *fragmentation* of a resource is the share of the free amount on used nodes that sits on nodes
  where no pending pod shape fits: a node's free vector (allocatable - requested, per resource,
  plus one free pod slot) admits a shape when every amount the shape requests is available.
  Shapes are the distinct request vectors of the run's pending pods; only resources count here
  (not taints, affinity or ports). ``None`` when there are no pending pods, or no free amount.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.resource import CPU, EPHEMERAL_STORAGE, MEMORY, compute_pod_resource_request
from kschedctl.framework.types import NodeInfo

ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
# Labels cloud providers and provisioners put on nodes to name their pool, in order of preference.
POOL_LABELS = (
    "cloud.google.com/gke-nodepool",
    "eks.amazonaws.com/nodegroup",
    "karpenter.sh/nodepool",
    "kubernetes.azure.com/agentpool",
    "agentpool",
    "node-pool",
    "nodepool",
)
MAIN_RESOURCES = (CPU, MEMORY)


@dataclass
class NodeUsage:
    """One node after the run."""

    name: str
    zone: str
    pool: str
    allocatable: dict[str, int]
    requested: dict[str, int]
    pods: int
    allowed_pods: int
    workload_pods: int  # pods no DaemonSet owns
    unschedulable: bool = False

    def free(self, resource: str) -> int:
        return self.allocatable.get(resource, 0) - self.requested.get(resource, 0)

    def utilisation(self, resource: str) -> float:
        alloc = self.allocatable.get(resource, 0)
        return self.requested.get(resource, 0) / alloc if alloc > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "zone": self.zone}
        if self.pool:
            out["pool"] = self.pool
        out.update(
            {"requested": dict(self.requested), "allocatable": dict(self.allocatable), "pods": self.pods, "allowedPods": self.allowed_pods}
        )
        if self.unschedulable:
            out["unschedulable"] = True
        return out


@dataclass
class GroupUsage:
    """The nodes of one zone (or pool), summed."""

    name: str
    nodes: int
    allocatable: dict[str, int]
    requested: dict[str, int]
    pods: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "nodes": self.nodes,
            "requested": dict(self.requested),
            "allocatable": dict(self.allocatable),
            "pods": self.pods,
        }


@dataclass
class PackingMeasures:
    nodes: int
    nodes_used: int
    empty_nodes: int
    utilisation_mean: dict[str, float]
    utilisation_stddev: dict[str, float]
    fragmentation: dict[str, float | None]
    stranded: dict[str, int]  # the free amounts on used nodes where no pending shape fits
    shapes: int  # distinct pending pod shapes the fragmentation was measured against

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "nodesUsed": self.nodes_used,
            "emptyNodes": self.empty_nodes,
            "utilisationMean": {k: _round(v) for k, v in self.utilisation_mean.items()},
            "utilisationStddev": {k: _round(v) for k, v in self.utilisation_stddev.items()},
            "fragmentation": {k: None if v is None else _round(v) for k, v in self.fragmentation.items()},
            "stranded": dict(self.stranded),
            "pendingShapes": self.shapes,
        }


@dataclass
class ClusterUsage:
    nodes: list[NodeUsage] = field(default_factory=list)

    def resources(self) -> list[str]:
        """cpu, memory, then the extended resources (and hugepages) some node offers or some pod
        requests, sorted; ephemeral-storage only when some pod requests it."""
        others = {r for n in self.nodes for r in (*n.allocatable, *n.requested)} - set(MAIN_RESOURCES)
        if not any(n.requested.get(EPHEMERAL_STORAGE) for n in self.nodes):
            others.discard(EPHEMERAL_STORAGE)
        return [*MAIN_RESOURCES, *sorted(others)]

    def by_zone(self) -> list[GroupUsage]:
        return _group(self.nodes, lambda n: n.zone)

    def by_pool(self) -> list[GroupUsage]:
        return _group(self.nodes, lambda n: n.pool)

    def grouping(self) -> tuple[str, list[GroupUsage]]:
        """Zones when the nodes have them, else pools, else one group: what a chart groups by."""
        if any(n.zone for n in self.nodes):
            return "zone", self.by_zone()
        if any(n.pool for n in self.nodes):
            return "pool", self.by_pool()
        return "cluster", self.by_zone()

    def packing(self, shapes: Iterable[Mapping[str, int]] | None) -> PackingMeasures:
        resources = self.resources()
        used = [n for n in self.nodes if n.workload_pods > 0]
        count = len(self.nodes)
        mean: dict[str, float] = {}
        stddev: dict[str, float] = {}
        for r in resources:
            values = [n.utilisation(r) for n in self.nodes]
            m = sum(values) / count if count else 0.0
            mean[r] = m
            stddev[r] = math.sqrt(sum((v - m) ** 2 for v in values) / count) if count else 0.0
        shape_list = _distinct(shapes) if shapes is not None else []
        frag: dict[str, float | None] = {}
        stranded: dict[str, int] = {r: 0 for r in resources}
        free_total: dict[str, int] = {r: 0 for r in resources}
        for n in used:
            fits = n.pods < n.allowed_pods and any(_admits(n, s) for s in shape_list)
            for r in resources:
                free = max(n.free(r), 0)
                free_total[r] += free
                if not fits:
                    stranded[r] += free
        for r in resources:
            frag[r] = None if not shape_list or free_total[r] == 0 else stranded[r] / free_total[r]
        return PackingMeasures(count, len(used), count - len(used), mean, stddev, frag, stranded if shape_list else {}, len(shape_list))


def pod_shape(pod: Pod) -> dict[str, int]:
    """The pod's effective request in scheduler units (what NodeResourcesFit checks), nonzero only."""
    return {k: v for k, v in compute_pod_resource_request(pod).as_dict().items() if v}


def cluster_usage(nodes: Mapping[str, NodeInfo]) -> ClusterUsage:
    """Every node of a cache (``Scheduler.cache.nodes``) as it is now, sorted by name."""
    out = []
    for name in sorted(nodes):
        info = nodes[name]
        if info.node is None:
            continue  # pods bound to a node the snapshot lacks
        labels = info.node.labels
        out.append(
            NodeUsage(
                name=name,
                zone=next((labels[k] for k in ZONE_LABELS if labels.get(k)), ""),
                pool=next((labels[k] for k in POOL_LABELS if labels.get(k)), ""),
                allocatable=_amounts(info.allocatable.as_dict()),
                requested=_amounts(info.requested.as_dict()),
                pods=len(info.pods),
                allowed_pods=info.allocatable.allowed_pod_number,
                workload_pods=sum(1 for p in info.pods if not _daemon_set_pod(p.pod)),
                unschedulable=bool(getattr(info.node, "unschedulable", False)),
            )
        )
    return ClusterUsage(out)


def _amounts(values: Mapping[str, int]) -> dict[str, int]:
    """cpu and memory always, other resources when nonzero."""
    return {k: int(v) for k, v in values.items() if v or k in MAIN_RESOURCES}


def _daemon_set_pod(pod: Pod) -> bool:
    return any(isinstance(o, dict) and o.get("kind") == "DaemonSet" for o in pod.meta.owner_references)


def _admits(node: NodeUsage, shape: Mapping[str, int]) -> bool:
    return all(amount <= node.free(r) for r, amount in shape.items())


def _distinct(shapes: Iterable[Mapping[str, int]]) -> list[dict[str, int]]:
    seen: dict[tuple[tuple[str, int], ...], dict[str, int]] = {}
    for s in shapes:
        seen.setdefault(tuple(sorted(s.items())), dict(s))
    return list(seen.values())


def _group(nodes: list[NodeUsage], key: Any) -> list[GroupUsage]:
    groups: dict[str, GroupUsage] = {}
    for n in nodes:
        name = key(n)
        g = groups.get(name)
        if g is None:
            g = groups[name] = GroupUsage(name, 0, {}, {}, 0)
        g.nodes += 1
        g.pods += n.pods
        for r, v in n.allocatable.items():
            g.allocatable[r] = g.allocatable.get(r, 0) + v
        for r, v in n.requested.items():
            g.requested[r] = g.requested.get(r, 0) + v
    return [groups[k] for k in sorted(groups)]


def _round(value: float) -> float:
    return round(value, 4)
