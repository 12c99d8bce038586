"""The NodeVolumeLimits plugin, one module per concern:

- plugin.py: the faithful per-node port
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/nodevolumelimits/.
"""

from __future__ import annotations

from kschedctl.plugins.node_volume_limits.plugin import NodeVolumeLimits, plugin_spec

__all__ = ["NodeVolumeLimits", "plugin_spec"]
