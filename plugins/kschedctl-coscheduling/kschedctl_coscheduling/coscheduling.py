"""Coscheduling: gang scheduling the scheduler-plugins way (QueueSort, PreFilter, PostFilter,
Permit, Reserve).

Upstream: kubernetes-sigs/scheduler-plugins pkg/coscheduling/coscheduling.go and
core/core.go. PodGroup ``scheduling.x-k8s.io/v1alpha1`` (spec.minMember,
spec.scheduleTimeoutSeconds); pods join a group with the label
``scheduling.x-k8s.io/pod-group``. The snapshot loader keeps these PodGroups under the kind
``PodGroup.scheduling.x-k8s.io`` so they coexist with scheduling.k8s.io PodGroups.

* Less: priority (desc), then the creation time of the pod's PodGroup (or the pod's initial
  attempt time), then namespace/name: members of a group stay together in activeQ.
* PreFilter: rejects a pod whose group failed recently, or whose group has fewer pods than
  minMember ("pre-filter pod %v cannot find enough sibling pods, …").
* Permit: Wait (scheduleTimeoutSeconds, else permitWaitingTimeSeconds) until minMember pods
  are assigned or assumed; the pod that completes the group allows every waiting sibling.
* PostFilter: a failing member rejects its waiting siblings and the whole group (unless the
  group is already, or almost, complete).
* Unreserve: a rejected or timed-out member rejects its waiting siblings.
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from kschedctl.framework import (
    Code,
    CycleState,
    Features,
    FieldError,
    Handle,
    Int64,
    NodeInfo,
    NodeToStatus,
    PluginArgs,
    PluginSpec,
    Pod,
    PostFilterResult,
    QueuedPodInfo,
    Status,
)
from kschedctl.framework.gosemantics import invalid

NAME = "Coscheduling"
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
POD_GROUP_KIND = "PodGroup.scheduling.x-k8s.io"  # kschedctl.framework.podgroup.X_K8S_POD_GROUP_KIND
DEFAULT_PERMIT_WAITING_TIME_SECONDS = 60
DEFAULT_POD_GROUP_BACKOFF_SECONDS = 0


@dataclass(frozen=True)
class CoschedulingArgs(PluginArgs):
    """CoschedulingArgs (scheduler-plugins apis/config): permitWaitingTimeSeconds, podGroupBackoffSeconds."""

    KIND: ClassVar[str] = "CoschedulingArgs"
    permit_waiting_time_seconds: Int64 | None = None
    pod_group_backoff_seconds: Int64 | None = None

    def defaulted(self, features: Features | None) -> "CoschedulingArgs":
        """SetDefaults_CoschedulingArgs: 60 s of Permit wait, no group backoff."""
        return replace(
            self,
            permit_waiting_time_seconds=DEFAULT_PERMIT_WAITING_TIME_SECONDS
            if self.permit_waiting_time_seconds is None
            else self.permit_waiting_time_seconds,
            pod_group_backoff_seconds=DEFAULT_POD_GROUP_BACKOFF_SECONDS
            if self.pod_group_backoff_seconds is None
            else self.pod_group_backoff_seconds,
        )

    def validate(self, features: Features | None) -> list[FieldError]:
        return [
            invalid(key, value, "must be a non-negative integer")
            for key, value in (
                ("permitWaitingTimeSeconds", self.permit_waiting_time_seconds),
                ("podGroupBackoffSeconds", self.pod_group_backoff_seconds),
            )
            if value is not None and value < 0
        ]


def _parse_time(text: Any) -> float | None:
    if not text:
        return None
    import calendar  # only here: ~1-3 ms of every run's start otherwise (kschedctl imports this package)

    try:
        return float(calendar.timegm(_time.strptime(str(text).replace("Z", "")[:19], "%Y-%m-%dT%H:%M:%S")))
    except ValueError:
        return None


def group_name(pod: Pod) -> str:
    return pod.labels.get(POD_GROUP_LABEL, "")


class Coscheduling:
    def __init__(self, args: CoschedulingArgs | dict[str, Any] | None, handle: Handle) -> None:
        self.handle = handle
        cs_args = CoschedulingArgs.of(args, handle.features)
        self.permit_waiting_time = float(cs_args.permit_waiting_time_seconds or 0)
        self.backoff_seconds = float(cs_args.pod_group_backoff_seconds or 0)
        self.backed_off: dict[str, float] = {}  # "ns/name" -> until (virtual time)

    def name(self) -> str:
        return NAME

    # --- PodGroupManager -------------------------------------------------------------------
    def get_pod_group(self, pod: Pod) -> tuple[str, dict[str, Any] | None]:
        name = group_name(pod)
        if not name:
            return "", None
        full = f"{pod.namespace}/{name}"
        obj = self.handle.objects.pod_groups.get((POD_GROUP_KIND, full))
        return full, (obj.raw if obj is not None else None)

    @staticmethod
    def min_member(pg: dict[str, Any]) -> int:
        return int((pg.get("spec") or {}).get("minMember") or 0)

    def _all_pods(self) -> list[Pod]:
        return self.handle.pod_lister().list()

    def siblings(self, pod: Pod) -> list[Pod]:
        """podLister.List(ns, label=group): the group's non-terminal pods, bound or not."""
        name = group_name(pod)
        return [p for p in self._all_pods() if p.namespace == pod.namespace and group_name(p) == name and not p.is_terminal]

    def calculate_assigned_pods(self, name: str, namespace: str) -> int:
        """Pods of the group on a node in the snapshot (assumed or bound)."""
        snap = self.handle.snapshot_shared_lister()
        return sum(
            1 for ni in snap.list() for pi in ni.pods if group_name(pi.pod) == name and pi.pod.namespace == namespace and pi.pod.node_name
        )

    def _now(self) -> float:
        return self.handle.clock.now()

    # --- QueueSort -------------------------------------------------------------------------
    def _creation(self, qpi: QueuedPodInfo) -> float:
        _, pg = self.get_pod_group(qpi.pod)
        if pg is not None:
            t = _parse_time((pg.get("metadata") or {}).get("creationTimestamp"))
            if t is not None:
                return t
        return qpi.initial_attempt_timestamp if qpi.initial_attempt_timestamp is not None else qpi.timestamp

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        pa, pb = a.pod.effective_priority(), b.pod.effective_priority()
        if pa != pb:
            return pa > pb
        ta, tb = self._creation(a), self._creation(b)
        if ta == tb:
            return f"{a.pod.namespace}/{a.pod.name}" < f"{b.pod.namespace}/{b.pod.name}"
        return ta < tb

    # --- PreFilter -------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> tuple[None, Status | None]:
        full, pg = self.get_pod_group(pod)
        if pg is None:
            return None, None
        until = self.backed_off.get(full)
        if until is not None and self._now() < until:
            return None, Status(Code.UnschedulableAndUnresolvable, f"podGroup {full} failed recently")
        count = len(self.siblings(pod))
        minimum = self.min_member(pg)
        if count < minimum:
            return None, Status(
                Code.UnschedulableAndUnresolvable,
                f"pre-filter pod {pod.name} cannot find enough sibling pods, current pods number: {count}, minMember of group: {minimum}",
            )
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    # --- PostFilter ------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Pod, node_to_status: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        full, pg = self.get_pod_group(pod)
        if pg is None:
            return None, Status(Code.UnschedulableAndUnresolvable, "can not find pod group")
        minimum = self.min_member(pg)
        assigned = self.calculate_assigned_pods(group_name(pod), pod.namespace)
        if assigned >= minimum:
            return None, Status(Code.Unschedulable)
        if minimum > 0 and (minimum - assigned) / minimum <= 0.1:
            return None, Status(Code.Unschedulable)
        for wp in self.handle.iterate_over_waiting_pods():
            if wp.pod.namespace == pod.namespace and group_name(wp.pod) == group_name(pod):
                wp.reject(NAME, "optimistic rejection in PostFilter")
        if self.backoff_seconds > 0:
            self.backed_off[full] = self._now() + self.backoff_seconds
        return None, Status(
            Code.Unschedulable, f"PodGroup {full} gets rejected due to Pod {pod.name} is unschedulable even after PostFilter"
        )

    # --- Reserve / Permit ------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        full, pg = self.get_pod_group(pod)
        if pg is None:
            return
        for wp in self.handle.iterate_over_waiting_pods():
            if wp.pod.namespace == pod.namespace and group_name(wp.pod) == group_name(pod):
                wp.reject(NAME, "rejection in Unreserve")

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        full, pg = self.get_pod_group(pod)
        if not full:
            return None, 0.0
        if pg is None:
            return Status(Code.Unschedulable, "PodGroup not found"), 0.0
        assigned = self.calculate_assigned_pods(group_name(pod), pod.namespace)
        if assigned + 1 >= self.min_member(pg):
            for wp in self.handle.iterate_over_waiting_pods():
                if wp.pod.namespace == pod.namespace and group_name(wp.pod) == group_name(pod):
                    wp.allow(NAME)
            return None, 0.0
        wait = float((pg.get("spec") or {}).get("scheduleTimeoutSeconds") or 0) or self.permit_waiting_time
        return Status(Code.Wait), wait


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, Coscheduling, Coscheduling, args_type=CoschedulingArgs)
