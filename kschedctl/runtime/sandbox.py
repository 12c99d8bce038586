"""Out-of-tree plugin code runs in a sandbox: bounded in time, away from stdout, contained.

kube-scheduler's plugins are compiled in; kschedctl loads third-party Python packages, which
may do anything a Python function can: raise a BaseException (SystemExit from sys.exit(), a
class of their own), block, print, change directory or the objects they are handed. The
runtime already turns any ``Exception`` of any plugin into an Error Status naming the plugin;
for code that is not kschedctl's own (every plugin not registered by kschedctl.plugins.intree,
and every installed package's import and hook), the sandbox adds:

* any BaseException but a real Ctrl-C (``KeyboardInterrupt`` itself) becomes a
  ``PluginFailure`` (an ``Exception``), so it fails one pod's attempt, never the run;
* a call that does not return within the time limit is interrupted (on the main thread a
  watchdog thread sends SIGALRM, whose handler raises ``PluginTimeout`` inside the plugin;
  elsewhere the call runs in a worker thread that is abandoned) and fails with a timeout; a
  plugin that timed out once is not called again in the run (every later call fails at once),
  so a blocking plugin costs one time limit, not one per node and pod; in a contained process
  (process.py) a call that will not stop ends the run (_Watchdog);
* ``sys.stdout`` is ``sys.stderr`` while the plugin runs, so a ``print()`` cannot corrupt
  ``-o json`` (process.py does the same at the file-descriptor level, for any thread);
* the working directory is put back after each call, so relative output paths keep meaning
  what they meant;
* a plugin method's call that changed the pods or NodeInfos it was handed is undone and fails
  (handed.py), and a Status it returns must have string reasons.

The cost is a few microseconds per sandboxed call (a clock read, the stdout swap, a list
append, a getcwd, a record of the pod and NodeInfo handed), paid only by out-of-tree plugins;
in-tree plugins are called directly.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import types
from collections.abc import Callable
from typing import Any, TypeVar

from kschedctl.framework.gosemantics import go_duration
from kschedctl.runtime.handed import changed, taken
from kschedctl.runtime.process import STATE, end_now

T = TypeVar("T")

# A generous default: a plugin call taking this long is hung, not slow.
DEFAULT_PLUGIN_TIMEOUT = 30.0

_MISSING = object()
# Methods whose result is an object of the plugin's (its extension-point helpers): sandboxed too.
_EXTENSION_OBJECT_METHODS = frozenset({"score_extensions", "pre_filter_extensions"})


class PluginFailure(Exception):
    """Sandboxed plugin code raised a BaseException that is not an Exception, or timed out."""

    def __init__(self, message: str, timed_out: bool = False, worded: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out
        # the message says what the plugin did ("changed ..."), {point} where the point goes
        self.worded = worded


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

    __slots__ = ("sandbox", "deadline", "grace", "expired")

    def __init__(self, sandbox: "Sandbox", deadline: float, grace: float) -> None:
        self.sandbox = sandbox
        self.deadline = deadline
        self.grace = grace  # after deadline + grace the call is not interrupted but the run ended
        self.expired = False


def _grace(limit: float) -> float:
    """How long past its time limit a call that does not give way to the timeout is let run
    before the run is ended: the limit itself, within [1 s, 5 s]."""
    return min(max(limit, 1.0), 5.0)


class _HardTimer:
    """The last resort, which needs no GIL: two POSIX timers whose expiry runs a C function in a
    new native thread (SIGEV_THREAD), ``puts`` of the error line, then ``_exit(2)``. It ends a
    run stuck in C code that holds the GIL and checks no signal (where neither the alarm nor the
    watchdog thread can run). Linux/glibc only (``ctypes``, ``timer_create``); elsewhere None.
    Armed and disarmed holding the GIL (PyDLL), so the main thread and the watchdog thread see
    the same state."""

    LINE = 512

    def __init__(self) -> None:
        import ctypes

        libc = ctypes.PyDLL(None, use_errno=True)

        class Timespec(ctypes.Structure):
            _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]

        class Itimerspec(ctypes.Structure):
            _fields_ = [("it_interval", Timespec), ("it_value", Timespec)]

        class Sigevent(ctypes.Structure):  # struct sigevent, SIGEV_THREAD layout (64 bytes)
            _fields_ = [
                ("value", ctypes.c_void_p),
                ("signo", ctypes.c_int),
                ("notify", ctypes.c_int),
                ("function", ctypes.c_void_p),
                ("attribute", ctypes.c_void_p),
                ("pad", ctypes.c_char * 32),
            ]

        self._spec = Itimerspec()
        self._settime = libc.timer_settime
        self._settime.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        self._line = ctypes.create_string_buffer(self.LINE)
        # C's stdout unbuffered: puts() reaches fd 1 (standard error in a contained process) at once
        libc.setvbuf(ctypes.c_void_p.in_dll(libc, "stdout"), None, 2, 0)
        self._timers = []
        for fn, value in ((libc.puts, ctypes.addressof(self._line)), (libc._exit, 2)):
            event = Sigevent(value=value, notify=2, function=ctypes.cast(fn, ctypes.c_void_p).value)
            timer = ctypes.c_void_p()
            if libc.timer_create(1, ctypes.byref(event), ctypes.byref(timer)) != 0:  # CLOCK_MONOTONIC
                raise OSError(ctypes.get_errno(), "timer_create")
            self._timers.append(timer)
        self._byref = ctypes.byref(self._spec)

    def arm(self, seconds: float, line: str) -> None:
        self._line.value = line.encode("utf-8", "replace")[: self.LINE - 1]
        for timer, at in zip(self._timers, (seconds, seconds + 0.2)):
            self._set(timer, at)

    def disarm(self) -> None:
        for timer in self._timers:
            self._set(timer, 0.0)

    def _set(self, timer: Any, seconds: float) -> None:
        whole = int(seconds)
        self._spec.it_value.tv_sec = whole
        self._spec.it_value.tv_nsec = 0 if seconds == 0 else max(int((seconds - whole) * 1e9), 1)
        self._settime(timer, 0, self._byref, None)


def _new_hard_timer() -> _HardTimer | None:
    try:
        return _HardTimer()
    except Exception:  # noqa: BLE001 - no ctypes, no timer_create: the Python-level escalation only
        return None


class _Watchdog:
    """Bounds sandboxed calls on the main thread, cheaply, and escalates when a call will not stop.

    A call costs a clock read and a list append/pop; a daemon thread looks at the calls in
    progress every few tens of milliseconds and, while one is past its deadline, sends SIGALRM
    to the main thread (again at every look), whose handler raises PluginTimeout inside the
    plugin's code (a blocking sleep or wait is interrupted too). The handler is installed once,
    the first time a bounded call is made. Per call this is about a microsecond; an alarm armed
    per call (setitimer, signal) would be more.

    In a contained process (process.py: kschedctl run as a command) there is more, for plugins
    that do not give way: a loop that catches the timeout, SIGALRM ignored, C code holding the
    GIL (a catastrophic regular expression), each of which the watchdog thread alone cannot stop.

    * The kernel's interval timer (ITIMER_REAL) sends SIGALRM at the earliest deadline and
      every POLL after, so code holding the GIL that checks signals (the regex engine does)
      still gets the timeout raised, and raised again if caught. It is armed by the first
      bounded call when nothing is armed and kept at the earliest deadline (or disarmed when no
      call is in progress) by the watchdog thread: most calls touch no timer.
    * At ``deadline + grace`` the handler or the watchdog thread, whichever runs first, ends the
      run: one ``error:`` line naming the plugin, exit status 2.
    * Half a second later the _HardTimer (no GIL needed) does the same from a native thread.
    * After each call, a SIGALRM handler the plugin replaced is put back.

    The thread parks when a whole look went by with no call begun and none in progress, and the
    next call wakes it (``parked``, one check of an event per call). A look takes the GIL from the
    main thread, and each hand-over between the two threads costs the main thread far more
    than the look itself (on a 2-core virtual machine, 5-9 % of a 0.75 s scheduling run at 50
    looks a second). The thread is started by the first sandboxed call, which is the import
    of an installed plugin package even when no profile uses it, so without parking every
    run with such a package installed paid that for nothing.
    """

    POLL = 0.02  # seconds between looks (the precision of a time limit)
    HARD_EXTRA = 0.5  # the native timer's margin over the Python-level escalation

    def __init__(self) -> None:
        self.calls: list[_Call] = []  # nested sandboxed calls, innermost last
        self.started = False
        self.armed: float | None = None  # the deadline the timers are set for (contained process)
        self._main: int | None = None
        self._lock = threading.Lock()
        self._hard: _HardTimer | None = None
        self.begun = 0  # calls begun so far: a look that sees it unchanged saw no call begin
        self._wake = threading.Event()  # clear while the thread is parked (see ``parked``)
        self._wake.set()
        self.thread: threading.Thread | None = None

    def available(self) -> bool:
        return hasattr(signal, "pthread_kill") and threading.current_thread() is threading.main_thread()

    def start(self) -> None:
        with self._lock:
            if self.started:
                return
            signal.signal(signal.SIGALRM, self._on_alarm)
            self._main = threading.main_thread().ident
            if STATE.contained:
                self._hard = _new_hard_timer()
                STATE.on_finish.append(lambda: self.keep_armed([]))  # no alarm during shutdown
            self.thread = threading.Thread(target=self._watch, name="kschedctl plugin watchdog", daemon=True)
            self.thread.start()
            self.started = True

    def _watch(self) -> None:
        seen = -1
        while True:
            if not self.calls and self.begun == seen:
                self._park(seen)
            seen = self.begun
            time.sleep(self.POLL)
            now = time.monotonic()
            calls = list(self.calls)
            for c in calls:
                if now > c.deadline:
                    c.expired = True
                    if STATE.contained and now > c.deadline + c.grace:
                        _end_run(c)
                    if self._main is not None:
                        signal.pthread_kill(self._main, signal.SIGALRM)
                    break
            if STATE.contained:
                self.keep_armed()

    @property
    def parked(self) -> bool:
        """Whether the thread waits for a call instead of looking."""
        return not self._wake.is_set()

    def _park(self, seen: int) -> None:
        """Waits until a call begins (``unpark``), the timers disarmed. ``seen`` is the count of
        calls begun when the thread's last look started: parking is given up when a call has
        begun since, in progress or already ended, as it may have set the timers after that
        look and only a look moves them. A call that begins once the event is cleared wakes
        the wait."""
        self._wake.clear()
        if STATE.contained:
            self.keep_armed()  # a call that ended after the last look may have left the timers set
        if self.calls or self.begun != seen:
            self._wake.set()
            return
        self._wake.wait()

    def unpark(self) -> None:
        """On the main thread, after a call was added: the parked thread looks again."""
        self._wake.set()

    def keep_armed(self, calls: list[_Call] | None = None) -> None:
        """The timers set for the earliest deadline of the calls in progress, or disarmed
        (``calls`` given empty: at shutdown). The calls are read under the lock, so that the
        watchdog thread never acts on a copy taken before the main thread's next call began."""
        with self._lock:
            self._arm_locked(list(self.calls) if calls is None else calls)

    def _arm_locked(self, calls: list[_Call]) -> None:
        """keep_armed's work, the lock held: the earliest deadline of ``calls``, or disarmed."""
        if not calls:
            if self.armed is not None:
                signal.setitimer(signal.ITIMER_REAL, 0)
                if self._hard is not None:
                    self._hard.disarm()
                self.armed = None
            return
        first = min(calls, key=lambda c: c.deadline)
        if self.armed == first.deadline:
            return
        left = max(first.deadline - time.monotonic(), 0.001)
        signal.setitimer(signal.ITIMER_REAL, left, self.POLL)
        if self._hard is not None:
            self._hard.arm(left + first.grace + self.HARD_EXTRA, _end_line(first))
        self.armed = first.deadline

    def _on_alarm(self, signum: int, frame: Any) -> None:
        """On the main thread: a call in progress is past its deadline (else nothing to do)."""
        now = time.monotonic()
        for c in self.calls:
            if c.expired or now > c.deadline:
                c.expired = True
                if STATE.contained and now > c.deadline + c.grace:
                    _end_run(c)
                raise PluginTimeout(c)

    def restore_handler(self) -> None:
        """A contained process: the SIGALRM handler put back (and the timers re-armed by the next
        call) if the plugin replaced it."""
        if signal.getsignal(signal.SIGALRM) != self._on_alarm:
            signal.signal(signal.SIGALRM, self._on_alarm)
            self.armed = None


_WATCHDOG = _Watchdog()


def idle_watchdog(thread: threading.Thread) -> bool:
    """Whether ``thread`` is the plugin watchdog with no sandboxed call in progress: it then
    sleeps between looks at an empty list, or waits to be woken (parked), and may at most hold
    its own lock while it disarms timers. A process forked meanwhile (whose child makes no
    sandboxed call and inherits no timer) needs nothing of it."""
    return thread is _WATCHDOG.thread and not _WATCHDOG.calls


def _who(owner: str) -> str:
    shown = "".join(ch if ch.isprintable() else "?" for ch in owner)
    return shown if shown.startswith("package ") else f'plugin "{shown}"'


def _end_line(call: _Call) -> str:
    limit = go_duration(call.sandbox.timeout or 0)
    return (
        f"error: {_who(call.sandbox.owner)} did not return within {limit} (the plugin time limit, --plugin-timeout) "
        f"and could not be interrupted; the run was ended"
    )


def _end_run(call: _Call) -> None:
    """End the run for a call that will not stop: once (the alarm handler and the watchdog
    thread may both get here; the native timer is disarmed first)."""
    if not _ENDING.acquire(blocking=False):
        while True:  # the other one is ending the process
            time.sleep(1)
    hard = _WATCHDOG._hard
    if hard is not None:
        hard.disarm()
    end_now(_end_line(call) + "\n", 2)


_ENDING = threading.Lock()


class Sandbox:
    """The calls of one out-of-tree plugin (or package): each bounded by ``timeout`` seconds
    (None or 0: unbounded), stdout sent to stderr, any BaseException contained, the working
    directory put back."""

    def __init__(self, owner: str, timeout: float | None = DEFAULT_PLUGIN_TIMEOUT) -> None:
        self.owner = owner
        self.timeout = timeout if timeout and timeout > 0 else None
        self.broken: str | None = None  # set when a call timed out: later calls fail at once
        try:
            self._cwd: str | None = os.getcwd()
        except OSError:
            self._cwd = None

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
            if STATE.forked_child:  # a child the plugin forked: it runs nothing of kschedctl's
                STATE.real_exit(0)
            self._restore_cwd()

    def _restore_cwd(self) -> None:
        """A plugin's os.chdir() must not move where kschedctl reads and writes relative paths."""
        if self._cwd is None:
            return
        try:
            if os.getcwd() == self._cwd:
                return
        except OSError:  # the plugin removed the directory it was in
            pass
        try:
            os.chdir(self._cwd)
        except OSError:
            pass

    def _timed_out(self) -> PluginFailure:
        self.broken = (
            f"did not return within {go_duration(self.timeout or 0)} (the plugin time limit, "
            f"--plugin-timeout); not called again in this run"
        )
        return PluginFailure(self.broken, timed_out=True)

    def _watched(self, fn: Callable[..., T], args: tuple[Any, ...], limit: float) -> T:
        """The call under the watchdog; a nested call keeps the outer call's deadline too."""
        if not _WATCHDOG.started:
            _WATCHDOG.start()
        call = _Call(self, time.monotonic() + limit, _grace(limit))
        calls = _WATCHDOG.calls
        calls.append(call)
        _WATCHDOG.begun += 1
        if _WATCHDOG.parked:
            _WATCHDOG.unpark()
        if STATE.contained:
            # armed for the earliest deadline now, by this thread: the timers may still be
            # set for a call that has just ended (the watchdog thread moves them at its next
            # look), and a plugin stuck in C code holding the GIL keeps that thread from
            # ever looking again
            _WATCHDOG.keep_armed()
        try:
            out = fn(*args)
        finally:
            calls.remove(call)
            if STATE.contained:
                _WATCHDOG.restore_handler()
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
                records = taken(args) if args else None
                try:
                    out = sandbox.call(value, *args)
                finally:
                    if records:
                        _unchanged(records)
                _check_statuses(out)
                return out

        object.__setattr__(self, attr, wrapped)  # looked up once
        return wrapped

    def __setattr__(self, attr: str, value: Any) -> None:
        setattr(self._plugin, attr, value)

    def __repr__(self) -> str:
        return f"SandboxedPlugin({self._plugin!r})"


def _unchanged(records: list[Any]) -> None:
    """After a sandboxed method call: what it was handed is as it was, or it is put back and the
    call fails (handed.py)."""
    what = changed(records)
    if what is not None:
        raise PluginFailure(f"changed {what}, which it was handed in {{point}} to read; the change was undone", worded=True)


_STATUS: type | None = None


def _check_statuses(out: Any) -> None:
    """A Status a plugin returns (alone, in a pair, in a list) has string reasons; one that does
    not would fail kschedctl's own code far from the plugin, so its call fails here instead."""
    global _STATUS
    if _STATUS is None:
        from kschedctl.framework.interface import Status

        _STATUS = Status
    kind = type(out)
    if kind is tuple or kind is list:
        for item in out:
            if isinstance(item, _STATUS):
                _check_status(item)
    elif isinstance(out, _STATUS):
        _check_status(out)


def _check_status(st: Any) -> None:
    reasons = getattr(st, "reasons", None)
    if type(reasons) is not list:
        bad = f"reasons of type {type(reasons).__name__}"
    else:
        odd = next((r for r in reasons if type(r) is not str), _MISSING)
        if odd is _MISSING:
            return
        bad = f"a reason of type {type(odd).__name__}"
    raise PluginFailure(f"returned a Status with {bad} from {{point}}, expected a list of strings", worded=True)


def sandbox_hint(fn: Callable[..., Any] | None, sandbox: Sandbox) -> Callable[..., Any] | None:
    """A queueing hint function of a sandboxed plugin, sandboxed."""
    if fn is None:
        return None
    return lambda *args: sandbox.call(fn, *args)


__all__ = [
    "DEFAULT_PLUGIN_TIMEOUT",
    "PluginFailure",
    "PluginTimeout",
    "Sandbox",
    "SandboxedPlugin",
    "describe",
    "idle_watchdog",
    "sandbox_hint",
]
