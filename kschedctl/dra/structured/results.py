"""What Allocate returns for one claim (the end of Allocate in allocator_experimental.go):
device results in allocation order, the configuration (class configs once per class, then
the claim's configs that apply), and the node selector."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.resourceclaim import (
    AllocationResult,
    DeviceRequestAllocationResult,
    DeviceToleration,
    ResourceClaim,
)
from kschedctl.dra.structured.types import AllocationError

if TYPE_CHECKING:
    from kschedctl.dra.structured.allocator import _Run


def _tolerations(claim: ResourceClaim, request: str, parent: str | None) -> tuple[DeviceToleration, ...]:
    name = parent or request
    for req in claim.spec.requests:
        if req.name != name:
            continue
        if parent is None:
            return req.exactly.tolerations if req.exactly is not None else ()
        for sub in req.first_available:
            if sub.name == request:
                return sub.tolerations
    return ()


def build_result(
    run: "_Run", ci: int, claim: ResourceClaim, create_node_selector: Callable[[Sequence[Any], str], JSONObject | None]
) -> AllocationResult:
    device_results = []
    for r in run.results[ci]:
        binding = run.f.device_binding_and_status
        device_results.append(
            DeviceRequestAllocationResult(
                request=f"{r.parent}/{r.request}" if r.parent else r.request,
                driver=r.id.driver,
                pool=r.id.pool,
                device=r.id.device,
                admin_access=True if r.admin_access else None,
                tolerations=tuple(_tolerations(claim, r.request, r.parent)),
                binding_conditions=r.device.binding_conditions if binding else (),
                binding_failure_conditions=r.device.binding_failure_conditions if binding else (),
                share_id=r.share_id,
                consumed_capacity=dict(r.consumed) if r.consumed else None,
            )
        )

    config: list[JSONObject] = []
    class_ranges: dict[str, tuple[int, int]] = {}
    for ri in range(len(claim.spec.requests)):
        data = run.request_data[(ci, ri, 0)]
        if data.parent is not None:
            data = run.request_data[(ci, ri, data.selected_sub)]
        cls = data.class_
        if cls is None:
            continue
        if cls.name in class_ranges:
            start, end = class_ranges[cls.name]
            for i in range(start, end):
                config[i]["requests"].append(data.full_name)
            continue
        start = len(config)
        for c in cls.config:
            entry = {"source": "FromClass", "requests": [data.full_name]}
            entry.update({k: v for k, v in c.items() if k != "requests"})
            config.append(entry)
        class_ranges[cls.name] = (start, len(config))
    for c in claim.spec.config:
        requests = list(c.get("requests") or [])
        body = {k: v for k, v in c.items() if k != "requests"}
        if not requests:
            config.append({"source": "FromClaim", **({"requests": requests} if c.get("requests") is not None else {}), **body})
            continue
        for ri, req in enumerate(claim.spec.requests):
            if req.name in requests:
                config.append({"source": "FromClaim", "requests": requests, **body})
                continue
            data = run.request_data[(ci, ri, 0)]
            if data.parent is None:
                continue
            sub = req.first_available[data.selected_sub]
            if f"{req.name}/{sub.name}" in requests:
                config.append({"source": "FromClaim", "requests": requests, **body})

    try:
        selector = create_node_selector(run.results[ci], run.node.name)
    except AllocationError as exc:
        raise AllocationError(f"create NodeSelector for claim {claim.name}: {exc}") from None
    return AllocationResult(tuple(device_results), tuple(config), selector)
