"""Kubernetes' CEL types and the value helpers of its libraries (k8s.io/apiserver/pkg/cel).

quantity(): apiserver/pkg/cel/library/quantity.go over apimachinery's resource.Quantity;
semver(): library/semverlib.go over github.com/blang/semver/v4 (with the ``normalize`` form
of SemverVersion(1)). Error texts are the ones those packages return.
"""

from __future__ import annotations

import re
from fractions import Fraction

from kschedctl.api.quantity import QuantityError, parse_quantity
from kschedctl.dra.cel.values import INT64_MAX, INT64_MIN, CelError, Quantity, Semver

_QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def to_quantity(text: str) -> Quantity:
    try:
        return Quantity(parse_quantity(text), text)
    except QuantityError:
        raise CelError(_QUANTITY_FORMAT_ERROR) from None


def is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def quantity_from_value(value: Fraction) -> Quantity:
    return Quantity(value, str(value))


def quantity_as_int(q: Quantity) -> int:
    """Quantity.AsInt64: only exact integers in int64 range convert."""
    v = q.value
    if v.denominator != 1 or not INT64_MIN <= v.numerator <= INT64_MAX:
        raise CelError("cannot convert value to integer")
    return v.numerator


def quantity_is_integer(q: Quantity) -> bool:
    v = q.value
    return v.denominator == 1 and INT64_MIN <= v.numerator <= INT64_MAX


def quantity_as_float(q: Quantity) -> float:
    return float(q.value)


def quantity_sign(q: Quantity) -> int:
    return (q.value > 0) - (q.value < 0)


def quantity_cmp(a: Quantity, b: Quantity) -> int:
    return (a.value > b.value) - (a.value < b.value)


# --- semver -------------------------------------------------------------------------------------

# blang/semver checks every character; \Z, not $, which also matches before a final newline
_NUMBERS = re.compile(r"^[0-9]*\Z")
_ALPHANUM = re.compile(r"^[A-Za-z0-9-]*\Z")


def _has_leading_zeroes(s: str) -> bool:
    return len(s) > 1 and s[0] == "0"


def _parse_uint(s: str) -> int:
    if not s:
        raise CelError(f'strconv.ParseUint: parsing "{s}": invalid syntax')
    value = int(s)
    if value >= 2**64:
        raise CelError(f'strconv.ParseUint: parsing "{s}": value out of range')
    return value


def parse_semver(s: str) -> Semver:
    """blang/semver/v4 Parse, with its error texts."""
    if not s:
        raise CelError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise CelError("No Major.Minor.Patch elements found")
    for label, part in (("major", parts[0]), ("minor", parts[1])):
        if not _NUMBERS.match(part):
            raise CelError(f'Invalid character(s) found in {label} number "{part}"')
        if _has_leading_zeroes(part):
            raise CelError(f'{label.capitalize()} number must not contain leading zeroes "{part}"')
    major, minor = _parse_uint(parts[0]), _parse_uint(parts[1])
    patch_str = parts[2]
    build: list[str] = []
    pre_strs: list[str] = []
    if "+" in patch_str:
        idx = patch_str.index("+")
        build = patch_str[idx + 1 :].split(".")
        patch_str = patch_str[:idx]
    if "-" in patch_str:
        idx = patch_str.index("-")
        pre_strs = patch_str[idx + 1 :].split(".")
        patch_str = patch_str[:idx]
    if not _NUMBERS.match(patch_str):
        raise CelError(f'Invalid character(s) found in patch number "{patch_str}"')
    if _has_leading_zeroes(patch_str):
        raise CelError(f'Patch number must not contain leading zeroes "{patch_str}"')
    patch = _parse_uint(patch_str)
    pre: list[int | str] = []
    for p in pre_strs:
        if not p:
            raise CelError("Prerelease is empty")
        if _NUMBERS.match(p):
            if _has_leading_zeroes(p):
                raise CelError(f'Numeric PreRelease version must not contain leading zeroes "{p}"')
            pre.append(_parse_uint(p))
        elif _ALPHANUM.match(p):
            pre.append(p)
        else:
            raise CelError(f'Invalid character(s) found in prerelease "{p}"')
    for b in build:
        if not b:
            raise CelError("Build meta data is empty")
        if not _ALPHANUM.match(b):
            raise CelError(f'Invalid character(s) found in build meta data "{b}"')
    return Semver(major, minor, patch, tuple(pre), tuple(build))


def normalize_and_parse_semver(s: str) -> Semver:
    """semverlib.go normalizeAndParse: optional "v" prefix, leading zeroes dropped, short
    versions filled up with zeroes."""
    if s.startswith("v"):
        s = s[1:]
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or p[0] not in "0123456789":
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if "+" in parts[-1] or "-" in parts[-1]:
            raise CelError("short version cannot contain PreRelease/Build meta data")
        while len(parts) < 3:
            parts.append("0")
    return parse_semver(".".join(parts))


def semver_value(text: str, normalize: bool = False) -> Semver:
    return normalize_and_parse_semver(text) if normalize else parse_semver(text)


def is_semver(text: str, normalize: bool = False) -> bool:
    try:
        semver_value(text, normalize)
    except CelError:
        return False
    return True
