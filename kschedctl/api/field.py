"""field.Error for admission and error lines: kschedctl.api.gosemantics (the one home of
Go's %q and field.Error) plus what reporting bad input needs on top.

Upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go. Two additions:
- bad values are shown bounded (a 200 KiB annotation is cut to a few hundred characters; kube
  prints it whole), so an error stays one readable line;
- ``escape_control`` escapes free text (names in tables and error lines) as %q would escape it:
  C0/C1 control characters, DEL and the Unicode line and paragraph separators become Go-style
  escapes, so a name can neither start a new line nor move the cursor.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from kschedctl.api import gosemantics
from kschedctl.api.gosemantics import FieldError, go_quote

VALUE_LIMIT = 256  # characters of a shown bad value
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escape_control(text: str) -> str:
    """Control characters (C0, DEL, C1, U+2028/2029) as Go escapes; everything else unchanged."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(lambda m: go_quote(m.group(0))[1:-1], text)


def shown(value: Any) -> Any:
    """The value as an error shows it: long strings and containers cut (their JSON, cut, as text)."""
    if isinstance(value, str):
        return value if len(value) <= VALUE_LIMIT else value[:VALUE_LIMIT] + f"...({len(value)} characters)"
    if isinstance(value, (dict, list)):
        try:
            text = gosemantics.go_json(value)
        except (ValueError, TypeError, RecursionError):
            return f"<{type(value).__name__}>"
        return value if len(text) <= VALUE_LIMIT else text[:VALUE_LIMIT] + "..."
    return value


def render_value(value: Any) -> str:
    """ErrorBody's rendering of a (bounded) bad value: %v, %q or JSON."""
    value = shown(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"{str(value)[:30]}...({len(str(abs(value)))} digits)"
    return gosemantics.go_value(value)


def invalid(path: str, value: Any, detail: str = "") -> FieldError:
    return FieldError(path, f"Invalid value: {render_value(value)}" + (f": {detail}" if detail else ""))


def duplicate(path: str, value: Any, detail: str = "") -> FieldError:
    return FieldError(path, f"Duplicate value: {render_value(value)}" + (f": {detail}" if detail else ""))


def not_found(path: str, value: Any, detail: str = "") -> FieldError:
    return FieldError(path, f"Not found: {render_value(value)}" + (f": {detail}" if detail else ""))


def not_supported(path: str, value: Any, valid: Iterable[str]) -> FieldError:
    return gosemantics.not_supported(path, shown(value), valid)


def too_long(path: str, limit: int) -> FieldError:
    """field.TooLong with the value omitted: "Too long: may not be more than N bytes"."""
    return FieldError(path, f"Too long: may not be more than {limit} bytes")


required = gosemantics.required
forbidden = gosemantics.forbidden

__all__ = [
    "FieldError",
    "duplicate",
    "escape_control",
    "forbidden",
    "go_quote",
    "invalid",
    "not_found",
    "not_supported",
    "render_value",
    "required",
    "shown",
    "too_long",
]
