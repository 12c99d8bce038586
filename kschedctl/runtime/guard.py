"""How the runtime checks what a plugin call did: the Error Status of an exception or of a
result of the wrong type, each naming the plugin, and the shapes each extension point returns.

The runtime (framework.py and its runners, *_points.py) calls every plugin through these, so that a plugin's failure is
one pod's (or pod group's) failed attempt, worded the same way at every extension point.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kschedctl.framework.cycle_state import StateNotFound
from kschedctl.framework.interface import Code, Status
from kschedctl.lazy import loaded, quiet_log
from kschedctl.runtime.sandbox import PluginFailure, SandboxedPlugin, describe

LOGGER = "kschedctl.runtime.framework"  # the plugin calls' debug records (kschedctl.lazy.quiet_log)


def is_number(value: Any) -> bool:
    """A Python or numpy number (a bool counts: callers rule it out where it matters). A numpy
    scalar exists only once numpy is loaded, so this never imports it."""
    if isinstance(value, (int, float)):
        return True
    np = loaded("numpy")
    return np is not None and isinstance(value, (np.integer, np.floating))


def is_int(value: Any) -> bool:
    """An integer score (Python or numpy int; a bool is not a score)."""
    if isinstance(value, int):
        return not isinstance(value, bool)
    np = loaded("numpy")
    return np is not None and isinstance(value, np.integer)


def raised(name: str, what: str, exc: BaseException) -> Status:
    """The Error Status of a plugin call that raised (or timed out in its sandbox)."""
    if isinstance(exc, StateNotFound):
        # a CycleState read that found nothing: kube's framework.ErrNotFound, "not found"
        return Status(Code.Error, str(exc), plugin=name, err=exc)
    quiet_log(LOGGER, "debug", "plugin %s raised in %s", name, what, exc_info=True)
    if isinstance(exc, PluginFailure) and exc.worded:  # it says what the plugin did
        return Status(Code.Error, f'plugin "{name}" ' + str(exc).replace("{point}", what), plugin=name, err=exc)
    if isinstance(exc, PluginFailure) and exc.timed_out:
        return Status(Code.Error, f'plugin "{name}" {exc}', plugin=name, err=exc)
    return Status(Code.Error, f'plugin "{name}" raised in {what}: {describe(exc)}', plugin=name, err=exc)


def wrong(name: str, what: str, value: Any, expected: str) -> Status:
    """The Error Status of a plugin call that returned something of the wrong type."""
    kind = type(value.sandboxed if isinstance(value, SandboxedPlugin) else value).__name__
    return Status(Code.Error, f'plugin "{name}" returned {kind} from {what}, expected {expected}', plugin=name)


def status_of(name: str, what: str, out: Any) -> Status:
    """A plugin's ``Status | None`` result as a Status (None is Success)."""
    if out is None:
        return Status()
    if isinstance(out, Status):
        return out
    return wrong(name, what, out, "a Status or None")


def as_status(name: str, what: str, out: Any) -> Status:
    """status_of with the common cases first (a Status, or None for Success)."""
    if out.__class__ is Status:
        return out
    return Status() if out is None else status_of(name, what, out)


def pair(name: str, what: str, out: Any, first_ok: Callable[[Any], bool], expected: str) -> tuple[Any, Status] | Status:
    """A plugin's ``(result, Status | None)`` result (a bare Status is a failure with no
    result); a Status of the runtime's when the shape is wrong."""
    if isinstance(out, Status):
        return None, out
    if isinstance(out, tuple) and len(out) == 2 and first_ok(out[0]) and (out[1] is None or isinstance(out[1], Status)):
        return out[0], out[1] if out[1] is not None else Status()
    return wrong(name, what, out, expected)


def permit_result(name: str, out: Any) -> tuple[Status, float]:
    """A Permit plugin's ``(Status | None, timeout seconds)`` (a bare Status: no timeout)."""
    if out is None:
        return Status(), 0.0
    if isinstance(out, Status):
        return out, 0.0
    if isinstance(out, tuple) and len(out) == 2:
        st, timeout = out
        if (st is None or isinstance(st, Status)) and (timeout is None or (is_number(timeout) and not isinstance(timeout, bool))):
            return (st if st is not None else Status()), float(timeout or 0)
    return wrong(name, "Permit", out, "a (Status | None, timeout seconds) pair"), 0.0


def optional(pl: Any, method: str) -> Any:
    """An optional method of a plugin (or of its extensions object), None when it has none or
    looking it up fails."""
    try:
        fn = getattr(pl, method, None)
    except Exception:  # noqa: BLE001 - a plugin's __getattr__ or property may raise
        return None
    return fn if callable(fn) else None


def priority_less(a: Any, b: Any) -> bool:
    """The order the queue falls back to when the QueueSort plugin fails (PrioritySort's)."""
    p1: int = a.pod.effective_priority()
    p2: int = b.pod.effective_priority()
    if p1 != p2:
        return p1 > p2
    t1: float = a.timestamp
    t2: float = b.timestamp
    if t1 != t2:
        return t1 < t2
    s1: int = a.seq
    s2: int = b.seq
    return s1 < s2


__all__ = ["as_status", "is_int", "is_number", "optional", "pair", "permit_result", "priority_less", "raised", "status_of", "wrong"]
