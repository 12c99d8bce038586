"""apimachinery's field.Error: a field path, an error type, the bad value and a detail.

Upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go. ErrorBody
renders simple values with %v, strings with %q (Go's strconv.Quote: control characters
escaped, so a value can never break an error line) and anything else as JSON; the detail
follows after ": ". kschedctl prints the path apart from the body (file: object: path: body).

``escape_control`` applies the same escaping to free text (names in tables and error lines):
C0/C1 control characters, DEL and the Unicode line and paragraph separators become Go-style
escapes, so a name can neither start a new line nor move the cursor.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Iterable

REQUIRED = "Required value"
INVALID = "Invalid value"
NOT_SUPPORTED = "Unsupported value"
DUPLICATE = "Duplicate value"
FORBIDDEN = "Forbidden"
TOO_LONG = "Too long"
NOT_FOUND = "Not found"

_VALUE_LIMIT = 256  # characters of a rendered non-scalar bad value (kube prints it whole)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group(0)
    named = _NAMED_ESCAPES.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def escape_control(text: str) -> str:
    """Control characters (C0, DEL, C1, U+2028/2029) as Go escapes; everything else unchanged."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_escape_char, text)


def go_quote(text: str) -> str:
    """strconv.Quote: double-quoted, with \\" \\\\ and non-printable characters escaped."""
    out = ['"']
    for ch in text:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ch in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[ch])
        else:
            code = ord(ch)
            if code < 0x80:
                out.append(f"\\x{code:02x}")
            elif code < 0x10000:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def render_value(value: Any) -> str:
    """ErrorBody's rendering of a bad value: %v for numbers and booleans, %q for strings, JSON
    for the rest (cut to a few hundred characters: a message stays one readable line)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) < 10**30 else f"{str(value)[:30]}...({len(str(abs(value)))} digits)"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    if isinstance(value, str):
        if len(value) > _VALUE_LIMIT:
            return go_quote(value[:_VALUE_LIMIT]) + f"...({len(value)} characters)"
        return go_quote(value)
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):
        text = f"<{type(value).__name__}>"
    text = escape_control(text)
    return text if len(text) <= _VALUE_LIMIT else text[:_VALUE_LIMIT] + "..."


@dataclass(frozen=True, slots=True)
class FieldError:
    """One field.Error; ``body`` is ErrorBody() (type, value, detail), ``path`` the field path."""

    path: str
    body: str

    def __str__(self) -> str:
        return f"{self.path}: {self.body}" if self.path else self.body


def _with_detail(body: str, detail: str) -> str:
    return f"{body}: {detail}" if detail else body


def invalid(path: str, value: Any, detail: str = "") -> FieldError:
    return FieldError(path, _with_detail(f"{INVALID}: {render_value(value)}", detail))


def required(path: str, detail: str = "") -> FieldError:
    return FieldError(path, _with_detail(REQUIRED, detail))


def forbidden(path: str, detail: str = "") -> FieldError:
    return FieldError(path, _with_detail(FORBIDDEN, detail))


def duplicate(path: str, value: Any, detail: str = "") -> FieldError:
    return FieldError(path, _with_detail(f"{DUPLICATE}: {render_value(value)}", detail))


def not_found(path: str, value: Any, detail: str = "") -> FieldError:
    return FieldError(path, _with_detail(f"{NOT_FOUND}: {render_value(value)}", detail))


def not_supported(path: str, value: Any, valid: Iterable[str]) -> FieldError:
    """field.NotSupported: the supported values quoted and comma-separated."""
    listed = ", ".join(go_quote(v) for v in valid)
    return FieldError(path, f"{NOT_SUPPORTED}: {render_value(value)}: supported values: {listed}")


def too_long(path: str, limit: int) -> FieldError:
    """field.TooLong with an omitted value: "Too long: may not be more than N bytes"."""
    return FieldError(path, f"{TOO_LONG}: may not be more than {limit} bytes")


__all__ = [
    "FieldError", "duplicate", "escape_control", "forbidden", "go_quote", "invalid", "not_found",
    "not_supported", "render_value", "required", "too_long",
]
