"""The ImageLocality plugin, one module per concern:

- plugin.py: the faithful per-node port

Upstream: pkg/scheduler/framework/plugins/imagelocality/.
"""

from __future__ import annotations

from kschedctl.plugins.image_locality.plugin import ImageLocality, plugin_spec

__all__ = ["ImageLocality", "plugin_spec"]
