"""The vectorised twin of the DynamicResources port: the class the registry builds, plugin.py's
DynamicResources plus its batch forms, which take many nodes at once (numpy arrays and the columnar
view where they pay) and give exactly the per-node results (tests/test_batch_equivalence.py
guards that).

No upstream counterpart: kube-scheduler runs Filter and Score per node in goroutines. Kept out
of plugin.py so that file reads like upstream's. A subclass rather than a mixin because the
batch forms read the port's state keys, reasons and helpers: the twin sits above the port, and
no import runs the other way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    BatchScores,
    Status,
)
from kschedctl.framework.types import NodeInfo
from kschedctl.lazy import numpy as np
from kschedctl.plugins.dynamic_resources import plugin
from kschedctl.plugins.dynamic_resources.plugin import MSG_CANNOT_ALLOCATE, _get_state, _NodeAllocation, statusUnschedulable


class DynamicResources(plugin.DynamicResources):
    """The DynamicResources port (plugin.py) with its batch forms: the class the registry builds."""

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """filter() for many nodes. Pods whose claims all need an allocation (no extended
        resources) take a shorter path per node: nothing but the allocation can reject them.
        A missing state raises (the runtime then repeats the per-node calls, which report it)."""
        if not self.enabled:
            return [None] * len(node_infos)
        s = _get_state(state)
        if s.claims.empty():
            return [None] * len(node_infos)
        if (
            s.allocator is None
            or s.claims.extended_resource_claim() is not None
            or any(c.allocation is not None for _, c in s.claims.all())
        ):
            return None  # the per-node form
        claims = [c for _, c in s.claims.to_allocate()]
        manager = self.manager
        if manager.in_flight:  # the node versions do not see in-flight allocations
            return None  # the per-node form
        out: list[Status | None] = []
        rejected = statusUnschedulable(MSG_CANNOT_ALLOCATE)
        features = s.allocator_features
        node_devices = manager.node_devices
        views, generation = manager.device_views, manager.slices_generation
        versions, free = manager.node_version, manager.node_free
        memo = manager.filter_memo
        allocations = s.node_allocations
        quick = s.validated and bool(s.min_devices)
        for ni in node_infos:
            node = ni.node
            assert node is not None
            name = node.meta.name
            view = views.get(name)
            if view is not None and view[0] is node and view[1] == generation and view[2] is features:
                plain = view[3][1]
            else:
                plain = node_devices(node, features)[1]  # type: ignore[arg-type]
            if quick and plain and free[name] == 0:
                out.append(rejected)  # as _allocate_on: every device taken
                continue
            if s.memo_key is not None:
                hit = memo.get((s.memo_key, name))
                if hit is not None and hit[0] is node and hit[1] == versions[name]:
                    found = hit[3]
                    if found is None:
                        out.append(rejected)
                    else:
                        allocations[name] = _NodeAllocation(found, None, [])
                        out.append(None)
                    continue
            status, found = self._allocate_on(s, node, claims, rejected)
            if status is None:
                allocations[name] = _NodeAllocation(found, None, [])  # type: ignore[arg-type]
            out.append(status)
            quick = s.validated and bool(s.min_devices)
        return out

    def score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> BatchScores | None:
        """score() for many nodes; a missing state raises (the runtime's per-node calls then
        report it exactly). Most pods have no claim and score 0 everywhere: an int64 array of
        zeros, which the runtime takes as it is (a list would be counted, then converted)."""
        if not self._scores():
            return np.zeros(len(node_infos), np.int64)
        s = _get_state(state)
        if s.claims.empty() or not s.node_allocations:
            return np.zeros(len(node_infos), np.int64)
        if not self.handle.version.has("DRAScoreReadsClaimAllocations") and any(c.allocation is not None for _, c in s.claims.all()):
            return None  # 1.35: computeScore fails on every node with an allocation (per-node form)
        if not any(r.first_available for _, c in s.claims.all() for r in c.spec.requests):
            return np.zeros(len(node_infos), np.int64)  # only prioritized lists score
        return None  # the per-node form

    def normalize_score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], values: Sequence[int]) -> Any:
        arr = np.asarray(values, np.int64)
        highest = int(np.maximum.reduce(arr)) if self.enabled and len(arr) else 0
        if highest == 0:
            return arr
        return (MAX_NODE_SCORE * arr) // highest
