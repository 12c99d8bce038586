"""Errors raised for bad input; the CLI turns each into one line on stderr and exit code 2."""

from __future__ import annotations


class InputError(Exception):
    """Bad user input: names the file, the object, the field and the line where known."""

    def __init__(self, message: str, *, file: str | None = None, obj: str | None = None,
                 field: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.obj = obj
        self.field = field
        self.line = line

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        parts = [where]
        if self.obj:
            parts.append(self.obj)
        if self.field:
            parts.append(self.field)
        return ": ".join(parts) + ": " + self.message


class ObjectError(ValueError):
    """An invalid field inside one Kubernetes object; the loader adds file and object."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
