"""Typed plugin args: one frozen dataclass per args kind, decoded strictly, defaulted and
validated in one place.

Upstream: pkg/scheduler/apis/config/types_pluginargs.go (the args types),
apis/config/v1/defaults.go (SetDefaults_<Kind>), apis/config/validation/validation_pluginargs.go
(Validate<Kind>) and the scheme's strict decoding (unknown fields are errors).

An args kind subclasses ``PluginArgs`` as a frozen dataclass; nested objects subclass
``ArgsStruct``. Field names are Python's; the JSON name is the camelCase of it (or
``field(metadata={"json": ...})``). Field types drive the decoding: ``str``, ``bool``,
``float``, ``Int32`` / ``Int64`` (ints in Go's ranges), ``tuple[T, ...]`` (a JSON list),
``T | None`` (absent or null: None, the Go nil pointer defaulting fills in), a nested
``ArgsStruct``, or ``Raw`` (any JSON value, taken as is: an embedded API object).

    @dataclass(frozen=True)
    class MyArgs(PluginArgs):
        KIND: ClassVar[str] = "MyArgs"
        mode: str | None = None

        def defaulted(self, features): return replace(self, mode=self.mode or "Least")
        def validate(self, features): return [] if self.mode in ("Least", "Most") else
                                              [invalid("mode", self.mode, "invalid mode")]

``MyArgs.from_dict(data, features)`` decodes and defaults (raising ``ArgsError`` with every
decoding error), ``args.validate(features)`` gives field errors with paths relative to the
args object, ``args.to_dict()`` the JSON form.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Annotated, Any, ClassVar, TypeVar, Union

from kschedctl.framework.gosemantics import (
    INT32_MAX,
    INT32_MIN,
    INT64_MAX,
    INT64_MIN,
    FieldError,
    go_quote,
    go_value,
    invalid,
)

if typing.TYPE_CHECKING:
    from kschedctl.framework.features import Features

API_VERSION = "kubescheduler.config.k8s.io/v1"


@dataclass(frozen=True)
class _IntRange:
    """``Annotated`` metadata of Int32 and Int64 args fields: the inclusive range decoding accepts (and a schema must state)."""

    low: int
    high: int


class _RawMarker:
    """A field taken as any JSON value (an embedded API object)."""


Int32 = Annotated[int, _IntRange(INT32_MIN, INT32_MAX)]
Int64 = Annotated[int, _IntRange(INT64_MIN, INT64_MAX)]
Raw = Annotated[Any, _RawMarker()]

_TYPE_NAMES = {bool: "a boolean", int: "an integer", str: "a string", float: "a number", tuple: "a list", dict: "an object"}

A = TypeVar("A", bound="ArgsStruct")


class ArgsError(ValueError):
    """Strict decoding failed: every (path relative to the args, message), the first as
    ``field`` / ``message``."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors
        self.field = errors[0].field if errors else ""
        self.message = errors[0].body if errors else ""


def json_name(python_name: str) -> str:
    head, *rest = python_name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def describe_value(value: Any) -> str:
    """A bad value in a decoding message (as the JSON Schema stage words it): scalars as
    field.Error prints them (go_value), objects and lists by their kind."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return go_value(value)
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def did_you_mean(key: str, allowed: set[str] | list[str]) -> str:
    """' (did you mean "x"?)' for an unknown field close to a known one."""
    allowed = sorted(allowed)
    import difflib  # only for a name that is not known: a suggestion

    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.75)
    if not close:
        lower = {a.lower(): a for a in allowed}
        if key.lower() in lower:
            close = [lower[key.lower()]]
    return f' (did you mean "{close[0]}"?)' if close else ""


def _join(path: str, child: str | int) -> str:
    if isinstance(child, int):
        return f"{path}[{child}]"
    return f"{path}.{child}" if path else child


class _Decoder:
    """Strict decoding of JSON values into the types of the args dataclasses."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def fail(self, path: str, body: str) -> None:
        self.errors.append(FieldError(path, body))

    def wrong_type(self, path: str, value: Any, tp: Any) -> None:
        self.fail(path, f"Invalid value: {describe_value(value)}: must be {_TYPE_NAMES.get(tp, 'valid')}")

    def value(self, tp: Any, value: Any, path: str) -> Any:
        origin = typing.get_origin(tp)
        if origin is Annotated:
            base, *meta = typing.get_args(tp)
            if any(isinstance(m, _RawMarker) for m in meta):
                return value
            out = self.value(base, value, path)
            for m in meta:
                if isinstance(m, _IntRange) and isinstance(out, int):
                    if out < m.low:
                        self.fail(path, f"Invalid value: {out}: out of range, must be >= {m.low}")
                    elif out > m.high:
                        self.fail(path, f"Invalid value: {out}: out of range, must be <= {m.high}")
            return out
        if origin in (Union, types.UnionType):
            options = [a for a in typing.get_args(tp) if a is not type(None)]
            if value is None:
                return None
            return self.value(options[0], value, path)
        if origin is tuple:
            item = typing.get_args(tp)[0]
            if not isinstance(value, list):
                self.wrong_type(path, value, tuple)
                return ()
            return tuple(self.value(item, v, _join(path, i)) for i, v in enumerate(value))
        if tp is Any:
            return value
        if isinstance(tp, type) and issubclass(tp, ArgsStruct):
            return self.struct(tp, value, path)
        if tp is bool:
            if not isinstance(value, bool):
                self.wrong_type(path, value, bool)
            return value if isinstance(value, bool) else False
        if tp is int:
            if isinstance(value, float) and value.is_integer():
                return int(value)  # a JSON number without a fraction is an integer
            if isinstance(value, bool) or not isinstance(value, int):
                self.wrong_type(path, value, int)
                return 0
            return value
        if tp is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.wrong_type(path, value, float)
                return 0.0
            return float(value)
        if tp is str:
            if not isinstance(value, str):
                self.wrong_type(path, value, str)
                return ""
            return value
        if typing.get_origin(tp) is dict or tp is dict:
            if not isinstance(value, dict):
                self.wrong_type(path, value, dict)
                return {}
            return value
        raise TypeError(f"args field type {tp!r} at {path or 'args'} is not supported")

    def struct(self, cls: type[A], value: Any, path: str) -> A:
        if not isinstance(value, Mapping):
            self.wrong_type(path, value, dict)
            return cls()
        hints = typing.get_type_hints(cls, include_extras=True)
        by_json = {_json_of(f): f for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, item in value.items():
            if path == "" and issubclass(cls, PluginArgs) and key in ("apiVersion", "kind"):
                wanted = API_VERSION if key == "apiVersion" else cls.KIND
                if item != wanted:
                    self.fail(key, f"Invalid value: {describe_value(item)}: must be {go_quote(wanted)}")
                continue
            f = by_json.get(key) if isinstance(key, str) else None
            if f is None:
                self.fail(_join(path, str(key)), f'unknown field "{key}"{did_you_mean(str(key), set(by_json))}')
                continue
            kwargs[f.name] = self.value(hints[f.name], item, _join(path, key))
        return cls(**kwargs)


def _json_of(f: dataclasses.Field[Any]) -> str:
    return f.metadata.get("json") or json_name(f.name)


def _to_json(value: Any) -> Any:
    if isinstance(value, ArgsStruct):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    return value


@dataclass(frozen=True)
class ArgsStruct:
    """A nested object of plugin args (ResourceSpec, ScoringStrategy, ...)."""

    @classmethod
    def decode(cls: type[A], data: Any, path: str = "") -> A:
        """Strict decoding only (no defaulting); ArgsError lists every problem."""
        decoder = _Decoder()
        out = decoder.struct(cls, {} if data is None else data, path)
        if decoder.errors:
            raise ArgsError(decoder.errors)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: camelCase names, unset (None) fields left out."""
        return {_json_of(f): _to_json(getattr(self, f.name)) for f in fields(self) if getattr(self, f.name) is not None}


P = TypeVar("P", bound="PluginArgs")


@dataclass(frozen=True)
class PluginArgs(ArgsStruct):
    """The args of one plugin kind (e.g. NodeResourcesFitArgs)."""

    KIND: ClassVar[str] = ""

    @classmethod
    def from_dict(cls: type[P], data: Mapping[str, Any] | None, features: "Features | None" = None) -> P:
        """Strict decoding, then v1 defaulting: what the plugin gets when its pluginConfig
        says ``data`` (None: no pluginConfig entry)."""
        return cls.decode(data).defaulted(features)

    @classmethod
    def of(cls: type[P], args: "P | Mapping[str, Any] | None", features: "Features | None" = None) -> P:
        """What a plugin's New does with its args: decoded and defaulted when given as a dict
        (or None), then validated; invalid args raise ArgsError (a ValueError) with the
        messages configuration validation reports."""
        typed = args if isinstance(args, cls) else cls.from_dict(typing.cast("Mapping[str, Any] | None", args), features)
        errors = typed.validate(features)
        if errors:
            raise ArgsError(list(errors))
        return typed

    def defaulted(self: P, features: "Features | None") -> P:
        """SetDefaults_<Kind>: unset fields filled in (the instance is frozen: a new one)."""
        return self

    def validate(self, features: "Features | None") -> list[FieldError]:
        """Validate<Kind>: field errors, paths relative to the args (empty: valid)."""
        return []


def field_types(cls: type[ArgsStruct]) -> dict[str, Any]:
    """JSON name -> annotated type of each field (the schema test walks these)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    return {_json_of(f): hints[f.name] for f in fields(cls)}


def _schema_types(node: Mapping[str, Any]) -> set[str]:
    t = node.get("type")
    return set(t) if isinstance(t, list) else {t} if isinstance(t, str) else set()


def schema_problems(cls: type[ArgsStruct], schema: Mapping[str, Any]) -> list[str]:
    """Where a JSON Schema of args and the args dataclass disagree (field names, types, int
    ranges, strictness), as readable lines; [] when they agree. Lets a test hold a shipped
    schema to its dataclass."""
    defs = schema.get("$defs") or {}

    def resolve(node: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = node.get("$ref")
        return defs.get(ref.rsplit("/", 1)[-1], {}) if isinstance(ref, str) else node

    problems: list[str] = []

    def check_struct(struct: type[ArgsStruct], node: Mapping[str, Any], path: str) -> None:
        node = resolve(node)
        props = dict(node.get("properties") or {})
        if issubclass(struct, PluginArgs):
            props.pop("apiVersion", None)
            props.pop("kind", None)
        if node.get("additionalProperties") is not False:
            problems.append(f"{path or '<args>'}: the schema allows unknown fields")
        types_ = field_types(struct)
        for name in sorted(set(props) ^ set(types_)):
            where = "schema" if name in props else "dataclass"
            problems.append(f"{_join(path, name)}: only in the {where}")
        for name in sorted(set(props) & set(types_)):
            check(types_[name], props[name], _join(path, name))

    def check(tp: Any, node: Mapping[str, Any], path: str) -> None:
        node = resolve(node)
        origin = typing.get_origin(tp)
        if origin is Annotated:
            base, *meta = typing.get_args(tp)
            if any(isinstance(m, _RawMarker) for m in meta):
                return
            for m in meta:
                if isinstance(m, _IntRange) and (node.get("minimum"), node.get("maximum")) != (m.low, m.high):
                    problems.append(
                        f"{path}: range [{node.get('minimum')}, {node.get('maximum')}] in the schema, [{m.low}, {m.high}] in the dataclass"
                    )
            check(base, node, path)
            return
        if origin in (Union, types.UnionType):
            check([a for a in typing.get_args(tp) if a is not type(None)][0], node, path)
            return
        want = (
            "array"
            if origin is tuple
            else "object"
            if (isinstance(tp, type) and issubclass(tp, ArgsStruct)) or tp is dict or origin is dict
            else {bool: "boolean", int: "integer", str: "string", float: "number"}.get(tp)
        )
        if want is not None and want not in _schema_types(node):
            problems.append(f"{path}: {sorted(_schema_types(node))} in the schema, {want} in the dataclass")
        if origin is tuple:
            check(typing.get_args(tp)[0], node.get("items") or {}, f"{path}[]")
        elif isinstance(tp, type) and issubclass(tp, ArgsStruct):
            check_struct(tp, node, path)

    check_struct(cls, schema, "")
    return problems


__all__ = [
    "API_VERSION",
    "ArgsError",
    "ArgsStruct",
    "Int32",
    "Int64",
    "PluginArgs",
    "Raw",
    "describe_value",
    "did_you_mean",
    "field_types",
    "invalid",
    "json_name",
    "schema_problems",
]
