"""NodeAffinity's rejection: each spec.nodeSelector entry the node's labels miss, and for each
required nodeAffinity term the first requirement the node fails (key, operator, wanted values,
the node's value); the profile's addedAffinity when that is what failed
(nodeaffinity/node_affinity.go Filter)."""

from __future__ import annotations

from typing import Any

from kschedctl.api.labels import NodeSelectorRequirement, NodeSelectorTerm
from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins.node_affinity.selector import RequiredNodeAffinity


def _requirement(req: NodeSelectorRequirement, labels: dict[str, str]) -> dict[str, Any]:
    return {"key": req.key, "operator": req.operator, "values": list(req.values), "nodeValue": labels.get(req.key)}


def _requirement_text(r: dict[str, Any]) -> str:
    have = "no such label" if r["nodeValue"] is None else f"node has {r['nodeValue']!r}"
    wanted = f" {r['operator']} {r['values']}" if r["values"] else f" {r['operator']}"
    return f"{r['key']}{wanted} ({have})"


def _failed_terms(terms: list[NodeSelectorTerm], node_name: str, labels: dict[str, str]) -> list[dict[str, Any]]:
    """Each term with the first requirement it fails on this node (terms are ORed: all failed)."""
    out = []
    for term in terms:
        failed = next((r for r in term.match_expressions if not r.matches(labels)), None)
        if failed is not None:
            out.append(_requirement(failed, labels))
        elif term.match_fields:
            field = term.match_fields[0]
            out.append({"key": field.key, "operator": field.operator, "values": list(field.values), "nodeValue": node_name})
    return out


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    node = info.node
    if node is None:
        return None
    labels = dict(node.labels)
    added = plugin.added_node_selector
    if added is not None and not added.matches(node):
        terms = _failed_terms(list(added.terms), node.name, labels)
        return {"addedAffinity": terms, "summary": "the profile's addedAffinity: " + " or ".join(_requirement_text(t) for t in terms)}
    required = RequiredNodeAffinity(pod)
    selector = [{"key": k, "wanted": v, "nodeValue": labels.get(k)} for k, v in required.node_selector.items() if labels.get(k) != v]
    terms = (
        _failed_terms(list(required.required.terms), node.name, labels)
        if required.required is not None and not required.required.matches(node)
        else []
    )
    if not selector and not terms:
        return None
    parts = [
        f"nodeSelector {s['key']}={s['wanted']} (" + ("no such label" if s["nodeValue"] is None else f"node has {s['nodeValue']!r}") + ")"
        for s in selector
    ]
    if terms:
        parts.append("required node affinity: " + " or ".join(_requirement_text(t) for t in terms))
    out: dict[str, Any] = {"summary": "; ".join(parts)}
    if selector:
        out["nodeSelector"] = selector
    if terms:
        out["requiredTerms"] = terms
    return out
