"""The SchedulingGates plugin, one module per concern:

- plugin.py: the faithful per-node port

Upstream: pkg/scheduler/framework/plugins/schedulinggates/.
"""

from __future__ import annotations

from kschedctl.plugins.scheduling_gates.plugin import SchedulingGates, plugin_spec

__all__ = ["SchedulingGates", "plugin_spec"]
