"""Go's time.Parse for the layouts kube's inputs meet, and metav1.Time's reading of RFC 3339.

Two readers decide what a timestamp in a snapshot means, and both are Go's time package:
- metav1.Time.UnmarshalJSON (k8s.io/apimachinery/pkg/apis/meta/v1/time.go) reads every
  creationTimestamp, deletionTimestamp, startTime, lastTransitionTime... with
  ``time.Parse(time.RFC3339, s)``: offsets are honoured (the instant is kept, the zone is not:
  MarshalJSON and the protobuf Timestamp the scheduler receives carry UTC whole seconds),
  fractional seconds are accepted (and dropped on the way to the scheduler), the year has
  exactly four digits, months, days (per month and leap year), hours, minutes and seconds
  are range-checked, the zone is ``Z`` or ``±hh:mm``; ``t``/``z`` are refused. When Go's
  RFC 3339 fast path (format_rfc3339.go) refuses a text, time.Parse falls back to its general
  layout parser, which is a little laxer: a one-digit hour, a comma before the fraction and a
  zone offset up to 24:60 are accepted. That fallback is what this module implements.
- go-yaml v2 (resolve.go parseTimestamp) turns an unquoted YAML scalar that parses with one of
  four layouts into a time.Time, which sigs.k8s.io/yaml's YAMLToJSON then writes with
  Time.MarshalJSON (RFC 3339 with nanoseconds, the zone as parsed): ``2001-12-14`` reaches the
  API server as "2001-12-14T00:00:00Z".

Errors carry Go's own messages (``parsing time "..." : month out of range``), which is what
kube-apiserver answers, after "cannot be handled as a Pod: ".
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

# std chunk codes (time/format.go), only those the layouts below use
LONG_YEAR, NUM_MONTH, ZERO_MONTH, DAY, ZERO_DAY, HOUR, MINUTE, ZERO_MINUTE, SECOND, ZERO_SECOND, FRAC9, ISO_COLON_TZ = range(12)
_STD_TEXT = {
    LONG_YEAR: "2006",
    NUM_MONTH: "1",
    ZERO_MONTH: "01",
    DAY: "2",
    ZERO_DAY: "02",
    HOUR: "15",
    MINUTE: "4",
    ZERO_MINUTE: "04",
    SECOND: "5",
    ZERO_SECOND: "05",
    FRAC9: ".999999999",
    ISO_COLON_TZ: "Z07:00",
}

Layout = tuple[str, tuple[tuple[str, int], ...], str]  # (layout text, (prefix, std) chunks, trailing literal)

RFC3339: Layout = (
    "2006-01-02T15:04:05Z07:00",
    (("", LONG_YEAR), ("-", ZERO_MONTH), ("-", ZERO_DAY), ("T", HOUR), (":", ZERO_MINUTE), (":", ZERO_SECOND), ("", ISO_COLON_TZ)),
    "",
)
# go-yaml v2 resolve.go allowedTimestampFormats, in its order.
YAML_TIMESTAMP_LAYOUTS: tuple[Layout, ...] = (
    (
        "2006-1-2T15:4:5.999999999Z07:00",
        (("", LONG_YEAR), ("-", NUM_MONTH), ("-", DAY), ("T", HOUR), (":", MINUTE), (":", SECOND), ("", FRAC9), ("", ISO_COLON_TZ)),
        "",
    ),
    (
        "2006-1-2t15:4:5.999999999Z07:00",
        (("", LONG_YEAR), ("-", NUM_MONTH), ("-", DAY), ("t", HOUR), (":", MINUTE), (":", SECOND), ("", FRAC9), ("", ISO_COLON_TZ)),
        "",
    ),
    (
        "2006-1-2 15:4:5.999999999",
        (("", LONG_YEAR), ("-", NUM_MONTH), ("-", DAY), (" ", HOUR), (":", MINUTE), (":", SECOND), ("", FRAC9)),
        "",
    ),
    ("2006-1-2", (("", LONG_YEAR), ("-", NUM_MONTH), ("-", DAY)), ""),
)


class GoTime(NamedTuple):
    """An instant: seconds since the Unix epoch (UTC), nanoseconds, and the zone offset it was
    written with (seconds east of UTC; it changes how it is printed, never which instant)."""

    seconds: int
    nanos: int
    offset: int


class TimeParseError(ValueError):
    """time.ParseError, with Go's message (built when shown: go-yaml tries layouts on any
    scalar that starts like a date, and a failed try must not cost a copy of a long text)."""

    def __init__(self, layout: str, value: str, layout_elem: str, value_elem: str, message: str = "") -> None:
        super().__init__(layout, value)
        self.parts = (layout, value, layout_elem, value_elem, message)

    def __str__(self) -> str:
        layout, value, layout_elem, value_elem, message = self.parts
        if message:
            return f"parsing time {_shown(value)}{_cut(message)}"
        return f"parsing time {_shown(value)} as {_quote(layout)}: cannot parse {_shown(value_elem)} as {_quote(layout_elem)}"


SHOWN_LIMIT = 256  # characters of a refused text shown in an error (the error line stays short)


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_LIMIT else text[:SHOWN_LIMIT] + f"...({len(text)} characters)"


def _shown(text: str) -> str:
    """Go's quoted text, cut after SHOWN_LIMIT characters."""
    if len(text) <= SHOWN_LIMIT:
        return _quote(text)
    return _quote(text[:SHOWN_LIMIT])[:-1] + f'..."({len(text)} characters)'


def _quote(text: str) -> str:
    """time's quote(): double quotes, \\-escaped quotes and backslashes, \\x escapes for every
    byte of a non-ASCII or control character."""
    out = ['"']
    for ch in text:
        if ch < " " or ch >= "\x80":
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass"))
        else:
            if ch in '"\\':
                out.append("\\")
            out.append(ch)
    out.append('"')
    return "".join(out)


def _error(layout: str, value: str, layout_elem: str, value_elem: str, message: str = "") -> TimeParseError:
    return TimeParseError(layout, value, layout_elem, value_elem, message)


def _is_digit(s: str, i: int) -> bool:
    return i < len(s) and "0" <= s[i] <= "9"


def _getnum(s: str, fixed: bool) -> tuple[int, str] | None:
    """time.getnum: one or two digits (exactly two when fixed)."""
    if not _is_digit(s, 0):
        return None
    if not _is_digit(s, 1):
        if fixed:
            return None
        return int(s[0]), s[1:]
    return int(s[:2]), s[2:]


def _skip(value: str, prefix: str) -> str | None:
    """time.skip: the layout's literal text; a space matches any run of spaces."""
    while prefix:
        if prefix[0] == " ":
            if value and value[0] != " ":
                return None
            prefix, value = prefix.lstrip(" "), value.lstrip(" ")
            continue
        if not value or value[0] != prefix[0]:
            return None
        prefix, value = prefix[1:], value[1:]
    return value


def _nanos(value: str, nbytes: int) -> int:
    """time.parseNanoseconds: value[0] is '.' or ','; at most nine digits count."""
    digits = value[1 : min(nbytes, 10)]
    return int(digits) * int(10 ** (9 - len(digits)))


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def days_in(month: int, year: int) -> int:
    return 29 if month == 2 and is_leap(year) else _DAYS[month - 1]


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (any year, 0 and negatives included)."""
    y = year - (month <= 2)
    era = y // 400  # floor division: no C-style adjustment
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(days: int) -> tuple[int, int, int]:
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (month <= 2), month, day


def parse(layout: Layout, value: str) -> GoTime:
    """time.Parse(layout, value) for the layouts of this module (UTC when no zone is given)."""
    text, chunks, _ = layout
    original = value
    year, month, day, hour, minute, sec, nsec = 0, 1, 1, 0, 0, 0, 0
    offset = 0
    for index, (prefix, std) in enumerate(chunks):
        rest = _skip(value, prefix)
        if rest is None:
            raise _error(text, original, prefix, value)
        value = hold = rest
        std_text = _STD_TEXT[std]
        range_err = ""
        bad = False
        if std == LONG_YEAR:
            if len(value) < 4 or not _is_digit(value, 0) or not value[:4].isdigit() or not value[:4].isascii():
                bad = True
            else:
                year, value = int(value[:4]), value[4:]
        elif std in (NUM_MONTH, ZERO_MONTH):
            got = _getnum(value, std == ZERO_MONTH)
            if got is None:
                bad = True
            else:
                month, value = got
                if not 1 <= month <= 12:
                    range_err = "month"
        elif std in (DAY, ZERO_DAY):
            got = _getnum(value, std == ZERO_DAY)
            if got is None:
                bad = True
            else:
                day, value = got
        elif std == HOUR:
            got = _getnum(value, False)
            if got is None:
                bad = True
            else:
                hour, value = got
                if hour >= 24:
                    range_err = "hour"
        elif std in (MINUTE, ZERO_MINUTE):
            got = _getnum(value, std == ZERO_MINUTE)
            if got is None:
                bad = True
            else:
                minute, value = got
                if minute >= 60:
                    range_err = "minute"
        elif std in (SECOND, ZERO_SECOND):
            got = _getnum(value, std == ZERO_SECOND)
            if got is None:
                bad = True
            else:
                sec, value = got
                if sec >= 60:
                    range_err = "second"
                elif len(value) >= 2 and value[0] in ".," and _is_digit(value, 1):
                    following = chunks[index + 1][1] if index + 1 < len(chunks) else None
                    if following != FRAC9:  # no fraction in the layout: the seconds take it
                        n = 2
                        while _is_digit(value, n):
                            n += 1
                        nsec, value = _nanos(value, n), value[n:]
        elif std == FRAC9:
            if len(value) >= 2 and value[0] in ".," and _is_digit(value, 1):
                n = 2
                while _is_digit(value, n):
                    n += 1
                nsec, value = _nanos(value, n), value[n:]
        elif std == ISO_COLON_TZ:
            if value[:1] == "Z":
                value, offset = value[1:], 0
            elif len(value) < 6 or value[3] != ":":
                bad = True
            else:
                sign, hh, mm, value = value[0], value[1:3], value[4:6], value[6:]
                got_h = _getnum(hh, True)
                got_m = _getnum(mm, True) if got_h is not None else None
                bad = got_h is None or got_m is None
                zone_h, zone_m = (got_h[0] if got_h else 0), (got_m[0] if got_m else 0)
                if zone_h > 24:  # Go allows 24 and 60 ("some people do write offsets of 24 hours")
                    range_err = "time zone offset hour"
                if zone_m > 60:
                    range_err = "time zone offset minute"
                offset = (zone_h * 60 + zone_m) * 60
                if sign == "-":
                    offset = -offset
                elif sign != "+":
                    bad = True
        if range_err:
            raise _error(text, original, std_text, value, f": {range_err} out of range")
        if bad:
            raise _error(text, original, std_text, hold)
    if value:
        raise _error(text, original, "", value, f": extra text: {_shown(value)}")
    if not 1 <= day <= days_in(month, year):
        raise _error(text, original, "", value, ": day out of range")
    seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + sec - offset
    return GoTime(seconds, nsec, offset)


def _format(seconds: int, nanos: int, offset: int, with_nanos: bool) -> str:
    local = seconds + offset
    days, rem = divmod(local, 86400)
    year, month, day = civil_from_days(days)
    year_text = f"-{-year:04d}" if year < 0 else f"{year:04d}"
    out = f"{year_text}-{month:02d}-{day:02d}T{rem // 3600:02d}:{rem % 3600 // 60:02d}:{rem % 60:02d}"
    if with_nanos and nanos:
        out += "." + f"{nanos:09d}".rstrip("0")
    if offset == 0:
        return out + "Z"
    zone = abs(offset) // 60
    return f"{out}{'-' if offset < 0 else '+'}{zone // 60:02d}:{zone % 60:02d}"


def format_rfc3339(seconds: int) -> str:
    """metav1.Time as the API server writes it: UTC, whole seconds (time.RFC3339)."""
    return _format(seconds, 0, 0, False)


def marshal_json_text(t: GoTime) -> str:
    """Time.MarshalJSON's text (RFC 3339 with nanoseconds, the zone as parsed); ValueError where
    Go refuses (a zone offset of 24 hours or more: "timezone hour outside of range [0,23]")."""
    if abs(t.offset) // 3600 >= 24:
        raise ValueError("json: error calling MarshalJSON for type time.Time: Time.MarshalJSON: timezone hour outside of range [0,23]")
    return _format(t.seconds, t.nanos, t.offset, True)


_CANONICAL = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z")


@functools.lru_cache(maxsize=8192)
def parse_rfc3339(text: str) -> GoTime:
    """metav1.Time's time.Parse(time.RFC3339, text); TimeParseError with Go's message."""
    match = _CANONICAL.fullmatch(text)
    if match is not None:  # the form the API server writes: checked without the general parser
        year, month, day, hour, minute, sec = (int(g) for g in match.groups())
        if 1 <= month <= 12 and 1 <= day <= days_in(month, year) and hour < 24 and minute < 60 and sec < 60:
            return GoTime(days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + sec, 0, 0)
    return parse(RFC3339, text)


@functools.lru_cache(maxsize=8192)
def canonical_rfc3339(text: str) -> str:
    """The text a metav1.Time field holds once the API server has read it: the same instant, in
    UTC, whole seconds (what the scheduler receives). TimeParseError where the API server refuses."""
    t = parse_rfc3339(text)
    if t.offset == 0 and t.nanos == 0 and _CANONICAL.fullmatch(text):
        return text
    return format_rfc3339(t.seconds)


_WIDE = re.compile(r"(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z")


def seconds_of(text: str | None) -> int | None:
    """Seconds since the epoch of a metav1.Time text (None: absent or unreadable); the canonical
    texts of instants outside years 0-9999 (an offset moved them) are read too."""
    if not text:
        return None
    wide = _WIDE.fullmatch(text)
    if wide is not None and not _CANONICAL.fullmatch(text):
        year, month, day, hour, minute, sec = (int(g) for g in wide.groups())
        return days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + sec
    try:
        return parse_rfc3339(text).seconds
    except TimeParseError:
        return None


def yaml_timestamp(value: str) -> GoTime | None:
    """go-yaml v2 parseTimestamp: the instant of an unquoted scalar that starts with four digits
    and a '-' and parses with one of allowedTimestampFormats; None when it is not a timestamp."""
    if len(value) < 5 or value[4] != "-" or not value[:4].isdigit() or not value[:4].isascii():
        return None
    for layout in YAML_TIMESTAMP_LAYOUTS:
        try:
            return parse(layout, value)
        except TimeParseError:
            continue
    return None


__all__ = [
    "GoTime",
    "RFC3339",
    "TimeParseError",
    "canonical_rfc3339",
    "format_rfc3339",
    "marshal_json_text",
    "parse",
    "parse_rfc3339",
    "seconds_of",
    "yaml_timestamp",
]
