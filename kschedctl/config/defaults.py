"""v1 defaulting of KubeSchedulerConfiguration: default plugins, plugin merging, args defaults.

Upstream: pkg/scheduler/apis/config/v1/default_plugins.go (getDefaultPlugins,
applyFeatureGates, mergePlugins, mergePluginSet) and v1/defaults.go
(SetDefaults_KubeSchedulerConfiguration, setDefaults_KubeSchedulerProfile).
"""

from __future__ import annotations

import copy

from kschedctl.api.errors import InputError
from kschedctl.framework.args import ArgsError, PluginArgs
from kschedctl.framework.config_types import (
    PLUGIN_SET_FIELDS,
    KubeSchedulerConfiguration,
    Plugin,
    PluginConfig,
    Plugins,
    PluginSet,
    Profile,
)
from kschedctl.framework.features import Features
from kschedctl.framework.registry import Registry
from kschedctl.lazy import quiet_log
from kschedctl.runtime.plugin_args import new_args
from kschedctl.versions import KubeVersion

DEFAULT_SCHEDULER_NAME = "default-scheduler"


class ConfigError(InputError):
    """An unreadable or undecodable configuration file."""


def default_plugins(version: KubeVersion) -> Plugins:
    """getDefaultPlugins + applyFeatureGates for the emulated release.

    DynamicResources (DRA, GA since 1.34) sits right before DefaultPreemption so that its
    PostFilter frees idle claims before any pod is evicted. Its score weight of 2 and the
    presence of VolumeBinding at Score were observed from kube-scheduler 1.35.4's own
    framework (reference section 12).
    """
    enabled = [
        Plugin("SchedulingGates"),
        Plugin("PrioritySort"),
        Plugin("NodeUnschedulable"),
        Plugin("NodeName"),
        Plugin("TaintToleration", 3),
        Plugin("NodeAffinity", 2),
        Plugin("NodePorts"),
        Plugin("NodeResourcesFit", 1),
        Plugin("VolumeRestrictions"),
        Plugin("NodeVolumeLimits"),
        Plugin("VolumeBinding"),
        Plugin("VolumeZone"),
        Plugin("PodTopologySpread", 2),
        Plugin("InterPodAffinity", 2),
        Plugin("DefaultPreemption"),
        Plugin("NodeResourcesBalancedAllocation", 1),
        Plugin("ImageLocality", 1),
        Plugin("DefaultBinder"),
    ]
    if version.feature_enabled("DynamicResourceAllocation"):
        at = next(i for i, p in enumerate(enabled) if p.name == "DefaultPreemption")
        enabled.insert(at, Plugin("DynamicResources", 2))
    if version.feature_enabled("GenericWorkload") and version.feature_enabled("GangScheduling"):
        enabled.append(Plugin("GangScheduling"))
    if version.feature_enabled("TopologyAwareWorkloadScheduling"):
        enabled.append(Plugin("TopologyPlacementGenerator"))
        enabled.append(Plugin("PodGroupPodsCount", 1))
    return Plugins(multi_point=PluginSet(enabled=enabled))


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """mergePluginSet: custom disabled first, defaults kept in place (re-configured in place),
    then the custom plugins that replaced nothing, duplicates included."""
    disabled = [Plugin(p.name) for p in custom.disabled] + [Plugin(p.name) for p in default.disabled]
    disabled_names = {p.name for p in disabled}
    custom_index = {p.name: (i, p) for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[Plugin] = []
    if "*" not in disabled_names:
        for p in default.enabled:
            if p.name in disabled_names:
                continue
            if p.name in custom_index:
                quiet_log(__name__, "info", "Default plugin is explicitly re-configured; overriding: %s", p.name)
                index, p = custom_index[p.name]
                replaced.add(index)
            enabled.append(copy.copy(p))
    enabled.extend(copy.copy(p) for i, p in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(enabled=enabled, disabled=disabled)


def merge_plugins(default: Plugins, custom: Plugins | None) -> Plugins:
    if custom is None:
        return default
    merged = Plugins(multi_point=merge_plugin_set(default.multi_point, custom.multi_point))
    for point in PLUGIN_SET_FIELDS:
        merged.sets[point] = merge_plugin_set(default.get(point), custom.get(point))
    return merged


def enabled_plugin_names(plugins: Plugins) -> list[str]:
    """Every plugin enabled at any point, in first-seen order (setDefaults_KubeSchedulerProfile)."""
    seen: dict[str, None] = {}
    for p in plugins.multi_point.enabled:
        seen.setdefault(p.name)
    for point in PLUGIN_SET_FIELDS:
        for p in plugins.get(point).enabled:
            seen.setdefault(p.name)
    return list(seen)


def set_defaults_profile(profile: Profile, version: KubeVersion, registry: Registry, index: int = 0, source: str = "<default>") -> None:
    """Merge plugins with the defaults and give every enabled plugin with typed args its
    decoded, defaulted args (pluginConfig args become instances of the plugin's args kind;
    an args decoding error is a ConfigError naming the field)."""
    profile.plugins = merge_plugins(default_plugins(version), profile.plugins)
    features = Features.of(version)
    given = {pc.name: pc for pc in profile.plugin_config}
    for name in enabled_plugin_names(profile.plugins):
        spec = registry.get(name)
        if spec is None or spec.args_type is None or name in given:
            continue
        profile.plugin_config.append(PluginConfig(name, new_args(spec, None, features)))
    for j, pc in enumerate(profile.plugin_config):
        spec = registry.get(pc.name)
        if pc.name in given and spec is not None and spec.args_type is not None and not isinstance(pc.args, PluginArgs):
            try:
                pc.args = new_args(spec, pc.args, features)
            except ArgsError as exc:
                base = f"profiles[{index}].pluginConfig[{j}].args"
                raise ConfigError(
                    exc.message, file=source, obj="KubeSchedulerConfiguration", field=f"{base}.{exc.field}" if exc.field else base
                ) from None


def set_defaults(config: KubeSchedulerConfiguration, version: KubeVersion, registry: Registry) -> KubeSchedulerConfiguration:
    """SetDefaults_KubeSchedulerConfiguration."""
    if not config.profiles:
        config.profiles.append(Profile())
    first = config.profiles[0]
    if len(config.profiles) == 1 and not first.scheduler_name and not first.scheduler_name_set:
        config.profiles[0].scheduler_name = DEFAULT_SCHEDULER_NAME
    for i, profile in enumerate(config.profiles):
        set_defaults_profile(profile, version, registry, i, config.source)
    if config.percentage_of_nodes_to_score is None:
        config.percentage_of_nodes_to_score = 0
    return config
