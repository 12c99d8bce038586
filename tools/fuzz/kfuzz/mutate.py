"""Seeded mutations of JSON-shaped documents and of their YAML/JSON text.

A structural mutation picks one field path of the document (every path of every object is a
candidate) and replaces, removes, duplicates or confuses the value there; a text mutation edits
the serialized file (duplicate keys, tags, aliases, truncation, nesting, bad bytes). Everything
is drawn from one ``random.Random``: the same seed gives the same input.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

Path = tuple[Any, ...]


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value]
    return value


# Wrong values: types, ranges, quantities, names, control characters, sizes.
BAD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    7,
    2**31,
    -(2**31) - 1,
    2**63,
    -(2**63) - 1,
    10**40,
    1.5,
    -0.0,
    1e308,
    0.1,
    "",
    " ",
    "0",
    "-1",
    "1e400",
    "1e99999999",
    "1e-99999999",
    "1.5.3",
    "lots",
    "9999999Ei",
    "0.1n",
    "-100m",
    "1e4294967296",
    "NaN",
    "Infinity",
    "UPPER",
    "has space",
    "line\nbreak",
    "\x1b[31mred\x1b[0m",
    "cr\rhere",
    "tab\tthere",
    "sep\u2028arator",
    "é-ünicode",
    "a" * 300,
    "k8s.io/too/many/slashes",
    "-leading",
    "trailing-",
    "a.b",
    "*",
    "Exists",
    "Sometimes",
    "DoNotSchedule",
    [],
    [1, "a"],
    {},
    {"a": {"b": {"c": [1]}}},
    [None],
    {"weird key!": None},
    list(range(50)),
    _deep(300),
    "x" * 5000,
]

# Plausible values: what passes admission but may meet a plugin path no test walked.
PLAUSIBLE_VALUES: list[Any] = [
    "0",
    "1",
    "3",
    "100m",
    "2Gi",
    "0.5",
    "z1",
    "z2",
    "n1",
    "n3",
    "web",
    "default",
    "high",
    "low",
    "fast",
    "data",
    "Exists",
    "In",
    "NotIn",
    "DoesNotExist",
    "Gt",
    "Lt",
    "Equal",
    "NoExecute",
    "NoSchedule",
    "PreferNoSchedule",
    "ScheduleAnyway",
    "DoNotSchedule",
    "Honor",
    "Ignore",
    "Never",
    "PreemptLowerPriority",
    "ReadWriteOncePod",
    "ReadWriteMany",
    "Block",
    "Immediate",
    "WaitForFirstConsumer",
    "Always",
    "Succeeded",
    "Failed",
    "Running",
    "example.com/gpu",
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    0,
    1,
    2,
    3,
    100,
    1000000000,
    True,
    False,
    [],
    {},
    ["z1"],
    {"app": "web"},
    {"matchLabels": {}},
    [{"key": "app", "operator": "Exists"}],
]

TEXT_MUTATIONS = (
    "duplicate_key",
    "tag",
    "alias_bomb",
    "non_string_key",
    "truncate",
    "garbage_char",
    "deep_nesting",
    "huge_int",
    "bom",
    "bad_utf8",
    "anchor_self",
    "merge_key",
    "tabs",
)


@dataclass
class Mutation:
    """What was done, for the failure report (and the regression test a failure becomes)."""

    kind: str
    path: Path = ()
    value: Any = None

    def describe(self) -> str:
        shown = repr(self.value)
        if len(shown) > 80:
            shown = shown[:80] + "..."
        return f"{self.kind} at {format_path(self.path)}: {shown}" if self.path else f"{self.kind}: {shown}"


def format_path(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def field_paths(doc: Any, path: Path = ()) -> Iterator[Path]:
    """Every path of a document (containers and scalars alike), depth first."""
    yield path
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from field_paths(value, path + (key,))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from field_paths(value, path + (i,))


def get(doc: Any, path: Path) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def _set(doc: Any, path: Path, value: Any) -> None:
    parent = get(doc, path[:-1])
    parent[path[-1]] = value


def mutate_structure(doc: Any, rng: random.Random) -> Mutation:
    """One structural mutation of ``doc`` (in place)."""
    paths = [p for p in field_paths(doc) if p]
    path = rng.choice(paths)
    parent = get(doc, path[:-1])
    roll = rng.random()
    if roll < 0.62:
        value = copy.deepcopy(rng.choice(BAD_VALUES if rng.random() < 0.6 else PLAUSIBLE_VALUES))
        _set(doc, path, value)
        return Mutation("replace", path, value)
    if roll < 0.72 and isinstance(parent, dict):
        del parent[path[-1]]
        return Mutation("remove", path)
    if roll < 0.80:
        other = get(doc, rng.choice(paths))
        value = copy.deepcopy(other)
        _set(doc, path, value)
        return Mutation("confuse", path, value)
    if roll < 0.88 and isinstance(get(doc, path), dict):
        target = get(doc, path)
        key = rng.choice(["unknownField", "", "a/b/c", "x\ny", "metadata"])
        target[key] = copy.deepcopy(rng.choice(BAD_VALUES))
        return Mutation("add_key", path + (key,), target[key])
    if roll < 0.95 and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[path[-1]]))
        return Mutation("duplicate_item", path)
    value = copy.deepcopy(get(doc, path))
    if isinstance(value, str):
        value = value + rng.choice(["X", "\n", "-", ".", "/", "0"])
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        value = -value - 1
    _set(doc, path, value)
    return Mutation("tweak", path, value)


def duplicate_object(doc: dict, rng: random.Random) -> Mutation:
    """A copy of one object of a List: the same name (duplicate) or another name with the same
    uid (uid collision)."""
    items = doc.get("items") or []
    i = rng.randrange(len(items))
    clone = copy.deepcopy(items[i])
    if rng.random() < 0.5 and isinstance(clone.get("metadata"), dict):
        clone["metadata"]["name"] = f"{clone['metadata'].get('name', 'x')}-twin"
        kind = "uid_collision"
    else:
        kind = "duplicate_object"
    items.insert(rng.randrange(len(items) + 1), clone)
    return Mutation(kind, ("items", i))


def to_text(doc: Any, rng: random.Random) -> tuple[str, str]:
    """(suffix, text): YAML mostly, sometimes JSON."""
    if rng.random() < 0.25:
        return ".json", json.dumps(doc, indent=rng.choice([None, 2]), ensure_ascii=False)
    return ".yaml", yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=4096)


def mutate_text(text: str, rng: random.Random) -> tuple[str, Mutation]:
    """One textual mutation of a YAML (or JSON) file."""
    kind = rng.choice(TEXT_MUTATIONS)
    lines = text.split("\n")
    candidates = [i for i, line in enumerate(lines) if ": " in line and not line.lstrip().startswith("#")]
    i = rng.choice(candidates) if candidates else 0
    line = lines[i] if lines else ""
    indent = line[: len(line) - len(line.lstrip(" -"))].replace("-", " ")
    key, _, value = line.lstrip(" -").partition(": ")
    if kind == "duplicate_key":
        lines.insert(i + 1, f"{indent}{key}: {value}")
    elif kind == "tag":
        tag = rng.choice(["!!set", "!!binary", "!!python/object:os.system", "!custom", "!!timestamp", "!!omap", "!!float"])
        lines[i] = line.replace(f": {value}", f": {tag} {value}", 1)
    elif kind == "alias_bomb":
        bomb = ['lol: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
        for level in range(1, 9):
            prev, cur = chr(96 + level), chr(97 + level)
            bomb.append(f"l{level}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
        bomb.append("boom: *i")
        lines[i] = f"{indent}{key}: {{{', '.join(bomb)}}}"
    elif kind == "non_string_key":
        lines.insert(i + 1, f"{indent}{rng.choice(['1', 'true', 'null', '1.5', '[a]'])}: x")
    elif kind == "truncate":
        cut = rng.randrange(max(1, len(text)))
        return text[:cut], Mutation(kind, value=cut)
    elif kind == "garbage_char":
        pos = rng.randrange(max(1, len(text)))
        char = rng.choice(list(":{[]}-&*!|>'\"%@`#\t\x00"))
        return text[:pos] + char + text[pos + 1 :], Mutation(kind, value=(pos, char))
    elif kind == "deep_nesting":
        depth = rng.choice([100, 600, 1100, 5000])
        lines[i] = f"{indent}{key}: " + "[" * depth + "]" * depth
    elif kind == "huge_int":
        lines[i] = f"{indent}{key}: " + "9" * rng.choice([20, 400, 5000])
    elif kind == "bom":
        return "\ufeff" + text, Mutation(kind)
    elif kind == "bad_utf8":
        return text + "\udcff", Mutation(kind)
    elif kind == "anchor_self":
        lines[i] = f"{indent}{key}: &self [*self]"
    elif kind == "merge_key":
        lines.insert(i + 1, f"{indent}<<: {rng.choice(['{a: 1}', '7', '[1, 2]', '*nothing'])}")
    elif kind == "tabs":
        lines[i] = "\t" + line
    return "\n".join(lines), Mutation(kind, (i,), lines[i][:80] if i < len(lines) else None)
