"""The one PluginManager: in-tree plugins plus every installed package of the `kschedctl` group.

A package whose import fails (or whose hook raises) is reported by name and skipped; it never
takes the CLI down.
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass, field

import pluggy

from kschedctl import hookspecs
from kschedctl.framework.runtime.registry import PluginSpec, Registry

ENTRY_POINT_GROUP = "kschedctl"
INTREE = "kschedctl.plugins.intree"


@dataclass
class LoadedRegistry:
    registry: Registry
    errors: list[str] = field(default_factory=list)


def get_plugin_manager() -> tuple[pluggy.PluginManager, dict[object, tuple[str, str]], list[str]]:
    """The manager, the (distribution, version) behind each registered module, load errors."""
    from kschedctl.plugins import intree

    pm = pluggy.PluginManager("kschedctl")
    pm.add_hookspecs(hookspecs)
    pm.register(intree, name=INTREE)
    errors: list[str] = []
    packages: dict[object, tuple[str, str]] = {}
    for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        dist = getattr(ep, "dist", None)
        label = f"{dist.name if dist else ep.name}"
        try:
            module = ep.load()
            pm.register(module, name=f"{ENTRY_POINT_GROUP}:{ep.name}")
            packages[module] = (dist.name, dist.version) if dist else (ep.name, "")
        except Exception as exc:  # noqa: BLE001 - a broken package must not break the CLI
            errors.append(f"plugin package {label!r} failed to load and was skipped: {type(exc).__name__}: {exc}")
    return pm, packages, errors


def build_registry() -> LoadedRegistry:
    """Every plugin from every hook implementation, with the package that provides it."""
    pm, packages, errors = get_plugin_manager()
    registry = Registry()
    for impl in pm.hook.kschedctl_register_plugins.get_hookimpls():
        module = impl.plugin
        if impl.plugin_name == INTREE:  # kschedctl's own plugins: a failure is a bug, never skipped
            for spec in impl.function():
                spec.trusted = True
                registry.register(spec)
            continue
        try:
            specs: list[PluginSpec] = impl.function() or []
        except Exception as exc:  # noqa: BLE001
            errors.append(f"plugin package {impl.plugin_name!r} failed to register its plugins: {type(exc).__name__}: {exc}")
            continue
        for spec in specs:
            spec.trusted = False
            if module in packages and spec.source == "in-tree":
                spec.source, spec.version = packages[module]
            try:
                registry.register(spec)
            except ValueError as exc:
                errors.append(f"plugin package {impl.plugin_name!r}: {exc}")
    return LoadedRegistry(registry, errors)


_DEFAULT: LoadedRegistry | None = None


def default_registry() -> LoadedRegistry:
    """Built once per process."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = build_registry()
    return _DEFAULT
