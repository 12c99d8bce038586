"""Kubernetes resource quantities, parsed exactly as apimachinery's resource.Quantity.

Upstream: staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go.
A quantity is ``<sign><digits>[.<digits>]<suffix>`` where the suffix is a binary SI
suffix (Ki..Ei), a decimal SI suffix (n, u, m, "", k, M, G, T, P, E) or a decimal
exponent (``e3``/``E-2``). The scheduler reads cpu through ``MilliValue()`` and every
other resource through ``Value()``; both round *up* to the next integer (ceil),
which is why the values here are kept as exact fractions until the very end.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_QUANTITY_RE = re.compile(
    r"^(?P<num>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)


class QuantityError(ValueError):
    """A string that is not a valid Kubernetes quantity."""


@lru_cache(maxsize=65536)
def _parse_str(text: str) -> Fraction:
    match = _QUANTITY_RE.match(text.strip())
    if match is None:
        raise QuantityError(f"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {text!r}")
    number = Fraction(match.group("num"))
    suffix = match.group("suffix") or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix in _DECIMAL:
        return number * _DECIMAL[suffix]
    return number * Fraction(10) ** int(suffix[1:])


def parse_quantity(value: object) -> Fraction:
    """Parse a quantity given as a string or a YAML/JSON number into an exact Fraction."""
    if isinstance(value, bool):
        raise QuantityError(f"invalid quantity {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        # YAML turns `0.5` into a float; its decimal text is what the user wrote.
        return _parse_str(repr(value))
    if isinstance(value, str):
        return _parse_str(value)
    raise QuantityError(f"invalid quantity {value!r}")


def _ceil(value: Fraction) -> int:
    return math.ceil(value)


def milli_value(value: object) -> int:
    """Quantity.MilliValue(): the value in thousandths, rounded up."""
    return _ceil(parse_quantity(value) * 1000)


def int_value(value: object) -> int:
    """Quantity.Value(): the value in base units, rounded up."""
    return _ceil(parse_quantity(value))
