"""Out-of-tree plugin code runs in a sandbox: bounded in time, away from stdout, contained.

kube-scheduler's plugins are compiled in; kschedctl loads third-party Python packages, which
may do anything a Python function can: raise a BaseException (SystemExit from sys.exit(), a
class of their own), block, or print. The runtime already turns any ``Exception`` of any
plugin into an Error Status naming the plugin; for code that is not kschedctl's own (every
plugin not registered by kschedctl.plugins.intree, and every installed package's import and
hook), the sandbox adds three guarantees:

* any BaseException but a real Ctrl-C (``KeyboardInterrupt`` itself) becomes a
  ``PluginFailure`` (an ``Exception``), so it fails one pod's attempt, never the run;
* a call that does not return within the time limit is interrupted (on the main thread a
  watchdog thread sends SIGALRM, whose handler raises ``PluginTimeout`` inside the plugin;
  elsewhere the call runs in a worker thread that is abandoned) and fails with a timeout; a plugin that timed out once is not
  called again in the run (every later call fails at once), so a blocking plugin costs one
  time limit, not one per node and pod;
* ``sys.stdout`` is ``sys.stderr`` while the plugin runs, so a ``print()`` cannot corrupt
  ``-o json``.

The cost is about a microsecond per sandboxed call (a clock read, the stdout swap, a list
append), paid only by out-of-tree plugins; in-tree plugins are called directly.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
import types
from collections.abc import Callable
from typing import Any, TypeVar

from kschedctl.framework.gosemantics import go_duration

T = TypeVar("T")

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


class _Call:
    """One sandboxed call in progress on the main thread (what the watchdog looks at)."""

    __slots__ = ("sandbox", "deadline", "expired")

    def __init__(self, sandbox: "Sandbox", deadline: float) -> None:
        self.sandbox = sandbox
        self.deadline = deadline
        self.expired = False


class _Watchdog:
    """Bounds sandboxed calls on the main thread, cheaply.

    A call costs a clock read and a list append/pop; a daemon thread looks at the calls in
    progress every few tens of milliseconds and, when one is past its deadline, sends SIGALRM
    to the main thread, whose handler raises PluginTimeout inside the plugin's code (a
    blocking sleep or wait is interrupted too). The handler is installed once, the first time
    a bounded call is made. Per call this is about a microsecond; an alarm armed per call
    (setitimer, signal) would be tens.
    """

    POLL = 0.02  # seconds between looks (the precision of a time limit)

    def __init__(self) -> None:
        self.calls: list[_Call] = []  # nested sandboxed calls, innermost last
        self.started = False
        self._main: int | None = None
        self._lock = threading.Lock()

    def available(self) -> bool:
        return hasattr(signal, "pthread_kill") and threading.current_thread() is threading.main_thread()

    def start(self) -> None:
        with self._lock:
            if self.started:
                return
            signal.signal(signal.SIGALRM, self._on_alarm)
            self._main = threading.main_thread().ident
            threading.Thread(target=self._watch, name="kschedctl plugin watchdog", daemon=True).start()
            self.started = True

    def _watch(self) -> None:
        while True:
            time.sleep(self.POLL)
            now = time.monotonic()
            for c in list(self.calls):
                if not c.expired and now > c.deadline:
                    c.expired = True
                    if self._main is not None:
                        signal.pthread_kill(self._main, signal.SIGALRM)
                    break

    def _on_alarm(self, signum: int, frame: Any) -> None:
        """On the main thread: a call in progress is past its deadline (else nothing to do)."""
        expired = next((c for c in self.calls if c.expired), None)
        if expired is not None:
            raise PluginTimeout(expired)


_WATCHDOG = _Watchdog()


class Sandbox:
    """The calls of one out-of-tree plugin (or package): each bounded by ``timeout`` seconds
    (None or 0: unbounded), stdout sent to stderr, any BaseException contained."""

    def __init__(self, owner: str, timeout: float | None = DEFAULT_PLUGIN_TIMEOUT) -> None:
        self.owner = owner
        self.timeout = timeout if timeout and timeout > 0 else None
        self.broken: str | None = None  # set when a call timed out: later calls fail at once

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        if self.broken is not None:
            raise PluginFailure(self.broken, timed_out=True)
        saved = sys.stdout
        sys.stdout = sys.stderr
        try:
            if self.timeout is None:
                return fn(*args)
            if _WATCHDOG.available():
                return self._watched(fn, args, self.timeout)
            return self._in_worker(fn, args, self.timeout)
        except PluginTimeout as exc:
            if exc.args and isinstance(exc.args[0], _Call) and exc.args[0].sandbox is not self:
                raise  # an outer sandboxed call's time is up: that call fails
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

    def _watched(self, fn: Callable[..., T], args: tuple[Any, ...], limit: float) -> T:
        """The call under the watchdog; a nested call keeps the outer call's deadline too."""
        if not _WATCHDOG.started:
            _WATCHDOG.start()
        call = _Call(self, time.monotonic() + limit)
        calls = _WATCHDOG.calls
        calls.append(call)
        try:
            out = fn(*args)
        finally:
            calls.remove(call)
        if call.expired:  # the plugin caught the timeout and went on: it still took too long
            raise PluginTimeout(call)
        return out

    def _in_worker(self, fn: Callable[..., T], args: tuple[Any, ...], limit: float) -> T:
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
        out: T = box["out"]
        return out


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
