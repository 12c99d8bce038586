"""NodeLabelArgs: typed args (decoding, defaulting and validation in one place) and their JSON Schema.

Upstream:
- pkg/scheduler/apis/config/types_pluginargs.go   NodeLabelArgs{PresentLabels, AbsentLabels,
                                                  PresentLabelsPreference, AbsentLabelsPreference []string}
- pkg/scheduler/apis/config/validation/validation_pluginargs.go  ValidateNodeLabelArgs, validateNoConflict

The args arrive in a KubeSchedulerConfiguration under ``profiles[].pluginConfig[{name:
NodeLabel, args: {...}}]``. kschedctl decodes them strictly into :class:`NodeLabelArgs` (an
unknown field is an error) when it loads the configuration, and `validate`, `schedule`,
`explain` and `simulate` refuse a configuration whose args ``validate`` finds wrong, with the
whole path (``profiles[0].pluginConfig[0].args.presentLabels[1]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from kschedctl.framework import Features, FieldError, PluginArgs
from kschedctl.framework.gosemantics import invalid

ARGS_KIND = "NodeLabelArgs"


def _labels(description: str) -> dict[str, Any]:
    return {"description": description, "type": ["array", "null"], "items": {"type": "string"}}


ARGS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": ARGS_KIND,
    "description": "Args of the NodeLabel plugin. Unknown fields are rejected (strict decoding).",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "kubescheduler.config.k8s.io/v1", "description": "Optional; when given it must be the v1 config API."},
        "kind": {"const": ARGS_KIND, "description": f"Optional; when given it must be {ARGS_KIND}."},
        "presentLabels": _labels("Filter: a node must have every one of these label keys."),
        "absentLabels": _labels("Filter: a node must have none of these label keys."),
        "presentLabelsPreference": _labels("Score: each of these label keys a node has counts for it."),
        "absentLabelsPreference": _labels("Score: each of these label keys a node lacks counts for it."),
    },
}


@dataclass(frozen=True)
class NodeLabelArgs(PluginArgs):
    """NodeLabelArgs. Label keys only: the values do not matter. None (absent or null) and an
    empty list both mean no label (v1 has no defaults for these args)."""

    KIND: ClassVar[str] = ARGS_KIND
    present_labels: tuple[str, ...] | None = None
    absent_labels: tuple[str, ...] | None = None
    present_labels_preference: tuple[str, ...] | None = None
    absent_labels_preference: tuple[str, ...] | None = None

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidateNodeLabelArgs: no label both wanted and unwanted, for the Filter's lists
        and for the Score's (paths relative to the args)."""
        return _no_conflict(self.present_labels or (), self.absent_labels or (), "presentLabels", "absentLabels") + _no_conflict(
            self.present_labels_preference or (), self.absent_labels_preference or (), "presentLabelsPreference", "absentLabelsPreference"
        )


def _no_conflict(present: tuple[str, ...], absent: tuple[str, ...], present_path: str, absent_path: str) -> list[FieldError]:
    """validateNoConflict: an error at the present entry (its last index when listed twice,
    as upstream fills a map in list order) for each absent entry that repeats it."""
    index = {label: i for i, label in enumerate(present)}
    return [
        invalid(f"{present_path}[{index[label]}]", label, f"conflict with {absent_path}[{i}]")
        for i, label in enumerate(absent)
        if label in index
    ]


__all__ = ["ARGS_KIND", "ARGS_SCHEMA", "NodeLabelArgs"]
