"""NodeResourcesAllocatableArgs: defaults, validation and the JSON Schema of the args.

Upstream (kubernetes-sigs/scheduler-plugins):
- apis/config/types.go            NodeResourcesAllocatableArgs{Resources []ResourceSpec, Mode ModeType}
- apis/config/v1/defaults.go      SetDefaults_NodeResourcesAllocatableArgs
- apis/config/validation/validation_pluginargs.go  ValidateNodeResourcesAllocatableArgs

The args arrive in a KubeSchedulerConfiguration under
``profiles[].pluginConfig[{name: NodeResourcesAllocatable, args: {...}}]``, already stripped of
``apiVersion``/``kind`` by kschedctl's loader. kschedctl applies :func:`default_args` when it
defaults the configuration, then :func:`validate_args` when it validates it.
"""

from __future__ import annotations

import copy
from typing import Any

from kschedctl.framework.gosemantics import INT64_MAX, INT64_MIN, go_value

ARGS_KIND = "NodeResourcesAllocatableArgs"
LEAST = "Least"
MOST = "Most"
SUPPORTED_MODES = (LEAST, MOST)

# defaultNodeResourcesAllocatableResourcesToWeightMap: a millicore weighs as much as 1 MiB.
DEFAULT_RESOURCES: list[dict[str, Any]] = [{"name": "cpu", "weight": 1 << 20}, {"name": "memory", "weight": 1}]
DEFAULT_MODE = LEAST

ARGS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": ARGS_KIND,
    "description": "Args of the NodeResourcesAllocatable plugin (kubernetes-sigs/scheduler-plugins). "
                   "Unknown fields are rejected (strict decoding).",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "kubescheduler.config.k8s.io/v1",
                       "description": "Optional; when given it must be the v1 config API."},
        "kind": {"const": ARGS_KIND, "description": f"Optional; when given it must be {ARGS_KIND}."},
        "resources": {
            "description": "Resources to be considered when scoring, with their weights (default: "
                           "cpu 1048576, memory 1: a millicore weighs as much as 1 MiB).",
            "type": ["array", "null"],
            "items": {"$ref": "#/$defs/ResourceSpec"},
        },
        "mode": {
            "description": "Least: favour nodes with the least allocatable resources (default); "
                           "Most: favour nodes with the most.",
            "type": ["string", "null"],
        },
    },
    "$defs": {
        "ResourceSpec": {
            "description": "ResourceSpec: one resource and its weight.",
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string", "description": "Resource name, e.g. cpu, memory, nvidia.com/gpu."},
                "weight": {"type": "integer", "minimum": INT64_MIN, "maximum": INT64_MAX,
                           "description": "Resource weight (int64); must be positive."},
            },
        },
    },
}


def default_args(args: dict | None, version: Any = None) -> dict:
    """SetDefaults_NodeResourcesAllocatableArgs: empty resources -> cpu/memory, empty mode -> Least."""
    out = copy.deepcopy(args) if args else {}
    if not out.get("resources"):
        out["resources"] = copy.deepcopy(DEFAULT_RESOURCES)
    if not out.get("mode"):
        out["mode"] = DEFAULT_MODE
    return out


def _weight(resource: object) -> int:
    weight = resource.get("weight", 0) if isinstance(resource, dict) else 0
    return weight if isinstance(weight, int) and not isinstance(weight, bool) else 0


def _name(resource: object) -> str:
    return str(resource.get("name", "")) if isinstance(resource, dict) else ""


def validate_args(args: dict, version: Any = None) -> list[tuple[str, str]]:
    """ValidateNodeResourcesAllocatableArgs, as (field path relative to args, field.Error body)."""
    errs: list[tuple[str, str]] = []
    resources = args.get("resources")
    if resources is not None:
        for i, res in enumerate(resources if isinstance(resources, list) else []):
            weight = _weight(res)
            if weight <= 0:
                errs.append((f"resources[{i}].weight",
                             f"Invalid value: {weight}: resource weight of {_name(res)} should be a positive "
                             f"value, got :{weight}"))
    mode = args.get("mode") or ""
    if mode not in SUPPORTED_MODES:
        errs.append(("mode", f"Invalid value: {go_value(mode)}: invalid support ModeType"))
    return errs


def format_errors(errs: list[tuple[str, str]]) -> str:
    """field.ErrorList.ToAggregate().Error(): one error plain, several in brackets."""
    parts = [f"{path}: {msg}" for path, msg in errs]
    return parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"


def parse_args(args: dict | None) -> tuple[str, dict[str, int]]:
    """What NewAllocatable takes from its args: the mode and resource name -> weight.

    Raises ValueError with NewAllocatable's own messages. A resource listed twice keeps its
    last weight (upstream fills a map in list order).
    """
    mode = DEFAULT_MODE
    weights = {r["name"]: r["weight"] for r in DEFAULT_RESOURCES}
    if args is None:
        return mode, weights
    if not isinstance(args, dict):
        raise ValueError(f"want args to be of type {ARGS_KIND}, got {type(args).__name__}")
    if args.get("mode"):
        mode = args["mode"]
        if mode not in SUPPORTED_MODES:
            raise ValueError(f"invalid mode, got {mode}")
    resources = args.get("resources") or []
    if resources:
        for res in resources:
            if _weight(res) <= 0:
                raise ValueError(f"resource Weight of {_name(res)} should be a positive value, got {_weight(res)}")
        weights = {_name(res): _weight(res) for res in resources}
    return mode, weights
