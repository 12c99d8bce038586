"""The kschedctl process, guarded against the plugin code it runs (set up by the CLI's main()).

The sandbox (sandbox.py) contains what a plugin call does in Python; a plugin can also act on
the process: write to file descriptor 1 or to ``sys.__stdout__``, print from a thread of its
own, leave a non-daemon thread running, fork, call ``os._exit`` or ``os.exec*``. When
kschedctl runs as a command (``main()``, not typer's in-process runner), ``contain()`` sets
the process up so that none of that changes kschedctl's result:

* output: kschedctl's own output goes to a private duplicate of the real standard output;
  file descriptor 1 becomes a duplicate of standard error, and ``sys.stdout`` a router that
  sends kschedctl's writes (the main thread, the original process, outside plugin calls) to
  the private descriptor and everything else to standard error. ``sys.__stdout__`` is
  standard error. A subprocess a plugin starts inherits standard error as its output.
* fork: a child forked by plugin code may run the plugin's code, never kschedctl's: it closes
  the private descriptor at once, writes nothing to it, and ends silently when the plugin call
  it forked in returns (sandbox.py).
* exit: ``os._exit`` and ``os.exec*`` called in the original process by anything but
  kschedctl itself raise ``ExitRefused`` (a SystemExit: a plugin call it interrupts fails that
  pod's attempt; a plugin thread it is raised in ends), so the process never ends, nor is
  replaced, with status 0 before its result is written. ``finish()`` writes and flushes the
  result, then ends the process with the command's status even if plugin threads are still
  running (then with os._exit: no interpreter shutdown waits for them); otherwise the exit
  handlers run first, and os._exit spares the interpreter's teardown (under a profiler or a
  tracer the interpreter unwinds as usual).

What it cannot contain (ctypes calls into libc, signals sent to the process, closing or
re-pointing descriptors with os.dup2): docs/writing-plugins.md, "The trust boundary".
"""

from __future__ import annotations

import atexit
import io
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class ExitRefused(SystemExit):
    """os._exit or os.exec* called by plugin code in the kschedctl process."""


class _State:
    contained = False  # contain() ran: kschedctl is the process (main()), not a library
    pid = 0  # the original process
    forked_child = False  # this process was forked by plugin code
    exiting = False  # finish() is ending the process
    result_fd: int | None = None
    real_exit: Any = staticmethod(os._exit)
    stderr: Any = None
    saved: list[Any] = []  # the original stdout objects, kept open (their fd is 1)
    on_finish: list[Any] = []  # called by finish() first (the sandbox's timers disarmed)


STATE = _State()


class _Router(io.TextIOBase):
    """``sys.stdout`` of a contained process: kschedctl's writes to its result, others' to stderr."""

    def __init__(self, result: io.TextIOWrapper, err: Any) -> None:
        super().__init__()
        self._result = result
        self._err = err
        self._main = threading.main_thread().ident

    def _target(self) -> Any:
        if threading.get_ident() == self._main and not STATE.forked_child and os.getpid() == STATE.pid:
            return self._result
        return self._err

    def write(self, s: str) -> int:
        return self._target().write(s)  # type: ignore[no-any-return]

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._target().flush()

    def fileno(self) -> int:
        return self._result.fileno()

    def isatty(self) -> bool:
        return self._result.isatty()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._result.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self._result.errors

    @property
    def buffer(self) -> Any:
        return self._result.buffer

    @property
    def line_buffering(self) -> bool:
        return self._result.line_buffering


def _refuse(name: str, real: Any) -> Any:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if STATE.exiting or STATE.forked_child or os.getpid() != STATE.pid:
            return real(*args, **kwargs)
        shown = ", ".join(repr(a) for a in args[:1])
        raise ExitRefused(f"os.{name}({shown}) called in the kschedctl process: refused (kschedctl ends only after writing its result)")

    guarded.__name__ = name
    return guarded


def _forked() -> None:
    """In a child forked by plugin code: never kschedctl's output, never the rest of the command."""
    STATE.forked_child = True
    if STATE.result_fd is not None:
        try:
            os.close(STATE.result_fd)
        except OSError:
            pass


def _thread_ended(args: Any) -> None:
    """A thread (a plugin's) ended with an exception: one warning line, not a traceback."""
    if isinstance(args.exc_value, ExitRefused) or args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "?"
    text = " ".join(str(args.exc_value).split())
    try:
        STATE.stderr.write(f"warning: thread {name!r} ended with {args.exc_type.__name__}: {text}\n")
        STATE.stderr.flush()
    except Exception:  # noqa: BLE001 - nothing more to say
        pass


# The cyclic collector's first-generation threshold for the command as a process (CPython's
# default is 700). Loading a 5,000-node file creates ~1.5 M long-lived objects and a run creates
# many short-lived ones per pod; at 700 the young collections run ~1,000 times and drag 7 full
# collections along (0.7 s of 5.2 s CPU on SchedulingBasic 5,000 nodes x 11,000 pods), at 10,000
# the collector costs 0.2 s there and peak RSS moves by a few MiB (PreemptionBasic 1,000 nodes:
# 89 -> 94 MiB). Only the process (main()) sets it: a program importing kschedctl keeps its own.
GC_GEN0_THRESHOLD = 10_000


def tune_collector() -> None:
    """Raise the collector's first-generation threshold (GC_GEN0_THRESHOLD), keeping the others;
    what the collector frees is unchanged, only how often it looks."""
    import gc

    gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(max(GC_GEN0_THRESHOLD, gen0), gen1, gen2)


@contextmanager
def loading() -> Iterator[None]:
    """Around reading the input (and the command's modules, the plugin registry and the
    configuration before it: cli/app.py, app/inputs.py): the cyclic collector paused, then
    what was read frozen out of its sight (gc.freeze) for the rest of the process. Those
    imports made some twenty young collections that found nothing. Loading a large file
    creates ~1 M long-lived objects and almost no garbage (41 unreachable objects after
    SchedulingDaemonset 15,000 nodes x 30,000 pods); the collections run while loading and
    every full collection of the run after it would otherwise walk all of them again. That
    file: 6.1 -> 4.7 s of CPU, the same peak RSS. Only a contained process (main()) does this: a program importing
    kschedctl, or the test runner, keeps its collector as it is."""
    import gc

    with collector_paused() as paused:
        yield
        if paused:
            gc.freeze()


@contextmanager
def collector_paused() -> Iterator[bool]:
    """The cyclic collector paused for a step that makes many objects and no garbage cycles:
    reading the input (loading()), or turning a run's result into the text printed. The result
    of SchedulingDaemonset 15,000 nodes x 30,000 pods as JSON makes ~120,000 dicts and lists;
    the two collections they triggered found nothing and took ~0.1 s of the 0.17 s the
    rendering took. Yields whether it paused: only a contained process (main()) does; a
    program importing kschedctl, or the test runner, keeps its collector as it is."""
    import gc

    if not STATE.contained or not gc.isenabled():
        yield False
        return
    gc.disable()
    try:
        yield True
    finally:
        gc.enable()


def contain() -> None:
    """Set the process up as described above; once, at the start of main(). Also tunes the
    collector for a command's allocation pattern (tune_collector)."""
    if STATE.contained:
        return
    import posix

    tune_collector()

    STATE.contained = True
    STATE.pid = os.getpid()
    STATE.stderr = sys.stderr
    out = sys.stdout
    try:
        out.flush()
        fd = os.dup(1)  # not inheritable: no subprocess gets it
    except (OSError, ValueError, AttributeError):
        fd = None
    if fd is not None:
        try:
            os.dup2(2, 1)
        except OSError:  # no standard error to point fd 1 at: kschedctl's output stays on fd 1
            os.close(fd)
            fd = None
    if fd is not None:
        STATE.result_fd = fd
        STATE.saved = [out, sys.__stdout__]
        result = io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(fd, "w", closefd=True)),  # retries partial writes
            encoding=getattr(out, "encoding", None) or "utf-8",
            errors=getattr(out, "errors", None) or "strict",
            line_buffering=bool(getattr(out, "line_buffering", False)),
        )
        sys.stdout = _Router(result, sys.stderr)
        sys.__stdout__ = sys.stderr  # type: ignore[misc,assignment]
    for name in ("_exit", "execv", "execve"):
        real = getattr(os, name)
        guarded = _refuse(name, real)
        setattr(os, name, guarded)
        if getattr(posix, name, None) is real:
            setattr(posix, name, guarded)
    os.register_at_fork(after_in_child=_forked)
    threading.excepthook = _thread_ended


def exit_code(exc: SystemExit) -> int:
    """The status a SystemExit asks for (Python's rules: None 0, a number, else 1 and the text)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except Exception:  # noqa: BLE001
        pass
    return 1


def finish(code: int) -> None:
    """Flush the result and standard error, then end the process with ``code``: once the exit
    handlers have run when no other thread would hold it up (_end), else at once with os._exit
    (a thread a plugin left running is not waited for)."""
    if STATE.forked_child or os.getpid() != STATE.pid:
        STATE.real_exit(0)
    for fn in STATE.on_finish:
        fn()
    code = _flushed(code)
    main = threading.main_thread()
    if any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate()):
        STATE.exiting = True
        STATE.real_exit(code)
    _end(code)


def _end(code: int) -> None:
    """The interpreter's shutdown without its last part: the exit handlers run (atexit: the
    dataclass code cache saved, temporary directories left open removed, logging flushed),
    the streams are flushed, and os._exit ends the process. The shutdown's last part frees
    every object the run built, one by one (0.4 s after a 15,000-node run), for a process
    that is about to end. Through SystemExit where the handlers cannot be run by name, and
    under a profiler or a tracer (``python -m cProfile``, coverage), which writes what it
    gathered as the interpreter unwinds."""
    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if not callable(run_handlers) or sys.getprofile() is not None or sys.gettrace() is not None:
        raise SystemExit(code)
    run_handlers()
    code = _flushed(code)  # what the handlers wrote
    STATE.exiting = True
    STATE.real_exit(code)


def _flushed(code: int) -> int:
    """Flush the result and standard error; the status to end with (2 when a write failed). A
    closed pipe ends the process at once with ``code``: the reader went away (`| head`), there
    is nothing more to say."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            STATE.exiting = True
            STATE.real_exit(code)
        except (OSError, ValueError):
            code = code or 2
    return code


def end_now(message: str, code: int = 2) -> None:
    """End the process at once from any thread: one line on stderr (written to fd 2 directly,
    taking no lock a stuck thread may hold), then ``code``. For a plugin that cannot be stopped."""
    try:
        os.write(2, message.encode("utf-8", "replace"))
    except OSError:
        pass
    STATE.real_exit(code)


__all__ = ["STATE", "ExitRefused", "collector_paused", "contain", "end_now", "exit_code", "finish", "loading"]
