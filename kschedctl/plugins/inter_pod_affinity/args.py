"""InterPodAffinityArgs: the InterPodAffinity plugin's typed args, their defaults and validation.

Upstream: pkg/scheduler/apis/config (types_pluginargs.go), apis/config/v1 (defaults.go) and
apis/config/validation (validation_pluginargs.go), kept beside the plugin that reads them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from kschedctl.framework.args import Int32, PluginArgs
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import FieldError, invalid

DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1
MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100


@dataclass(frozen=True)
class InterPodAffinityArgs(PluginArgs):
    """InterPodAffinityArgs (types_pluginargs.go)."""

    KIND: ClassVar[str] = "InterPodAffinityArgs"
    hard_pod_affinity_weight: Int32 | None = None
    ignore_preferred_terms_of_existing_pods: bool | None = None

    def defaulted(self, features: Features | None) -> "InterPodAffinityArgs":
        """SetDefaults_InterPodAffinityArgs: hardPodAffinityWeight 1 when unset (an explicit 0 stays)."""
        return replace(
            self,
            hard_pod_affinity_weight=DEFAULT_HARD_POD_AFFINITY_WEIGHT
            if self.hard_pod_affinity_weight is None
            else self.hard_pod_affinity_weight,
            ignore_preferred_terms_of_existing_pods=bool(self.ignore_preferred_terms_of_existing_pods),
        )

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidateInterPodAffinityArgs: hardPodAffinityWeight in [0, 100]."""
        w = DEFAULT_HARD_POD_AFFINITY_WEIGHT if self.hard_pod_affinity_weight is None else self.hard_pod_affinity_weight
        if w < MIN_HARD_POD_AFFINITY_WEIGHT or w > MAX_HARD_POD_AFFINITY_WEIGHT:
            return [
                invalid("hardPodAffinityWeight", w, f"not in valid range [{MIN_HARD_POD_AFFINITY_WEIGHT}-{MAX_HARD_POD_AFFINITY_WEIGHT}]")
            ]
        return []
