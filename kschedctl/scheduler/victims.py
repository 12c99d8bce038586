"""When a preemption victim leaves the scheduler's cache (pkg/scheduler/framework/preemption/executor.go).

Since kube 1.33 (SchedulerAsyncPreemption) the victims are deleted by API calls in a goroutine of
their own while the queue goes on; each victim stays in the scheduler's cache — it keeps its room
and counts in every filter and score — until the informer sees it go:

- ``util.DeletePod`` sends a delete without options, so the API server applies the pod's
  ``terminationGracePeriodSeconds`` (30 when unset, as the API defaults it) — 0 for a pod that is
  not bound or already Succeeded/Failed (``CheckGracefulDelete``, pkg/registry/core/pod/strategy.go).
- With a grace period of 0 the pod is removed at once: the scheduler sees the delete event one
  API round trip later (tens of milliseconds on a real cluster).
- Otherwise the pod gets a ``deletionTimestamp`` and the ``DisruptionTarget`` condition and stays
  until its kubelet has stopped it, at most the grace period later; meanwhile the preemptor, nominated
  to the node, is not eligible to preempt again (``podTerminatingByPreemption``), and a new
  preemption does not pick the terminating pod as a victim again.

``instant`` is the reading before that model: a victim leaves the moment it is chosen.
"""

from __future__ import annotations

from dataclasses import dataclass

from kschedctl.api.types import Pod

# seconds from the delete call to the scheduler's informer seeing it (a real 1.36 cluster: ~35 ms)
DELETION_LATENCY = 0.05
DEFAULT_GRACE_PERIOD = 30.0  # core/v1 defaulting of spec.terminationGracePeriodSeconds
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"


@dataclass(frozen=True)
class VictimExit:
    """How long a preemption victim stays; ``instant`` keeps the old reading (no time at all)."""

    instant: bool = False
    latency: float = DELETION_LATENCY

    def grace_period(self, pod: Pod) -> float:
        """The grace period the API server applies to the scheduler's delete (no options)."""
        if not pod.node_name or pod.is_terminal:
            return 0.0
        value = (pod.raw.get("spec") or {}).get("terminationGracePeriodSeconds")
        if value is None:
            return DEFAULT_GRACE_PERIOD
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            return DEFAULT_GRACE_PERIOD
        return 1.0 if seconds < 0 else seconds  # CheckGracefulDelete: a negative period becomes 1

    def delay(self, pod: Pod) -> float | None:
        """Seconds until the victim is gone from the scheduler's cache; None: at once."""
        if self.instant:
            return None
        return self.latency + self.grace_period(pod)


def mark_terminating(pod: Pod, when: str, scheduler_name: str) -> None:
    """What the scheduler's status patch and delete call leave on a victim with a grace period:
    the DisruptionTarget condition (PreemptionByScheduler) and a deletionTimestamp."""
    condition = {
        "type": "DisruptionTarget",
        "status": "True",
        "reason": REASON_PREEMPTION_BY_SCHEDULER,
        "message": f"{scheduler_name}: preempting to accommodate a higher priority pod",
    }
    kept = tuple(c for c in pod.conditions if c.get("type") != "DisruptionTarget")
    pod.conditions = (condition, *kept)
    pod.meta.deletion_timestamp = when
    pod.raw.setdefault("metadata", {})["deletionTimestamp"] = when
    status = pod.raw.setdefault("status", {})
    status["conditions"] = [condition] + [c for c in status.get("conditions") or [] if c.get("type") != "DisruptionTarget"]
