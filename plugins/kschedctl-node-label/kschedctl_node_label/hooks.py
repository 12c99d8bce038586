"""The entry point kschedctl loads (group ``kschedctl`` in pyproject.toml).

kschedctl's plugin manager checks ``KSCHEDCTL_PLUGIN_API`` against its own
``kschedctl.framework.PLUGIN_API_VERSION`` (a package written for another API is skipped with
a warning), then calls every ``kschedctl_register_plugins`` hook once. The source and version
``kschedctl plugins`` shows come from this distribution's metadata.
"""

from __future__ import annotations

from kschedctl.framework import PluginSpec, hookimpl

from . import plugin_spec

# The kschedctl plugin API this package is written against.
KSCHEDCTL_PLUGIN_API = 1


@hookimpl
def kschedctl_register_plugins() -> list[PluginSpec]:
    return [plugin_spec()]
