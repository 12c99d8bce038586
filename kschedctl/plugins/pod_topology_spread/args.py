"""PodTopologySpreadArgs: defaulting, validation and the default constraints they carry.

Upstream: pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_PodTopologySpreadArgs),
pkg/scheduler/apis/config/validation/validation_pluginargs.go (ValidatePodTopologySpreadArgs),
staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go (IsQualifiedName).

Messages are field.Error bodies ("Invalid value: 0: not in valid range (0, inf)") keyed by the
field path relative to the args object.
"""

from __future__ import annotations

from typing import Any

from kschedctl.api.errors import ObjectError
from kschedctl.api.labels import LabelSelector
from kschedctl.api.types import TopologySpreadConstraint
from kschedctl.api.validation import qualified_name_errors
from kschedctl.framework import gosemantics as field
from kschedctl.plugins.pod_topology_spread.common import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
)

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"


def default_args(args: dict | None, version: Any) -> dict:
    """v1 defaulting: defaultingType System when unset; defaultConstraints stay as given."""
    out = dict(args or {})
    if not out.get("defaultingType"):
        out["defaultingType"] = SYSTEM_DEFAULTING
    return out


def _invalid(value: Any, detail: str) -> str:
    return field.invalid("", value, detail).body


def _not_supported(value: Any, supported: list[str]) -> str:
    return field.not_supported("", value, supported).body


def validate_args(args: dict, version: Any) -> list[tuple[str, str]]:
    """ValidatePodTopologySpreadArgs, in upstream's order of checks."""
    errs: list[tuple[str, str]] = []
    dtype = args.get("defaultingType", "")
    constraints = args.get("defaultConstraints") or []
    if dtype not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.append(("defaultingType", _not_supported(dtype, [SYSTEM_DEFAULTING, LIST_DEFAULTING])))
    elif dtype == SYSTEM_DEFAULTING and constraints:
        errs.append(("defaultingType", _invalid(dtype, "when .defaultConstraints are not empty")))
    if not isinstance(constraints, list):
        errs.append(("defaultConstraints", _invalid(str(constraints), "must be a list")))
        return errs
    for i, c in enumerate(constraints):
        p = f"defaultConstraints[{i}]"
        if not isinstance(c, dict):
            errs.append((p, _invalid(str(c), "must be an object")))
            continue
        skew = c.get("maxSkew", 0)
        if not isinstance(skew, int) or isinstance(skew, bool) or skew <= 0:
            errs.append((f"{p}.maxSkew", _invalid(skew, "not in valid range (0, inf)")))
        key = str(c.get("topologyKey") or "")
        if not key:
            errs.append((f"{p}.topologyKey", "Required value: can not be empty"))
        else:
            errs.extend((f"{p}.topologyKey", _invalid(key, m)) for m in qualified_name_errors(key))
        when = str(c.get("whenUnsatisfiable") or "")
        if not when:
            errs.append((f"{p}.whenUnsatisfiable", "Required value: can not be empty"))
        elif when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errs.append((f"{p}.whenUnsatisfiable", _not_supported(when, [DO_NOT_SCHEDULE, SCHEDULE_ANYWAY])))
        if c.get("labelSelector") is not None:
            errs.append((f"{p}.labelSelector",
                         "Forbidden: constraint must not define a selector, as they deduced for each pod"))
        for j in range(i):
            other = constraints[j]
            if isinstance(other, dict) and other.get("topologyKey") == c.get("topologyKey") \
                    and other.get("whenUnsatisfiable") == c.get("whenUnsatisfiable"):
                errs.append(field.duplicate(p, f"{{{c.get('topologyKey')}, {c.get('whenUnsatisfiable')}}}"))
                break
    return errs


def constraints_from_args(raw: list | None) -> tuple[TopologySpreadConstraint, ...]:
    """args.defaultConstraints as v1.TopologySpreadConstraints."""
    out = []
    for i, c in enumerate(raw or []):
        where = f"defaultConstraints[{i}]"
        try:
            selector = LabelSelector.from_dict(c.get("labelSelector"), f"{where}.labelSelector")
        except ObjectError:
            selector = None
        out.append(TopologySpreadConstraint(
            max_skew=int(c.get("maxSkew") or 0),
            topology_key=str(c.get("topologyKey") or ""),
            when_unsatisfiable=str(c.get("whenUnsatisfiable") or ""),
            label_selector=selector,
            min_domains=c.get("minDomains"),
            node_affinity_policy=c.get("nodeAffinityPolicy"),
            node_taints_policy=c.get("nodeTaintsPolicy"),
            match_label_keys=tuple(str(k) for k in c.get("matchLabelKeys") or ()),
        ))
    return tuple(out)
