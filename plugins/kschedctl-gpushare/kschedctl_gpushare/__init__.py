"""GPU sharing for kschedctl: the Filter/Reserve of GPU-sharing pods and six GPU placement
policies (Random, DotProduct, GpuClustering, GpuPacking, BestFit and FGD, Fragmentation
Gradient Descent) as Score plugins, after Weng et al., *Beware of Fragmentation: Scheduling
GPU-Sharing Workloads with Fragmentation Gradient Descent*, USENIX ATC '23.

Written from the descriptions in the openb trace's notes (no code of the paper's simulator);
every name imported from kschedctl comes from ``kschedctl.framework``.
"""

from __future__ import annotations

from kschedctl.framework import PluginSpec

from .args import FGD_ARGS_SCHEMA, RANDOM_ARGS_SCHEMA, GpuShareFGDArgs, GpuShareRandomArgs, TypicalPod
from .gpu import GPU_COUNT, GPU_INDEX, GPU_MILLI, GPU_MODEL, RESAMPLED, GpuRequest, request_of
from .gpushare import NAME, GpuShare
from .policies import (
    GpuShareBestFit,
    GpuShareClustering,
    GpuShareDotProduct,
    GpuShareFGD,
    GpuSharePacking,
    GpuShareRandom,
)

__version__ = "0.1.0"
__all__ = [
    "GPU_COUNT",
    "GPU_INDEX",
    "GPU_MILLI",
    "GPU_MODEL",
    "NAME",
    "RESAMPLED",
    "GpuRequest",
    "GpuShare",
    "GpuShareBestFit",
    "GpuShareClustering",
    "GpuShareDotProduct",
    "GpuShareFGD",
    "GpuShareFGDArgs",
    "GpuSharePacking",
    "GpuShareRandom",
    "GpuShareRandomArgs",
    "TypicalPod",
    "plugin_specs",
    "request_of",
]


def plugin_specs() -> list[PluginSpec]:
    """GpuShare (PreFilter, Filter, Reserve) and the six policies (Score, NormalizeScore)."""
    return [
        PluginSpec(NAME, GpuShare, GpuShare),
        PluginSpec(GpuShareRandom.NAME, GpuShareRandom, GpuShareRandom, args_type=GpuShareRandomArgs, args_schema=RANDOM_ARGS_SCHEMA),
        PluginSpec(GpuShareDotProduct.NAME, GpuShareDotProduct, GpuShareDotProduct),
        PluginSpec(GpuShareClustering.NAME, GpuShareClustering, GpuShareClustering),
        PluginSpec(GpuSharePacking.NAME, GpuSharePacking, GpuSharePacking),
        PluginSpec(GpuShareBestFit.NAME, GpuShareBestFit, GpuShareBestFit),
        PluginSpec(GpuShareFGD.NAME, GpuShareFGD, GpuShareFGD, args_type=GpuShareFGDArgs, args_schema=FGD_ARGS_SCHEMA),
    ]
