"""The entry point kschedctl loads (group ``kschedctl`` in pyproject.toml).

kschedctl's plugin manager registers this module with pluggy and calls every
``kschedctl_register_plugins`` hook once, when it builds its plugin registry. The source
package and version shown by ``kschedctl plugins`` are filled in from this distribution's
metadata.
"""

from __future__ import annotations

from kschedctl.framework import PluginSpec, hookimpl

from . import plugin_spec

# The kschedctl plugin API this package is written against (kschedctl.framework.PLUGIN_API_VERSION).
KSCHEDCTL_PLUGIN_API = 1


@hookimpl
def kschedctl_register_plugins() -> list[PluginSpec]:
    return [plugin_spec()]
