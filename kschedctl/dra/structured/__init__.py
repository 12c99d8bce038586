"""The structured-parameters allocator of k8s.io/dynamic-resource-allocation/structured.

    allocator = Allocator(Features.for_version(version), AllocatedState.from_claims(...),
                          classes_by_name, slices, cel.Cache())
    results = allocator.allocate(node, claims)   # list[AllocationResult] | None

``None`` means the claims cannot be allocated on that node (the plugin says "cannot allocate
all claims"); AllocationError, AllocationFailedOnNode and AllocationCancelled carry the other
outcomes kube distinguishes.
"""

from kschedctl.dra.structured.allocator import Allocator
from kschedctl.dra.structured.pools import Pool, PoolID, gather_pools, node_matches
from kschedctl.dra.structured.types import (
    AllocatedState,
    AllocationCancelled,
    AllocationError,
    AllocationFailedOnNode,
    DeviceID,
    Features,
)

__all__ = [
    "AllocatedState",
    "AllocationCancelled",
    "AllocationError",
    "AllocationFailedOnNode",
    "Allocator",
    "DeviceID",
    "Features",
    "Pool",
    "PoolID",
    "gather_pools",
    "node_matches",
]
