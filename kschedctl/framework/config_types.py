"""KubeSchedulerConfiguration v1, as typed objects (config/v1/types.go, apis/config/types.go).

The versioned file is decoded by ``config.loader``; ``config.defaults`` fills in v1 defaults
and merges each profile's plugins with the default set; ``config.validation`` checks it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedctl.api.jsontypes import JSONObject
from kschedctl.framework.args import PluginArgs
from kschedctl.framework.extension_points import CONFIG_FIELDS

# The extension point fields of `plugins`, in the order kube lists them (the one table:
# kschedctl/framework/extension_points.py).
PLUGIN_SET_FIELDS = CONFIG_FIELDS


@dataclass
class Plugin:
    """One plugin of a PluginSet (config.Plugin): its name and, for Score, its weight (None: not set)."""

    name: str
    weight: int | None = None


@dataclass
class PluginSet:
    """The enabled and disabled plugins of one extension point (config.PluginSet)."""

    enabled: list[Plugin] = field(default_factory=list)
    disabled: list[Plugin] = field(default_factory=list)


@dataclass
class Plugins:
    """A profile's ``plugins`` (config.Plugins): multiPoint, and the PluginSet of each other extension point by its field name."""

    multi_point: PluginSet = field(default_factory=PluginSet)
    sets: dict[str, PluginSet] = field(default_factory=dict)  # extension point field name -> set

    def get(self, point: str) -> PluginSet:
        return self.sets.setdefault(point, PluginSet())


@dataclass
class PluginConfig:
    """One pluginConfig entry. ``args`` is the decoded object as the file gives it until
    config defaulting (config.defaults) replaces it with an instance of the plugin's args
    type; a plugin with no args type keeps the decoded object."""

    name: str
    args: PluginArgs | JSONObject | None = None


@dataclass
class Profile:
    """One KubeSchedulerProfile: schedulerName, percentageOfNodesToScore, plugins and pluginConfig."""

    scheduler_name: str = ""
    # v1's schedulerName is a pointer: defaulting fills it only when absent, never when "" was given
    scheduler_name_set: bool = False
    percentage_of_nodes_to_score: int | None = None
    plugins: Plugins | None = None
    plugin_config: list[PluginConfig] = field(default_factory=list)

    def args_for(self, name: str) -> PluginArgs | JSONObject | None:
        for pc in self.plugin_config:
            if pc.name == name:
                return pc.args
        return None


@dataclass
class KubeSchedulerConfiguration:
    """The KubeSchedulerConfiguration (v1) the scheduler runs with; ``raw`` is the decoded file and ``source`` its path
    (``<default>``: no file given)."""

    parallelism: int = 16
    percentage_of_nodes_to_score: int | None = None
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    delay_cache_until_active: bool = False
    profiles: list[Profile] = field(default_factory=list)
    extenders: list[dict[str, Any]] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)
    source: str = "<default>"
