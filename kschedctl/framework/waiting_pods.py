"""Pods held at Permit (pkg/scheduler/framework/runtime/waiting_pods_map.go).

Each waiting plugin has a deadline on the scheduler's virtual clock; the scheduler resumes the
pod's binding cycle once every plugin allowed it, or fails it on the first rejection or timeout.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, ClassVar

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

    # Bumped whenever a waiting pod gets a result or leaves a WaitingPodsMap: the scheduler
    # looks for resolved waiting pods only when it moved since it last looked (a gang of 1,000
    # waits at Permit while each of its members is scheduled).
    changes: ClassVar[int] = 0

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "result" and value is not None:
            _bump()
        object.__setattr__(self, name, value)

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


_BUMP = threading.Lock()  # runs in threads (sweep) share the counter: no increment lost


def _bump() -> None:
    with _BUMP:
        WaitingPod.changes += 1


class WaitingPodsMap(dict[str, WaitingPod]):
    """A framework's waiting pods by uid; a pod leaving it (or replaced) bumps WaitingPod.changes."""

    def __setitem__(self, key: str, value: WaitingPod) -> None:
        if key in self:
            _bump()
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        _bump()
        super().__delitem__(key)

    def pop(self, key: str, *default: Any) -> Any:
        _bump()
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, WaitingPod]:
        _bump()
        return super().popitem()

    def clear(self) -> None:
        _bump()
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        _bump()
        super().update(*args, **kwargs)

    def setdefault(self, key: str, default: WaitingPod) -> WaitingPod:
        _bump()
        return super().setdefault(key, default)
