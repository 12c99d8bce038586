"""`--report FILE.html`: one self-contained HTML page over the same result objects the other
renderers read (schedule, diff, capacity, simulate).

The page embeds plotly.js (from the `plotly` Python package: `pip install 'kschedctl[report]'`)
and its data, so it opens offline and fetches nothing. Charts: per-node utilisation grouped by
zone or node pool (bars up to MAX_NODE_BARS nodes, one box of per-node points per group above
that; A and B side by side for `diff`), the node × resource heat map, the unschedulable reasons
split into blocking and incidental (REASONS_NOTE), the `simulate` timeline of pending / placed /
preempted pods; the preemptions with their victims; a searchable per-pod table with each pod's
message (and its `diagnosis`, when a result carries one); and the per-pod node tables the run
recorded (kschedctl/explain/pod_tables.py), one collapsed block per pod. Legends sit above
their plot (LEGEND_ABOVE); the page holds from 800 px wide (wide tables scroll inside their box).
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
# The legend sits above the plot area (plotly pushes the top margin for it), never at the
# bottom where plotly puts it by default, over the x axis' node names.
LEGEND_ABOVE = {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"}
MAX_TABLE_ROWS = 20000
MAX_POD_TABLES = 50  # pod_tables.MAX_UNSCHEDULABLE_PODS, said in the page
MAX_NODE_ROWS = 50  # nodes shown in a pod's table
MAX_LABELLED_NODES = 60  # above: the heat map's columns carry no node names
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
    js: str = get_plotlyjs()
    return js


# --- the four reports ----------------------------------------------------------------------


def write_run_report(result: "RunResult", usage: "ClusterUsage", path: OutputPath | str, title: str = "kschedctl schedule") -> None:
    data = result.to_dict()
    page = _Page(title, _summary_line(data["summary"]))
    page.chart("Per-node utilisation", *_utilisation_figure(usage))
    page.chart("Requested / allocatable per node and resource", *_heatmap_figure(usage))
    page.chart("Why pods are unschedulable", *_reasons_figure([("", data["unschedulable"])]))
    _preemptions(page, data["preemptions"])
    page.table("Pods", *_run_rows(data))
    _pod_tables(page, result.pod_tables, data)
    _write(page, path)


def write_simulation_report(result: "SimulationResult", usage: "ClusterUsage | None", path: OutputPath | str) -> None:
    data = result.to_dict()
    page = _Page("kschedctl simulate", _summary_line(data["summary"]))
    page.chart("Timeline", *_timeline_figure(data))
    if usage is not None:
        page.chart("Per-node utilisation at the end", *_utilisation_figure(usage))
        page.chart("Requested / allocatable per node and resource, at the end", *_heatmap_figure(usage))
    page.chart("Why pods are unschedulable", *_reasons_figure([("", data["unschedulable"])]))
    _preemptions(page, data["preemptions"])
    page.table("Pods", *_run_rows(data))
    page.table("Events", ["time (s)", "event", "details"], [[e["time"], e["event"], _details(e)] for e in data["events"]])
    _pod_tables(page, result.run.pod_tables, data)
    _write(page, path)


def write_diff_report(result: "DiffResult", path: OutputPath | str) -> None:
    data = result.to_dict()
    s = data["summary"]
    subtitle = (
        f"A: {_side(data['a'])} — B: {_side(data['b'])} — seed {data['seed']}. "
        f"{s['pods']} pending pods, {s['changed']} changed: {s['moved']} moved "
        f"({s['scoresChanged']} scores changed, {s['tieBreakOnly']} tie-break only), "
        f"{s['unschedulable']} became unschedulable, {s['schedulable']} became schedulable."
    )
    page = _Page("kschedctl diff", subtitle)
    page.chart("Per-node utilisation, A (before) and B (after)", *_utilisation_figure(result.a.usage, result.b.usage))
    page.chart(
        "Why pods are unschedulable, A and B",
        *_reasons_figure([("A", _unschedulable_of(result, "a")), ("B", _unschedulable_of(result, "b"))]),
    )
    page.table("Packing", ["measure", "A", "B"], _packing_rows(data["packing"], result.a.usage.resources()))
    page.table(
        "Pods whose outcome changed",
        ["pod", "change", "A", "B", "class", "A message", "B message", "detail"],
        [
            [
                c["pod"],
                c["kind"],
                _where(c["a"]),
                _where(c["b"]),
                (c.get("move") or {}).get("class", ""),
                c["a"]["message"] or "",
                c["b"]["message"] or "",
                (c.get("move") or {}).get("detail", ""),
            ]
            for c in data["changes"]
        ],
    )
    rows = [
        [pod, a.status, a.node or "", b.status, b.node or "", a.message or "", b.message or ""]
        for pod, (a, b) in sorted(result.outcomes.items())
    ]
    page.table("All pods", ["pod", "A status", "A node", "B status", "B node", "A message", "B message"], rows)
    _write(page, path)


def write_capacity_report(result: "CapacityResult | NodesForResult", path: OutputPath | str) -> None:
    from kschedctl.whatif.capacity import NodesForResult

    if isinstance(result, NodesForResult):
        data = result.to_dict()
        from kschedctl.output.render_whatif import nodes_for_headline

        page = _Page("kschedctl capacity --nodes-for", f"{nodes_for_headline(data)}. Method: {data['method']}")
        page.chart(
            "Pods per added node",
            {
                "data": [{"type": "bar", "x": list(data["newNodes"]), "y": [len(p) for p in data["newNodes"].values()]}],
                "layout": _layout("pods", "added node"),
            },
            "",
        )
        page.table(
            "Pods",
            ["pod", "placed on", "message"],
            [[p, n, ""] for n, pods in data["newNodes"].items() for p in pods] + [[c["pod"], "", c["message"]] for c in data["cannotHelp"]],
        )
        _write(page, path)
        return
    data = result.to_dict()
    subtitle = f"{data['count']} copies of {data['pod']} fit."
    if data["stopMessage"]:
        subtitle += f" The next one does not: {data['stopMessage']}"
    page = _Page("kschedctl capacity", subtitle)
    if result.usage is not None:
        page.chart("Per-node utilisation with the copies placed", *_utilisation_figure(result.usage))
        page.chart("Requested / allocatable per node and resource", *_heatmap_figure(result.usage))
    page.chart(
        "Copies per zone",
        {
            "data": [{"type": "bar", "x": [z or "(no zone)" for z in data["perZone"]], "y": list(data["perZone"].values())}],
            "layout": _layout("copies", "zone"),
        },
        "",
    )
    zones = {n.name: n.zone for n in result.usage.nodes} if result.usage is not None else {}
    page.table("Copies per node", ["node", "zone", "copies"], [[node, zones.get(node, ""), n] for node, n in data["perNode"].items()])
    _write(page, path)


def _unschedulable_of(result: "DiffResult", side: str) -> list[dict[str, Any]]:
    run = result.a.run if side == "a" else result.b.run
    return [u.to_dict() for u in run.unschedulable]


# --- figures -------------------------------------------------------------------------------


def _layout(ytitle: str, xtitle: str = "", **extra: Any) -> dict[str, Any]:
    out = {
        "margin": {"l": 60, "r": 20, "t": 40, "b": 80},
        "yaxis": {"title": {"text": ytitle}, "automargin": True},
        "xaxis": {"title": {"text": xtitle}, "automargin": True},
        "legend": dict(LEGEND_ABOVE),
        "height": 420,
    }
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
    colors = {
        ("", "cpu"): "#4c78a8",
        ("", "memory"): "#f58518",
        ("A ", "cpu"): "#9ecae9",
        ("A ", "memory"): "#ffbf79",
        ("B ", "cpu"): "#4c78a8",
        ("B ", "memory"): "#f58518",
    }
    if len(nodes) <= MAX_NODE_BARS:
        x = [[key(n) or "-" for n in nodes], [n.name for n in nodes]]
        for prefix, side_nodes in sides:
            for r in ("cpu", "memory"):
                traces.append(
                    {
                        "type": "bar",
                        "name": f"{prefix}{r}",
                        "x": x,
                        "y": [round(100 * n.utilisation(r), 2) for n in side_nodes],
                        "marker": {"color": colors[prefix, r]},
                    }
                )
        layout = _layout("% of allocatable requested", kind, barmode="group", height=360 + _label_room(n.name for n in nodes))
        note = f"Nodes grouped by {kind}." if kind != "cluster" else ""
    else:
        for prefix, side_nodes in sides:
            for r in ("cpu", "memory"):
                traces.append(
                    {
                        "type": "box",
                        "name": f"{prefix}{r}",
                        "boxpoints": "all",
                        "jitter": 0.5,
                        "pointpos": 0,
                        "x": [key(n) or "-" for n in side_nodes],
                        "y": [round(100 * n.utilisation(r), 2) for n in side_nodes],
                        "text": [n.name for n in side_nodes],
                        "marker": {"color": colors[prefix, r], "size": 3},
                    }
                )
        layout = _layout("% of allocatable requested", kind, boxmode="group")
        note = f"{len(nodes)} nodes: one point per node, a box per {kind}."
    return {"data": traces, "layout": layout}, note


# Reasons of the placement rules: kube's default profile runs these Filter plugins first
# (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity), so a node another plugin
# rejected had passed them. Prefixes, to match older releases' wordings too.
PLACEMENT_REASONS = (
    "node(s) were unschedulable",
    "node(s) didn't match the requested node name",
    "node(s) had untolerated taint",
    "node(s) had taint",
    "node(s) didn't match Pod's node affinity",
    "node(s) didn't match scheduler-enforced node affinity",
    "node(s) didn't match node selector",
)
REASONS_NOTE = (
    "A reason blocks a pod when it rejects nodes the pod is allowed on. kube filters the placement "
    "rules first (a cordoned node, nodeName, untolerated taints, node affinity/selector), so a node "
    "rejected by any other reason passed them and would otherwise fit: that reason blocks. The "
    "placement rules' reasons are incidental (nodes the pod is not meant for), unless they "
    "rejected every node, when they are what blocks. Ranked by the pods each reason blocks; hover "
    "for how many nodes gave it."
)


def is_placement_reason(reason: str) -> bool:
    return reason.startswith(PLACEMENT_REASONS)


def blocking_reasons(reasons: dict[str, int]) -> set[str]:
    """The reasons that block a pod (REASONS_NOTE): those of the nodes that passed the
    placement rules, or the placement rules' own when they rejected every node."""
    others = {r for r in reasons if not is_placement_reason(r)}
    return others or set(reasons)


def _reasons_figure(sides: list[tuple[str, list[dict[str, Any]]]]) -> tuple[dict[str, Any] | None, str]:
    """Per reason, the unschedulable pods it blocks and those it is incidental for (stacked),
    ranked by the pods blocked (hover: how many nodes gave it in all)."""
    traces: list[dict[str, Any]] = []
    most = reasons = 0
    for label, unsched in sides:
        blocked: dict[str, int] = {}
        incidental: dict[str, int] = {}
        nodes: dict[str, int] = {}
        for u in unsched:
            given = u.get("reasons") or {}
            if not given:
                given = {(u.get("message") or "no reason given").split(".")[0]: 0}
            blocks = blocking_reasons(given)
            for reason, count in given.items():
                into = blocked if reason in blocks else incidental
                into[reason] = into.get(reason, 0) + 1
                nodes[reason] = nodes.get(reason, 0) + count
        cited = set(blocked) | set(incidental)
        order = sorted(cited, key=lambda r: (-blocked.get(r, 0), -incidental.get(r, 0), r))
        most = max([most, *(blocked.get(r, 0) + incidental.get(r, 0) for r in order)])
        reasons = max(reasons, len(order))
        solid, light = {"A": ("#6baed6", "#c6dbef"), "B": ("#4c78a8", "#b3c7dd")}.get(label, ("#c0392b", "#bbbbbb"))
        prefix = f"{label} " if label else ""
        low = [blocked.get(r, 0) for r in order]
        for name, values, color, base in (
            (f"{prefix}blocking", low, solid, None),
            (f"{prefix}incidental", [incidental.get(r, 0) for r in order], light, low),
        ):
            trace = {
                "type": "bar",
                "orientation": "h",
                "name": name,
                "y": order,
                "x": values,
                "offsetgroup": label or "pods",
                "marker": {"color": color},
                "customdata": [nodes.get(r, 0) for r in order],
                "hovertemplate": f"%{{y}}: {name} for %{{x}} pods (%{{customdata}} nodes in all)<extra></extra>",
            }
            if base is not None:
                trace["base"] = base
            traces.append(trace)
    if not any(u for _, u in sides):
        return None, "No pod is unschedulable."
    layout = _layout(
        "",
        "unschedulable pods citing the reason",
        barmode="group",
        height=160 + 28 * reasons * max(1, len(sides)),
        yaxis={"automargin": True, "autorange": "reversed"},
        xaxis={
            "title": {"text": "unschedulable pods citing the reason"},
            "tickformat": ",d",
            "dtick": max(1, -(-most // 8)),
            "rangemode": "tozero",
            "automargin": True,
        },
    )
    return {"data": traces, "layout": layout}, REASONS_NOTE


def _heatmap_figure(usage: "ClusterUsage") -> tuple[dict[str, Any] | None, str]:
    """Requested / allocatable per node (columns) and resource (rows: cpu, memory, pods, then the
    extended resources some node offers), nodes sorted by zone or pool, then by cpu use. Node
    names label the columns up to MAX_LABELLED_NODES; above that the columns carry none (hover
    says which node), and the groups are marked on the axis instead, so 1,000+ nodes stay one
    readable picture."""
    if not usage.nodes:
        return None, "No node in the snapshot."
    kind, _groups = usage.grouping()
    key = (lambda n: n.zone) if kind == "zone" else (lambda n: n.pool) if kind == "pool" else (lambda n: "")
    nodes = sorted(usage.nodes, key=lambda n: (key(n), -n.utilisation("cpu"), n.name))
    resources = [r for r in usage.resources() if r in ("cpu", "memory") or any(n.allocatable.get(r) for n in nodes)]
    rows = [*resources[:2], "pods", *resources[2:]]
    z: list[list[float | None]] = []
    text: list[list[str]] = []
    for r in rows:
        zr: list[float | None] = []
        tr: list[str] = []
        for n in nodes:
            req, alloc = (n.pods, n.allowed_pods) if r == "pods" else (n.requested.get(r, 0), n.allocatable.get(r, 0))
            pct = round(100.0 * req / alloc, 1) if alloc > 0 else None
            zr.append(pct)
            where = f" ({key(n)})" if key(n) else ""
            tr.append(
                f"{n.name}{where}<br>{r}: {_amount(r, req)} of {_amount(r, alloc)}"
                + (f" = {pct}%" if pct is not None else " (none offered)")
            )
        z.append(zr)
        text.append(tr)
    labelled = len(nodes) <= MAX_LABELLED_NODES
    x = [n.name for n in nodes] if labelled else list(range(len(nodes)))
    trace = {
        "type": "heatmap",
        "z": z,
        "x": x,
        "y": rows,
        "text": text,
        "hoverinfo": "text",
        "zmin": 0,
        "zmax": 100,
        "colorscale": "YlOrRd",
        "reversescale": True,
        "xgap": 1 if labelled else 0,
        "ygap": 2,
        "colorbar": {"title": {"text": "% requested"}, "thickness": 12},
    }
    xaxis: dict[str, Any] = {"automargin": True, "title": {"text": f"{len(nodes)} nodes"}}
    shapes, annotations = [], []
    if labelled:
        xaxis.update({"type": "category", "tickangle": -45})
    else:
        xaxis.update({"showticklabels": False, "ticks": ""})
        # group boundaries and names instead of node names
        if kind != "cluster":
            start = 0
            for i in range(1, len(nodes) + 1):
                if i == len(nodes) or key(nodes[i]) != key(nodes[start]):
                    annotations.append(
                        {
                            "x": (start + i - 1) / 2,
                            "y": 0,
                            "yref": "paper",
                            "yanchor": "top",
                            "text": key(nodes[start]) or "-",
                            "showarrow": False,
                            "font": {"size": 11},
                        }
                    )
                    if i < len(nodes):
                        shapes.append(
                            {
                                "type": "line",
                                "x0": i - 0.5,
                                "x1": i - 0.5,
                                "y0": 0,
                                "y1": 1,
                                "yref": "paper",
                                "line": {"color": "#222", "width": 1},
                            }
                        )
                    start = i
        xaxis["title"]["text"] = f"{len(nodes)} nodes, sorted by {kind} then cpu requested (hover for each node)"
        xaxis["title"]["standoff"] = 24
    room = _label_room(n.name for n in nodes) if labelled else 40
    layout = {
        "margin": {"l": 60, "r": 20, "t": 34, "b": 40},
        "height": 100 + 36 * len(rows) + room,
        "xaxis": xaxis,
        "plot_bgcolor": "#d9d9d9",
        "yaxis": {"automargin": True, "autorange": "reversed", "type": "category"},
        "shapes": shapes,
        "annotations": annotations,
    }
    grouped = f"grouped by {kind}, " if kind != "cluster" else ""
    note = (
        f"Requested / allocatable on each of the {len(nodes)} nodes ({grouped}sorted by cpu requested); "
        "pods: pods on the node / its pod capacity. Grey: the node offers none of the resource."
    )
    return {"data": [trace], "layout": layout}, note


def _label_room(names: Iterable[str]) -> int:
    """Height for node names under an x axis: plotly turns long ones upright and takes that room
    from the plot area, which a fixed height would squash (7 px a character, up to 300)."""
    longest = max((len(n) for n in names), default=0)
    return min(300, 7 * longest)


def _amount(resource: str, value: int) -> str:
    """Scheduler units in words: cpu in millicores, memory-like resources in bytes."""
    from kschedctl.plugins.details import format_quantity

    if resource == "pods":
        return str(value)
    try:
        return str(format_quantity(resource, value))
    except Exception:  # noqa: BLE001 - an odd resource: the raw number
        return str(value)


def _timeline_figure(data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Pending, placed-by-the-scheduler and preempted pods over simulated time.

    A pod is pending from the start (when the first thing that happens to it is a scheduling
    attempt) or from its PodCreated event (when the next thing is), until it is Scheduled or
    deleted; placed from Scheduled until evicted, preempted or deleted."""
    events = data["events"]
    in_run = {p["pod"] for p in data["placements"]} | {u["pod"] for u in data["unschedulable"]} | {s["pod"] for s in data["skipped"]}
    by_pod: dict[str, list[int]] = {}
    for i, e in enumerate(events):
        if "pod" in e:
            by_pod.setdefault(e["pod"], []).append(i)
    final_waiting = {u["pod"] for u in data["unschedulable"]} | {s["pod"] for s in data["skipped"]}
    # pending at the start: the first thing that happens to it is an attempt, or nothing at all
    pending = {k for k in in_run if (events[by_pod[k][0]]["event"] in _ATTEMPTED if k in by_pod else k in final_waiting)}
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
    traces = [
        {"type": "scatter", "mode": "lines+markers", "line": {"shape": "hv"}, "name": name, "x": xs, "y": [p[i] for p in points]}
        for i, name in ((1, "pending"), (2, "placed"), (3, "preempted (total)"))
    ]
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
    headers = ["pod", "status", "node", "profile", "attempts", "score", "message"] + (["diagnosis"] if with_diagnosis else [])
    rows: list[list[Any]] = []
    victims = _victims_of(data["preemptions"])
    for p in data["placements"]:
        status = f"Scheduled, preempted by {p['preemptedBy']}" if p.get("preemptedBy") else "Scheduled"
        message = f"preempted {', '.join(victims[p['pod']])}" if p["pod"] in victims else ""
        rows.append(
            [p["pod"], status, p["node"], p["profile"], p["attempts"], "" if p["score"] is None else p["score"], message]
            + ([""] if with_diagnosis else [])
        )
    for u in data["unschedulable"]:
        message = u["message"] + (f" (preempted {', '.join(victims[u['pod']])})" if u["pod"] in victims else "")
        rows.append(
            [u["pod"], "Unschedulable", u.get("nominatedNode", ""), u["profile"], u["attempts"], "", message]
            + ([_text(u.get("diagnosis", ""))] if with_diagnosis else [])
        )
    for s in data["skipped"]:
        rows.append([s["pod"], "Skipped", "", "", "", "", s["reason"]] + ([""] if with_diagnosis else []))
    return headers, rows


def _victims_of(preemptions: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each preemptor's victims, over all its preemptions, in order."""
    out: dict[str, list[str]] = {}
    for p in preemptions:
        out.setdefault(p["preemptor"], []).extend(p["victims"])
    return out


def _preemptions(page: "_Page", preemptions: list[dict[str, Any]]) -> None:
    """Who evicted whom, where: one row per preemption (a preemptor that preempted twice has two)."""
    if not preemptions:
        page.note("Preemptions", "No pod was preempted.")
        return
    total = sum(len(p["victims"]) for p in preemptions)
    page.table(
        f"Preemptions ({total} victims)",
        ["preemptor", "node", "victims", "count"],
        [[p["preemptor"], p["node"], ", ".join(p["victims"]), len(p["victims"])] for p in preemptions],
        tid="preemptions",
    )


def _pod_tables(page: "_Page", tables: list[Any], data: dict[str, Any]) -> None:
    """Per pod, what its last recorded attempt said of each node: one collapsed block per pod."""
    if not tables:
        return
    status = {p["pod"]: f"Scheduled on {p['node']}" for p in data["placements"]}
    status.update({u["pod"]: "Unschedulable" for u in data["unschedulable"]})
    unsched = {u["pod"] for u in data["unschedulable"]}
    with_table = {t.pod for t in tables}
    per_pod: dict[str, list[Any]] = {}
    for t in tables:
        per_pod.setdefault(t.pod, []).append(t)
    missing = len(unsched - with_table)
    note = (
        f"{len(per_pod)} pods: the unschedulable ones (up to {MAX_POD_TABLES}) and a sample of the placed "
        f"ones, each as its last attempt saw the nodes. Filter: ✓ passed, the reason where the plugin "
        f"rejected the node, · not run (kube stops at the first rejection). Score: each plugin's normalised "
        f"score (its weight in the header). Up to {MAX_NODE_ROWS} nodes a pod: the scored nodes by total, "
        f"then the rejected ones; `kschedctl explain POD` gives every node and the facts behind each "
        f"rejection."
    )
    if missing:
        note += f" {missing} unschedulable pods have no table here (over the cap)."
    victims = _victims_of(data["preemptions"])
    blocks = [_pod_block(pod, attempts, status.get(pod, ""), victims.get(pod, [])) for pod, attempts in per_pod.items()]
    page.raw("Per-pod node tables", note, "".join(blocks), sid="pod-tables")


def _pod_block(pod: str, attempts: list[Any], status: str, victims: list[str]) -> str:
    """One pod: its status (and victims) in the summary, then each recorded attempt's table."""
    last = attempts[-1]
    evaluated = sum(1 for r in last.rows if r.code != "NotEvaluated")
    summary = (
        f"{html.escape(pod)} — {html.escape(status or 'pending')}: {last.feasible} of {evaluated} "
        f"evaluated nodes fit (attempt {last.attempt})"
    )
    if victims:
        summary += f"; preempted {html.escape(', '.join(victims))}"
    body = "".join(_attempt_table(t, len(attempts) > 1) for t in attempts)
    return f'<details class="pod-table" data-pod="{html.escape(pod)}"><summary>{summary}</summary>{body}</details>'


def _attempt_table(table: Any, titled: bool) -> str:
    rows = table.rows
    scored = sorted((r for r in rows if r.total is not None), key=lambda r: -(r.total or 0))
    rest = [r for r in rows if r.total is None]
    evaluated = [r for r in rows if r.code != "NotEvaluated"]
    shown = (scored + rest)[:MAX_NODE_ROWS]
    hidden = len(rows) - len(shown)
    filters = table.filter_plugins
    # a Filter column where no node shown was rejected is said in one line, not drawn
    rejecting = {r.plugin for r in shown if r.code not in ("Success", "NotEvaluated")}
    columns = [p for p in filters if p in rejecting]
    passed = [p for p in filters if p not in rejecting]
    weights: dict[str, dict[str, int]] = next((r.scores for r in scored if r.scores), {}) or {}
    head = [
        "node",
        "verdict",
        *(f"filter: {p}" for p in columns),
        *(f"score: {p} (×{weights.get(p, {}).get('weight', 1)})" for p in table.score_plugins),
        "total",
    ]
    body = []
    for r in shown:
        verdict = "fits" if r.code == "Success" else r.code if r.code == "NotEvaluated" else f"rejected by {r.plugin or 'PreFilter'}"
        cells = [r.name, verdict]
        cells += [_filter_cell(r, plugin, filters) for plugin in columns]
        cells += ["" if not r.scores or p not in r.scores else r.scores[p]["score"] for p in table.score_plugins]
        cells.append("" if r.total is None else r.total)
        cls = "fits" if r.code == "Success" else "rejected"
        tip = f' title="{html.escape(r.code)}"' if r.code not in ("Success", "NotEvaluated") else ""
        body.append(f'<tr class="{cls}"{tip}>' + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    ran = f'<p class="note">Passed by every node shown, or not run: {html.escape(", ".join(passed))}.</p>' if passed else ""
    more = (
        (
            f'<p class="note hidden-rows">{hidden} more nodes hidden (of {len(rows)}): '
            f"`kschedctl explain {html.escape(table.pod)}` lists them all.</p>"
        )
        if hidden
        else ""
    )
    said: dict[str, int] = {}  # every node's rejection, the hidden ones included
    for r in rows:
        if r.code not in ("Success", "NotEvaluated"):
            what = f"{r.plugin or 'PreFilter'}: {'; '.join(r.reasons) or r.code}"
            said[what] = said.get(what, 0) + 1
    counted = ", ".join(f"{n} × {w}" for w, n in sorted(said.items(), key=lambda kv: (-kv[1], kv[0])))
    tally = f'<p class="note tally">Rejected: {html.escape(counted)}.</p>' if said else ""
    title = (f'<p class="attempt">Attempt {table.attempt}: {table.feasible} of {len(evaluated)} evaluated nodes fit</p>') if titled else ""
    return (
        f'{title}<div class="table-wrap"><table class="nodes"><thead><tr>'
        + "".join(f"<th>{html.escape(h)}</th>" for h in head)
        + f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>{tally}{ran}{more}"
    )


def _filter_cell(row: Any, plugin: str, filters: list[str]) -> str:
    """✓ when the plugin passed the node, its reasons where it rejected it, · when it never ran."""
    if row.code == "Success":
        return "✓"
    if row.code == "NotEvaluated":
        return ""
    if not row.plugin or row.plugin not in filters:  # a PreFilter verdict: no Filter ran on it
        return "·" if filters.index(plugin) else f"({'; '.join(row.reasons) or row.code})"
    at = filters.index(row.plugin)
    here = filters.index(plugin)
    if here < at:
        return "✓"
    if here == at:
        return "; ".join(row.reasons) or row.code
    return "·"


def _packing_rows(packing: dict[str, Any], resources: list[str]) -> list[list[Any]]:
    a, b = packing["a"], packing["b"]
    rows: list[list[Any]] = [["nodes used", a["nodesUsed"], b["nodesUsed"]], ["empty nodes", a["emptyNodes"], b["emptyNodes"]]]
    for r in resources:
        for key, label in (
            ("utilisationMean", "utilisation mean"),
            ("utilisationStddev", "utilisation stddev"),
            ("fragmentation", "fragmentation"),
        ):
            rows.append([f"{r} {label}", _pct(a[key][r]), _pct(b[key][r])])
    return rows


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100.0 * value:.1f}%"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _details(e: dict[str, Any]) -> str:
    return " ".join(f"{k}={', '.join(v) if isinstance(v, list) else v}" for k, v in e.items() if k not in ("time", "event"))


def _where(outcome: dict[str, Any]) -> str:
    node: str | None = outcome["node"]
    status: str = outcome["status"]
    return node or status


def _side(side: dict[str, Any]) -> str:
    gates = f", {side['featureGates']}" if side["featureGates"] else ""
    return f"{side['config'] or 'default configuration'}, kube-scheduler {side['kubeVersion']}{gates}"


def _summary_line(s: dict[str, Any]) -> str:
    return (
        f"{s['pending']} pending: {s['scheduled']} scheduled, {s['unschedulable']} unschedulable, "
        f"{s['skipped']} skipped, {s['preempted']} preempted"
    )


# --- the page ------------------------------------------------------------------------------


class _Page:
    def __init__(self, title: str, subtitle: str) -> None:
        self.title = title
        self.subtitle = subtitle
        self.sections: list[str] = []
        self.figures: dict[str, dict[str, Any]] = {}
        self.tables: dict[str, tuple[list[str], list[list[Any]]]] = {}
        self.numbered = 0

    def chart(self, heading: str, figure: dict[str, Any] | None, note: str) -> None:
        if figure is None:  # nothing to draw: the note says why
            self.sections.append(f'<section><h2>{html.escape(heading)}</h2><p class="note">{html.escape(note)}</p></section>')
            return
        div = f"chart-{len(self.figures) + 1}"
        self.figures[div] = figure
        note_html = f'<p class="note">{html.escape(note)}</p>' if note else ""
        self.sections.append(f'<section><h2>{html.escape(heading)}</h2>{note_html}<div id="{div}" class="chart"></div></section>')

    def note(self, heading: str, note: str) -> None:
        self.sections.append(f'<section><h2>{html.escape(heading)}</h2><p class="note">{html.escape(note)}</p></section>')

    def raw(self, heading: str, note: str, body: str, sid: str) -> None:
        """A section of ready HTML (``body`` escaped by its maker)."""
        self.sections.append(f'<section id="{sid}"><h2>{html.escape(heading)}</h2><p class="note">{html.escape(note)}</p>{body}</section>')

    def table(self, heading: str, headers: list[str], rows: Iterable[list[Any]], tid: str | None = None) -> None:
        rows = list(rows)
        if tid is None:  # table-1, table-2...: the ones without a name of their own
            self.numbered += 1
            tid = f"table-{self.numbered}"
        shown = rows[:MAX_TABLE_ROWS]
        self.tables[tid] = (headers, shown)
        cut = f" (the first {MAX_TABLE_ROWS} of {len(rows)})" if len(rows) > MAX_TABLE_ROWS else ""
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in shown)
        head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
        self.sections.append(
            f"<section><h2>{html.escape(heading)}{cut}</h2>"
            f'<input class="search" type="search" placeholder="search {html.escape(heading.lower())}" '
            f'data-table="{tid}" aria-label="search {html.escape(heading.lower())}">'
            f'<span class="count" id="{tid}-count">{len(shown)} rows</span>'
            f'<div class="table-wrap"><table id="{tid}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
            "</div></section>"
        )

    def render(self, plotly: str) -> str:
        figures = json.dumps(self.figures, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
        return _TEMPLATE.format(
            title=html.escape(self.title),
            subtitle=html.escape(self.subtitle),
            sections="\n".join(self.sections),
            plotly=plotly.replace("</script", "<\\/script"),
            figures=figures,
        )


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
body {{ font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto 3rem; padding: 0 2rem;
        max-width: 110rem; color: #222; }}
h1 {{ font-size: 1.5rem; margin: 1.2rem 0 .2rem; }}
h2 {{ font-size: 1.1rem; margin: 1.6rem 0 .4rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }}
p.subtitle {{ margin: 0 0 1rem; color: #444; max-width: 70rem; }}
p.note {{ color: #666; margin: .2rem 0; font-size: .9rem; max-width: 70rem; }}
section {{ min-width: 0; }}
.chart {{ width: 100%; min-width: 0; }}
.table-wrap {{ max-width: 100%; overflow-x: auto; }}
table {{ border-collapse: collapse; font-size: .85rem; width: 100%; margin-top: .4rem; }}
th, td {{ border-bottom: 1px solid #eee; padding: .25rem .5rem; text-align: left; vertical-align: top;
         overflow-wrap: break-word; }}
th {{ background: #f6f6f6; position: sticky; top: 0; }}
table.nodes td, table.nodes th {{ font-size: .8rem; overflow-wrap: normal; }}
table.nodes td:first-child {{ white-space: nowrap; }}
table.nodes tr.fits td:first-child {{ border-left: 3px solid #54a24b; }}
table.nodes tr.rejected td:first-child {{ border-left: 3px solid #e45756; }}
details.pod-table {{ margin: .3rem 0; border: 1px solid #eee; border-radius: 4px; padding: .2rem .5rem; }}
details.pod-table summary {{ cursor: pointer; font-size: .9rem; }}
p.attempt {{ margin: .5rem 0 0; font-size: .85rem; font-weight: 600; }}
input.search {{ padding: .3rem .5rem; width: 22rem; max-width: 100%; box-sizing: border-box; }}
span.count {{ margin-left: .8rem; color: #666; font-size: .85rem; }}
@media (max-width: 900px) {{
  body {{ padding: 0 .75rem; }}
  table {{ font-size: .8rem; }}
  th, td {{ padding: .2rem .3rem; }}
  span.count {{ display: block; margin: .2rem 0 0; }}
}}
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
