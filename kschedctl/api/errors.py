"""Errors raised for bad input; the CLI turns each into one line on stderr and exit code 2."""

from __future__ import annotations

_SHOWN_AS: dict[str, str] = {}


def show_file_as(path: str, name: str | None) -> None:
    """Errors about ``path`` name ``name`` instead (None: forget): a --live run's temporary snapshot
    is named after the cluster it came from, not after a file the user never saw."""
    if name is None:
        _SHOWN_AS.pop(path, None)
    else:
        _SHOWN_AS[path] = name


class InputError(Exception):
    """Bad user input: names the file, the object, the field and the line where known.

    ``str()`` is always exactly one line: control characters of any part (a name holding a
    newline or an ANSI escape, a message quoting one) are escaped."""

    def __init__(
        self, message: str, *, file: str | None = None, obj: str | None = None, field: str | None = None, line: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.obj = obj
        self.field = field
        self.line = line

    def __str__(self) -> str:
        from kschedctl.api.field import escape_control  # here: kschedctl.framework imports this module

        where = _SHOWN_AS.get(str(self.file), str(self.file)) if self.file else "<input>"
        if self.line is not None:
            where += f":{self.line}"
        parts = [where]
        if self.obj:
            parts.append(str(self.obj))
        if self.field:
            parts.append(str(self.field))
        return escape_control(": ".join(parts) + ": " + str(self.message))


class ObjectError(ValueError):
    """An invalid field inside one Kubernetes object; the loader adds file and object."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
