"""DynamicResourcesArgs (pkg/scheduler/apis/config/types_pluginargs.go): filterTimeout and
bindingTimeout, each gated (validation_pluginargs.go ValidateDynamicResourcesArgs, v1 defaults.go
SetDefaults_DynamicResourcesArgs)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from kschedctl.framework.args import PluginArgs
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import FieldError, forbidden, invalid, parse_duration

DEFAULT_FILTER_TIMEOUT = "10s"
DEFAULT_BINDING_TIMEOUT = "10m0s"


@dataclass(frozen=True)
class DynamicResourcesArgs(PluginArgs):
    """DynamicResourcesArgs (types_pluginargs.go): metav1.Durations, kept as their text."""

    KIND: ClassVar[str] = "DynamicResourcesArgs"
    filter_timeout: str | None = None
    binding_timeout: str | None = None

    def defaulted(self, features: Features | None) -> "DynamicResourcesArgs":
        """SetDefaults_DynamicResourcesArgs: filterTimeout 10s and bindingTimeout 10m, each only
        when its feature gates are on."""
        features = features or Features.default()
        ft, bt = self.filter_timeout, self.binding_timeout
        if ft is None and features.dra_scheduler_filter_timeout:
            ft = DEFAULT_FILTER_TIMEOUT
        if bt is None and binding_conditions_enabled(features):
            bt = DEFAULT_BINDING_TIMEOUT
        return replace(self, filter_timeout=ft, binding_timeout=bt)

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidateDynamicResourcesArgs: setting a field whose feature is off is an error."""
        features = features or Features.default()
        errs: list[FieldError] = []
        ft, bt = self.filter_timeout, self.binding_timeout
        if features.dra_scheduler_filter_timeout:
            if ft is not None:
                errs += _duration_errors("filterTimeout", ft, 0.0, "must be zero or positive")
        elif ft is not None:
            errs.append(forbidden("filterTimeout", "DRASchedulingFilterTimeout feature gate is disabled"))
        if binding_conditions_enabled(features):
            if bt is not None:
                errs += _duration_errors("bindingTimeout", bt, 1.0, "must be at least 1 second")
        elif bt is not None:
            errs.append(forbidden("bindingTimeout", "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"))
        return errs


def _duration_errors(path: str, text: str, minimum: float, detail: str) -> list[FieldError]:
    try:
        if parse_duration(text) < minimum:
            return [invalid(path, text, detail)]
    except ValueError as err:
        return [invalid(path, text, str(err))]
    return []


def binding_conditions_enabled(features: Features) -> bool:
    return features.dra_device_binding_conditions and features.dra_resource_claim_device_status


__all__ = ["DEFAULT_BINDING_TIMEOUT", "DEFAULT_FILTER_TIMEOUT", "DynamicResourcesArgs", "binding_conditions_enabled"]
