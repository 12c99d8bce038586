"""The NodeVolumeLimits plugin, one module per concern:

- plugin.py: the faithful per-node port
- batch.py: its vectorised numpy twin, a subclass of the port adding the batch Filter (what
  the registry builds)
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/nodevolumelimits/.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec
from kschedctl.plugins.node_volume_limits.batch import NodeVolumeLimits
from kschedctl.plugins.node_volume_limits.plugin import NAME


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, NodeVolumeLimits, NodeVolumeLimits)


__all__ = ["NodeVolumeLimits", "plugin_spec"]
