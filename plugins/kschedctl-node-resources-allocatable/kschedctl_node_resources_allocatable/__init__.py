"""NodeResourcesAllocatable for kschedctl, ported from kubernetes-sigs/scheduler-plugins.

A Score plugin that favours nodes with the least (mode ``Least``, default) or the most
(mode ``Most``) weighted allocatable resources. Not enabled by default: enable it in a
KubeSchedulerConfiguration, e.g. ``profiles[0].plugins.multiPoint.enabled: [{name:
NodeResourcesAllocatable, weight: 5}]``.
"""

from __future__ import annotations

from kschedctl.framework.runtime.registry import PluginSpec

from .allocatable import NAME, NodeResourcesAllocatable
from .args import ARGS_KIND, ARGS_SCHEMA, default_args, validate_args

__version__ = "0.1.0"
__all__ = ["NAME", "NodeResourcesAllocatable", "plugin_spec", "default_args", "validate_args", "ARGS_SCHEMA"]


def plugin_spec() -> PluginSpec:
    """The PluginSpec kschedctl registers (see hooks.py)."""
    return PluginSpec(NAME, NodeResourcesAllocatable, NodeResourcesAllocatable, args_kind=ARGS_KIND,
                      default_args=default_args, validate_args=validate_args, args_schema=ARGS_SCHEMA)
