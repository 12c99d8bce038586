"""Out-of-tree plugin code runs in a sandbox: bounded in time, away from stdout, contained.

kube-scheduler's plugins are compiled in; kschedctl loads third-party Python packages, which
may do anything a Python function can: raise a BaseException (SystemExit from sys.exit(), a
class of their own), block, or print. The runtime already turns any ``Exception`` of any
plugin into an Error Status naming the plugin; for code that is not kschedctl's own (every
plugin not registered by kschedctl.plugins.intree, and every installed package's import and
hook), the sandbox adds three guarantees:

* any BaseException but a real Ctrl-C (``KeyboardInterrupt`` itself) becomes a
  ``PluginFailure`` (an ``Exception``), so it fails one pod's attempt, never the run;
* a call that does not return within the time limit is interrupted (SIGALRM on the main
  thread: a ``PluginTimeout`` raised inside the plugin; elsewhere the call runs in a worker
  thread that is abandoned) and fails with a timeout; a plugin that timed out once is not
  called again in the run (every later call fails at once), so a blocking plugin costs one
  time limit, not one per node and pod;
* ``sys.stdout`` is ``sys.stderr`` while the plugin runs, so a ``print()`` cannot corrupt
  ``-o json``.

The cost is a few system calls per sandboxed call (the alarm), paid only by out-of-tree
plugins; in-tree plugins are called directly.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
import types
from typing import Any, Callable

from kschedctl.framework.gosemantics import go_duration

# A generous default: a plugin call taking this long is hung, not slow.
DEFAULT_PLUGIN_TIMEOUT = 30.0

_MISSING = object()
# Methods whose result is an object of the plugin's (its extension-point helpers): sandboxed too.
_EXTENSION_OBJECT_METHODS = frozenset({"score_extensions", "pre_filter_extensions"})


class PluginFailure(Exception):
    """Sandboxed plugin code raised a BaseException that is not an Exception, or timed out."""

    def __init__(self, message: str, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


class PluginTimeout(BaseException):
    """Raised inside plugin code by the alarm (a BaseException: ``except Exception`` in the
    plugin does not swallow it)."""


def describe(exc: BaseException) -> str:
    """An exception as a one-line reason: "RuntimeError: boom" (a PluginFailure as its text)."""
    if isinstance(exc, PluginFailure):
        return str(exc)
    text = " ".join(str(exc).split())  # never a multi-line message in a kube message
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _can_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


class Sandbox:
    """The calls of one out-of-tree plugin (or package): each bounded by ``timeout`` seconds
    (None or 0: unbounded), stdout sent to stderr, any BaseException contained."""

    def __init__(self, owner: str, timeout: float | None = DEFAULT_PLUGIN_TIMEOUT) -> None:
        self.owner = owner
        self.timeout = timeout if timeout and timeout > 0 else None
        self.broken: str | None = None  # set when a call timed out: later calls fail at once
        self._fired = False

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self.broken is not None:
            raise PluginFailure(self.broken, timed_out=True)
        saved = sys.stdout
        sys.stdout = sys.stderr
        try:
            if self.timeout is None:
                return fn(*args)
            if _can_alarm():
                return self._with_alarm(fn, args, self.timeout)
            return self._in_worker(fn, args, self.timeout)
        except PluginTimeout:
            raise self._timed_out() from None
        except Exception:
            raise
        except BaseException as exc:
            if type(exc) is KeyboardInterrupt:  # the user's Ctrl-C, not the plugin's doing
                raise
            raise PluginFailure(describe(exc)) from exc
        finally:
            sys.stdout = saved

    def _timed_out(self) -> PluginFailure:
        self.broken = (f"did not return within {go_duration(self.timeout or 0)} (the plugin time limit, "
                       f"--plugin-timeout); not called again in this run")
        return PluginFailure(self.broken, timed_out=True)

    def _on_alarm(self, signum: int, frame: Any) -> None:
        self._fired = True
        raise PluginTimeout()

    def _with_alarm(self, fn: Callable[..., Any], args: tuple, limit: float) -> Any:
        """The call under an ITIMER_REAL alarm; an outer sandboxed call's alarm is suspended
        (its remaining time bounds this one) and re-armed with what is left of it."""
        outer, _ = signal.getitimer(signal.ITIMER_REAL)
        if outer:
            limit = min(limit, outer)
        previous = signal.signal(signal.SIGALRM, self._on_alarm)
        self._fired = False
        start = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            out = fn(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if outer:
                signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 1e-6))
        if self._fired:  # the plugin caught the timeout and went on: it still took too long
            raise PluginTimeout()
        return out

    def _in_worker(self, fn: Callable[..., Any], args: tuple, limit: float) -> Any:
        """Off the main thread (no signals): the call in a daemon thread, abandoned on timeout."""
        box: dict[str, Any] = {}

        def run() -> None:
            try:
                box["out"] = fn(*args)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                box["exc"] = exc

        worker = threading.Thread(target=run, name=f"plugin {self.owner}", daemon=True)
        worker.start()
        worker.join(limit)
        if worker.is_alive():
            raise PluginTimeout()
        if "exc" in box:
            raise box["exc"]
        return box.get("out")


class SandboxedPlugin:
    """A plugin instance whose every method call runs in its Sandbox.

    Attributes are looked up on the plugin (so a missing optional method stays missing);
    methods come back wrapped, and so do the objects ``score_extensions()`` and
    ``pre_filter_extensions()`` return.
    """

    def __init__(self, plugin: Any, sandbox: Sandbox) -> None:
        object.__setattr__(self, "_plugin", plugin)
        object.__setattr__(self, "_sandbox", sandbox)

    @property
    def sandboxed(self) -> Any:
        """The plugin object itself."""
        return self._plugin

    def __getattr__(self, attr: str) -> Any:
        sandbox: Sandbox = self._sandbox
        plugin = self._plugin
        static = getattr(type(plugin), attr, _MISSING)
        if isinstance(static, types.FunctionType) and attr not in getattr(plugin, "__dict__", {}):
            value = static.__get__(plugin)  # a plain method: looking it up runs no plugin code
        elif sandbox.broken is not None:
            raise AttributeError(attr)  # the plugin timed out: nothing of it runs any more
        else:
            value = sandbox.call(getattr, plugin, attr)  # a property or __getattr__ is plugin code too
        if not callable(value):
            return value
        if attr in _EXTENSION_OBJECT_METHODS:
            def wrapped(*args: Any) -> Any:
                out = sandbox.call(value, *args)
                return None if out is None else SandboxedPlugin(out, sandbox)
        else:
            def wrapped(*args: Any) -> Any:
                return sandbox.call(value, *args)
        object.__setattr__(self, attr, wrapped)  # looked up once
        return wrapped

    def __setattr__(self, attr: str, value: Any) -> None:
        setattr(self._plugin, attr, value)

    def __repr__(self) -> str:
        return f"SandboxedPlugin({self._plugin!r})"


def sandbox_hint(fn: Callable[..., Any] | None, sandbox: Sandbox) -> Callable[..., Any] | None:
    """A queueing hint function of a sandboxed plugin, sandboxed."""
    if fn is None:
        return None
    return lambda *args: sandbox.call(fn, *args)


__all__ = ["DEFAULT_PLUGIN_TIMEOUT", "PluginFailure", "PluginTimeout", "Sandbox", "SandboxedPlugin", "describe",
           "sandbox_hint"]
