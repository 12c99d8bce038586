"""PodTopologySpread PreFilter / Filter / PreFilterExtensions: hard (DoNotSchedule) spreading.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/filtering.go.

The global minimum of each constraint is kept two ways, as the releases differ:
* 1.35/1.36 keep two "critical paths" per constraint (criticalPaths.update), which is exact after
  PreFilter but only approximate after several AddPod/RemovePod updates;
* newer releases keep the exact minimum with a histogram of domain counts (MinMatchNum,
  DomainsAtCount; versions.CHANGES "PodTopologySpreadExactMinMatchNum").
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import is_
from typing import Any

from kschedctl.api.types import Node, Pod
from kschedctl.backend.cache.columnar import columns_of, rows_with_nodes
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.interface import Code, SparseStatuses, Status
from kschedctl.framework.types import NodeInfo
from kschedctl.lazy import numpy as np
from kschedctl.plugins.pod_topology_spread.common import (
    HONOR,
    MAX_INT32,
    Constraint,
    count_node_pods_match_selector,
    node_labels_match_spread_constraints,
)
from kschedctl.plugins.row_aggregate import Contribution, Tracked, aggregate, label_codes, label_column, tracked_rows

PRE_FILTER_STATE_KEY = "PreFilterPodTopologySpread"
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"


class CriticalPaths:
    """criticalPaths: paths[0] holds the minimum; paths[1] is >= it but not necessarily the 2nd minimum.
    The initial topology values are "" (a domain whose value is "" meets them, as upstream)."""

    __slots__ = ("paths",)

    def __init__(self, paths: list[list[Any]] | None = None) -> None:
        self.paths: list[list[Any]] = paths if paths is not None else [["", MAX_INT32], ["", MAX_INT32]]

    def update(self, value: str, num: int) -> None:
        p = self.paths
        i = 0 if value == p[0][0] else 1 if value == p[1][0] else -1
        if i >= 0:
            p[i][1] = num
            if p[0][1] > p[1][1]:
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:
            p[1] = p[0]
            p[0] = [value, num]
        elif num < p[1][1]:
            p[1] = [value, num]

    def clone(self) -> "CriticalPaths":
        return CriticalPaths([list(self.paths[0]), list(self.paths[1])])


class PreFilterState:
    """preFilterState: per constraint, matching pods per topology value and the global minimum."""

    __slots__ = ("constraints", "tp_value_to_match_num", "exact", "min_match_num", "domains_at_count", "critical_paths")

    def __init__(self, constraints: list[Constraint], exact: bool) -> None:
        self.constraints = constraints
        self.exact = exact
        self.tp_value_to_match_num: list[dict[str, int]] = [{} for _ in constraints]
        self.min_match_num: list[int] = []
        self.domains_at_count: list[dict[int, int]] = []
        self.critical_paths: list[CriticalPaths] = []

    def compute_minimums(self) -> None:
        """The end of calPreFilterState: min match for each constraint."""
        self.min_match_num, self.domains_at_count, self.critical_paths = [], [], []
        for counts in self.tp_value_to_match_num:
            if self.exact:
                hist: dict[int, int] = {}
                low = MAX_INT32  # no eligible domain: as upstream, which minDomains then zeroes
                for num in counts.values():
                    hist[num] = hist.get(num, 0) + 1
                    low = min(low, num)
                self.min_match_num.append(low)
                self.domains_at_count.append(hist)
            else:
                paths = CriticalPaths()
                for value, num in counts.items():
                    paths.update(value, num)
                self.critical_paths.append(paths)

    def min_match(self, i: int) -> int:
        """minMatchNum: the global minimum, or 0 while fewer domains than minDomains are eligible."""
        if len(self.tp_value_to_match_num[i]) < self.constraints[i].min_domains:
            return 0
        num: int = self.min_match_num[i] if self.exact else self.critical_paths[i].paths[0][1]
        return num

    def update(self, i: int, value: str, delta: int) -> None:
        counts = self.tp_value_to_match_num[i]
        old = counts.get(value, 0)
        cur = old + delta
        counts[value] = cur
        if not self.exact:
            self.critical_paths[i].update(value, cur)
            return
        # updateMin: exact because AddPod/RemovePod move one domain by exactly one.
        hist = self.domains_at_count[i]
        hist[old] = hist.get(old, 0) - 1
        if hist[old] <= 0:
            del hist[old]
        hist[cur] = hist.get(cur, 0) + 1
        if cur < self.min_match_num[i]:
            self.min_match_num[i] = cur
        elif old == self.min_match_num[i] and hist.get(old, 0) == 0:
            self.min_match_num[i] = cur

    def clone(self) -> "PreFilterState":
        copy = PreFilterState.__new__(PreFilterState)
        copy.constraints = self.constraints  # shared: never changed
        copy.exact = self.exact
        copy.tp_value_to_match_num = [dict(m) for m in self.tp_value_to_match_num]
        copy.min_match_num = list(self.min_match_num)
        copy.domains_at_count = [dict(h) for h in self.domains_at_count]
        copy.critical_paths = [p.clone() for p in self.critical_paths]
        return copy


def cal_pre_filter_state(
    pod: Pod, constraints: list[Constraint], all_nodes: Sequence[NodeInfo], exact: bool, snapshot: Any = None
) -> PreFilterState:
    """calPreFilterState: count matching pods per domain over every node of the snapshot.

    With a snapshot kept by a Cache and inclusion policies that hold for every node, the counts
    come from per-snapshot sums kept across cycles (plugins/row_aggregate.py); otherwise every
    node is walked. The exact minimum does not depend on the order of the domains; the 1.35/1.36
    critical paths do (on ties, and after AddPod/RemovePod), so there the domains are put in the
    order the walk meets them: first appearance in the node list."""
    s = PreFilterState(constraints, exact)
    if not constraints:
        return s
    tracked = tracked_rows(snapshot) if inclusion_policies_trivial(pod, constraints) else None
    if tracked is not None and (
        tracked.nodes is all_nodes or (len(tracked.nodes) == len(all_nodes) and all(map(is_, tracked.nodes, all_nodes)))
    ):
        key = ("PodTopologySpread.filter", tuple((c.topology_key, c.selector) for c in constraints), pod.namespace)
        total = aggregate(tracked, key, _domain_counts_contribution(constraints, pod.namespace))
        order = None if exact else _domains_in_walk_order(snapshot, tracked, constraints)
        for i in range(len(constraints)):
            present = total.get(("domains", i), {}) if order is None else order[i]
            matched = total.get(("matched", i), {})
            s.tp_value_to_match_num[i] = {value: matched.get(value, 0) for value in present}
        s.compute_minimums()
        return s
    for node_info in all_nodes:
        node = node_info.node
        if node is None:
            continue
        if not node_labels_match_spread_constraints(node.labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if not c.match_node_inclusion_policies(pod, node):
                continue
            value = node.labels[c.topology_key]
            count = count_node_pods_match_selector(node_info, c.selector, pod.namespace)
            counts = s.tp_value_to_match_num[i]
            counts[value] = counts.get(value, 0) + count
    s.compute_minimums()
    return s


def _domains_in_walk_order(snapshot: Any, tracked: Tracked, constraints: list[Constraint]) -> list[list[str]]:
    """Each constraint's domains in the order a walk over the nodes first meets them, among the
    nodes that have every constraint's topology key (nodeLabelsMatchSpreadConstraints): the
    label columns' codes of the rows, first occurrences sorted by position. Kept in the
    snapshot's store while the rows and every label column's codes stay the same (one sort of
    every node's code per pod otherwise)."""
    columns = columns_of(snapshot)
    assert columns is not None  # tracked_rows found them
    rows = tracked.rows
    cols = [label_column(columns, c.topology_key) for c in constraints]
    codes = [col.sync(columns, rows) for col in cols]
    memo_key = ("PodTopologySpread.walk_order", tuple(c.topology_key for c in constraints))
    versions = tuple(col.version for col in cols)
    kept = tracked.store.get(memo_key)
    if kept is not None and kept[1] == versions and (kept[0] is rows or np.array_equal(kept[0], rows)):
        return [list(domains) for domains in kept[2]]
    eligible = np.logical_and.reduce([c >= 0 for c in codes])
    out = []
    for col, col_codes in zip(cols, codes):
        uniques, first = np.unique(col_codes[eligible], return_index=True)
        out.append([col.values[code] for code in uniques[np.argsort(first, kind="stable")].tolist()])
    tracked.store[memo_key] = (rows, versions, [tuple(domains) for domains in out])
    return out


def _domain_counts_contribution(constraints: list[Constraint], namespace: str) -> Any:
    """One node's part of calPreFilterState: its domain (nodes, per constraint) and its matching pods."""
    keys = [c.topology_key for c in constraints]

    def contribution(node_info: NodeInfo) -> Contribution | None:
        node = node_info.node
        if node is None or not node_labels_match_spread_constraints(node.labels, constraints):
            return None
        out: Contribution = {}
        for i, c in enumerate(constraints):
            value = node.labels[keys[i]]
            out[("domains", i)] = {value: 1}
            count = count_node_pods_match_selector(node_info, c.selector, namespace)
            if count:
                out[("matched", i)] = {value: count}
        return out

    return contribution


def inclusion_policies_trivial(pod: Pod, constraints: Sequence[Constraint]) -> bool:
    """Every node passes matchNodeInclusionPolicies for this pod: no constraint honours taints,
    and those honouring node affinity face a pod that requires none."""
    requires = bool(pod.node_selector) or (
        pod.affinity is not None and pod.affinity.node_affinity is not None and pod.affinity.node_affinity.required is not None
    )
    for c in constraints:
        if c.node_taints_policy == HONOR or (c.node_affinity_policy == HONOR and requires):
            return False
    return True


def get_pre_filter_state(state: CycleState) -> PreFilterState:
    try:
        value = state.read(PRE_FILTER_STATE_KEY)
    except StateNotFound:
        raise RuntimeError(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found') from None
    if not isinstance(value, PreFilterState):
        raise RuntimeError(f"{value!r} convert to podtopologyspread.preFilterState error")
    return value


def update_with_pod(s: PreFilterState | None, updated_pod: Pod, preemptor: Pod, node: Node | None, delta: int) -> None:
    """updateWithPod: AddPod/RemovePod on the counts, for pods in the preemptor's namespace
    on nodes that carry every key and pass the constraint's inclusion policies."""
    if s is None or node is None or updated_pod.namespace != preemptor.namespace:
        return
    if not node_labels_match_spread_constraints(node.labels, s.constraints):
        return
    for i, c in enumerate(s.constraints):
        if not c.matches(updated_pod.labels):
            continue
        if not c.match_node_inclusion_policies(preemptor, node):
            continue
        s.update(i, node.labels[c.topology_key], delta)


def filter_node(s: PreFilterState, pod: Pod, node_info: NodeInfo) -> Status | None:
    """Filter: matchNum + selfMatch - minMatch must not exceed maxSkew for every constraint."""
    if not s.constraints:
        return None
    node = node_info.node
    if node is None:
        return Status.as_status(RuntimeError("node not found"))
    for i, c in enumerate(s.constraints):
        value = node.labels.get(c.topology_key)
        if value is None:
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)
        min_match = s.min_match(i)
        self_match = 1 if c.matches(pod.labels) else 0
        match_num = s.tp_value_to_match_num[i].get(value, 0)
        if match_num + self_match - min_match > c.max_skew:
            return Status(Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH)
    return None


def filter_nodes(s: PreFilterState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None]:
    """filter_node for many nodes (the batch Filter form): each constraint's minimum and the
    pod's self-match are computed once, and nodes with the same topology values share the
    verdict (a fresh Status object each, as the per-node calls give)."""
    if not s.constraints:
        return [None] * len(node_infos)
    by_codes = _filter_by_codes(s, pod, node_infos)
    if by_codes is not None:
        return by_codes
    per = [
        (c.topology_key, s.min_match(i), 1 if c.matches(pod.labels) else 0, s.tp_value_to_match_num[i], c.max_skew)
        for i, c in enumerate(s.constraints)
    ]
    keys = [p[0] for p in per]
    memo: dict[tuple[Any, ...], Any] = {}  # label values -> (code, reason) or None
    out: list[Status | None] = []
    for ni in node_infos:
        node = ni.node
        if node is None:
            out.append(filter_node(s, pod, ni))
            continue
        labels = node.labels
        values = tuple(labels.get(k) for k in keys)
        verdict = memo.get(values, False)
        if verdict is False:
            verdict = None
            for (_key, min_match, self_match, counts, max_skew), value in zip(per, values):
                if value is None:
                    verdict = (Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)
                    break
                if counts.get(value, 0) + self_match - min_match > max_skew:
                    verdict = (Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH)
                    break
            memo[values] = verdict
        out.append(None if verdict is None else Status(*verdict))
    return out


def _filter_by_codes(s: PreFilterState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
    """filter_nodes by the nodes' label codes: per constraint, a table over its domain values
    of "skew exceeded"; the first failing constraint of each node decides, as in filter_node.
    None without rows or with a NodeInfo that has no node (the per-node form handles those)."""
    import numpy as np

    if not rows_with_nodes(node_infos):
        return None
    n = len(node_infos)
    verdict = np.zeros(n, np.int8)  # 0 pass, 1 missing label, 2 skew exceeded
    for i, c in enumerate(s.constraints):
        col, codes = label_codes(node_infos, c.topology_key)  # type: ignore[misc]
        min_match = s.min_match(i)
        self_match = 1 if c.matches(pod.labels) else 0
        counts = s.tp_value_to_match_num[i]
        # an absent domain counts 0; the last slot (code -1, key missing) is handled below
        base = 0 + self_match - min_match > c.max_skew
        lut = np.full(len(col.values) + 1, base, bool)
        code_of = col.code_of
        for value, num in counts.items():
            code = code_of.get(value)
            if code is not None:
                lut[code] = num + self_match - min_match > c.max_skew
        undecided = verdict == 0
        verdict[undecided & (codes < 0)] = 1
        verdict[undecided & (codes >= 0) & lut[codes]] = 2
    out: list[Status | None] = [None] * n
    failing: list[int] = verdict.nonzero()[0].tolist()
    if not failing:
        return SparseStatuses(out, failing)
    # one Status per kind, shared by the nodes that fail that way (recorded statuses are never
    # mutated: runtime/filter_points.py _record_filter_results)
    shared = {
        1: Status(Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH),
        2: Status(Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH),
    }
    kinds: list[int] = verdict[failing].tolist()
    for i, kind in zip(failing, kinds):
        out[i] = shared[kind]
    return SparseStatuses(out, failing, [shared[kind] for kind in sorted(set(kinds))])
