"""scheduler_perf's test cases as snapshot files both kube-scheduler and kschedctl read.

Upstream: kubernetes/kubernetes test/integration/scheduler_perf: misc/, affinity/,
topology_spreading/ and default_preemption/performance-config.yaml (test cases, sizes) and
templates/ (node-default.yaml: 110 pods, 4 cpu, 32Gi; pod-default.yaml: 100m cpu, 500Mi;
pod-with-pod-anti-affinity.yaml, pod-with-node-affinity.yaml, pod-with-topology-spreading.yaml,
pod-with-preferred-topology-spreading.yaml; pod-low-priority.yaml: 900m cpu, priority 0;
pod-high-priority.yaml: 3000m cpu, priority 10).

Unlike workloads.py (init pods pre-bound, for kschedctl's own pods/s figures), these files are
what scheduler_perf feeds the scheduler: the init pods are *pending* and come first in the file
(queue order = file order: equal priority, no creationTimestamp), so kube-scheduler's bench
schedules them as its warmup and kschedctl schedules them too; both do the same work. The one
exception is PreemptionBasic: its high-priority pods would jump the queue ahead of the
low-priority ones, so the low-priority pods are written bound (four per node, 3.6 of 4 cpu),
the state scheduler_perf waits for before it creates the preemptors.

Each file is one JSON `kind: List`, one object per line.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
# k8s.io/apimachinery/pkg/util/rand's alphabet: scheduler_perf's nodes are generateName'd
# "scheduler-perf-" + rand.String(5).
RAND_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

# The configuration scheduler_perf runs: the default one (one profile, default plugins).
DEFAULT_CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
# scheduler_perf runs the default configuration: one profile (default-scheduler),
# default plugins and weights, percentageOfNodesToScore unset (adaptive).
"""


@dataclass(frozen=True)
class Shape:
    """One scheduler_perf test case: its nodes' zones and its init and measured pod templates."""

    case: str
    zones: tuple[str, ...]
    init_template: str
    measure_template: str
    init_ns: str
    measure_ns: str
    init_bound: bool = False


SHAPES: dict[str, Shape] = {
    "SchedulingBasic": Shape("SchedulingBasic", (), "default", "default", "namespace-1", "namespace-2"),
    "SchedulingNodeAffinity": Shape("SchedulingNodeAffinity", ("zone1",), "node-affinity", "node-affinity", "namespace-1", "namespace-2"),
    "SchedulingPodAntiAffinity": Shape("SchedulingPodAntiAffinity", (), "anti-affinity", "anti-affinity", "sched-0", "sched-1"),
    "TopologySpreading": Shape(
        "TopologySpreading", ("moon-1", "moon-2", "moon-3"), "default", "topology-spreading", "namespace-1", "namespace-2"
    ),
    "PreferredTopologySpreading": Shape(
        "PreferredTopologySpreading",
        ("moon-1", "moon-2", "moon-3"),
        "default",
        "preferred-topology-spreading",
        "namespace-1",
        "namespace-2",
    ),
    "PreemptionBasic": Shape("PreemptionBasic", (), "low-priority", "high-priority", "namespace-1", "namespace-2", init_bound=True),
}


@dataclass(frozen=True)
class Case:
    """One file of the side-by-side run: a shape at a size (nodes, init pods, measured pods)."""

    shape: str
    nodes: int
    init: int
    measure: int
    provenance: str

    @property
    def name(self) -> str:
        return f"{self.shape}_{self.nodes}Nodes_{self.init}Init_{self.measure}Pods"

    @property
    def label(self) -> str:
        """The table's first column: workload (nodes, init + measured pods)."""
        return f"{self.shape} ({self.nodes:,} nodes, {self.init:,} + {self.measure:,} pods)"

    @property
    def warmup(self) -> int:
        """kube's `-warmup`: the pending init pods (none when they are written bound)."""
        return 0 if SHAPES[self.shape].init_bound else self.init


def _upstream(path: str, workload: str) -> str:
    return f"upstream {path} {workload}"


# The final table's workloads (scheduler_perf performance-config.yaml sizes).
CASES: tuple[Case, ...] = (
    Case("SchedulingBasic", 500, 500, 1000, _upstream("misc/performance-config.yaml", "SchedulingBasic/500Nodes")),
    Case("SchedulingBasic", 5000, 1000, 10000, _upstream("misc/performance-config.yaml", "SchedulingBasic/5000Nodes_10000Pods")),
    Case("SchedulingBasic", 15000, 1000, 10000, "not upstream: 5000Nodes_10000Pods pod counts on 15000 nodes"),
    Case("SchedulingBasic", 5000, 5000, 50000, _upstream("misc/performance-config.yaml", "SchedulingBasic/5000Nodes_50000Pods")),
    Case(
        "SchedulingNodeAffinity",
        5000,
        5000,
        10000,
        _upstream("affinity/performance-config.yaml", "SchedulingNodeAffinity/5000Nodes_10000Pods"),
    ),
    Case(
        "SchedulingPodAntiAffinity",
        5000,
        1000,
        2000,
        _upstream("affinity/performance-config.yaml", "SchedulingPodAntiAffinity/5000Nodes_2000Pods"),
    ),
    Case(
        "TopologySpreading",
        5000,
        5000,
        5000,
        _upstream("topology_spreading/performance-config.yaml", "TopologySpreading/5000Nodes_5000Pods"),
    ),
    Case(
        "PreferredTopologySpreading",
        5000,
        5000,
        5000,
        _upstream("topology_spreading/performance-config.yaml", "PreferredTopologySpreading/5000Nodes_5000Pods"),
    ),
    Case("PreemptionBasic", 1000, 4000, 1000, _upstream("default_preemption/performance-config.yaml", "PreemptionBasic/1000Nodes")),
)

# The same shapes small enough for a smoke run (`side_by_side.py --quick`) and for the tests.
QUICK_CASES: tuple[Case, ...] = (
    Case("SchedulingBasic", 100, 100, 200, "SchedulingBasic/500Nodes scaled /5"),
    Case("SchedulingNodeAffinity", 100, 100, 200, "SchedulingNodeAffinity/500Nodes scaled /5"),
    Case("SchedulingPodAntiAffinity", 100, 20, 80, "SchedulingPodAntiAffinity/500Nodes scaled /5"),
    Case("TopologySpreading", 100, 200, 200, "TopologySpreading/500Nodes scaled /5"),
    Case("PreferredTopologySpreading", 100, 200, 200, "PreferredTopologySpreading/500Nodes scaled /5"),
    Case("PreemptionBasic", 10, 40, 10, "PreemptionBasic/5Nodes scaled x2"),
)


# --- object templates --------------------------------------------------------------------------


def node_names(count: int, rng: random.Random) -> list[str]:
    """scheduler_perf's node names, listed sorted as its label strategy walks them."""
    seen: set[str] = set()
    while len(seen) < count:
        seen.add("scheduler-perf-" + "".join(rng.choice(RAND_ALPHABET) for _ in range(5)))
    return sorted(seen)


def node(name: str, zone: str | None) -> dict:
    """templates/node-default.yaml, allocatable written out (the API server defaults it to capacity)."""
    labels = {HOSTNAME: name}
    if zone is not None:
        labels[ZONE] = zone
    res = {"pods": "110", "cpu": "4", "memory": "32Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {},
        "status": {
            "capacity": dict(res),
            "allocatable": dict(res),
            "conditions": [{"type": "Ready", "status": "True"}],
            "phase": "Running",
        },
    }


def _containers(image: str, cpu: str = "100m") -> list[dict]:
    res = {"cpu": cpu, "memory": "500Mi"}
    return [
        {
            "name": "pause",
            "image": image,
            "ports": [{"containerPort": 80, "protocol": "TCP"}],
            "resources": {"limits": dict(res), "requests": dict(res)},
        }
    ]


def _spread(when: str) -> list[dict]:
    return [{"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": when, "labelSelector": {"matchLabels": {"color": "blue"}}}]


# PriorityClasses of the preemption workload; the pods also carry the value the priority
# admission plugin would have written into spec.priority (kube's scheduler reads only that).
PRIORITY_CLASSES = {"low-priority": 0, "high-priority": 10}


def pod(template: str, name: str, namespace: str, node_name: str | None = None) -> dict:
    """One pod of a scheduler_perf template (templates/<template>.yaml)."""
    meta: dict = {"name": name, "namespace": namespace}
    spec: dict = {"schedulerName": "default-scheduler"}
    if template == "default":
        spec["containers"] = _containers("registry.k8s.io/pause:3.10.1")
    elif template == "anti-affinity":
        meta["labels"] = {"color": "green"}
        spec["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"color": "green"}}, "topologyKey": HOSTNAME, "namespaces": ["sched-1", "sched-0"]}
                ]
            }
        }
        spec["containers"] = _containers("registry.k8s.io/pause:3.10.2")
    elif template == "node-affinity":
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["zone1", "zone2"]}]}]
                }
            }
        }
        spec["containers"] = _containers("registry.k8s.io/pause:3.10.1")
    elif template in ("topology-spreading", "preferred-topology-spreading"):
        meta["labels"] = {"color": "blue"}
        when = "DoNotSchedule" if template == "topology-spreading" else "ScheduleAnyway"
        spec["topologySpreadConstraints"] = _spread(when)
        spec["containers"] = _containers("registry.k8s.io/pause:3.10.1")
    elif template in PRIORITY_CLASSES:
        spec["priorityClassName"] = template
        spec["priority"] = PRIORITY_CLASSES[template]
        spec["terminationGracePeriodSeconds"] = 0
        spec["containers"] = _containers("registry.k8s.io/pause:3.10", cpu="900m" if template == "low-priority" else "3000m")
    else:
        raise ValueError(f"unknown pod template {template!r}")
    out: dict = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if node_name is not None:
        spec["nodeName"] = node_name
        out["status"] = {"phase": "Running"}
    return out


def _stamp(seconds: int) -> str:
    return f"2024-01-01T{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}Z"


def running(obj: dict, index: int) -> dict:
    """A bound pod as a live cluster lists it: created and started in file order, one second apart.

    Preemption's last criterion before its map-order tie-break is the latest start time of a
    node's earliest-started victim (pickOneNodeForPreemption, pkg/scheduler/framework/preemption/
    preemption.go), so both programs must see the same start times, not a default each.
    """
    obj["metadata"]["creationTimestamp"] = _stamp(index)
    obj["status"]["startTime"] = _stamp(index)
    return obj


# --- files --------------------------------------------------------------------------------------


def case_seed(case: Case) -> int:
    """The node-name seed: fixed per shape and size, so every run writes the same file."""
    return case.nodes * 7919 + sum(map(ord, case.shape))


def objects(case: Case, seed: int | None = None) -> list[dict]:
    """The case's objects in file order: Namespaces (PriorityClasses), Nodes, init pods, measured pods."""
    shape = SHAPES[case.shape]
    rng = random.Random(case_seed(case) if seed is None else seed)
    items: list[dict] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}}}
        for ns in sorted({shape.init_ns, shape.measure_ns})
    ]
    if shape.init_template in PRIORITY_CLASSES:
        items += [
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}
            for name, value in PRIORITY_CLASSES.items()
        ]
    names = node_names(case.nodes, rng)
    # LabelNodePrepareStrategy: zone values round-robin over the sorted nodes
    items += [node(n, shape.zones[i % len(shape.zones)] if shape.zones else None) for i, n in enumerate(names)]
    for i in range(case.init):
        bound = names[i % len(names)] if shape.init_bound else None
        init = pod(shape.init_template, f"init-{i:05d}", shape.init_ns, bound)
        items.append(running(init, i) if bound else init)
    items += [pod(shape.measure_template, f"pod-{i:05d}", shape.measure_ns) for i in range(case.measure)]
    return items


def write(case: Case, directory: Path, seed: int | None = None) -> Path:
    """Writes DIR/<case>.json (a `kind: List`, one object per line) and DIR/config.yaml."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{case.name}.json"
    items = objects(case, seed)
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{"apiVersion": "v1", "kind": "List", "items": [\n')
        fh.write(",\n".join(json.dumps(it, separators=(",", ":")) for it in items))
        fh.write("\n]}\n")
    (directory / "config.yaml").write_text(DEFAULT_CONFIG, encoding="utf-8")
    return path
