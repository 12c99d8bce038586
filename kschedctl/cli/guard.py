"""How a command ends on bad input, and how it speaks on stderr: one `error:` line and exit 2
(a traceback only with --debug), `warning:` lines, control characters escaped."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import NoReturn, TypeVar

import typer

from kschedctl.api.field import escape_control

T = TypeVar("T")


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr, whatever the message holds (control characters escaped)."""
    typer.echo(f"error: {escape_control(message)}", err=True)
    raise typer.Exit(code)


def say(line: str) -> None:
    """A line on stderr, as kschedctl.app says it (kschedctl/app/__init__.py), escaped."""
    typer.echo(escape_control(line), err=True)


def warn(text: str) -> None:
    say(f"warning: {text}")


def guarded(debug: bool, fn: Callable[[], T]) -> T:
    """Bad input becomes one line on stderr and exit 2; a traceback only with --debug."""
    from kschedctl.app.errors import input_errors

    errors = input_errors()
    try:
        return fn()
    except typer.Exit:
        raise
    except errors as exc:
        if debug:
            traceback.print_exc()
        fail(str(exc))
    except RecursionError:
        if debug:
            traceback.print_exc()
        fail("input nested too deeply to process")
    except Exception as exc:  # noqa: BLE001 - last line of defence: never a bare traceback
        if debug:
            traceback.print_exc()
        fail(f"internal error: {type(exc).__name__}: {safe_str(exc)} (run with --debug for details)")


def safe_str(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - an exception whose str() fails
        return "<unprintable>"
    return text if len(text) <= 500 else text[:500] + "..."
