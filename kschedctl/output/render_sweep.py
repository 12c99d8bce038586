"""`kschedctl sweep` on stdout: the summary table (or its JSON / YAML), one row per cell in
cell order. Nothing here depends on which executor ran the cells, how many workers there were,
or how long cells took: the same matrix prints the same bytes.

The table shows the axes that vary (and each patch column) as columns, and the ones that do not
on a line above it; the metrics; then every failed cell's error.
"""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from kschedctl.api.field import escape_control
from kschedctl.output.render import to_json, to_yaml
from kschedctl.sweep.results import PERCENT_METRICS
from kschedctl.sweep.run import SweepResult

AXIS_HEADERS = {"snapshot": "SNAPSHOT", "config": "CONFIG", "kubeVersion": "RELEASE", "featureGates": "GATES", "seed": "SEED"}
METRIC_HEADERS = [
    ("scheduled", "SCHEDULED"),
    ("unschedulable", "UNSCHEDULABLE"),
    ("preempted", "PREEMPTED"),
    ("nodesUsed", "NODES USED"),
    ("cpuUtilisationMean", "CPU MEAN"),
    ("cpuUtilisationStddev", "CPU SD"),
    ("memoryUtilisationMean", "MEM MEAN"),
    ("memoryUtilisationStddev", "MEM SD"),
    ("cpuFragmentation", "CPU FRAG"),
    ("memoryFragmentation", "MEM FRAG"),
    ("outcome", "OUTCOME"),
]
DIFF_HEADERS = [("changed", "CHANGED"), ("moved", "MOVED")]


def render_sweep(result: SweepResult, output: str) -> str:
    data = result.to_dict()
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
    return render_table(result)


def render_table(result: SweepResult) -> str:
    cells = result.cell_dicts()
    axes = result.axes()
    varying = [a for a, values in axes.items() if len(values) > 1]
    fixed = [f"{AXIS_HEADERS[a].lower()} {_show(values[0])}" for a, values in axes.items() if len(values) == 1]
    params = result.matrix.param_columns()
    metrics = METRIC_HEADERS + (DIFF_HEADERS if result.matrix.command == "diff" else [])
    headers = [
        "#",
        *[AXIS_HEADERS[a] for a in varying if a != "seed"],
        *(escape_control(p) for p in params),
        *(["SEED"] if "seed" in varying else []),
        "STATUS",
        *[h for _, h in metrics],
    ]
    rows = []
    for c in cells:
        m = c["metrics"] or {}
        rows.append(
            [
                c["index"],
                *[_show(c[a]) for a in varying if a != "seed"],
                *[_show(c["params"].get(p)) for p in params],
                *([c["seed"]] if "seed" in varying else []),
                c["status"],
                *[_metric(k, m.get(k)) for k, _ in metrics],
            ]
        )
    m = result.matrix
    out = f"{m.command} sweep {escape_control(m.name)}: {len(cells)} cells"
    out += f" ({', '.join(fixed)})\n\n" if fixed else "\n\n"
    out += tabulate(rows, headers=headers, tablefmt="plain", disable_numparse=True) + "\n"
    failed = [c for c in cells if c["status"] != "ok"]
    if failed:
        out += "\n" + "\n".join(f"#{c['index']} {c['status']}: {escape_control(str(c['error']))}" for c in failed) + "\n"
    s = result.counts()
    out += f"\n{s['cells']} cells: {s['ok']} ok, {s['error']} failed, {s['crashed']} crashed"
    if s["notRun"]:
        out += f", {s['notRun']} not run"
    out += f"; results: {escape_control(result.results)}\n" if result.results else "\n"
    return out


def _show(value: Any) -> str:
    """A cell of the table: names come from the matrix and the file system, and a control
    character in one (a newline, an ESC) would forge rows or drive the terminal: escaped."""
    if value is None or value == "":
        return "-"
    return escape_control(str(value))


def _metric(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if key in PERCENT_METRICS:
        return f"{value * 100:.1f}%"
    return escape_control(str(value))
