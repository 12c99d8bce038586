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
from pathlib import Path
from typing import Any

SCHEMA = Path(__file__).resolve().parent / "known-fields.json"


@functools.cache
def _schema() -> tuple[dict[str, Any], dict[str, "_Type"]]:
    doc = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return doc["kinds"], {name: _Type(fields) for name, fields in doc["types"].items()}


class _Type:
    """One schema type: its field names, and the fields that hold objects (the walk descends
    only into those: a Pod's containers, not its labels)."""

    __slots__ = ("names", "objects", "maps")

    def __init__(self, fields: dict[str, Any]) -> None:
        self.names = frozenset(fields)
        self.objects = {k: v for k, v in fields.items() if isinstance(v, str)}
        self.maps = {k: v[1] for k, v in fields.items() if isinstance(v, list)}


def unknown_fields(raw: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(field path, the known field it differs from only in case, or None) for every field of the
    object that its kind's schema lacks; [] for kinds and versions not in the schema."""
    kinds, types = _schema()
    spec = kinds.get(raw.get("kind"))  # type: ignore[arg-type]
    if spec is None or raw.get("apiVersion") != spec["apiVersion"]:
        return []
    out: list[tuple[str, str | None]] = []
    _walk(raw, types[spec["type"]], "", types, out)
    return out


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
