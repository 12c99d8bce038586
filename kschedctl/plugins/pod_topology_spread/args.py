"""PodTopologySpreadArgs: typed, defaulted and validated, and the default constraints they carry.

Upstream: pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_PodTopologySpreadArgs),
pkg/scheduler/apis/config/validation/validation_pluginargs.go (ValidatePodTopologySpreadArgs),
staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go (IsQualifiedName).

Messages are field.Error bodies ("Invalid value: 0: not in valid range (0, inf)") keyed by the
field path relative to the args object.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from kschedctl.api.errors import ObjectError
from kschedctl.api.labels import LabelSelector
from kschedctl.api.types import TopologySpreadConstraint
from kschedctl.api.validation import qualified_name_errors
from kschedctl.framework.args import ArgsStruct, Int32, PluginArgs, Raw
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from kschedctl.plugins.pod_topology_spread.common import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
)

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"


@dataclass(frozen=True)
class DefaultConstraint(ArgsStruct):
    """One of PodTopologySpreadArgs.defaultConstraints (a v1.TopologySpreadConstraint)."""

    max_skew: Int32 = 0
    topology_key: str = ""
    when_unsatisfiable: str = ""
    label_selector: Raw = None
    min_domains: Int32 | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] | None = None


@dataclass(frozen=True)
class PodTopologySpreadArgs(PluginArgs):
    """PodTopologySpreadArgs (types_pluginargs.go)."""

    KIND: ClassVar[str] = "PodTopologySpreadArgs"
    default_constraints: tuple[DefaultConstraint, ...] | None = None
    defaulting_type: str | None = None

    def defaulted(self, features: Features | None) -> "PodTopologySpreadArgs":
        """v1 defaulting: defaultingType System when unset; defaultConstraints stay as given."""
        return self if self.defaulting_type else replace(self, defaulting_type=SYSTEM_DEFAULTING)

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidatePodTopologySpreadArgs, in upstream's order of checks."""
        errs: list[FieldError] = []
        dtype = self.defaulting_type or ""
        constraints = self.default_constraints or ()
        if dtype not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
            errs.append(not_supported("defaultingType", dtype, [SYSTEM_DEFAULTING, LIST_DEFAULTING]))
        elif dtype == SYSTEM_DEFAULTING and constraints:
            errs.append(invalid("defaultingType", dtype, "when .defaultConstraints are not empty"))
        for i, c in enumerate(constraints):
            errs += _constraint_errors(f"defaultConstraints[{i}]", c, constraints[:i])
        return errs


def _constraint_errors(p: str, c: DefaultConstraint, earlier: Sequence[DefaultConstraint]) -> list[FieldError]:
    errs: list[FieldError] = []
    if c.max_skew <= 0:
        errs.append(invalid(f"{p}.maxSkew", c.max_skew, "not in valid range (0, inf)"))
    if not c.topology_key:
        errs.append(required(f"{p}.topologyKey", "can not be empty"))
    else:
        errs.extend(invalid(f"{p}.topologyKey", c.topology_key, m) for m in qualified_name_errors(c.topology_key))
    if not c.when_unsatisfiable:
        errs.append(required(f"{p}.whenUnsatisfiable", "can not be empty"))
    elif c.when_unsatisfiable not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
        errs.append(not_supported(f"{p}.whenUnsatisfiable", c.when_unsatisfiable, [DO_NOT_SCHEDULE, SCHEDULE_ANYWAY]))
    if c.label_selector is not None:
        errs.append(forbidden(f"{p}.labelSelector", "constraint must not define a selector, as they deduced for each pod"))
    for other in earlier:
        if other.topology_key == c.topology_key and other.when_unsatisfiable == c.when_unsatisfiable:
            errs.append(duplicate(p, f"{{{c.topology_key}, {c.when_unsatisfiable}}}"))
            break
    return errs


def constraints_from_args(raw: Sequence[DefaultConstraint] | None) -> tuple[TopologySpreadConstraint, ...]:
    """args.defaultConstraints as v1.TopologySpreadConstraints."""
    out = []
    for i, c in enumerate(raw or ()):
        where = f"defaultConstraints[{i}]"
        try:
            selector = LabelSelector.from_dict(c.label_selector, f"{where}.labelSelector")
        except ObjectError:
            selector = None
        out.append(
            TopologySpreadConstraint(
                max_skew=c.max_skew,
                topology_key=c.topology_key,
                when_unsatisfiable=c.when_unsatisfiable,
                label_selector=selector,
                min_domains=c.min_domains,
                node_affinity_policy=c.node_affinity_policy,
                node_taints_policy=c.node_taints_policy,
                match_label_keys=tuple(c.match_label_keys or ()),
            )
        )
    return tuple(out)
