"""Seeded clusters of many shapes, for kschedctl's predictions against a real kube-scheduler.

Each shape is a function of a ``random.Random`` that returns the snapshot's objects and the
KubeSchedulerConfiguration both schedulers get (None: the defaults). The clusters are small
(≤ 40 nodes: no percentageOfNodesToScore sampling, which starts at 100) and the pending pods are
named ``p-NNN`` in the order the scheduling queue takes them: all pending pods are created before
kube-scheduler starts, so it lists them in name order, and kschedctl, which breaks ties in the
input's order, reads them in the same order (no creationTimestamp is written).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

ZONES = ("zone-a", "zone-b", "zone-c")
Obj = dict[str, Any]
Shape = Callable[[random.Random], tuple[list[Obj], str | None]]


def node(name: str, zone: str, cpu: int, mem_gi: int, labels: dict[str, str] | None = None, taints: list[Obj] | None = None) -> Obj:
    alloc = {"cpu": str(cpu), "memory": f"{mem_gi}Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "topology.kubernetes.io/zone": zone,
                **(labels or {}),
            },
        },
        "spec": {"taints": taints} if taints else {},
        "status": {"allocatable": alloc, "capacity": dict(alloc)},
    }


def pod(
    name: str,
    cpu_m: int,
    mem_mi: int,
    *,
    node_name: str | None = None,
    labels: dict[str, str] | None = None,
    spec: Obj | None = None,
    priority: int | None = None,
) -> Obj:
    body: Obj = {
        "containers": [
            {"name": "c", "image": "registry.k8s.io/pause:3.10", "resources": {"requests": {"cpu": f"{cpu_m}m", "memory": f"{mem_mi}Mi"}}}
        ],
        **(spec or {}),
    }
    if node_name:
        body["nodeName"] = node_name
    if priority is not None:
        body["priority"] = priority
    obj: Obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
        "spec": body,
        "status": {"phase": "Running"} if node_name else {"phase": "Pending"},
    }
    return obj


def nodes_in_zones(rng: random.Random, count: int, **extra: Any) -> list[Obj]:
    sizes = ((4, 16), (8, 32), (16, 64))
    out = []
    for i in range(count):
        cpu, mem = rng.choice(sizes)
        out.append(node(f"n-{i:02d}", ZONES[i % len(ZONES)], cpu, mem, **extra))
    return out


def running(rng: random.Random, nodes: list[Obj], apps: tuple[str, ...], per_node: tuple[int, int] = (0, 3)) -> list[Obj]:
    out = []
    for n in nodes:
        for j in range(rng.randint(*per_node)):
            app = rng.choice(apps)
            out.append(
                pod(
                    f"run-{n['metadata']['name']}-{j}",
                    rng.choice((250, 500, 1000)),
                    rng.choice((256, 512, 1024)),
                    node_name=n["metadata"]["name"],
                    labels={"app": app},
                )
            )
    return out


def req(rng: random.Random) -> tuple[int, int]:
    return rng.choice((100, 250, 500, 1000, 2000)), rng.choice((128, 256, 512, 1024, 2048))


# --- shapes ---


def affinity(rng: random.Random) -> tuple[list[Obj], str | None]:
    """Node affinity (required and preferred), pod affinity and anti-affinity (required and preferred)."""
    nodes = nodes_in_zones(rng, 18)
    for n in nodes:
        n["metadata"]["labels"]["disk"] = rng.choice(("ssd", "hdd"))
    items = nodes + running(rng, nodes, ("db", "cache", "web"))
    for i in range(28):
        cpu, mem = req(rng)
        app = rng.choice(("web", "api", "db"))
        kind = i % 7
        aff: Obj
        if kind == 0:
            aff = {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": [rng.choice(ZONES)]}]}
                        ]
                    }
                }
            }
        elif kind == 1:
            aff = {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": rng.randint(1, 100),
                            "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]},
                        }
                    ]
                }
            }
        elif kind == 2:
            aff = {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "topology.kubernetes.io/zone"}
                    ]
                }
            }
        elif kind == 3:
            aff = {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}
                    ]
                }
            }
        elif kind == 4:
            aff = {
                "podAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 50,
                            "podAffinityTerm": {
                                "labelSelector": {"matchLabels": {"app": "cache"}},
                                "topologyKey": "kubernetes.io/hostname",
                            },
                        }
                    ]
                }
            }
        elif kind == 5:
            aff = {
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 80,
                            "podAffinityTerm": {
                                "labelSelector": {"matchLabels": {"app": app}},
                                "topologyKey": "topology.kubernetes.io/zone",
                            },
                        }
                    ]
                }
            }
        else:
            aff = {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db", "cache"]}]},
                            "topologyKey": "topology.kubernetes.io/zone",
                        }
                    ]
                }
            }
        items.append(pod(f"p-{i:03d}", cpu, mem, labels={"app": app}, spec={"affinity": aff}))
    return items, None


def spread(rng: random.Random) -> tuple[list[Obj], str | None]:
    """Topology spread over zones and hosts: DoNotSchedule and ScheduleAnyway, minDomains, policies."""
    nodes = nodes_in_zones(rng, 15)
    nodes[-1]["metadata"]["labels"]["topology.kubernetes.io/zone"] = "zone-d"
    nodes[-1]["spec"] = {"taints": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]}
    items = nodes + running(rng, nodes, ("web", "api"))
    for i in range(30):
        cpu, mem = req(rng)
        app = rng.choice(("web", "api"))
        kind = i % 4
        sel = {"matchLabels": {"app": app}}
        if kind == 0:
            tsc = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": sel}]
        elif kind == 1:
            tsc = [{"maxSkew": 2, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": sel}]
        elif kind == 2:
            tsc = [
                {
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": sel,
                    "minDomains": 4,
                },
                {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": sel},
            ]
        else:
            tsc = [
                {
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": sel,
                    "nodeTaintsPolicy": "Honor",
                    "matchLabelKeys": ["tier"],
                }
            ]
        items.append(
            pod(f"p-{i:03d}", cpu, mem, labels={"app": app, "tier": rng.choice(("a", "b"))}, spec={"topologySpreadConstraints": tsc})
        )
    return items, None


def taints(rng: random.Random) -> tuple[list[Obj], str | None]:
    """NoSchedule, PreferNoSchedule and NoExecute taints; tolerations Equal, Exists, by effect."""
    nodes = nodes_in_zones(rng, 16)
    palette = [
        {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
        {"key": "spot", "value": "true", "effect": "PreferNoSchedule"},
        {"key": "maintenance", "effect": "NoExecute"},
        {"key": "dedicated", "value": "infra", "effect": "NoSchedule"},
    ]
    for i, n in enumerate(nodes):
        if i % 3:
            n["spec"] = {"taints": rng.sample(palette, rng.randint(1, 2))}
    items = nodes + running(rng, nodes, ("web",), (0, 2))
    tolerations = [
        [],
        [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}],
        [{"key": "spot", "operator": "Exists"}],
        [{"key": "maintenance", "operator": "Exists", "effect": "NoExecute"}],
        [{"operator": "Exists"}],
        [{"key": "dedicated", "operator": "Exists"}, {"key": "spot", "operator": "Equal", "value": "true", "effect": "PreferNoSchedule"}],
    ]
    for i in range(30):
        cpu, mem = req(rng)
        items.append(pod(f"p-{i:03d}", cpu, mem, labels={"app": "web"}, spec={"tolerations": tolerations[i % len(tolerations)]}))
    return items, None


PROFILES_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: packer
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - {name: cpu, weight: 2}
        - {name: memory, weight: 1}
- schedulerName: balanced
  plugins:
    score:
      disabled:
      - name: ImageLocality
      - name: NodeResourcesFit
      enabled:
      - name: NodeResourcesBalancedAllocation
        weight: 5
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources:
        - {name: cpu, weight: 1}
        requestedToCapacityRatio:
          shape:
          - {utilization: 0, score: 0}
          - {utilization: 100, score: 10}
"""


def profiles(rng: random.Random) -> tuple[list[Obj], str | None]:
    """Three profiles (default, MostAllocated, a balanced one), pods choosing by schedulerName; some
    pods too big for any node (unschedulable, their message compared)."""
    nodes = nodes_in_zones(rng, 20)
    items = nodes + running(rng, nodes, ("web", "batch"))
    for i in range(32):
        cpu, mem = req(rng)
        if i % 11 == 10:
            cpu, mem = 20000, 1024
        name = ("default-scheduler", "packer", "balanced")[i % 3]
        items.append(pod(f"p-{i:03d}", cpu, mem, labels={"app": "batch"}, spec={"schedulerName": name}))
    return items, PROFILES_CONFIG


def volumes(rng: random.Random) -> tuple[list[Obj], str | None]:
    """PersistentVolumeClaims: bound ones whose PV is pinned to a zone (VolumeBinding's PV node
    affinity, VolumeZone's zone labels), and WaitForFirstConsumer ones matched to static PVs in
    zones when the pod is scheduled (the test binds them as kube's PV controller would)."""
    nodes = nodes_in_zones(rng, 12)
    items: list[Obj] = list(nodes) + running(rng, nodes, ("web",), (0, 2))
    items.append(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "local-wffc"},
            "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "WaitForFirstConsumer",
        }
    )

    def pv(name: str, zone: str, size: str, claim: str | None = None, cls: str = "local-wffc") -> Obj:
        spec: Obj = {
            "capacity": {"storage": size},
            "accessModes": ["ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Retain",
            "storageClassName": cls,
            "hostPath": {"path": f"/data/{name}"},
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}]}
                    ]
                }
            },
        }
        labels = {"topology.kubernetes.io/zone": zone}
        if claim:
            spec["claimRef"] = {"namespace": "default", "name": claim}
        return {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": name, "labels": labels},
            "spec": spec,
            "status": {"phase": "Bound" if claim else "Available"},
        }

    def pvc(name: str, size: str, volume: str | None = None, cls: str = "local-wffc") -> Obj:
        spec: Obj = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}, "storageClassName": cls}
        md: Obj = {"name": name, "namespace": "default"}
        if volume:
            spec["volumeName"] = volume
            md["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
        return {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": md,
            "spec": spec,
            "status": {"phase": "Bound" if volume else "Pending"},
        }

    for i in range(8):  # static PVs for the WaitForFirstConsumer claims, 1-4 Gi, in zones
        items.append(pv(f"pv-free-{i}", ZONES[i % 3] if i < 6 else "zone-a", f"{1 + i % 4}Gi"))
    for i in range(4):  # claims bound already, their PV in one zone
        items.append(pv(f"pv-bound-{i}", ZONES[i % 3], "1Gi", claim=f"data-bound-{i}"))
        items.append(pvc(f"data-bound-{i}", "1Gi", volume=f"pv-bound-{i}"))
    pending = 0
    for i in range(10):  # WFFC claims: some fit only some PVs, the last ones find none left
        items.append(pvc(f"data-wffc-{i}", f"{1 + (i * 3) % 4}Gi"))
    for i in range(24):
        cpu, mem = req(rng)
        spec: Obj = {}
        if i % 3 == 0 and pending < 10:
            spec["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": f"data-wffc-{pending}"}}]
            pending += 1
        elif i % 6 == 1:
            spec["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": f"data-bound-{(i // 6) % 4}"}}]
        items.append(pod(f"p-{i:03d}", cpu, mem, labels={"app": "web"}, spec=spec))
    return items, None


def mixed(rng: random.Random) -> tuple[list[Obj], str | None]:
    """A bit of everything on the largest cluster: node selectors, spread, anti-affinity, taints,
    host ports, unschedulable nodes, big pods; MostAllocated."""
    nodes = nodes_in_zones(rng, 40)
    for i, n in enumerate(nodes):
        n["metadata"]["labels"]["pool"] = "gpu" if i % 8 == 0 else "general"
        if i % 8 == 0:
            n["spec"] = {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]}
        if i % 13 == 5:
            n["spec"] = {"unschedulable": True}
    items = nodes + running(rng, nodes, ("web", "db", "api"), (0, 4))
    for i in range(40):
        cpu, mem = req(rng)
        app = rng.choice(("web", "db", "api"))
        spec: Obj = {}
        k = i % 5
        if k == 0:
            spec["nodeSelector"] = {"pool": "gpu"}
            spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
        elif k == 1:
            spec["topologySpreadConstraints"] = [
                {
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {"matchLabels": {"app": app}},
                }
            ]
        elif k == 2:
            spec["affinity"] = {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}
                    ]
                }
            }
        elif k == 3:
            spec["containers"] = [
                {
                    "name": "c",
                    "image": "registry.k8s.io/pause:3.10",
                    "ports": [{"containerPort": 80, "hostPort": 8080 + i % 2}],
                    "resources": {"requests": {"cpu": f"{cpu}m", "memory": f"{mem}Mi"}},
                }
            ]
        elif i % 15 == 4:
            cpu = 64000
        items.append(pod(f"p-{i:03d}", cpu, mem, labels={"app": app}, spec=spec))
    return items, MOST_ALLOCATED


MOST_ALLOCATED = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - {name: cpu, weight: 1}
        - {name: memory, weight: 1}
"""


SHAPES: dict[str, tuple[Shape, int]] = {
    "affinity": (affinity, 11),
    "spread": (spread, 12),
    "taints": (taints, 13),
    "profiles": (profiles, 14),
    "volumes": (volumes, 15),
    "mixed": (mixed, 16),
}


def generate(shape: str) -> tuple[list[Obj], str | None]:
    """The shape's cluster, the same on every run (its own seed)."""
    fn, seed = SHAPES[shape]
    return fn(random.Random(seed))


def preemption(rng: random.Random) -> tuple[list[Obj], str | None]:
    """20 nodes each nearly filled by one low-priority pod (some guarded by a PDB that allows no
    disruption), 30 pending pods: first a high-priority one that fits nowhere without preempting,
    then small ones, which the default LeastAllocated scoring sends to the emptiest node. Until
    the victim is gone its node is full; gone at once, its node looks empty to the scores (the
    nominated preemptor counts in filters only), and the small pods flock there."""
    items: list[Obj] = []
    for i in range(20):
        cpu = 4 + (i % 5) * 2
        n = node(f"n-{i:02d}", ZONES[i % 3], cpu, 16 + 4 * (i % 4))
        items.append(n)
        app = "protected" if i % 4 == 0 else "batch"
        used = cpu * 1000 - rng.choice((250, 500, 750, 1000))
        victim = pod(f"run-{i:02d}", used, rng.choice((1024, 2048, 3072)), node_name=n["metadata"]["name"], labels={"app": app}, priority=0)
        # distinct start times: kube prefers the candidate whose victims started last, else its
        # pick among equal candidates is random
        victim["status"]["startTime"] = f"2026-11-01T08:{rng.randint(0, 59):02d}:{i:02d}Z"
        items.append(victim)
    items.append(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "protected", "namespace": "default"},
            "spec": {"minAvailable": "100%", "selector": {"matchLabels": {"app": "protected"}}},
            "status": {"currentHealthy": 5, "desiredHealthy": 5, "expectedPods": 5, "disruptionsAllowed": 0, "observedGeneration": 1},
        }
    )
    items.append(pod("p-000", 7000, 1024, labels={"app": "critical"}, priority=1000))
    for i in range(1, 30):
        items.append(
            pod(f"p-{i:03d}", rng.choice((100, 200, 300, 500, 700, 900)), rng.choice((128, 256, 512)), labels={"app": "small"}, priority=0)
        )
    return items, None
