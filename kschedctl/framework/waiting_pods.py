"""Pods held at Permit (pkg/scheduler/framework/runtime/waiting_pods_map.go).

Each waiting plugin has a deadline on the scheduler's virtual clock; the scheduler resumes the
pod's binding cycle once every plugin allowed it, or fails it on the first rejection or timeout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedctl.framework.interface import Code, Status


@dataclass
class WaitingPod:
    """A pod held at Permit (waiting_pods_map.go): one pending plugin -> its deadline."""

    pod: Any
    node_name: str
    pending_plugins: dict[str, float] = field(default_factory=dict)  # plugin -> deadline
    timeouts: dict[str, float] = field(default_factory=dict)  # plugin -> timeout asked for (seconds)
    result: Status | None = None
    messages: list[str] = field(default_factory=list)  # the waiting plugins' own Wait messages

    def get_pod(self) -> Any:
        return self.pod

    def get_pending_plugins(self) -> list[str]:
        return list(self.pending_plugins)

    def allow(self, plugin: str) -> None:
        self.pending_plugins.pop(plugin, None)
        if not self.pending_plugins and self.result is None:
            self.result = Status()

    def reject(self, plugin: str, message: str) -> None:
        if self.result is None:
            self.result = Status(Code.Unschedulable, message, plugin=plugin)
