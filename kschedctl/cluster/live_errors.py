"""Errors of the live path, and the one place that keeps secrets out of every message.

Each secret kschedctl reads for a cluster (a bearer token, a password, a client key, an exec
plugin's credential) is registered here as soon as it is read; ``redact`` replaces any of them
in a text. The CLI passes every error line and every --debug traceback through it, so a secret
quoted by a library's message (an HTTP header value, a decoder's excerpt) never reaches stderr.
"""

from __future__ import annotations

import threading

from kschedctl.api.errors import InputError

REDACTED = "<redacted>"
_SECRETS: set[str] = set()
_LOCK = threading.Lock()


def register_secret(value: str | bytes | None) -> None:
    """Remember a secret (and its lines, for multi-line PEM keys) so that ``redact`` hides it."""
    if not value:
        return
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    parts = {text, text.strip()} | {line.strip() for line in text.splitlines() if len(line.strip()) >= 8}
    with _LOCK:
        _SECRETS.update(p for p in parts if len(p) >= 4 and not p.startswith("-----"))


def redact(text: str) -> str:
    """The text with every registered secret replaced by <redacted> (longest first)."""
    with _LOCK:
        secrets = sorted(_SECRETS, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


class LiveClusterError(InputError):
    """The cluster could not be read: one line on stderr and exit 2, like any bad input."""

    def __str__(self) -> str:
        from kschedctl.api.field import escape_control  # a server's words may hold newlines or escapes

        return redact(escape_control(f"{self.file}: {self.message}" if self.file else self.message))


class ApiStatusError(LiveClusterError):
    """The API server answered a GET with an error status (403, 404, ...)."""

    def __init__(self, status: int, message: str, *, detail: str = "", file: str | None = None) -> None:
        super().__init__(message, file=file)
        self.status = status
        self.detail = detail or message  # the status and the server's own words, without the request


__all__ = ["ApiStatusError", "LiveClusterError", "REDACTED", "redact", "register_secret"]
