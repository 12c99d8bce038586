"""CEL device selectors against upstream's own table (staging/src/k8s.io/dynamic-resource-allocation/
cel/compile_test.go, TestCEL), each case under its upstream name. The cost column of upstream
(the static estimate used by API validation) is not modelled; the list-typed attribute cases
need DRAListTypeAttributes (alpha) and are listed as skipped in docs/dra.md."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kschedctl.api.quantity import parse_quantity
from kschedctl.api.resource import DeviceAttribute, DeviceCapacity
from kschedctl.dra.cel import Cache, CelDevice, CelRuntimeError, compile_expression

D = "dra.example.com"


def A(kind, value):
    return DeviceAttribute(kind, value)


def C(q):
    return DeviceCapacity(Fraction(parse_quantity(q)), None, q)


EXPENSIVE = (
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
    ".all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
    ".all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))"
)

ALL = f"""
device.capacity["{D}"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["{D}"].bool &&
device.attributes["{D}"].int > 0 &&
device.attributes["{D}"].string == "fish" &&
device.attributes["{D}"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["{D}"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["{D}"]["bool"] &&
device.attributes["{D}"]["int"] > 0 &&
device.attributes["{D}"]["string"] == "fish" &&
device.attributes["{D}"]["version"].isGreaterThan(semver("0.0.1"))
"""

# name, expression, driver, attributes, capacity, allowMultipleAllocations, expected
# expected: bool, ("compile", text) or ("runtime", text)
CASES = [
    ("true", "true", "", {}, {}, None, True),
    ("false", "false", "", {}, {}, None, False),
    ("syntax-error", "?!", "", {}, {}, None, ("compile", "Syntax error")),
    ("type-error", "1", "", {}, {}, None, ("compile", "must evaluate to bool or the unknown type, not int")),
    (
        "runtime-error-lookup-identifier",
        'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
        "",
        {},
        {},
        None,
        ("runtime", "no such key: noSuchAttr"),
    ),
    (
        "runtime-error-lookup-map",
        'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))',
        "",
        {},
        {},
        None,
        ("runtime", "no such key: noSuchAttr"),
    ),
    ("domain-check-negative", '"no-such-domain" in device.attributes', "", {}, {}, None, False),
    ("domain-check-positive", f'"{D}" in device.attributes', "", {f"{D}/something": A("bool", True)}, {}, None, True),
    ("empty-driver-name", 'device.driver == ""', "", {}, {}, None, True),
    ("real-driver-name", f'device.driver == "{D}"', D, {}, {}, None, True),
    ("driver-name-qualifier", f'device.attributes["{D}"].name', D, {"name": A("bool", True)}, {}, None, True),
    ("driver-name-qualifier-map-lookup", f'device.attributes["{D}"]["name"]', D, {"name": A("bool", True)}, {}, None, True),
    ("bind", f'cel.bind(dra, device.attributes["{D}"], dra.name)', D, {"name": A("bool", True)}, {}, None, True),
    (
        "qualified-attribute-name",
        'device.attributes["other.example.com"].name',
        D,
        {"other.example.com/name": A("bool", True)},
        {},
        None,
        True,
    ),
    ("bool", f'device.attributes["{D}"].name', D, {"name": A("bool", True)}, {}, None, True),
    ("int", f'device.attributes["{D}"].name > 0', D, {"name": A("int", 1)}, {}, None, True),
    ("string", f'device.attributes["{D}"].name == "fish"', D, {"name": A("string", "fish")}, {}, None, True),
    (
        "attribute-access-causes-match-error",
        f'device.attributes["{D}"].names',
        D,
        {"names": A("unsupported", None)},
        {},
        None,
        ("runtime", "attribute names: unsupported attribute value"),
    ),
    ("version", f'device.attributes["{D}"].name.isGreaterThan(semver("0.0.1"))', D, {"name": A("version", "1.0.0")}, {}, None, True),
    (
        "version_v",
        f'device.attributes["{D}"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)',
        D,
        {"name": A("version", "1.0.0")},
        {},
        None,
        True,
    ),
    ("quantity", f'device.capacity["{D}"].name.isGreaterThan(quantity("1Ki"))', D, {}, {"name": C("1Mi")}, None, True),
    (
        "check-positive",
        f'"name" in device.capacity["{D}"] && device.capacity["{D}"].name.isGreaterThan(quantity("1Ki"))',
        D,
        {},
        {"name": C("1Mi")},
        None,
        True,
    ),
    (
        "check-negative",
        f'!("name" in device.capacity["{D}"]) || device.capacity["{D}"].name.isGreaterThan(quantity("1Ki"))',
        "",
        {},
        {},
        None,
        True,
    ),
    (
        "all",
        ALL,
        D,
        {"bool": A("bool", True), "int": A("int", 1), "string": A("string", "fish"), "version": A("version", "1.0.0")},
        {"quantity": C("1Mi")},
        None,
        True,
    ),
    (
        "many",
        f'device.attributes["{D}"].a && device.attributes["{D}"].b && device.attributes["{D}"].c',
        D,
        {"a": A("bool", True), "b": A("bool", True), "c": A("bool", True)},
        {},
        None,
        True,
    ),
    (
        "check_attribute_domains",
        f'device.attributes.exists_one(x, x == "{D}")',
        D,
        {"services": A("string", "some_example_value")},
        {},
        None,
        True,
    ),
    (
        "check_attribute_ids",
        f'device.attributes["{D}"].exists_one(x, x == "services")',
        D,
        {"services": A("string", "some_example_value")},
        {},
        None,
        True,
    ),
    (
        "split_attribute",
        f'device.attributes["{D}"].services.split("example").size() >= 2',
        D,
        {"services": A("string", "some_example_value")},
        {},
        None,
        True,
    ),
    (
        "regexp_attribute",
        f'device.attributes["{D}"].services.matches("[^a]?sym")',
        D,
        {"services": A("string", "asymetric")},
        {},
        None,
        True,
    ),
    ("check_capacity_domains", f'device.capacity.exists_one(x, x == "{D}")', D, {}, {"memory": C("1Mi")}, None, True),
    ("check_capacity_ids", f'device.capacity["{D}"].exists_one(x, x == "memory")', D, {}, {"memory": C("1Mi")}, None, True),
    ("expensive", EXPENSIVE, D, {}, {}, None, ("runtime", "actual cost limit exceeded")),
    ("allow_multiple_allocations", "device.allowMultipleAllocations == true", D, {}, {}, True, True),
    ("allow_multiple_allocations_default", "device.allowMultipleAllocations == false", D, {}, {}, None, True),
    ("allow_multiple_allocations_false", "device.allowMultipleAllocations == false", D, {}, {}, False, True),
    (
        "macro-exists-on-int",
        f'device.attributes["{D}"].name.exists(x, x > 0)',
        D,
        {"name": A("int", 1)},
        {},
        None,
        ("runtime", "got 'types.Int', expected iterable type"),
    ),
    (
        "macro-exists-on-bool",
        f'device.attributes["{D}"].name.exists(x, x == true)',
        D,
        {"name": A("bool", True)},
        {},
        None,
        ("runtime", "got 'types.Bool', expected iterable type"),
    ),
    (
        "macro-exists-on-string",
        f'device.attributes["{D}"].name.exists(x, x == "fish")',
        D,
        {"name": A("string", "fish")},
        {},
        None,
        ("runtime", "got 'types.String', expected iterable type"),
    ),
    (
        "macro-exists-on-version",
        f'device.attributes["{D}"].name.exists(x, x.isGreaterThan(semver("0.0.1")))',
        D,
        {"name": A("version", "1.0.0")},
        {},
        None,
        ("runtime", "got 'cel.Semver', expected iterable type"),
    ),
]


def _evaluate(expression, driver, attrs, caps, multi):
    result = compile_expression(expression)
    if result.error is not None:
        return ("compile", result.error)
    try:
        return result.device_matches(CelDevice(driver, attrs, caps, multi))
    except CelRuntimeError as exc:
        return ("runtime", str(exc))


@pytest.mark.parametrize("name,expression,driver,attrs,caps,multi,want", CASES, ids=[c[0] for c in CASES])
def test_compile_test_table(name, expression, driver, attrs, caps, multi, want):
    got = _evaluate(expression, driver, attrs, caps, multi)
    if isinstance(want, bool):
        assert got is want, got
    else:
        assert isinstance(got, tuple) and got[0] == want[0] and want[1] in got[1], got


# Semantics DRA selectors rely on, worded as cel-go and Kubernetes' libraries word them.
MORE = [
    ("cross-type-numeric-compare", "dyn(1) < 1.5", True),
    ("heterogeneous-equality-with-dyn", "dyn(1) == 1.0", True),
    ("int-double-equality-does-not-compile", "1 == 1.0", ("compile", "found no matching overload for '_==_' applied to '(int, double)'")),
    ("undefined-field", "device.foo == 1", ("compile", "undefined field 'foo'")),
    ("undeclared-function", '"a".noSuchFunction()', ("compile", "undeclared reference to 'noSuchFunction'")),
    (
        "wrong-argument-type",
        "device.driver.startsWith(1)",
        ("compile", "found no matching overload for 'startsWith' applied to 'string.(int)'"),
    ),
    ("runtime-no-such-overload", 'dyn("a") > 1', ("runtime", "no such overload")),
    ("division-by-zero", "1 / (dyn(0) + 0) == 0", ("runtime", "division by zero")),
    ("integer-overflow", "9223372036854775807 + dyn(1) > 0", ("runtime", "integer overflow")),
    ("and-absorbs-error", 'dyn("a") > 1 && false', False),
    ("or-absorbs-error", 'dyn("a") > 1 || true', True),
    ("quantity-parse-error", 'quantity("1x") == quantity("1")', ("runtime", "quantities must match the regular expression")),
    ("quantity-arithmetic", 'quantity("1Gi").add(quantity("1Gi")).compareTo(quantity("2Gi")) == 0', True),
    ("quantity-as-integer", 'quantity("1k").asInteger() == 1000 && quantity("0.5").isInteger() == false', True),
    ("semver-compare", 'semver("1.2.3-alpha").isLessThan(semver("1.2.3")) && semver("1.10.0").major() == 1', True),
    ("semver-parse-error", 'semver("1.2") == semver("1.2.0")', ("runtime", "No Major.Minor.Patch elements found")),
    ("lists-library", "[3, 1, 2].max() == 3 && [1, 2, 3].sum() == 6 && [1, 2, 3].indexOf(2) == 1", True),
    ("lists-empty-min", "dyn([]).min() == 0", ("runtime", "min called on empty list")),
    ("strings-ext", '"AbC".lowerAscii() == "abc" && " x ".trim() == "x" && "a-b-c".replace("-", "") == "abc"', True),
    ("regex-find-all", '"a1b22c333".findAll("[0-9]+") == ["1", "22", "333"]', True),
    ("sets-ext", "sets.intersects([1, 2], [2, 3]) && sets.equivalent([1, 2], [2, 1])", True),
    ("ext-lists", "[3, 1, 2].sort() == [1, 2, 3] && [[1], [2, 3]].flatten() == [1, 2, 3] && lists.range(3) == [0, 1, 2]", True),
    ("two-variable-comprehension", "[10, 20].all(i, v, v == (i + 1) * 10)", True),
    ("optional-select", 'device.attributes["x"].?model.orValue("none") == "none"', True),
    ("has-on-unknown-domain", 'has(device.attributes["x"].model)', False),
    ("heterogeneous-list-literal", '[1, "a"].size() == 2', ("compile", "expected type 'int' but found 'string'")),
]


@pytest.mark.parametrize("name,expression,want", MORE, ids=[c[0] for c in MORE])
def test_semantics(name, expression, want):
    got = _evaluate(expression, D, {}, {}, None)
    if isinstance(want, bool):
        assert got is want, got
    else:
        assert isinstance(got, tuple) and got[0] == want[0] and want[1] in got[1], got


def test_cache_compiles_once_and_remembers_verdicts():
    cache = Cache()
    assert cache.get_or_compile("true") is cache.get_or_compile("true")
    device = CelDevice(D, {"model": A("string", "a100")}, {})
    expr = f'device.attributes["{D}"].model == "a100"'
    key = object()
    assert cache.device_matches(expr, device, key) is True
    assert cache.device_matches(expr, device, key) is True
    assert cache.evaluations == 1


def test_bad_version_attribute_fails_every_selector_on_the_device():
    # compile.go DeviceMatches converts all attributes before evaluating.
    got = _evaluate("true", D, {"v": A("version", "1.0")}, {}, None)
    assert got == ("runtime", "attribute v: parse semantic version: No Major.Minor.Patch elements found")
