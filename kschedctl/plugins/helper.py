"""Helpers shared by in-tree plugins' Score and Filter forms.

Upstream: pkg/scheduler/framework/plugins/helper/normalize_score.go (DefaultNormalizeScore).
Kept apart from any one plugin because TaintToleration, NodeAffinity and others normalise the
same way; the integer arithmetic must match Go's (division truncates toward zero). The batch
Filter helpers (no upstream counterpart) serve the plugins whose Filter reads only the Node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kschedctl.backend.cache.columnar import flagged_positions
from kschedctl.framework.gosemantics import go_div
from kschedctl.framework.interface import NodeScore, SparseStatuses, Status
from kschedctl.framework.types import NodeInfo
from kschedctl.lazy import numpy as np


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> Status | None:
    """DefaultNormalizeScore: scale scores to [0, max_priority] by the highest one, edited in place.

    When every score is 0 they stay 0, or all become max_priority when ``reverse`` is set
    (so "no bad thing counted anywhere" means "every node is best").
    """
    max_count = 0
    for s in scores:
        if s.score > max_count:
            max_count = s.score
    if max_count == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return None
    for s in scores:
        score = go_div(max_priority * s.score, max_count)
        if reverse:
            score = max_priority - score
        s.score = score
    return None


def default_normalize_score_batch(max_priority: int, reverse: bool, values: Sequence[int]) -> np.ndarray:
    """default_normalize_score over an array of scores (the batch NormalizeScore form): the same
    integers, with Go's truncating division (the divisor, the highest score, is positive)."""
    arr = np.asarray(values, np.int64)
    max_count = int(np.maximum.reduce(arr)) if len(arr) else 0  # ndarray.max without its wrapper
    if max_count <= 0:
        # no score above 0: unchanged, or all max_priority when reversed (as the per-node loop);
        # empty + fill: np.full's Python wrapper costs more than the two calls it makes
        if not reverse:
            return arr
        full = np.empty(len(arr), np.int64)
        full.fill(max_priority)
        return full
    scaled = arr * max_priority
    out = np.where(scaled < 0, -((-scaled) // max_count), scaled // max_count)
    return max_priority - out if reverse else out


def flagged_filter_batch(
    node_infos: Sequence[NodeInfo], column: str, filter_one: Callable[[NodeInfo], Status | None]
) -> SparseStatuses | None:
    """The batch Filter of a plugin that can reject only the nodes a boolean column flags (a
    node with taints, one marked unschedulable): its per-node Filter on those, None elsewhere,
    answered as SparseStatuses so that the runtime visits the rejected nodes alone. None
    without columnar rows (the per-node form)."""
    positions = flagged_positions(node_infos, column)
    if positions is None:
        return None
    out: list[Status | None] = [None] * len(node_infos)
    failing = []
    for i in positions:
        st = filter_one(node_infos[i])
        if st is not None:
            out[i] = st
            failing.append(i)
    return SparseStatuses(out, failing)


__all__ = ["default_normalize_score", "default_normalize_score_batch", "flagged_filter_batch"]


def node_only_filter_batch(plugin: Any, state: Any, pod: Any, node_infos: Sequence[Any]) -> list[Status | None]:
    """filter_batch_with_added_pods of a Filter whose verdict reads only the Node object (and
    its own PreFilter state): pods added to a node change nothing, so its statuses are the
    plain ones (the batch form, or per node where the plugin has none or it declines)."""
    batch = getattr(plugin, "filter_batch", None)
    out = batch(state, pod, node_infos) if batch is not None else None
    return out if out is not None else [plugin.filter(state, pod, ni) for ni in node_infos]
