"""The NodeUnschedulable plugin, one module per concern:

- plugin.py: the faithful per-node port
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/nodeunschedulable/.
"""

from __future__ import annotations

from kschedctl.plugins.node_unschedulable.plugin import NodeUnschedulable, plugin_spec

__all__ = ["NodeUnschedulable", "plugin_spec"]
