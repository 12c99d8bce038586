"""NodeResourcesAllocatableArgs: typed (defaulting and validation in one place) and its JSON Schema.

Upstream (kubernetes-sigs/scheduler-plugins):
- apis/config/types.go            NodeResourcesAllocatableArgs{Resources []ResourceSpec, Mode ModeType}
- apis/config/v1/defaults.go      SetDefaults_NodeResourcesAllocatableArgs
- apis/config/validation/validation_pluginargs.go  ValidateNodeResourcesAllocatableArgs

The args arrive in a KubeSchedulerConfiguration under
``profiles[].pluginConfig[{name: NodeResourcesAllocatable, args: {...}}]``, already stripped of
``apiVersion``/``kind`` by kschedctl's loader. kschedctl decodes them strictly into
:class:`NodeResourcesAllocatableArgs` and defaults them (``from_dict``) when it defaults the
configuration, then calls ``validate`` when it validates it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from kschedctl.framework import ArgsStruct, Features, FieldError, Int64, PluginArgs
from kschedctl.framework.gosemantics import INT64_MAX, INT64_MIN, invalid

ARGS_KIND = "NodeResourcesAllocatableArgs"
LEAST = "Least"
MOST = "Most"
SUPPORTED_MODES = (LEAST, MOST)

DEFAULT_MODE = LEAST

ARGS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": ARGS_KIND,
    "description": "Args of the NodeResourcesAllocatable plugin (kubernetes-sigs/scheduler-plugins). "
    "Unknown fields are rejected (strict decoding).",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "kubescheduler.config.k8s.io/v1", "description": "Optional; when given it must be the v1 config API."},
        "kind": {"const": ARGS_KIND, "description": f"Optional; when given it must be {ARGS_KIND}."},
        "resources": {
            "description": "Resources to be considered when scoring, with their weights (default: "
            "cpu 1048576, memory 1: a millicore weighs as much as 1 MiB).",
            "type": ["array", "null"],
            "items": {"$ref": "#/$defs/ResourceSpec"},
        },
        "mode": {
            "description": "Least: favour nodes with the least allocatable resources (default); Most: favour nodes with the most.",
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
                "weight": {
                    "type": "integer",
                    "minimum": INT64_MIN,
                    "maximum": INT64_MAX,
                    "description": "Resource weight (int64); must be positive.",
                },
            },
        },
    },
}


@dataclass(frozen=True)
class ResourceSpec(ArgsStruct):
    """ResourceSpec: one resource and its weight."""

    name: str = ""
    weight: Int64 = 0


# defaultNodeResourcesAllocatableResourcesToWeightMap: a millicore weighs as much as 1 MiB.
DEFAULT_RESOURCES = (ResourceSpec("cpu", 1 << 20), ResourceSpec("memory", 1))


@dataclass(frozen=True)
class NodeResourcesAllocatableArgs(PluginArgs):
    """NodeResourcesAllocatableArgs{Resources []ResourceSpec, Mode ModeType}."""

    KIND: ClassVar[str] = ARGS_KIND
    resources: tuple[ResourceSpec, ...] | None = None
    mode: str | None = None

    def defaulted(self, features: Features | None) -> "NodeResourcesAllocatableArgs":
        """SetDefaults_NodeResourcesAllocatableArgs: empty resources -> cpu/memory, empty mode -> Least."""
        return replace(self, resources=self.resources or DEFAULT_RESOURCES, mode=self.mode or DEFAULT_MODE)

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidateNodeResourcesAllocatableArgs (paths relative to the args)."""
        errs: list[FieldError] = []
        for i, res in enumerate(self.resources or ()):
            if res.weight <= 0:
                errs.append(
                    invalid(
                        f"resources[{i}].weight", res.weight, f"resource weight of {res.name} should be a positive value, got :{res.weight}"
                    )
                )
        if (self.mode or "") not in SUPPORTED_MODES:
            errs.append(invalid("mode", self.mode or "", "invalid support ModeType"))
        return errs


def parse_args(args: NodeResourcesAllocatableArgs | Mapping[str, Any] | None) -> tuple[str, dict[str, int]]:
    """What NewAllocatable takes from its args: the mode and resource name -> weight.

    Raises ValueError with NewAllocatable's own messages. A resource listed twice keeps its
    last weight (upstream fills a map in list order).
    """
    if args is not None and not isinstance(args, (NodeResourcesAllocatableArgs, Mapping)):
        raise ValueError(f"want args to be of type {ARGS_KIND}, got {type(args).__name__}")
    if not isinstance(args, NodeResourcesAllocatableArgs):
        args = NodeResourcesAllocatableArgs.from_dict(args)
    mode = args.mode or DEFAULT_MODE
    if mode not in SUPPORTED_MODES:
        raise ValueError(f"invalid mode, got {mode}")
    for res in args.resources or ():
        if res.weight <= 0:
            raise ValueError(f"resource Weight of {res.name} should be a positive value, got {res.weight}")
    return mode, {res.name: res.weight for res in args.resources or DEFAULT_RESOURCES}
