"""The entry point kschedctl loads (group ``kschedctl`` in pyproject.toml)."""

from __future__ import annotations

from kschedctl.framework.runtime.registry import PluginSpec
from kschedctl.hookspecs import hookimpl

from .coscheduling import plugin_spec


@hookimpl
def kschedctl_register_plugins() -> list[PluginSpec]:
    return [plugin_spec()]
