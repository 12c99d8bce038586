"""The one table of extension points: config field, upstream label, method, protocol.

Everything that needs to know the extension points reads this table: configuration decoding
and merging (the fields of ``plugins``), MultiPoint expansion and Framework construction
(which plugin implements which point, upstream's "does not extend %s plugin" messages),
the runtime (the guarded call of each point), and ``kschedctl plugins``.

A plugin implements a point when it has the point's method; every other method listed for a
point is optional (a Score plugin without ``score_extensions`` has no NormalizeScore).
Upstream: staging/src/k8s.io/kube-scheduler/framework/interface.go (one interface per point)
and pkg/scheduler/apis/config/types.go (Plugins).
"""

from __future__ import annotations

from dataclasses import dataclass

from kschedctl.framework import interface as fw


@dataclass(frozen=True, slots=True)
class ExtensionPoint:
    """One extension point: its config field, upstream's names for it, and the methods a plugin implements it with."""

    field: str  # the field under `plugins` in KubeSchedulerConfiguration ("preFilter")
    label: str  # the interface name upstream's messages use ("PreFilterPlugin")
    phase: str  # the point's name in runtime messages ("PreFilter")
    method: str  # the method that makes a plugin implement the point
    protocol: type
    optional: tuple[str, ...] = ()  # further methods of the point a plugin may leave out
    configurable: bool = True  # False: no config field, every plugin with the method takes part


EXTENSION_POINTS: tuple[ExtensionPoint, ...] = (
    ExtensionPoint("preEnqueue", "PreEnqueuePlugin", "PreEnqueue", "pre_enqueue", fw.PreEnqueuePlugin),
    ExtensionPoint("queueSort", "QueueSortPlugin", "QueueSort", "less", fw.QueueSortPlugin),
    ExtensionPoint("preFilter", "PreFilterPlugin", "PreFilter", "pre_filter", fw.PreFilterPlugin, ("pre_filter_extensions",)),
    ExtensionPoint("filter", "FilterPlugin", "Filter", "filter", fw.FilterPlugin, ("filter_batch",)),
    ExtensionPoint("postFilter", "PostFilterPlugin", "PostFilter", "post_filter", fw.PostFilterPlugin),
    ExtensionPoint("preScore", "PreScorePlugin", "PreScore", "pre_score", fw.PreScorePlugin),
    ExtensionPoint("score", "ScorePlugin", "Score", "score", fw.ScorePlugin, ("score_extensions", "score_batch")),
    ExtensionPoint("reserve", "ReservePlugin", "Reserve", "reserve", fw.ReservePlugin, ("unreserve",)),
    ExtensionPoint("permit", "PermitPlugin", "Permit", "permit", fw.PermitPlugin),
    ExtensionPoint("preBind", "PreBindPlugin", "PreBind", "pre_bind", fw.PreBindPlugin, ("pre_bind_pre_flight",)),
    ExtensionPoint("bind", "BindPlugin", "Bind", "bind", fw.BindPlugin),
    ExtensionPoint("postBind", "PostBindPlugin", "PostBind", "post_bind", fw.PostBindPlugin),
    # pod-group extension points (TopologyAwareWorkloadScheduling, gang scheduling)
    ExtensionPoint("placementGenerate", "PlacementGeneratePlugin", "PlacementGenerate", "placement_generate", fw.PlacementGeneratePlugin),
    ExtensionPoint(
        "placementScore",
        "PlacementScorePlugin",
        "PlacementScore",
        "placement_score",
        fw.PlacementScorePlugin,
        ("normalize_placement_score",),
    ),
    ExtensionPoint(
        "placementFeasible",
        "PlacementFeasiblePlugin",
        "PlacementFeasible",
        "placement_feasible",
        fw.PlacementFeasiblePlugin,
        configurable=False,
    ),
)

BY_FIELD: dict[str, ExtensionPoint] = {p.field: p for p in EXTENSION_POINTS}
# The fields of `plugins` (besides multiPoint), in the order kube lists them.
CONFIG_FIELDS: tuple[str, ...] = tuple(p.field for p in EXTENSION_POINTS if p.configurable)
# Points whose plugins carry a weight (besides multiPoint, where the weight is for score).
WEIGHTED_FIELDS: tuple[str, ...] = ("score", "placementScore")


def label(point: str) -> str:
    """Upstream's interface name of a point ("PreFilterPlugin"); the field itself if unknown."""
    ep = BY_FIELD.get(point)
    return ep.label if ep is not None else point


def implements(plugin_or_class: object, point: str) -> bool:
    """Does this plugin (instance or class) implement the extension point?"""
    return callable(getattr(plugin_or_class, BY_FIELD[point].method, None))


def extension_points_of(plugin_or_class: object) -> list[str]:
    """The fields of every point a plugin (instance or class) implements, in table order."""
    return [p.field for p in EXTENSION_POINTS if callable(getattr(plugin_or_class, p.method, None))]


__all__ = [
    "BY_FIELD",
    "CONFIG_FIELDS",
    "EXTENSION_POINTS",
    "ExtensionPoint",
    "WEIGHTED_FIELDS",
    "extension_points_of",
    "implements",
    "label",
]
