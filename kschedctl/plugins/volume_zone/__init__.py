"""The VolumeZone plugin, one module per concern:

- plugin.py: the faithful per-node port
- batch.py: its batch twin, a subclass of the port adding the first pass of the Filter with
  nominated pods for many nodes (what the registry builds)
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/volumezone/.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec
from kschedctl.plugins.volume_zone.batch import VolumeZone
from kschedctl.plugins.volume_zone.plugin import NAME


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, VolumeZone, VolumeZone)


__all__ = ["VolumeZone", "plugin_spec"]
