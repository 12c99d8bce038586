"""The entry point kschedctl loads (group ``kschedctl`` in pyproject.toml).

kschedctl's plugin manager registers this module with pluggy and calls every
``kschedctl_register_plugins`` hook once, when it builds its plugin registry. The source
package and version shown by ``kschedctl plugins`` are filled in from this distribution's
metadata.
"""

from __future__ import annotations

from kschedctl.framework.runtime.registry import PluginSpec
from kschedctl.hookspecs import hookimpl

from . import plugin_spec


@hookimpl
def kschedctl_register_plugins() -> list[PluginSpec]:
    return [plugin_spec()]
