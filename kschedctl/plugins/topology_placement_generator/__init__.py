"""The TopologyPlacementGenerator plugin, one module per concern:

- plugin.py: the faithful per-node port

Upstream: pkg/scheduler/framework/plugins/topologyaware/.
"""

from __future__ import annotations

from kschedctl.plugins.topology_placement_generator.plugin import TopologyPlacementGenerator, plugin_spec

__all__ = ["TopologyPlacementGenerator", "plugin_spec"]
