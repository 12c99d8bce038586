"""Where kschedctl's time goes on a scheduler_perf workload, and the floor of the same arithmetic.

    python benchmarks/cost_split.py                                  # SchedulingBasic and TopologySpreading, 5000 nodes
    python benchmarks/cost_split.py --shape TopologySpreading --repeat 3

For each workload (perf_config's file, the default configuration) it runs `kschedctl schedule`
in child processes with the phases timed in CPU seconds (user + sys of the process, which other
work on a shared machine disturbs far less than wall time):

- start-up: interpreter, imports, command line and configuration, up to reading the snapshot;
- load/decode: `load_snapshot` (read, parse, admit, type every object);
- setup: the Scheduler (profiles, cache, snapshot, columnar view);
- enqueue: every pending pod admitted to the queue (its PodInfo built);
- cycles: the scheduling and binding cycles of every pod;
- output: the result rendered as JSON and written.

The cycles are then split into a per-pod fixed cost and a per-evaluated-node cost by running
the same file with percentageOfNodesToScore set so that 100, 500 (the adaptive default at 5,000
nodes), 2,000 and 5,000 nodes are evaluated per pod (every node fits, so Filter visits that
many and Score scores them), and fitting cycles/pod = fixed + per_node x nodes.

The floor: the same arithmetic in a tight numpy loop over columns held in memory (fit on cpu,
memory and pod count, LeastAllocated and BalancedAllocation scores, zeros for the plugins that
add nothing here, the first highest total wins, the winner's columns updated; for
TopologySpreading also the zone counts, skew check and update), per pod and per node.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import perf_config  # noqa: E402

CASES = {
    "SchedulingBasic": perf_config.Case("SchedulingBasic", 5000, 1000, 10000, "SchedulingBasic/5000Nodes_10000Pods"),
    "TopologySpreading": perf_config.Case("TopologySpreading", 5000, 5000, 5000, "TopologySpreading/5000Nodes_5000Pods"),
}
# percentageOfNodesToScore -> nodes evaluated per pod at 5,000 nodes (max(100, 5000 x p / 100))
PERCENTAGES = {2: 100, 10: 500, 40: 2000, 100: 5000}
PHASES = ("start-up", "load/decode", "setup", "enqueue", "cycles", "output")


def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


# --- the child: one `kschedctl schedule`, its phases timed ---------------------------------------


def child(snapshot: str, config: str, out: str) -> None:
    """Runs `kschedctl schedule` in this process with its phases wrapped, then writes their CPU times."""
    import runpy

    marks: dict[str, float] = {}
    spent = dict.fromkeys(PHASES, 0.0)

    def timed(phase: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = _cpu()
            marks.setdefault(phase, t0)
            try:
                return fn(*args, **kwargs)
            finally:
                spent[phase] += _cpu() - t0

        return wrapper

    import kschedctl.cluster.loader as loader
    import kschedctl.output.render as render
    from kschedctl.scheduler.scheduler import Scheduler

    # the commands import these two where they use them, so the module attributes are what they call
    loader.load_snapshot = timed("load/decode", loader.load_snapshot)
    init = timed("setup", Scheduler.__init__)

    def setup(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.schedule_one = timed("cycles", self.schedule_one)  # a field, there to be wrapped

    Scheduler.__init__ = setup  # type: ignore[method-assign]
    Scheduler.enqueue_pending = timed("enqueue", Scheduler.enqueue_pending)  # type: ignore[method-assign]
    render.render_run = timed("output", render.render_run)
    sys.argv = ["kschedctl", "schedule", snapshot, "--config", config, "-o", "json", "--kube-version", "1.35", "--seed", "1"]

    def write_phases() -> None:
        total = _cpu()
        spent["start-up"] = marks.get("load/decode", total)
        Path(out).write_text(json.dumps({"phases": spent, "total": total}))

    # the command ends the process once the exit handlers have run (runtime/process.py finish)
    atexit.register(write_phases)
    sink = os.open(os.devnull, os.O_WRONLY)
    os.dup2(sink, 1)  # the command writes its JSON to the process's stdout: discarded
    runpy.run_module("kschedctl", run_name="__main__")


def run_child(snapshot: Path, config: Path) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, __file__, "--child", str(snapshot), str(config), out.name], check=True, env=env)
        return json.loads(Path(out.name).read_text())


# --- the floor -----------------------------------------------------------------------------------


def floor(case: perf_config.Case, nodes_per_pod: int, pods: int = 2000) -> float:
    """CPU seconds per pod of the bare arithmetic, in a tight numpy loop."""
    import numpy as np

    n = case.nodes
    alloc = np.array([[4000, 32 * 1024**3, 110]] * n, dtype=np.int64)  # cpu (m), memory, pods
    used = np.zeros((n, 3), dtype=np.int64)
    req = np.array([100, 500 * 1024**2, 1], dtype=np.int64)
    spread = case.shape == "TopologySpreading"
    zone = np.arange(n) % 3
    counts = np.zeros(3, dtype=np.int64)
    start = 0
    t0 = time.process_time()
    for _ in range(pods):
        rows = (start + np.arange(nodes_per_pod)) % n
        start = (start + nodes_per_pod) % n
        a, u = alloc[rows], used[rows] + req
        fit = (u <= a).all(axis=1)
        if spread:  # PodTopologySpread Filter: matching pods in the node's zone + 1 - min <= maxSkew
            fit &= counts[zone[rows]] + 1 - counts.min() <= 5
        frac = u[:, :2] / a[:, :2]
        least = ((1 - frac) * 100).mean(axis=1).astype(np.int64)  # LeastAllocated
        balanced = ((1 - frac.std(axis=1)) * 100).astype(np.int64)  # BalancedAllocation
        zeros = np.zeros(nodes_per_pod, dtype=np.int64)  # TaintToleration, NodeAffinity, ImageLocality
        total = least + balanced + zeros + zeros + zeros
        total[~fit] = -1
        best = rows[int(total.argmax())]
        used[best] += req
        if spread:
            counts[zone[best]] += 1
    return (time.process_time() - t0) / pods


# --- the parent ----------------------------------------------------------------------------------


def config_with(directory: Path, percentage: int | None) -> Path:
    path = directory / f"config-{percentage or 'default'}.yaml"
    text = perf_config.DEFAULT_CONFIG + (f"percentageOfNodesToScore: {percentage}\n" if percentage else "")
    path.write_text(text, encoding="utf-8")
    return path


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per phase, the least CPU over the repeats (the least disturbed)."""
    return {
        "phases": {p: min(r["phases"][p] for r in runs) for p in PHASES},
        "total": min(r["total"] for r in runs),
    }


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least squares of y = a + b x."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def split(case: perf_config.Case, directory: Path, repeat: int) -> dict[str, Any]:
    snapshot = perf_config.write(case, directory)
    pods = case.init + case.measure
    default = best([run_child(snapshot, config_with(directory, None)) for _ in range(repeat)])
    per_pod: list[tuple[int, float]] = []
    for pct, nodes in PERCENTAGES.items():
        run = default if nodes == 500 else best([run_child(snapshot, config_with(directory, pct)) for _ in range(repeat)])
        per_pod.append((nodes, run["phases"]["cycles"] / pods))
    fixed, per_node = fit(per_pod)
    return {
        "case": case.label,
        "pods": pods,
        "default": default,
        "cycles_per_pod": per_pod,
        "fixed_per_pod_s": fixed,
        "per_node_s": per_node,
        "floor_per_pod_s": {nodes: floor(case, nodes) for nodes in (100, 500)},
    }


def report(result: dict[str, Any]) -> str:
    d, pods = result["default"], result["pods"]
    lines = [f"{result['case']}: {d['total']:.2f} s CPU in all (default configuration, 500 nodes evaluated per pod)"]
    for phase in PHASES:
        secs = d["phases"][phase]
        lines.append(
            f"  {phase:<12} {secs:7.2f} s  {100 * secs / d['total']:5.1f} %"
            + (f"  {1e6 * secs / pods:7.1f} us/pod" if phase != "start-up" else "")
        )
    other = d["total"] - sum(d["phases"].values())
    lines.append(f"  {'other':<12} {other:7.2f} s  {100 * other / d['total']:5.1f} %  (queue loop, result wording, progress)")
    lines.append("  cycles per pod by nodes evaluated: " + ", ".join(f"{n}: {1e6 * s:.0f} us" for n, s in result["cycles_per_pod"]))
    f, b = result["fixed_per_pod_s"], result["per_node_s"]
    lines.append(f"  fit: {1e6 * f:.0f} us fixed per pod + {1e9 * b:.0f} ns per evaluated node")
    fl = result["floor_per_pod_s"]
    fixed_floor, node_floor = fit([(n, s) for n, s in fl.items()])
    lines.append(
        f"  numpy floor: {1e6 * fl[500]:.0f} us per pod at 500 nodes "
        f"({1e6 * fixed_floor:.0f} us fixed + {1e9 * node_floor:.1f} ns per node)"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        child(*argv[1:4])
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", action="append", choices=sorted(CASES), help="only this workload (repeatable)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per configuration; the least CPU per phase counts")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="cost-split-") as tmp:
        for shape in args.shape or list(CASES):
            results.append(split(CASES[shape], Path(tmp), args.repeat))
            print(report(results[-1]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
