"""SchedulingGates (PreEnqueue): a pod with spec.schedulingGates is kept out of the active queue.

Upstream: pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go. The status is
UnschedulableAndUnresolvable with the gate names printed as a Go slice (``[a b]``), so
``explain`` shows exactly what kube-scheduler records for a gated pod.
"""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    QueueingHint,
    Status,
)
from kschedctl.framework.registry import PluginSpec
from kschedctl.plugins import names

NAME = names.SchedulingGates


def gates_message(gates: tuple[str, ...] | list[str]) -> str:
    """fmt.Sprintf("waiting for scheduling gates: %v", gates) for a []string."""
    return f"waiting for scheduling gates: [{' '.join(gates)}]"


class SchedulingGates:
    def __init__(self, args: dict[str, Any] | None, handle: Handle | None) -> None:
        self.handle = handle

    def name(self) -> str:
        return NAME

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.scheduling_gates:
            return None
        return Status(Code.UnschedulableAndUnresolvable, gates_message(pod.scheduling_gates))

    def pre_enqueue_always_admits(self, pod: Pod) -> bool:
        """Whether PreEnqueue admits this pod object whatever the cluster's state (the queue
        then knows this plugin's answer for the pod without asking; see
        Framework.pre_enqueue_share_key): a pod object's gates are fixed."""
        return not pod.scheduling_gates

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Only the removal of the last gate can let the pod in (queueing hints are on in 1.35+).
        return [ClusterEventWithHint(ClusterEvent("Pod", "UpdatePodSchedulingGatesEliminated"), self.is_schedulable_after_gates_eliminated)]

    def is_schedulable_after_gates_eliminated(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Queue only when the updated pod is this pod (isSchedulableAfterUpdatePodSchedulingGatesEliminated)."""
        if not isinstance(new, Pod):
            raise TypeError(f"unexpected object {type(new).__name__}, want Pod")
        return QueueingHint.Queue if new.uid == pod.uid else QueueingHint.QueueSkip


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, SchedulingGates, SchedulingGates)
