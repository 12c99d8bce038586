"""Registers kube-scheduler's in-tree plugins through the same hook installed packages use."""

from __future__ import annotations

import importlib

from ..framework.registry import PluginSpec
from ..hookspecs import hookimpl
from .names import IN_TREE_MODULES


@hookimpl
def kschedctl_register_plugins() -> list[PluginSpec]:
    specs = []
    for module_name in IN_TREE_MODULES:
        full_name = f"kschedctl.plugins.{module_name}"
        try:
            module = importlib.import_module(full_name)
        except ModuleNotFoundError as exc:
            if exc.name == full_name:
                continue  # listed ahead of its implementation
            raise
        specs.append(module.plugin_spec())
    return specs
