"""The one PluginManager: in-tree plugins plus every installed package of the `kschedctl` group.

An installed package declares the plugin API it was written for, ``KSCHEDCTL_PLUGIN_API =
<int>`` in its entry-point module; a package that declares none, or another version than
this kschedctl's ``PLUGIN_API_VERSION``, is reported and skipped. A package whose import
fails, or whose hook fails or returns anything but a list of PluginSpec, is reported by name
and skipped too: importing and registering run in a Sandbox (any BaseException contained,
``sys.exit()`` included; time-limited; its prints go to stderr), so a broken package never
takes the CLI down, nor changes what ``validate`` says or exits with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pluggy

from kschedctl import hookspecs
from kschedctl.framework.registry import (
    PLUGIN_API_VERSION,
    PluginSpec,
    Registry,
)
from kschedctl.runtime.entry_points import entry_points
from kschedctl.runtime.sandbox import (
    DEFAULT_PLUGIN_TIMEOUT,
    Sandbox,
    describe,
)

ENTRY_POINT_GROUP = "kschedctl"
INTREE = "kschedctl.plugins.intree"
API_ATTRIBUTE = "KSCHEDCTL_PLUGIN_API"


@dataclass
class LoadedRegistry:
    """The plugin Registry (in-tree and installed packages) and why any package was skipped, for the CLI to warn."""

    registry: Registry
    errors: list[str] = field(default_factory=list)


def _api_problem(module: Any) -> str | None:
    """Why a package's declared plugin API does not fit this kschedctl (None: it fits)."""
    declared = getattr(module, API_ATTRIBUTE, None)
    if declared is None:
        return (
            f"declares no plugin API version ({API_ATTRIBUTE} in its entry-point module); "
            f"this kschedctl provides plugin API {PLUGIN_API_VERSION}"
        )
    if declared != PLUGIN_API_VERSION:
        return f"was written for plugin API {declared!r}; this kschedctl provides plugin API {PLUGIN_API_VERSION}"
    return None


def get_plugin_manager() -> tuple[pluggy.PluginManager, dict[object, tuple[str, str]], list[str]]:
    """The manager, the (distribution, version) behind each registered module, load errors."""
    from kschedctl.plugins import intree

    pm = pluggy.PluginManager("kschedctl")
    pm.add_hookspecs(hookspecs)
    pm.register(intree, name=INTREE)
    errors: list[str] = []
    packages: dict[object, tuple[str, str]] = {}
    # importlib.metadata's answer, without importing it (runtime/entry_points.py)
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        dist = getattr(ep, "dist", None)
        label = f"{dist.name if dist else ep.name}"
        sandbox = Sandbox(f"package {label}", DEFAULT_PLUGIN_TIMEOUT)
        try:
            module = sandbox.call(ep.load)
        except Exception as exc:  # noqa: BLE001 - a broken package must not break the CLI
            errors.append(f"plugin package {label!r} failed to load and was skipped: {describe(exc)}")
            continue
        problem = _api_problem(module)
        if problem is not None:
            errors.append(f"plugin package {label!r} {problem}: skipped")
            continue
        try:
            pm.register(module, name=f"{ENTRY_POINT_GROUP}:{ep.name}")
        except Exception as exc:  # noqa: BLE001 - e.g. a hook with the wrong signature
            errors.append(f"plugin package {label!r} failed to register and was skipped: {describe(exc)}")
            continue
        packages[module] = (dist.name, dist.version) if dist else (ep.name, "")
    return pm, packages, errors


def _specs_of(impl: Any) -> list[PluginSpec] | str:
    """A package's PluginSpecs from its hook, or why there are none."""
    sandbox = Sandbox(f"package {impl.plugin_name}", DEFAULT_PLUGIN_TIMEOUT)
    try:
        specs = sandbox.call(impl.function)
    except Exception as exc:  # noqa: BLE001
        return f"failed to register its plugins: {describe(exc)}"
    if specs is None:
        return []
    if not isinstance(specs, (list, tuple)):
        return f"returned {type(specs).__name__} from kschedctl_register_plugins, expected a list of PluginSpec"
    bad = [type(s).__name__ for s in specs if not isinstance(s, PluginSpec)]
    if bad:
        return f"returned {bad[0]} in its list of plugins, expected PluginSpec"
    return list(specs)


def build_registry() -> LoadedRegistry:
    """Every plugin from every hook implementation, with the package that provides it."""
    pm, packages, errors = get_plugin_manager()
    registry = Registry()
    for impl in pm.hook.kschedctl_register_plugins.get_hookimpls():
        module = impl.plugin
        if impl.plugin_name == INTREE:  # kschedctl's own plugins: a failure is a bug, never skipped
            for spec in list(impl.function()):  # type: ignore[call-overload]
                spec.trusted = True
                registry.register(spec)
            continue
        label = packages[module][0] if module in packages else impl.plugin_name
        specs = _specs_of(impl)
        if isinstance(specs, str):
            errors.append(f"plugin package {label!r} {specs}; skipped")
            continue
        for spec in specs:
            spec.trusted = False
            if module in packages and spec.source == "in-tree":
                spec.source, spec.version = packages[module]
            try:
                registry.register(spec)
            except ValueError as exc:
                errors.append(f"plugin package {label!r}: {exc}")
    return LoadedRegistry(registry, errors)


_DEFAULT: LoadedRegistry | None = None


def default_registry() -> LoadedRegistry:
    """Built once per process."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = build_registry()
    return _DEFAULT
