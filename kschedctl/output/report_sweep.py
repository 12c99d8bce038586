"""`kschedctl sweep --report FILE.html`: the metrics of every cell, per axis, on the same
self-contained page as the other reports (kschedctl/output/report.py: plotly.js embedded, opens
offline).

One chart per axis that varies (snapshot, configuration, each patch column, release, gates,
seed): a box of the cells' values per axis value, every cell a point (hover: its number),
and a menu to pick the metric. Then the table of cells (searchable), and the failed cells
with their errors.
"""

from __future__ import annotations

from typing import Any

from kschedctl.api.outputs import OutputPath
from kschedctl.output.report import LEGEND_ABOVE, _layout, _Page, _write
from kschedctl.sweep.results import PERCENT_METRICS, metric_names
from kschedctl.sweep.run import SweepResult

AXIS_TITLES = {"snapshot": "snapshot", "config": "configuration", "kubeVersion": "release", "featureGates": "feature gates", "seed": "seed"}
METRIC_TITLES = {
    "scheduled": "pods scheduled",
    "unschedulable": "pods unschedulable",
    "preempted": "pods preempted",
    "skipped": "pods skipped",
    "nodesUsed": "nodes used",
    "emptyNodes": "empty nodes",
    "cpuUtilisationMean": "cpu utilisation, mean over nodes (%)",
    "cpuUtilisationStddev": "cpu utilisation, standard deviation (%)",
    "memoryUtilisationMean": "memory utilisation, mean over nodes (%)",
    "memoryUtilisationStddev": "memory utilisation, standard deviation (%)",
    "cpuFragmentation": "cpu fragmentation (%)",
    "memoryFragmentation": "memory fragmentation (%)",
    "changed": "pods whose outcome changed (diff)",
    "moved": "pods moved (diff)",
    "becameUnschedulable": "pods that became unschedulable (diff)",
    "becameSchedulable": "pods that became schedulable (diff)",
    "wallSeconds": "wall time of the cell (s)",
}
MAX_SNAPSHOT_GROUPS = 8
COLORS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2", "#9d755d")


def write_sweep_report(result: SweepResult, path: OutputPath | str) -> None:
    m = result.matrix
    s = result.counts()
    page = _Page(
        f"kschedctl sweep {m.name}",
        f"{m.command} over {s['cells']} cells of {m.path}: {s['ok']} ok, {s['error']} failed, "
        f"{s['crashed']} crashed. Each point is one cell; pick the metric in the menu of each chart.",
    )
    records = result.records()
    metrics = [k for k in (*metric_names(m.command), "wallSeconds") if k in METRIC_TITLES]
    axes = _varying_axes(result)
    for axis, values in axes:
        title = AXIS_TITLES.get(axis, axis)
        page.chart(f"Per {title}", _axis_figure(records, axis, values, metrics, result.axes()["snapshot"]), "")
    if not axes:
        page.chart("The one cell", None, "Nothing varies in this matrix: see the table.")
    columns = [
        "index",
        "snapshot",
        "config",
        *m.param_columns(),
        "kubeVersion",
        "featureGates",
        "seed",
        "status",
        *metric_names(m.command),
        "wallSeconds",
    ]
    page.table("Cells", columns, [[_cell(r.get(c)) for c in columns] for r in records])
    failed = [r for r in records if r["status"] != "ok"]
    if failed:
        page.table(
            "Failed cells",
            ["index", "snapshot", "config", "status", "error"],
            [[r["index"], r["snapshot"], r["config"], r["status"], r["error"]] for r in failed],
        )
    _write(page, path)


def _varying_axes(result: SweepResult) -> list[tuple[str, list[str]]]:
    """(axis or patch column, its values in matrix order) for each one with several values."""
    out = []
    axes = result.axes()
    for axis in ("snapshot", "config"):
        if len(axes[axis]) > 1:
            out.append((axis, [str(v) for v in axes[axis]]))
    for column in result.matrix.param_columns():
        values = list(dict.fromkeys(str(c.params[column]) for c in result.matrix.configs if column in c.params))
        if len(values) > 1:
            out.append((column, values))
    for axis in ("kubeVersion", "featureGates", "seed"):
        if len(axes[axis]) > 1:
            out.append((axis, [str(v) or "-" for v in axes[axis]]))
    return out


def _axis_figure(records: list[dict[str, Any]], axis: str, values: list[str], metrics: list[str], snapshots: list[str]) -> dict[str, Any]:
    """A box per axis value; with a few snapshots (and another axis on x), a box per snapshot
    side by side, since their numbers are not comparable."""
    rows = [r for r in records if r["status"] == "ok" and r.get(axis) is not None]
    groups = snapshots if axis != "snapshot" and 1 < len(snapshots) <= MAX_SNAPSHOT_GROUPS else [None]
    traces = []
    names = _short_names([g for g in groups if g is not None])
    for i, metric in enumerate(metrics):
        scale = 100 if metric in PERCENT_METRICS else 1
        for g, group in enumerate(groups):
            points = [
                (str(r[axis]) or "-", float(r[metric]), r["index"])
                for r in rows
                if r.get(metric) is not None and (group is None or r["snapshot"] == group)
            ]
            color = COLORS[g % len(COLORS)]
            traces.append(
                {
                    "type": "box",
                    "name": (names.get(group, group) if group is not None else None) or METRIC_TITLES[metric],
                    "legendgroup": group or "",
                    "visible": i == 0,
                    "boxpoints": "all",
                    "jitter": 0.4,
                    "pointpos": 0,
                    "x": [p[0] for p in points],
                    "y": [round(p[1] * scale, 4) for p in points],
                    "text": [f"cell {p[2]}" for p in points],
                    "marker": {"color": color, "size": 6},
                    "line": {"color": color},
                    "hovertemplate": "%{text}: %{y}<extra></extra>",
                }
            )
    per = len(groups)
    buttons = [
        {
            "label": METRIC_TITLES[metric],
            "method": "update",
            "args": [{"visible": [j // per == i for j in range(len(traces))]}, {"yaxis.title.text": METRIC_TITLES[metric]}],
        }
        for i, metric in enumerate(metrics)
    ]
    layout = _layout(
        METRIC_TITLES[metrics[0]],
        AXIS_TITLES.get(axis, axis),
        showlegend=per > 1,
        boxmode="group",
        margin={"l": 60, "r": 20, "t": 60, "b": 80},
        # top right: the metric menu holds the top left
        legend={**LEGEND_ABOVE, "x": 1, "xanchor": "right"},
        updatemenus=[{"buttons": buttons, "direction": "down", "x": 0, "xanchor": "left", "y": 1.18, "yanchor": "top", "showactive": True}],
    )
    layout["xaxis"].update({"type": "category", "categoryorder": "array", "categoryarray": values})
    return {"data": traces, "layout": layout}


def _short_names(paths: list[str]) -> dict[str, str]:
    """Snapshot paths as the legend shows them: their file names when those tell them apart
    (a long path would push the legend into the metric menu at 800 px); hover and the table keep
    the full path."""
    base = {p: p.replace("\\", "/").rsplit("/", 1)[-1] for p in paths}
    return base if len(set(base.values())) == len(base) else {p: p for p in paths}


def _cell(value: Any) -> Any:
    return "" if value is None else value
