"""DynamicResources: Dynamic Resource Allocation in the scheduler (pkg/scheduler/framework/plugins/
dynamicresources). ``plugin.py`` has the extension points, ``batch.py`` the class the registry builds (the port plus the vectorised forms),
``claims.py`` the pod's claims, ``extended.py`` extended resources backed by DRA, ``details.py``
what explain shows per node, ``args.py`` DynamicResourcesArgs. The allocator itself is
kschedctl.dra.structured."""

from kschedctl.framework.registry import PluginSpec, with_features
from kschedctl.plugins.dynamic_resources.args import (
    DEFAULT_BINDING_TIMEOUT,
    DEFAULT_FILTER_TIMEOUT,
    DynamicResourcesArgs,
)
from kschedctl.plugins.dynamic_resources.batch import DynamicResources
from kschedctl.plugins.dynamic_resources.plugin import (
    MSG_CANNOT_ALLOCATE,
    MSG_NO_CLAIMS_TO_DEALLOCATE,
    MSG_NOT_AVAILABLE,
    MSG_STILL_NOT_SCHEDULABLE,
    NAME,
    STATE_KEY,
    compute_score,
)


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, with_features(DynamicResources), DynamicResources, args_type=DynamicResourcesArgs)


__all__ = [
    "DEFAULT_BINDING_TIMEOUT",
    "DEFAULT_FILTER_TIMEOUT",
    "DynamicResources",
    "DynamicResourcesArgs",
    "MSG_CANNOT_ALLOCATE",
    "MSG_NOT_AVAILABLE",
    "MSG_NO_CLAIMS_TO_DEALLOCATE",
    "MSG_STILL_NOT_SCHEDULABLE",
    "NAME",
    "STATE_KEY",
    "compute_score",
    "plugin_spec",
]
