"""The NodePorts plugin, one module per concern:

- plugin.py: the faithful per-node port
- batch.py: its vectorised numpy twin, a subclass of the port adding the batch forms (what
  the registry builds)
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/nodeports/.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec
from kschedctl.plugins.node_ports.batch import NodePorts
from kschedctl.plugins.node_ports.plugin import NAME


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, NodePorts, NodePorts)


__all__ = ["NodePorts", "plugin_spec"]
