"""An extender's answer read as Go's encoding/json reads the extender types into kube-scheduler.

Upstream: k8s.io/kube-scheduler/extender/v1 (the types: no JSON tags, so Go's field names,
matched case-insensitively) and encoding/json (json.NewDecoder(body).Decode: the first value of
the body, the scanner's syntax errors, UnmarshalTypeError's wording). The text is decoded as
strictly as every JSON input of kschedctl (kschedctl.api.json_decoding: NaN and Infinity
refused, nesting bounded at MAX_DEPTH levels), then each field checked for the Go type it fills.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from kschedctl.api.json_decoding import MAX_DEPTH, DecodeError, load_json
from kschedctl.framework.gosemantics import INT64_MAX, INT64_MIN
from kschedctl.scheduler.extender_http import ExtenderError

MISSING = object()  # a struct field the answer does not have


def get(obj: dict[str, Any], name: str) -> Any:
    """A struct field: its exact key, else any key equal to it ignoring case (the last one wins)."""
    value = MISSING
    for key, v in obj.items():
        if key == name or key.lower() == name.lower():
            value = v
    return value


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _mismatch(value: Any, where: str, go_type: str, *, top: bool = False, shown: str | None = None) -> ExtenderError:
    """UnmarshalTypeError's text: a struct field's path, an element's path (``Struct.Field.0``,
    as the Go the oracle is built with words it), or the top-level value."""
    what = shown or _kind(value)
    if top:
        return ExtenderError(f"json: cannot unmarshal {what} into Go value of type {go_type}")
    if where.rsplit(".", 1)[-1].isdigit():
        return ExtenderError(f"json: cannot unmarshal {what} into {where} of type {go_type}")
    return ExtenderError(f"json: cannot unmarshal {what} into Go struct field {where} of type {go_type}")


def go_object(value: Any, go_type: str, where: str | None = None) -> dict[str, Any]:
    """A JSON object for a struct (or map) of ``go_type``; ``where`` names the field it is in
    (None: the top-level value)."""
    if value is None or value is MISSING:
        return {}
    if not isinstance(value, dict):
        raise _mismatch(value, where or go_type, go_type, top=where is None)
    return value


def go_array(value: Any, where: str, go_type: str, top: bool = False) -> list[Any]:
    if value is None or value is MISSING:
        return []
    if not isinstance(value, list):
        raise _mismatch(value, where, go_type, top=top)
    return value


def go_string(value: Any, where: str) -> str:
    if value is None or value is MISSING:
        return ""
    if not isinstance(value, str):
        raise _mismatch(value, where, "string")
    return value


def go_int64(value: Any, where: str) -> int:
    """An int64 field: an integer literal in range (Go refuses 1.0, 1e2 and 2**63 there)."""
    if value is None or value is MISSING:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _mismatch(value, where, "int64")
    if isinstance(value, float) or not INT64_MIN <= value <= INT64_MAX:
        raise _mismatch(value, where, "int64", shown=f"number {value}")
    return int(value)


def failed_map(value: Any, where: str) -> dict[str, str]:
    if value is None or value is MISSING:
        return {}
    if not isinstance(value, dict):
        raise _mismatch(value, f"ExtenderFilterResult.{where}", "v1.FailedNodesMap")
    return {str(k): go_string(v, f"ExtenderFilterResult.{where}") for k, v in value.items()}


_GO_SPACE = " \t\r\n"  # encoding/json's isSpace
_NUMBER_TAIL = re.compile(r"-?[0-9]*(\.[0-9]*)?([eE][-+]?[0-9]*)?")


class _GoSyntaxError(ValueError):
    """A literal Go's scanner refuses where Python's accepts it (NaN, Infinity)."""


_CONSTANTS = {
    "NaN": "invalid character 'N' looking for beginning of value",
    "Infinity": "invalid character 'I' looking for beginning of value",
    "-Infinity": "invalid character 'I' in numeric literal",
}


def _refuse_constant(name: str) -> Any:
    raise _GoSyntaxError(_CONSTANTS.get(name, "invalid character looking for beginning of value"))


_FIRST_VALUE = json.JSONDecoder(parse_constant=_refuse_constant)
_DEPTH_ERROR = f"json: nested deeper than {MAX_DEPTH} levels (kschedctl's limit)"


def decode(payload: bytes, cut: ExtenderError | None = None) -> Any:
    """json.NewDecoder(body).Decode: the first JSON value of the body, Go's messages for an
    empty body and for syntax errors. ``cut`` is what stopped the body short (the deadline or
    an early close): as Go's decoder, an object or array that ended before it is kept, and the
    cut's error is the answer when the value was incomplete."""
    text = payload.decode("utf-8", errors="replace").lstrip(_GO_SPACE)
    if not text:
        raise cut or ExtenderError("EOF")
    if cut is None:
        try:  # the usual answer: the whole body one value, strictly decoded (orjson when installed)
            return load_json(text)
        except DecodeError as exc:
            if "nested too deeply" in exc.message:
                raise ExtenderError(_DEPTH_ERROR) from None
    elif text[0] not in "{[":
        raise cut  # Go's decoder needs the byte after a number, string or literal to end it
    return _first_value(text, cut)


def _first_value(text: str, cut: ExtenderError | None) -> Any:
    """The first value of ``text`` (trailing bytes ignored, as Decode ignores them), NaN refused
    and nesting bounded as load_json does; an incomplete value is the cut's error, or
    ``unexpected EOF`` (the body ended)."""
    previous = sys.getrecursionlimit()
    depth, frame = 0, sys._getframe()
    while frame is not None:
        frame, depth = frame.f_back, depth + 1  # type: ignore[assignment]
    sys.setrecursionlimit(depth + MAX_DEPTH + 16)
    try:
        return _FIRST_VALUE.raw_decode(text)[0]
    except RecursionError:
        raise ExtenderError(_DEPTH_ERROR) from None
    except _GoSyntaxError as exc:
        raise ExtenderError(str(exc)) from None
    except json.JSONDecodeError as exc:
        if _incomplete(text, exc):
            raise cut or ExtenderError("unexpected EOF") from None
        char = text[exc.pos]
        if exc.msg.startswith("Expecting value"):
            raise ExtenderError(f"invalid character {_go_char(char)} looking for beginning of value") from None
        raise ExtenderError(f"invalid character {_go_char(char)} {_go_context(exc.msg)}") from None
    except ValueError:  # an integer literal longer than Python converts (4300 digits)
        raise ExtenderError("json: a number literal too long to read (over 4300 digits)") from None
    finally:
        sys.setrecursionlimit(previous)


def _incomplete(text: str, exc: json.JSONDecodeError) -> bool:
    """Whether the text stops inside a value rather than at a wrong byte: only whitespace, an
    unterminated string or the start of a number or literal follows the error's position."""
    rest = text[exc.pos :].rstrip(_GO_SPACE)
    if not rest or exc.msg.startswith("Unterminated string"):
        return True
    if exc.msg.startswith("Invalid \\uXXXX escape") and len(text) - exc.pos <= 5:
        return True
    if any(word.startswith(rest) for word in ("true", "false", "null")):
        return True
    return _NUMBER_TAIL.fullmatch(rest) is not None


def _go_char(c: str) -> str:
    """quoteChar: 'x', with \\' and \\" escaped as Go does."""
    if c == "'":
        return "'\\''"
    if c == '"':
        return "'\"'"
    return repr(c) if not c.isprintable() else f"'{c}'"


def _go_context(python_msg: str) -> str:
    """The scanner's step names for the common cases (Go's decode_test wording)."""
    if "delimiter" in python_msg and "," in python_msg:
        return "after object key:value pair" if "object" in python_msg or "}" in python_msg else "after array element"
    if "property name" in python_msg:
        return "looking for beginning of object key string"
    if "':'" in python_msg:
        return "after object key"
    return "after top-level value"


__all__ = ["MISSING", "decode", "get", "go_array", "go_int64", "go_object", "go_string", "failed_map"]
