"""Go semantics, in one place: integer arithmetic, rounding, durations, %q and field.Error.

kube-scheduler is Go; where it divides, rounds, wraps, prints a duration or a bad value, the
result has to be Go's to the byte. It lives in the api layer (the bottom one: admission and the
API types word their field errors with it) and is public for plugin packages as
``kschedctl.framework.gosemantics`` (``from kschedctl.framework.gosemantics import go_div``).

Upstream: the Go spec (integer division truncates toward zero; int64 arithmetic wraps),
math.Round, time.Duration.String and time.ParseDuration, strconv.Quote (``%q``),
strconv.FormatFloat / fmt ``%v``, and apimachinery/pkg/util/validation/field/errors.go
(Error.ErrorBody, the constructors Invalid, Required, ...).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any, NamedTuple

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


# --- integers -----------------------------------------------------------------------------------
def go_div(a: int, b: int) -> int:
    """a / b on Go integers: the quotient truncated toward zero (Python's // floors).

    Division by zero raises ZeroDivisionError (Go panics).
    """
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def go_mod(a: int, b: int) -> int:
    """a % b on Go integers: the remainder has the sign of the dividend."""
    return a - go_div(a, b) * b


def int64(value: int) -> int:
    """Wrap to int64 as Go's two's complement arithmetic does (MaxInt64 + 1 == MinInt64)."""
    return ((value - INT64_MIN) % (1 << 64)) + INT64_MIN


def int64_div(a: int, b: int) -> int:
    """go_div on int64 operands, wrapped (MinInt64 / -1 == MinInt64)."""
    return int64(go_div(a, b))


def clamp_int64(value: int) -> int:
    """Saturate to the int64 range (where upstream checks for overflow and caps)."""
    return INT64_MAX if value > INT64_MAX else INT64_MIN if value < INT64_MIN else value


def is_int64(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


# --- floats -------------------------------------------------------------------------------------
def go_round(x: float) -> int:
    """math.Round: the nearest integer, halves away from zero (Python's round() goes to even)."""
    if x < 0:
        return -go_round(-x)
    f = math.floor(x)
    return int(f) + 1 if x - f >= 0.5 else int(f)


def go_format_float(value: float) -> str:
    """fmt's %v of a float64: strconv's shortest 'g' form, in exponent form when the exponent
    is < -4 or >= 6 (0.5, 100, 123456, 1e+06, 1.5e-05, +Inf)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    # repr is the shortest round-trip form, as strconv's shortest formatting
    _, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    stripped = digits.rstrip("0")
    exponent = int(exponent) + len(digits) - len(stripped)
    digits = stripped
    exp = len(digits) - 1 + exponent  # scientific exponent: d.ddd x 10^exp
    if exp < -4 or exp >= 6:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if exp < 0:
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    if len(digits) <= exp + 1:
        return f"{sign}{digits}{'0' * (exp + 1 - len(digits))}"
    return f"{sign}{digits[: exp + 1]}.{digits[exp + 1 :]}"


# --- durations ----------------------------------------------------------------------------------
_NS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 1_000_000_000, "m": 60_000_000_000, "h": 3_600_000_000_000}
_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")


def _frac(value: int, prec: int) -> tuple[str, int]:
    """time.fmtFrac: the fraction digits of value / 10**prec without trailing zeros, and the rest."""
    digits = ""
    printed = False
    for _ in range(prec):
        digit = value % 10
        printed = printed or digit != 0
        if printed:
            digits = str(digit) + digits
        value //= 10
    return ("." + digits if printed else ""), value


def go_duration_ns(ns: int) -> str:
    """time.Duration(ns).String(): "0s", "1.5s", "5m0s", "1h0m0s", "500ms", "1.5µs", "10ns"."""
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    u = abs(ns)
    if u < 1_000_000_000:
        if u < 1_000:
            return f"{sign}{u}ns"
        frac, whole = _frac(u, 3) if u < 1_000_000 else _frac(u, 6)
        return f"{sign}{whole}{frac}{'µs' if u < 1_000_000 else 'ms'}"
    frac, secs = _frac(u, 9)
    out = f"{secs % 60}{frac}s"
    minutes = secs // 60
    if minutes:
        out = f"{minutes % 60}m{out}"
        hours = minutes // 60
        if hours:
            out = f"{hours}h{out}"
    return sign + out


def go_duration(seconds: float) -> str:
    """go_duration_ns of a duration given in (float) seconds."""
    return go_duration_ns(int(round(seconds * 1e9)))


def parse_duration(text: str) -> float:
    """time.ParseDuration, in seconds; raises ValueError with Go's message."""
    sign = -1.0 if text[:1] == "-" else 1.0
    body = text[1:] if text[:1] in ("+", "-") else text
    if body == "0":
        return 0.0
    if not body:
        raise ValueError(f"time: invalid duration {go_quote(text)}")
    pos, total = 0, 0.0
    while pos < len(body):
        m = _DURATION_PART.match(body, pos)
        if not m or m.group(1) in ("", "."):
            raise ValueError(f"time: invalid duration {go_quote(text)}")
        total += float(m.group(1)) * _NS[m.group(2)] / 1e9
        pos = m.end()
    return sign * total


def parse_go_duration(text: Any) -> float | None:
    """parse_duration, None when it does not parse (or is not a string)."""
    if not isinstance(text, str):
        return None
    try:
        return parse_duration(text)
    except ValueError:
        return None


# --- %q and field.Error values ------------------------------------------------------------------
_SIMPLE_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", "\\": "\\\\", '"': '\\"'}


def go_quote(text: str) -> str:
    """strconv.Quote (fmt %q): double quotes, Go escapes, printable Unicode kept as is."""
    out = ['"']
    for ch in text:
        esc = _SIMPLE_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch == " " or ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            if code < 0x20 or code == 0x7F:
                out.append(f"\\x{code:02x}")
            elif code < 0x10000:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def go_json(value: Any) -> str:
    """encoding/json.Marshal: compact, map keys sorted, HTML characters escaped."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_json_default)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _json_default(value: Any) -> Any:
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return str(value)


def go_value(value: Any) -> str:
    """How field.Error.ErrorBody prints a bad value: bool and numbers with %v, strings with %q,
    anything else as JSON (nil as null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_format_float(value)
    if isinstance(value, str):
        return go_quote(value)
    if value is None:
        return "null"
    return go_json(value)


class FieldError(NamedTuple):
    """field.Error as (path, body): ``str()`` is upstream's Error(), ``body`` its ErrorBody().

    A tuple, so that validators returning ``[(path, message)]`` and these compare equal.
    """

    field: str
    body: str

    def __str__(self) -> str:
        return f"{self.field}: {self.body}" if self.field else self.body


def _with_detail(body: str, detail: str) -> str:
    return f"{body}: {detail}" if detail else body


def invalid(path: str, value: Any, detail: str = "") -> FieldError:
    """field.Invalid."""
    return FieldError(path, _with_detail(f"Invalid value: {go_value(value)}", detail))


def required(path: str, detail: str = "") -> FieldError:
    """field.Required."""
    return FieldError(path, _with_detail("Required value", detail))


def forbidden(path: str, detail: str = "") -> FieldError:
    """field.Forbidden."""
    return FieldError(path, _with_detail("Forbidden", detail))


def duplicate(path: str, value: Any) -> FieldError:
    """field.Duplicate."""
    return FieldError(path, f"Duplicate value: {go_value(value)}")


def not_found(path: str, value: Any, detail: str = "") -> FieldError:
    """field.NotFound."""
    return FieldError(path, _with_detail(f"Not found: {go_value(value)}", detail))


def not_supported(path: str, value: Any, valid: Iterable[str]) -> FieldError:
    """field.NotSupported: the supported values quoted, in the order given."""
    listed = ", ".join(go_quote(v) for v in valid)
    body = f"Unsupported value: {go_value(value)}"
    return FieldError(path, f"{body}: supported values: {listed}" if listed else body)


def internal(path: str, detail: str) -> FieldError:
    """field.InternalError."""
    return FieldError(path, _with_detail("Internal error", detail))


def aggregate(errors: Iterable[FieldError | tuple[str, str]]) -> str:
    """ErrorList.ToAggregate().Error(): one error plain, several in brackets, comma separated;
    a message already listed is not repeated (both ToAggregate and aggregate.Error skip it)."""
    parts = list(dict.fromkeys(str(FieldError(*e)) for e in errors))
    return parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"


__all__ = [
    "FieldError",
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "INT64_MIN",
    "aggregate",
    "clamp_int64",
    "duplicate",
    "forbidden",
    "go_div",
    "go_duration",
    "go_duration_ns",
    "go_format_float",
    "go_json",
    "go_mod",
    "go_quote",
    "go_round",
    "go_value",
    "int64",
    "int64_div",
    "internal",
    "invalid",
    "is_int64",
    "not_found",
    "not_supported",
    "parse_duration",
    "parse_go_duration",
    "required",
]
