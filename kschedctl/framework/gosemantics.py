"""Go semantics for plugins: integer arithmetic, rounding, durations, %q and field.Error.

The public face of kschedctl.api.gosemantics (the one implementation, kept in the api layer so that
the API types and admission can use it without importing the framework).
"""

from kschedctl.api.gosemantics import (
    INT32_MAX,
    INT32_MIN,
    INT64_MAX,
    INT64_MIN,
    FieldError,
    aggregate,
    clamp_int64,
    duplicate,
    forbidden,
    go_div,
    go_duration,
    go_duration_ns,
    go_format_float,
    go_json,
    go_mod,
    go_quote,
    go_round,
    go_value,
    int64,
    int64_div,
    internal,
    invalid,
    is_int64,
    not_found,
    not_supported,
    parse_duration,
    parse_go_duration,
    required,
)

__all__ = [
    "FieldError", "INT32_MAX", "INT32_MIN", "INT64_MAX", "INT64_MIN", "aggregate", "clamp_int64", "duplicate",
    "forbidden", "go_div", "go_duration", "go_duration_ns", "go_format_float", "go_json", "go_mod", "go_quote",
    "go_round", "go_value", "int64", "int64_div", "internal", "invalid", "is_int64", "not_found", "not_supported",
    "parse_duration", "parse_go_duration", "required",
]
