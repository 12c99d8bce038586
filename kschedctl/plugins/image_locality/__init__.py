"""The ImageLocality plugin, one module per concern:

- plugin.py: the faithful per-node port
- batch.py: its vectorised numpy twin, a subclass of the port adding the batch forms (what
  the registry builds)

Upstream: pkg/scheduler/framework/plugins/imagelocality/.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec
from kschedctl.plugins.image_locality.batch import ImageLocality
from kschedctl.plugins.image_locality.plugin import NAME


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, ImageLocality, ImageLocality)


__all__ = ["ImageLocality", "plugin_spec"]
