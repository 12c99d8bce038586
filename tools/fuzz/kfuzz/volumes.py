"""The `volumes` dimension (`--dimension volumes`): NodeVolumeLimits' and VolumeBinding's batch
Filters (kschedctl/plugins/*/batch.py) decide as their per-node ports, and so do the volume
plugins' first pass of the Filter with nominated pods (filter_batch_with_added_pods of
NodeVolumeLimits, VolumeBinding, VolumeZone) and DefaultPreemption's dry run without copies.

Each input is a random cluster of CSINodes (random drivers and limits, some without a limit,
the migrated-plugins annotation or not), CSI and in-tree EBS / GCE PD PVs (some with node
affinity, some missing), claims bound, unbound (WaitForFirstConsumer) or missing, shared by
several pods, pods already bound with volumes, inline migratable volumes and
VolumeAttachments, scheduled through `schedule` twice in-process: once as is (the batch forms,
with the columnar view from a random node count on) and once with both batch forms declining
(every node through the port). The outputs must be the same, and each run keeps the contract.
Half the inputs preempt: every node is filled with low-priority pods (most with claims), some
PVs sit in a zone, and the pending pods come at higher priorities, so preemptors are nominated
while others are filtered; the second run then also declines the first-pass forms (the
runtime's two passes on copies) and turns the dry-run shortcuts off (copies, every Filter).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from kfuzz.contract import Checker, Run
from kschedctl.backend.cache import columnar
from kschedctl.plugins.default_preemption.plugin import DefaultPreemption
from kschedctl.plugins.node_volume_limits.batch import NodeVolumeLimits
from kschedctl.plugins.volume_binding.batch import VolumeBinding
from kschedctl.plugins.volume_zone.batch import VolumeZone

DRIVERS = ["ebs.csi.aws.com", "pd.csi.storage.gke.io", "other.csi.example.com"]
HOST = "kubernetes.io/hostname"


def _node(name: str) -> dict[str, Any]:
    res = {"cpu": "8", "memory": "8Gi", "pods": "30"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {HOST: name}},
        "status": {"capacity": res, "allocatable": res},
    }


def _csi_node(rng: random.Random, name: str) -> dict[str, Any]:
    drivers = []
    for driver in rng.sample(DRIVERS, rng.randint(1, 2)):
        entry: dict[str, Any] = {"name": driver, "nodeID": name}
        if rng.random() < 0.85:
            entry["allocatable"] = {"count": rng.randint(0, 4)}
        drivers.append(entry)
    migrated = rng.choice(["", "kubernetes.io/aws-ebs", "kubernetes.io/aws-ebs,kubernetes.io/gce-pd"])
    meta = {"name": name, "annotations": {"storage.alpha.kubernetes.io/migrated-plugins": migrated}}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": meta, "spec": {"drivers": drivers}}


def _pv_source(rng: random.Random, i: int) -> dict[str, Any]:
    pick = rng.random()
    if pick < 0.5:
        return {"csi": {"driver": rng.choice(DRIVERS), "volumeHandle": f"h-{rng.randrange(12)}"}}
    if pick < 0.8:
        return {"awsElasticBlockStore": {"volumeID": f"vol-{i}"}}
    return {"gcePersistentDisk": {"pdName": f"pd-{i}"}}


def cluster(rng: random.Random) -> list[dict[str, Any]]:
    names = [f"n{i:02d}" for i in range(rng.randint(3, 40))]
    items: list[dict[str, Any]] = []
    for mode in ("WaitForFirstConsumer", "Immediate"):
        sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": mode.lower()}}
        items.append(sc | {"provisioner": rng.choice([*DRIVERS, "kubernetes.io/aws-ebs"]), "volumeBindingMode": mode})
    for name in names:
        items.append(_node(name))
        if rng.random() < 0.75:
            items.append(_csi_node(rng, name))
    claims = []
    for i in range(rng.randint(1, 16)):
        pv, pvc = f"pv-{i}", f"pvc-{i}"
        ref = {"kind": "PersistentVolumeClaim", "namespace": "default", "name": pvc}
        pv_spec: dict[str, Any] = {"accessModes": ["ReadOnlyMany"], "capacity": {"storage": "1Gi"}, "claimRef": ref} | _pv_source(rng, i)
        if rng.random() < 0.15:
            term = {"matchExpressions": [{"key": HOST, "operator": "In", "values": rng.sample(names, min(2, len(names)))}]}
            pv_spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [term]}}
        kind = rng.random()
        if kind < 0.85:
            items.append(
                {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv}, "spec": pv_spec, "status": {"phase": "Bound"}}
            )
        claim_spec: dict[str, Any] = {"accessModes": ["ReadOnlyMany"], "resources": {"requests": {"storage": "1Gi"}}}
        meta: dict[str, Any] = {"name": pvc, "namespace": "default"}
        if rng.random() < 0.8:
            claim_spec["volumeName"] = pv
            meta["annotations"] = {"pv.kubernetes.io/bind-completed": "true"}
            phase = "Bound"
        else:
            claim_spec["storageClassName"] = rng.choice(["waitforfirstconsumer", "immediate", "absent"])
            phase = "Pending"
        if rng.random() < 0.95:
            items.append(
                {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": claim_spec, "status": {"phase": phase}}
            )
        claims.append(pvc)
    for name in rng.sample(names, rng.randint(0, min(4, len(names)))):
        source = {"persistentVolumeName": f"pv-{rng.randrange(len(claims))}"}
        spec = {"attacher": rng.choice(DRIVERS), "nodeName": name, "source": source}
        items.append({"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": f"va-{name}"}, "spec": spec})

    def pod(name: str, node: str | None) -> dict[str, Any]:
        vols: list[dict[str, Any]] = [
            {"name": f"v{k}", "persistentVolumeClaim": {"claimName": c}}
            for k, c in enumerate(rng.sample(claims, rng.randint(0, min(3, len(claims)))))
        ]
        if rng.random() < 0.15:
            vols.append({"name": "inline", "awsElasticBlockStore": {"volumeID": f"vol-{rng.randrange(20)}"}})
        containers = [{"name": "c", "image": "pause", "resources": {"requests": {"cpu": "100m"}}}]
        spec: dict[str, Any] = {"containers": containers, "volumes": vols}
        if node is not None:
            spec["nodeName"] = node
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"}, "spec": spec}

    items.extend(pod(f"b{i}", rng.choice(names)) for i in range(rng.randint(0, 20)))
    items.extend(pod(f"p{i:02d}", None) for i in range(rng.randint(1, 20)))
    return items


def make_preempting(rng: random.Random, items: list[dict[str, Any]]) -> None:
    """Fill every node (8 or 16 cpu) with low-priority 3-cpu pods up to 2 or 1 cpu free, most
    with claims; the other pods ask for 1-5 cpu, the pending ones at higher priorities; some
    PVs get a zone (VolumeZone active)."""
    claims = [it["metadata"]["name"] for it in items if it["kind"] == "PersistentVolumeClaim"]
    nodes = [it for it in items if it["kind"] == "Node"]
    for it in items:
        if it["kind"] == "PersistentVolume" and rng.random() < 0.3:
            it["metadata"]["labels"] = {"topology.kubernetes.io/zone": rng.choice(["z1", "z2"])}
        elif it["kind"] == "CSINode":
            for driver in it["spec"]["drivers"]:
                if "allocatable" in driver:  # tight limits: a nominated pod's volume can tip them
                    driver["allocatable"]["count"] = rng.randint(1, 3)
        elif it["kind"] == "Pod":
            bound = "nodeName" in it["spec"]
            it["spec"]["priority"] = rng.choice([0, 10]) if bound else rng.choice([10, 100, 1000])
            it["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1" if bound else rng.choice(["1", "1", "3", "5"])
    for node in nodes:
        node["metadata"]["labels"]["topology.kubernetes.io/zone"] = rng.choice(["z1", "z2"])
        big = rng.random() < 0.4
        for key in ("capacity", "allocatable"):
            node["status"][key]["cpu"] = "16" if big else "8"
        for k in range(5 if big else 2):
            vols = [{"name": "v", "persistentVolumeClaim": {"claimName": rng.choice(claims)}}] if claims and rng.random() < 0.7 else []
            name = node["metadata"]["name"]
            spec: dict[str, Any] = {
                "containers": [{"name": "c", "image": "pause", "resources": {"requests": {"cpu": "3"}}}],
                "volumes": vols,
                "nodeName": name,
                "priority": rng.choice([0, 0, 10]),
            }
            meta = {"name": f"f-{name}-{k}", "namespace": "default", "uid": f"uid-f-{name}-{k}"}
            status = {"phase": "Running", "startTime": f"2024-01-01T00:00:{rng.randrange(60):02d}Z"}
            items.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status})


def _declined(checker: Checker, args: list[str], preempting: bool) -> Run:
    """The run with the volume batch Filters declining (every node through the port); when
    preempting, also the first-pass forms (two passes on copies) and the dry-run shortcuts."""
    saved: list[tuple[type, str, Any]] = [(cls, "filter_batch", cls.__dict__["filter_batch"]) for cls in (NodeVolumeLimits, VolumeBinding)]
    if preempting:
        saved += [
            (cls, "filter_batch_with_added_pods", cls.__dict__["filter_batch_with_added_pods"])
            for cls in (NodeVolumeLimits, VolumeBinding, VolumeZone)
        ]
    try:
        for cls, name, _ in saved:
            setattr(cls, name, lambda self, *a: None)
        DefaultPreemption.dry_run_shortcuts = not preempting
        return checker.run(args)
    finally:
        DefaultPreemption.dry_run_shortcuts = True
        for cls, name, fn in saved:
            setattr(cls, name, fn)


def volumes_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    items = cluster(rng)
    preempting = rng.random() < 0.5
    if preempting:
        make_preempting(rng, items)
    path = workdir / "volumes.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    args = ["schedule", str(path), "-o", "json", "--seed", str(rng.randrange(100)), "--kube-version", rng.choice(["1.35", "1.36", "1.37"])]
    saved = columnar.COLUMNAR_MIN_NODES
    columnar.COLUMNAR_MIN_NODES = rng.choice([0, 0, saved])
    try:
        batched = checker.run(args)
        per_node = _declined(checker, args, preempting)
    finally:
        columnar.COLUMNAR_MIN_NODES = saved
    if checker.basic(batched, "schedule", str(path)) and batched.exit_code == 0:
        checker.schedule_invariants(batched, str(path), lambda: checker.run(args))
    if (batched.exit_code, batched.stdout) != (per_node.exit_code, per_node.stdout):
        checker.fail("volume-batch", "the batch Filters decided otherwise than the per-node ports", batched)
    nodes = sum(1 for it in items if it["kind"] == "Node")
    preempted = "preempting " if preempting else ""
    return f"volumes {preempted}cluster of {nodes} nodes, {len(items)} objects"
