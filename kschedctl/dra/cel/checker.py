"""Type checking of a parsed expression, as cel-go's checker does it for DRA's environment.

The ``device`` variable is the object type ``kubernetes.DRADevice`` of
dynamic-resource-allocation/cel/compile.go (driver, allowMultipleAllocations, attributes as
map(string, map(string, dyn)), capacity as map(string, map(string, kubernetes.Quantity))).
The checker reports what cel-go reports for the mistakes a selector can make: an undeclared
identifier or function, an undefined field, an overload that cannot match, a heterogeneous
literal. It also rewrites qualified function names (``sets.contains``) into global calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from kschedctl.dra.cel.ast import (
    Call,
    Comprehension,
    Ident,
    Index,
    ListLit,
    Literal,
    MapLit,
    Node,
    Select,
)
from kschedctl.dra.cel.functions import FUNCTIONS, NOT_MODELLED
from kschedctl.dra.cel.values import Bytes, UInt

# A CEL type: its kind first, then its parameters, e.g. ("int",), ("list", elem),
# ("map", key, value), ("opt", inner), ("obj", type name), ("param", "A"). The parameters are
# types or names by kind, hence Any.
T: TypeAlias = tuple[Any, ...]
DYN: T = ("dyn",)
BOOL: T = ("bool",)
INT: T = ("int",)
STRING: T = ("string",)
DEVICE_TYPE_NAME = "kubernetes.DRADevice"
DEVICE_FIELDS: dict[str, T] = {
    "driver": STRING,
    "allowMultipleAllocations": BOOL,
    "attributes": ("map", STRING, ("map", STRING, DYN)),
    "capacity": ("map", STRING, ("map", STRING, ("Q",))),
}


class CelCheckError(Exception):
    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos = pos
        self.message = message


def type_str(t: T) -> str:
    kind: str = t[0]
    if kind == "list":
        return f"list({type_str(t[1])})"
    if kind == "map":
        return f"map({type_str(t[1])}, {type_str(t[2])})"
    if kind == "opt":
        return f"optional_type({type_str(t[1])})"
    if kind in ("obj", "param"):
        name: str = t[1]
        return name
    return {"null": "null_type", "Q": "kubernetes.Quantity", "S": "kubernetes.Semver"}.get(kind, kind)


def _parse_sig(s: str) -> T:
    if s.startswith("list("):
        return ("list", _parse_sig(s[5:-1]))
    if s.startswith("map("):
        k, v = s[4:-1].split(",")
        return ("map", _parse_sig(k), _parse_sig(v))
    if s.startswith("opt("):
        return ("opt", _parse_sig(s[4:-1]))
    if s in ("A", "B"):
        return ("param", s)
    return (s,)


_SIGS: dict[str, list[tuple[tuple[T, ...], T, bool]]] = {
    name: [(tuple(_parse_sig(p) for p in ov.params), _parse_sig(ov.result), ov.member) for ov in ovs] for name, ovs in FUNCTIONS.items()
}


def _literal_type(v: Any) -> T:
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, UInt):
        return ("uint",)
    if isinstance(v, int):
        return INT
    if isinstance(v, float):
        return ("double",)
    if isinstance(v, str):
        return STRING
    if isinstance(v, (bytes, Bytes)):
        return ("bytes",)
    return ("null",)


def _unify(param: T, arg: T, binding: dict[str, T]) -> bool:
    if arg == DYN or param == DYN:
        return True
    if param[0] == "param":
        bound = binding.get(param[1])
        if bound is None or bound == DYN:
            binding[param[1]] = arg
            return True
        return _unify(bound, arg, {})
    if param[0] != arg[0] or len(param) != len(arg):
        return False
    return all(_unify(p, a, binding) for p, a in zip(param[1:], arg[1:]))


def _subst(t: T, binding: dict[str, T]) -> T:
    if t[0] == "param":
        return binding.get(t[1], DYN)
    if t[0] in ("list", "opt"):
        return (t[0], _subst(t[1], binding))
    if t[0] == "map":
        return ("map", _subst(t[1], binding), _subst(t[2], binding))
    return t


def _join(a: T, b: T) -> T | None:
    if a == b:
        return a
    if a == DYN or b == DYN:
        return DYN
    if a[0] == b[0] and a[0] in ("list", "map", "opt"):
        parts = [_join(x, y) for x, y in zip(a[1:], b[1:])]
        if any(p is None for p in parts):
            return None
        return (a[0], *parts)
    return None


class Checker:
    def __init__(self) -> None:
        self.scopes: list[dict[str, T]] = []

    def check(self, node: Node) -> T:
        method: Callable[[Node], T] = getattr(self, "_" + type(node).__name__)
        return method(node)

    def _lookup(self, name: str) -> T | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name == "device":
            return ("obj", DEVICE_TYPE_NAME)
        return None

    def _Literal(self, node: Literal) -> T:
        return _literal_type(node.value)

    def _Ident(self, node: Ident) -> T:
        t = self._lookup(node.name)
        if t is None:
            raise CelCheckError(node.pos, f"undeclared reference to '{node.name}' (in container '')")
        return t

    def _Select(self, node: Select) -> T:
        operand = self.check(node.operand)
        if node.optional:
            inner = operand[1] if operand[0] == "opt" else operand
            result = self._field_type(inner, node)
            return ("opt", result)
        result = self._field_type(operand[1] if operand[0] == "opt" else operand, node)
        return BOOL if node.test_only else result

    def _field_type(self, operand: T, node: Select) -> T:
        if operand == DYN:
            return DYN
        if operand[0] == "obj":
            field_t = DEVICE_FIELDS.get(node.field)
            if field_t is None:
                raise CelCheckError(node.pos, f"undefined field '{node.field}'")
            return field_t
        if operand[0] == "map":
            value: T = operand[2]
            return value
        raise CelCheckError(node.pos, f"type '{type_str(operand)}' does not support field selection")

    def _Index(self, node: Index) -> T:
        operand = self.check(node.operand)
        index = self.check(node.index)
        if node.optional:
            inner = operand[1] if operand[0] == "opt" else operand
            return ("opt", self._index_type(inner, index, node))
        return self._index_type(operand, index, node)

    def _index_type(self, operand: T, index: T, node: Node) -> T:
        if operand == DYN:
            return DYN
        if operand[0] == "list" and index in (INT, ("uint",), DYN):
            elem: T = operand[1]
            return elem
        if operand[0] == "map" and (_unify(operand[1], index, {}) or index[0] in ("int", "uint", "double")):
            value: T = operand[2]
            return value
        raise CelCheckError(node.pos, f"found no matching overload for '_[_]' applied to '({type_str(operand)}, {type_str(index)})'")

    def _ListLit(self, node: ListLit) -> T:
        elem: T | None = None
        for i, e in enumerate(node.elements):
            t = self.check(e)
            if i in node.optional_indices and t[0] == "opt":
                t = t[1]
            if elem is None:
                elem = t
            elif elem != t and DYN not in (elem, t):
                raise CelCheckError(e.pos, f"expected type '{type_str(elem)}' but found '{type_str(t)}'")
            elif t == DYN:
                elem = DYN
        return ("list", elem or DYN)

    def _MapLit(self, node: MapLit) -> T:
        kt: T | None = None
        vt: T = DYN  # set with kt, from the first entry
        for k, v, opt in node.entries:
            a, b = self.check(k), self.check(v)
            if opt and b[0] == "opt":
                b = b[1]
            if kt is None:
                kt, vt = a, b
                continue
            if kt != a and DYN not in (kt, a):
                raise CelCheckError(k.pos, f"expected type '{type_str(kt)}' but found '{type_str(a)}'")
            if vt != b and DYN not in (vt, b):
                raise CelCheckError(v.pos, f"expected type '{type_str(vt)}' but found '{type_str(b)}'")
        return ("map", kt or DYN, vt or DYN)

    def _Call(self, node: Call) -> T:
        # Qualified global names parse as member calls on an identifier (sets.contains(...)).
        if node.target is not None and isinstance(node.target, Ident) and self._lookup(node.target.name) is None:
            qualified = f"{node.target.name}.{node.function}"
            if qualified in FUNCTIONS or qualified in NOT_MODELLED:
                node.function, node.target = qualified, None
        name = node.function
        if name in ("_&&_", "_||_"):
            for arg in node.args:
                t = self.check(arg)
                if t not in (BOOL, DYN):
                    applied = ", ".join(type_str(self.check(x)) for x in node.args)
                    raise CelCheckError(node.pos, f"found no matching overload for '{name}' applied to '({applied})'")
            return BOOL
        if name == "_?_:_":
            cond, a, b = (self.check(x) for x in node.args)
            joined = _join(a, b)
            if cond not in (BOOL, DYN) or joined is None:
                raise CelCheckError(
                    node.pos, f"found no matching overload for '_?_:_' applied to '({type_str(cond)}, {type_str(a)}, {type_str(b)})'"
                )
            return joined
        if name in NOT_MODELLED:
            raise CelCheckError(node.pos, f"function '{name}' is not modelled by kschedctl")
        target_t = self.check(node.target) if node.target is not None else None
        arg_ts = [self.check(a) for a in node.args]
        sigs = _SIGS.get(name)
        if sigs is None:
            raise CelCheckError(node.pos, f"undeclared reference to '{name}' (in container '')")
        member = node.target is not None
        all_args = ([target_t] if target_t is not None else []) + arg_ts
        results: list[T] = []
        for params, result, is_member in sigs:
            if is_member != member or len(params) != len(all_args):
                continue
            binding: dict[str, T] = {}
            if all(_unify(p, a, binding) for p, a in zip(params, all_args)):
                results.append(_subst(result, binding))
        if not results:
            if target_t is not None:
                applied = f"{type_str(target_t)}.({', '.join(type_str(t) for t in arg_ts)})"
            else:
                applied = f"({', '.join(type_str(t) for t in arg_ts)})"
            raise CelCheckError(node.pos, f"found no matching overload for '{name}' applied to '{applied}'")
        first = results[0]
        return first if all(r == first for r in results) else DYN

    def _Comprehension(self, node: Comprehension) -> T:
        if node.kind == "bind":
            init = self.check(node.iter_range)
            self.scopes.append({node.var: init})
            try:
                return self.check(node.body)
            finally:
                self.scopes.pop()
        rng = self.check(node.iter_range)
        if node.kind in ("optMap", "optFlatMap"):
            inner = rng[1] if rng[0] == "opt" else DYN
            self.scopes.append({node.var: inner})
            try:
                body = self.check(node.body)
            finally:
                self.scopes.pop()
            return ("opt", body) if node.kind == "optMap" else body
        if rng == DYN:
            v1, v2 = DYN, DYN
        elif rng[0] == "list":
            v1, v2 = (INT, rng[1]) if node.var2 else (rng[1], DYN)
        elif rng[0] == "map":
            v1, v2 = rng[1], rng[2]
        else:
            raise CelCheckError(
                node.iter_range.pos,
                f"expression of type '{type_str(rng)}' cannot be the range of a comprehension (must be list, map, or dynamic)",
            )
        scope = {node.var: v1}
        if node.var2:
            scope[node.var2] = v2
        self.scopes.append(scope)
        try:
            if node.extra is not None:
                self.check(node.extra)
            body = self.check(node.body)
        finally:
            self.scopes.pop()
        kind = node.kind
        if kind in ("all", "exists", "exists_one", "filter") and body not in (BOOL, DYN):
            raise CelCheckError(node.body.pos, f"found no matching overload for '_&&_' applied to '(bool, {type_str(body)})'")
        if kind in ("all", "exists", "exists_one"):
            return BOOL
        if kind == "map" or kind == "transformList":
            return ("list", body)
        if kind == "filter" or kind == "sortBy":
            return rng if rng != DYN else ("list", DYN)
        if kind == "transformMap":
            return ("map", v1, body)
        return ("map", DYN, DYN)


def check(node: Node) -> T:
    """The static type of ``node``; raises CelCheckError."""
    return Checker().check(node)
