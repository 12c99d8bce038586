"""Fields the API server does not know, found as kubectl finds them.

The API server drops a field its schema does not have (a miscased ``NodeAffinityPolicy`` for
``nodeAffinityPolicy``) and kubectl warns: ``Warning: unknown field "spec.topologySpreadConstraints[0].NodeAffinityPolicy"``.
A snapshot written by hand is read as the API server would store it, so the field is not applied
either; without a word, a user believes a policy is in force that is not. The schema is
kschedctl/api/known-fields.json (tools/schemas/gen_known_fields.py): the field names of each
kind kschedctl reads, for the apiVersion it names; other versions and kinds are not checked.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

SCHEMA = os.path.join(os.path.dirname(os.path.realpath(__file__)), "known-fields.json")


@functools.cache
def _schema() -> tuple[dict[str, Any], dict[str, "_Type"]]:
    with open(SCHEMA, encoding="utf-8") as fh:
        doc = json.loads(fh.read())
    types = {name: _Type(fields) for name, fields in doc["types"].items()}
    for t in types.values():
        t.resolve(types)
    return doc["kinds"], types


# Distinct key tuples remembered per schema type: a file's objects repeat a few layouts, so
# the bound is never reached by real input and only limits what odd input can make us keep.
_PLANS_MAX = 1024

# A plan: the (field, child type) pairs to descend into for one key layout, objects then
# maps; None when the layout has a field the schema lacks.
_Plan = tuple[tuple[tuple[str, "_Type"], ...], tuple[tuple[str, "_Type"], ...]] | None


class _Type:
    """One schema type: its field names, and the fields that hold objects (the walk descends
    only into those: a Pod's containers, not its labels). A leaf type holds none: a dict of
    it is clean when its keys are names, a set comparison in C (a device's attributes, a
    selector's requirements)."""

    __slots__ = ("names", "objects", "maps", "plans", "children", "leaf")

    def __init__(self, fields: dict[str, Any]) -> None:
        self.names = frozenset(fields)
        self.objects = {k: v for k, v in fields.items() if isinstance(v, str)}
        self.maps = {k: v[1] for k, v in fields.items() if isinstance(v, list)}
        self.plans: dict[tuple[Any, ...], _Plan] = {}
        self.children: dict[str, _Type] = {}
        self.leaf = not self.objects and not self.maps

    def resolve(self, types: dict[str, _Type]) -> None:
        """The types of the fields that hold objects, by field."""
        self.children = {k: types[v] for k, v in (self.objects | self.maps).items()}

    def plan(self, keys: tuple[Any, ...]) -> _Plan:
        """What the clean check does with a dict of these keys (in this order), kept in
        ``plans``, where _clean looks first: the 56k objects of a 5,000-node file share a
        handful of layouts per type."""
        result: _Plan = None
        if self.names.issuperset(keys):
            result = (
                tuple((k, self.children[k]) for k in keys if k in self.objects),
                tuple((k, self.children[k]) for k in keys if k in self.maps),
            )
        if len(self.plans) < _PLANS_MAX:
            self.plans[keys] = result
        return result


def unknown_fields(raw: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(field path, the known field it differs from only in case, or None) for every field of the
    object that its kind's schema lacks; [] for kinds and versions not in the schema."""
    kinds, types = _schema()
    spec = kinds.get(raw.get("kind"))  # type: ignore[arg-type]
    if spec is None or raw.get("apiVersion") != spec["apiVersion"]:
        return []
    root = types[spec["type"]]
    if _clean(raw, root):
        return []
    out: list[tuple[str, str | None]] = []
    _walk(raw, root, "", types, out)
    return out


def _clean(value: Any, schema: _Type) -> bool:
    """Whether _walk would find nothing, without building a path per field: the common case,
    so the paths are worked out (by _walk) only for an object that has an unknown field."""
    if not isinstance(value, dict):
        return True
    if schema.leaf:
        return schema.names.issuperset(value)
    keys = tuple(value)
    plan: Any = schema.plans.get(keys, False)  # the plan, or False for a layout not seen yet
    if plan is False:
        plan = schema.plan(keys)
    if plan is None:
        return False
    objects, maps = plan
    for key, child in objects:
        item = value[key]
        if isinstance(item, list):
            if child.leaf:
                names = child.names
                for entry in item:
                    if isinstance(entry, dict) and not names.issuperset(entry):
                        return False
                continue
            for entry in item:
                if not _clean(entry, child):
                    return False
        elif not _clean(item, child):
            return False
    for key, child in maps:
        item = value[key]
        if isinstance(item, dict):
            if child.leaf:
                names = child.names
                for entry in item.values():
                    if isinstance(entry, dict) and not names.issuperset(entry):
                        return False
                continue
            for entry in item.values():
                if not _clean(entry, child):
                    return False
    return True


def _walk(value: Any, schema: _Type, path: str, types: dict[str, _Type], out: list[tuple[str, str | None]]) -> None:
    if not isinstance(value, dict):
        return
    keys = value.keys()
    if not keys <= schema.names:  # a set comparison in C: most objects stop here
        out.extend((f"{path}{k}", _same_but_case(k, schema.names)) for k in keys - schema.names)
    for key in keys & schema.objects.keys():
        item, child = value[key], types[schema.objects[key]]
        if isinstance(item, list):
            for i, entry in enumerate(item):
                _walk(entry, child, f"{path}{key}[{i}].", types, out)
        else:
            _walk(item, child, f"{path}{key}.", types, out)
    for key in keys & schema.maps.keys():
        item, child = value[key], types[schema.maps[key]]
        if isinstance(item, dict):
            for name, entry in item.items():
                _walk(entry, child, f"{path}{key}[{name}].", types, out)


def _same_but_case(key: Any, names: frozenset[str]) -> str | None:
    if not isinstance(key, str):
        return None
    lowered = key.lower()
    return next((f for f in sorted(names) if f.lower() == lowered), None)
