"""The release137 dimension: the 1.37 behaviour changes, checked against the input.

Each input draws one of two shapes, at a random release and sometimes with the gate overridden:

- ``capacity``: 1-8 nodes, each with a CSIStorageCapacity of a random size (some none), a
  WaitForFirstConsumer class whose CSIDriver asks for capacity, one pending pod with one or two
  claims of random sizes; `explain -o json`. With StorageCapacityScoring on (the 1.37 default,
  kschedctl/versions.py) every feasible node's VolumeBinding score must be the default shape's
  {0: 10, 100: 0} over requested / capacity (scorer.go; one class, so 100 - utilization), and a
  node without enough capacity must be rejected; with the gate off VolumeBinding gives no score.
- ``gated``: 1-4 nodes, a scheduling-gated pod of random priority nominated to one of them, and
  2-8 pending pods of random priorities and sizes; `schedule -o json`. From 1.37
  (kubernetes/kubernetes#139057) the gated pod's request counts on its nominated node for every
  pod of lower or equal priority: such pods placed there must fit beside it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import yaml

from kfuzz.contract import Checker

GI = 1024**3


def release137_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    if rng.random() < 0.5:
        return _capacity(rng, workdir, checker)
    return _gated(rng, workdir, checker)


def _release(rng: random.Random, gate: str) -> tuple[str, list[str], bool]:
    """(release, extra CLI args, whether the gate is on)."""
    release = rng.choice(["1.35", "1.36", "1.37"])
    on = release == "1.37"
    args = ["--kube-version", release]
    if rng.random() < 0.25:
        on = rng.random() < 0.5
        args += ["--feature-gates", f"{gate}={str(on).lower()}"]
    return release, args, on


# --- capacity -----------------------------------------------------------------------------------


def _capacity_cluster(nodes: list[tuple[str, int | None]], claims: list[int]) -> dict:
    items: list[dict] = [
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "local"},
            "provisioner": "csi.example.com",
            "volumeBindingMode": "WaitForFirstConsumer",
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIDriver",
            "metadata": {"name": "csi.example.com"},
            "spec": {"storageCapacity": True},
        },
    ]
    for name, size in nodes:
        status = {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}
        labels = {"kubernetes.io/hostname": name}
        items.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "status": status})
        drivers = [{"name": "csi.example.com", "nodeID": name, "topologyKeys": ["kubernetes.io/hostname"]}]
        items.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name}, "spec": {"drivers": drivers}})
        if size is not None:
            items.append(
                {
                    "apiVersion": "storage.k8s.io/v1",
                    "kind": "CSIStorageCapacity",
                    "metadata": {"name": f"cap-{name}", "namespace": "default"},
                    "storageClassName": "local",
                    "capacity": str(size),
                    "nodeTopology": {"matchLabels": labels},
                }
            )
    volumes = []
    for i, request in enumerate(claims):
        spec = {"storageClassName": "local", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": str(request)}}}
        meta = {"name": f"data-{i}", "namespace": "default"}
        items.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec, "status": {"phase": "Pending"}})
        volumes.append({"name": f"d{i}", "persistentVolumeClaim": {"claimName": f"data-{i}"}})
    pod_spec = {"containers": [{"name": "c", "image": "x"}], "volumes": volumes}
    items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"}, "spec": pod_spec})
    return {"apiVersion": "v1", "kind": "List", "items": items}


def _capacity(rng: random.Random, workdir: Path, checker: Checker) -> str:
    nodes = [
        (f"n{i}", None if rng.random() < 0.15 else rng.choice([1, 10, 50, 100, 333, 1000]) * GI + rng.randrange(0, 4) * 1024)
        for i in range(rng.randint(1, 8))
    ]
    claims = [rng.choice([1, 5, 10, 50, 100]) * GI for _ in range(rng.randint(1, 2))]
    _, args, on = _release(rng, "StorageCapacityScoring")
    path = workdir / "capacity-snapshot.yaml"
    path.write_text(yaml.safe_dump(_capacity_cluster(nodes, claims), sort_keys=False))
    run = checker.run(["explain", "default/web", str(path), *args, "-o", "json"])
    if not (checker.basic(run, "explain", str(path)) and run.exit_code == 0):
        return f"capacity {len(nodes)} nodes {args}"
    rows = json.loads(run.stdout)["nodes"]
    requested = sum(claims)
    for name, size in nodes:
        row = rows.get(name) or {}
        fits = size is not None and all(c <= size for c in claims)
        feasible = (row.get("filter") or {}).get("code") == "Success"
        if fits != feasible:
            checker.fail("capacity-filter", f"{name}: capacity {size}, claims {claims}: feasible={feasible}", run)
            continue
        score = ((row.get("scores") or {}).get("VolumeBinding") or {}).get("score")
        if not feasible:
            continue
        if not on:
            if score not in (None, 0):
                checker.fail("capacity-score", f"{name}: VolumeBinding scored {score} with the gate off", run)
            continue
        assert size is not None
        utilization = 100 if requested > size else requested * 100 // size
        if score != 100 - utilization:
            checker.fail("capacity-score", f"{name}: want {100 - utilization}, got {score} (capacity {size}, requested {requested})", run)
    return f"capacity {len(nodes)} nodes, claims {claims}, {args}"


# --- gated --------------------------------------------------------------------------------------


def _pod(name: str, priority: int, cpu: int, gated_to: str | None = None) -> dict:
    spec: dict = {"priority": priority, "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": str(cpu)}}}]}
    status: dict = {"phase": "Pending"}
    if gated_to is not None:
        spec["schedulingGates"] = [{"name": "example.com/wait"}]
        status["nominatedNodeName"] = gated_to
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"{name}-uid"},
        "spec": spec,
        "status": status,
    }


def _gated(rng: random.Random, workdir: Path, checker: Checker) -> str:
    nodes = {f"n{i}": rng.choice([2, 4, 8]) for i in range(rng.randint(1, 4))}
    target = rng.choice(sorted(nodes))
    gated_priority, gated_cpu = rng.choice([0, 10, 100]), rng.randint(1, nodes[target])
    others = [(f"p{i}", rng.choice([0, 10, 100, 1000]), rng.randint(1, 4)) for i in range(rng.randint(2, 8))]
    items = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": n},
            "status": {"allocatable": {"cpu": str(c), "memory": "64Gi", "pods": "110"}},
        }
        for n, c in nodes.items()
    ]
    items.append(_pod("gated", gated_priority, gated_cpu, gated_to=target))
    items += [_pod(name, prio, cpu) for name, prio, cpu in others]
    path = workdir / "gated-snapshot.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sort_keys=False))
    release = rng.choice(["1.35", "1.36", "1.37"])
    run = checker.run(["schedule", str(path), "--kube-version", release, "-o", "json", "--seed", str(rng.randrange(100))])
    if not (checker.basic(run, "schedule", str(path)) and run.exit_code == 0):
        return f"gated {release}"
    placed = {p["pod"].split("/", 1)[1]: p["node"] for p in json.loads(run.stdout)["placements"]}
    if "gated" in placed:
        checker.fail("gated-placed", "a scheduling-gated pod was placed", run)
    if release == "1.37":
        # every placed pod of priority <= the gated pod's on its node fits beside it
        low = sum(cpu for name, prio, cpu in others if placed.get(name) == target and prio <= gated_priority)
        if low and low + gated_cpu > nodes[target]:
            checker.fail(
                "gated-nomination", f"{target}: {low} cpu of priority <= {gated_priority} placed past the gated pod's {gated_cpu}", run
            )
    return f"gated {release} {len(nodes)} nodes {len(others)} pods"
