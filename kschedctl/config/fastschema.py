"""A quick "does it conform?" for kschedctl's own JSON Schemas, without importing jsonschema.

Every `schedule --config` checks its configuration against the shipped schemas
(config/schema.py), and importing jsonschema with its reference machinery costs about 85 ms,
more than a small run's scheduling. Most configurations conform; for those this module says
so in a few hundred microseconds. It is only ever a shortcut: ``conforms`` answers True when
the document is valid under draft 2020-12's rules for the keywords below, False when it is
not, and None when it meets anything it does not model (another keyword, a value type JSON
does not have, a reference it cannot resolve). Only True is acted upon; False and None send
the caller to jsonschema, which words the errors. tests/config/test_fastschema.py holds its
verdicts equal to jsonschema's on the shipped schemas and on mutated configurations.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from kschedctl.api.jsontypes import JSONObject

# Keywords that only annotate: no effect on validity.
_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description", "examples", "default"})
_JSON_TYPES = (dict, list, str, bool, int, float, type(None))


class _Unsure(Exception):
    """The document or schema uses something this module does not model."""


@lru_cache(maxsize=64)
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


def _is_type(instance: Any, name: str) -> bool:
    """jsonschema's draft 2020-12 type checker (booleans are neither integers nor numbers)."""
    if name == "object":
        return isinstance(instance, dict)
    if name == "array":
        return isinstance(instance, list)
    if name == "string":
        return isinstance(instance, str)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "null":
        return instance is None
    if isinstance(instance, bool):
        return False
    if name == "integer":
        return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
    if name == "number":
        return isinstance(instance, (int, float))
    raise _Unsure(name)


def _equal(a: Any, b: Any) -> bool:
    """jsonschema's equality for const and enum: True and 1 differ, 1 and 1.0 do not."""
    if isinstance(a, str) or isinstance(b, str):
        return bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    return bool(a == b)


class _Checker:
    """One document against one root schema; ``load`` gives another shipped schema by file name."""

    def __init__(self, load: Callable[[str], JSONObject]) -> None:
        self.load = load

    def valid(self, instance: Any, schema: Any, root: JSONObject) -> bool:
        if schema is True:
            return True
        if schema is False:
            return False
        if not isinstance(schema, dict) or not _MODELLED.issuperset(schema):
            raise _Unsure("keyword")
        if not isinstance(instance, _JSON_TYPES):
            raise _Unsure("value")
        return all(check(self, instance, value, schema, root) for key, value in schema.items() if (check := _KEYWORDS.get(key)) is not None)

    def resolve(self, ref: str, root: JSONObject) -> tuple[Any, JSONObject]:
        """A "#/$defs/..." pointer into ``root``, or another schema file (and its own pointer)."""
        name, _, pointer = ref.partition("#")
        if name:
            if "/" in name or ":" in name:
                raise _Unsure(ref)
            root = self.load(name)
        target: Any = root
        for part in [p for p in pointer.split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                raise _Unsure(ref)
            target = target[part]
        return target, root


def _type(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    names = value if isinstance(value, list) else [value]
    return any(_is_type(instance, n) for n in names)


def _properties(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(c.valid(instance[k], sub, root) for k, sub in value.items() if k in instance)


def _additional(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    if not isinstance(instance, dict):
        return True
    known = schema.get("properties") or {}
    extra = [k for k in instance if k not in known]
    return all(c.valid(instance[k], value, root) for k in extra)


def _items(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    if not isinstance(instance, list):
        return True
    return all(c.valid(item, value, root) for item in instance)


def _required(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return not isinstance(instance, dict) or all(k in instance for k in value)


def _const(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return _equal(instance, value)


def _enum(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return any(_equal(instance, v) for v in value)


def _minimum(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return not _is_type(instance, "number") or instance >= value


def _maximum(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return not _is_type(instance, "number") or instance <= value


def _min_length(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return not isinstance(instance, str) or len(instance) >= value


def _min_items(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return not isinstance(instance, list) or len(instance) >= value


def _min_properties(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return not isinstance(instance, dict) or len(instance) >= value


def _pattern_kw(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return not isinstance(instance, str) or _pattern(value).search(instance) is not None


def _if(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    if c.valid(instance, value, root):
        return "then" not in schema or c.valid(instance, schema["then"], root)
    return "else" not in schema or c.valid(instance, schema["else"], root)


def _all_of(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return all(c.valid(instance, sub, root) for sub in value)


def _any_of(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return any(c.valid(instance, sub, root) for sub in value)


def _one_of(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    return sum(1 for sub in value if c.valid(instance, sub, root)) == 1


def _ref(c: _Checker, instance: Any, value: Any, schema: JSONObject, root: JSONObject) -> bool:
    target, target_root = c.resolve(value, root)
    return c.valid(instance, target, target_root)


_KEYWORDS: dict[str, Callable[[_Checker, Any, Any, JSONObject, JSONObject], bool]] = {
    "type": _type,
    "properties": _properties,
    "additionalProperties": _additional,
    "items": _items,
    "required": _required,
    "const": _const,
    "enum": _enum,
    "minimum": _minimum,
    "maximum": _maximum,
    "minLength": _min_length,
    "minItems": _min_items,
    "minProperties": _min_properties,
    "pattern": _pattern_kw,
    "if": _if,
    "allOf": _all_of,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "$ref": _ref,
}
# then/else are read by "if"; the rest only annotate
_MODELLED = frozenset(_KEYWORDS) | {"then", "else"} | _ANNOTATIONS


def conforms(document: Any, schema: JSONObject, load: Callable[[str], JSONObject]) -> bool | None:
    """True: valid under ``schema``; False: not; None: not modelled here (ask jsonschema)."""
    try:
        return _Checker(load).valid(document, schema, schema)
    except Exception:  # noqa: BLE001 - _Unsure, an unresolvable reference, a bad pattern: jsonschema's turn
        return None


__all__ = ["conforms"]
