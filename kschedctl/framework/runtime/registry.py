"""The Registry of plugin factories (runtime/registry.go), filled through the pluggy hook.

In-tree plugins and installed packages register the very same way: a PluginSpec with the
plugin's name, its factory ``factory(args, handle)``, its class (so configuration can tell
which extension points it implements without building it), and its args handling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from kschedctl.framework.extension_points import extension_points_of

ArgsDefaulter = Callable[[dict | None, Any], dict | None]  # (args given or None, KubeVersion) -> defaulted args
ArgsValidator = Callable[[dict, Any], list[tuple[str, str]]]  # (args, KubeVersion) -> [(field path, message)]


@dataclass
class PluginSpec:
    name: str
    factory: Callable[[dict | None, Any], Any]
    plugin_class: type
    args_kind: str | None = None  # e.g. "NodeResourcesFitArgs"; None: the plugin takes no args
    default_args: ArgsDefaulter | None = None
    validate_args: ArgsValidator | None = None
    args_schema: dict | None = None
    source: str = "in-tree"  # distribution name of the package that provides it
    version: str = ""
    extension_points: list[str] = field(default_factory=list)
    # kschedctl's own plugins (registered by kschedctl.plugins.intree) are called directly;
    # every other plugin runs sandboxed (framework/runtime/sandbox.py). Set by the registry.
    trusted: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        if not self.extension_points:
            self.extension_points = extension_points_of(self.plugin_class)


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
