"""The vectorised twin of the NodeAffinity port: the class the registry builds, plugin.py's
NodeAffinity plus its batch forms, which take many nodes at once (numpy arrays and the columnar
view where they pay) and give exactly the per-node results (tests/test_batch_equivalence.py
guards that).

No upstream counterpart: kube-scheduler runs Filter and Score per node in goroutines. Kept out
of plugin.py so that file reads like upstream's. A subclass rather than a mixin because the
batch forms read the port's state keys, reasons and helpers: the twin sits above the port, and
no import runs the other way."""

from __future__ import annotations

from collections.abc import Sequence

from kschedctl.api.types import Pod
from kschedctl.backend.cache.columnar import every_node_known, rows_with_nodes
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    BatchScores,
    Code,
    SparseStatuses,
    Status,
)
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.lazy import numpy as np
from kschedctl.plugins.helper import (
    default_normalize_score_batch,
    node_only_filter_batch,
)
from kschedctl.plugins.node_affinity import plugin
from kschedctl.plugins.node_affinity.plugin import ERR_REASON_POD, PRE_FILTER_STATE_KEY, PRE_SCORE_STATE_KEY
from kschedctl.plugins.node_affinity.selector import RequiredNodeAffinity
from kschedctl.plugins.row_aggregate import label_codes


class NodeAffinity(plugin.NodeAffinity):
    """The NodeAffinity port (plugin.py) with its batch forms: the class the registry builds."""

    def normalize_score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], values: Sequence[int]) -> BatchScores:
        """normalize_score over the scores of a whole batch (same integers)."""
        return default_normalize_score_batch(MAX_NODE_SCORE, False, values)

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """filter() for many nodes, with the PreFilter state read once."""
        required = state.get(PRE_FILTER_STATE_KEY)
        if required is None or self.added_node_selector is not None:
            return None  # the per-node form
        verdicts = _matches_by_codes(required, node_infos)
        if verdicts is not None:
            out: list[Status | None] = [None] * len(node_infos)
            rejected = (~verdicts).nonzero()[0].tolist()
            if not rejected:
                return SparseStatuses(out, rejected)
            # one Status shared by the rejected nodes (recorded statuses are never mutated)
            shared = Status(Code.UnschedulableAndUnresolvable, ERR_REASON_POD)
            for i in rejected:
                out[i] = shared
            return SparseStatuses(out, rejected, (shared,))
        matches = required.matches
        return [None if ni.node is not None and matches(ni.node) else self.filter(state, pod, ni) for ni in node_infos]

    def filter_batch_with_added_pods(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], added: Sequence[Sequence[PodInfo]]
    ) -> list[Status | None] | None:
        """The Filter reads only the Node: the nominated pods of the first pass change nothing."""
        return node_only_filter_batch(self, state, pod, node_infos)

    def score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[int] | None:
        """score() for many nodes, with the PreScore state read once."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None or not every_node_known(node_infos):
            return None  # the per-node form
        preferred, added = s.preferred, self.added_pref_terms
        out = []
        for ni in node_infos:
            node = ni.node
            assert node is not None  # checked above
            count = added.score(node) if added is not None else 0
            if preferred is not None:
                count += preferred.score(node)
            out.append(count)
        return out


_MAX_COMBINED = 1 << 62
# Up to this many label-value combinations, a table over all of them replaces np.unique
# (which sorts the batch).
_DIRECT_LUT_MAX = 4096


def _matches_by_codes(required: RequiredNodeAffinity, node_infos: Sequence[NodeInfo]) -> np.ndarray | None:
    """RequiredNodeAffinity.matches of every node, by the nodes' label codes: the verdict
    depends only on the values of the selector's keys, so the nodes are grouped by their
    combination of value codes and each distinct combination is matched once (on its first
    node). None without columnar rows, with a NodeInfo lacking its node, or with matchFields
    (the verdict then depends on the node name): the per-node walk."""
    rows = getattr(node_infos, "rows", None)
    if rows is None or required._by_name or not rows_with_nodes(node_infos):
        return None
    n = len(node_infos)
    combined = np.zeros(n, np.int64)
    radix = 1
    for key in required._keys:
        found = label_codes(node_infos, key)
        if found is None:
            return None
        col, codes = found
        base = len(col.values) + 1  # codes run from -1 (key missing) to len(values) - 1
        radix *= base
        if radix >= _MAX_COMBINED:
            return None
        combined = combined * base + (codes + 1)
    if radix <= _DIRECT_LUT_MAX:
        # Any node of a combination gives its verdict: one representative per combination
        # present (the last written), then a table over every combination.
        representative = np.full(radix, -1, np.intp)
        representative[combined] = np.arange(n)
        lut = np.zeros(radix, bool)
        for code in (representative >= 0).nonzero()[0].tolist():
            node = node_infos[int(representative[code])].node
            assert node is not None  # rows_with_nodes above
            lut[code] = required.matches(node)
        direct: np.ndarray = lut[combined]
        return direct
    _, first, inverse = np.unique(combined, return_index=True, return_inverse=True)
    table = np.fromiter((required.matches(node_infos[i].node) for i in first.tolist()), bool, len(first))
    verdicts: np.ndarray = table[inverse.reshape(-1)]
    return verdicts
