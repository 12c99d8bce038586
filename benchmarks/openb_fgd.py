"""Reproduce the table of Weng et al., *Beware of Fragmentation* (USENIX ATC '23) on openb.

    python benchmarks/openb_fgd.py [--workload default ...] [--seeds 42,43] [--jobs 2]
        [--executor local|dask] [--html openb_fgd.html] [-o table|json]

For each workload and arrival seed it writes the snapshot (tools/traces/openb.py: the GPU
nodes, the trace shuffled and inflated to 130 % of GPU capacity), runs the matrix of
examples/openb/sweep.yaml over them with `kschedctl sweep` (the local process pool by default,
niced), and replays each cell's placements in arrival order: the GPU allocation ratio
(allocated GPU milli / capacity) and FGD's fragmented GPU amount after every pod, binned by
arrived workload (cumulative GPU request of the pods arrived, failed ones included, in % of
capacity, rounded), the mean per bin (an empty bin takes its +-1 neighbours), as the paper's
analysis does. It prints the allocation ratio at 100 % beside the paper's
(analysis_allo_discrete.csv, mean of seeds 42-51) and writes the curves (plotly; the paper's
dashed) to an HTML file.

Needs the plugin package (pip install ./plugins/kschedctl-gpushare, or it on PYTHONPATH with
its entry point) and plotly for the HTML. The data is research-use only: cite the paper.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools" / "traces"))
sys.path.insert(0, str(ROOT / "plugins" / "kschedctl-gpushare"))

import openb  # noqa: E402  (tools/traces/openb.py)

TRACE = Path("/work/shared/traces/openb")
EXAMPLE = ROOT / "examples" / "openb"
WORKLOADS = ("default", "gpushare100", "multigpu50", "gpuspec33")
# our name -> the paper's sc_policy
POLICIES = {
    "Random": "01-Random",
    "DotProduct": "02-DotProd",
    "GpuClustering": "03-GpuClustering",
    "GpuPacking": "04-GpuPacking",
    "BestFit": "05-BestFit",
    "FGD": "06-FGD",
}
BINS = 131  # arrived workload 0..130 %


def paper_curves(path: Path, workload: str) -> dict[str, list[float]]:
    """The published curves (mean over the seeds in the file) per policy, from analysis_*_discrete.csv."""
    sums: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            if row["workload"] != f"openb_pod_list_{workload}":
                continue
            name = next((k for k, v in POLICIES.items() if v == row["sc_policy"]), None)
            if name is None:
                continue
            values = [float(row[str(k)]) for k in range(BINS)]
            acc = sums.setdefault(name, [0.0] * BINS)
            for k, v in enumerate(values):
                acc[k] += v
            counts[name] = counts.get(name, 0) + 1
    return {name: [v / counts[name] for v in acc] for name, acc in sums.items()}


def binned(points: Iterable[tuple[int, float]]) -> list[float | None]:
    """Mean value per arrived-workload bin; an empty bin takes the mean of its +-1 neighbours."""
    sums = [0.0] * BINS
    counts = [0] * BINS
    for k, value in points:
        if 0 <= k < BINS:
            sums[k] += value
            counts[k] += 1
    out: list[float | None] = [sums[k] / counts[k] if counts[k] else None for k in range(BINS)]
    for k in range(BINS):
        if out[k] is None:
            near = [sums[j] / counts[j] for j in (k - 1, k + 1) if 0 <= j < BINS and counts[j]]
            out[k] = sum(near) / len(near) if near else None
    return out


class Replay:
    """The cluster's GPUs replayed placement by placement (best-fit GPU inside a node, the
    default of every policy but Random and FGD): allocated milli and FGD's fragmented amount."""

    def __init__(self, nodes: list[openb.TraceNode], typical: list[tuple[int, int, int, frozenset[str] | None, float]]):
        self.free = {n.name: [openb.MILLI] * n.gpus for n in nodes}
        self.cpu = {n.name: n.cpu_milli for n in nodes}
        self.model = {n.name: n.model for n in nodes}
        self.typical = typical
        self.frag_of = {n.name: self._frag(n.name) for n in nodes}
        self.frag = sum(self.frag_of.values())

    def _frag(self, name: str) -> float:
        free, cpu, model = self.free[name], self.cpu[name], self.model[name]
        total = sum(free)
        out = 0.0
        for t_cpu, t_milli, t_num, t_models, p in self.typical:
            fits = (
                t_milli > 0 and cpu >= t_cpu and (t_models is None or model in t_models) and sum(1 for f in free if f >= t_milli) >= t_num
            )
            out += p * (sum(f for f in free if f < t_milli) if fits else total)
        return out

    def place(self, pod: openb.TracePod, node: str) -> None:
        free = self.free[node]
        self.cpu[node] -= pod.cpu_milli
        if pod.gpu_request:
            if pod.num_gpu == 1 and pod.gpu_milli < openb.MILLI:
                fitting = [(f, i) for i, f in enumerate(free) if f >= pod.gpu_milli]
                gpus = [min(fitting)[1]] if fitting else []
            else:
                gpus = [i for i, f in enumerate(free) if f == openb.MILLI][: pod.num_gpu]
            for i in gpus:
                free[i] -= pod.gpu_milli
        self.frag -= self.frag_of[node]
        self.frag_of[node] = self._frag(node)
        self.frag += self.frag_of[node]


def typical_of(pods: list[openb.TracePod], coverage: float = 0.95) -> list[tuple[int, int, int, frozenset[str] | None, float]]:
    counts: dict[tuple[int, int, int, str], int] = {}
    for p in pods:
        key = (p.cpu_milli, p.gpu_milli if p.num_gpu else 0, p.num_gpu if p.gpu_milli else 0, p.gpu_spec)
        counts[key] = counts.get(key, 0) + 1
    total = sum(counts.values())
    out, covered = [], 0
    for (cpu, milli, num, spec), k in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        models = frozenset(m for m in spec.split("|") if m) or None
        out.append((cpu, milli, num, models, k))
        covered += k
        if covered >= coverage * total:
            break
    weight = sum(t[4] for t in out)
    return [(c, m, n, s, k / weight) for c, m, n, s, k in out]


def analyse(
    placements: dict[str, str],
    arrivals: list[tuple[openb.TracePod, str]],
    nodes: list[openb.TraceNode],
    typical: list[Any],
    capacity: int,
    limit: float | None = None,
) -> dict[str, Any]:
    """Allocation ratio and fragmented GPU (% of capacity) per arrived-workload bin."""
    replay = Replay(nodes, typical)
    arrived = allocated = 0
    alloc_points, frag_points = [], []
    for pod, name in arrivals:
        arrived += pod.gpu_request
        if limit is not None and arrived * 100 > limit * capacity:
            break  # the pods past the cut were gated, not scheduled
        node = placements.get(name)
        if node is not None:
            allocated += pod.gpu_request
            replay.place(pod, node)
        k = int(round(arrived * 100 / capacity))
        alloc_points.append((k, allocated * 100 / capacity))
        frag_points.append((k, replay.frag * 100 / capacity))
    return {"allocation": binned(alloc_points), "fragmentation": binned(frag_points)}


def build_snapshots(
    workloads: list[str], seeds: list[int], out: Path, trace: Path, max_arrived: float | None = None, write: bool = True
) -> dict[tuple[str, int], Any]:
    """Writes one snapshot per (workload, seed) (unless ``write`` is false); returns what the
    analysis needs of each."""
    nodes = [n for n in openb.read_nodes(trace / "openb_node_list_gpu_node.csv") if n.gpus > 0]
    capacity = sum(n.gpus for n in nodes) * openb.MILLI
    (out / "snapshots").mkdir(parents=True, exist_ok=True)
    meta: dict[tuple[str, int], Any] = {}
    pods_of = {w: openb.read_pods(trace / f"openb_pod_list_{w}.csv") for w in workloads}
    for s in seeds:  # seed-major: the sweep runs every workload of the first seed first
        for w in workloads:
            pods = pods_of[w]
            typical = typical_of(pods)
            arrivals = openb.arrival_order(pods, capacity, s, 1.3)
            path = out / "snapshots" / f"{w}-{s}.json"
            if write:
                path.write_text(json.dumps(openb.snapshot(nodes, arrivals, max_arrived), separators=(",", ":")))
            order = [(p, f"{openb.NAMESPACE}/{openb.pod_name(p, i, r)}") for i, (p, r) in enumerate(arrivals)]
            meta[(w, s)] = {"path": path, "arrivals": order, "typical": typical}
    return {"nodes": nodes, "capacity": capacity, "cells": meta, "limit": max_arrived}


def write_matrix(out: Path, snapshots: list[tuple[str, Path]], policies: list[str]) -> Path:
    matrix = yaml.safe_load((EXAMPLE / "sweep.yaml").read_text())
    matrix["snapshots"] = [{"name": name, "paths": [str(path)]} for name, path in snapshots]
    configs = []
    for entry in matrix["configs"]:
        if entry["name"] in policies:
            entry["file"] = str(EXAMPLE / entry["file"])
            configs.append(entry)
    matrix["configs"] = configs
    path = out / "openb-fgd.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    return path


def run_sweep(matrix: Path, results: Path, jobs: int, executor: str, cluster: str | None, nice: int, resume: bool) -> float:
    cmd = [
        sys.executable,
        "-m",
        "kschedctl",
        "sweep",
        str(matrix),
        "--jobs",
        str(jobs),
        "--executor",
        executor,
        "--results",
        str(results),
        "--format",
        "csv",
        "-o",
        "json",
    ]
    if cluster:
        cmd += ["--cluster", cluster]
    if resume:
        cmd.append("--resume")
    if nice:
        cmd = ["nice", "-n", str(nice), *cmd]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"error: kschedctl sweep exited {proc.returncode}")
    return time.monotonic() - start


def read_journal(matrix: Path, results: Path) -> list[dict[str, Any]]:
    """The cells a sweep finished so far (its journal, RESULTS.cells.jsonl), as result rows:
    what an interrupted or still running sweep has to show."""
    from kschedctl.plugins.plugin_manager import default_registry
    from kschedctl.sweep.matrix import load_matrix

    cells = {c.key: c for c in load_matrix(str(matrix), default_registry().registry).cells}
    rows = []
    journal = results.with_name(results.name + ".cells.jsonl")
    for line in journal.read_text().splitlines() if journal.exists() else []:
        entry = json.loads(line)
        cell = cells.get(entry.get("key"))
        if cell is None:
            continue
        result = entry.get("result")
        rows.append(
            {
                "snapshot": cell.snapshot.label,
                "config": cell.config.label,
                "status": entry.get("status"),
                "error": entry.get("error"),
                "wallSeconds": entry.get("wallSeconds"),
                "result": result if isinstance(result, str) else json.dumps(result),
            }
        )
    return rows


def read_results(results: Path) -> list[dict[str, Any]]:
    csv.field_size_limit(1 << 30)
    with results.open(newline="") as f:
        return list(csv.DictReader(f))


def plot(html: Path, report: dict[str, Any]) -> None:
    try:
        import plotly.graph_objects as go
        from plotly.subplots import make_subplots
    except ImportError:
        print("warning: plotly is not installed; no HTML written (pip install plotly)", file=sys.stderr)
        return
    workloads = list(report)
    fig = make_subplots(rows=len(workloads), cols=1, subplot_titles=[f"openb {w}" for w in workloads])
    colors = {
        "Random": "#7f7f7f",
        "DotProduct": "#9467bd",
        "GpuClustering": "#8c564b",
        "GpuPacking": "#ff7f0e",
        "BestFit": "#1f77b4",
        "FGD": "#d62728",
    }
    x = list(range(BINS))
    for row, w in enumerate(workloads, start=1):
        for name, data in report[w]["policies"].items():
            color = colors.get(name)
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=data["curve"],
                    mode="lines",
                    name=f"{name} (kschedctl)",
                    legendgroup=name,
                    showlegend=row == 1,
                    line={"color": color},
                ),
                row=row,
                col=1,
            )
            if data.get("paperCurve"):
                fig.add_trace(
                    go.Scatter(
                        x=x,
                        y=data["paperCurve"],
                        mode="lines",
                        name=f"{name} (paper)",
                        legendgroup=name,
                        showlegend=row == 1,
                        line={"color": color, "dash": "dash"},
                    ),
                    row=row,
                    col=1,
                )
        fig.update_xaxes(title_text="arrived workload (% of GPU capacity)", row=row, col=1)
        fig.update_yaxes(title_text="GPU allocation ratio (%)", row=row, col=1)
    fig.update_layout(
        height=420 * len(workloads), title="GPU allocation ratio vs arrived workload (Weng et al., ATC '23, openb; dashed: the paper's)"
    )
    html.write_text(fig.to_html(include_plotlyjs=True, full_html=True))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workload", action="append", choices=WORKLOADS, help="repeatable (default: all four)")
    ap.add_argument("--seeds", default="42,43", help="arrival seeds, comma separated (default 42,43)")
    ap.add_argument("--policies", default=",".join(POLICIES), help="comma separated (default: all six)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--executor", choices=("local", "dask"), default="local")
    ap.add_argument("--cluster", default=None, help="Dask scheduler address (with --executor dask)")
    ap.add_argument("--nice", type=int, default=10, help="niceness of the sweep (default 10; 0: none)")
    ap.add_argument(
        "--max-arrived",
        type=float,
        default=101.0,
        help="schedule the pods arriving up to this %% of GPU capacity (default 101: the 100 %% column; 130: whole curves)",
    )
    ap.add_argument("--resume", action="store_true", help="reuse the cells the work dir's sweep already ran")
    ap.add_argument(
        "--from-journal",
        action="store_true",
        help="run nothing: summarise the cells the work dir's sweep finished so far (it may still run)",
    )
    ap.add_argument("--trace", type=Path, default=TRACE)
    ap.add_argument("--work-dir", type=Path, default=None, help="snapshots, matrix and results (default: a temp dir)")
    ap.add_argument("--html", type=Path, default=Path("openb_fgd.html"))
    ap.add_argument("-o", "--output", choices=("table", "json"), default="table")
    args = ap.parse_args(argv)
    workloads = args.workload or list(WORKLOADS)
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    except ValueError:
        print(f"error: --seeds: {args.seeds!r} is not a comma-separated list of integers", file=sys.stderr)
        return 2
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    unknown = [p for p in policies if p not in POLICIES]
    if unknown or not seeds:
        print(
            f"error: --policies: unknown policy {unknown[0]!r} (known: {', '.join(POLICIES)})" if unknown else "error: --seeds: no seed",
            file=sys.stderr,
        )
        return 2
    # absolute: the matrix names its snapshots relative to its own folder
    work = args.work_dir.resolve() if args.work_dir else Path(tempfile.mkdtemp(prefix="openb-fgd-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        built = build_snapshots(
            workloads, seeds, work, args.trace, args.max_arrived if args.max_arrived < 130 else None, write=not args.from_journal
        )
    except openb.TraceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    results_path = work / "openb-fgd.results.csv"
    if args.from_journal:
        wall = 0.0
        rows = read_journal(work / "openb-fgd.yaml", results_path)
    else:
        matrix = write_matrix(work, [(f"{w}-{s}", m["path"]) for (w, s), m in built["cells"].items()], policies)
        wall = run_sweep(matrix, results_path, args.jobs, args.executor, args.cluster, args.nice, args.resume)
        rows = read_results(results_path)
    report = summarise(rows, built, workloads, seeds, policies, args.trace)
    plot(args.html, report)
    if args.output == "json":
        out = [
            {
                "workload": w,
                "seeds": seeds,
                "policies": {
                    n: {"allocationAt100": d["allocationAt100"], "paperAt100": d["paperAt100"]} for n, d in report[w]["policies"].items()
                },
            }
            for w in workloads
        ]
        print(json.dumps(out[0] if len(out) == 1 else out, indent=2))
    else:
        print_table(report, seeds, wall, rows)
        print(f"\nplot: {args.html}   work dir: {work}")
    return 0


def summarise(
    rows: list[dict[str, Any]], built: dict[str, Any], workloads: list[str], seeds: list[int], policies: list[str], trace: Path
) -> dict[str, Any]:
    curves: dict[tuple[str, str], list[list[float | None]]] = {}
    frags: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        if row.get("status") != "ok":
            print(f"warning: cell {row.get('snapshot')} {row.get('config')}: {row.get('status')} {row.get('error')}", file=sys.stderr)
            continue
        w, _, s = str(row["snapshot"]).rpartition("-")
        meta = built["cells"].get((w, int(s)))
        if meta is None:  # a journal's cell of another workload or seed
            continue
        result = json.loads(row["result"])
        placements = {p["pod"]: p["node"] for p in result.get("placements", [])}
        got = analyse(placements, meta["arrivals"], built["nodes"], meta["typical"], built["capacity"], built["limit"])
        curves.setdefault((w, row["config"]), []).append(got["allocation"])
        frag100 = got["fragmentation"][100]
        if frag100 is not None:
            frags.setdefault((w, row["config"]), []).append(frag100)
    report: dict[str, Any] = {}
    for w in workloads:
        paper = paper_curves(trace / "analysis_allo_discrete.csv", w)
        paper_frag = paper_curves(trace / "analysis_frag_discrete.csv", w)
        entry: dict[str, Any] = {}
        for name in policies:
            runs = curves.get((w, name), [])
            curve = [_mean([r[k] for r in runs]) for k in range(BINS)]
            entry[name] = {
                "curve": curve,
                "runs": len(runs),
                "allocationAt100": _round(curve[100]),
                "paperAt100": _round(paper[name][100]) if name in paper else None,
                "paperCurve": paper.get(name),
                "fragmentationAt100": _round(_mean(frags.get((w, name), []))),
                "paperFragmentationAt100": _round(paper_frag[name][100]) if name in paper_frag else None,
            }
        report[w] = {"policies": entry}
    return report


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def print_table(report: dict[str, Any], seeds: list[int], wall: float, rows: list[dict[str, Any]]) -> None:
    print(f"GPU allocation ratio (%) at 100 % arrived workload, mean of seeds {','.join(map(str, seeds))} (paper: mean of 42-51)\n")
    print(f"{'workload':<12} {'policy':<14} {'kschedctl':>9} {'paper':>7} {'diff':>6} {'rank':>4}   {'frag%':>6} {'paper':>6} {'runs':>4}")
    for w, data in report.items():
        ranked = sorted(data["policies"].items(), key=lambda kv: -(kv[1]["allocationAt100"] or 0))
        for rank, (name, d) in enumerate(ranked, start=1):
            ours, paper = d["allocationAt100"], d["paperAt100"]
            diff = f"{ours - paper:+.2f}" if ours is not None and paper is not None else "-"
            print(
                f"{w:<12} {name:<14} {_fmt(ours):>9} {_fmt(paper):>7} {diff:>6} {rank:>4}   "
                f"{_fmt(d['fragmentationAt100']):>6} {_fmt(d['paperFragmentationAt100']):>6} {d['runs']:>4}"
            )
    seconds = [float(r["wallSeconds"]) for r in rows if r.get("wallSeconds")]
    if seconds:
        print(
            f"\n{len(rows)} cells, sweep wall {wall:.0f} s; per cell {min(seconds):.0f}-{max(seconds):.0f} s "
            f"(mean {sum(seconds) / len(seconds):.0f} s)"
        )


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    sys.exit(main())
