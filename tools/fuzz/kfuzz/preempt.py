"""The `preempt` dimension (`--dimension preempt`): DefaultPreemption's dry-run shortcuts give
exactly the answers of the plain SelectVictimsOnNode on copies.

Each input is a random cluster built for preemption: nodes of a few sizes (some tainted, some
with few pod slots), bound pods at random priorities (some terminating, some with host ports or
a PVC, some nominated elsewhere), pending pods at priorities from below every bound pod to
above them all (some preemptionPolicy Never), sometimes a PDB; sometimes every bound pod at or
above every pending pod's priority (the dry run's "no victims anywhere" answer), sometimes only
a few nodes holding lower-priority pods; sometimes bound claims on many pods (CSI PVs, some in
a zone or with node affinity; CSINodes with small attach limits or none), so VolumeBinding,
VolumeZone and NodeVolumeLimits sit beside NodeResourcesFit in the dry run. It runs through `schedule` (a random release and seed)
and `explain` of one pending pod, once with ``DefaultPreemption.dry_run_shortcuts`` on and once
off: the outputs must be byte-identical, besides the contract's rules for every run.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from kfuzz.contract import Checker
from kschedctl.plugins.default_preemption.plugin import DefaultPreemption

PRIORITIES = (-10, 0, 10, 100, 1000, 2000)


def _node(i: int, rng: random.Random) -> dict[str, Any]:
    alloc = {"cpu": rng.choice(["1", "2", "4"]), "memory": rng.choice(["2Gi", "4Gi"]), "pods": str(rng.choice([2, 3, 110]))}
    spec = {"taints": [{"key": "t", "value": "x", "effect": "NoSchedule"}]} if rng.random() < 0.1 else {}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}", "zone": f"z{i % 2}"}},
        "spec": spec,
        "status": {"capacity": dict(alloc), "allocatable": alloc},
    }


def _pod(name: str, rng: random.Random, priority: int, node: str | None, nodes: int) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": {"app": f"a{rng.randrange(3)}"}}
    container: dict[str, Any] = {
        "name": "c",
        "image": "pause",
        "resources": {"requests": {"cpu": rng.choice(["100m", "500m", "900m", "1500m"]), "memory": rng.choice(["128Mi", "1Gi"])}},
    }
    if rng.random() < 0.1:
        container["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    spec: dict[str, Any] = {"containers": [container], "priorityClassName": f"p{priority}"}
    status: dict[str, Any] = {"phase": "Pending"}
    if node:
        spec["nodeName"] = node
        status = {"phase": "Running"}
        if rng.random() < 0.8:
            status["startTime"] = f"2024-01-01T00:{rng.randrange(60):02d}:00Z"
        if rng.random() < 0.1:
            meta["deletionTimestamp"] = "2024-01-01T01:00:00Z"
            status["conditions"] = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]
    else:
        if rng.random() < 0.1:
            spec["preemptionPolicy"] = "Never"
        if rng.random() < 0.15:
            status["nominatedNodeName"] = f"n{rng.randrange(nodes)}"
        if rng.random() < 0.1:
            spec["affinity"] = {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": meta["labels"]["app"]}}, "topologyKey": "kubernetes.io/hostname"}
                    ]
                }
            }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def _cluster(rng: random.Random) -> tuple[list[dict[str, Any]], list[str], str]:
    """The objects, the pending pods' names and which layout of priorities was drawn."""
    nodes = rng.randint(2, 14)
    layout = rng.choice(["mixed", "none-lower", "some-lower"])
    items: list[dict[str, Any]] = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": f"p{v}"}, "value": v} for v in PRIORITIES
    ]
    items += [_node(i, rng) for i in range(nodes)]
    lower_nodes = set(rng.sample(range(nodes), k=max(1, nodes // 4)))
    for i in range(rng.randint(nodes, nodes * 4)):
        at = rng.randrange(nodes)
        if layout == "none-lower" or (layout == "some-lower" and at not in lower_nodes):
            priority = rng.choice(PRIORITIES[3:])  # at or above every pending pod's priority
        else:
            priority = rng.choice(PRIORITIES)
        items.append(_pod(f"run-{i}", rng, priority, f"n{at}", nodes))
    pending = []
    for i in range(rng.randint(1, 12)):
        priority = rng.choice(PRIORITIES[:4] if layout == "none-lower" else PRIORITIES)
        items.append(_pod(f"new-{i}", rng, priority, None, nodes))
        pending.append(f"default/new-{i}")
    if rng.random() < 0.3:
        items.append(
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": "pdb", "namespace": "default"},
                "spec": {"selector": {"matchLabels": {"app": f"a{rng.randrange(3)}"}}},
                "status": {"disruptionsAllowed": rng.randrange(2)},
            }
        )
    if rng.random() < 0.4:
        _with_volumes(rng, items, nodes)
        layout += "+volumes"
    return items, pending, layout


def _with_volumes(rng: random.Random, items: list[dict[str, Any]], nodes: int) -> None:
    """Bound claims for most pods, CSINodes with attach limits 1-3 (or none) on most nodes."""
    driver = "ebs.csi.aws.com"
    for i in range(nodes):
        if rng.random() < 0.7:
            entry: dict[str, Any] = {"name": driver, "nodeID": f"n{i}"}
            if rng.random() < 0.7:
                entry["allocatable"] = {"count": rng.randint(1, 3)}
            items.append(
                {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": f"n{i}"}, "spec": {"drivers": [entry]}}
            )
    claims = [f"pvc-{i}" for i in range(rng.randint(2, 12))]
    for i, claim in enumerate(claims):
        meta: dict[str, Any] = {"name": f"pv-{i}"}
        if rng.random() < 0.3:
            meta["labels"] = {"topology.kubernetes.io/zone": f"z{rng.randrange(2)}"}
        pv_spec: dict[str, Any] = {
            "accessModes": ["ReadOnlyMany"],
            "capacity": {"storage": "1Gi"},
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "default", "name": claim},
            "csi": {"driver": driver, "volumeHandle": f"h-{i}"},
        }
        if rng.random() < 0.15:
            hosts = [f"n{rng.randrange(nodes)}" for _ in range(2)]
            term = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": hosts}]}
            pv_spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [term]}}
        items.append({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta, "spec": pv_spec, "status": {"phase": "Bound"}})
        claim_meta = {"name": claim, "namespace": "default", "annotations": {"pv.kubernetes.io/bind-completed": "true"}}
        claim_spec = {"accessModes": ["ReadOnlyMany"], "resources": {"requests": {"storage": "1Gi"}}, "volumeName": f"pv-{i}"}
        items.append(
            {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": claim_meta, "spec": claim_spec, "status": {"phase": "Bound"}}
        )
    for obj in items:
        if obj["kind"] == "Node":
            obj["metadata"]["labels"]["topology.kubernetes.io/zone"] = obj["metadata"]["labels"]["zone"]
        elif obj["kind"] == "Pod" and rng.random() < 0.7:
            obj["spec"]["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": rng.choice(claims)}}]


def _both(checker: Checker, args: list[str]) -> tuple[Any, Any]:
    """The run with the shortcuts on, then off."""
    runs = []
    for shortcuts in (True, False):
        DefaultPreemption.dry_run_shortcuts = shortcuts
        try:
            runs.append(checker.run(args))
        finally:
            DefaultPreemption.dry_run_shortcuts = True
    return runs[0], runs[1]


def preempt_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    items, pending, layout = _cluster(rng)
    path = workdir / "preempt.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}), encoding="utf-8")
    version = rng.choice(["1.35", "1.36", "1.37"])
    seed = str(rng.randrange(1000))
    args = ["schedule", str(path), "-o", "json", "--kube-version", version, "--seed", seed]
    fast, slow = _both(checker, args)
    if checker.basic(fast, "schedule", str(path)) and checker.basic(slow, "schedule", str(path)):
        if fast.stdout != slow.stdout or fast.exit_code != slow.exit_code:
            checker.fail("preempt-shortcuts", f"schedule {version}: the shortcuts changed the output ({layout})", fast)
    pod = rng.choice(pending)
    args = ["explain", pod, str(path), "-o", "json", "--kube-version", version, "--seed", seed]
    fast, slow = _both(checker, args)
    if checker.basic(fast, "explain", str(path)) and checker.basic(slow, "explain", str(path)):
        if fast.stdout != slow.stdout:
            checker.fail("preempt-shortcuts", f"explain {pod} {version}: the shortcuts changed the output ({layout})", fast)
    return f"preempt {layout} {len(items)} objects {version}"
