"""The node-resources plugins and the scorer they share, one module per concern:

- fit.py: NodeResourcesFit (Filter on requests against allocatable, and its Score)
- balanced_allocation.py: NodeResourcesBalancedAllocation
- placement_bin_packing.py: PlacementBinPacking (the placement-level score)
- resource_allocation.py: the resource-allocation scorer and its scoring strategies
- batch.py: the vectorised numpy twins of their per-node Filter and Score
- details.py: the facts `explain` shows behind a NodeResourcesFit rejection

Upstream: pkg/scheduler/framework/plugins/noderesources/. Each plugin module defines its own
plugin_spec(); names.IN_TREE_MODULES lists them one by one.
"""
