"""The Registry of plugin factories (runtime/registry.go), filled through the pluggy hook.

In-tree plugins and installed packages register the very same way: a PluginSpec with the
plugin's name, its factory ``factory(args, handle)``, its class (so configuration can tell
which extension points it implements without building it), and its typed args.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kschedctl.framework.extension_points import extension_points_of

if TYPE_CHECKING:
    from kschedctl.framework.args import PluginArgs
    from kschedctl.framework.features import Features
    from kschedctl.framework.handle import Handle

# The plugin API this kschedctl provides. A package declares the one it was written for
# (KSCHEDCTL_PLUGIN_API in its entry-point module); the host skips a package that differs.
PLUGIN_API_VERSION = 1

PluginFactory = Callable[[Any, "Handle"], Any]  # (args, handle) -> plugin
PluginFactoryWithFeatures = Callable[[Any, "Handle", "Features"], Any]  # (args, handle, features) -> plugin


def with_features(factory: PluginFactoryWithFeatures) -> PluginFactory:
    """FactoryAdapter (runtime/registry.go): a factory that also takes the profile's Features."""

    def adapted(args: Any, handle: "Handle") -> Any:
        return factory(args, handle, handle.features)

    adapted.__name__ = getattr(factory, "__name__", "factory")
    adapted.__qualname__ = adapted.__name__
    return adapted


@dataclass
class PluginSpec:
    """One plugin as a package registers it.

    ``factory(args, handle)`` builds the plugin; ``args`` gets an instance of ``args_type``
    (decoded, defaulted) when the plugin has typed args, else its pluginConfig args as given
    (a dict or None). ``plugin_class`` tells which extension points it implements (its
    methods) without building it. ``args_schema`` (a JSON Schema) lets ``validate`` report
    args problems with lines; without it one is generated from ``args_type``.
    """

    name: str
    factory: PluginFactory
    plugin_class: type
    args_type: "type[PluginArgs] | None" = None
    args_schema: dict[str, Any] | None = None
    source: str = "in-tree"  # distribution name of the package that provides it
    version: str = ""
    extension_points: list[str] = field(default_factory=list)
    # kschedctl's own plugins (registered by kschedctl.plugins.intree) are called directly;
    # every other plugin runs sandboxed (kschedctl/runtime/sandbox.py). Set by the registry.
    trusted: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        if not self.extension_points:
            self.extension_points = extension_points_of(self.plugin_class)

    @property
    def args_kind(self) -> str | None:
        """The args kind, e.g. "NodeResourcesFitArgs"; None: the plugin takes no typed args."""
        return self.args_type.KIND if self.args_type is not None else None


class DuplicatePlugin(ValueError):
    pass


class Registry(dict[str, PluginSpec]):
    """name -> PluginSpec. Registering a name twice is an error (Registry.Register)."""

    def register(self, spec: PluginSpec) -> None:
        if spec.name in self:
            raise DuplicatePlugin(f"a plugin named {spec.name} already exists")
        self[spec.name] = spec

    def merge(self, other: "Registry") -> None:
        for spec in other.values():
            self.register(spec)
