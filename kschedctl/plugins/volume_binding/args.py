"""VolumeBindingArgs: the VolumeBinding plugin's typed args, their defaults and validation.

Upstream: pkg/scheduler/apis/config (types_pluginargs.go), apis/config/v1 (defaults.go) and
apis/config/validation (validation_pluginargs.go), kept beside the plugin that reads them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from kschedctl.framework.args import Int64, PluginArgs
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import (
    FieldError,
    invalid,
)
from kschedctl.framework.interface import (
    MAX_CUSTOM_PRIORITY_SCORE,
)
from kschedctl.plugins.node_resources.args import UtilizationShapePoint, validate_function_shape

DEFAULT_BIND_TIMEOUT_SECONDS = 600
DEFAULT_SHAPE = (UtilizationShapePoint(0, MAX_CUSTOM_PRIORITY_SCORE), UtilizationShapePoint(100, 0))


@dataclass(frozen=True)
class VolumeBindingArgs(PluginArgs):
    """VolumeBindingArgs (types_pluginargs.go)."""

    KIND: ClassVar[str] = "VolumeBindingArgs"
    bind_timeout_seconds: Int64 | None = None
    shape: tuple[UtilizationShapePoint, ...] | None = None

    def defaulted(self, features: Features | None) -> "VolumeBindingArgs":
        """SetDefaults_VolumeBindingArgs: 600 s; the default shape with StorageCapacityScoring."""
        features = features or Features.default()
        timeout = DEFAULT_BIND_TIMEOUT_SECONDS if self.bind_timeout_seconds is None else self.bind_timeout_seconds
        shape = self.shape
        if not shape and features.storage_capacity_scoring:
            shape = DEFAULT_SHAPE
        return replace(self, bind_timeout_seconds=timeout, shape=shape)

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidateVolumeBindingArgsWithOptions (field.Error bodies)."""
        features = features or Features.default()
        errs: list[FieldError] = []
        timeout = self.bind_timeout_seconds or 0
        if timeout < 0:
            errs.append(invalid("bindTimeoutSeconds", timeout, "invalid BindTimeoutSeconds, should not be a negative value"))
        if features.storage_capacity_scoring:
            errs.extend(validate_function_shape(self.shape, "shape"))
        elif self.shape is not None:
            errs.append(
                invalid("shape", self.shape, "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring")
            )
        return errs
