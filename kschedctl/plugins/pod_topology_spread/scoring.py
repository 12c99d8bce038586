"""PodTopologySpread PreScore / Score / NormalizeScore: soft (ScheduleAnyway) spreading.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/scoring.go (scoring_memo.go in
newer releases only memoizes the same counts).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import is_
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.backend.cache.columnar import as_batch, rows_with_nodes
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.gosemantics import INT64_MAX, go_round
from kschedctl.framework.interface import MAX_NODE_SCORE, NodeScore
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins.pod_topology_spread.common import (
    LABEL_HOSTNAME,
    Constraint,
    count_node_pods_match_selector,
    node_labels_match_spread_constraints,
)
from kschedctl.plugins.pod_topology_spread.filtering import inclusion_policies_trivial
from kschedctl.plugins.row_aggregate import Contribution, aggregate, label_codes, tracked_rows

PRE_SCORE_STATE_KEY = "PreScorePodTopologySpread"
_INVALID_SCORE = -1


class PreScoreState:
    """preScoreState: constraints, nodes not to score, per-domain counts and per-constraint weights."""

    __slots__ = ("constraints", "ignored_nodes", "topology_value_to_pod_counts", "topology_normalizing_weight")

    def __init__(self, constraints: list[Constraint]) -> None:
        self.constraints = constraints
        self.ignored_nodes: set[str] = set()
        self.topology_value_to_pod_counts: list[dict[str, int]] = [{} for _ in constraints]
        self.topology_normalizing_weight: list[float] = []

    def clone(self) -> "PreScoreState":
        return self  # never mutated after PreScore (upstream shares it too)


def topology_normalizing_weight(size: int) -> float:
    """ln(size + 2): small topologies' counts are not watered down by big ones."""
    return math.log(size + 2)


def score_for_count(cnt: int, max_skew: int, weight: float) -> float:
    return float(cnt) * weight + float(max_skew - 1)


def init_pre_score_state(s: PreScoreState, filtered_nodes: Sequence[NodeInfo], require_all_topologies: bool, snapshot: Any = None) -> None:
    """initPreScoreState: register the domains of the feasible nodes (not hostname: counted per
    node at Score) and the nodes to ignore; weights from the number of domains."""
    if snapshot is not None and _init_by_codes(s, as_batch(filtered_nodes, snapshot), require_all_topologies):
        return
    topo_size = [0] * len(s.constraints)
    for info in filtered_nodes:
        node = info.node
        if node is None:
            continue
        if require_all_topologies and not node_labels_match_spread_constraints(node.labels, s.constraints):
            s.ignored_nodes.add(node.name)
            continue
        for i, c in enumerate(s.constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue
            value = node.labels.get(c.topology_key, "")  # a missing key registers "" (Go map read)
            counts = s.topology_value_to_pod_counts[i]
            if value not in counts:
                counts[value] = 0
                topo_size[i] += 1
    for i, c in enumerate(s.constraints):
        size = topo_size[i]
        if c.topology_key == LABEL_HOSTNAME:
            size = len(filtered_nodes) - len(s.ignored_nodes)
        s.topology_normalizing_weight.append(topology_normalizing_weight(size))


def _init_by_codes(s: PreScoreState, batch: Any, require_all_topologies: bool) -> bool:
    """init_pre_score_state by the nodes' label codes; False (nothing done) without rows or
    with a NodeInfo that has no node (the walk handles those)."""
    import numpy as np

    if not rows_with_nodes(batch):
        return False
    n = len(batch)
    codes = [label_codes(batch, c.topology_key) for c in s.constraints]
    kept = np.ones(n, bool)
    if require_all_topologies:
        for _, cc in codes:  # type: ignore[misc]
            kept &= cc >= 0
        if not kept.all():
            names = _names(batch)
            s.ignored_nodes.update(names[i] for i in (~kept).nonzero()[0].tolist())
    for i, c in enumerate(s.constraints):
        size = n - len(s.ignored_nodes)
        if c.topology_key != LABEL_HOSTNAME:
            col, cc = codes[i]  # type: ignore[misc]
            values = col.values
            # a missing key registers "" (Go map read), which a node labelled "" shares; the
            # codes present, ascending with -1 first as np.unique gives them, by a table over
            # the column's codes (np.unique's Python wrapper costs several times more)
            present = col.lut(bool)
            present[cc[kept]] = True  # code -1 marks the last slot
            found = present[:-1].nonzero()[0].tolist()
            counts = dict.fromkeys(([""] if present[-1] else []) + [values[k] for k in found], 0)
            s.topology_value_to_pod_counts[i] = counts
            size = len(counts)
        s.topology_normalizing_weight.append(topology_normalizing_weight(size))
    return True


def count_all_nodes(s: PreScoreState, pod: Pod, all_nodes: Sequence[NodeInfo], require_all_topologies: bool, snapshot: Any = None) -> None:
    """PreScore's processAllNode: add each node's matching pods to its registered domain.

    With a snapshot kept by a Cache and inclusion policies that hold for every node, the
    per-domain sums come from per-snapshot sums kept across cycles (plugins/row_aggregate.py)."""
    tracked = tracked_rows(snapshot) if inclusion_policies_trivial(pod, s.constraints) else None
    if tracked is not None and (
        tracked.nodes is all_nodes or (len(tracked.nodes) == len(all_nodes) and all(map(is_, tracked.nodes, all_nodes)))
    ):
        key = ("PodTopologySpread.score", tuple((c.topology_key, c.selector) for c in s.constraints), pod.namespace, require_all_topologies)
        total = aggregate(tracked, key, _score_counts_contribution(s.constraints, pod.namespace, require_all_topologies))
        for i, counts in enumerate(s.topology_value_to_pod_counts):
            matched = total.get(i)
            if matched:
                for value in counts:
                    counts[value] += matched.get(value, 0)
        return
    for info in all_nodes:
        node = info.node
        if node is None:
            continue
        if require_all_topologies and not node_labels_match_spread_constraints(node.labels, s.constraints):
            continue
        for i, c in enumerate(s.constraints):
            if not c.match_node_inclusion_policies(pod, node):
                continue
            value = node.labels.get(c.topology_key, "")
            counts = s.topology_value_to_pod_counts[i]
            if value not in counts:
                continue
            counts[value] += count_node_pods_match_selector(info, c.selector, pod.namespace)


def _score_counts_contribution(constraints: list[Constraint], namespace: str, require_all: bool) -> Any:
    """One node's part of processAllNode: constraint index -> {its domain value: matching pods}."""

    def contribution(info: NodeInfo) -> Contribution | None:
        node = info.node
        if node is None or (require_all and not node_labels_match_spread_constraints(node.labels, constraints)):
            return None
        out: Contribution = {}
        for i, c in enumerate(constraints):
            count = count_node_pods_match_selector(info, c.selector, namespace)
            if count:
                out[i] = {node.labels.get(c.topology_key, ""): count}
        return out or None

    return contribution


def get_pre_score_state(state: CycleState) -> PreScoreState:
    try:
        value = state.read(PRE_SCORE_STATE_KEY)
    except StateNotFound:
        raise RuntimeError(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found') from None
    if not isinstance(value, PreScoreState):
        raise RuntimeError(f"{value!r}  convert to podtopologyspread.preScoreState error")
    return value


def score_node(s: PreScoreState, pod: Pod, node_info: NodeInfo) -> int:
    """Score: the (weighted) matching count of the node's domains; lower is better."""
    node = node_info.node
    if node is None or node.name in s.ignored_nodes:
        return 0
    score = 0.0
    for i, c in enumerate(s.constraints):
        value = node.labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == LABEL_HOSTNAME:
            cnt = count_node_pods_match_selector(node_info, c.selector, pod.namespace)
        else:
            cnt = s.topology_value_to_pod_counts[i].get(value, 0)
        score += score_for_count(cnt, c.max_skew, s.topology_normalizing_weight[i])
    return go_round(score)


def score_nodes(s: PreScoreState, pod: Pod, node_infos: Sequence[NodeInfo]) -> Any:
    """score_node for a batch with rows (the batch Score form): the same float64 operations in
    the same order per node, by label codes and a table of counts per domain; None without
    rows (the caller scores per node)."""
    import numpy as np

    if getattr(node_infos, "rows", None) is None:
        return None
    n = len(node_infos)
    total = np.zeros(n, np.float64)
    for i, c in enumerate(s.constraints):
        col, codes = label_codes(node_infos, c.topology_key)  # type: ignore[misc]
        present = codes >= 0
        if c.topology_key == LABEL_HOSTNAME:
            cnt = np.fromiter(
                (
                    count_node_pods_match_selector(ni, c.selector, pod.namespace) if ok else 0
                    for ni, ok in zip(node_infos, present.tolist())
                ),
                np.int64,
                n,
            )
        else:
            lut = col.lut(np.int64)
            for value, num in s.topology_value_to_pod_counts[i].items():
                code = col.code_of.get(value)
                if code is not None:
                    lut[code] = num
            cnt = lut[codes]
        term = cnt.astype(np.float64) * s.topology_normalizing_weight[i] + float(c.max_skew - 1)
        total = np.where(present, total + term, total)
    out = np.floor(total + 0.5).astype(np.int64)  # go_round of a non-negative float
    if s.ignored_nodes:
        ignored = np.fromiter((name in s.ignored_nodes for name in _names(node_infos)), bool, n)
        out[ignored] = 0
    return out


def normalize_scores(s: PreScoreState, scores: list[NodeScore]) -> None:
    """NormalizeScore: MaxNodeScore * (max + min - score) / max over the nodes not ignored."""
    min_score, max_score = INT64_MAX, 0
    for ns in scores:
        if ns.name in s.ignored_nodes:
            ns.score = _INVALID_SCORE
            continue
        min_score = min(min_score, ns.score)
        max_score = max(max_score, ns.score)
    for ns in scores:
        if ns.score == _INVALID_SCORE:
            ns.score = 0
        elif max_score == 0:
            ns.score = MAX_NODE_SCORE
        else:
            ns.score = MAX_NODE_SCORE * (max_score + min_score - ns.score) // max_score


def _names(node_infos: Sequence[NodeInfo]) -> list[str]:
    rows = getattr(node_infos, "rows", None)
    if rows is not None:
        names: list[str] = node_infos.columns.names_of(rows)  # type: ignore[attr-defined]
        return names
    return [ni.name for ni in node_infos]
