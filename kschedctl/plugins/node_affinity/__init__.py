"""The NodeAffinity plugin, one module per concern:

- plugin.py: the faithful per-node port
- batch.py: its vectorised numpy twin, a subclass of the port adding the batch forms (what
  the registry builds)
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/nodeaffinity/.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec
from kschedctl.plugins.node_affinity.args import NodeAffinityArgs
from kschedctl.plugins.node_affinity.batch import NodeAffinity
from kschedctl.plugins.node_affinity.plugin import NAME


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, NodeAffinity, NodeAffinity, args_type=NodeAffinityArgs)


__all__ = ["NodeAffinity", "plugin_spec"]
