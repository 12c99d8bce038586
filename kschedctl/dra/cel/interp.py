"""Evaluation of a checked CEL expression, turned once into nested Python closures.

Semantics follow cel-go's interpreter (interpreter/interpretable.go): strict function calls,
``&&``/``||`` that let a definite false/true win over an error, macros as folds with the same
error behaviour, and a runtime cost tracked roughly as interpreter/runtimecost.go does it
(one per identifier and qualifier, a call's cost from functions.call_cost, list/map creation
10/30), so that runaway expressions stop with "operation cancelled: actual cost limit exceeded".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
from kschedctl.dra.cel.functions import FUNCTIONS, call_cost, dispatch, is_of_kind
from kschedctl.dra.cel.values import (
    OPTIONAL_NONE,
    CelError,
    CostLimitExceeded,
    DefaultMap,
    Optional,
    cel_equal,
    go_type_name,
    map_find,
)

LIST_CREATE_COST = 10
MAP_CREATE_COST = 30
COST_LIMIT_MESSAGE = "operation cancelled: actual cost limit exceeded"


class Ctx:
    """One evaluation: the variables in scope and the cost so far."""

    __slots__ = ("vars", "cost", "limit")

    def __init__(self, variables: dict[str, Any], limit: int) -> None:
        self.vars = variables
        self.cost = 0
        self.limit = limit

    def check_limit(self) -> None:
        if self.cost > self.limit:
            raise CostLimitExceeded(COST_LIMIT_MESSAGE)


Fn = Callable[[Ctx], Any]


def _bool(v: Any) -> bool:
    if v is True or v is False:
        return v
    raise CelError("no such overload")


def _qualify(operand: Any, key: Any, field: bool) -> Any:
    """Select a field or index a value: maps by key (DRA's attribute maps default to {})."""
    if isinstance(operand, dict):
        found, v = map_find(operand, key)
        if found:
            return v
        if isinstance(operand, DefaultMap):
            return {}
        raise CelError(f"no such key: {_fmt(key)}")
    if isinstance(operand, (list, tuple)) and not field:
        return FUNCTIONS["_[_]"][0].impl(operand, key)
    if isinstance(operand, Optional):
        raise CelError("no such overload")
    raise CelError(f"no such key: {_fmt(key)}" if field else "no such overload")


def _fmt(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


class Planner:
    def plan(self, node: Node) -> Fn:
        method: Callable[[Node], Fn] = getattr(self, "_" + type(node).__name__)
        return method(node)

    def _Literal(self, node: Literal) -> Fn:
        value = node.value
        return lambda ctx: value

    def _Ident(self, node: Ident) -> Fn:
        name = node.name

        def ident(ctx: Ctx) -> Any:
            ctx.cost += 1
            try:
                return ctx.vars[name]
            except KeyError:
                raise CelError(f"no such attribute(s): {name}") from None

        return ident

    def _Select(self, node: Select) -> Fn:
        operand = self.plan(node.operand)
        name = node.field
        if node.test_only:

            def has(ctx: Ctx) -> bool:
                v = operand(ctx)
                if isinstance(v, dict):
                    return map_find(v, name)[0]
                raise CelError("no such overload")

            return has
        if node.optional:

            def opt_select(ctx: Ctx) -> Optional:
                v = operand(ctx)
                ctx.cost += 1
                if isinstance(v, Optional):
                    if not v.has:
                        return OPTIONAL_NONE
                    v = v.value
                if isinstance(v, dict):
                    found, item = map_find(v, name)
                    return Optional(item, True) if found else OPTIONAL_NONE
                raise CelError("no such overload")

            return opt_select

        def select(ctx: Ctx) -> Any:
            v = operand(ctx)
            ctx.cost += 1
            if type(v) is DefaultMap or type(v) is dict:
                try:
                    return v[name]
                except KeyError:
                    pass
            return _qualify(v, name, True)

        return select

    def _Index(self, node: Index) -> Fn:
        operand = self.plan(node.operand)
        index = self.plan(node.index)
        if node.optional:

            def opt_index(ctx: Ctx) -> Optional:
                v = operand(ctx)
                k = index(ctx)
                ctx.cost += 1
                if isinstance(v, Optional):
                    if not v.has:
                        return OPTIONAL_NONE
                    v = v.value
                if isinstance(v, dict):
                    found, item = map_find(v, k)
                    return Optional(item, True) if found else OPTIONAL_NONE
                if isinstance(v, (list, tuple)):
                    if isinstance(k, int) and not isinstance(k, bool) and 0 <= k < len(v):
                        return Optional(v[k], True)
                    return OPTIONAL_NONE
                raise CelError("no such overload")

            return opt_index

        def idx(ctx: Ctx) -> Any:
            v = operand(ctx)
            k = index(ctx)
            ctx.cost += 1
            return _qualify(v, k, False)

        return idx

    def _ListLit(self, node: ListLit) -> Fn:
        elems = [self.plan(e) for e in node.elements]
        optional = node.optional_indices

        def make_list(ctx: Ctx) -> list[Any]:
            out: list[Any] = []
            for i, e in enumerate(elems):
                v = e(ctx)
                if i in optional:
                    if not isinstance(v, Optional):
                        raise CelError(f"cannot initialize optional list element from non-optional value {v}")
                    if v.has:
                        out.append(v.value)
                    continue
                out.append(v)
            ctx.cost += LIST_CREATE_COST
            return out

        return make_list

    def _MapLit(self, node: MapLit) -> Fn:
        entries = [(self.plan(k), self.plan(v), opt) for k, v, opt in node.entries]

        def make_map(ctx: Ctx) -> dict[Any, Any]:
            out: dict[Any, Any] = {}
            for kf, vf, opt in entries:
                k, v = kf(ctx), vf(ctx)
                if isinstance(k, (list, dict, float)) or k is None:
                    raise CelError(f"unsupported key type: {go_type_name(k)}")
                if map_find(out, k)[0]:
                    raise CelError(f"insert failed: key {_fmt(k)} already exists")
                if opt:
                    if not isinstance(v, Optional):
                        raise CelError(f"cannot initialize optional entry '{_fmt(k)}' from non-optional value {v}")
                    if not v.has:
                        continue
                    v = v.value
                out[k] = v
            ctx.cost += MAP_CREATE_COST
            return out

        return make_map

    def _Call(self, node: Call) -> Fn:
        name = node.function
        args = ([self.plan(node.target)] if node.target is not None else []) + [self.plan(a) for a in node.args]
        if name == "_&&_":
            return self._and(args[0], args[1])
        if name == "_||_":
            return self._or(args[0], args[1])
        if name == "_?_:_":
            cond, truthy, falsy = args

            def ternary(ctx: Ctx) -> Any:
                return truthy(ctx) if _bool(cond(ctx)) else falsy(ctx)

            return ternary
        overloads = FUNCTIONS[name]
        member = node.target is not None
        candidates = [ov for ov in overloads if ov.member == member and len(ov.params) == len(args)] or overloads
        if name in ("_==_", "_!=_"):
            negate = name == "_!=_"
            lhs, rhs = args

            def eq(ctx: Ctx) -> bool:
                a, b = lhs(ctx), rhs(ctx)
                ctx.cost += call_cost(name, [a, b], None)
                return cel_equal(a, b) != negate

            return eq
        if len(candidates) == 1:
            impl = candidates[0].impl
            params = candidates[0].params

            def call_one(ctx: Ctx) -> Any:
                vals = [a(ctx) for a in args]
                for v, p in zip(vals, params):
                    if not is_of_kind(v, p):
                        raise CelError("no such overload")
                result = impl(*vals)
                ctx.cost += call_cost(name, vals, result)
                return result

            return call_one

        def call(ctx: Ctx) -> Any:
            vals = [a(ctx) for a in args]
            result = dispatch(name, candidates, vals)
            ctx.cost += call_cost(name, vals, result)
            return result

        return call

    @staticmethod
    def _and(lhs: Fn, rhs: Fn) -> Fn:
        def and_(ctx: Ctx) -> bool:
            try:
                left = lhs(ctx)
                if left is False:
                    return False
                if left is not True:
                    raise CelError("no such overload")
            except CostLimitExceeded:
                raise
            except CelError as err:
                right = rhs(ctx)
                if right is False:
                    return False
                raise err
            right = rhs(ctx)
            if right is True or right is False:
                return right
            raise CelError("no such overload")

        return and_

    @staticmethod
    def _or(lhs: Fn, rhs: Fn) -> Fn:
        def or_(ctx: Ctx) -> bool:
            try:
                left = lhs(ctx)
                if left is True:
                    return True
                if left is not False:
                    raise CelError("no such overload")
            except CostLimitExceeded:
                raise
            except CelError as err:
                right = rhs(ctx)
                if right is True:
                    return True
                raise err
            right = rhs(ctx)
            if right is True or right is False:
                return right
            raise CelError("no such overload")

        return or_

    def _Comprehension(self, node: Comprehension) -> Fn:
        rng = self.plan(node.iter_range)
        body = self.plan(node.body)
        extra = self.plan(node.extra) if node.extra is not None else None
        var, var2, kind = node.var, node.var2, node.kind

        if kind == "bind":

            def bind(ctx: Ctx) -> Any:
                value = rng(ctx)
                return _with_var(ctx, var, value, body)

            return bind
        if kind in ("optMap", "optFlatMap"):

            def opt_map(ctx: Ctx) -> Any:
                o = rng(ctx)
                if not isinstance(o, Optional):
                    raise CelError("no such overload")
                if not o.has:
                    return OPTIONAL_NONE
                result = _with_var(ctx, var, o.value, body)
                return Optional(result, True) if kind == "optMap" else result

            return opt_map

        def items(ctx: Ctx) -> list[tuple[Any, Any]]:
            r = rng(ctx)
            if isinstance(r, (list, tuple)):
                return [(i, v) for i, v in enumerate(r)] if var2 else [(v, None) for v in r]
            if isinstance(r, dict):
                return list(r.items())
            raise CelError(f"got '{go_type_name(r)}', expected iterable type")

        def run(ctx: Ctx) -> Any:
            pairs = items(ctx)
            saved = {k: ctx.vars[k] for k in (var, var2) if k is not None and k in ctx.vars}
            try:
                return _FOLDS[kind](ctx, pairs, var, var2, body, extra)
            finally:
                for k in (var, var2):
                    if k is not None:
                        ctx.vars.pop(k, None)
                ctx.vars.update(saved)

        return run


def _with_var(ctx: Ctx, name: str, value: Any, body: Fn) -> Any:
    missing = object()
    saved = ctx.vars.get(name, missing)
    ctx.vars[name] = value
    try:
        return body(ctx)
    finally:
        if saved is missing:
            del ctx.vars[name]
        else:
            ctx.vars[name] = saved


def _bind(ctx: Ctx, var: str, var2: str | None, a: Any, b: Any) -> None:
    ctx.vars[var] = a
    if var2 is not None:
        ctx.vars[var2] = b


def _fold_all(ctx: Ctx, pairs: list[tuple[Any, Any]], var: str, var2: str | None, body: Fn, extra: Fn | None, want: bool = False) -> bool:
    err: CelError | None = None
    for a, b in pairs:
        ctx.cost += 4
        ctx.check_limit()
        _bind(ctx, var, var2, a, b)
        try:
            v = body(ctx)
        except CostLimitExceeded:
            raise
        except CelError as exc:
            if err is None:
                err = exc
            continue
        if v is want:
            return bool(want)  # (``is`` narrows ``want`` to v's type)
        if v is not (not want):
            if err is None:
                err = CelError("no such overload")
    if err is not None:
        raise err
    return not want


def _fold_exists(ctx: Ctx, pairs: list[tuple[Any, Any]], var: str, var2: str | None, body: Fn, extra: Fn | None) -> bool:
    return _fold_all(ctx, pairs, var, var2, body, extra, want=True)


def _fold_exists_one(ctx: Ctx, pairs: list[tuple[Any, Any]], var: str, var2: str | None, body: Fn, extra: Fn | None) -> bool:
    count = 0
    for a, b in pairs:
        ctx.cost += 2
        ctx.check_limit()
        _bind(ctx, var, var2, a, b)
        if _bool(body(ctx)):
            count += 1
    return count == 1


def _fold_map(ctx: Ctx, pairs: list[tuple[Any, Any]], var: str, var2: str | None, body: Fn, extra: Fn | None) -> list[Any]:
    out: list[Any] = []
    for a, b in pairs:
        ctx.cost += 12
        ctx.check_limit()
        _bind(ctx, var, var2, a, b)
        if extra is not None and not _bool(extra(ctx)):
            continue
        out.append(body(ctx))
    return out


def _fold_filter(ctx: Ctx, pairs: list[tuple[Any, Any]], var: str, var2: str | None, body: Fn, extra: Fn | None) -> list[Any]:
    out: list[Any] = []
    for a, b in pairs:
        ctx.cost += 12
        ctx.check_limit()
        _bind(ctx, var, var2, a, b)
        if _bool(body(ctx)):
            out.append(a)
    return out


def _fold_transform_map(ctx: Ctx, pairs: list[tuple[Any, Any]], var: str, var2: str | None, body: Fn, extra: Fn | None) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for a, b in pairs:
        ctx.cost += 32
        ctx.check_limit()
        _bind(ctx, var, var2, a, b)
        if extra is not None and not _bool(extra(ctx)):
            continue
        out[a] = body(ctx)
    return out


def _fold_transform_map_entry(
    ctx: Ctx, pairs: list[tuple[Any, Any]], var: str, var2: str | None, body: Fn, extra: Fn | None
) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for a, b in pairs:
        ctx.cost += 32
        ctx.check_limit()
        _bind(ctx, var, var2, a, b)
        if extra is not None and not _bool(extra(ctx)):
            continue
        entry = body(ctx)
        if not isinstance(entry, dict):
            raise CelError("no such overload")
        for k, v in entry.items():
            if map_find(out, k)[0]:
                raise CelError(f"insert failed: key {_fmt(k)} already exists")
            out[k] = v
    return out


def _fold_sort_by(ctx: Ctx, pairs: list[tuple[Any, Any]], var: str, var2: str | None, body: Fn, extra: Fn | None) -> list[Any]:
    import functools

    from kschedctl.dra.cel.values import cel_compare

    keyed: list[tuple[Any, Any]] = []
    for a, _ in pairs:
        ctx.cost += 12
        _bind(ctx, var, var2, a, None)
        keyed.append((body(ctx), a))

    def by_key(x: tuple[Any, Any], y: tuple[Any, Any]) -> int:
        return cel_compare(x[0], y[0])

    keyed.sort(key=functools.cmp_to_key(by_key))
    return [a for _, a in keyed]


# A comprehension's loop: (ctx, (key or index, value) pairs, var, var2, body, extra) -> result.
Fold = Callable[[Ctx, list[tuple[Any, Any]], str, str | None, Fn, Fn | None], Any]
_FOLDS: dict[str, Fold] = {
    "all": _fold_all,
    "exists": _fold_exists,
    "exists_one": _fold_exists_one,
    "map": _fold_map,
    "filter": _fold_filter,
    "transformList": _fold_map,
    "transformMap": _fold_transform_map,
    "transformMapEntry": _fold_transform_map_entry,
    "sortBy": _fold_sort_by,
}


def plan(node: Node) -> Fn:
    return Planner().plan(node)
