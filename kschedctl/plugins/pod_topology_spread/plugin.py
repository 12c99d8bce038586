"""PodTopologySpread (PreFilter, Filter, PreScore, Score): spread pods over topology domains.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/plugin.go (construction, events,
queueing hints); the extension points themselves live in filtering.py and scoring.py here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.types import Node, Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.features import Features
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    SKIP,
    ClusterEvent,
    ClusterEventWithHint,
    NodeScore,
    PreFilterResult,
    QueueingHint,
    Status,
)
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins import names
from kschedctl.plugins.pod_topology_spread import filtering, scoring
from kschedctl.plugins.pod_topology_spread.args import (
    SYSTEM_DEFAULTING,
    PodTopologySpreadArgs,
    constraints_from_args,
)
from kschedctl.plugins.pod_topology_spread.common import (
    DO_NOT_SCHEDULE,
    HONOR,
    SCHEDULE_ANYWAY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    Constraint,
    build_default_constraints,
    filter_constraints,
    pod_labels_match_spread_constraints,
)

NAME = names.PodTopologySpread


class PodTopologySpread:
    def __init__(self, args: PodTopologySpreadArgs | dict[str, Any] | None, handle: Handle, features: Features | None = None) -> None:
        self.handle = handle
        features = features if features is not None else handle.features
        pts_args = PodTopologySpreadArgs.of(args, features)
        self.system_defaulted = pts_args.defaulting_type == SYSTEM_DEFAULTING
        self.default_constraints = (
            SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted else constraints_from_args(pts_args.default_constraints)
        )
        self.enable_match_label_keys = features.match_label_keys_in_pod_topology_spread
        self.enable_queueing_hints = features.scheduler_queueing_hints
        self.exact_min_match = handle.version.has("PodTopologySpreadExactMinMatchNum")

    def name(self) -> str:
        return NAME

    # --- constraints ------------------------------------------------------------------------
    def _constraints(self, pod: Pod, action: str) -> list[Constraint]:
        """The pod's own constraints of this action; the defaults only when it has none at all."""
        if pod.topology_spread_constraints:
            return filter_constraints(pod.topology_spread_constraints, pod.labels, action, self.enable_match_label_keys)
        objects = self.handle.objects
        return build_default_constraints(pod, self.default_constraints, objects, action, self.enable_match_label_keys)

    def _all_nodes(self) -> Sequence[NodeInfo]:
        """The snapshot's nodes, as its lister gives them (read only: no copy per cycle)."""
        lister = self.handle.snapshot_shared_lister()
        return lister.list() if lister is not None else []

    # --- PreFilter / Filter -----------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        constraints = self._constraints(pod, DO_NOT_SCHEDULE)
        if not constraints:
            return None, Status(SKIP)
        state.write(
            filtering.PRE_FILTER_STATE_KEY,
            filtering.cal_pre_filter_state(pod, constraints, nodes, self.exact_min_match, self.handle.snapshot_shared_lister()),
        )
        return None, None

    def pre_filter_extensions(self) -> "PodTopologySpread":
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status | None:
        try:
            s = filtering.get_pre_filter_state(state)
        except RuntimeError as exc:
            return Status.as_status(exc)
        filtering.update_with_pod(s, pod_info_to_add.pod, pod_to_schedule, node_info.node, 1)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status | None:
        try:
            s = filtering.get_pre_filter_state(state)
        except RuntimeError as exc:
            return Status.as_status(exc)
        filtering.update_with_pod(s, pod_info_to_remove.pod, pod_to_schedule, node_info.node, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            s = filtering.get_pre_filter_state(state)
        except RuntimeError as exc:
            return Status.as_status(exc)
        return filtering.filter_node(s, pod, node_info)

    # --- PreScore / Score -------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        all_nodes = self._all_nodes()
        if not all_nodes:
            return Status(SKIP)
        # Only non-system-default spreading requires every topology key, so nodes without a
        # zone label still get hostname spreading under the system defaults.
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        s = scoring.PreScoreState(self._constraints(pod, SCHEDULE_ANYWAY))
        if not s.constraints:
            return Status(SKIP)
        scoring.init_pre_score_state(s, nodes, require_all, self.handle.snapshot_shared_lister())
        scoring.count_all_nodes(s, pod, all_nodes, require_all, self.handle.snapshot_shared_lister())
        state.write(scoring.PRE_SCORE_STATE_KEY, s)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        try:
            s = scoring.get_pre_score_state(state)
        except RuntimeError as exc:
            return 0, Status.as_status(exc)
        return scoring.score_node(s, pod, node_info), None

    def score_extensions(self) -> "PodTopologySpread":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        try:
            s = scoring.get_pre_score_state(state)
        except RuntimeError as exc:
            return Status.as_status(exc)
        scoring.normalize_scores(s, scores)
        return None

    # --- events and queueing hints ----------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        pod_actions = ["Add", "UpdatePodLabel", "Delete"]
        if self.enable_queueing_hints:
            # A rejected pod with a NodeTaintsPolicy: Honor constraint may fit after gaining a toleration.
            pod_actions = ["Add", "UpdatePodLabel", "UpdatePodToleration", "Delete"]
        events = [ClusterEventWithHint(ClusterEvent("Pod", a), self.is_schedulable_after_pod_change) for a in pod_actions]
        events += [
            ClusterEventWithHint(ClusterEvent("Node", a), self.is_schedulable_after_node_change)
            for a in ("Add", "Delete", "UpdateNodeLabel", "UpdateNodeTaint")
        ]
        return events

    def is_schedulable_after_pod_change(self, pod: Pod, old: Pod | None, new: Pod | None) -> QueueingHint:
        if (new is not None and not _involved(new, pod)) or (old is not None and not _involved(old, pod)):
            return QueueingHint.QueueSkip
        constraints = self._constraints(pod, DO_NOT_SCHEDULE)
        if new is not None and old is not None:
            if pod.uid == new.uid and new.tolerations != old.tolerations and any(c.node_taints_policy == HONOR for c in constraints):
                return QueueingHint.Queue
            if new.labels == old.labels:
                return QueueingHint.QueueSkip
            for c in constraints:
                if c.matches(old.labels) != c.matches(new.labels):
                    return QueueingHint.Queue
            return QueueingHint.QueueSkip
        changed = new if new is not None else old
        if changed is not None and pod_labels_match_spread_constraints(constraints, changed.labels):
            return QueueingHint.Queue
        return QueueingHint.QueueSkip

    def is_schedulable_after_node_change(self, pod: Pod, old: Node | None, new: Node | None) -> QueueingHint:
        constraints = self._constraints(pod, DO_NOT_SCHEDULE)
        old_match = old is not None and all(c.topology_key in old.labels for c in constraints)
        new_match = new is not None and all(c.topology_key in new.labels for c in constraints)
        if old is not None and new is not None:
            if old_match != new_match:
                return QueueingHint.Queue
            keys_changed = any(old.labels.get(c.topology_key, "") != new.labels.get(c.topology_key, "") for c in constraints)
            if new_match and (keys_changed or old.taints != new.taints):
                return QueueingHint.Queue
            return QueueingHint.QueueSkip
        if new is not None:
            return QueueingHint.Queue if new_match else QueueingHint.QueueSkip
        return QueueingHint.Queue if old_match else QueueingHint.QueueSkip


def _involved(incoming: Pod, pod_with_spreading: Pod) -> bool:
    """involvedInTopologySpreading: the pod itself, or a bound pod of its namespace."""
    return incoming.uid == pod_with_spreading.uid or (incoming.node_name != "" and incoming.namespace == pod_with_spreading.namespace)
