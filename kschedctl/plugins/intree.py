"""Registers kube-scheduler's in-tree plugins through the same hook installed packages use."""

from __future__ import annotations

import importlib

from kschedctl.framework.runtime.registry import PluginSpec
from kschedctl.hookspecs import hookimpl
from kschedctl.plugins.names import IN_TREE_MODULES

# Modules that failed to import or register: reported by the plugin manager, never fatal.
LOAD_ERRORS: list[str] = []


@hookimpl
def kschedctl_register_plugins() -> list[PluginSpec]:
    specs = []
    LOAD_ERRORS.clear()
    for module_name in IN_TREE_MODULES:
        full_name = f"kschedctl.plugins.{module_name}"
        try:
            module = importlib.import_module(full_name)
            specs.append(module.plugin_spec())
        except ModuleNotFoundError as exc:
            if exc.name != full_name:
                LOAD_ERRORS.append(f"in-tree plugin module {module_name!r} failed: {exc}")
            # else: listed ahead of its implementation
        except Exception as exc:  # noqa: BLE001
            LOAD_ERRORS.append(f"in-tree plugin module {module_name!r} failed: {type(exc).__name__}: {exc}")
    return specs
