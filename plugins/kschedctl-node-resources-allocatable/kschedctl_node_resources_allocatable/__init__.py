"""NodeResourcesAllocatable for kschedctl, ported from kubernetes-sigs/scheduler-plugins.

A Score plugin that favours nodes with the least (mode ``Least``, default) or the most
(mode ``Most``) weighted allocatable resources. Not enabled by default: enable it in a
KubeSchedulerConfiguration, e.g. ``profiles[0].plugins.multiPoint.enabled: [{name:
NodeResourcesAllocatable, weight: 5}]``.
"""

from __future__ import annotations

from kschedctl.framework import PluginSpec

from .allocatable import NAME, NodeResourcesAllocatable
from .args import ARGS_SCHEMA, NodeResourcesAllocatableArgs

__version__ = "0.1.0"
__all__ = ["ARGS_SCHEMA", "NAME", "NodeResourcesAllocatable", "NodeResourcesAllocatableArgs", "plugin_spec"]


def plugin_spec() -> PluginSpec:
    """The PluginSpec kschedctl registers (see hooks.py)."""
    return PluginSpec(
        NAME, NodeResourcesAllocatable, NodeResourcesAllocatable, args_type=NodeResourcesAllocatableArgs, args_schema=ARGS_SCHEMA
    )
