"""The PrioritySort plugin, one module per concern:

- plugin.py: the faithful per-node port

Upstream: pkg/scheduler/framework/plugins/queuesort/.
"""

from __future__ import annotations

from kschedctl.plugins.priority_sort.plugin import PrioritySort, plugin_spec

__all__ = ["PrioritySort", "plugin_spec"]
