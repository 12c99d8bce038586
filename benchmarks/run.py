"""Run the scheduler_perf-shaped benchmarks: pods/s, per-pod latency, peak RSS, snapshot load time.

    python benchmarks/run.py                      # every workload at 500 and 5000 nodes + scaling table
    python benchmarks/run.py --quick              # fewer measured pods, 500 nodes only, small scaling table
    python benchmarks/run.py --workload SchedulingBasic --nodes 5000
    python benchmarks/run.py --workload SchedulingBasic --nodes 5000 --profile   # cProfile of Scheduler.run()

Each case runs in its own process so that peak RSS belongs to that case. The workload is
written to a temporary JSON (or, with --yaml, YAML) file and loaded through
kschedctl.cluster.loader, so the load time is the one a user sees.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

SIZES = (500, 5000)
SCALING = (100, 500, 1000, 5000, 15000)


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, int(round(p / 100.0 * (len(sorted_values) - 1)))))
    return sorted_values[k]


def run_one(name: str, nodes: int, measured: int | None, seed: int, use_yaml: bool, profile: bool, quick: bool) -> dict:
    """Generate, write, load, schedule; returns the figures of one case."""
    import workloads

    from kschedctl.cluster.loader import load_snapshot
    from kschedctl.config.loader import load_config_file
    from kschedctl.plugins.plugin_manager import default_registry
    from kschedctl.scheduler.scheduler import Scheduler
    from kschedctl.versions import DEFAULT_VERSION, KubeVersion

    if measured is None:
        measured = workloads.measured_pods(name, nodes, quick)
    w = (
        workloads.make(name, nodes, measured, seed=seed)
        if name in workloads.WORKLOADS
        else workloads.memory_check(nodes, measured=measured)
    )
    doc = w.as_list()
    suffix = ".yaml" if use_yaml else ".json"
    with tempfile.NamedTemporaryFile("wb", suffix=suffix, delete=False) as fh:
        path = fh.name
        if use_yaml:
            import yaml

            dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
            fh.write(yaml.dump(doc, Dumper=dumper).encode())
        else:
            try:
                import orjson

                fh.write(orjson.dumps(doc))
            except ImportError:
                fh.write(json.dumps(doc).encode())
    del doc, w
    try:
        t0 = time.perf_counter()
        cluster = load_snapshot([path])
        load_s = time.perf_counter() - t0
    finally:
        os.unlink(path)

    version = KubeVersion(DEFAULT_VERSION)
    registry = default_registry().registry
    cfg = load_config_file(None, version, registry)
    t0 = time.perf_counter()
    sched = Scheduler(cluster, cfg, registry, version, seed=seed)
    setup_s = time.perf_counter() - t0

    latencies: list[float] = []
    inner = sched.schedule_one

    def timed(qpi):  # per-pod latency of one scheduling (+ synchronous binding) cycle
        s = time.perf_counter()
        inner(qpi)
        latencies.append(time.perf_counter() - s)

    sched.schedule_one = timed

    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    t0 = time.perf_counter()
    result = sched.run()
    run_s = time.perf_counter() - t0
    if prof is not None:
        prof.disable()
        import pstats

        pstats.Stats(prof, stream=sys.stderr).sort_stats(os.environ.get("BENCH_SORT", "tottime")).print_stats(35)
    latencies.sort()
    placed = len(result.placements)
    return {
        "workload": name,
        "nodes": nodes,
        "measured": measured,
        "placed": placed,
        "unschedulable": len(result.unschedulable),
        "preemptions": len(result.preemptions),
        "attempts": len(latencies),
        "pods_per_s": placed / run_s if run_s else 0.0,
        "attempts_per_s": len(latencies) / run_s if run_s else 0.0,
        "p50_ms": _percentile(latencies, 50) * 1e3,
        "p90_ms": _percentile(latencies, 90) * 1e3,
        "p99_ms": _percentile(latencies, 99) * 1e3,
        "load_s": load_s,
        "setup_s": setup_s,
        "run_s": run_s,
        "peak_rss_mib": _peak_rss_mib(),
    }


def _subprocess(name: str, nodes: int, measured: int | None, args: argparse.Namespace) -> dict | None:
    cmd = [sys.executable, __file__, "--one", "--workload", name, "--nodes", str(nodes), "--seed", str(args.seed)]
    if measured is not None:
        cmd += ["--measured", str(measured)]
    if args.quick:
        cmd.append("--quick")
    if args.yaml:
        cmd.append("--yaml")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(f"{name}/{nodes}: failed\n{proc.stderr[-3000:]}\n")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


HEADER = (
    f"{'workload':28} {'nodes':>6} {'pods':>6} {'placed':>6} {'pods/s':>8} {'p50 ms':>7} {'p90 ms':>7} "
    f"{'p99 ms':>7} {'RSS MiB':>8} {'load s':>7}"
)


def _row(r: dict) -> str:
    return (
        f"{r['workload']:28} {r['nodes']:>6} {r['measured']:>6} {r['placed']:>6} {r['pods_per_s']:>8.0f} "
        f"{r['p50_ms']:>7.2f} {r['p90_ms']:>7.2f} {r['p99_ms']:>7.2f} {r['peak_rss_mib']:>8.0f} {r['load_s']:>7.2f}"
    )


def machine() -> str:
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs, {model}, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    import workloads

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer measured pods; 500 nodes; small scaling table")
    ap.add_argument("--workload", choices=sorted(workloads.WORKLOADS) + ["Memory"], action="append")
    ap.add_argument("--nodes", type=int, action="append")
    ap.add_argument("--measured", type=int, help="measured pods (default: per workload)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--yaml", action="store_true", help="write and load the snapshot as YAML (default JSON)")
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--profile", action="store_true", help="cProfile Scheduler.run() (in-process, one case)")
    ap.add_argument("--json", action="store_true", help="print results as JSON lines")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.one or args.profile:
        name = (args.workload or ["SchedulingBasic"])[0]
        nodes = (args.nodes or [500])[0]
        r = run_one(name, nodes, args.measured, args.seed, args.yaml, args.profile, args.quick)
        if args.profile:
            print(HEADER)
            print(_row(r))
        else:
            print(json.dumps(r))
        return 0

    print(f"# machine: {machine()}")
    print(f"# date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    print(f"# command: python benchmarks/run.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    names = args.workload or list(workloads.WORKLOADS)
    sizes = args.nodes or ([500] if args.quick else list(SIZES))
    print(HEADER)
    for name in names:
        for nodes in sizes:
            r = _subprocess(name, nodes, args.measured, args)
            if r is not None:
                print(json.dumps(r) if args.json else _row(r), flush=True)
    if not args.no_scaling and not args.workload and not args.nodes:
        print("\n# scaling: SchedulingBasic")
        print(f"{'nodes':>6} {'pods':>6} {'pods/s':>8} {'p99 ms':>7} {'RSS MiB':>8}")
        for nodes in SCALING[:3] if args.quick else SCALING:
            r = _subprocess("SchedulingBasic", nodes, args.measured or (200 if args.quick else 2000), args)
            if r is not None:
                print(f"{nodes:>6} {r['measured']:>6} {r['pods_per_s']:>8.0f} {r['p99_ms']:>7.2f} {r['peak_rss_mib']:>8.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
