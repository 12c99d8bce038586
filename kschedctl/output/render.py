"""Renderers: table, wide, json and yaml views of the same result objects.

Because every format reads the same ``to_dict()``, `-o json` and the table cannot disagree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kschedctl.api.field import escape_control
from kschedctl.api.json_encoding import dumps_indented
from kschedctl.api.jsontypes import JSONList, JSONObject
from kschedctl.explain.verdict import group_verdict
from kschedctl.output.layout import Column, fit_table, wrap_line
from kschedctl.scheduler.result import ExplainGroupResult, ExplainResult, RunResult

if TYPE_CHECKING:
    from kschedctl.scheduler.simulate import SimulationResult


def _compact_verdict(cell: str) -> str:
    """A narrow terminal's FILTER cell: kube's long code name shortened (the JSON keeps it)."""
    return cell.replace("UnschedulableAndUnresolvable:", "Unresolvable:", 1)


FILTER_COLUMN = Column("FILTER", wrap=True, compact=_compact_verdict)
NODE_COLUMN = Column("NODE", common_suffix=True)


def escaped(data: Any) -> Any:
    """A copy of a result's data with control characters of every string escaped, for the
    text renderers: a pod or node name can neither break a line nor forge a table row.
    (JSON and YAML escape them themselves.)"""
    if isinstance(data, str):
        return escape_control(data)
    if isinstance(data, dict):
        return {escaped(k): escaped(v) for k, v in data.items()}
    if isinstance(data, list):
        return [escaped(v) for v in data]
    return data


def to_json(data: Any) -> str:
    return dumps_indented(data)


def to_yaml(data: Any) -> str:
    import yaml  # only -o yaml needs it

    from kschedctl.api.decoding import SafeDumper  # quotes what kubectl would read as another type

    return yaml.dump(data, Dumper=SafeDumper, sort_keys=False, default_flow_style=False, allow_unicode=True)


def render_run(result: RunResult, output: str, width: int | None = None) -> str:
    """``width``: the terminal's, to fit (None: no limit; ``wide`` never wraps)."""
    data = result.to_dict()
    for group in data.get("podGroups") or []:  # the answer first, worded from the run's record
        if group.get("status") != "Scheduled" and group.get("members"):
            group["verdict"] = group_verdict(group.get("minCount"), str(group.get("policy")), group["members"])
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
    data = escaped(data)
    wide = output == "wide"
    rows = []
    for p in data["placements"]:
        # no score: the node was the only feasible one, so kube-scheduler did not score
        row = [p["pod"], "Scheduled", p["node"], p["attempts"], "-" if p["score"] is None else p["score"]]
        if wide:
            row += [p["profile"], f"preempted by {p['preemptedBy']}" if p.get("preemptedBy") else ""]
        rows.append(row)
    for u in data["unschedulable"]:
        row = [u["pod"], "Unschedulable", u.get("nominatedNode", ""), u["attempts"], ""]
        if wide:
            row += [u["profile"], u["message"]]
        rows.append(row)
    for s in data["skipped"]:
        row = [s["pod"], "Skipped", "", "", ""]
        if wide:
            row += ["", s["reason"]]
        rows.append(row)
    if wide:
        width = None
    headers = ["POD", "STATUS", "NODE", "ATTEMPTS", "SCORE"] + (["PROFILE", "MESSAGE"] if wide else [])
    table = fit_table([Column(h, common_suffix=h == "NODE") for h in headers], rows, width)
    out = table.text + "\n" + _legend(table.legend, width)
    if not wide and (data["unschedulable"] or data["skipped"]):
        lines = []
        for u in data["unschedulable"]:
            lines.append(wrap_line(f"{u['pod']}: {u['message']}", width, "    "))
            if u.get("diagnosis"):
                lines.append(wrap_line(f"  diagnosis: {u['diagnosis']}", width, "    "))
        lines += [wrap_line(f"{s['pod']}: skipped: {s['reason']}", width, "    ") for s in data["skipped"]]
        out += "\n" + "\n".join(lines) + "\n"
    if data["preemptions"]:
        out += (
            "\nPREEMPTIONS\n"
            + fit_table(
                [Column("PREEMPTOR"), Column("NODE"), Column("VICTIMS", wrap=True)],
                [[p["preemptor"], p["node"], ", ".join(p["victims"])] for p in data["preemptions"]],
                width,
            ).text
            + "\n"
        )
    if data.get("podGroups"):
        verdicts = [wrap_line(f"{g['podGroup']}: {g['verdict']}", width, "    ") for g in data["podGroups"] if g.get("verdict")]
        rows = [
            [
                g["podGroup"],
                g["policy"],
                g["minCount"],
                g["status"],
                f"{g['placed']}/{g['total']}" if g.get("placed") is not None else "",
                g["message"],
            ]
            for g in data["podGroups"]
        ]
        out += (
            "\nPOD GROUPS\n"
            + fit_table(
                [Column("GROUP"), Column("POLICY"), Column("MINCOUNT"), Column("STATUS"), Column("PLACED"), Column("MESSAGE", wrap=True)],
                rows,
                width,
            ).text
            + "\n"
        )
        if verdicts:
            out += "\n" + "\n".join(verdicts) + "\n"
    out += "\n" + wrap_line(_summary_line(data["summary"]), width) + "\n"
    return out


def _summary_line(s: dict[str, int]) -> str:
    deleted = f", {s['deleted']} deleted" if s.get("deleted") else ""
    return (
        f"{s['pending']} pending: {s['scheduled']} scheduled, {s['unschedulable']} unschedulable, "
        f"{s['skipped']} skipped{deleted}, {s['preempted']} preempted"
    )


def _legend(entries: list[str], width: int | None) -> str:
    """What a fitted table shortened, under it: "(node names end in .x, TT=TaintToleration)"."""
    return wrap_line("(" + ", ".join(entries) + ")", width, indent=" ") + "\n" if entries else ""


def render_explain(result: ExplainResult | ExplainGroupResult, output: str, width: int | None = None, top: int = 3) -> str:
    """``width``: the terminal's, to fit (None: no limit; ``wide`` never wraps nor abbreviates).
    ``top``: the best nodes listed above the table (all of them in ``wide``)."""
    if isinstance(result, ExplainGroupResult):
        return render_explain_group(result, output, width)
    wide = output == "wide"
    if wide:
        width = None
    data = result.to_dict()
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
    data = escaped(data)
    out = f"pod {data['pod']} (profile {data['profile']})\n"
    out += wrap_line(f"state: {data['state']}" + (f": {data['stateDetail']}" if data.get("stateDetail") else ""), width, "    ") + "\n"
    if not data["evaluated"]:
        if data.get("note"):
            return out + wrap_line(f"note: {data['note']}", width, "    ") + "\n"
        how = "" if data["state"] == "no-profile" else " (--evaluate evaluates it as if it were pending)"
        return out + wrap_line(f"not evaluated{how}", width, "    ") + "\n"
    if data.get("note"):
        out += wrap_line(f"note: {data['note']}", width, "    ") + "\n"
    if data.get("verdict"):
        out += "\n" + wrap_line(f"verdict: {data['verdict']}", width, "    ") + "\n"
    # here, not at the top: explain's recorders are no part of what `schedule` renders
    from kschedctl.explain.sampling import sampling_line, tie_line

    if data.get("sampling"):
        out += wrap_line(sampling_line(data["sampling"]), width, "    ") + "\n"
    if data.get("tie"):
        out += wrap_line(tie_line(data["tie"]), width, "    ") + "\n"
    out += _render_ranking(data["ranking"], None if wide else top, width, data.get("node"))
    out += "\n" + _node_table(data, width) + "\n"
    if data["node"]:
        placed = "was scheduled to" if data.get("attempts") is not None else "would be scheduled to"
        out += f"{placed} {data['node']}\n"
    else:
        out += wrap_line(f"unschedulable: {data['message']}", width) + "\n"
        pre = data.get("preemption") or {}
        if pre.get("nominatedNode"):
            out += wrap_line(f"preemption would nominate {pre['nominatedNode']}, evicting {', '.join(pre['victims'])}", width) + "\n"
    return out + _render_details(data, width) + _render_dra(data, width) + _render_attempts(data, width)


def _render_ranking(ranking: list[JSONObject], top: int | None, width: int | None, chosen: str | None = None) -> str:
    """The best nodes by total score, ties marked (kube picks one of them at random); the node
    the pod goes to is marked, and listed below the top ones when it is not among them."""
    if not ranking or top == 0:
        return ""
    shown = ranking if top is None else ranking[:top]

    def line(r: JSONObject) -> str:
        return (
            f"  {r['rank']}{'=' if r['tie'] else '.'} {r['node']}  {r['total']}"
            + ("  (tie)" if r["tie"] else "")
            + ("  <- chosen" if r["node"] == chosen else "")
        )

    lines = [line(r) for r in shown]
    if chosen and all(r["node"] != chosen for r in shown):
        lines += ["  ..."] + [line(r) for r in ranking if r["node"] == chosen]
    more = len(ranking) - len(shown)
    head = f"\nbest nodes by total score ({len(ranking)} feasible"
    head += f", top {len(shown)}; -o wide lists all" if more else ""
    return head + "):\n" + "\n".join(lines) + "\n"


def _node_table(data: JSONObject, width: int | None) -> str:
    """The per-node table: the filter verdict, each score plugin's ``score×weight`` and the total."""
    plugins: list[str] = []
    for n in data["nodes"].values():
        for name in n.get("scores") or {}:
            if name not in plugins:
                plugins.append(name)
    rows = []
    for name, n in data["nodes"].items():
        f = n["filter"]
        if f["code"] == "Success":
            verdict = "fits"
        elif f["code"] == "NotEvaluated":
            verdict = "not evaluated (the attempt stopped before it)"
        else:
            # no plugin: a PreFilter result left the node out (kube's status names none)
            verdict = f"{f['code']}: {f.get('plugin') or 'PreFilter'}: {', '.join(f['reasons'])}"
        for also in n.get("alsoRejectedBy") or []:
            verdict += f"; also {also['plugin']}: {', '.join(also['reasons'])}"
        scores = n.get("scores") or {}
        row = [("* " if name == data["node"] else "  ") + name, verdict]
        row += [f"{scores[p]['score']}x{scores[p]['weight']}" if p in scores else "" for p in plugins]
        row.append("" if n.get("total") is None else n["total"])
        rows.append(row)
    columns = [NODE_COLUMN, FILTER_COLUMN] + [Column(p, abbreviate=True) for p in plugins]
    table = fit_table(columns + [Column("TOTAL")], rows, width)
    legend = list(table.legend)
    if plugins:
        legend.append("a score is the plugin's normalized score x its weight; TOTAL is their sum")
    return table.text + "\n" + _legend(legend, width)


def _render_details(data: JSONObject, width: int | None) -> str:
    """The facts behind each rejection, one line per node and plugin."""
    lines = [
        f"  {name}: {plugin}: {facts['summary']}"
        for name, n in data["nodes"].items()
        for plugin, facts in (n.get("details") or {}).items()
        if facts.get("summary")
    ]
    if not lines:
        return ""
    return "\nwhy not:\n" + "\n".join(wrap_line(line, width, "    ") for line in lines) + "\n"


def _render_attempts(data: JSONObject, width: int | None) -> str:
    """--in-run: each attempt `schedule` made for the pod, what moved it back to the queue
    before it, and how it ended."""
    attempts = data.get("attempts")
    if attempts is None:
        return ""
    lines = []
    for a in attempts:
        head = f"  attempt {a['attempt']} at +{a['time']:g}s"
        if a.get("movedBy"):
            head += f" (moved back to the queue by {a['movedBy']})"
        before = a["before"]
        head += f": after {before['placed']} placement(s), {before['preemptions']} preemption(s)"
        if before.get("nominatedNode"):
            head += f", nominated to {before['nominatedNode']}"
        o = a.get("outcome") or {}
        if o.get("event") == "Scheduled":
            head += f"; Scheduled on {o['node']}"
        elif o.get("event"):
            head += f"; {o['event']}: {o.get('message') or ''}"
        lines.append(wrap_line(head, width, "    "))
    run = data.get("run") or {}
    end = f"the run: {run.get('status')}" + (f" on {run['node']}" if run.get("node") else "")
    return "\nattempts in the schedule run:\n" + "\n".join(lines) + "\n" + end + "\n"


def _render_dra(data: JSONObject, width: int | None) -> str:
    """DynamicResources: the devices the chosen node would give, and why the others give none."""
    lines = []
    for name, n in data["nodes"].items():
        dra = n.get("dra")
        if not dra:
            continue
        if name == data["node"]:
            for c in dra["claims"]:
                devices = ", ".join(f"{d['request']}={d['driver']}/{d['pool']}/{d['device']}" for d in c.get("devices", []))
                lines.append(f"  {name}: {c['claim']}{' (allocated)' if c['allocated'] else ''}: {devices}")
        elif dra.get("why"):
            lines.append(f"  {name}: {dra['why']}")
    if not lines:
        return ""
    return "\ndevices (DynamicResources):\n" + "\n".join(wrap_line(line, width, "    ") for line in lines) + "\n"


def render_validation(reports: JSONList, output: str) -> str:
    """`validate`: one line per finding (file:line:column: severity: path: message), or JSON for CI."""
    if output == "json":
        return to_json({"valid": all(r.valid for r in reports), "files": [r.to_dict() for r in reports]})
    lines = []
    for r in reports:
        for f in r.findings:
            lines.append(escape_control(f"{r.file}:{f}"))
        lines.append(escape_control(f"{r.file}: {'valid' if r.valid else 'invalid'}"))
    return "\n".join(lines) + "\n"


def render_explain_group(result: ExplainGroupResult, output: str, width: int | None = None) -> str:
    data = result.to_dict()
    if data["status"] != "Success" and result.min_count is not None:
        data["verdict"] = group_verdict(result.min_count, result.policy, data["members"])
    if output == "wide":
        width = None
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
    data = escaped(data)
    head = f"pod group {data['podGroup']} (profile {data['profile']}): {data['status']}"
    out = wrap_line(head + (f": {data['message']}" if data["message"] else ""), width) + "\n"
    if data.get("verdict"):
        out += wrap_line(f"verdict: {data['verdict']}", width, "    ") + "\n"
    for m in data["members"]:
        line = f"{m['pod']}: " + (f"-> {m['node']}" if m["node"] else f"unschedulable: {m['message']}")
        out += "\n" + wrap_line(line, width) + "\n"
        rows = []
        for name, n in m["nodes"].items():
            f = n["filter"]
            verdict = "fits" if f["code"] == "Success" else f"{f['code']}: {f.get('plugin') or '-'}: {', '.join(f['reasons'])}"
            rows.append([name, verdict, "" if n.get("total") is None else n["total"]])
        table = fit_table([NODE_COLUMN, FILTER_COLUMN, Column("TOTAL")], rows, width)
        out += table.text + "\n" + _legend(table.legend, width)
    return out


def render_simulation(result: "SimulationResult", output: str, width: int | None = None) -> str:
    from kschedctl.framework.gosemantics import go_duration

    data = result.to_dict()
    if output == "wide":
        width = None
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
    data = escaped(data)
    rows = []
    for e in data["events"]:
        # a None (no score: the only feasible node is not scored) is left out; -o json keeps it as null
        details = {k: v for k, v in e.items() if k not in ("time", "event") and v is not None}
        text = " ".join(f"{k}={', '.join(v) if isinstance(v, list) else v}" for k, v in details.items())
        rows.append([go_duration(float(e["time"])), e["event"], text])
    out = fit_table([Column("TIME"), Column("EVENT"), Column("DETAILS", wrap=True)], rows, width).text + "\n\nFINAL\n"
    final = fit_table([NODE_COLUMN, Column("PODS", wrap=True)], [[n, ", ".join(p) or "-"] for n, p in data["final"].items()], width)
    out += final.text + "\n" + _legend(final.legend, width)
    if data["unschedulable"]:
        out += "\n" + "\n".join(wrap_line(f"{u['pod']}: {u['message']}", width) for u in data["unschedulable"]) + "\n"
    out += "\n" + wrap_line(_summary_line(data["summary"]), width) + "\n"
    return out
