"""Renderers for `diff` and `capacity`: table, json and yaml views of the same result objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tabulate import tabulate

from kschedctl.api.field import escape_control
from kschedctl.api.jsontypes import JSONObject
from kschedctl.cluster.references import first_names
from kschedctl.output.layout import wrap_line
from kschedctl.output.render import to_json, to_yaml

if TYPE_CHECKING:
    from kschedctl.whatif.capacity import CapacityResult, NodesForResult
    from kschedctl.whatif.diff import DiffResult

_BINARY = (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))


def fmt_amount(resource: str, value: int) -> str:
    """An amount in the scheduler's units, written as kubectl would: 1500m, 2, 512Mi, 3."""
    if resource == "cpu":
        return f"{value // 1000}" if value % 1000 == 0 else f"{value}m"
    if resource == "memory" or resource.startswith("hugepages-") or resource == "ephemeral-storage":
        for suffix, size in _BINARY:
            if value >= size and value % size == 0:
                return f"{value // size}{suffix}"
        for suffix, size in _BINARY:
            if value >= size:
                return f"{value / size:.1f}{suffix}"
    return str(value)


def fmt_share(requested: int, allocatable: int) -> str:
    return f"{100.0 * requested / allocatable:.0f}%" if allocatable else "-"


def fmt_use(resource: str, requested: dict[str, int], allocatable: dict[str, int]) -> str:
    req, alloc = requested.get(resource, 0), allocatable.get(resource, 0)
    return f"{fmt_amount(resource, req)}/{fmt_amount(resource, alloc)} ({fmt_share(req, alloc)})"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100.0 * value:.1f}%"


# --- diff ----------------------------------------------------------------------------------


def render_diff(result: "DiffResult", output: str, width: int | None = None) -> str:
    """``width``: the terminal's; free-text lines (notes, the summary) are wrapped to it."""
    data = result.to_dict()
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
    out = f"A: {_side(data['a'])}\nB: {_side(data['b'])}\nseed {data['seed']}\n\n"
    out += _diff_changes(data["changes"], width)
    out += "\nPACKING\n" + _diff_packing(data["packing"], result.a.usage.resources()) + "\n"
    out += "\nZONES\n" + _diff_groups(data["zones"], "zone", "ZONE", result.a.usage.resources()) + "\n"
    changed = [n for n in data["nodes"] if n["requested"]["a"] != n["requested"]["b"]]
    if changed:
        out += f"\nNODES WHOSE REQUESTS CHANGED ({len(changed)} of {len(data['nodes'])})\n"
        out += _diff_groups(changed, "name", "NODE", result.a.usage.resources()) + "\n"
    out += "\n" + wrap_line(_diff_summary(data["summary"]), width) + "\n"
    return out


def _side(side: dict[str, Any]) -> str:
    config = escape_control(side["config"]) if side["config"] else "default configuration"  # a file name
    gates = f", feature gates {side['featureGates']}" if side["featureGates"] else ""
    return f"{config}, kube-scheduler {side['kubeVersion']}{gates}"


def _where(outcome: dict[str, Any]) -> str:
    node: str | None = outcome["node"]
    status: str = outcome["status"]
    if node:
        return node + (" (preempted)" if status == "Preempted" else "")
    return status


def _diff_changes(changes: list[dict[str, Any]], width: int | None = None) -> str:
    if not changes:
        return "no pod's outcome changed\n"
    rows = []
    for c in changes:
        move = c.get("move")
        why = f"{move['class']} ({move['why']})" if move else ""
        rows.append([c["pod"], c["kind"], _where(c["a"]), _where(c["b"]), why])
    out = tabulate(rows, headers=["POD", "CHANGE", "A", "B", "CLASS"], tablefmt="plain") + "\n"
    notes = []
    for c in changes:
        if c.get("move"):
            notes.append(f"{c['pod']}: {escape_control(c['move']['detail'])}")
        for label in ("a", "b"):
            o = c[label]
            if o["message"] and o["status"] != "Scheduled":
                notes.append(f"{c['pod']}: {label.upper()}: {escape_control(o['message'])}")  # may quote input
            if o.get("victims"):
                notes.append(f"{c['pod']}: {label.upper()}: preempted {', '.join(o['victims'])}")
            if o.get("preemptedBy"):
                notes.append(f"{c['pod']}: {label.upper()}: evicted by {o['preemptedBy']}")
    return out + ("\n" + "\n".join(wrap_line(n, width, "    ") for n in notes) + "\n" if notes else "")


def _diff_packing(packing: dict[str, Any], resources: list[str]) -> str:
    a, b = packing["a"], packing["b"]
    rows: list[list[Any]] = [["nodes used", a["nodesUsed"], b["nodesUsed"]], ["empty nodes", a["emptyNodes"], b["emptyNodes"]]]
    for r in resources:
        rows.append([f"{r} utilisation mean", _pct(a["utilisationMean"][r]), _pct(b["utilisationMean"][r])])
        rows.append([f"{r} utilisation stddev", _pct(a["utilisationStddev"][r]), _pct(b["utilisationStddev"][r])])
    for r in resources:
        rows.append([f"{r} fragmentation", _pct(a["fragmentation"][r]), _pct(b["fragmentation"][r])])
    return tabulate(rows, headers=["MEASURE", "A", "B"], tablefmt="plain")


def _diff_groups(rows_in: list[dict[str, Any]], key: str, label: str, resources: list[str]) -> str:
    headers = [label, "PODS A", "PODS B"]
    for r in resources:
        headers += [f"{r.upper()} A", f"{r.upper()} B"]
    rows = []
    for g in rows_in:
        row = [g[key] or "-", g["pods"]["a"], g["pods"]["b"]]
        for r in resources:
            row += [fmt_use(r, g["requested"]["a"], g["allocatable"]), fmt_use(r, g["requested"]["b"], g["allocatable"])]
        rows.append(row)
    return tabulate(rows, headers=headers, tablefmt="plain")


def _diff_summary(s: dict[str, Any]) -> str:
    parts = [
        f"{s['moved']} moved ({s['scoresChanged']} scores changed, {s['tieBreakOnly']} tie-break only)",
        f"{s['unschedulable']} became unschedulable",
        f"{s['schedulable']} became schedulable",
        f"{s['profile']} profile changed",
        f"{s['preemption']} preemption changed",
        f"{s['message']} message changed",
    ]
    return f"{s['pods']} pending pods, {s['changed']} changed: " + ", ".join(parts)


# --- capacity ------------------------------------------------------------------------------


def render_capacity(result: "CapacityResult", output: str, width: int | None = None) -> str:
    data = result.to_dict()
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
    out = f"{data['count']} copies of {data['pod']} fit"
    out += f" (stopped at --max {data['max']})\n" if data["stoppedBy"] == "max" else "\n"
    if data.get("addedNodes"):
        out += f"with {len(data['addedNodes'])} hypothetical nodes added: {', '.join(data['addedNodes'])}\n"
        out += daemon_set_lines(data.get("daemonSetPods") or {})
    if data["perZone"]:
        out += "\n" + tabulate([[z or "-", n] for z, n in data["perZone"].items()], headers=["ZONE", "COPIES"], tablefmt="plain") + "\n"
    if data["perNode"]:
        out += "\n" + tabulate([[n, c] for n, c in data["perNode"].items()], headers=["NODE", "COPIES"], tablefmt="plain") + "\n"
    if data["stopMessage"]:
        out += "\n" + wrap_line(f"the next copy does not fit: {escape_control(data['stopMessage'])}", width, "    ") + "\n"
    for note in data.get("notes", []):
        out += "\n" + wrap_line(f"note: {escape_control(note)}", width, "    ")
    return out + ("\n" if data.get("notes") else "")


def daemon_set_lines(by_node: dict[str, list[dict[str, Any]]]) -> str:
    """What the added nodes start with, one line per distinct set of DaemonSet pods:
    "extra-1, extra-2: 2 DaemonSet pods (kube-system/fluentd, ...) requesting cpu 600m, memory 456Mi"."""
    if not by_node:
        return ""
    if not any(by_node.values()):
        return "DaemonSet pods on the added nodes: none\n"
    groups: dict[tuple[str, ...], list[str]] = {}
    totals: dict[tuple[str, ...], dict[str, int]] = {}
    for node, pods in by_node.items():
        key = tuple(p["daemonSet"] for p in pods)
        groups.setdefault(key, []).append(node)
        total: dict[str, int] = {}
        for p in pods:
            for r, v in p["requests"].items():
                total[r] = total.get(r, 0) + v
        totals[key] = total
    lines = []
    for key, nodes in groups.items():
        shown = first_names(nodes)
        if not key:
            lines.append(f"{shown}: no DaemonSet pods")
            continue
        asks = ", ".join(f"{r} {fmt_amount(r, v)}" for r, v in totals[key].items()) or "nothing"
        lines.append(f"{shown}: {len(key)} DaemonSet pod(s) ({', '.join(key)}) requesting {asks}")
    return "DaemonSet pods on the added nodes (counted against their allocatable):\n" + "\n".join(f"  {line}" for line in lines) + "\n"


def nodes_for_headline(data: JSONObject) -> str:
    """ "N nodes like X are needed for M pods", or, when some pods fit no node of that shape,
    that said first: "0 nodes are needed" is no answer for a pod no such node can hold."""
    stuck = len(data["cannotHelp"])
    existing = f"{data['fitExisting']} fit on the existing nodes"
    if stuck and not data["nodesNeeded"]:
        return (
            f"no node like {data['node']} can hold {stuck} of the {data['pods']} pods ({existing}): "
            "adding nodes of this shape does not help them"
        )
    out = f"{data['nodesNeeded']} nodes like {data['node']} are needed for {data['pods']} pods ({existing})"
    if stuck:
        out += f"; {stuck} pod(s) fit no node of this shape"
    return out


def render_nodes_for(result: "NodesForResult", output: str, width: int | None = None) -> str:
    data = result.to_dict()
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
    out = wrap_line(nodes_for_headline(data), width) + "\n"
    if data["newNodes"]:
        out += (
            "\n"
            + tabulate(
                [[n, len(p), ", ".join(p[:4]) + (", ..." if len(p) > 4 else "")] for n, p in data["newNodes"].items()],
                headers=["NEW NODE", "PODS", ""],
                tablefmt="plain",
            )
            + "\n"
        )
    if data.get("daemonSetPods"):
        out += "\n" + daemon_set_lines(data["daemonSetPods"])
    for note in data.get("notes", []):
        out += "\n" + wrap_line(f"note: {escape_control(note)}", width, "    ") + "\n"
    if data["cannotHelp"]:
        out += (
            "\nno node of this shape helps:\n"
            + "\n".join(wrap_line(f"{c['pod']}: {escape_control(c['message'])}", width, "    ") for c in data["cannotHelp"])
            + "\n"
        )
    out += "\n" + wrap_line(f"method: {data['method']}", width, "    ") + "\n"
    return out
