"""DefaultPreemptionArgs: the DefaultPreemption plugin's typed args, their defaults and validation.

Upstream: pkg/scheduler/apis/config (types_pluginargs.go), apis/config/v1 (defaults.go) and
apis/config/validation (validation_pluginargs.go), kept beside the plugin that reads them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from kschedctl.framework.args import Int32, PluginArgs
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import FieldError, invalid

DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100


@dataclass(frozen=True)
class DefaultPreemptionArgs(PluginArgs):
    """DefaultPreemptionArgs (types_pluginargs.go)."""

    KIND: ClassVar[str] = "DefaultPreemptionArgs"
    min_candidate_nodes_percentage: Int32 | None = None
    min_candidate_nodes_absolute: Int32 | None = None

    def defaulted(self, features: Features | None) -> "DefaultPreemptionArgs":
        """SetDefaults_DefaultPreemptionArgs: 10 % and 100 nodes when unset (explicit 0 stays)."""
        pct, absolute = self.min_candidate_nodes_percentage, self.min_candidate_nodes_absolute
        return replace(
            self,
            min_candidate_nodes_percentage=DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE if pct is None else pct,
            min_candidate_nodes_absolute=DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE if absolute is None else absolute,
        )

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidateDefaultPreemptionArgs: percentage in [0, 100], absolute >= 0, not both 0."""
        d = self.defaulted(features)
        pct, absolute = int(d.min_candidate_nodes_percentage or 0), int(d.min_candidate_nodes_absolute or 0)
        errors: list[FieldError] = []
        if pct < 0 or pct > 100:
            errors.append(invalid("minCandidateNodesPercentage", pct, "not in valid range [0, 100]"))
        if absolute < 0:
            errors.append(invalid("minCandidateNodesAbsolute", absolute, "not in valid range [0, inf)"))
        if pct == 0 and absolute == 0:
            errors.append(invalid("minCandidateNodesPercentage", 0, "cannot be zero at the same time as minCandidateNodesAbsolute"))
            errors.append(invalid("minCandidateNodesAbsolute", 0, "cannot be zero at the same time as minCandidateNodesPercentage"))
        return errors
