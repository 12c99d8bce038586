"""The entry point kschedctl loads (group ``kschedctl`` in pyproject.toml)."""

from __future__ import annotations

from kschedctl.framework import PluginSpec, hookimpl

from . import plugin_specs

# The kschedctl plugin API this package is written against.
KSCHEDCTL_PLUGIN_API = 1


@hookimpl
def kschedctl_register_plugins() -> list[PluginSpec]:
    return plugin_specs()
