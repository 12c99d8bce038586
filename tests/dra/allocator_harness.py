"""Runs one case of the translated upstream allocator table (TestAllocator in
structured/internal/allocatortesting/allocator_testing.go) against kschedctl's allocator."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from kschedctl.dra.cel import Cache
from kschedctl.dra.structured import (
    AllocatedState,
    AllocationError,
    AllocationFailedOnNode,
    Allocator,
    DeviceID,
    Features,
)

from .builders import Case

# The release behaviours that are not feature gates (Features.sorted_pools/accounting_fixes).
RELEASES = {"1.35": dict(sorted_pools=False, accounting_fixes=False), "1.36+": dict(sorted_pools=True, accounting_fixes=True)}

FEATURE_FIELDS = {
    "AdminAccess": "admin_access",
    "PrioritizedList": "prioritized_list",
    "PartitionableDevices": "partitionable_devices",
    "DeviceTaints": "device_taints",
    "DeviceBindingAndStatus": "device_binding_and_status",
    "ConsumableCapacity": "consumable_capacity",
}


def features_for(case: Case, release: str) -> Features:
    return Features(**{FEATURE_FIELDS[f]: True for f in case.features}, **RELEASES[release])


def _result_key(r) -> tuple:
    return (
        r.request,
        r.driver,
        r.pool,
        r.device,
        r.admin_access,
        tuple((t.key, t.operator, t.value, t.effect) for t in r.tolerations),
        tuple(r.binding_conditions),
        tuple(r.binding_failure_conditions),
        r.share_id is not None,
        tuple(sorted((k, Fraction(v)) for k, v in (r.consumed_capacity or {}).items())),
    )


def _selector_key(sel: dict | None):
    if sel is None:
        return None
    terms = []
    for t in sel["nodeSelectorTerms"]:
        terms.append(
            tuple(
                sorted(
                    (part, r["key"], r["operator"], tuple(sorted(r.get("values") or [])))
                    for part in ("matchExpressions", "matchFields")
                    for r in t.get(part) or []
                )
            )
        )
    return tuple(sorted(terms))


def run_case(case: Case, release: str) -> None:
    if case.skip:
        pytest.skip(case.skip)
    features = features_for(case, release)
    state = AllocatedState(
        set(DeviceID(*d) for d in case.allocated_devices),
        set((DeviceID(*d), share) for d, share in case.allocated_shared),
        {DeviceID(*d): dict(c) for d, c in case.allocated_capacity.items()},
    )
    classes = {c.name: c for c in case.classes}
    slices = [s.obj() for s in case.slices]
    allocator = Allocator(features, state, classes, slices, Cache())
    claims = [c.obj() for c in case.claims]
    try:
        results = allocator.allocate(case.node, claims)
    except AllocationError as exc:
        assert case.error is not None, f"unexpected error: {exc}"
        assert case.error in str(exc), f"error {str(exc)!r} does not contain {case.error!r}"
        if case.error_kind == "node":
            assert isinstance(exc, AllocationFailedOnNode)
        return
    assert case.error is None, f"expected error {case.error!r}, got results {results}"
    if case.allocate_one_calls is not None:
        assert allocator.num_allocate_one == case.allocate_one_calls
    got = results or []
    want = case.expect or []
    assert len(got) == len(want), f"got {len(got)} results, want {len(want)}: {got}"
    for g, w in zip(got, want):
        assert Counter(_result_key(r) for r in g.results) == Counter(_result_key(r) for r in w.results), (
            f"results differ:\n got  {g.results}\n want {w.results}"
        )
        assert _selector_key(g.node_selector) == _selector_key(w.selector), f"node selector {g.node_selector} != {w.selector}"
        assert list(g.config) == list(w.config or []), f"config {g.config} != {w.config}"
