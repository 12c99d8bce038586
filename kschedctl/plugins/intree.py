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


@hookimpl
def kschedctl_register_plugins() -> list[PluginSpec]:
    return [importlib.import_module(f"kschedctl.plugins.{module_name}").plugin_spec() for module_name in IN_TREE_MODULES]
