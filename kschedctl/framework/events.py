"""Cluster events: what changed in the cluster, in the words plugins register for.

Upstream: staging/src/k8s.io/kube-scheduler/framework/types.go (ActionType bits, ClusterEvent,
Match) and pkg/scheduler/framework/events.go (the Event* constants,
NodeSchedulingPropertiesChange, PodSchedulingPropertiesChange). An ActionType is a bit set:
"Update" covers every fine-grained update kind, "*" (All) every action. A registration for
"Pod" matches the incoming "AssignedPod" and "UnschedulablePod" events.
"""

from __future__ import annotations

from typing import Any

from kschedctl.framework.interface import ClusterEvent

WILDCARD = "*"
ASSIGNED_POD = "AssignedPod"
UNSCHEDULABLE_POD = "UnschedulablePod"
# Names used in this code base for the same resources (an older spelling is accepted too).
_POD_ALIASES = {ASSIGNED_POD, UNSCHEDULABLE_POD, "UnscheduledPod"}

_ACTION_BITS: dict[str, int] = {
    "Add": 1 << 0,
    "Delete": 1 << 1,
    "UpdateNodeAllocatable": 1 << 2,
    "UpdateNodeLabel": 1 << 3,
    "UpdateNodeTaint": 1 << 4,
    "UpdateNodeCondition": 1 << 5,
    "UpdateNodeAnnotation": 1 << 6,
    "UpdatePodLabel": 1 << 7,
    "UpdatePodScaleDown": 1 << 8,
    "UpdatePodToleration": 1 << 9,
    "UpdatePodSchedulingGatesEliminated": 1 << 10,
    "UpdatePodGeneratedResourceClaim": 1 << 11,
    "updatePodOther": 1 << 12,
    "UpdateNodeDeclaredFeature": 1 << 13,
}
_UPDATE_BITS = sum(bit for name, bit in _ACTION_BITS.items() if name.lower().startswith("update"))
_ALL_BITS = (1 << 14) - 1

# The events the scheduler itself raises (framework/events.go).
EVENT_ASSIGNED_POD_ADD = ClusterEvent(ASSIGNED_POD, "Add")
EVENT_ASSIGNED_POD_UPDATE = ClusterEvent(ASSIGNED_POD, "Update")
EVENT_ASSIGNED_POD_DELETE = ClusterEvent(ASSIGNED_POD, "Delete")
EVENT_UNSCHEDULED_POD_ADD = ClusterEvent(UNSCHEDULABLE_POD, "Add")
EVENT_UNSCHEDULED_POD_UPDATE = ClusterEvent(UNSCHEDULABLE_POD, "Update")
EVENT_UNSCHEDULED_POD_DELETE = ClusterEvent(UNSCHEDULABLE_POD, "Delete")
EVENT_NODE_ADD = ClusterEvent("Node", "Add")
EVENT_NODE_DELETE = ClusterEvent("Node", "Delete")
EVENT_UNSCHEDULABLE_TIMEOUT = ClusterEvent(WILDCARD, WILDCARD, "UnschedulableTimeout")
EVENT_FORCE_ACTIVATE = ClusterEvent(WILDCARD, WILDCARD, "ForceActivate")
EVENT_WILDCARD = ClusterEvent(WILDCARD, WILDCARD)

# Queue-internal event labels (metrics and logs upstream; here they name moves in traces).
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"


def action_bits(action: str) -> int:
    """The ActionType bit set of an action name ("Update" = every update kind, "*" = All)."""
    if action in (WILDCARD, "All"):
        return _ALL_BITS
    if action == "Update":
        return _UPDATE_BITS
    return _ACTION_BITS.get(action, 0)


def is_wildcard(event: ClusterEvent) -> bool:
    """ClusterEventIsWildCard: {*, All}, which UnschedulableTimeout and ForceActivate also are."""
    return event.resource == WILDCARD and action_bits(event.action) == _ALL_BITS


def label(event: ClusterEvent) -> str:
    """ClusterEvent.Label(): its own label, else resource + action (e.g. "NodeAdd")."""
    if event.label:
        return event.label
    return f"{event.resource}{'All' if event.action == WILDCARD else event.action}"


def _canonical(resource: str) -> str:
    return UNSCHEDULABLE_POD if resource == "UnscheduledPod" else resource


def _resource_matches(registered: str, incoming: str) -> bool:
    registered, incoming = _canonical(registered), _canonical(incoming)
    return registered in (WILDCARD, incoming) or (registered == "Pod" and incoming in _POD_ALIASES)


def match_cluster_events(registered: ClusterEvent, incoming: ClusterEvent) -> bool:
    """ClusterEvent.Match: a wildcard registration matches anything; an incoming wildcard
    matches only a wildcard registration; otherwise resources match and action bits overlap."""
    if is_wildcard(registered):
        return True
    if not _resource_matches(registered.resource, incoming.resource):
        return False
    return action_bits(registered.action) & action_bits(incoming.action) != 0


# --- interpreting object updates -----------------------------------------------------------


def node_scheduling_properties_change(new: Any, old: Any) -> list[ClusterEvent]:
    """NodeSchedulingPropertiesChange: one UpdateNodeXYZ event per kind of change, in upstream's
    order. spec.unschedulable turning false is reported as UpdateNodeTaint (upstream TODO)."""
    events: list[ClusterEvent] = []
    if old.unschedulable != new.unschedulable and not new.unschedulable:
        events.append(ClusterEvent("Node", "UpdateNodeTaint"))
    if old.allocatable != new.allocatable:
        events.append(ClusterEvent("Node", "UpdateNodeAllocatable"))
    if old.labels != new.labels:
        events.append(ClusterEvent("Node", "UpdateNodeLabel"))
    if old.taints != new.taints:
        events.append(ClusterEvent("Node", "UpdateNodeTaint"))
    old_status = (old.raw.get("status") or {}) if isinstance(old.raw, dict) else {}
    new_status = (new.raw.get("status") or {}) if isinstance(new.raw, dict) else {}
    if _conditions(old_status) != _conditions(new_status):
        events.append(ClusterEvent("Node", "UpdateNodeCondition"))
    if old.meta.annotations != new.meta.annotations:
        events.append(ClusterEvent("Node", "UpdateNodeAnnotation"))
    return events


def _conditions(status: dict[str, Any]) -> dict[str, str]:
    """Node conditions without their heartbeat times: type -> status."""
    return {str(c.get("type")): str(c.get("status")) for c in status.get("conditions") or [] if isinstance(c, dict)}


def _claim_statuses(pod: Any) -> Any:
    status = pod.raw.get("status") if isinstance(getattr(pod, "raw", None), dict) else None
    return (status or {}).get("resourceClaimStatuses") or []


def pod_scheduling_properties_change(new: Any, old: Any) -> list[ClusterEvent]:
    """PodSchedulingPropertiesChange for an unscheduled pod: label, toleration, scheduling-gate
    and generated-ResourceClaim (status.resourceClaimStatuses) changes; anything else is the
    generic UnscheduledPod Update."""
    resource = ASSIGNED_POD if old.node_name else UNSCHEDULABLE_POD
    events: list[ClusterEvent] = []
    if old.labels != new.labels:
        events.append(ClusterEvent(resource, "UpdatePodLabel"))
    if len(new.tolerations) != len(old.tolerations):
        events.append(ClusterEvent(resource, "UpdatePodToleration"))
    if not new.scheduling_gates and old.scheduling_gates:
        events.append(ClusterEvent(resource, "UpdatePodSchedulingGatesEliminated"))
    if _claim_statuses(new) != _claim_statuses(old):
        events.append(ClusterEvent(resource, "UpdatePodGeneratedResourceClaim"))
    if not events:
        events.append(ClusterEvent(resource, "updatePodOther"))
    return events


__all__ = [
    "EVENT_ASSIGNED_POD_ADD",
    "EVENT_ASSIGNED_POD_DELETE",
    "EVENT_ASSIGNED_POD_UPDATE",
    "EVENT_FORCE_ACTIVATE",
    "EVENT_NODE_ADD",
    "EVENT_NODE_DELETE",
    "EVENT_UNSCHEDULABLE_TIMEOUT",
    "EVENT_UNSCHEDULED_POD_ADD",
    "EVENT_UNSCHEDULED_POD_DELETE",
    "EVENT_UNSCHEDULED_POD_UPDATE",
    "EVENT_WILDCARD",
    "action_bits",
    "is_wildcard",
    "label",
    "match_cluster_events",
    "node_scheduling_properties_change",
    "pod_scheduling_properties_change",
]
