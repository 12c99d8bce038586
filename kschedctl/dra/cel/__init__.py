"""CEL device selectors, evaluated as k8s.io/dynamic-resource-allocation/cel does (compile.go, cache.go).

``Cache.get_or_compile(expression)`` compiles once per text: parse, type-check against the
``device`` variable, require a bool (or dyn) result, and turn the expression into closures.
``CompilationResult.device_matches(device)`` builds the ``device`` value the way
DeviceMatches does (attributes and capacity by domain, the driver's name as the domain of
unqualified names, an empty map for an unknown domain, versions parsed as semver) and
evaluates it under the runtime cost limit (resourceapi.CELSelectorExpressionMaxCost).
Errors carry the texts kube reports: ``compilation failed: ERROR: <input>:1:1: ...`` and
runtime messages such as ``no such key: model``.

The implementation is this package's own (see docs/dra.md for why no PyPI CEL library was
used): parser.py, checker.py, interp.py, functions.py, k8slib.py, values.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kschedctl.api.resource import (
    CEL_SELECTOR_EXPRESSION_MAX_COST,
    DeviceAttribute,
    DeviceCapacity,
)
from kschedctl.dra.cel.checker import DYN, CelCheckError, check, type_str
from kschedctl.dra.cel.interp import Ctx, plan
from kschedctl.dra.cel.k8slib import parse_semver
from kschedctl.dra.cel.parser import CelSyntaxError, parse
from kschedctl.dra.cel.values import CelError, DefaultMap, Quantity

__all__ = ["Cache", "CelDevice", "CelRuntimeError", "CompilationResult", "compile_expression"]


class CelRuntimeError(Exception):
    """A selector that failed while evaluating; str() is the message kube reports."""


@dataclass(frozen=True, slots=True)
class CelDevice:
    """The input of a selector (cel.Device): the device's driver and what it publishes."""

    driver: str
    attributes: dict[str, DeviceAttribute]
    capacity: dict[str, DeviceCapacity]
    allow_multiple_allocations: bool | None = None


@dataclass(slots=True)
class CompilationResult:
    expression: str
    error: str | None = None  # "compilation failed: ..." or the bool-result message
    program: Callable[[Ctx], Any] | None = field(default=None, repr=False)
    cost_limit: int = CEL_SELECTOR_EXPRESSION_MAX_COST
    last_cost: int = 0  # runtime cost of the latest evaluation (details.ActualCost())

    def device_matches(self, device: CelDevice, variables: dict[str, Any] | None = None) -> bool:
        """DeviceMatches: True/False, or CelRuntimeError with kube's message."""
        if self.program is None:
            raise CelRuntimeError(self.error or "not compiled")
        if variables is None:
            variables = device_variables(device)
        ctx = Ctx({"device": variables}, self.cost_limit)
        try:
            result = self.program(ctx)
            self.last_cost = ctx.cost
            ctx.check_limit()
        except CelError as exc:
            self.last_cost = ctx.cost
            raise CelRuntimeError(str(exc)) from None
        except RecursionError:
            raise CelRuntimeError("max recursion depth exceeded") from None
        if result is True or result is False:
            return result
        raise CelRuntimeError(
            f"CEL result of type {_result_type(result)} could not be converted to bool: "
            f"type conversion error from '{_result_type(result)}' to 'bool'"
        )


def _result_type(v: Any) -> str:
    from kschedctl.dra.cel.values import type_name

    return type_name(v)


def compile_expression(expression: str, cost_limit: int = CEL_SELECTOR_EXPRESSION_MAX_COST) -> CompilationResult:
    """CompileCELExpression: parse, check, and plan one expression."""
    try:
        ast = parse(expression)
    except CelSyntaxError as exc:
        return CompilationResult(expression, f"compilation failed: {exc}")
    try:
        out_type = check(ast)
    except CelCheckError as exc:
        return CompilationResult(expression, f"compilation failed: {_located(expression, exc.pos, exc.message)}")
    if out_type not in (("bool",), DYN):
        return CompilationResult(expression, f"must evaluate to bool or the unknown type, not {type_str(out_type)}")
    return CompilationResult(expression, None, plan(ast), cost_limit)


def _located(src: str, pos: int, message: str) -> str:
    line_no = src.count("\n", 0, pos) + 1
    line_start = src.rfind("\n", 0, pos) + 1
    line_end = src.find("\n", pos)
    line = src[line_start : None if line_end < 0 else line_end]
    col = pos - line_start
    return f"ERROR: <input>:{line_no}:{col + 1}: {message}\n | {line}\n | {'.' * col}^"


def parse_qualified_name(name: str, default_domain: str) -> tuple[str, str]:
    """cel/compile.go parseQualifiedName: ``domain/id``, or the driver as the domain."""
    sep = name.find("/")
    if sep < 0:
        return default_domain, name
    return name[:sep], name[sep + 1 :]


def device_variables(device: CelDevice) -> dict[str, Any]:
    """The ``device`` value of DeviceMatches. Raises CelRuntimeError like kube when an
    attribute cannot be represented ("attribute X: unsupported attribute value")."""
    attributes: DefaultMap = DefaultMap()
    for name, attr in device.attributes.items():
        domain, ident = parse_qualified_name(name, device.driver)
        attributes.setdefault(domain, {})[ident] = _attribute_value(name, attr)
    capacity: DefaultMap = DefaultMap()
    for name, cap in device.capacity.items():
        domain, ident = parse_qualified_name(name, device.driver)
        raw = cap.raw_value if isinstance(cap.raw_value, str) else str(cap.value)
        capacity.setdefault(domain, {})[ident] = Quantity(cap.value, raw)
    return {
        "driver": device.driver,
        "allowMultipleAllocations": bool(device.allow_multiple_allocations),
        "attributes": attributes,
        "capacity": capacity,
    }


def _attribute_value(name: str, attr: DeviceAttribute) -> Any:
    if attr.kind in ("int", "bool", "string"):
        return attr.value
    if attr.kind == "version":
        try:
            return parse_semver(attr.value)
        except CelError as exc:
            raise CelRuntimeError(f"attribute {name}: parse semantic version: {exc}") from None
    raise CelRuntimeError(f"attribute {name}: unsupported attribute value")


class Cache:
    """cel.Cache: compiled expressions by text, shared by every allocation of a run.

    Also remembers the ``device`` value built for each device and, since a selector's
    verdict depends only on the expression and the device, each (expression, device)
    verdict, so that a device is evaluated once per expression and run.
    """

    def __init__(self, cost_limit: int = CEL_SELECTOR_EXPRESSION_MAX_COST) -> None:
        self.cost_limit = cost_limit
        self._compiled: dict[str, CompilationResult] = {}
        self._inputs: dict[int, tuple[object, dict[str, Any] | CelRuntimeError]] = {}
        self._verdicts: dict[tuple[str, int], bool | CelRuntimeError] = {}
        self.evaluations = 0

    def get_or_compile(self, expression: str) -> CompilationResult:
        result = self._compiled.get(expression)
        if result is None:
            result = compile_expression(expression, self.cost_limit)
            self._compiled[expression] = result
        return result

    def device_matches(self, expression: str, device: CelDevice, key: object) -> bool:
        """The verdict of ``expression`` on ``device``; ``key`` identifies the device for the
        memo (kept alive by the memo). Raises CelRuntimeError."""
        memo_key = (expression, id(key))
        verdict = self._verdicts.get(memo_key)
        if verdict is None:
            entry = self._inputs.get(id(key))
            if entry is None or entry[0] is not key:
                try:
                    variables: dict[str, Any] | CelRuntimeError = device_variables(device)
                except CelRuntimeError as exc:
                    variables = exc
                entry = (key, variables)
                self._inputs[id(key)] = entry
            variables = entry[1]
            if isinstance(variables, CelRuntimeError):
                verdict = variables
            else:
                self.evaluations += 1
                try:
                    verdict = self.get_or_compile(expression).device_matches(device, variables)
                except CelRuntimeError as exc:
                    verdict = exc
            self._verdicts[memo_key] = verdict
        if isinstance(verdict, CelRuntimeError):
            raise verdict
        return verdict
