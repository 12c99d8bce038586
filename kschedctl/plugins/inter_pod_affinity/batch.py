"""The vectorised twin of the InterPodAffinity port: the class the registry builds, plugin.py's
InterPodAffinity plus its batch forms, which take many nodes at once (numpy arrays and the columnar
view where they pay) and give exactly the per-node results (tests/test_batch_equivalence.py
guards that).

No upstream counterpart: kube-scheduler runs Filter and Score per node in goroutines. Kept out
of plugin.py so that file reads like upstream's. A subclass rather than a mixin because the
batch forms read the port's state keys, reasons and helpers: the twin sits above the port, and
no import runs the other way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.backend.cache.columnar import rows_with_nodes
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    BatchScores,
    Code,
    SparseStatuses,
    Status,
)
from kschedctl.framework.types import (
    NodeInfo,
)
from kschedctl.plugins.inter_pod_affinity import counts as ipa_counts
from kschedctl.plugins.inter_pod_affinity import plugin
from kschedctl.plugins.inter_pod_affinity.plugin import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    _matches_all,
    _read_pre_filter_state,
    _read_pre_score_state,
)


class InterPodAffinity(plugin.InterPodAffinity):
    """The InterPodAffinity port (plugin.py) with its batch forms: the class the registry builds."""

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """filter() for many nodes: each check becomes a lookup of the nodes' label codes in a
        table of the topology values with a positive count (counts.py); a
        missing state raises, and the runtime's per-node calls report it."""
        s, err = _read_pre_filter_state(state)
        if err is not None:
            raise RuntimeError(err.message())
        if not rows_with_nodes(node_infos):
            return None  # the per-node form
        terms = s.pod_info.required_affinity_terms
        incoming = s.pod_info.pod
        first_pod = bool(terms) and not s.affinity_counts and _matches_all(terms, incoming, s.ns_labels_of(incoming.namespace))
        aff_fail, anti_fail, existing_fail = ipa_counts.filter_masks(s, node_infos, first_pod)
        out: list[Status | None] = [None] * len(node_infos)
        # One Status per kind of failure, shared by the nodes that fail that way (the runtime
        # never mutates a recorded status: runtime/filter_points.py _record_filter_results),
        # so that the walk and the diagnosis look at three objects, not one per node.
        existing_only = existing_fail & ~(aff_fail | anti_fail)
        anti_only = anti_fail & ~aff_fail
        kinds = []
        for mask, code, reason in (
            (aff_fail, Code.UnschedulableAndUnresolvable, ERR_REASON_AFFINITY_RULES_NOT_MATCH),
            (anti_only, Code.Unschedulable, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH),
            (existing_only, Code.Unschedulable, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH),
        ):
            positions = mask.nonzero()[0].tolist()
            if positions:
                shared = Status(code, reason)
                kinds.append(shared)
                for i in positions:
                    out[i] = shared
        return SparseStatuses(out, (aff_fail | anti_fail | existing_fail).nonzero()[0].tolist(), kinds)

    def score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> Any:
        """score() for many nodes, by label codes (counts.py)."""
        s, err = _read_pre_score_state(state)
        if err is not None:
            raise RuntimeError(err.message())
        if getattr(node_infos, "rows", None) is None:
            return None  # the per-node form
        return ipa_counts.topology_scores(s, node_infos)

    def normalize_score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], values: Sequence[int]) -> BatchScores:
        """normalize_score over a whole batch: the same IEEE-754 operations on an array."""
        import numpy as np

        s, err = _read_pre_score_state(state)
        if err is not None:
            raise RuntimeError(err.message())  # the runtime's per-node call reports it
        arr = np.asarray(values, np.int64)
        if s.empty() or not len(arr):
            return arr
        min_count = int(np.minimum.reduce(arr))
        diff = int(np.maximum.reduce(arr)) - min_count
        if diff <= 0:
            return np.zeros(len(arr), np.int64)
        f = float(MAX_NODE_SCORE) * ((arr - min_count).astype(np.float64) / float(diff))
        return f.astype(np.int64)  # int64(f): truncation toward zero (f >= 0)
