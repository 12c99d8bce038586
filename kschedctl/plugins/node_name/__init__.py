"""The NodeName plugin, one module per concern:

- plugin.py: the faithful per-node port
- batch.py: its vectorised numpy twin, a subclass of the port adding the batch forms (what
  the registry builds)
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/nodename/.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec
from kschedctl.plugins.node_name.batch import NodeName
from kschedctl.plugins.node_name.plugin import NAME


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, NodeName, NodeName)


__all__ = ["NodeName", "plugin_spec"]
