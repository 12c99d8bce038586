"""The NodePorts plugin, one module per concern:

- plugin.py: the faithful per-node port
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/nodeports/.
"""

from __future__ import annotations

from kschedctl.plugins.node_ports.plugin import NodePorts, plugin_spec

__all__ = ["NodePorts", "plugin_spec"]
