"""The vectorised twin of the PodTopologySpread port: the class the registry builds, plugin.py's
PodTopologySpread plus its batch forms, which take many nodes at once (numpy arrays and the columnar
view where they pay) and give exactly the per-node results (tests/test_batch_equivalence.py
guards that).

No upstream counterpart: kube-scheduler runs Filter and Score per node in goroutines. Kept out
of plugin.py so that file reads like upstream's. A subclass rather than a mixin because the
batch forms read the port's state keys, reasons and helpers: the twin sits above the port, and
no import runs the other way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.gosemantics import INT64_MAX
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    BatchScores,
    Status,
)
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins.pod_topology_spread import filtering, plugin, scoring
from kschedctl.plugins.pod_topology_spread.scoring import _INVALID_SCORE, PreScoreState, _names

if TYPE_CHECKING:
    import numpy as np


class PodTopologySpread(plugin.PodTopologySpread):
    """The PodTopologySpread port (plugin.py) with its batch forms: the class the registry builds."""

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """filter() for many nodes; a missing state raises and the per-node calls report it."""
        return filtering.filter_nodes(filtering.get_pre_filter_state(state), pod, node_infos)

    def score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> Any:
        """score() for many nodes (same integers); a missing state raises and the runtime's
        per-node calls report it."""
        return scoring.score_nodes(scoring.get_pre_score_state(state), pod, node_infos)  # None: per node

    def normalize_score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], values: Sequence[int]) -> BatchScores:
        """normalize_score over a whole batch (same integers); a missing state raises, and the
        runtime's per-node normalize_score then reports it."""
        return normalize_scores_batch(scoring.get_pre_score_state(state), node_infos, values)


def normalize_scores_batch(s: PreScoreState, node_infos: Sequence[NodeInfo], values: Sequence[int]) -> np.ndarray:
    """normalize_scores over an array of scores (the batch NormalizeScore form), same integers:
    ignored nodes (and scores equal to the invalid marker) end at 0, the others scaled by
    MaxNodeScore * (max + min - score) // max over the nodes not ignored."""
    import numpy as np

    arr = np.asarray(values, np.int64)
    if s.ignored_nodes:
        names = _names(node_infos)
        ignored = np.fromiter((name in s.ignored_nodes for name in names), bool, len(names))
        kept = arr[~ignored]
        invalid = ignored | (arr == _INVALID_SCORE)
    else:  # every node counts (the usual case): no masks to build
        kept = arr
        invalid = arr == _INVALID_SCORE
    # the ufuncs' own reductions: ndarray.min and .max go through a Python wrapper each
    min_score = min(INT64_MAX, int(np.minimum.reduce(kept))) if len(kept) else INT64_MAX
    max_score = max(0, int(np.maximum.reduce(kept))) if len(kept) else 0
    if max_score == 0:
        out = np.full(len(arr), MAX_NODE_SCORE, np.int64)
    else:
        out = (MAX_NODE_SCORE * (max_score + min_score - arr)) // max_score
    scores: np.ndarray = np.where(invalid, 0, out)
    return scores
