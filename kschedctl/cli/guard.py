"""How a command ends on bad input, and how it speaks on stderr: one `error:` line and exit 2
(a traceback only with --debug), `warning:` lines, control characters escaped.

No typer here: the commands' bodies (kschedctl/cli/bodies/) use this module on the command
line's fast path (kschedctl/cli/fast.py), which never imports typer. A command ends with a
status by raising SystemExit, which click lets through and the process ends with, as it does
with its own Exit."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn, TypeVar

from kschedctl.api.field import escape_control

T = TypeVar("T")


def echo_err(line: str) -> None:
    """``line`` and a newline on stderr, flushed. Under typer this is click's echo; without it
    (the fast path) the same bytes written to the stream itself: click's echo changes a line only
    when the stream's encoding is ASCII (the fast path leaves such a process to typer) or the
    line holds ANSI escapes (every line said here has its control characters escaped)."""
    typer = sys.modules.get("typer")
    if typer is not None:
        typer.echo(line, err=True)
        return
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr, whatever the message holds (control characters escaped)."""
    echo_err(f"error: {escape_control(message)}")
    raise SystemExit(code)


def say(line: str) -> None:
    """A line on stderr, as kschedctl.app says it (kschedctl/app/__init__.py), escaped."""
    echo_err(escape_control(line))


def _command_exit(exc: BaseException) -> bool:
    """click's Exit (typer.Exit), which a command's own code may raise to end with a status: an
    Exception, so it would otherwise be taken for an internal error."""
    exit_type = getattr(sys.modules.get("typer"), "Exit", None)
    return exit_type is not None and isinstance(exc, exit_type)


def warn(text: str) -> None:
    say(f"warning: {text}")


def guarded(debug: bool, fn: Callable[[], T]) -> T:
    """Bad input becomes one line on stderr and exit 2; a traceback only with --debug."""
    from kschedctl.app.errors import input_errors

    errors = input_errors()
    try:
        return fn()
    except errors as exc:
        if debug:
            _print_exc()
        fail(str(exc))
    except RecursionError:
        if debug:
            _print_exc()
        fail("input nested too deeply to process")
    except Exception as exc:  # noqa: BLE001 - last line of defence: never a bare traceback
        if _command_exit(exc):
            raise
        if debug:
            _print_exc()
        fail(f"internal error: {type(exc).__name__}: {safe_str(exc)} (run with --debug for details)")


def _print_exc() -> None:
    """The exception being handled, with its traceback, on stderr (--debug). traceback is
    imported only here: with textwrap, ~0.7 ms of every run's start."""
    import traceback

    traceback.print_exc()


def safe_str(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - an exception whose str() fails
        return "<unprintable>"
    return text if len(text) <= 500 else text[:500] + "..."
