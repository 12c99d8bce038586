"""The VolumeZone plugin, one module per concern:

- plugin.py: the faithful per-node port
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/volumezone/.
"""

from __future__ import annotations

from kschedctl.plugins.volume_zone.plugin import VolumeZone, plugin_spec

__all__ = ["VolumeZone", "plugin_spec"]
