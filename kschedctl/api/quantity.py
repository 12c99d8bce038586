"""Kubernetes resource quantities, parsed exactly as apimachinery's resource.Quantity.

Upstream: staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go (ParseQuantity,
parseQuantityString) and suffix.go (interpret). A quantity is ``<sign><digits>[.<digits>]<suffix>``
where the suffix is a binary SI suffix (Ki..Ei), a decimal SI suffix (n, u, m, "", k, M, G,
T, P, E) or a decimal exponent (``e3``/``E-2``, parsed as int64 then truncated to int32 as
upstream does). The parsed value is rounded up (away from zero) to a whole nano unit, and a
binary-SI value is capped at 2^63-1, as ParseQuantity does. The scheduler reads cpu through
``MilliValue()`` and every other resource through ``Value()``; both round *up* (ceil), which
is why values are kept as exact fractions until the very end.

Bounds: upstream computes with arbitrary precision; here a value far outside anything the
scheduler can count (more than 10^40) raises ``QuantityOutOfRange`` instead of building a huge
number, so ``1e99999999`` costs microseconds; a value below one nano unit rounds up to 1n
without computing it; more than 4000 digits is refused (Python's integer conversion limit).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_ERROR = "unable to parse quantity's suffix"
MAX_INT64 = 2**63 - 1
MAX_DIGITS = 4000
_MAX_ORDER = 40  # values of 10^40 and more are out of every range the scheduler counts in

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
# parseQuantityString: sign, digits, optional "." and digits, then suffix characters, an optional
# sign and digits; anything else is ErrFormatWrong.
_SCAN = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)")
_INT64_TEXT = re.compile(r"[+-]?[0-9]+")
_NANO = 10**9
_ZERO = Fraction(0)


class QuantityError(ValueError):
    """A string that is not a valid Kubernetes quantity."""


def _format_error(text: str) -> QuantityError:
    shown = text if len(text) <= 64 else text[:64] + "..."
    return QuantityError(f"{FORMAT_ERROR}: {shown!r}")


class QuantityOutOfRange(QuantityError):
    """A valid quantity too large for the scheduler's int64 arithmetic (kschedctl refuses it)."""


def _interpret(suffix: str) -> tuple[int, int]:
    """suffixHandler.interpret: (base, exponent); the exponent of "eN" wraps to int32 as upstream."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix]
    if suffix in _BINARY:
        return 2, _BINARY[suffix]
    if len(suffix) > 1 and suffix[0] in "eE" and _INT64_TEXT.fullmatch(suffix[1:]):
        parsed = int(suffix[1:]) if len(suffix) < 30 else MAX_INT64 + 1
        if -(2**63) <= parsed <= MAX_INT64:
            return 10, (parsed + 2**31) % 2**32 - 2**31  # int32(parsed)
    raise QuantityError(SUFFIX_ERROR)


def _round_up_nano(value: Fraction) -> Fraction:
    """ParseQuantity rounds a non-negative amount up to scale 9 (inf.RoundUp)."""
    scaled = value * _NANO
    if scaled.denominator == 1:
        return value
    return Fraction(math.ceil(scaled), _NANO)


@lru_cache(maxsize=65536)
def _parse_str(text: str) -> Fraction:
    match = _SCAN.fullmatch(text) if text else None
    if match is None:
        raise _format_error(text)
    sign, num, denom, suffix = match.group(1), match.group(2), match.group(3) or "", match.group(4)
    base, exponent = _interpret(suffix)
    num, denom = num.lstrip("0"), denom.rstrip("0")
    if len(num) + len(denom) > MAX_DIGITS:
        raise QuantityError(f"quantities may not have more than {MAX_DIGITS} digits")
    digits = (num + denom).lstrip("0")
    if not digits:
        return _ZERO
    if base == 10:
        e10 = exponent - len(denom)
        order = len(digits) - 1 + e10
        if order >= _MAX_ORDER:
            raise QuantityOutOfRange(f"quantity {text[:40]!r} is out of range")
        if order < -10:
            value = Fraction(1, _NANO)  # below one nano unit: rounds up to 1n
        else:
            value = Fraction(int(digits)) * (Fraction(10) ** e10)
    else:
        if len(num) > _MAX_ORDER:
            raise QuantityOutOfRange(f"quantity {text[:40]!r} is out of range")
        value = Fraction(int(digits) << exponent, 10 ** len(denom))
    value = _round_up_nano(value)
    if base == 2 and value > MAX_INT64:
        value = Fraction(MAX_INT64)
    return -value if sign == "-" else value


def parse_quantity(value: object) -> Fraction:
    """Parse a quantity given as a string or a YAML/JSON number into an exact Fraction."""
    if isinstance(value, bool):
        raise QuantityError(f"invalid quantity {value!r}")
    if isinstance(value, int):
        if abs(value) >= 10**_MAX_ORDER:
            raise QuantityOutOfRange(f"quantity {value} is out of range")
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _format_error(repr(value))
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


def canonical(value: Fraction) -> str:
    """A short decimal text of a parsed quantity for messages ("1500m", "-1", "2Gi" stays exact)."""
    if value.denominator == 1:
        return str(value.numerator)
    milli = value * 1000
    if milli.denominator == 1:
        return f"{milli.numerator}m"
    return f"{value * _NANO}n" if (value * _NANO).denominator == 1 else str(float(value))
