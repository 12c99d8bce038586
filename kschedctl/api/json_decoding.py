"""JSON texts into documents, as boundedly as the API server decodes them (kschedctl.api.decoding,
which re-exports these names, reads YAML the same way).

orjson when installed (extra "fast"), else the standard library; either way NaN and Infinity are
refused (JSON has no such numbers), and so is nesting deeper than MAX_DEPTH levels, whatever the
process's recursion limit or orjson's release. Errors carry the line when the parser gives one.
This module imports no YAML code: a run that reads only JSON files never loads PyYAML.
"""

from __future__ import annotations

import json
import sys
from typing import Any

try:  # a fast JSON parser when installed (extra "fast")
    import orjson

    _orjson_loads: Any = orjson.loads
    _orjson_dumps: Any = orjson.dumps
except ImportError:  # pragma: no cover
    _orjson_loads = _orjson_dumps = None

MAX_DEPTH = 512


class DecodeError(ValueError):
    """A document that is not acceptable JSON-shaped data; ``line`` is 1-based when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _stack_depth() -> int:
    """How many Python frames are on the stack now (what the recursion limit counts)."""
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1  # type: ignore[assignment]
    return depth


def _stdlib_json(text: str) -> Any:
    """json.loads with nesting bounded whatever the process's recursion limit is.

    The C decoder counts each array/object level against the recursion limit, and a library
    may have raised that limit; so it is set, for the call, to about MAX_DEPTH levels above here.
    """
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + MAX_DEPTH + 16)
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    finally:
        sys.setrecursionlimit(previous)


def _nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether containers nest more than `limit` levels, walked level by level (no recursion)."""
    level, depth = [value], 0
    while level:
        depth += 1
        if depth > limit:
            return True
        children: list[Any] = []
        for container in level:
            items = container.values() if type(container) is dict else container
            children.extend(item for item in items if type(item) is dict or type(item) is list)
        level = children
    return False


def _orjson(text: str) -> Any:
    """orjson.loads with the same MAX_DEPTH bound as every other path.

    orjson's own bound differs by release (none before 3.9, 1,024 levels since), so the value is
    checked here. orjson.dumps refuses over 254 levels in C, at a small share of the load's cost;
    only a document it refuses is walked in Python to find its real depth.
    """
    value = _orjson_loads(text)
    try:
        _orjson_dumps(value)
    except Exception:  # noqa: BLE001 - too deep for dumps, or a value it cannot write: walk it
        if isinstance(value, (dict, list)) and _nested_deeper_than(value, MAX_DEPTH):
            raise RecursionError from None
    return value


def load_json(text: str) -> Any:
    """A JSON text, refusing NaN/Infinity and over-deep nesting; errors carry the line."""
    try:
        if _orjson_loads is not None:
            return _orjson(text)
        return _stdlib_json(text)
    except RecursionError:
        raise DecodeError("malformed JSON: nested too deeply") from None
    except ValueError as exc:
        raise DecodeError(f"malformed JSON: {exc}", getattr(exc, "lineno", None)) from None


__all__ = ["DecodeError", "MAX_DEPTH", "load_json"]
