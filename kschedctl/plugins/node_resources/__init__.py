"""The node-resources plugins and the scorer they share, one module per concern:

- fit.py: NodeResourcesFit (Filter on requests against allocatable, and its Score)
- balanced_allocation.py: NodeResourcesBalancedAllocation
- placement_bin_packing.py: PlacementBinPacking (the placement-level score)
- resource_allocation.py: the resource-allocation scorer and its scoring strategies
- batch.py: their vectorised numpy twins, as subclasses of the ports (what the registry builds)
- details.py: the facts `explain` shows behind a NodeResourcesFit rejection

Upstream: pkg/scheduler/framework/plugins/noderesources/. The registry builds the batch.py classes
(the ports with their batch forms): fit_plugin_spec and balanced_allocation_plugin_spec here,
placement_bin_packing.plugin_spec there; names.IN_TREE_MODULES lists them one by one.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec, with_features
from kschedctl.plugins.node_resources import balanced_allocation, fit
from kschedctl.plugins.node_resources.args import NodeResourcesBalancedAllocationArgs, NodeResourcesFitArgs
from kschedctl.plugins.node_resources.batch import NodeResourcesBalancedAllocation, NodeResourcesFit


def fit_plugin_spec() -> PluginSpec:
    return PluginSpec(fit.NAME, with_features(NodeResourcesFit), NodeResourcesFit, args_type=NodeResourcesFitArgs)


def balanced_allocation_plugin_spec() -> PluginSpec:
    return PluginSpec(
        balanced_allocation.NAME,
        NodeResourcesBalancedAllocation,
        NodeResourcesBalancedAllocation,
        args_type=NodeResourcesBalancedAllocationArgs,
    )


__all__ = ["NodeResourcesBalancedAllocation", "NodeResourcesFit", "balanced_allocation_plugin_spec", "fit_plugin_spec"]
