"""The pluggy hook specifications through which plugins reach kschedctl.

In-tree plugins are registered through these same hooks (``kschedctl.plugins.intree``), so an
installed package has no second-class path. A package declares an entry point in the group
``kschedctl`` pointing at a module (or object) with ``@hookimpl`` functions.
"""

from __future__ import annotations

from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("kschedctl")
hookimpl = pluggy.HookimplMarker("kschedctl")


@hookspec
# list[PluginSpec]: this module sits below the framework (tests/test_tree.py), so Any.
def kschedctl_register_plugins() -> list[Any]:  # type: ignore[empty-body]
    """Called once when the registry is built.

    Return a list of ``kschedctl.framework.PluginSpec``: each names a plugin, its factory
    ``factory(args, handle)`` returning the plugin instance, the plugin class (its methods say
    which extension points it implements), and optionally its typed args
    (``args_type``, a ``kschedctl.framework.PluginArgs`` dataclass) and a JSON Schema for them.
    The module holding the hook declares ``KSCHEDCTL_PLUGIN_API`` (kschedctl.framework.PLUGIN_API_VERSION).
    """
