"""Renderers: table, wide, json and yaml views of the same result objects.

Because every format reads the same ``to_dict()``, `-o json` and the table cannot disagree.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import yaml
from tabulate import tabulate

from kschedctl.scheduler.result import ExplainGroupResult, ExplainResult, RunResult

if TYPE_CHECKING:
    from kschedctl.scheduler.simulate import SimulationResult


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def to_yaml(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True)


def render_run(result: RunResult, output: str) -> str:
    data = result.to_dict()
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
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
    headers = ["POD", "STATUS", "NODE", "ATTEMPTS", "SCORE"] + (["PROFILE", "MESSAGE"] if wide else [])
    out = tabulate(rows, headers=headers, tablefmt="plain") + "\n"
    if not wide and (data["unschedulable"] or data["skipped"]):
        lines = [f"{u['pod']}: {u['message']}" for u in data["unschedulable"]]
        lines += [f"{s['pod']}: skipped: {s['reason']}" for s in data["skipped"]]
        out += "\n" + "\n".join(lines) + "\n"
    if data["preemptions"]:
        out += "\nPREEMPTIONS\n" + tabulate(
            [[p["preemptor"], p["node"], ", ".join(p["victims"])] for p in data["preemptions"]],
            headers=["PREEMPTOR", "NODE", "VICTIMS"], tablefmt="plain") + "\n"
    s = data["summary"]
    out += (f"\n{s['pending']} pending: {s['scheduled']} scheduled, {s['unschedulable']} unschedulable, "
            f"{s['skipped']} skipped, {s['preempted']} preempted\n")
    return out


def render_explain(result: ExplainResult | ExplainGroupResult, output: str) -> str:
    if isinstance(result, ExplainGroupResult):
        return render_explain_group(result, output)
    data = result.to_dict()
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
    plugins: list[str] = []
    for n in data["nodes"].values():
        for name in (n.get("scores") or {}):
            if name not in plugins:
                plugins.append(name)
    rows = []
    for name, n in data["nodes"].items():
        f = n["filter"]
        verdict = "fits" if f["code"] == "Success" else f"{f['code']}: {f.get('plugin') or '-'}: {', '.join(f['reasons'])}"
        scores = n.get("scores") or {}
        row = [("* " if name == data["node"] else "  ") + name, verdict]
        row += [f"{scores[p]['score']}x{scores[p]['weight']}" if p in scores else "" for p in plugins]
        row.append("" if n.get("total") is None else n["total"])
        rows.append(row)
    out = f"pod {data['pod']} (profile {data['profile']})\n\n"
    out += tabulate(rows, headers=["NODE", "FILTER"] + plugins + ["TOTAL"], tablefmt="plain") + "\n\n"
    if data["node"]:
        out += f"would be scheduled to {data['node']}\n"
    else:
        out += f"unschedulable: {data['message']}\n"
        pre = data.get("preemption") or {}
        if pre.get("nominatedNode"):
            out += f"preemption would nominate {pre['nominatedNode']}, evicting {', '.join(pre['victims'])}\n"
    return out


def render_validation(reports: list, output: str) -> str:
    """`validate`: one line per finding (file:line:column: severity: path: message), or JSON for CI."""
    if output == "json":
        return to_json({"valid": all(r.valid for r in reports), "files": [r.to_dict() for r in reports]})
    lines = []
    for r in reports:
        for f in r.findings:
            lines.append(f"{r.file}:{f}")
        lines.append(f"{r.file}: {'valid' if r.valid else 'invalid'}")
    return "\n".join(lines) + "\n"


def render_explain_group(result: ExplainGroupResult, output: str) -> str:
    data = result.to_dict()
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
    out = f"pod group {data['podGroup']} (profile {data['profile']}): {data['status']}"
    out += f": {data['message']}\n" if data["message"] else "\n"
    for m in data["members"]:
        out += f"\n{m['pod']}: " + (f"-> {m['node']}" if m["node"] else f"unschedulable: {m['message']}") + "\n"
        rows = []
        for name, n in m["nodes"].items():
            f = n["filter"]
            verdict = "fits" if f["code"] == "Success" else f"{f['code']}: {f.get('plugin') or '-'}: {', '.join(f['reasons'])}"
            rows.append([name, verdict, "" if n.get("total") is None else n["total"]])
        out += tabulate(rows, headers=["NODE", "FILTER", "TOTAL"], tablefmt="plain") + "\n"
    return out


def render_simulation(result: "SimulationResult", output: str) -> str:
    from kschedctl.framework.gosemantics import go_duration

    data = result.to_dict()
    if output == "json":
        return to_json(data)
    if output == "yaml":
        return to_yaml(data)
    rows = []
    for e in data["events"]:
        details = {k: v for k, v in e.items() if k not in ("time", "event")}
        text = " ".join(f"{k}={', '.join(v) if isinstance(v, list) else v}" for k, v in details.items())
        rows.append([go_duration(float(e["time"])), e["event"], text])
    out = tabulate(rows, headers=["TIME", "EVENT", "DETAILS"], tablefmt="plain") + "\n\nFINAL\n"
    out += tabulate([[n, ", ".join(p) or "-"] for n, p in data["final"].items()], headers=["NODE", "PODS"],
                    tablefmt="plain") + "\n"
    if data["unschedulable"]:
        out += "\n" + "\n".join(f"{u['pod']}: {u['message']}" for u in data["unschedulable"]) + "\n"
    s = data["summary"]
    out += (f"\n{s['pending']} pending: {s['scheduled']} scheduled, {s['unschedulable']} unschedulable, "
            f"{s['skipped']} skipped, {s['preempted']} preempted\n")
    return out
