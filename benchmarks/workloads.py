"""Seeded workload generator shaped like kube-scheduler's scheduler_perf suite.

Upstream: test/integration/scheduler_perf/config/performance-config.yaml and its templates
(node-default.yaml: 110 pods, 4 cpu, 32Gi; pod-default.yaml: 100m cpu, 500Mi memory;
pod-with-pod-anti-affinity.yaml, pod-with-node-affinity.yaml,
pod-with-topology-spreading.yaml, pod-with-preferred-topology-spreading.yaml,
pod-low-priority.yaml / pod-high-priority.yaml). Each workload is a list of raw Kubernetes
objects (dicts) built in memory: nodes, ``init`` pods already bound (as the cluster state
scheduler_perf creates before measuring) and ``measured`` pods left pending. Nothing large is
committed: the same seed gives the same objects.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"


@dataclass
class Workload:
    name: str
    nodes: int
    objects: list[dict] = field(default_factory=list)
    measured: int = 0
    init: int = 0

    def as_list(self) -> dict:
        """One `kind: List` document, as `kubectl get -o yaml` prints."""
        return {"apiVersion": "v1", "kind": "List", "items": self.objects}


# --- object templates ------------------------------------------------------------------------


def node(
    i: int, zones: int = 3, cpu: str = "4", memory: str = "32Gi", pods: int = 110, labels: dict | None = None, taints: list | None = None
) -> dict:
    name = f"node-{i}"
    lab = {HOSTNAME: name, ZONE: f"zone-{i % zones}"}
    lab.update(labels or {})
    spec: dict = {}
    if taints:
        spec["taints"] = taints
    alloc = {"cpu": cpu, "memory": memory, "pods": str(pods)}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": lab},
        "spec": spec,
        "status": {
            "capacity": dict(alloc),
            "allocatable": alloc,
            "images": [{"names": [f"registry.k8s.io/pause:3.{i % 10}"], "sizeBytes": 300_000_000}],
        },
    }


def pod(
    name: str,
    *,
    cpu: str = "100m",
    memory: str = "500Mi",
    node_name: str | None = None,
    labels: dict | None = None,
    affinity: dict | None = None,
    spread: list | None = None,
    priority_class: str | None = None,
    image: str = "registry.k8s.io/pause:3.9",
    ns: str = "default",
    stamp: int = 0,
) -> dict:
    spec: dict = {"containers": [{"name": "pause", "image": image, "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}
    if node_name:
        spec["nodeName"] = node_name
    if affinity:
        spec["affinity"] = affinity
    if spread:
        spec["topologySpreadConstraints"] = spread
    if priority_class:
        spec["priorityClassName"] = priority_class
    md = {
        "name": name,
        "namespace": ns,
        "uid": f"uid-{ns}-{name}",
        "labels": labels or {"app": "bench"},
        "creationTimestamp": f"2024-01-01T00:{stamp // 60 % 60:02d}:{stamp % 60:02d}Z",
    }
    status = {"phase": "Running"} if node_name else {"phase": "Pending"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status}


def priority_class(name: str, value: int) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}


def _bound(n_nodes: int, count: int, make: Callable[[int, str], dict]) -> list[dict]:
    """``count`` init pods spread round-robin over the nodes (what scheduling them would give)."""
    return [make(i, f"node-{i % n_nodes}") for i in range(count)]


# --- workloads -------------------------------------------------------------------------------


def scheduling_basic(nodes: int, measured: int, init: int | None = None, seed: int = 1) -> Workload:
    init = nodes if init is None else init
    w = Workload("SchedulingBasic", nodes, measured=measured, init=init)
    w.objects += [node(i) for i in range(nodes)]
    w.objects += _bound(nodes, init, lambda i, n: pod(f"init-{i}", node_name=n))
    w.objects += [pod(f"m-{i}") for i in range(measured)]
    return w


def scheduling_pod_anti_affinity(nodes: int, measured: int, seed: int = 1) -> Workload:
    """Every pod repels pods of its own colour on the same host (pod-with-pod-anti-affinity.yaml)."""
    init = min(nodes // 5, 1000)
    w = Workload("SchedulingPodAntiAffinity", nodes, measured=measured, init=init)
    w.objects += [node(i) for i in range(nodes)]

    def aa(color: str) -> dict:
        return {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"color": color}}, "topologyKey": HOSTNAME}
                ]
            }
        }

    w.objects += _bound(nodes, init, lambda i, n: pod(f"init-{i}", node_name=n, labels={"color": "green"}, affinity=aa("green")))
    w.objects += [pod(f"m-{i}", labels={"color": "blue"}, affinity=aa("blue")) for i in range(measured)]
    return w


def scheduling_node_affinity(nodes: int, measured: int, seed: int = 1) -> Workload:
    """Pods require zone-0 or zone-1 through nodeAffinity (pod-with-node-affinity.yaml)."""
    w = Workload("SchedulingNodeAffinity", nodes, measured=measured, init=nodes)
    w.objects += [node(i, labels={"bench/group": f"g{i % 4}"}) for i in range(nodes)]
    w.objects += _bound(nodes, nodes, lambda i, n: pod(f"init-{i}", node_name=n))
    aff = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["zone-0", "zone-1"]}]}]
            }
        }
    }
    w.objects += [pod(f"m-{i}", affinity=aff) for i in range(measured)]
    return w


def _spread(when: str) -> list:
    return [{"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": when, "labelSelector": {"matchLabels": {"color": "blue"}}}]


def topology_spreading(nodes: int, measured: int, seed: int = 1) -> Workload:
    w = Workload("TopologySpreading", nodes, measured=measured, init=nodes)
    w.objects += [node(i) for i in range(nodes)]
    w.objects += _bound(nodes, nodes, lambda i, n: pod(f"init-{i}", node_name=n))
    w.objects += [pod(f"m-{i}", labels={"color": "blue"}, spread=_spread("DoNotSchedule")) for i in range(measured)]
    return w


def preferred_topology_spreading(nodes: int, measured: int, seed: int = 1) -> Workload:
    w = Workload("PreferredTopologySpreading", nodes, measured=measured, init=nodes)
    w.objects += [node(i) for i in range(nodes)]
    w.objects += _bound(nodes, nodes, lambda i, n: pod(f"init-{i}", node_name=n))
    w.objects += [pod(f"m-{i}", labels={"color": "blue"}, spread=_spread("ScheduleAnyway")) for i in range(measured)]
    return w


def preemption(nodes: int, measured: int, seed: int = 1) -> Workload:
    """Nodes full of low-priority pods (4 x 900m cpu of 4 cpu); high-priority pods must preempt."""
    init = nodes * 4
    w = Workload("Preemption", nodes, measured=measured, init=init)
    w.objects += [priority_class("low", 10), priority_class("high", 1000)]
    w.objects += [node(i) for i in range(nodes)]
    w.objects += _bound(nodes, init, lambda i, n: pod(f"low-{i}", node_name=n, cpu="900m", priority_class="low"))
    w.objects += [pod(f"m-{i}", cpu="900m", priority_class="high") for i in range(measured)]
    return w


def mixed(nodes: int, measured: int, seed: int = 1) -> Workload:
    """A realistic mix: sized pods, a few tainted and labelled node pools, some affinity and spread."""
    rng = random.Random(seed)
    w = Workload("Mixed", nodes, measured=measured, init=nodes * 3)
    gpu_taint = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    for i in range(nodes):
        pool = "gpu" if i % 20 == 0 else ("big" if i % 5 == 0 else "general")
        cpu, mem = {"gpu": ("32", "128Gi"), "big": ("16", "64Gi"), "general": ("8", "32Gi")}[pool]
        w.objects.append(node(i, cpu=cpu, memory=mem, labels={"pool": pool}, taints=gpu_taint if pool == "gpu" else None))
    sizes = [("100m", "128Mi"), ("250m", "512Mi"), ("500m", "1Gi"), ("1", "2Gi")]
    for i in range(w.init):
        cpu, mem = rng.choice(sizes)
        w.objects.append(pod(f"init-{i}", cpu=cpu, memory=mem, node_name=f"node-{i % nodes}", labels={"app": f"app-{i % 50}"}))
    for i in range(measured):
        cpu, mem = rng.choice(sizes)
        kind = rng.random()
        app = f"app-{rng.randrange(50)}"
        kw: dict = {"labels": {"app": app}}
        if kind < 0.15:
            kw["affinity"] = {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["big", "general"]}]}]
                    }
                }
            }
        elif kind < 0.25:
            kw["spread"] = [
                {"maxSkew": 3, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": app}}}
            ]
        elif kind < 0.30:
            kw["affinity"] = {
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": HOSTNAME}}
                    ]
                }
            }
        w.objects.append(pod(f"m-{i}", cpu=cpu, memory=mem, **kw))
    return w


def memory_check(nodes: int = 5000, bound: int = 50000, measured: int = 1000) -> Workload:
    """The memory target: 5000 nodes and 50000 bound pods, then a few measured pods."""
    w = scheduling_basic(nodes, measured, init=bound)
    w.name = "Memory"
    return w


WORKLOADS: dict[str, Callable[..., Workload]] = {
    "SchedulingBasic": scheduling_basic,
    "SchedulingPodAntiAffinity": scheduling_pod_anti_affinity,
    "SchedulingNodeAffinity": scheduling_node_affinity,
    "TopologySpreading": topology_spreading,
    "PreferredTopologySpreading": preferred_topology_spreading,
    "Preemption": preemption,
    "Mixed": mixed,
}

# measured pods per (workload, nodes), scaled down from scheduler_perf so a full run takes minutes
MEASURED = {500: 1000, 5000: 2000}
MEASURED_OVERRIDES = {
    ("SchedulingBasic", 5000): 10000,
    ("Preemption", 500): 200,
    ("Preemption", 5000): 200,
    ("SchedulingPodAntiAffinity", 5000): 1000,
}


def measured_pods(name: str, nodes: int, quick: bool = False) -> int:
    n = MEASURED_OVERRIDES.get((name, nodes), MEASURED.get(nodes, max(1000, nodes // 5)))
    return max(50, n // 10) if quick else n


def make(name: str, nodes: int, measured: int | None = None, seed: int = 1) -> Workload:
    fn = WORKLOADS[name]
    return fn(nodes, measured if measured is not None else measured_pods(name, nodes), seed=seed)
