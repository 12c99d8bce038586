"""Registers kube-scheduler's in-tree plugins through the same hook installed packages use.

Upstream: pkg/scheduler/framework/plugins/registry.go lists the in-tree factories by explicit
import. An in-tree module that cannot be imported is a bug in kschedctl, not a broken
package: it raises (a misspelled name in IN_TREE_MODULES must never drop a plugin silently).
"""

from __future__ import annotations

import importlib

from kschedctl.framework.registry import PluginSpec
from kschedctl.hookspecs import hookimpl
from kschedctl.plugins.names import IN_TREE_MODULES


def in_tree_spec(entry: str) -> PluginSpec:
    """The PluginSpec an IN_TREE_MODULES entry names: "module" (its plugin_spec) or
    "module:function" (a package holding several plugins, such as node_resources)."""
    module_name, _, function = entry.partition(":")
    spec: PluginSpec = getattr(importlib.import_module(f"kschedctl.plugins.{module_name}"), function or "plugin_spec")()
    return spec


@hookimpl
def kschedctl_register_plugins() -> list[PluginSpec]:
    return [in_tree_spec(entry) for entry in IN_TREE_MODULES]
