"""The sweep's configuration patches: one matrix entry becomes a grid of configurations.

A `configs` entry names a base configuration (``file``, or the built-in one) and patches. Each
list in a patch is an axis of its own; the entry expands to the product of its lists, in the
order they are written (weights, then scoringStrategy, then args, then set; within each, keys
in the order of the file), the last list varying fastest. The four patches, applied to the
base file's YAML as written (before kube's defaulting, which then runs as for any file):

- ``weights: {PLUGIN: [w, ...]}``: in each selected profile, PLUGIN's entry in
  ``plugins.score.enabled`` gets weight w; the entry is appended when absent. An explicit
  Score entry overrides the plugin's MultiPoint weight, as kube-scheduler's v1 merge does.
- ``scoringStrategy: [S, ...]``: in each selected profile, NodeResourcesFit's
  ``args.scoringStrategy`` becomes S (a type name is ``{type: NAME}``, kube defaults the
  resources); the pluginConfig entry is appended when absent.
- ``args: {PLUGIN: {FIELD.PATH: [v, ...]}}``: in each selected profile, that field of PLUGIN's
  args (pluginConfig entry appended when absent) becomes v.
- ``set: {FIELD.PATH: [v, ...]}``: that field of the configuration becomes v
  (``percentageOfNodesToScore``, ``profiles[1].schedulerName``); not limited by ``profiles``.

Selected profiles are those named in ``profiles`` (by schedulerName), or every profile. A base
without profiles gets kube's one default profile (``default-scheduler``) written out first.
A FIELD.PATH is dotted keys with ``[i]`` list indexes; missing mappings are created, a list
index must exist. A patch that cannot apply is a PatchError (the matrix is bad input).
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

from kschedctl.api.jsontypes import JSONObject
from kschedctl.config.loader import API_VERSION, KIND

DEFAULT_PROFILE = "default-scheduler"
FIT = "NodeResourcesFit"
PATCH_KINDS = ("weights", "scoringStrategy", "args", "set")
_PATH_PART = re.compile(r"([A-Za-z0-9_-]+)((?:\[[0-9]+\])*)")
_INDEX = re.compile(r"\[([0-9]+)\]")


class PatchError(ValueError):
    """A patch that cannot apply; ``field`` is the entry's field it comes from."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


@dataclass(frozen=True)
class Dimension:
    """One list of a patch: where it applies and the values it takes."""

    kind: str  # weights | scoringStrategy | args | set
    target: str  # the plugin (weights), "" (scoringStrategy), "PLUGIN:path" (args), the path (set)
    values: tuple[Any, ...]
    field: str  # where in the entry, for errors: "weights.NodeResourcesFit"

    @property
    def column(self) -> str:
        """The results column of this dimension: weights.NodeResourcesFit, args.P.path, set.path."""
        if self.kind == "scoringStrategy":
            return "scoringStrategy"
        if self.kind == "args":
            plugin, _, path = self.target.partition(":")
            return f"args.{plugin}.{path}"
        return f"{self.kind}.{self.target}"


@dataclass(frozen=True)
class PatchedConfig:
    """One configuration of the grid: the patched document and the value of each dimension."""

    raw: dict[str, Any] | None  # None: the built-in configuration, untouched
    params: dict[str, Any]  # column -> value (scalars as they are, others as compact JSON)


def dimensions(entry: dict[str, Any]) -> list[Dimension]:
    dims: list[Dimension] = []
    for plugin, values in (entry.get("weights") or {}).items():
        dims.append(Dimension("weights", plugin, tuple(values), f"weights.{plugin}"))
    if entry.get("scoringStrategy"):
        dims.append(Dimension("scoringStrategy", "", tuple(entry["scoringStrategy"]), "scoringStrategy"))
    for plugin, fields in (entry.get("args") or {}).items():
        for path, values in fields.items():
            dims.append(Dimension("args", f"{plugin}:{path}", tuple(values), f"args.{plugin}.{path}"))
    for path, values in (entry.get("set") or {}).items():
        dims.append(Dimension("set", path, tuple(values), f"set.{path}"))
    return dims


def expand(base: dict[str, Any] | None, entry: dict[str, Any]) -> list[PatchedConfig]:
    """Every configuration of the entry's grid, in grid order. ``base`` is the file's YAML
    document (None: the built-in configuration)."""
    dims = dimensions(entry)
    if not dims:
        return [PatchedConfig(copy.deepcopy(base) if base is not None else None, {})]
    out = []
    for combo in itertools.product(*(d.values for d in dims)):
        raw = copy.deepcopy(base) if base is not None else {"apiVersion": API_VERSION, "kind": KIND}
        for dim, value in zip(dims, combo):
            apply(raw, dim, value, entry.get("profiles"))
        out.append(PatchedConfig(raw, {d.column: param_value(v) for d, v in zip(dims, combo)}))
    return out


def param_value(value: Any) -> Any:
    """How a value shows in the results: scalars as they are, lists and maps as compact JSON."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def apply(raw: dict[str, Any], dim: Dimension, value: Any, profile_names: list[str] | None) -> None:
    if dim.kind == "set":
        set_path(raw, dim.target, copy.deepcopy(value), dim.field)
        return
    for profile in selected_profiles(raw, profile_names, dim.field):
        if dim.kind == "weights":
            _set_weight(profile, dim.target, value, dim.field)
        elif dim.kind == "scoringStrategy":
            strategy = {"type": value} if isinstance(value, str) else copy.deepcopy(value)
            _plugin_args(profile, FIT, dim.field)["scoringStrategy"] = strategy
        else:
            plugin, _, path = dim.target.partition(":")
            set_path(_plugin_args(profile, plugin, dim.field), path, copy.deepcopy(value), dim.field)


def selected_profiles(raw: dict[str, Any], names: list[str] | None, field: str) -> list[dict[str, Any]]:
    profiles = raw.get("profiles")
    if not profiles:
        profiles = raw["profiles"] = [{"schedulerName": DEFAULT_PROFILE}]
    if not isinstance(profiles, list) or not all(isinstance(p, dict) for p in profiles):
        raise PatchError("the base configuration's profiles are not a list of objects", field)
    if names is None:
        return profiles
    chosen = [p for p in profiles if (p.get("schedulerName") or DEFAULT_PROFILE) in names]
    known = {p.get("schedulerName") or DEFAULT_PROFILE for p in profiles}
    missing = [n for n in names if n not in known]
    if missing:
        raise PatchError(f"no profile named {missing[0]} in the base configuration (profiles: {', '.join(sorted(known))})", "profiles")
    return chosen


def _set_weight(profile: dict[str, Any], plugin: str, weight: int, field: str) -> None:
    plugins = _mapping(profile, "plugins", field)
    score = _mapping(plugins, "score", field)
    enabled = score.setdefault("enabled", [])
    if not isinstance(enabled, list):
        raise PatchError("the profile's plugins.score.enabled is not a list", field)
    for item in enabled:
        if isinstance(item, dict) and item.get("name") == plugin:
            item["weight"] = weight
            return
    enabled.append({"name": plugin, "weight": weight})


def _plugin_args(profile: dict[str, Any], plugin: str, field: str) -> dict[str, Any]:
    configs = profile.setdefault("pluginConfig", [])
    if not isinstance(configs, list):
        raise PatchError("the profile's pluginConfig is not a list", field)
    for item in configs:
        if isinstance(item, dict) and item.get("name") == plugin:
            return _mapping(item, "args", field)
    args: JSONObject = {}
    configs.append({"name": plugin, "args": args})
    return args


def _mapping(parent: dict[str, Any], key: str, field: str) -> dict[str, Any]:
    child = parent.setdefault(key, {})
    if child is None:
        child = parent[key] = {}
    if not isinstance(child, dict):
        raise PatchError(f"{key} in the base configuration is not an object", field)
    return child


def split_path(path: str) -> list[str | int]:
    """``profiles[0].pluginConfig[2].args`` -> ["profiles", 0, "pluginConfig", 2, "args"]."""
    parts: list[str | int] = []
    for chunk in path.split("."):
        m = _PATH_PART.fullmatch(chunk)
        if m is None:
            raise ValueError(f"not a field path: {path!r} (dotted names, with [i] list indexes)")
        parts.append(m.group(1))
        parts.extend(int(i) for i in _INDEX.findall(m.group(2)))
    return parts


def _join(parts: list[str | int]) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def set_path(doc: dict[str, Any], path: str, value: Any, field: str) -> None:
    try:
        parts = split_path(path)
    except ValueError as exc:
        raise PatchError(str(exc), field) from None
    node: Any = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        where = _join(parts[: i + 1])
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                raise PatchError(f"{where}: no such list item in the configuration", field)
            if last:
                node[part] = value
            else:
                node = node[part]
            continue
        if not isinstance(node, dict):
            raise PatchError(f"{where}: not an object in the configuration", field)
        if last:
            node[part] = value
        else:
            if node.get(part) is None:
                node[part] = [] if isinstance(parts[i + 1], int) else {}
            node = node[part]
