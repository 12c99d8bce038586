"""The pluggy hook specifications through which plugins reach kschedctl.

In-tree plugins are registered through these same hooks (``kschedctl.plugins.intree``), so an
installed package has no second-class path. A package declares an entry point in the group
``kschedctl`` pointing at a module (or object) with ``@hookimpl`` functions.
"""

from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("kschedctl")
hookimpl = pluggy.HookimplMarker("kschedctl")


@hookspec
def kschedctl_register_plugins() -> list:  # type: ignore[empty-body]
    """Called once when the registry is built.

    Return a list of ``kschedctl.framework.runtime.registry.PluginSpec``: each names a plugin, its
    factory ``factory(args, handle)`` returning the plugin instance, the plugin class (its
    methods say which extension points it implements), and optionally the kind of its args,
    a defaulting function, a validation function and a JSON Schema for the args.
    """
