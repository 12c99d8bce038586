"""NodeLabel: a Filter and a Score over a node's label keys.

Upstream: pkg/scheduler/framework/plugins/nodelabel/node_label.go. The Filter keeps a node
when it has every ``presentLabels`` key and no ``absentLabels`` key (values do not matter;
with neither list every node passes); otherwise the node is UnschedulableAndUnresolvable,
"node(s) didn't have the requested labels". The Score gives MaxNodeScore for each
``presentLabelsPreference`` key the node has and each ``absentLabelsPreference`` key it
lacks, averaged over the preferences (Go's integer division); there is no NormalizeScore.

kschedctl additions: EventsToRegister, so that a pod this Filter rejected is retried only
when a node is added or relabelled in a way that passes it (upstream's plugin predates
queueing hints and was retried on every event).
"""

from __future__ import annotations

from kschedctl.framework import (
    MAX_NODE_SCORE,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    Handle,
    Node,
    NodeInfo,
    Pod,
    QueueingHint,
    Status,
)

from .args import NodeLabelArgs

NAME = "NodeLabel"
ERR_REASON_PRESENCE_VIOLATED = "node(s) didn't have the requested labels"


class NodeLabel:
    """Filter and Score (no NormalizeScore: ``score_extensions`` is simply not defined)."""

    def __init__(self, args: NodeLabelArgs | None, handle: Handle | None) -> None:
        # New: the args as the configuration gave them (decoded and defaulted by kschedctl),
        # validated again as upstream's New does; invalid args refuse the profile.
        self.args = NodeLabelArgs.of(args, handle.features if handle is not None else None)
        self.present = tuple(self.args.present_labels or ())
        self.absent = tuple(self.args.absent_labels or ())
        self.present_preference = tuple(self.args.present_labels_preference or ())
        self.absent_preference = tuple(self.args.absent_labels_preference or ())

    def name(self) -> str:
        return NAME

    # --- Filter ----------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """None is Success; a rejection is a Status with its code and reason."""
        node = node_info.node
        if node is None:
            return Status(Code.Error, "node not found")
        if self._passes(node):
            return None
        return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_PRESENCE_VIOLATED)

    def _passes(self, node: Node) -> bool:
        labels = node.labels  # the node's metadata.labels: key -> value
        return all(key in labels for key in self.present) and not any(key in labels for key in self.absent)

    # --- Score -----------------------------------------------------------------------------------
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """(score, status): MaxNodeScore per preference met, averaged over the preferences."""
        node = node_info.node
        if node is None:
            return 0, Status(Code.Error, "node not found")
        size = len(self.present_preference) + len(self.absent_preference)
        if size == 0:
            return 0, None
        labels = node.labels
        met = sum(1 for key in self.present_preference if key in labels)
        met += sum(1 for key in self.absent_preference if key not in labels)
        # Both operands are non-negative: Python's floor division is Go's truncation here.
        return met * MAX_NODE_SCORE // size, None

    # --- EnqueueExtensions -----------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """The cluster events that may make a pod this plugin rejected schedulable."""
        return [
            ClusterEventWithHint(ClusterEvent("Node", "Add"), self.is_schedulable_after_node_change),
            ClusterEventWithHint(ClusterEvent("Node", "UpdateNodeLabel"), self.is_schedulable_after_node_change),
        ]

    def is_schedulable_after_node_change(self, pod: Pod, old: Node | None, new: Node) -> QueueingHint:
        """A QueueingHint: retry the pod when the added or relabelled node passes the Filter."""
        return QueueingHint.Queue if self._passes(new) else QueueingHint.QueueSkip


__all__ = ["ERR_REASON_PRESENCE_VIOLATED", "NAME", "NodeLabel"]
