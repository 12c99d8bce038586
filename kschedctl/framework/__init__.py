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

from kschedctl.api.types import Node, Pod
from kschedctl.backend.podgroup import PodGroup, PodGroupManager, PodGroupState
from kschedctl.cluster.objects import ClusterObjects
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
from kschedctl.framework.runtime.registry import (
    PLUGIN_API_VERSION,
    PluginFactory,
    PluginFactoryWithFeatures,
    PluginSpec,
    with_features,
)
from kschedctl.framework.runtime.waiting_pods import WaitingPod
from kschedctl.framework.types import NodeInfo, NodeToStatus, PodInfo, QueuedPodInfo
from kschedctl.hookspecs import hookimpl

__all__ = [
    # the plugin API version and registration
    "PLUGIN_API_VERSION", "PluginFactory", "PluginFactoryWithFeatures", "PluginSpec", "hookimpl", "with_features",
    # what a plugin is given
    "Client", "Clock", "ClusterObjects", "Features", "Handle", "PodGroupManager", "PodLister", "PodNominator",
    "SharedLister", "WaitingPod",
    # typed args
    "ArgsError", "ArgsStruct", "FieldError", "Int32", "Int64", "PluginArgs", "Raw", "gosemantics",
    # extension points
    "EXTENSION_POINTS", "BatchFilterPlugin", "BatchNormalizeScore", "BatchScorePlugin", "BatchScores", "BindPlugin",
    "EnqueueExtensions", "ExtensionPoint", "FilterPlugin", "PermitPlugin", "PlacementFeasiblePlugin",
    "PlacementGeneratePlugin", "PlacementScoreExtensions", "PlacementScorePlugin", "Plugin", "PostBindPlugin",
    "PostFilterPlugin", "PreBindPlugin", "PreEnqueuePlugin", "PreFilterExtensions", "PreFilterPlugin",
    "PreScorePlugin", "QueueSortPlugin", "ReservePlugin", "ScoreExtensions", "ScorePlugin",
    # what they exchange
    "ClusterEvent", "ClusterEventWithHint", "Code", "CycleState", "MAX_CUSTOM_PRIORITY_SCORE", "MAX_NODE_SCORE",
    "MAX_TOTAL_SCORE", "MIN_NODE_SCORE", "Node", "NodeInfo", "NodePluginScores", "NodeScore", "NodeToStatus",
    "Placement", "PlacementScore", "PluginScore", "Pod", "PodGroup", "PodGroupAssignment", "PodGroupState",
    "PodInfo", "PostFilterResult", "PreFilterResult", "QueuedPodInfo", "QueueingHint", "StateNotFound", "Status",
    "code_of", "is_success",
]
