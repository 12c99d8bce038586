"""`--report FILE.html`: one self-contained HTML page over the same result objects the other
renderers read (schedule, diff, capacity, simulate).

The page embeds plotly.js (from the `plotly` Python package: `pip install 'kschedctl[report]'`)
and its data, so it opens offline and fetches nothing. Charts: per-node utilisation grouped by
zone or node pool (bars up to MAX_NODE_BARS nodes, one box of per-node points per group above
that; A and B side by side for `diff`), the unschedulable reasons histogram, the `simulate`
timeline of pending / placed / preempted pods; and a searchable per-pod table with each pod's
message (and its `diagnosis`, when a result carries one).
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kschedctl.api.errors import InputError
from kschedctl.api.outputs import OutputPath, as_output, write_output

if TYPE_CHECKING:
    from kschedctl.scheduler.result import RunResult
    from kschedctl.scheduler.simulate import SimulationResult
    from kschedctl.whatif.capacity import CapacityResult, NodesForResult
    from kschedctl.whatif.diff import DiffResult
    from kschedctl.whatif.usage import ClusterUsage

MAX_NODE_BARS = 400
MAX_TABLE_ROWS = 20000
MISSING_PLOTLY = "--report needs the plotly package: pip install 'kschedctl[report]'"


class ReportUnavailable(InputError):
    """plotly is not installed: the CLI says how to get it (exit 2)."""

    def __str__(self) -> str:
        return self.message


def plotly_js() -> str:
    """plotly.min.js from the installed plotly package (embedded, never fetched)."""
    try:
        from plotly.offline import get_plotlyjs
    except ImportError:
        raise ReportUnavailable(MISSING_PLOTLY) from None
    return get_plotlyjs()


# --- the four reports ----------------------------------------------------------------------


def write_run_report(result: "RunResult", usage: "ClusterUsage", path: OutputPath | str, title: str = "kschedctl schedule") -> None:
    data = result.to_dict()
    page = _Page(title, _summary_line(data["summary"]))
    page.chart("Per-node utilisation", *_utilisation_figure(usage))
    page.chart("Why pods are unschedulable", *_reasons_figure([("", data["unschedulable"])]))
    page.table("Pods", *_run_rows(data))
    _write(page, path)


def write_simulation_report(result: "SimulationResult", usage: "ClusterUsage | None", path: OutputPath | str) -> None:
    data = result.to_dict()
    page = _Page("kschedctl simulate", _summary_line(data["summary"]))
    page.chart("Timeline", *_timeline_figure(data))
    if usage is not None:
        page.chart("Per-node utilisation at the end", *_utilisation_figure(usage))
    page.chart("Why pods are unschedulable", *_reasons_figure([("", data["unschedulable"])]))
    page.table("Pods", *_run_rows(data))
    page.table("Events", ["time (s)", "event", "details"],
               [[e["time"], e["event"], _details(e)] for e in data["events"]])
    _write(page, path)


def write_diff_report(result: "DiffResult", path: OutputPath | str) -> None:
    data = result.to_dict()
    s = data["summary"]
    subtitle = (f"A: {_side(data['a'])} — B: {_side(data['b'])} — seed {data['seed']}. "
                f"{s['pods']} pending pods, {s['changed']} changed: {s['moved']} moved "
                f"({s['scoresChanged']} scores changed, {s['tieBreakOnly']} tie-break only), "
                f"{s['unschedulable']} became unschedulable, {s['schedulable']} became schedulable.")
    page = _Page("kschedctl diff", subtitle)
    page.chart("Per-node utilisation, A (before) and B (after)",
               *_utilisation_figure(result.a.usage, result.b.usage))
    page.chart("Why pods are unschedulable, A and B",
               *_reasons_figure([("A", _unschedulable_of(result, "a")), ("B", _unschedulable_of(result, "b"))]))
    page.table("Packing", ["measure", "A", "B"], _packing_rows(data["packing"], result.a.usage.resources()))
    page.table("Pods whose outcome changed", ["pod", "change", "A", "B", "class", "A message", "B message", "detail"],
               [[c["pod"], c["kind"], _where(c["a"]), _where(c["b"]),
                 (c.get("move") or {}).get("class", ""), c["a"]["message"] or "", c["b"]["message"] or "",
                 (c.get("move") or {}).get("detail", "")] for c in data["changes"]])
    rows = [[pod, a.status, a.node or "", b.status, b.node or "", a.message or "", b.message or ""]
            for pod, (a, b) in sorted(result.outcomes.items())]
    page.table("All pods", ["pod", "A status", "A node", "B status", "B node", "A message", "B message"], rows)
    _write(page, path)


def write_capacity_report(result: "CapacityResult | NodesForResult", path: OutputPath | str) -> None:
    from kschedctl.whatif.capacity import NodesForResult

    if isinstance(result, NodesForResult):
        data = result.to_dict()
        from kschedctl.output.render_whatif import nodes_for_headline

        page = _Page("kschedctl capacity --nodes-for", f"{nodes_for_headline(data)}. Method: {data['method']}")
        page.chart("Pods per added node", {"data": [{"type": "bar", "x": list(data["newNodes"]),
                                                     "y": [len(p) for p in data["newNodes"].values()]}],
                                           "layout": _layout("pods", "added node")}, "")
        page.table("Pods", ["pod", "placed on", "message"],
                   [[p, n, ""] for n, pods in data["newNodes"].items() for p in pods]
                   + [[c["pod"], "", c["message"]] for c in data["cannotHelp"]])
        _write(page, path)
        return
    data = result.to_dict()
    subtitle = f"{data['count']} copies of {data['pod']} fit."
    if data["stopMessage"]:
        subtitle += f" The next one does not: {data['stopMessage']}"
    page = _Page("kschedctl capacity", subtitle)
    if result.usage is not None:
        page.chart("Per-node utilisation with the copies placed", *_utilisation_figure(result.usage))
    page.chart("Copies per zone", {"data": [{"type": "bar", "x": [z or "(no zone)" for z in data["perZone"]],
                                             "y": list(data["perZone"].values())}],
                                   "layout": _layout("copies", "zone")}, "")
    zones = {n.name: n.zone for n in result.usage.nodes} if result.usage is not None else {}
    page.table("Copies per node", ["node", "zone", "copies"],
               [[node, zones.get(node, ""), n] for node, n in data["perNode"].items()])
    _write(page, path)


def _unschedulable_of(result: "DiffResult", side: str) -> list[dict[str, Any]]:
    run = result.a.run if side == "a" else result.b.run
    return [u.to_dict() for u in run.unschedulable]


# --- figures -------------------------------------------------------------------------------


def _layout(ytitle: str, xtitle: str = "", **extra: Any) -> dict[str, Any]:
    out = {"margin": {"l": 60, "r": 20, "t": 30, "b": 80}, "yaxis": {"title": {"text": ytitle}},
           "xaxis": {"title": {"text": xtitle}, "automargin": True}, "legend": {"orientation": "h"},
           "height": 420}
    out.update(extra)
    return out


def _utilisation_figure(usage: "ClusterUsage", after: "ClusterUsage | None" = None) -> tuple[dict[str, Any], str]:
    """cpu and memory requested/allocatable per node, nodes ordered by zone (or pool)."""
    kind, _groups = usage.grouping()
    key = (lambda n: n.zone) if kind == "zone" else (lambda n: n.pool) if kind == "pool" else (lambda n: "")
    nodes = sorted(usage.nodes, key=lambda n: (key(n), n.name))
    after_by_name = {n.name: n for n in after.nodes} if after is not None else {}
    sides = [("", nodes)] if after is None else [("A ", nodes), ("B ", [after_by_name.get(n.name, n) for n in nodes])]
    traces: list[dict[str, Any]] = []
    colors = {("", "cpu"): "#4c78a8", ("", "memory"): "#f58518", ("A ", "cpu"): "#9ecae9",
              ("A ", "memory"): "#ffbf79", ("B ", "cpu"): "#4c78a8", ("B ", "memory"): "#f58518"}
    if len(nodes) <= MAX_NODE_BARS:
        x = [[key(n) or "-" for n in nodes], [n.name for n in nodes]]
        for prefix, side_nodes in sides:
            for r in ("cpu", "memory"):
                traces.append({"type": "bar", "name": f"{prefix}{r}", "x": x,
                               "y": [round(100 * n.utilisation(r), 2) for n in side_nodes],
                               "marker": {"color": colors[prefix, r]}})
        layout = _layout("% of allocatable requested", kind, barmode="group")
        note = f"Nodes grouped by {kind}." if kind != "cluster" else ""
    else:
        for prefix, side_nodes in sides:
            for r in ("cpu", "memory"):
                traces.append({"type": "box", "name": f"{prefix}{r}", "boxpoints": "all", "jitter": 0.5,
                               "pointpos": 0, "x": [key(n) or "-" for n in side_nodes],
                               "y": [round(100 * n.utilisation(r), 2) for n in side_nodes],
                               "text": [n.name for n in side_nodes], "marker": {"color": colors[prefix, r], "size": 3}})
        layout = _layout("% of allocatable requested", kind, boxmode="group")
        note = f"{len(nodes)} nodes: one point per node, a box per {kind}."
    return {"data": traces, "layout": layout}, note


def _reasons_figure(sides: list[tuple[str, list[dict[str, Any]]]]) -> tuple[dict[str, Any] | None, str]:
    """How many unschedulable pods cite each reason (hover: how many nodes gave it in all)."""
    traces: list[dict[str, Any]] = []
    most = reasons = 0
    for label, unsched in sides:
        pods: dict[str, int] = {}
        nodes: dict[str, int] = {}
        for u in unsched:
            for reason, count in (u.get("reasons") or {}).items():
                pods[reason] = pods.get(reason, 0) + 1
                nodes[reason] = nodes.get(reason, 0) + count
            if not u.get("reasons"):
                reason = (u.get("message") or "no reason given").split(".")[0]
                pods[reason] = pods.get(reason, 0) + 1
        order = sorted(pods, key=lambda r: (-pods[r], r))
        most, reasons = max([most, *pods.values()]), max(reasons, len(order))
        color = {"A": "#9ecae9", "B": "#4c78a8"}.get(label, "#4c78a8")
        traces.append({"type": "bar", "orientation": "h", "name": label or "pods", "y": order,
                       "marker": {"color": color},
                       "x": [pods[r] for r in order],
                       "customdata": [nodes.get(r, 0) for r in order],
                       "hovertemplate": "%{y}: %{x} pods (%{customdata} nodes in all)<extra></extra>"})
    if not any(u for _, u in sides):
        return None, "No pod is unschedulable."
    layout = _layout("", "unschedulable pods citing the reason", barmode="group",
                     height=140 + 28 * reasons * len(traces),
                     yaxis={"automargin": True, "autorange": "reversed"},
                     xaxis={"title": {"text": "unschedulable pods citing the reason"}, "tickformat": ",d",
                            "dtick": max(1, -(-most // 8)), "rangemode": "tozero"})
    return {"data": traces, "layout": layout}, ""


def _timeline_figure(data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Pending, placed-by-the-scheduler and preempted pods over simulated time.

    A pod is pending from the start (when the first thing that happens to it is a scheduling
    attempt) or from its PodCreated event (when the next thing is), until it is Scheduled or
    deleted; placed from Scheduled until evicted, preempted or deleted."""
    events = data["events"]
    in_run = {p["pod"] for p in data["placements"]} | {u["pod"] for u in data["unschedulable"]} | \
        {s["pod"] for s in data["skipped"]}
    by_pod: dict[str, list[int]] = {}
    for i, e in enumerate(events):
        if "pod" in e:
            by_pod.setdefault(e["pod"], []).append(i)
    final_waiting = {u["pod"] for u in data["unschedulable"]} | {s["pod"] for s in data["skipped"]}
    # pending at the start: the first thing that happens to it is an attempt, or nothing at all
    pending = {k for k in in_run if (events[by_pod[k][0]]["event"] in _ATTEMPTED if k in by_pod
                                     else k in final_waiting)}
    placed: set[str] = set()
    preempted = 0
    points = [(0.0, len(pending), 0, 0)]
    for i, e in enumerate(events):
        kind, pod = e["event"], e.get("pod")
        if kind == "Scheduled":
            pending.discard(pod)
            placed.add(pod)
        elif kind == "Preempted":
            for v in e.get("victims", []):
                placed.discard(v)
            preempted += len(e.get("victims", []))
        elif kind in ("PodEvicted", "PodDeleted"):
            placed.discard(pod)
            pending.discard(pod)
        elif kind == "PodCreated" and _created_pending(events, by_pod[pod], i, pod in final_waiting):
            pending.add(pod)
        t = float(e["time"])
        point = (t, len(pending), len(placed), preempted)
        if points and points[-1][0] == t:
            points[-1] = point
        else:
            points.append(point)
    xs = [p[0] for p in points]
    traces = [{"type": "scatter", "mode": "lines+markers", "line": {"shape": "hv"}, "name": name, "x": xs,
               "y": [p[i] for p in points]} for i, name in ((1, "pending"), (2, "placed"), (3, "preempted (total)"))]
    return {"data": traces, "layout": _layout("pods", "simulated time (s)")}, ""


_ATTEMPTED = ("Scheduled", "FailedScheduling", "PodUngated")


def _created_pending(events: list[dict[str, Any]], indices: list[int], at: int, waits_at_end: bool) -> bool:
    later = [events[j]["event"] for j in indices if j > at]
    for kind in later:
        if kind in _ATTEMPTED:
            return True
        if kind in ("PodCreated", "PodDeleted", "PodEvicted"):
            return False
    return waits_at_end


# --- tables --------------------------------------------------------------------------------


def _run_rows(data: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    with_diagnosis = any("diagnosis" in u for u in data["unschedulable"])
    headers = ["pod", "status", "node", "profile", "attempts", "score", "message"] + \
        (["diagnosis"] if with_diagnosis else [])
    rows: list[list[Any]] = []
    for p in data["placements"]:
        status = f"Scheduled, preempted by {p['preemptedBy']}" if p.get("preemptedBy") else "Scheduled"
        rows.append([p["pod"], status, p["node"], p["profile"], p["attempts"],
                     "" if p["score"] is None else p["score"], ""] + ([""] if with_diagnosis else []))
    for u in data["unschedulable"]:
        rows.append([u["pod"], "Unschedulable", u.get("nominatedNode", ""), u["profile"], u["attempts"], "",
                     u["message"]] + ([_text(u.get("diagnosis", ""))] if with_diagnosis else []))
    for s in data["skipped"]:
        rows.append([s["pod"], "Skipped", "", "", "", "", s["reason"]] + ([""] if with_diagnosis else []))
    return headers, rows


def _packing_rows(packing: dict[str, Any], resources: list[str]) -> list[list[Any]]:
    a, b = packing["a"], packing["b"]
    rows: list[list[Any]] = [["nodes used", a["nodesUsed"], b["nodesUsed"]],
                             ["empty nodes", a["emptyNodes"], b["emptyNodes"]]]
    for r in resources:
        for key, label in (("utilisationMean", "utilisation mean"), ("utilisationStddev", "utilisation stddev"),
                           ("fragmentation", "fragmentation")):
            rows.append([f"{r} {label}", _pct(a[key][r]), _pct(b[key][r])])
    return rows


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100.0 * value:.1f}%"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _details(e: dict[str, Any]) -> str:
    return " ".join(f"{k}={', '.join(v) if isinstance(v, list) else v}" for k, v in e.items()
                    if k not in ("time", "event"))


def _where(outcome: dict[str, Any]) -> str:
    return outcome["node"] or outcome["status"]


def _side(side: dict[str, Any]) -> str:
    gates = f", {side['featureGates']}" if side["featureGates"] else ""
    return f"{side['config'] or 'default configuration'}, kube-scheduler {side['kubeVersion']}{gates}"


def _summary_line(s: dict[str, Any]) -> str:
    return (f"{s['pending']} pending: {s['scheduled']} scheduled, {s['unschedulable']} unschedulable, "
            f"{s['skipped']} skipped, {s['preempted']} preempted")


# --- the page ------------------------------------------------------------------------------


class _Page:
    def __init__(self, title: str, subtitle: str) -> None:
        self.title = title
        self.subtitle = subtitle
        self.sections: list[str] = []
        self.figures: dict[str, dict[str, Any]] = {}
        self.tables: dict[str, tuple[list[str], list[list[Any]]]] = {}

    def chart(self, heading: str, figure: dict[str, Any] | None, note: str) -> None:
        if figure is None:  # nothing to draw: the note says why
            self.sections.append(f'<section><h2>{html.escape(heading)}</h2><p class="note">{html.escape(note)}</p>'
                                 '</section>')
            return
        div = f"chart-{len(self.figures) + 1}"
        self.figures[div] = figure
        note_html = f'<p class="note">{html.escape(note)}</p>' if note else ""
        self.sections.append(f'<section><h2>{html.escape(heading)}</h2>{note_html}'
                             f'<div id="{div}" class="chart"></div></section>')

    def table(self, heading: str, headers: list[str], rows: Iterable[list[Any]]) -> None:
        rows = list(rows)
        tid = f"table-{len(self.tables) + 1}"
        shown = rows[:MAX_TABLE_ROWS]
        self.tables[tid] = (headers, shown)
        cut = f" (the first {MAX_TABLE_ROWS} of {len(rows)})" if len(rows) > MAX_TABLE_ROWS else ""
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in shown)
        head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
        self.sections.append(
            f'<section><h2>{html.escape(heading)}{cut}</h2>'
            f'<input class="search" type="search" placeholder="search {html.escape(heading.lower())}" '
            f'data-table="{tid}" aria-label="search {html.escape(heading.lower())}">'
            f'<span class="count" id="{tid}-count">{len(shown)} rows</span>'
            f'<table id="{tid}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></section>')

    def render(self, plotly: str) -> str:
        figures = json.dumps(self.figures, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
        return _TEMPLATE.format(title=html.escape(self.title), subtitle=html.escape(self.subtitle),
                                sections="\n".join(self.sections), plotly=plotly.replace("</script", "<\\/script"),
                                figures=figures)


def _write(page: _Page, path: OutputPath | str) -> None:
    """Atomically, into a regular file only (kschedctl/api/outputs.py); the CLI resolved and
    checked the path before the run."""
    target = as_output(path, "--report")
    write_output(target, lambda: page.render(plotly_js()))


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 2rem 3rem; color: #222; }}
h1 {{ font-size: 1.5rem; margin: 1.2rem 0 .2rem; }}
h2 {{ font-size: 1.1rem; margin: 1.6rem 0 .4rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }}
p.subtitle {{ margin: 0 0 1rem; color: #444; max-width: 70rem; }}
p.note {{ color: #666; margin: .2rem 0; font-size: .9rem; }}
.chart {{ width: 100%; }}
table {{ border-collapse: collapse; font-size: .85rem; width: 100%; margin-top: .4rem; }}
th, td {{ border-bottom: 1px solid #eee; padding: .25rem .5rem; text-align: left; vertical-align: top; }}
th {{ background: #f6f6f6; position: sticky; top: 0; }}
input.search {{ padding: .3rem .5rem; width: 22rem; max-width: 100%; }}
span.count {{ margin-left: .8rem; color: #666; font-size: .85rem; }}
</style>
<script>{plotly}</script>
</head><body>
<h1>{title}</h1>
<p class="subtitle">{subtitle}</p>
{sections}
<script>
(function () {{
  var figures = {figures};
  Object.keys(figures).forEach(function (id) {{
    var f = figures[id];
    Plotly.newPlot(id, f.data, f.layout, {{responsive: true, displaylogo: false}});
  }});
  document.querySelectorAll("input.search").forEach(function (input) {{
    input.addEventListener("input", function () {{
      var needle = input.value.toLowerCase();
      var table = document.getElementById(input.dataset.table);
      var shown = 0;
      table.querySelectorAll("tbody tr").forEach(function (tr) {{
        var hit = tr.textContent.toLowerCase().indexOf(needle) >= 0;
        tr.style.display = hit ? "" : "none";
        if (hit) shown++;
      }});
      document.getElementById(input.dataset.table + "-count").textContent = shown + " rows";
    }});
  }});
}})();
</script>
</body></html>
"""
