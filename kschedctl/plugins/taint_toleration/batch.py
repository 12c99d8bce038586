"""The vectorised twin of the TaintToleration port: the class the registry builds, plugin.py's
TaintToleration plus its batch forms, which take many nodes at once (numpy arrays and the columnar
view where they pay) and give exactly the per-node results (tests/test_batch_equivalence.py
guards that).

No upstream counterpart: kube-scheduler runs Filter and Score per node in goroutines. Kept out
of plugin.py so that file reads like upstream's. A subclass rather than a mixin because the
batch forms read the port's state keys, reasons and helpers: the twin sits above the port, and
no import runs the other way."""

from __future__ import annotations

from collections.abc import Sequence

from kschedctl.api.types import (
    Pod,
)
from kschedctl.backend.cache.columnar import map_flagged
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    BatchScores,
    Status,
)
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins.helper import (
    default_normalize_score_batch,
    flagged_filter_batch,
    node_only_filter_batch,
)
from kschedctl.plugins.taint_toleration import plugin
from kschedctl.plugins.taint_toleration.plugin import PRE_SCORE_STATE_KEY


class TaintToleration(plugin.TaintToleration):
    """The TaintToleration port (plugin.py) with its batch forms: the class the registry builds."""

    def normalize_score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], values: Sequence[int]) -> BatchScores:
        """normalize_score over the scores of a whole batch (same integers)."""
        return default_normalize_score_batch(MAX_NODE_SCORE, True, values)

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """filter() for many nodes: a node without taints tolerates every pod."""
        return flagged_filter_batch(node_infos, "has_taints", lambda ni: self.filter(state, pod, ni))

    def filter_batch_with_added_pods(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], added: Sequence[Sequence[PodInfo]]
    ) -> list[Status | None] | None:
        """The Filter reads only the Node: the nominated pods of the first pass change nothing."""
        return node_only_filter_batch(self, state, pod, node_infos)

    def score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[int] | None:
        """score() for many nodes: a node without taints counts 0 intolerable taints."""
        tolerations = state.read(PRE_SCORE_STATE_KEY).tolerations_prefer_no_schedule

        def one(ni: NodeInfo) -> int:
            if ni.node is None:
                raise ValueError("invalid nodeInfo")  # the per-node path reports it
            return self._count_intolerable(ni.node.taints, tolerations)

        return map_flagged(node_infos, "has_taints", one, 0)
