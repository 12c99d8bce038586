"""The VolumeRestrictions plugin, one module per concern:

- plugin.py: the faithful per-node port
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/volumerestrictions/.
"""

from __future__ import annotations

from kschedctl.plugins.volume_restrictions.plugin import VolumeRestrictions, plugin_spec

__all__ = ["VolumeRestrictions", "plugin_spec"]
