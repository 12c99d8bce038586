"""Reading an input file, where ``-`` means standard input, for every command's file arguments.

Standard input can be read only once, yet one command may look at its text twice (``validate``'s
checks, then the loader; a line look-up for an error message): the text read is kept for the
stream it came from, so every reader of ``-`` in one command sees the same text.
"""

from __future__ import annotations

import sys
from typing import Any

from kschedctl.api.errors import InputError

STDIN = "-"

_read: tuple[Any, str] | None = None  # (the stdin stream, its text)


def read_text(path: str) -> str:
    """The text of ``path`` (``-``: standard input); an unreadable file is an InputError naming it."""
    if path == STDIN:
        return read_stdin()
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read: not UTF-8 text ({exc.reason})", file=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=path) from None


def read_stdin() -> str:
    """Standard input's text, read on first use and kept for later readers of the same stream."""
    global _read
    stream = sys.stdin
    if _read is not None and _read[0] is stream:
        return _read[1]
    if stream is None:  # no standard input at all (a daemon, a closed descriptor): not an empty file
        raise InputError("standard input is closed", file=STDIN)
    try:
        text = stream.read()
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read standard input: {exc}", file=STDIN) from None
    _read = (stream, text)
    return text


def check_stdin_once(**arguments: str | list[str] | None) -> None:
    """``-`` given to two arguments (say a snapshot and ``--config``) would read one stream
    twice: say which, before anything is read."""
    users = []
    for name, value in arguments.items():
        values = value if isinstance(value, list) else [value]
        users += [name] * sum(1 for v in values if v == STDIN)
    if len(users) > 1:
        raise InputError(f"standard input (-) given {len(users)} times ({', '.join(users)}): it can be read only once")


__all__ = ["STDIN", "check_stdin_once", "read_stdin", "read_text"]
