"""Sweep throughput: cells/s with the local pool at --jobs 1 and --jobs 2 and with Dask's
LocalCluster (--executor dask --jobs 2), on the same matrix, through the real CLI; and the
numbers a many-machine estimate needs (benchmarks/RESULTS.md, "Sweeps"): per-cell cost, data
shipped per cell, per-task overhead of each executor, snapshot parse vs cache hit.

    python benchmarks/sweep.py                       # 2 snapshots x 4 configurations x 2 seeds = 16 cells
    python benchmarks/sweep.py --nodes 1000 --pods 1000 --seeds 3 --repeat 1

Each executor runs --repeat times, interleaved (a shared machine's load changes by the
minute): the best and the median sweep time are shown.

Needs kschedctl[dask] and kschedctl[parquet]. The three runs must print the same table: the
script checks it.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import scheduling_basic  # noqa: E402

RUNS = {
    "local --jobs 1": ["--jobs", "1"],
    "local --jobs 2": ["--jobs", "2"],
    "dask LocalCluster, 2 workers": ["--executor", "dask", "--jobs", "2"],
}


def write_matrix(folder: Path, nodes: int, pods: int, seeds: int) -> Path:
    for i in (1, 2):
        doc = scheduling_basic(nodes, pods, seed=i).as_list()
        (folder / f"snapshot-{i}.json").write_text(json.dumps(doc, separators=(",", ":")))
    matrix = folder / "bench.yaml"
    matrix.write_text(
        "apiVersion: kschedctl.io/v1alpha1\nkind: Sweep\nmetadata: {name: bench}\n"
        "snapshots: [snapshot-1.json, snapshot-2.json]\n"
        "configs:\n  - name: fit\n    weights: {NodeResourcesFit: [1, 5]}\n"
        "    scoringStrategy: [LeastAllocated, MostAllocated]\n"
        f"seeds: {{count: {seeds}}}\n"
    )
    return matrix


def run_sweep(folder: Path, matrix: Path, args: list[str], results: str) -> tuple[float, float, str]:
    """(end-to-end seconds, the sweep's own seconds as it reports them, stdout)."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "kschedctl", "sweep", str(matrix), "--results", results, *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    total = time.perf_counter() - start
    own = float(re.search(r"cells run in ([0-9.]+)s", proc.stderr).group(1))
    return total, own, proc.stdout.replace(results, "RESULTS")


def cell_seconds(folder: Path, results: str) -> tuple[float, float]:
    """The mean wall and CPU time of a cell, as the worker measured them (results' wallSeconds
    and cpuSeconds): wall well above CPU means the worker waited for a core."""
    import pyarrow.parquet as pq

    table = pq.read_table(folder / results).to_pylist()
    return (sum(r["wallSeconds"] for r in table) / len(table), sum(r["cpuSeconds"] for r in table) / len(table))


def per_cell_numbers(folder: Path, matrix: Path) -> dict[str, float]:
    """Wall time per cell (from the results file), bytes shipped per cell, parse vs cache hit."""
    import pyarrow.parquet as pq

    from kschedctl.plugins.plugin_manager import default_registry
    from kschedctl.sweep import cell
    from kschedctl.sweep.executors import _with_data
    from kschedctl.sweep.matrix import load_matrix
    from kschedctl.sweep.run import tasks_of

    table = pq.read_table(folder / "r-0.parquet").to_pylist()
    m = load_matrix(str(matrix), default_registry().registry)
    task, source = tasks_of(m, m.cells[:1])[0]
    start = time.perf_counter()
    cell.loaded(source, "schedule")
    parse = time.perf_counter() - start
    start = time.perf_counter()
    cell.loaded(source, "schedule")
    hit = time.perf_counter() - start
    start = time.process_time()
    cell.run_cell(task, source)
    cpu = time.process_time() - start
    return {
        "cell_cpu_seconds": cpu,
        "task_bytes": len(pickle.dumps((task, source))),
        "snapshot_bytes": sum(len(d) for d in _with_data(source).data or ()),
        "result_bytes_mean": sum(len(r["result"] or "") for r in table) / len(table),
        "parse_seconds": parse,
        "cache_hit_seconds": hit,
    }


def task_overheads(n: int = 400) -> dict[str, float]:
    """Seconds per no-op task: the executors' own cost, with nothing to compute."""
    import logging
    from concurrent.futures import ProcessPoolExecutor

    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.CRITICAL)  # shutdown chatter
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(abs, range(20)))
        start = time.perf_counter()
        list(pool.map(abs, range(n)))
        local = (time.perf_counter() - start) / n
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        client.gather(client.map(abs, range(-20, 0)))
        start = time.perf_counter()
        client.gather(client.map(abs, range(n)))
        dask = (time.perf_counter() - start) / n
    return {"local_pool_task_seconds": local, "dask_task_seconds": dask}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=300)
    parser.add_argument("--pods", type=int, default=300)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="kschedctl-sweep-bench-"))
    matrix = write_matrix(folder, args.nodes, args.pods, args.seeds)
    cells = 2 * 4 * args.seeds
    print(
        f"{cells} cells: 2 snapshots (SchedulingBasic, {args.nodes} nodes, {args.pods} pending pods) x "
        f"4 configurations x {args.seeds} seeds; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}"
    )
    outputs: dict[str, str] = {}
    times: dict[str, list[tuple[float, float, tuple[float, float]]]] = {name: [] for name in RUNS}
    for _r in range(args.repeat):
        for i, (name, flags) in enumerate(RUNS.items()):
            results = f"r-{i}.parquet"
            total, own, outputs[name] = run_sweep(folder, matrix, flags, results)
            times[name].append((own, total, cell_seconds(folder, results)))
    print(f"{'executor':30} {'best sweep':>10} {'median':>8} {'cells/s (best)':>15} {'end to end':>11} {'cell wall':>10} {'cell CPU':>9}")
    for name, runs in times.items():
        runs.sort()
        own, total, (wall, cpu) = runs[0]
        median = runs[len(runs) // 2][0]
        print(f"{name:30} {own:9.1f}s {median:7.1f}s {cells / own:15.2f} {total:10.1f}s {wall:9.3f}s {cpu:8.3f}s")
    same = len(set(outputs.values())) == 1
    print(f"same table from every executor: {'yes' if same else 'NO'}")
    for k, v in {**per_cell_numbers(folder, matrix), **task_overheads()}.items():
        print(f"{k:28} {v:.6g}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
