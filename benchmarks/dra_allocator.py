"""Micro-benchmark of the DRA structured allocator: 1,000 nodes x 8 GPUs, 2,000 claims
allocated one after another (each on the first node where it fits, in node order), with the
devices of earlier claims taken. Prints claims/s and the share of time spent in CEL.

    python benchmarks/dra_allocator.py [--nodes 1000] [--devices 8] [--claims 2000] [--release 1.37]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from kschedctl.api.resource import DeviceClass, ResourceSlice
from kschedctl.api.resourceclaim import ResourceClaim
from kschedctl.api.types import Node
from kschedctl.dra.cel import Cache
from kschedctl.dra.structured import AllocatedState, Allocator, Features
from kschedctl.versions import KubeVersion

DRIVER = "gpu.example.com"


def build(nodes: int, devices: int, claims: int):
    node_objs = [Node.from_dict({"metadata": {"name": f"node-{i:04d}", "labels": {"zone": f"z{i % 4}"}}}) for i in range(nodes)]
    slices = [
        ResourceSlice.from_dict(
            {
                "metadata": {"name": f"node-{i:04d}-gpus"},
                "spec": {
                    "driver": DRIVER,
                    "nodeName": f"node-{i:04d}",
                    "pool": {"name": f"node-{i:04d}", "generation": 1, "resourceSliceCount": 1},
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
        for i in range(nodes)
    ]
    classes = {
        "gpu": DeviceClass.from_dict(
            {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}
        )
    }
    claim_objs = []
    for c in range(claims):
        if c % 2:
            spec = {
                "devices": {
                    "requests": [
                        {
                            "name": "gpus",
                            "exactly": {
                                "deviceClassName": "gpu",
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
                                "selectors": [
                                    {"cel": {"expression": f'device.capacity["{DRIVER}"].memory.compareTo(quantity("64Gi")) >= 0'}}
                                ],
                            },
                        }
                    ]
                }
            }
        claim_objs.append(ResourceClaim.from_dict({"metadata": {"name": f"claim-{c}", "namespace": "default"}, "spec": spec}))
    return node_objs, slices, classes, claim_objs


def run(nodes, slices, classes, claims, features) -> tuple[int, int, Cache]:
    state = AllocatedState()
    cache = Cache()
    allocated = 0
    calls = 0
    for claim in claims:
        allocator = Allocator(features, state, classes, slices, cache)
        for node in nodes:
            calls += 1
            results = allocator.allocate(node, [claim])
            if results:
                claim.allocation = results[0]
                state.add_claim(claim, features.consumable_capacity)
                allocated += 1
                break
    return allocated, calls, cache


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--devices", type=int, default=8)
    ap.add_argument("--claims", type=int, default=2000)
    ap.add_argument("--release", default="1.37")
    args = ap.parse_args()
    features = Features.for_version(KubeVersion(args.release))
    nodes, slices, classes, claims = build(args.nodes, args.devices, args.claims)
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    allocated, calls, cache = run(nodes, slices, classes, claims, features)
    profiler.disable()
    elapsed = time.perf_counter() - start
    stats = pstats.Stats(profiler)
    cel_time = sum(v[3] for k, v in stats.stats.items() if "/dra/cel/" in k[0] and k[2] == "device_matches")
    total = sum(v[2] for v in stats.stats.values())
    print(
        f"release {args.release} ({features.implementation()} allocator): {args.nodes} nodes x {args.devices} devices, {args.claims} claims"
    )
    print(f"allocated {allocated} claims with {calls} Allocate calls in {elapsed:.2f}s (profiled): {args.claims / elapsed:.0f} claims/s")
    print(f"CEL: {cache.evaluations} evaluations, {100 * cel_time / max(total, 1e-9):.1f}% of the time in Cache.device_matches")
    start = time.perf_counter()
    nodes, slices, classes, claims = build(args.nodes, args.devices, args.claims)
    _, calls, _ = run(nodes, slices, classes, claims, features)
    elapsed = time.perf_counter() - start
    print(
        f"unprofiled (incl. building the objects): {elapsed:.2f}s, {args.claims / elapsed:.0f} claims/s, "
        f"{calls / elapsed:.0f} Allocate calls/s"
    )


if __name__ == "__main__":
    main()
