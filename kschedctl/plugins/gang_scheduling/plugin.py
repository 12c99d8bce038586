"""GangScheduling: all-or-nothing placement of a gang pod group.

Upstream: pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go.
* PreEnqueue keeps a gang pod out of activeQ until its group object exists and at least
  minCount pods of the group are known (1.35 names a Workload, 1.36+ a PodGroup).
* 1.35/1.36 Permit: Wait (permitTimeoutDuration, 5 min) while fewer than minCount pods of the
  group are assumed or assigned; the pod that completes the quorum allows every waiting pod
  of its group. 1.35 says "…to be waiting on permit", 1.36 "…to be scheduled".
* 1.37 PlacementFeasible (called by the group cycle, kschedctl/scheduler/schedule_one_podgroup.py, with the
  scheduled/remaining counts): Unschedulable once minCount cannot be reached, Wait while it
  is not reached yet, Success when it is.
The plugin only acts when the GenericWorkload gate is on (the API server drops the pod's
group reference otherwise).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework import podgroup as pg
from kschedctl.framework.features import Features
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    QueueingHint,
    Status,
)
from kschedctl.framework.registry import PluginSpec, with_features
from kschedctl.plugins import names

NAME = names.GangScheduling
PERMIT_TIMEOUT_SECONDS = 5 * 60.0  # permitTimeoutDuration


def permit_wait_message(version: Any) -> str:
    message: str = version.wording("GangScheduling.PermitWait")
    return message


def feasible_status(min_count: int, scheduled: int, remaining: int) -> Status:
    """PlacementFeasible for a PodGroup (PlacementProgress{Scheduled, Remaining})."""
    if remaining + scheduled < min_count:
        return Status(
            Code.Unschedulable, f"minCount ({min_count}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining", plugin=NAME
        )
    if scheduled < min_count:
        return Status(Code.Wait, f"minCount ({min_count}) is not yet satisfied: {scheduled} scheduled, {remaining} remaining", plugin=NAME)
    return Status()


class GangScheduling:
    def __init__(self, args: dict[str, Any] | None, handle: Handle, features: Features | None = None) -> None:
        self.handle = handle
        self.generic_workload = (features if features is not None else handle.features).generic_workload

    def name(self) -> str:
        return NAME

    def _enabled(self) -> bool:
        return self.generic_workload

    # --- PreEnqueue ------------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not self._enabled():
            return None
        version = self.handle.version
        if version.has("PodGroupObject"):
            name = pg.scheduling_group_name(pod)
            if name is None:
                return None
            group = pg.lookup(self.handle.objects, pod.namespace, name)
            if group is None:
                return Status(Code.UnschedulableAndUnresolvable, version.wording("GangScheduling.GroupNotFound", name=name))
        else:
            ref = pg.workload_ref(pod)
            if ref is None:
                return None
            wl = pg.lookup_workload(self.handle.objects, pod.namespace, ref[0])
            if wl is None:
                return Status(Code.UnschedulableAndUnresolvable, version.wording("GangScheduling.GroupNotFound", name=ref[0]))
            group = pg.workload_pod_group(wl.raw, ref[1])
            if group is None:
                return Status(
                    Code.UnschedulableAndUnresolvable,
                    version.wording("GangScheduling.PodGroupNotInWorkload", group=ref[1], workload=ref[0]),
                )
        if not group.is_gang:
            return None
        if self.handle.pod_group_manager().all_pods_count(pg.group_key_of(pod, version) or "") < group.min_count:
            return Status(Code.UnschedulableAndUnresolvable, version.wording("GangScheduling.MinCountNotInQueue"))
        return None

    def pre_enqueue_share_key(self, pod: Pod) -> Hashable | None:
        """What PreEnqueue and the queueing hints read of the pod: its namespace and group
        reference. Pods with equal keys get equal answers from both at any one moment, so
        the queue asks once per group and event for the gated members of a gang instead of
        once per member (Framework.pre_enqueue_share_key). None: the pod names no group."""
        if not self._enabled():
            return None
        if self.handle.version.has("PodGroupObject"):
            name = pg.scheduling_group_name(pod)
            return None if name is None else ("schedulingGroup", pod.namespace, name)
        ref = pg.workload_ref(pod)
        return None if ref is None else ("workloadRef", pod.namespace, ref[0], ref[1])

    # --- Reserve (the group state reads assumed pods from the cache) ------------------------
    def reserve(self, state: Any, pod: Pod, node_name: str) -> Status | None:
        return None

    def unreserve(self, state: Any, pod: Pod, node_name: str) -> None:
        return None

    # --- Permit (1.35/1.36) ----------------------------------------------------------------
    def permit(self, state: Any, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        version = self.handle.version
        if not self._enabled() or version.has("GangPlacementFeasible"):
            return None, 0.0
        group = pg.group_of(self.handle.objects, pod, version)
        if group is None or not group.is_gang:
            return None, 0.0
        key = pg.group_key_of(pod, version) or ""
        if self.handle.pod_group_manager().scheduled_pods_count(key) < group.min_count:
            return Status(Code.Wait, permit_wait_message(version)), PERMIT_TIMEOUT_SECONDS
        for wp in self.handle.iterate_over_waiting_pods():
            if pg.group_key_of(wp.pod, version) == key:
                wp.allow(NAME)
        return None, 0.0

    # --- PlacementFeasible (1.37) ----------------------------------------------------------
    def placement_feasible(self, group: pg.PodGroup, scheduled: int, remaining: int) -> Status:
        return feasible_status(group.min_count if group.is_gang else 1, scheduled, remaining)

    # --- EnqueueExtensions -----------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent("UnschedulablePod", "Add"), self.is_schedulable_after_pod_added),
            ClusterEventWithHint(ClusterEvent("AssignedPod", "Add"), self.is_schedulable_after_pod_added),
            ClusterEventWithHint(ClusterEvent("PodGroup", "Add"), None),
            ClusterEventWithHint(ClusterEvent("PodGroup", "Update"), None),
        ]

    def is_schedulable_after_pod_added(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A pod of the same group may complete the quorum (isSchedulableAfterPodAdded)."""
        if not isinstance(new, Pod):
            return QueueingHint.Queue
        version = self.handle.version
        mine, added = pg.group_key_of(pod, version), pg.group_key_of(new, version)
        return QueueingHint.Queue if mine is not None and mine == added else QueueingHint.QueueSkip


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, with_features(GangScheduling), GangScheduling)
