"""The GangScheduling plugin, one module per concern:

- plugin.py: the faithful per-node port

Upstream: pkg/scheduler/framework/plugins/gangscheduling/.
"""

from __future__ import annotations

from kschedctl.plugins.gang_scheduling.plugin import GangScheduling, plugin_spec

__all__ = ["GangScheduling", "plugin_spec"]
