"""Command-line values coerced without pydantic when the result is plain.

typer 0.29 coerces every parameter that is not a boolean flag through a pydantic TypeAdapter,
built on first use (typer/_coercion.py build_runtime_param imports typer._adapters, which imports
pydantic): about 100 ms of a 10-node `schedule` (benchmarks/startup.py). typer offers no switch
around it (a ``parser=`` is wrapped in a TypeAdapter too). The values a command line usually gives
have an obvious result: a string as given, an enum choice spelled exactly, a plain decimal integer,
a number within its bounds, a flag, the parameter's own default. ``PlainRuntimeParam`` returns those
itself and hands anything else to typer's own coercion, built only then, so error messages and edge
cases stay typer's.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any, get_args, get_origin

_PLAIN_INT = re.compile(r"(?:0|-?[1-9][0-9]{0,17})\Z")  # int() and pydantic agree on these
_UNSET = object()


class PlainRuntimeParam:
    """Stands in for typer's RuntimeParam of one parameter (the ``coerce`` it calls)."""

    def __init__(self, param: Any) -> None:
        self._param = param
        self._typer: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        multi = param.multiple or param.nargs == -1
        if value is None:  # as typer's RuntimeParam.coerce
            return () if multi else None
        if not multi:
            plain = _plain(self._param.type_descriptor, value)
            if plain is not _UNSET:
                return plain
        elif isinstance(value, (list, tuple)):
            plain = _plain_list(self._param.type_descriptor, value)
            if plain is not _UNSET:
                return plain
        return self._fallback().coerce(value, param=param, ctx=ctx)

    def _fallback(self) -> Any:
        if self._typer is None:
            from typer._coercion import build_runtime_param

            self._typer = build_runtime_param(self._param.type_descriptor)
        return self._typer


def _plain(descriptor: Any, value: Any) -> Any:
    """The coerced value when it is obvious, else _UNSET (typer decides)."""
    info = descriptor.parameter_info
    if info.parser is not None or descriptor.is_file:
        return _UNSET
    annotation = descriptor.annotation
    if annotation is str:
        return value if type(value) is str else _UNSET
    if annotation is bool:
        return value if type(value) is bool else _UNSET
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        if isinstance(value, annotation):
            return value
        if type(value) is str and info.case_sensitive:
            for member in annotation:
                if member.value == value:
                    return member
        return _UNSET
    if annotation in (int, float) and not getattr(info, "clamp", False):
        if type(value) is str and annotation is int and _PLAIN_INT.match(value):
            value = int(value)
        if type(value) is annotation and _within(value, info.min, info.max):
            return value
    return _UNSET


def _within(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def _plain_list(descriptor: Any, value: list[Any] | tuple[Any, ...]) -> Any:
    """A list[str] of strings as a list, else _UNSET."""
    annotation = descriptor.annotation
    info = descriptor.parameter_info
    if info.parser is not None or descriptor.is_file:
        return _UNSET
    if get_origin(annotation) is list and get_args(annotation) == (str,) and all(type(v) is str for v in value):
        return list(value)
    return _UNSET


def install(params: list[Any]) -> None:
    """Give each typer parameter not yet coerced the plain coercion (typer's stays its fallback)."""
    for param in params:
        if getattr(param, "_runtime_param", _UNSET) is None and hasattr(param, "type_descriptor"):
            param._runtime_param = PlainRuntimeParam(param)
