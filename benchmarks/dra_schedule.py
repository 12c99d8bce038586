"""DRA through `kschedctl schedule`: 1,000 nodes x 8 GPUs, 2,000 pods with one ResourceClaim each.

Half of the claims ask for one GPU with at least 64Gi of memory (a CEL selector on capacity),
half for two H100 on one NUMA node (a selector on an attribute and a matchAttribute constraint),
as benchmarks/dra_allocator.py. The claims exist already, named in the pods' status, as in a
captured cluster. The snapshot is written as JSON and loaded through the loader; the scheduler
runs with the default profile (sampling as kube samples: percentageOfNodesToScore adaptive).
Prints pods/s, the share of time in CEL (profiled run) and, when kschedoracle is found, kube's
own loop on the same file (-mode bench).

    python benchmarks/dra_schedule.py [--nodes 1000] [--devices 8] [--pods 2000] [--release 1.37]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DRIVER = "gpu.example.com"
CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n"


def build(nodes: int, devices: int, pods: int) -> dict:
    items: list[dict] = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
        }
    ]
    for i in range(nodes):
        name = f"node-{i:04d}"
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": f"z{i % 4}"}},
                "status": {
                    "allocatable": {"cpu": "64", "memory": "512Gi", "pods": "110"},
                    "capacity": {"cpu": "64", "memory": "512Gi", "pods": "110"},
                },
            }
        )
        items.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"{name}-gpus"},
                "spec": {
                    "driver": DRIVER,
                    "nodeName": name,
                    "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                    "devices": [
                        {
                            "name": f"gpu-{d}",
                            "attributes": {
                                "model": {"string": "h100" if (i + d) % 3 else "a100"},
                                "numa": {"int": d // 4},
                                "driverVersion": {"version": "1.2.3"},
                            },
                            "capacity": {"memory": {"value": "80Gi" if d % 2 else "40Gi"}},
                        }
                        for d in range(devices)
                    ],
                },
            }
        )
    for c in range(pods):
        pod, claim = f"pod-{c:05d}", f"pod-{c:05d}-gpu"
        if c % 2:
            spec = {
                "devices": {
                    "requests": [
                        {
                            "name": "gpus",
                            "exactly": {
                                "deviceClassName": "gpu",
                                "allocationMode": "ExactCount",
                                "count": 2,
                                "selectors": [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "h100"'}}],
                            },
                        }
                    ],
                    "constraints": [{"matchAttribute": f"{DRIVER}/numa"}],
                }
            }
        else:
            spec = {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {
                                "deviceClassName": "gpu",
                                "allocationMode": "ExactCount",
                                "count": 1,
                                "selectors": [
                                    {"cel": {"expression": f'device.capacity["{DRIVER}"].memory.compareTo(quantity("64Gi")) >= 0'}}
                                ],
                            },
                        }
                    ]
                }
            }
        items.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaim",
                "metadata": {
                    "name": claim,
                    "namespace": "default",
                    "uid": f"{claim}-uid",
                    "resourceVersion": "1",
                    "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod, "uid": f"{pod}-uid", "controller": True}],
                },
                "spec": spec,
            }
        )
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": pod,
                    "namespace": "default",
                    "uid": f"{pod}-uid",
                    "creationTimestamp": f"2025-01-01T00:{c // 3600 % 60:02d}:{c // 60 % 60:02d}Z",
                },
                "spec": {
                    "containers": [
                        {"name": "c", "image": "registry.example/train:1", "resources": {"requests": {"cpu": "1", "memory": "4Gi"}}}
                    ],
                    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu"}],
                },
                "status": {"phase": "Pending", "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": claim}]},
            }
        )
    return {"apiVersion": "v1", "kind": "List", "items": items}


def schedule(path: str, release: str, profile: bool) -> tuple[float, object, float]:
    from kschedctl.cluster.loader import load_snapshot
    from kschedctl.config.loader import load_config_file
    from kschedctl.plugins.plugin_manager import default_registry
    from kschedctl.scheduler.scheduler import Scheduler
    from kschedctl.versions import KubeVersion

    version = KubeVersion(release)
    registry = default_registry().registry
    t0 = time.perf_counter()
    cluster = load_snapshot([path])
    load = time.perf_counter() - t0
    sched = Scheduler(cluster, load_config_file(None, version, registry), registry, version, seed=1)
    profiler = cProfile.Profile() if profile else None
    start, cpu0 = time.perf_counter(), time.process_time()
    if profiler:
        profiler.enable()
    result = sched.run()
    if profiler:
        profiler.disable()
    elapsed = time.perf_counter() - start
    result.cpu_seconds = time.process_time() - cpu0  # type: ignore[attr-defined]
    share = 0.0
    if profiler:
        stats = pstats.Stats(profiler)
        total = stats.total_tt  # type: ignore[attr-defined]
        cel = sum(v[2] for k, v in stats.stats.items() if "/kschedctl/dra/cel/" in k[0])  # type: ignore[attr-defined]
        share = cel / total if total else 0.0
    return elapsed, result, share if profile else load


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--devices", type=int, default=8)
    ap.add_argument("--pods", type=int, default=2000)
    ap.add_argument("--release", default="1.37")
    ap.add_argument("--oracle", default=os.environ.get("KSCHEDORACLE", "/work/oracle/kschedoracle"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "dra.json")
        Path(path).write_text(json.dumps(build(args.nodes, args.devices, args.pods)))
        elapsed, result, load = schedule(path, args.release, profile=False)
        placed = len(result.placements)  # type: ignore[attr-defined]
        print(f"release {args.release}: {args.nodes} nodes x {args.devices} GPUs, {args.pods} pods with claims")
        cpu = result.cpu_seconds  # type: ignore[attr-defined]
        print(
            f"schedule: {placed} placed, {len(result.unschedulable)} unschedulable in {elapsed:.2f}s "  # type: ignore[attr-defined]
            f"= {args.pods / elapsed:.0f} pods/s; {cpu:.2f} CPU s = {args.pods / cpu:.0f} pods per CPU second "
            f"(snapshot load {load:.2f}s, load average {os.getloadavg()[0]:.1f})"
        )
        p_elapsed, _, share = schedule(path, args.release, profile=True)
        print(f"profiled: {p_elapsed:.2f}s, {share:.1%} of the time in CEL (kschedctl/dra/cel)")
        if os.path.exists(args.oracle):
            cfg = os.path.join(tmp, "config.yaml")
            Path(cfg).write_text(CONFIG)
            proc = subprocess.run(
                [args.oracle, "-mode", "bench", "-snapshot", path, "-config", cfg, "-warmup", "0", "-parallelism", "2"],
                capture_output=True,
                text=True,
                timeout=3600,
            )
            if proc.returncode == 0:
                data = json.loads(proc.stdout)
                print(
                    f"kube-scheduler 1.35.4 (kschedoracle -mode bench, parallelism 2): "
                    f"{data.get('podsPerSecond', data.get('pods_per_second', '?'))} pods/s"
                )
            else:
                print("kschedoracle bench failed:", proc.stderr.strip()[-300:])


if __name__ == "__main__":
    main()
