"""InterPodAffinity's rejection: the existing pods behind it, in the node's topology domain,
with the term that matched (interpodaffinity/filtering.go: satisfyExistingPodsAntiAffinity,
satisfyPodAntiAffinity, satisfyPodAffinity)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kschedctl.api.labels import LabelSelector
from kschedctl.api.types import Node, Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import AffinityTerm, NodeInfo, PodInfo
from kschedctl.plugins.inter_pod_affinity.plugin import PRE_FILTER_STATE_KEY, PreFilterState

MAX_PODS = 5  # pods named per rejection; the count says how many there are


class _Domains:
    """The nodes of each topology domain, indexed once per attempt (its CycleState: the snapshot
    does not change during an attempt) rather than scanned once per rejected node."""

    state: CycleState | None = None
    by_key: dict[str, dict[str, list[NodeInfo]]] = {}
    # topologyKey -> value -> the existing pods with a required anti-affinity term over that key,
    # on a node of that domain
    anti: dict[str, dict[str, list[tuple[PodInfo, AffinityTerm]]]] | None = None

    @classmethod
    def _reset(cls, state: CycleState) -> None:
        if cls.state is not state:
            cls.state, cls.by_key, cls.anti = state, {}, None

    @classmethod
    def existing_anti(cls, state: CycleState, lister: Any) -> dict[str, dict[str, list[tuple[PodInfo, AffinityTerm]]]]:
        cls._reset(state)
        if cls.anti is None:
            cls.anti = {}
            for ni in lister.have_pods_with_required_anti_affinity_list():
                if ni.node is None:
                    continue
                for existing in ni.pods_with_required_anti_affinity:
                    for term in existing.required_anti_affinity_terms:
                        value = ni.node.labels.get(term.topology_key)
                        if value is not None:
                            by_value = cls.anti.setdefault(term.topology_key, {})
                            by_value.setdefault(value, []).append((existing, term))
        return cls.anti

    @classmethod
    def of(cls, state: CycleState, nodes: list[NodeInfo], key: str) -> dict[str, list[NodeInfo]]:
        cls._reset(state)
        index = cls.by_key.get(key)
        if index is None:
            index = cls.by_key[key] = {}
            for ni in nodes:
                value = ni.node.labels.get(key) if ni.node is not None else None
                if value is not None:
                    index.setdefault(value, []).append(ni)
        return index


def _same_domain(state: CycleState, nodes: list[NodeInfo], node: Node, key: str) -> Iterator[NodeInfo]:
    value = node.labels.get(key)
    if value is not None:
        yield from _Domains.of(state, nodes, key).get(value, [])


def selector_text(selector: LabelSelector | None) -> str:
    """A label selector as kubectl writes one (``app=web,tier in (a,b)``); nil selects nothing."""
    if selector is None:
        return "<none>"
    parts = [f"{k}={v}" for k, v in selector.match_labels]
    for r in selector.match_expressions:
        if r.operator in ("In", "NotIn"):
            parts.append(f"{r.key} {r.operator.lower()} ({','.join(r.values)})")
        else:
            parts.append(r.key if r.operator == "Exists" else f"!{r.key}")
    return ",".join(parts) or "<everything>"


def _term_text(term: AffinityTerm) -> str:
    return f"topologyKey {term.topology_key}, selector {selector_text(term.selector)}"


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    s = state.get(PRE_FILTER_STATE_KEY)
    node = info.node
    if not isinstance(s, PreFilterState) or node is None:
        return None
    lister = plugin.handle.snapshot_shared_lister()
    nodes = lister.list()
    found: list[dict[str, Any]] = []
    # existing pods whose required anti-affinity matches the incoming pod
    for key, by_value in _Domains.existing_anti(state, lister).items():
        value = node.labels.get(key)
        for existing, term in by_value.get(value, []) if value is not None else []:
            if term.matches(pod, s.namespace_labels):
                found.append({"rule": "existing pod's anti-affinity", "pod": existing.pod.key, "term": _term_text(term)})
    # the incoming pod's required anti-affinity terms matched by pods in the node's domain
    for term in s.pod_info.required_anti_affinity_terms:
        for ni in _same_domain(state, nodes, node, term.topology_key):
            for existing in ni.pods:
                if term.matches(existing.pod, s.ns_labels_of(existing.pod.namespace)):
                    found.append({"rule": "pod's anti-affinity", "pod": existing.pod.key, "term": _term_text(term)})
    missing = [
        t
        for t in s.pod_info.required_affinity_terms
        if node.labels.get(t.topology_key) is None or s.affinity_counts.get((t.topology_key, node.labels[t.topology_key]), 0) <= 0
    ]
    if not found and not missing:
        return None
    lines = []
    if found:
        by_pod: dict[str, list[str]] = {}
        for f in found:
            by_pod.setdefault(f["pod"], []).append(f["rule"])
        named = ", ".join(f"{pod_key} ({' and '.join(rules)})" for pod_key, rules in list(by_pod.items())[:MAX_PODS])
        more = f" and {len(by_pod) - MAX_PODS} more" if len(by_pod) > MAX_PODS else ""
        lines.append(f"{len(by_pod)} pod(s) in the node's domain: {named}{more}")
    for t in missing:
        lines.append(f"no pod matching the affinity term ({_term_text(t)}) in the node's domain")
    out: dict[str, Any] = {"summary": "; ".join(lines)}
    if found:
        out["pods"] = found
    if missing:
        out["unmatchedAffinityTerms"] = [_term_text(t) for t in missing]
    return out
