"""kschedctl's public plugin API: everything a plugin package may import, in one place.

A plugin package imports from ``kschedctl.framework`` (and ``kschedctl.framework.gosemantics``
for Go's arithmetic, durations and field errors) and nothing else of kschedctl. Its
entry-point module declares the API it was written for::

    from kschedctl.framework import PluginSpec, hookimpl

    KSCHEDCTL_PLUGIN_API = 1  # PLUGIN_API_VERSION of the kschedctl it was written against

    @hookimpl
    def kschedctl_register_plugins() -> list[PluginSpec]:
        return [PluginSpec("MyScore", MyScore, MyScore, args_type=MyScoreArgs)]

A plugin is a class with ``name()`` and the methods of the extension points it implements
(the Protocols below; ``EXTENSION_POINTS`` lists them with their config field names). Its
factory is called ``factory(args, handle)``: ``args`` is an instance of its ``PluginArgs``
kind (decoded strictly, defaulted; None when it has none) and ``handle`` its ``Handle``.
``with_features(factory)`` adapts a factory that also takes the run's ``Features``.

Upstream: staging/src/k8s.io/kube-scheduler/framework (interface.go, types.go,
cycle_state.go), pkg/scheduler/framework/plugins/feature, pkg/scheduler/apis/config.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kschedctl.api.objects import ClusterObjects
    from kschedctl.api.types import Node, Pod
    from kschedctl.framework import gosemantics
    from kschedctl.framework.args import (
        ArgsError,
        ArgsStruct,
        Int32,
        Int64,
        PluginArgs,
        Raw,
    )
    from kschedctl.framework.cycle_state import CycleState, StateNotFound
    from kschedctl.framework.extension_points import EXTENSION_POINTS, ExtensionPoint
    from kschedctl.framework.features import Features
    from kschedctl.framework.gosemantics import FieldError
    from kschedctl.framework.handle import (
        Client,
        Clock,
        Handle,
        PodLister,
        PodNominator,
        SharedLister,
    )
    from kschedctl.framework.interface import (
        MAX_CUSTOM_PRIORITY_SCORE,
        MAX_NODE_SCORE,
        MAX_TOTAL_SCORE,
        MIN_NODE_SCORE,
        BatchFilterPlugin,
        BatchNormalizeScore,
        BatchScorePlugin,
        BatchScores,
        BindPlugin,
        ClusterEvent,
        ClusterEventWithHint,
        Code,
        EnqueueExtensions,
        FilterPlugin,
        NodePluginScores,
        NodeScore,
        PermitPlugin,
        PlacementFeasiblePlugin,
        PlacementGeneratePlugin,
        PlacementScoreExtensions,
        PlacementScorePlugin,
        Plugin,
        PluginScore,
        PostBindPlugin,
        PostFilterPlugin,
        PostFilterResult,
        PreBindPlugin,
        PreEnqueuePlugin,
        PreFilterExtensions,
        PreFilterPlugin,
        PreFilterResult,
        PreScorePlugin,
        QueueingHint,
        QueueSortPlugin,
        ReservePlugin,
        ScoreExtensions,
        ScorePlugin,
        Status,
        code_of,
        is_success,
    )
    from kschedctl.framework.placement import Placement, PlacementScore, PodGroupAssignment
    from kschedctl.framework.podgroup import PodGroup, PodGroupManager, PodGroupState
    from kschedctl.framework.registry import (
        PLUGIN_API_VERSION,
        PluginFactory,
        PluginFactoryWithFeatures,
        PluginSpec,
        with_features,
    )
    from kschedctl.framework.types import NodeInfo, NodeToStatus, PodInfo, QueuedPodInfo
    from kschedctl.framework.waiting_pods import WaitingPod
    from kschedctl.hookspecs import hookimpl

# name -> the module defining it: the names above, imported on first use (PEP 562), so that
# importing one submodule (kschedctl.runtime.sandbox, say) does not load the whole API
# and numpy with it. tests/test_framework_exports.py keeps this table and the imports above equal.
_EXPORTS: dict[str, str] = {
    "Node": "kschedctl.api.types",
    "Pod": "kschedctl.api.types",
    "PodGroup": "kschedctl.framework.podgroup",
    "PodGroupManager": "kschedctl.framework.podgroup",
    "PodGroupState": "kschedctl.framework.podgroup",
    "ClusterObjects": "kschedctl.api.objects",
    "gosemantics": "kschedctl.framework.gosemantics",
    "ArgsError": "kschedctl.framework.args",
    "ArgsStruct": "kschedctl.framework.args",
    "Int32": "kschedctl.framework.args",
    "Int64": "kschedctl.framework.args",
    "PluginArgs": "kschedctl.framework.args",
    "Raw": "kschedctl.framework.args",
    "CycleState": "kschedctl.framework.cycle_state",
    "StateNotFound": "kschedctl.framework.cycle_state",
    "EXTENSION_POINTS": "kschedctl.framework.extension_points",
    "ExtensionPoint": "kschedctl.framework.extension_points",
    "Features": "kschedctl.framework.features",
    "FieldError": "kschedctl.framework.gosemantics",
    "Client": "kschedctl.framework.handle",
    "Clock": "kschedctl.framework.handle",
    "Handle": "kschedctl.framework.handle",
    "PodLister": "kschedctl.framework.handle",
    "PodNominator": "kschedctl.framework.handle",
    "SharedLister": "kschedctl.framework.handle",
    "MAX_CUSTOM_PRIORITY_SCORE": "kschedctl.framework.interface",
    "MAX_NODE_SCORE": "kschedctl.framework.interface",
    "MAX_TOTAL_SCORE": "kschedctl.framework.interface",
    "MIN_NODE_SCORE": "kschedctl.framework.interface",
    "BatchFilterPlugin": "kschedctl.framework.interface",
    "BatchNormalizeScore": "kschedctl.framework.interface",
    "BatchScorePlugin": "kschedctl.framework.interface",
    "BatchScores": "kschedctl.framework.interface",
    "BindPlugin": "kschedctl.framework.interface",
    "ClusterEvent": "kschedctl.framework.interface",
    "ClusterEventWithHint": "kschedctl.framework.interface",
    "Code": "kschedctl.framework.interface",
    "EnqueueExtensions": "kschedctl.framework.interface",
    "FilterPlugin": "kschedctl.framework.interface",
    "NodePluginScores": "kschedctl.framework.interface",
    "NodeScore": "kschedctl.framework.interface",
    "PermitPlugin": "kschedctl.framework.interface",
    "PlacementFeasiblePlugin": "kschedctl.framework.interface",
    "PlacementGeneratePlugin": "kschedctl.framework.interface",
    "PlacementScoreExtensions": "kschedctl.framework.interface",
    "PlacementScorePlugin": "kschedctl.framework.interface",
    "Plugin": "kschedctl.framework.interface",
    "PluginScore": "kschedctl.framework.interface",
    "PostBindPlugin": "kschedctl.framework.interface",
    "PostFilterPlugin": "kschedctl.framework.interface",
    "PostFilterResult": "kschedctl.framework.interface",
    "PreBindPlugin": "kschedctl.framework.interface",
    "PreEnqueuePlugin": "kschedctl.framework.interface",
    "PreFilterExtensions": "kschedctl.framework.interface",
    "PreFilterPlugin": "kschedctl.framework.interface",
    "PreFilterResult": "kschedctl.framework.interface",
    "PreScorePlugin": "kschedctl.framework.interface",
    "QueueingHint": "kschedctl.framework.interface",
    "QueueSortPlugin": "kschedctl.framework.interface",
    "ReservePlugin": "kschedctl.framework.interface",
    "ScoreExtensions": "kschedctl.framework.interface",
    "ScorePlugin": "kschedctl.framework.interface",
    "Status": "kschedctl.framework.interface",
    "code_of": "kschedctl.framework.interface",
    "is_success": "kschedctl.framework.interface",
    "Placement": "kschedctl.framework.placement",
    "PlacementScore": "kschedctl.framework.placement",
    "PodGroupAssignment": "kschedctl.framework.placement",
    "PLUGIN_API_VERSION": "kschedctl.framework.registry",
    "PluginFactory": "kschedctl.framework.registry",
    "PluginFactoryWithFeatures": "kschedctl.framework.registry",
    "PluginSpec": "kschedctl.framework.registry",
    "with_features": "kschedctl.framework.registry",
    "WaitingPod": "kschedctl.framework.waiting_pods",
    "NodeInfo": "kschedctl.framework.types",
    "NodeToStatus": "kschedctl.framework.types",
    "PodInfo": "kschedctl.framework.types",
    "QueuedPodInfo": "kschedctl.framework.types",
    "hookimpl": "kschedctl.hookspecs",
}

__all__ = [
    # the plugin API version and registration
    "PLUGIN_API_VERSION",
    "PluginFactory",
    "PluginFactoryWithFeatures",
    "PluginSpec",
    "hookimpl",
    "with_features",
    # what a plugin is given
    "Client",
    "Clock",
    "ClusterObjects",
    "Features",
    "Handle",
    "PodGroupManager",
    "PodLister",
    "PodNominator",
    "SharedLister",
    "WaitingPod",
    # typed args
    "ArgsError",
    "ArgsStruct",
    "FieldError",
    "Int32",
    "Int64",
    "PluginArgs",
    "Raw",
    "gosemantics",
    # extension points
    "EXTENSION_POINTS",
    "BatchFilterPlugin",
    "BatchNormalizeScore",
    "BatchScorePlugin",
    "BatchScores",
    "BindPlugin",
    "EnqueueExtensions",
    "ExtensionPoint",
    "FilterPlugin",
    "PermitPlugin",
    "PlacementFeasiblePlugin",
    "PlacementGeneratePlugin",
    "PlacementScoreExtensions",
    "PlacementScorePlugin",
    "Plugin",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreScorePlugin",
    "QueueSortPlugin",
    "ReservePlugin",
    "ScoreExtensions",
    "ScorePlugin",
    # what they exchange
    "ClusterEvent",
    "ClusterEventWithHint",
    "Code",
    "CycleState",
    "MAX_CUSTOM_PRIORITY_SCORE",
    "MAX_NODE_SCORE",
    "MAX_TOTAL_SCORE",
    "MIN_NODE_SCORE",
    "Node",
    "NodeInfo",
    "NodePluginScores",
    "NodeScore",
    "NodeToStatus",
    "Placement",
    "PlacementScore",
    "PluginScore",
    "Pod",
    "PodGroup",
    "PodGroupAssignment",
    "PodGroupState",
    "PodInfo",
    "PostFilterResult",
    "PreFilterResult",
    "QueuedPodInfo",
    "QueueingHint",
    "StateNotFound",
    "Status",
    "code_of",
    "is_success",
]


def __getattr__(name: str) -> Any:
    """The public API on first use: `from kschedctl.framework import Status` imports interface then."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    imported = importlib.import_module(module)
    value = imported if module == f"{__name__}.{name}" else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
