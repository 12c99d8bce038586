"""The DefaultBinder plugin, one module per concern:

- plugin.py: the faithful per-node port

Upstream: pkg/scheduler/framework/plugins/defaultbinder/.
"""

from __future__ import annotations

from kschedctl.plugins.default_binder.plugin import DefaultBinder, plugin_spec

__all__ = ["DefaultBinder", "plugin_spec"]
