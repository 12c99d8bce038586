"""The VolumeBinding plugin, one module per concern:

- plugin.py: the faithful per-node port
- details.py: the facts `explain` shows behind a Filter rejection
- args.py: its typed args

Upstream: pkg/scheduler/framework/plugins/volumebinding/.
"""

from __future__ import annotations

from kschedctl.plugins.volume_binding.plugin import VolumeBinding, plugin_spec

__all__ = ["VolumeBinding", "plugin_spec"]
