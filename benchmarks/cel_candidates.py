"""How the CEL implementations on PyPI evaluate DRA device selectors, against what kube reports
(the expectations are kube's, from dynamic-resource-allocation/cel/compile_test.go and cel-go).
Run in an environment where the candidates are installed; missing ones are skipped:

    pip install cel-expr-python common-expression-language cel-python
    python benchmarks/cel_candidates.py
"""

from __future__ import annotations

import time
from fractions import Fraction

DEVICE = {
    "driver": "dra.example.com",
    "allowMultipleAllocations": False,
    "attributes": {"dra.example.com": {"model": "a100", "numa": 1, "healthy": True}},
    "capacity": {"dra.example.com": {"memory": "80Gi"}},
}

# (expression, expected): True/False, "error: <text kube reports>", "compile" for a compile error.
TABLE = [
    ('device.driver == "dra.example.com"', True),
    ('device.attributes["dra.example.com"].model == "a100"', True),
    ('device.attributes["dra.example.com"].numa > 0', True),
    ('device.attributes["dra.example.com"].healthy', True),
    ('"other.example.com" in device.attributes', False),
    ('device.attributes["other.example.com"].model == "x"', "error: no such key: model"),
    ('has(device.attributes["other.example.com"].model)', False),
    ('device.attributes["dra.example.com"].missing == 1', "error: no such key: missing"),
    ('device.capacity["dra.example.com"].memory.compareTo(quantity("40Gi")) >= 0', True),
    ('device.capacity["dra.example.com"].memory.isGreaterThan(quantity("100Gi"))', False),
    ('semver("1.2.3").isLessThan(semver("1.10.0"))', True),
    ('isSemver("v1.0", true)', True),
    ('cel.bind(d, device.attributes["dra.example.com"], d.model == "a100" && d.numa == 1)', True),
    ('device.attributes["dra.example.com"].model.lowerAscii() == "a100"', True),
    ('"a,b".split(",").size() == 2', True),
    ("[3, 1, 2].min() == 1 && [1, 2].isSorted()", True),
    ('"gpu-7".find("[0-9]+") == "7"', True),
    ("sets.contains([1, 2, 3], [2])", True),
    ('device.attributes["dra.example.com"].numa == 1.0', True),
    ("1 == 1.0", "compile"),
    ('device.attributes["dra.example.com"].model > 1', "error: no such overload"),
    ('device.attributes["dra.example.com"].numa.exists(x, x > 0)', "error: got 'types.Int', expected iterable type"),
    ("device.foo == 1", "compile"),
    ("1", "compile"),
    ("device.allowMultipleAllocations == false", True),
]


def ours():
    from kschedctl.api.resource import DeviceAttribute, DeviceCapacity
    from kschedctl.dra.cel import CelDevice, CelRuntimeError, compile_expression

    dev = CelDevice(
        "dra.example.com",
        {"model": DeviceAttribute("string", "a100"), "numa": DeviceAttribute("int", 1), "healthy": DeviceAttribute("bool", True)},
        {"memory": DeviceCapacity(Fraction(80 * 2**30), None, "80Gi")},
    )

    def run(expr):
        r = compile_expression(expr)
        if r.error:
            return "compile", None
        try:
            prog = r
            return prog.device_matches(dev), prog
        except CelRuntimeError as e:
            return f"error: {e}", prog

    return "kschedctl (own)", run, lambda prog: prog.device_matches(dev)


def cel_expr_python():
    from cel_expr_python import cel
    from cel_expr_python.ext import ext_bindings, ext_strings

    env = cel.NewEnv(variables={"device": cel.Type.DYN}, extensions=[ext_bindings.ExtBindings(), ext_strings.ExtStrings()])

    def run(expr):
        try:
            e = env.compile(expr)
        except Exception:
            return "compile", None
        v = e.eval(data={"device": DEVICE})
        if str(v.type()) in ("ERROR", "Type.ERROR") or "ERROR" in str(v.type()):
            return f"error: {v.value()}", e
        return v.value(), e

    return "cel-expr-python", run, lambda e: e.eval(data={"device": DEVICE})


def common_expression_language():
    import cel

    def run(expr):
        try:
            p = cel.compile(expr)
        except Exception:
            return "compile", None
        try:
            return p.execute({"device": DEVICE}), p
        except Exception as exc:
            return f"error: {exc}", p

    return "common-expression-language", run, lambda p: p.execute({"device": DEVICE})


def celpy_candidate():
    import celpy

    env = celpy.Environment()
    act = {"device": celpy.json_to_cel(DEVICE)}

    def run(expr):
        try:
            prog = env.program(env.compile(expr))
        except Exception:
            return "compile", None
        try:
            v = prog.evaluate(act)
        except Exception as exc:
            return f"error: {exc}", prog
        return bool(v) if isinstance(v, bool) or type(v).__name__ == "BoolType" else v, prog

    return "cel-python (celpy)", run, lambda p: p.evaluate(act)


def main() -> None:
    for factory in (ours, cel_expr_python, common_expression_language, celpy_candidate):
        try:
            name, run, again = factory()
        except ImportError:
            continue
        passed, bench = 0, None
        for expr, want in TABLE:
            got, prog = run(expr)
            ok = got == want if isinstance(want, bool) else isinstance(got, str) and got.startswith(want)
            passed += ok
            if expr.startswith('device.attributes["dra.example.com"].model ==') and got is True and prog is not None:
                bench = prog
        rate = 0.0
        if bench is not None:
            n, start = 5000, time.perf_counter()
            for _ in range(n):
                again(bench)
            rate = n / (time.perf_counter() - start)
        print(f"{name:28s} {passed:2d}/{len(TABLE)} as kube   {rate:9.0f} evaluations/s (model == 'a100' selector)")


if __name__ == "__main__":
    main()
