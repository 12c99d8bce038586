"""Standard output that cannot fail silently, nor with a traceback.

Every command's result goes through :func:`emit`, which writes and flushes at once, so a write
error is met where it happens and not at interpreter exit. :func:`run_app` (the console
scripts' entry) turns it into the command's end:

- the reader went away (EPIPE: ``kschedctl ... | head``): nothing on stderr, exit 141, what a
  shell reports for a program that SIGPIPE ended (``yes | head``): quiet like every Unix tool,
  and never 0, which would hide that the output was cut;
- any other error (ENOSPC: ``> /dev/full``, EIO, EFBIG): one ``error:`` line on stderr, exit 2.

Either way the rest of what was buffered is sent to /dev/null (the descriptor itself is
replaced), so Python's own flush at exit cannot fail a second time.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from typing import Any

from kschedctl.runtime.process import collector_paused

EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE


class StdoutError(Exception):
    """Writing standard output failed (not an OSError: click would turn EPIPE into exit 1)."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(cause.strerror or str(cause))
        self.cause = cause

    @property
    def broken_pipe(self) -> bool:
        return isinstance(self.cause, BrokenPipeError) or self.cause.errno == errno.EPIPE


def emit(text: str) -> None:
    """Write a command's result to standard output, flushed."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as exc:
        raise StdoutError(exc) from None


def emit_rendered(render: Callable[..., str], *args: Any, **kwargs: Any) -> None:
    """``emit(render(*args, **kwargs))``, the rendering with the cyclic collector paused: a
    large result makes many objects and no garbage (runtime/process.py collector_paused)."""
    with collector_paused():
        text = render(*args, **kwargs)
    emit(text)


def _silence_stdout() -> None:
    """Point descriptor 1 at /dev/null: what is still buffered goes nowhere, without error."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(devnull, fd)
    except OSError:
        pass
    finally:
        os.close(devnull)


def _fail_stdout(exc: OSError) -> int:
    _silence_stdout()
    if isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE:
        return EXIT_BROKEN_PIPE
    try:
        sys.stderr.write(f"error: cannot write standard output: {exc.strerror or exc}\n")
        sys.stderr.flush()
    except OSError:
        pass
    return 2


def run_app(app: Any, **kwargs: Any) -> None:
    """Run the typer app (or the fast path's call, kschedctl/cli/fast.py: any callable that ends
    with SystemExit as typer's does); standard output's write errors end it as the module
    docstring says."""
    code: Any = 0
    try:
        app(**kwargs)
    except SystemExit as done:
        code = done.code
    except StdoutError as exc:
        raise SystemExit(_fail_stdout(exc.cause)) from None
    except OSError as exc:  # a write outside emit (click's own output): same rules
        if exc.errno not in (errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT):
            raise
        raise SystemExit(_fail_stdout(exc)) from None
    try:
        sys.stdout.flush()  # what click echoed and is still buffered: said now, not at exit
    except OSError as exc:
        raise SystemExit(_fail_stdout(exc)) from None
    raise SystemExit(code)


def run_process(load: Callable[[], Any]) -> None:
    """The command as a process: guarded against the plugin code it runs (framework/runtime/
    process.py: its own output on a private descriptor, fd 1 and plugin prints on stderr, no
    os._exit or exec by plugin code, no fork child printing a result), standard output's write
    errors ending it as this module says, and ended with the command's status once the result
    is flushed, whatever threads a plugin left running. ``load`` imports what the command
    needs and returns what ``run_app`` runs."""
    from kschedctl.runtime import process

    process.contain()
    code = 1
    try:
        # the command's modules (its options, the scheduler, the renderers): like the input,
        # long-lived objects made with the collector paused, then frozen (process.loading)
        with process.loading():
            app = load()
        run_app(app)
    except SystemExit as exc:
        code = process.exit_code(exc)
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # noqa: BLE001 - the process still ends below, with a traceback
        import traceback  # only here: ~0.7 ms of every run's start, with textwrap

        traceback.print_exc()
    process.finish(code)


__all__ = ["EXIT_BROKEN_PIPE", "StdoutError", "emit", "run_app", "run_process"]
