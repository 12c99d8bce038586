"""Go semantics in one home (kschedctl.framework.gosemantics), pinned to Go's own behaviour.

Cases follow the Go standard library's tests where they exist: time/time_test.go
(durationTests, parseDurationTests), strconv/quote_test.go (quotetests), strconv/ftoa_test.go
(%v / 'g' shortest), and apimachinery/pkg/util/validation/field/errors_test.go (ErrorBody).
"""

from __future__ import annotations

import pytest

from kschedctl.framework import gosemantics as go


@pytest.mark.parametrize(
    "a, b, want",
    [
        pytest.param(7, 2, 3, id="positive"),
        pytest.param(-7, 2, -3, id="negative dividend truncates toward zero"),
        pytest.param(7, -2, -3, id="negative divisor"),
        pytest.param(-7, -2, 3, id="both negative"),
        pytest.param(0, 5, 0, id="zero"),
    ],
)
def test_go_div(a, b, want):
    assert go.go_div(a, b) == want
    assert go.go_mod(a, b) == a - want * b


def test_int64_wraps_like_twos_complement():
    assert go.int64(go.INT64_MAX + 1) == go.INT64_MIN
    assert go.int64(go.INT64_MIN - 1) == go.INT64_MAX
    assert go.int64_div(go.INT64_MIN, -1) == go.INT64_MIN  # Go: MinInt64 / -1 overflows back
    assert go.clamp_int64(go.INT64_MAX * 2) == go.INT64_MAX


@pytest.mark.parametrize("x, want", [(2.5, 3), (-2.5, -3), (0.49999999999999994, 0), (1.5, 2), (-0.5, -1), (3.0, 3)])
def test_go_round_halves_away_from_zero(x, want):
    # math.Round (math/floor.go); Python's round() would give 2 for 2.5
    assert go.go_round(x) == want


@pytest.mark.parametrize(
    "ns, want",
    [
        # time_test.go durationTests
        (0, "0s"),
        (1, "1ns"),
        (1100, "1.1µs"),
        (2_200_000, "2.2ms"),
        (3_300_000_000, "3.3s"),
        (4 * 60_000_000_000 + 5_000_000_000, "4m5s"),
        (4 * 60_000_000_000 + 5_001_000_000, "4m5.001s"),
        (5 * 3_600_000_000_000 + 6 * 60_000_000_000 + 7_001_000_000, "5h6m7.001s"),
        (8 * 60_000_000_000 + 1, "8m0.000000001s"),
        (-1, "-1ns"),
        (-3_300_000_000, "-3.3s"),
    ],
)
def test_duration_string(ns, want):
    assert go.go_duration_ns(ns) == want


@pytest.mark.parametrize(
    "text, seconds",
    [
        # time_test.go parseDurationTests
        ("0", 0.0),
        ("5s", 5.0),
        ("30s", 30.0),
        ("1478s", 1478.0),
        ("-5s", -5.0),
        ("+5s", 5.0),
        ("5.6s", 5.6),
        ("1h1m", 3660.0),
        ("1.5h", 5400.0),
        ("100ms", 0.1),
        ("1m30s", 90.0),
        ("", None),
        ("3", None),
        ("-", None),
        ("s", None),
        (".s", None),
        ("1d", None),
    ],
)
def test_parse_duration(text, seconds):
    got = go.parse_go_duration(text)
    assert got == pytest.approx(seconds) if seconds is not None else got is None


@pytest.mark.parametrize(
    "text, want",
    [
        # strconv/quote_test.go quotetests
        ("\a\b\f\r\n\t\v", '"\\a\\b\\f\\r\\n\\t\\v"'),
        ("\\", '"\\\\"'),
        ("\u00ff", '"\u00ff"'),
        ("\u263a", '"\u263a"'),
        ("\U0010ffff", '"\\U0010ffff"'),
        ("\x04", '"\\x04"'),
        ('"', '"\\""'),
        ("é", '"é"'),
    ],
)
def test_go_quote(text, want):
    assert go.go_quote(text) == want


@pytest.mark.parametrize(
    "value, want",
    [
        (0.5, "0.5"),
        (100.0, "100"),
        (123456.0, "123456"),
        (1e6, "1e+06"),
        (1.5e-5, "1.5e-05"),
        (0.0001, "0.0001"),
        (-2.25, "-2.25"),
        (1e21, "1e+21"),
        (float("inf"), "+Inf"),
    ],
)
def test_float_v(value, want):
    # fmt %v of a float64: strconv.FormatFloat(f, 'g', -1, 64)
    assert go.go_format_float(value) == want


@pytest.mark.parametrize(
    "err, want",
    [
        # field/errors.go ErrorBody: simple values with %v, strings with %q, the rest as JSON
        (go.invalid("spec.x", 0, "must be positive"), "spec.x: Invalid value: 0: must be positive"),
        (go.invalid("spec.x", 'a"b', "bad"), 'spec.x: Invalid value: "a\\"b": bad'),
        (go.invalid("spec.x", True, ""), "spec.x: Invalid value: true"),
        (go.invalid("spec.x", ["a", "<b>"], "bad"), 'spec.x: Invalid value: ["a","\\u003cb\\u003e"]: bad'),
        (go.invalid("spec.x", {"b": 1, "a": None}, "bad"), 'spec.x: Invalid value: {"a":null,"b":1}: bad'),
        (go.required("spec.y"), "spec.y: Required value"),
        (go.required("spec.y", "must be set"), "spec.y: Required value: must be set"),
        (go.forbidden("spec.z", "gate is off"), "spec.z: Forbidden: gate is off"),
        (go.duplicate("spec.d", "n"), 'spec.d: Duplicate value: "n"'),
        (go.not_found("spec.n", "x"), 'spec.n: Not found: "x"'),
        (go.not_supported("type", "Foo", ["A", "B"]), 'type: Unsupported value: "Foo": supported values: "A", "B"'),
        (go.not_supported("op", "Foo", []), 'op: Unsupported value: "Foo"'),
    ],
)
def test_field_error_body(err, want):
    assert str(err) == want
    assert err == (err.field, err.body)  # a FieldError is the (path, body) pair validators return


def test_aggregate_brackets_several_errors():
    assert go.aggregate([("a", "b")]) == "a: b"
    assert go.aggregate([("a", "b"), ("c", "d")]) == "[a: b, c: d]"
