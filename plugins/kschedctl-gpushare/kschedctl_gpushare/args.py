"""Typed args of the package's plugins (decoding, defaulting and validation in one place).

* ``GpuShareFGDArgs``: the typical pods FGD measures fragmentation against. Empty (the
  default): derived at the first scheduling cycle from the pods the scheduler knows, as the
  paper does from the trace (the distinct shapes, most frequent first, until they cover
  ``typicalCoverage`` of the pods; pods annotated ``gpushare.kschedctl.io/resampled`` are not
  counted, so an inflated workload has the original trace's shapes).
* ``GpuShareRandomArgs``: ``seed``, added to the draw from the run's seeded source (same
  ``--seed``, same choices).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from kschedctl.framework import ArgsStruct, Features, FieldError, Int64, PluginArgs
from kschedctl.framework.gosemantics import invalid

FGD_KIND = "GpuShareFGDArgs"
RANDOM_KIND = "GpuShareRandomArgs"


@dataclass(frozen=True)
class TypicalPod(ArgsStruct):
    """One pod shape: CPU (millicores), GPUs and milli of each, accepted models ("A|B"), weight."""

    cpu_milli: Int64 = 0
    gpu_count: Int64 = 0
    gpu_milli: Int64 = 0
    gpu_model: str = ""
    weight: float = 1.0


@dataclass(frozen=True)
class GpuShareFGDArgs(PluginArgs):
    """GpuShareFGD's args: the typical pods fragmentation is measured against (none given: derived from the pods
    the scheduler knows) and the share of the pods they must cover (typicalCoverage)."""

    KIND: ClassVar[str] = FGD_KIND
    typical_pods: tuple[TypicalPod, ...] | None = None
    typical_coverage: float | None = None

    def defaulted(self, features: Features | None) -> "GpuShareFGDArgs":
        if self.typical_coverage is None:
            return GpuShareFGDArgs(self.typical_pods, 0.95)
        return self

    def validate(self, features: Features | None) -> list[FieldError]:
        errors: list[FieldError] = []
        coverage = self.typical_coverage
        if coverage is not None and not 0 < coverage <= 1:
            errors.append(invalid("typicalCoverage", coverage, "must be in (0, 1]"))
        for i, pod in enumerate(self.typical_pods or ()):
            if pod.weight <= 0:
                errors.append(invalid(f"typicalPods[{i}].weight", pod.weight, "must be positive"))
            if not 0 <= pod.gpu_milli <= 1000:
                errors.append(invalid(f"typicalPods[{i}].gpuMilli", pod.gpu_milli, "must be in [0, 1000]"))
            if pod.gpu_count < 0 or pod.cpu_milli < 0:
                errors.append(invalid(f"typicalPods[{i}]", pod.to_dict(), "cpuMilli and gpuCount must not be negative"))
            elif pod.gpu_count > 1 and pod.gpu_milli != 1000:
                errors.append(invalid(f"typicalPods[{i}].gpuMilli", pod.gpu_milli, "must be 1000 when gpuCount > 1"))
        return errors


@dataclass(frozen=True)
class GpuShareRandomArgs(PluginArgs):
    """GpuShareRandom's args: ``seed``, added to the draw from the run's seeded source."""

    KIND: ClassVar[str] = RANDOM_KIND
    seed: Int64 = 0


def _schema(kind: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": kind,
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": "kubescheduler.config.k8s.io/v1"},
            "kind": {"const": kind},
            **properties,
        },
    }


FGD_ARGS_SCHEMA = _schema(
    FGD_KIND,
    {
        "typicalPods": {
            "type": ["array", "null"],
            "items": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "cpuMilli": {"type": "integer", "minimum": 0},
                    "gpuCount": {"type": "integer", "minimum": 0},
                    "gpuMilli": {"type": "integer", "minimum": 0, "maximum": 1000},
                    "gpuModel": {"type": "string"},
                    "weight": {"type": "number", "exclusiveMinimum": 0},
                },
            },
        },
        "typicalCoverage": {"type": ["number", "null"], "exclusiveMinimum": 0, "maximum": 1},
    },
)
RANDOM_ARGS_SCHEMA = _schema(RANDOM_KIND, {"seed": {"type": "integer"}})

__all__ = ["FGD_ARGS_SCHEMA", "RANDOM_ARGS_SCHEMA", "GpuShareFGDArgs", "GpuShareRandomArgs", "TypicalPod"]
