"""The functions of Kubernetes' CEL environment, with their signatures and runtime costs.

What apiserver/pkg/cel/environment/base.go enables (StoredExpressions, i.e. everything):
the CEL standard library, ext.Strings(v2), ext.Sets, ext.Lists(v3), ext.TwoVarComprehensions,
optional types, and Kubernetes' Lists, Regex, Quantity and Semver libraries. The URL, IP,
CIDR, Format and Authz libraries are declared but refused at compile time as not modelled:
they do not occur in device selectors. Costs follow cel-go interpreter/runtimecost.go and
apiserver/pkg/cel/library/cost.go.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kschedctl.dra.cel import k8slib
from kschedctl.dra.cel.values import (
    OPTIONAL_NONE,
    Bytes,
    CelError,
    CelType,
    Optional,
    Quantity,
    Semver,
    UInt,
    cel_compare,
    cel_equal,
    check_int,
    check_uint,
    map_find,
    type_name,
)

STRING_TRAVERSAL = 0.1
REGEX_LENGTH = 0.25


@dataclass(frozen=True, slots=True)
class Overload:
    params: tuple[str, ...]  # signature types: int uint double string bytes bool null list(A) map(A,B) Q S A B dyn opt(A) type
    result: str
    impl: Callable[..., Any]
    member: bool = False


def size_of(v: Any) -> int:
    """actualSize: the size of strings (runes), bytes, lists and maps; 1 otherwise."""
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v)
    if isinstance(v, Optional) and v.has:
        return size_of(v.value)
    return 1


def _ceil(x: float) -> int:
    return int(math.ceil(x))


def is_of_kind(v: Any, kind: str) -> bool:
    """Is the value of the CEL type an overload's parameter names ("dyn" and the type
    parameters A and B take anything)?"""
    if kind in ("dyn", "A", "B"):
        return True
    if kind == "int":
        return isinstance(v, int) and not isinstance(v, (bool, UInt))
    if kind == "uint":
        return isinstance(v, UInt)
    if kind == "double":
        return isinstance(v, float)
    if kind == "string":
        return isinstance(v, str)
    if kind == "bytes":
        return isinstance(v, bytes)
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "null":
        return v is None
    if kind.startswith("list"):
        return isinstance(v, (list, tuple))
    if kind.startswith("map"):
        return isinstance(v, dict)
    if kind == "Q":
        return isinstance(v, Quantity)
    if kind == "S":
        return isinstance(v, Semver)
    if kind.startswith("opt"):
        return isinstance(v, Optional)
    if kind == "type":
        return isinstance(v, CelType)
    return False


def dispatch(name: str, overloads: list[Overload], args: list[Any]) -> Any:
    for ov in overloads:
        if len(ov.params) == len(args) and all(is_of_kind(a, p) for a, p in zip(args, ov.params)):
            return ov.impl(*args)
    raise CelError("no such overload")


# --- arithmetic ----------------------------------------------------------------------------------


def _div_int(a: int, b: int) -> int:
    if b == 0:
        raise CelError("division by zero")
    q = abs(a) // abs(b)
    return check_int(q if (a >= 0) == (b >= 0) else -q)


def _mod_int(a: int, b: int) -> int:
    if b == 0:
        raise CelError("modulus by zero")
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def _div_uint(a: int, b: int) -> UInt:
    if b == 0:
        raise CelError("division by zero")
    return UInt(a // b)


def _mod_uint(a: int, b: int) -> UInt:
    if b == 0:
        raise CelError("modulus by zero")
    return UInt(a % b)


def _in(x: Any, container: Any) -> bool:
    if isinstance(container, (list, tuple)):
        return any(cel_equal(x, e) for e in container)
    if isinstance(container, dict):
        return map_find(container, x)[0]
    raise CelError("no such overload")


def _index(c: Any, i: Any) -> Any:
    if isinstance(c, (list, tuple)):
        if isinstance(i, float):
            if not i.is_integer():
                raise CelError(f"unsupported index value {i} in list")
            i = int(i)
        if not isinstance(i, int) or isinstance(i, bool):
            raise CelError(f"unsupported index type '{type_name(i)}' in list")
        if not 0 <= i < len(c):
            raise CelError(f"index '{i}' out of range in list size '{len(c)}'")
        return c[i]
    if isinstance(c, dict):
        found, v = map_find(c, i)
        if not found:
            if isinstance(c, _default_map_type()):
                return {}
            raise CelError(f"no such key: {_fmt_key(i)}")
        return v
    raise CelError("no such overload")


def _default_map_type() -> type:
    from kschedctl.dra.cel.values import DefaultMap

    return DefaultMap


def _fmt_key(k: Any) -> str:
    if isinstance(k, bool):
        return "true" if k else "false"
    return str(int(k)) if isinstance(k, UInt) else str(k)


# --- conversions ----------------------------------------------------------------------------------


def _to_int(v: Any) -> int:
    if isinstance(v, bool):
        raise CelError("no such overload")
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v) or not -9.223372036854775e18 <= v < 9.223372036854775e18:
            raise CelError("integer overflow")
        return int(v)
    if isinstance(v, int):
        return check_int(int(v))
    if isinstance(v, str):
        if not re.fullmatch(r"[+-]?[0-9]+", v):
            raise CelError(f'strconv.ParseInt: parsing "{v}": invalid syntax')
        value = int(v, 10)
        if not -(2**63) <= value < 2**63:
            raise CelError(f'strconv.ParseInt: parsing "{v}": value out of range')
        return value
    raise CelError("no such overload")


def _to_uint(v: Any) -> UInt:
    if isinstance(v, bool):
        raise CelError("no such overload")
    if isinstance(v, float):
        if math.isnan(v) or v < 0 or v >= 1.8446744073709552e19:
            raise CelError("unsigned integer overflow")
        return UInt(int(v))
    if isinstance(v, int):
        return check_uint(int(v))
    if isinstance(v, str):
        if not re.fullmatch(r"[0-9]+", v):
            raise CelError(f'strconv.ParseUint: parsing "{v}": invalid syntax')
        return check_uint(int(v))
    raise CelError("no such overload")


def _to_double(v: Any) -> float:
    if isinstance(v, bool):
        raise CelError("no such overload")
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            raise CelError(f'strconv.ParseFloat: parsing "{v}": invalid syntax') from None
    raise CelError("no such overload")


def _to_string(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, float):
        return _format_double(v)
    if isinstance(v, bytes):
        try:
            return v.decode()
        except UnicodeDecodeError:
            raise CelError("invalid UTF-8 in bytes, cannot convert to string") from None
    if isinstance(v, Semver):
        return str(v)
    raise CelError("no such overload")


def _format_double(v: float) -> str:
    """strconv.FormatFloat(v, 'g', -1, 64) as cel-go's Double.ConvertToType(String) prints it."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    text = repr(v)
    if "e" in text or "E" in text:
        mant, exp = text.split("e")
        exp_i = int(exp)
        mant = mant[:-2] if mant.endswith(".0") else mant
        return f"{mant}e{'+' if exp_i >= 0 else '-'}{abs(exp_i):02d}"
    if text.endswith(".0"):
        text = text[:-2]
    exponent = math.floor(math.log10(abs(v))) if v != 0 else 0
    if exponent >= 21:
        mant = f"{v:.17g}"
        return mant
    return text


def _bool_conv(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        if v in ("1", "t", "T", "TRUE", "true", "True"):
            return True
        if v in ("0", "f", "F", "FALSE", "false", "False"):
            return False
        raise CelError("type conversion error from 'string' to 'bool'")
    raise CelError("no such overload")


def _type_of(v: Any) -> CelType:
    return CelType(type_name(v))


# --- strings (ext/strings.go v2) ------------------------------------------------------------------


def _char_at(s: str, i: int) -> str:
    if i < 0 or i > len(s):
        raise CelError(f"index out of range: {i}")
    return s[i] if i < len(s) else ""


def _index_of(s: str, sub: str, start: int = 0) -> int:
    if start < 0 or start > len(s):
        raise CelError(f"index out of range: {start}")
    return s.find(sub, start)


def _last_index_of(s: str, sub: str, end: int | None = None) -> int:
    if end is None:
        return s.rfind(sub)
    if end < 0 or end > len(s):
        raise CelError(f"index out of range: {end}")
    return s.rfind(sub, 0, end + len(sub))


def _lower_ascii(s: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def _upper_ascii(s: str) -> str:
    return "".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in s)


def _replace(s: str, old: str, new: str, n: int = -1) -> str:
    if n < 0:
        return s.replace(old, new)
    return s.replace(old, new, n)


def _split(s: str, sep: str, n: int = -1) -> list[str]:
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if n > 0 and len(chars) > n:
            return chars[: n - 1] + ["".join(chars[n - 1 :])]
        return chars
    if n < 0:
        return s.split(sep)
    return s.split(sep, n - 1)


def _substring(s: str, start: int, end: int | None = None) -> str:
    if end is None:
        end = len(s)
    if start < 0 or start > len(s):
        raise CelError(f"index out of range: {start}")
    if end < 0 or end > len(s):
        raise CelError(f"index out of range: {end}")
    if start > end:
        raise CelError(f"invalid substring range. start: {start}, end: {end}")
    return s[start:end]


_UNICODE_SPACE = " \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def _trim(s: str) -> str:
    return s.strip(_UNICODE_SPACE)


def _join(items: list[Any], sep: str = "") -> str:
    out = []
    for v in items:
        if not isinstance(v, str):
            raise CelError("no such overload")
        out.append(v)
    return sep.join(out)


def _quote(s: str) -> str:
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c in "\a\b\f\n\r\t\v":
            out.append("\\" + "abfnrtv"["\a\b\f\n\r\t\v".index(c)])
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _matches(s: str, pattern: str) -> bool:
    return _compile_re(pattern).search(s) is not None


_RE_CACHE: dict[str, re.Pattern[str]] = {}


def _compile_re(pattern: str) -> re.Pattern[str]:
    compiled = _RE_CACHE.get(pattern)
    if compiled is None:
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise CelError(f"error parsing regexp: {exc}") from None
        _RE_CACHE[pattern] = compiled
    return compiled


def _find(s: str, pattern: str) -> str:
    try:
        m = _compile_re(pattern).search(s)
    except CelError as exc:
        raise CelError(f"Illegal regex: {exc}") from None
    return m.group(0) if m else ""


def _find_all(s: str, pattern: str, n: int = -1) -> list[str]:
    try:
        rx = _compile_re(pattern)
    except CelError as exc:
        raise CelError(f"Illegal regex: {exc}") from None
    if n == 0:
        return []
    out = [m.group(0) for m in rx.finditer(s)]
    return out if n < 0 else out[:n]


# --- lists (k8s library/lists.go, ext/lists.go v3, ext/sets.go) -----------------------------------


def _homogeneous_compare(items: list[Any]) -> None:
    for a, b in zip(items, items[1:]):
        cel_compare(a, b)


def _is_sorted(items: list[Any]) -> bool:
    for a, b in zip(items, items[1:]):
        if cel_compare(a, b) > 0:
            return False
    return True


def _sum(items: list[Any]) -> Any:
    if not items:
        return 0
    total = items[0]
    for v in items[1:]:
        total = _add(total, v)
    return total


def _minmax(items: list[Any], want: int, name: str) -> Any:
    if not items:
        raise CelError(f"{name} called on empty list")
    best = items[0]
    for v in items[1:]:
        if cel_compare(v, best) == want:
            best = v
    return best


def _list_index_of(items: list[Any], v: Any) -> int:
    for i, e in enumerate(items):
        if cel_equal(e, v):
            return i
    return -1


def _list_last_index_of(items: list[Any], v: Any) -> int:
    for i in range(len(items) - 1, -1, -1):
        if cel_equal(items[i], v):
            return i
    return -1


def _slice(items: list[Any], start: int, end: int) -> list[Any]:
    if start < 0 or end < 0:
        raise CelError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise CelError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if len(items) < end:
        raise CelError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return list(items[start:end])


def _flatten(items: Sequence[Any], depth: int = 1) -> list[Any]:
    if depth < 0:
        raise CelError("level must be non-negative")
    out: list[Any] = []
    for v in items:
        if isinstance(v, (list, tuple)) and depth > 0:
            out.extend(_flatten(v, depth - 1))
        else:
            out.append(v)
    return out


def _sort(items: list[Any]) -> list[Any]:
    import functools

    _homogeneous_compare(list(items))
    return sorted(items, key=functools.cmp_to_key(cel_compare))


def _distinct(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in items:
        if not any(cel_equal(v, e) for e in out):
            out.append(v)
    return out


def _range(n: int) -> list[int]:
    return list(range(n))


def _sets_contains(a: list[Any], b: list[Any]) -> bool:
    return all(any(cel_equal(x, y) for y in a) for x in b)


def _sets_equivalent(a: list[Any], b: list[Any]) -> bool:
    return _sets_contains(a, b) and _sets_contains(b, a)


def _sets_intersects(a: list[Any], b: list[Any]) -> bool:
    return any(any(cel_equal(x, y) for y in a) for x in b)


# --- arithmetic dispatch ---------------------------------------------------------------------------


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, bool) or isinstance(b, bool):
        raise CelError("no such overload")
    if isinstance(a, UInt) and isinstance(b, UInt):
        return check_uint(a + b)
    if type(a) is int and type(b) is int:
        return check_int(a + b)
    if isinstance(a, float) and isinstance(b, float):
        return a + b
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    if isinstance(a, bytes) and isinstance(b, bytes):
        return Bytes(a + b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) + list(b)
    raise CelError("no such overload")


def _sub(a: Any, b: Any) -> Any:
    if isinstance(a, bool) or isinstance(b, bool):
        raise CelError("no such overload")
    if isinstance(a, UInt) and isinstance(b, UInt):
        return check_uint(a - b)
    if type(a) is int and type(b) is int:
        return check_int(a - b)
    if isinstance(a, float) and isinstance(b, float):
        return a - b
    raise CelError("no such overload")


def _mul(a: Any, b: Any) -> Any:
    if isinstance(a, bool) or isinstance(b, bool):
        raise CelError("no such overload")
    if isinstance(a, UInt) and isinstance(b, UInt):
        return check_uint(a * b)
    if type(a) is int and type(b) is int:
        return check_int(a * b)
    if isinstance(a, float) and isinstance(b, float):
        return a * b
    raise CelError("no such overload")


def _div(a: Any, b: Any) -> Any:
    if isinstance(a, bool) or isinstance(b, bool):
        raise CelError("no such overload")
    if isinstance(a, UInt) and isinstance(b, UInt):
        return _div_uint(a, b)
    if type(a) is int and type(b) is int:
        return _div_int(a, b)
    if isinstance(a, float) and isinstance(b, float):
        if b == 0.0:
            return math.copysign(math.inf, a) * math.copysign(1.0, b) if a != 0 and not math.isnan(a) else math.nan
        return a / b
    raise CelError("no such overload")


def _mod(a: Any, b: Any) -> Any:
    if isinstance(a, UInt) and isinstance(b, UInt):
        return _mod_uint(a, b)
    if type(a) is int and type(b) is int:
        return _mod_int(a, b)
    raise CelError("no such overload")


def _neg(a: Any) -> Any:
    if type(a) is int:
        return check_int(-a)
    if isinstance(a, float):
        return -a
    raise CelError("no such overload")


def _not(a: Any) -> bool:
    if isinstance(a, bool):
        return not a
    raise CelError("no such overload")


def _size(v: Any) -> int:
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v)
    raise CelError("no such overload")


def _cmp_op(want: Callable[[int], bool]) -> Callable[[Any, Any], bool]:
    return lambda a, b: want(cel_compare(a, b))


def _opt_of(v: Any) -> Optional:
    return Optional(v, True)


def _opt_non_zero(v: Any) -> Optional:
    zero = v in (0, "", b"", False, None) and not (isinstance(v, float) and v != 0) or (isinstance(v, (list, dict, tuple)) and len(v) == 0)
    return OPTIONAL_NONE if zero else Optional(v, True)


def _opt_value(o: Optional) -> Any:
    if not o.has:
        raise CelError("optional.none() dereference")
    return o.value


def _opt_or(o: Optional, other: Optional) -> Optional:
    return o if o.has else other


def _opt_or_value(o: Optional, other: Any) -> Any:
    return o.value if o.has else other


def _q(a: Quantity, b: Any) -> Quantity:
    return k8slib.quantity_from_value(a.value + (b.value if isinstance(b, Quantity) else b))


def _qs(a: Quantity, b: Any) -> Quantity:
    return k8slib.quantity_from_value(a.value - (b.value if isinstance(b, Quantity) else b))


O = Overload
FUNCTIONS: dict[str, list[Overload]] = {
    "_+_": [
        O(("int", "int"), "int", _add),
        O(("uint", "uint"), "uint", _add),
        O(("double", "double"), "double", _add),
        O(("string", "string"), "string", _add),
        O(("bytes", "bytes"), "bytes", _add),
        O(("list(A)", "list(A)"), "list(A)", _add),
    ],
    "_-_": [O(("int", "int"), "int", _sub), O(("uint", "uint"), "uint", _sub), O(("double", "double"), "double", _sub)],
    "_*_": [O(("int", "int"), "int", _mul), O(("uint", "uint"), "uint", _mul), O(("double", "double"), "double", _mul)],
    "_/_": [O(("int", "int"), "int", _div), O(("uint", "uint"), "uint", _div), O(("double", "double"), "double", _div)],
    "_%_": [O(("int", "int"), "int", _mod), O(("uint", "uint"), "uint", _mod)],
    "-_": [O(("int",), "int", _neg), O(("double",), "double", _neg)],
    "!_": [O(("bool",), "bool", _not)],
    "_==_": [O(("A", "A"), "bool", cel_equal)],
    "_!=_": [O(("A", "A"), "bool", lambda a, b: not cel_equal(a, b))],
    "_<_": [],
    "_<=_": [],
    "_>_": [],
    "_>=_": [],  # filled below
    "@in": [O(("A", "list(A)"), "bool", _in), O(("A", "map(A,B)"), "bool", _in)],
    "_[_]": [O(("list(A)", "int"), "A", _index), O(("map(A,B)", "A"), "B", _index)],
    "size": [O((t,), "int", _size) for t in ("string", "bytes", "list(A)", "map(A,B)")]
    + [O((t,), "int", _size, True) for t in ("string", "bytes", "list(A)", "map(A,B)")],
    "contains": [O(("string", "string"), "bool", lambda s, t: t in s, True)],
    "startsWith": [O(("string", "string"), "bool", lambda s, t: s.startswith(t), True)],
    "endsWith": [O(("string", "string"), "bool", lambda s, t: s.endswith(t), True)],
    "matches": [O(("string", "string"), "bool", _matches), O(("string", "string"), "bool", _matches, True)],
    "int": [O((t,), "int", _to_int) for t in ("int", "uint", "double", "string")],
    "uint": [O((t,), "uint", _to_uint) for t in ("int", "uint", "double", "string")],
    "double": [O((t,), "double", _to_double) for t in ("int", "uint", "double", "string")],
    "string": [O((t,), "string", _to_string) for t in ("int", "uint", "double", "string", "bytes", "bool")],
    "bytes": [O(("bytes",), "bytes", lambda b: b), O(("string",), "bytes", lambda s: Bytes(s.encode()))],
    "bool": [O(("bool",), "bool", _bool_conv), O(("string",), "bool", _bool_conv)],
    "dyn": [O(("A",), "dyn", lambda v: v)],
    "type": [O(("A",), "type", _type_of)],
    # ext.Strings v2
    "charAt": [O(("string", "int"), "string", _char_at, True)],
    "indexOf": [
        O(("string", "string"), "int", _index_of, True),
        O(("string", "string", "int"), "int", _index_of, True),
        O(("list(A)", "A"), "int", _list_index_of, True),
    ],
    "lastIndexOf": [
        O(("string", "string"), "int", _last_index_of, True),
        O(("string", "string", "int"), "int", _last_index_of, True),
        O(("list(A)", "A"), "int", _list_last_index_of, True),
    ],
    "lowerAscii": [O(("string",), "string", _lower_ascii, True)],
    "upperAscii": [O(("string",), "string", _upper_ascii, True)],
    "replace": [
        O(("string", "string", "string"), "string", _replace, True),
        O(("string", "string", "string", "int"), "string", _replace, True),
    ],
    "split": [O(("string", "string"), "list(string)", _split, True), O(("string", "string", "int"), "list(string)", _split, True)],
    "substring": [O(("string", "int"), "string", _substring, True), O(("string", "int", "int"), "string", _substring, True)],
    "trim": [O(("string",), "string", _trim, True)],
    "join": [O(("list(string)",), "string", _join, True), O(("list(string)", "string"), "string", _join, True)],
    "strings.quote": [O(("string",), "string", _quote)],
    # Kubernetes regex library
    "find": [O(("string", "string"), "string", _find, True)],
    "findAll": [O(("string", "string"), "list(string)", _find_all, True), O(("string", "string", "int"), "list(string)", _find_all, True)],
    # Kubernetes lists library
    "isSorted": [O(("list(A)",), "bool", _is_sorted, True)],
    "sum": [O(("list(A)",), "A", _sum, True)],
    "min": [O(("list(A)",), "A", lambda xs: _minmax(xs, -1, "min"), True)],
    "max": [O(("list(A)",), "A", lambda xs: _minmax(xs, 1, "max"), True)],
    # ext.Lists v3
    "slice": [O(("list(A)", "int", "int"), "list(A)", _slice, True)],
    "flatten": [O(("list(dyn)",), "list(dyn)", _flatten, True), O(("list(dyn)", "int"), "list(dyn)", _flatten, True)],
    "sort": [O(("list(A)",), "list(A)", _sort, True)],
    "reverse": [O(("list(A)",), "list(A)", lambda xs: list(reversed(xs)), True)],
    "distinct": [O(("list(A)",), "list(A)", _distinct, True)],
    "lists.range": [O(("int",), "list(int)", _range)],
    "first": [O(("list(A)",), "opt(A)", lambda xs: Optional(xs[0], True) if xs else OPTIONAL_NONE, True)],
    "last": [O(("list(A)",), "opt(A)", lambda xs: Optional(xs[-1], True) if xs else OPTIONAL_NONE, True)],
    # ext.Sets
    "sets.contains": [O(("list(A)", "list(A)"), "bool", _sets_contains)],
    "sets.equivalent": [O(("list(A)", "list(A)"), "bool", _sets_equivalent)],
    "sets.intersects": [O(("list(A)", "list(A)"), "bool", _sets_intersects)],
    # optional types
    "optional.of": [O(("A",), "opt(A)", _opt_of)],
    "optional.ofNonZeroValue": [O(("A",), "opt(A)", _opt_non_zero)],
    "optional.none": [O((), "opt(dyn)", lambda: OPTIONAL_NONE)],
    "hasValue": [O(("opt(A)",), "bool", lambda o: o.has, True)],
    "value": [O(("opt(A)",), "A", _opt_value, True)],
    "or": [O(("opt(A)", "opt(A)"), "opt(A)", _opt_or, True)],
    "orValue": [O(("opt(A)", "A"), "A", _opt_or_value, True)],
    # Kubernetes quantity library
    "quantity": [O(("string",), "Q", k8slib.to_quantity)],
    "isQuantity": [O(("string",), "bool", k8slib.is_quantity)],
    "sign": [O(("Q",), "int", k8slib.quantity_sign, True)],
    "isGreaterThan": [
        O(("Q", "Q"), "bool", lambda a, b: k8slib.quantity_cmp(a, b) == 1, True),
        O(("S", "S"), "bool", lambda a, b: a.compare(b) == 1, True),
    ],
    "isLessThan": [
        O(("Q", "Q"), "bool", lambda a, b: k8slib.quantity_cmp(a, b) == -1, True),
        O(("S", "S"), "bool", lambda a, b: a.compare(b) == -1, True),
    ],
    "compareTo": [O(("Q", "Q"), "int", k8slib.quantity_cmp, True), O(("S", "S"), "int", lambda a, b: a.compare(b), True)],
    "asApproximateFloat": [O(("Q",), "double", k8slib.quantity_as_float, True)],
    "asInteger": [O(("Q",), "int", k8slib.quantity_as_int, True)],
    "isInteger": [O(("Q",), "bool", k8slib.quantity_is_integer, True)],
    "add": [O(("Q", "Q"), "Q", _q, True), O(("Q", "int"), "Q", _q, True)],
    "sub": [O(("Q", "Q"), "Q", _qs, True), O(("Q", "int"), "Q", _qs, True)],
    # Kubernetes semver library (SemverVersion(1))
    "semver": [O(("string",), "S", k8slib.semver_value), O(("string", "bool"), "S", k8slib.semver_value)],
    "isSemver": [O(("string",), "bool", k8slib.is_semver), O(("string", "bool"), "bool", k8slib.is_semver)],
    "major": [O(("S",), "int", lambda s: s.major, True)],
    "minor": [O(("S",), "int", lambda s: s.minor, True)],
    "patch": [O(("S",), "int", lambda s: s.patch, True)],
}

for _name, _want in (("_<_", lambda c: c < 0), ("_<=_", lambda c: c <= 0), ("_>_", lambda c: c > 0), ("_>=_", lambda c: c >= 0)):
    _fn = _cmp_op(_want)
    FUNCTIONS[_name] = [
        O((a, b), "bool", _fn)
        for a, b in (
            ("bool", "bool"),
            ("int", "int"),
            ("uint", "uint"),
            ("double", "double"),
            ("string", "string"),
            ("bytes", "bytes"),
            ("int", "uint"),
            ("int", "double"),
            ("uint", "int"),
            ("uint", "double"),
            ("double", "int"),
            ("double", "uint"),
        )
    ]

# Declared by Kubernetes' environment but not modelled here (URL, IP, CIDR, format, authz libraries).
NOT_MODELLED = frozenset(
    {
        "url",
        "isURL",
        "getScheme",
        "getHost",
        "getHostname",
        "getPort",
        "getEscapedPath",
        "getQuery",
        "ip",
        "isIP",
        "cidr",
        "isCIDR",
        "containsIP",
        "containsCIDR",
        "prefixLength",
        "masked",
        "family",
        "isUnspecified",
        "isLoopback",
        "isLinkLocalMulticast",
        "isLinkLocalUnicast",
        "isGlobalUnicast",
        "ip.isCanonical",
        "format",
        "validate",
        "timestamp",
        "duration",
        "getDate",
        "getDayOfMonth",
        "getDayOfWeek",
        "getDayOfYear",
        "getFullYear",
        "getHours",
        "getMilliseconds",
        "getMinutes",
        "getMonth",
        "getSeconds",
        "authorizer",
        "serviceAccount",
        "check",
    }
)


def call_cost(name: str, args: list[Any], result: Any) -> int:
    """The runtime cost of one call: library/cost.go CallCost, else runtimecost.go costCall."""
    if name in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf") and args and isinstance(args[0], (list, tuple)):
        return sum(1 for _ in args[0]) or 0
    if name in ("lowerAscii", "upperAscii", "substring", "trim", "quantity", "isQuantity", "semver", "isSemver"):
        return _ceil(size_of(args[0]) * STRING_TRAVERSAL) if args else 1
    if name in ("replace", "split"):
        return _ceil(size_of(args[0]) * 2 * STRING_TRAVERSAL)
    if name == "join":
        return _ceil(size_of(result) * 2 * STRING_TRAVERSAL)
    if name in ("find", "findAll"):
        return _ceil((1 + size_of(args[0])) * STRING_TRAVERSAL) * _ceil(size_of(args[1]) * REGEX_LENGTH)
    if name in ("startsWith", "endsWith", "strings.quote"):
        return _ceil(size_of(args[0]) * STRING_TRAVERSAL)
    if name == "@in" and isinstance(args[1], (list, tuple)):
        return len(args[1])
    if name in ("_<_", "_>_", "_<=_", "_>=_", "_==_", "_!=_"):
        if isinstance(args[0], (str, bytes)) or isinstance(args[1], (str, bytes)) or name in ("_==_", "_!=_"):
            return _ceil(min(size_of(args[0]), size_of(args[1])) * STRING_TRAVERSAL)
        return 1
    if name == "_+_" and isinstance(args[0], (str, bytes)):
        return _ceil((size_of(args[0]) + size_of(args[1])) * STRING_TRAVERSAL)
    if name == "matches":
        return _ceil((1 + size_of(args[0])) * STRING_TRAVERSAL) * _ceil(size_of(args[1]) * REGEX_LENGTH)
    if name == "contains":
        return _ceil(size_of(args[0]) * STRING_TRAVERSAL) * _ceil(size_of(args[1]) * STRING_TRAVERSAL)
    return 1


__all__ = ["FUNCTIONS", "NOT_MODELLED", "Overload", "call_cost", "dispatch", "size_of"]
