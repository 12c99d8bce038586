"""The NodeUnschedulable plugin, one module per concern:

- plugin.py: the faithful per-node port
- batch.py: its vectorised numpy twin, a subclass of the port adding the batch forms (what
  the registry builds)
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/nodeunschedulable/.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec
from kschedctl.plugins.node_unschedulable.batch import NodeUnschedulable
from kschedctl.plugins.node_unschedulable.plugin import NAME


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, NodeUnschedulable, NodeUnschedulable)


__all__ = ["NodeUnschedulable", "plugin_spec"]
