"""CEL values and their semantics as cel-go implements them (common/types).

Python values stand for CEL values: bool, int (int64), ``UInt``, float (double), str, ``Bytes``,
None (null), list, dict (map; ``DefaultMap`` for DRA's attribute maps), ``Quantity`` and
``Semver`` (Kubernetes' apiserver/pkg/cel types), ``Optional`` and ``CelType``. Runtime errors
are raised as ``CelError`` carrying cel-go's message ("no such key: x", "no such overload", ...).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


class CelError(Exception):
    """A CEL runtime error value (types.Err); str() is cel-go's message."""


class CostLimitExceeded(CelError):
    pass


class UInt(int):
    """A CEL uint (distinct from int, as in CEL's type system)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


class Bytes(bytes):
    __slots__ = ()


def bytes_value(value: bytes) -> Bytes:
    return Bytes(value)


class CelType:
    """A type value, e.g. the result of ``type(x)``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("type", self.name))

    def __repr__(self) -> str:
        return self.name


class Optional:
    __slots__ = ("value", "has")

    def __init__(self, value: Any = None, has: bool = False) -> None:
        self.value = value
        self.has = has

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Optional):
            return False
        return self.has == other.has and (not self.has or cel_equal(self.value, other.value))

    __hash__ = None  # type: ignore[assignment]


OPTIONAL_NONE = Optional()


class DefaultMap(dict[str, Any]):
    """DRA's attribute/capacity maps: looking up an unknown domain yields an empty map
    (cel/compile.go newStringInterfaceMapWithDefault)."""

    __slots__ = ()


class Quantity:
    """apiserver/pkg/cel/quantity.go: a resource.Quantity in CEL."""

    __slots__ = ("value", "text")

    def __init__(self, value: Fraction, text: str) -> None:
        self.value = value
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"quantity({self.text!r})"


class Semver:
    """apiserver/pkg/cel/semver.go: a blang/semver Version in CEL."""

    __slots__ = ("major", "minor", "patch", "pre", "build")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple[int | str, ...] = (), build: tuple[str, ...] = ()) -> None:
        self.major, self.minor, self.patch, self.pre, self.build = major, minor, patch, pre, build

    def compare(self, other: "Semver") -> int:
        """blang/semver Version.Compare: build metadata is ignored; prereleases sort first."""
        a = (self.major, self.minor, self.patch)
        b = (other.major, other.minor, other.patch)
        if a != b:
            return -1 if a < b else 1
        if not self.pre and not other.pre:
            return 0
        if not self.pre:
            return 1
        if not other.pre:
            return -1
        for x, y in zip(self.pre, other.pre):
            if x == y:
                continue
            if isinstance(x, int) and isinstance(y, int):
                return -1 if x < y else 1
            if isinstance(x, int) or isinstance(y, int):  # a numeric identifier sorts first
                return -1 if isinstance(x, int) else 1
            return -1 if x < y else 1
        if len(self.pre) == len(other.pre):
            return 0
        return -1 if len(self.pre) < len(other.pre) else 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.compare(other) == 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text


# --- type names ------------------------------------------------------------------------------


def type_name(value: Any) -> str:
    """The CEL type name of a value, as ``type(x)`` prints it."""
    if value is None:
        return "null_type"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, UInt):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, Quantity):
        return "kubernetes.Quantity"
    if isinstance(value, Semver):
        return "kubernetes.Semver"
    if isinstance(value, Optional):
        return "optional_type"
    if isinstance(value, CelType):
        return "type"
    return type(value).__name__


def go_type_name(value: Any) -> str:
    """Go's %T of the cel-go value, which some cel-go messages print ("got 'types.Int', ...")."""
    names = {
        "bool": "types.Bool",
        "int": "types.Int",
        "uint": "types.Uint",
        "double": "types.Double",
        "string": "types.String",
        "bytes": "types.Bytes",
        "null_type": "types.Null",
        "list": "*types.baseList",
        "map": "*types.baseMap",
        "kubernetes.Quantity": "cel.Quantity",
        "kubernetes.Semver": "cel.Semver",
        "optional_type": "*types.Optional",
        "type": "*types.Type",
    }
    return names.get(type_name(value), type(value).__name__)


# --- equality and ordering (common/types: Equal, Compare with cross-type numerics) ----------


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def cel_equal(a: Any, b: Any) -> bool:
    """Heterogeneous equality: numbers compare across int/uint/double; other kinds must match,
    otherwise the values are simply unequal (types.Equal)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
            return False
        return bool(a == b)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, bytes) or isinstance(b, bytes):
        return isinstance(a, bytes) and isinstance(b, bytes) and a == b
    if isinstance(a, (list, tuple)):
        if not isinstance(b, (list, tuple)) or len(a) != len(b):
            return False
        return all(cel_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for k, v in a.items():
            found, other = map_find(b, k)
            if not found or not cel_equal(v, other):
                return False
        return True
    if type(a) is not type(b):
        return False
    return bool(a == b)


def map_find(m: dict[Any, Any], key: Any) -> tuple[bool, Any]:
    """Map lookup with CEL's numeric key equivalence (1 == 1u == 1.0 as keys)."""
    if isinstance(key, bool):
        for k, v in m.items():
            if isinstance(k, bool) and k == key:
                return True, v
        return False, None
    if _is_number(key):
        if isinstance(key, float):
            if not key.is_integer():
                return False, None
            key = int(key)
        for k, v in m.items():
            if _is_number(k) and not isinstance(k, bool) and k == key:
                return True, v
        return False, None
    try:
        if key in m:
            return True, m[key]
    except TypeError:
        return False, None
    return False, None


def cel_compare(a: Any, b: Any) -> int:
    """types Compare: same-kind ordering, numbers across kinds; otherwise "no such overload"."""
    if isinstance(a, bool):
        if isinstance(b, bool):
            return _order(a, b)
        raise CelError("no such overload")
    if _is_number(a):
        if _is_number(b):
            if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
                raise CelError("NaN values cannot be ordered")
            return _order(a, b)
        raise CelError("no such overload")
    if isinstance(a, str) or isinstance(a, bytes):
        if type(a) is type(b) or (isinstance(a, str) and isinstance(b, str)):
            return _order(a, b)
        raise CelError("no such overload")
    raise CelError("no such overload")


def _order(a: Any, b: Any) -> int:
    """-1, 0 or 1: two values of kinds cel_compare found comparable."""
    return int((a > b) - (a < b))


def check_int(value: int) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise CelError("integer overflow")
    return value


def check_uint(value: int) -> UInt:
    if not 0 <= value <= UINT64_MAX:
        raise CelError("unsigned integer overflow")
    return UInt(value)
