"""Time `diff` and `capacity` on 5,000 nodes (numbers in benchmarks/RESULTS.md, "What-if").

    python benchmarks/whatif.py diff                    # SchedulingBasic 5000 nodes x 10000 pods, default vs bin-packing
    python benchmarks/whatif.py capacity                # a 100m pod on 5000 2-cpu nodes: 100,000 copies, fast path
    python benchmarks/whatif.py capacity --plain        # the same through the plain cycle (slow)
    python benchmarks/whatif.py capacity --max 5000     # fewer copies
    python benchmarks/whatif.py capacity --compare 20000  # fast and plain on the first N copies: same placements?
    python benchmarks/whatif.py nodes-for               # capacity --nodes-for: 5000 2-cpu nodes each with a 700m
                                                        # pod, 10000 pending 700m pods (5000 fit, 2500 nodes needed)
    python benchmarks/whatif.py nodes-for --zones 3     # the nodes in 3 zones, the template node in the first
    python benchmarks/whatif.py nodes-for --zones 3 --template-without-zone

Each case runs in this process; the snapshot is written to a temporary JSON file and loaded
through kschedctl.cluster.loader, as the CLI does. Times exclude loading (reported apart).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import workloads  # noqa: E402

from kschedctl.cluster.loader import load_snapshot  # noqa: E402
from kschedctl.config.loader import load_config_file  # noqa: E402
from kschedctl.plugins.plugin_manager import default_registry  # noqa: E402
from kschedctl.versions import KubeVersion  # noqa: E402

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "probe", "namespace": "default"},
    "spec": {
        "containers": [{"name": "c", "image": "registry.example/probe:1", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]
    },
}


def _write(doc: dict) -> str:
    fd, path = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "wb") as fh:
        fh.write(json.dumps(doc).encode())
    return path


def _load(path: str):
    t0 = time.perf_counter()
    cluster = load_snapshot([path])
    return cluster, time.perf_counter() - t0


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def bench_diff(nodes: int, pods: int, seed: int) -> None:
    from kschedctl.whatif.diff import Side, diff

    path = _write(workloads.scheduling_basic(nodes, pods, seed=seed).as_list())
    try:
        registry = default_registry().registry
        version = KubeVersion()
        cfg_a = load_config_file(None, version, registry)
        cfg_b = load_config_file(str(ROOT / "profiles" / "bin-packing.yaml"), version, registry)
        cluster_a, load_a = _load(path)
        cluster_b, load_b = _load(path)
        t0 = time.perf_counter()
        result = diff(
            Side("a", None, version, None, cfg_a, cluster_a),
            Side("b", "profiles/bin-packing.yaml", version, None, cfg_b, cluster_b),
            registry,
            seed,
        )
        took = time.perf_counter() - t0
    finally:
        os.unlink(path)
    s = result.summary()
    print(
        f"diff  nodes={nodes} pods={pods}: {took:.1f} s for both runs ({2 * pods / took:.0f} pods/s), "
        f"load {load_a:.2f}+{load_b:.2f} s, peak RSS {_rss_mib():.0f} MiB; "
        f"{s['changed']} changed, {s['moved']} moved ({s['scoresChanged']} scores changed, "
        f"{s['tieBreakOnly']} tie-break only); nodes used {result.a.packing.nodes_used} -> "
        f"{result.b.packing.nodes_used}"
    )


def _capacity(nodes: int, max_copies: int | None, fast: bool, seed: int):
    from kschedctl.whatif.capacity import capacity
    from kschedctl.whatif.templates import load_pod_template

    w = workloads.Workload("Capacity", nodes)
    w.objects = [workloads.node(i, cpu="2", memory="8Gi") for i in range(nodes)]
    path, pod_path = _write(w.as_list()), _write(POD)
    try:
        cluster, load_s = _load(path)
        registry = default_registry().registry
        version = KubeVersion()
        cfg = load_config_file(None, version, registry)
        template = load_pod_template(pod_path, cluster)
        t0 = time.perf_counter()
        result = capacity(cluster, cfg, registry, version, template, max_copies=max_copies, seed=seed, fast=fast)
        return result, time.perf_counter() - t0, load_s
    finally:
        os.unlink(path)
        os.unlink(pod_path)


def _digest(result) -> str:
    return hashlib.sha256(json.dumps([result.placements, result.stop_message]).encode()).hexdigest()[:16]


def bench_capacity(nodes: int, max_copies: int | None, plain: bool, seed: int) -> None:
    result, took, load_s = _capacity(nodes, max_copies, not plain, seed)
    print(
        f"capacity nodes={nodes} {'plain' if plain else 'fast'}: {result.count} copies in {took:.1f} s "
        f"({result.count / took:.0f} copies/s), fast attempts {result.fast_attempts}, load {load_s:.2f} s, "
        f"peak RSS {_rss_mib():.0f} MiB, placements digest {_digest(result)}; "
        f"stop: {result.stop_message and result.stop_message[:60]}"
    )


def compare_capacity(nodes: int, copies: int, seed: int) -> None:
    fast, t_fast, _ = _capacity(nodes, copies, True, seed)
    plain, t_plain, _ = _capacity(nodes, copies, False, seed)
    same = fast.placements == plain.placements and fast.stop_message == plain.stop_message
    print(
        f"compare nodes={nodes} copies={copies}: fast {t_fast:.1f} s, plain {t_plain:.1f} s "
        f"({t_plain / t_fast:.1f}x); identical placements: {same} ({_digest(fast)} / {_digest(plain)})"
    )


def bench_nodes_for(nodes: int, pods: int, zones: int, template_zone: bool, seed: int) -> None:
    """capacity --nodes-for on a full cluster: the pending pods that fit nowhere go to added
    nodes of the template's shape (the estimate), after one schedule of the whole cluster."""
    from kschedctl.scheduler.scheduler import Scheduler
    from kschedctl.whatif.capacity import nodes_for

    def shaped(name: str, zone: int | None) -> dict:
        labels = {workloads.HOSTNAME: name} | ({workloads.ZONE: f"zone-{zone}"} if zone is not None else {})
        alloc = {"cpu": "2", "memory": "8Gi", "pods": "110"}
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "status": {"allocatable": alloc, "capacity": alloc},
        }

    objects = [shaped(f"node-{i}", i % zones if zones else None) for i in range(nodes)]
    objects += [workloads.pod(f"bound-{i}", cpu="700m", memory="0", node_name=f"node-{i}") for i in range(nodes)]
    objects += [workloads.pod(f"pending-{i}", cpu="700m", memory="0") for i in range(pods)]
    template = shaped("template", 0 if zones and template_zone else None)
    path = _write({"apiVersion": "v1", "kind": "List", "items": objects})
    try:
        cluster, load_s = _load(path)
    finally:
        os.unlink(path)
    registry = default_registry().registry
    version = KubeVersion()
    cfg = load_config_file(None, version, registry)
    spent = [0.0]
    run = Scheduler.run

    def timed(self, *a, **k):  # the schedule of the whole cluster, apart from the estimate
        t = time.perf_counter()
        try:
            return run(self, *a, **k)
        finally:
            spent[0] += time.perf_counter() - t

    Scheduler.run = timed  # type: ignore[method-assign]
    try:
        t0 = time.perf_counter()
        result = nodes_for(cluster, cfg, registry, version, template, seed=seed)
        took = time.perf_counter() - t0
    finally:
        Scheduler.run = run  # type: ignore[method-assign]
    digest = hashlib.sha256(json.dumps(result.new_nodes, sort_keys=True).encode()).hexdigest()[:16]
    print(
        f"nodes-for nodes={nodes} pods={pods} zones={zones} template in a zone: {bool(zones and template_zone)}: "
        f"{took:.1f} s (the cluster's schedule {spent[0]:.1f} s, the estimate {took - spent[0]:.1f} s), "
        f"load {load_s:.2f} s, peak RSS {_rss_mib():.0f} MiB; {result.nodes_needed} nodes needed, "
        f"{result.fit_existing} fit the cluster; new nodes digest {digest}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["diff", "capacity", "nodes-for"])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=10000, help="diff, nodes-for: pending pods")
    ap.add_argument("--zones", type=int, default=0, help="nodes-for: the cluster's nodes in this many zones")
    ap.add_argument("--template-without-zone", action="store_true", help="nodes-for: the template node in no zone")
    ap.add_argument("--max", type=int, default=None, help="capacity: stop after this many copies")
    ap.add_argument("--plain", action="store_true", help="capacity: no fast path")
    ap.add_argument("--compare", type=int, default=None, metavar="N", help="capacity: fast vs plain on N copies")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"# {' '.join(sys.argv)}  (load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs)")
    if args.what == "diff":
        bench_diff(args.nodes, args.pods, args.seed)
    elif args.what == "nodes-for":
        bench_nodes_for(args.nodes, args.pods, args.zones, not args.template_without_zone, args.seed)
    elif args.compare:
        compare_capacity(args.nodes, args.compare, args.seed)
    else:
        bench_capacity(args.nodes, args.max, args.plain, args.seed)


if __name__ == "__main__":
    main()
