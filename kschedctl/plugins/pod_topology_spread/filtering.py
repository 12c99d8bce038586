"""PodTopologySpread PreFilter / Filter / PreFilterExtensions: hard (DoNotSchedule) spreading.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/filtering.go.

The global minimum of each constraint is kept two ways, as the releases differ:
* 1.35/1.36 keep two "critical paths" per constraint (criticalPaths.update), which is exact after
  PreFilter but only approximate after several AddPod/RemovePod updates;
* newer releases keep the exact minimum with a histogram of domain counts (MinMatchNum,
  DomainsAtCount; versions.CHANGES "PodTopologySpreadExactMinMatchNum").
"""

from __future__ import annotations

from typing import Sequence

from ...api.types import Node, Pod
from ...framework.cycle_state import CycleState, StateNotFound
from ...framework.interface import Code, Status
from ...framework.types import NodeInfo
from .common import (
    MAX_INT32,
    Constraint,
    count_node_pods_match_selector,
    node_labels_match_spread_constraints,
)

PRE_FILTER_STATE_KEY = "PreFilterPodTopologySpread"
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"


class CriticalPaths:
    """criticalPaths: paths[0] holds the minimum; paths[1] is >= it but not necessarily the 2nd minimum.
    The initial topology values are "" (a domain whose value is "" meets them, as upstream)."""

    __slots__ = ("paths",)

    def __init__(self, paths: list[list] | None = None) -> None:
        self.paths = paths if paths is not None else [["", MAX_INT32], ["", MAX_INT32]]

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

    __slots__ = ("constraints", "tp_value_to_match_num", "exact", "min_match_num", "domains_at_count",
                 "critical_paths")

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
        return self.min_match_num[i] if self.exact else self.critical_paths[i].paths[0][1]

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


def cal_pre_filter_state(pod: Pod, constraints: list[Constraint], all_nodes: Sequence[NodeInfo],
                         exact: bool) -> PreFilterState:
    """calPreFilterState: count matching pods per domain over every node of the snapshot."""
    s = PreFilterState(constraints, exact)
    if not constraints:
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
    per = [(c.topology_key, s.min_match(i), 1 if c.matches(pod.labels) else 0, s.tp_value_to_match_num[i],
            c.max_skew) for i, c in enumerate(s.constraints)]
    keys = [p[0] for p in per]
    memo: dict[tuple, tuple | None] = {}
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
            for (key, min_match, self_match, counts, max_skew), value in zip(per, values):
                if value is None:
                    verdict = (Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)
                    break
                if counts.get(value, 0) + self_match - min_match > max_skew:
                    verdict = (Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH)
                    break
            memo[values] = verdict
        out.append(None if verdict is None else Status(*verdict))
    return out
