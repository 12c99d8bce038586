"""What `explain` shows per node for a pod with claims (``nodes[NODE].dra`` in -o json).

kube's Filter says only "cannot allocate all claims"; this looks at the node's devices once more,
request by request, in the allocator's own order of checks, and counts why each device cannot
serve the request: taken by another claim, its class's selector false (or failing), the request's
selector false (or failing), not reachable from the node, a taint the request does not tolerate,
not enough capacity left. A request with enough candidates on its own that still failed points
at what binds requests together: a constraint, or counters shared by partitions. A node that
passed shows the devices the allocator picked. This runs after the decision, on the same CEL
cache and pools, and changes nothing the scheduler reads.
"""

from __future__ import annotations

from typing import Any

from kschedctl.api.resource import Device, DeviceClass, ResourceSlice
from kschedctl.api.resourceclaim import ExactDeviceRequest, ResourceClaim
from kschedctl.api.types import Node
from kschedctl.dra.cel import CelDevice, CelRuntimeError
from kschedctl.dra.structured import DeviceID, node_matches
from kschedctl.dra.structured.pools import Pool
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo

# The reasons a device cannot serve a request, in the allocator's order of checks.
IN_USE = "allocated to another claim"
CLASS_FALSE = "class selector false"
CLASS_ERROR = "class selector error"
REQUEST_FALSE = "request selector false"
REQUEST_ERROR = "request selector error"
NOT_ON_NODE = "not available on the node"
TAINTED = "untolerated taint"
BINDING = "has binding conditions (feature off)"


def explain_node(pl: Any, state: CycleState, node_info: NodeInfo) -> dict[str, Any] | None:
    """The ``dra`` entry of one node, or None when the pod has no claims."""
    from kschedctl.plugins.dynamic_resources.plugin import STATE_KEY, StateData

    try:
        s = state.read(STATE_KEY)
    except Exception:  # noqa: BLE001 - no state: PreFilter did not run for this pod
        return None
    if not isinstance(s, StateData) or s.claims.empty():
        return None
    node = node_info.node
    assert node is not None
    out: dict[str, Any] = {"claims": []}
    picked = s.node_allocations.get(node.name)
    allocate_index = 0
    for index, claim in s.claims.all():
        entry: dict[str, Any] = {"claim": claim.key if not claim.name.startswith("<") else claim.name}
        if claim.allocation is not None:
            selector = s.informations[index].available_on_nodes
            entry["allocated"] = True
            entry["availableOnNode"] = selector is None or selector.matches(node.name, node.labels)
            entry["devices"] = [_device(r) for r in claim.allocation.results]
        elif picked is not None and allocate_index < len(picked.results):
            entry["allocated"] = False
            entry["devices"] = [_device(r) for r in picked.results[allocate_index].results]
            allocate_index += 1
        else:
            entry["allocated"] = False
            entry["requests"] = _requests(pl, s, claim, node)
        out["claims"].append(entry)
    if picked is None and any("requests" in c for c in out["claims"]):
        out["why"] = _why(out["claims"], s, pl, node)
    return out


def _device(r: Any) -> dict[str, str]:
    return {"request": r.request, "driver": r.driver, "pool": r.pool, "device": r.device}


def _requests(pl: Any, s: Any, claim: ResourceClaim, node: Node) -> list[dict[str, Any]]:
    features = s.allocator_features
    if features is None or s.allocator is None:
        return []
    pools = pl.manager.pools_for(node, features)
    allocated = s.allocator.allocated.allocated_devices
    out = []
    for request in claim.spec.requests:
        options = (
            [(request.name, request.exactly)]
            if request.exactly is not None
            else [(f"{request.name}/{sub.name}", sub) for sub in request.first_available]
        )
        for name, exact in options:
            out.append(_request(pl, s, claim, name, exact, request.exactly is not None, pools, allocated, node))
    return out


def _request(
    pl: Any,
    s: Any,
    claim: ResourceClaim,
    name: str,
    exact: ExactDeviceRequest,
    top: bool,
    pools: list[Pool],
    allocated: set[DeviceID],
    node: Node,
) -> dict[str, Any]:
    cls = pl.manager.get_class(exact.device_class_name)
    wanted = exact.count if exact.allocation_mode == "ExactCount" else "All"
    entry: dict[str, Any] = {"request": name, "deviceClass": exact.device_class_name, "count": wanted}
    excluded: dict[str, int] = {}
    errors: list[str] = []
    candidates = 0
    seen = 0
    holders: dict[DeviceID, str] | None = None
    held: dict[str, str] = {}
    admin = bool(exact.admin_access) and top
    for pool in pools:
        if pool.is_incomplete or pool.is_invalid:
            entry.setdefault("pools", []).append(
                {"pool": str(pool.id), "problem": "incomplete" if pool.is_incomplete else pool.invalid_reason}
            )
            continue
        for sl in pool.slices:
            for d in sl.devices:
                seen += 1
                reason = _exclusion(pl, s, claim, cls, exact, admin, sl, d, allocated, node, errors)
                if reason is None:
                    candidates += 1
                else:
                    excluded[reason] = excluded.get(reason, 0) + 1
                    if reason == IN_USE:
                        if holders is None:
                            holders = _holders(pl)
                        device_id = DeviceID(sl.driver, sl.pool.name, d.name)
                        held[str(device_id)] = holders.get(device_id, "a claim being allocated in this run")
    entry["devicesOnNode"] = seen
    entry["candidates"] = candidates
    if excluded:
        entry["excluded"] = dict(sorted(excluded.items()))
    if held:
        entry["heldBy"] = held
    if errors:
        entry["selectorErrors"] = sorted(set(errors))
    return entry


def _exclusion(
    pl: Any,
    s: Any,
    claim: ResourceClaim,
    cls: DeviceClass | None,
    exact: ExactDeviceRequest,
    admin: bool,
    sl: ResourceSlice,
    d: Device,
    allocated: set[DeviceID],
    node: Node,
    errors: list[str],
) -> str | None:
    device_id = DeviceID(sl.driver, sl.pool.name, d.name)
    # What the device is (class and request selectors, node, taints) is checked before whether it
    # is taken: a taken device that would not match anyway is no blocker, and saying "allocated"
    # of it hides the selector that is (the allocator itself checks allocation first).
    reason = _intrinsic_exclusion(pl, s, claim, cls, exact, sl, d, node, errors)
    if reason is None and not admin and device_id in allocated:
        return IN_USE
    return reason


def _intrinsic_exclusion(
    pl: Any,
    s: Any,
    claim: ResourceClaim,
    cls: DeviceClass | None,
    exact: ExactDeviceRequest,
    sl: ResourceSlice,
    d: Device,
    node: Node,
    errors: list[str],
) -> str | None:
    features = s.allocator_features
    if not features.device_binding_and_status and d.binding_conditions:
        return BINDING
    cel = pl.manager.cel
    cel_device = CelDevice(sl.driver, d.attributes, d.capacity, d.allow_multiple_allocations)
    for owner, selectors, false_reason, error_reason in (
        (f"class {cls.name}" if cls else "", [x.cel for x in cls.selectors] if cls else [], CLASS_FALSE, CLASS_ERROR),
        (f"claim {claim.key}", [x.cel for x in exact.selectors], REQUEST_FALSE, REQUEST_ERROR),
    ):
        for i, expression in enumerate(selectors):
            compiled = cel.get_or_compile(expression or "")
            if compiled.error is not None:
                errors.append(f"{owner}: selector #{i}: CEL compile error: {compiled.error}")
                return error_reason
            try:
                if not cel.device_matches(expression or "", cel_device, d):
                    return false_reason
            except CelRuntimeError as exc:
                errors.append(f"{owner}: selector #{i}: CEL runtime error: {exc}")
                return error_reason
    if sl.per_device_node_selection and not node_matches(node, d.node_name, d.all_nodes, d.node_selector):
        return NOT_ON_NODE
    if features.device_taints:
        for taint in d.taints:
            if taint.effect in ("NoSchedule", "NoExecute") and not any(t.tolerates(taint) for t in exact.tolerations):
                return TAINTED
    return None


def _reasons(r: dict[str, Any]) -> str:
    """Every reason with its count, most devices first (the allocator's order among equals), the
    claims holding the taken devices named."""
    order = [IN_USE, BINDING, CLASS_FALSE, CLASS_ERROR, REQUEST_FALSE, REQUEST_ERROR, NOT_ON_NODE, TAINTED]
    items = sorted(r["excluded"].items(), key=lambda kv: (-kv[1], order.index(kv[0]) if kv[0] in order else 99))
    out = []
    for reason, count in items:
        text = f"{count} {reason}"
        if reason == IN_USE and r.get("heldBy"):
            text += " (" + ", ".join(f"{dev} by {claim}" for dev, claim in sorted(r["heldBy"].items())) + ")"
        out.append(text)
    return ", ".join(out)


def _holders(pl: Any) -> dict[DeviceID, str]:
    """The claim each allocated device of the snapshot belongs to (status.allocation)."""
    out: dict[DeviceID, str] = {}
    for key, claim in pl.handle.objects.resource_claims.items():
        if claim.allocation is not None:
            for res in claim.allocation.results:
                out[DeviceID(res.driver, res.pool, res.device)] = key
    return out


def _why(claims: list[dict[str, Any]], s: Any, pl: Any, node: Node) -> str:
    """One sentence: the first request short of candidates, else what ties requests together."""
    for c in claims:
        for r in c.get("requests", []):
            if r.get("pools"):
                return f"{c['claim']}: resource pool {r['pools'][0]['pool']} is {r['pools'][0]['problem']}"
            if r["count"] == "All":
                continue
            if r["candidates"] < r["count"] and "/" not in r["request"]:
                if r["devicesOnNode"] == 0:
                    return f"{c['claim']}, request {r['request']}: no devices on the node"
                if r["candidates"] == 0 and r.get("excluded"):
                    return (
                        f"{c['claim']}, request {r['request']}: none of the {r['devicesOnNode']} devices on "
                        f"the node can serve it: {_reasons(r)}"
                    )
                return f"{c['claim']}, request {r['request']}: {r['candidates']} of the {r['count']} devices it needs are available"
        subs = [r for r in c.get("requests", []) if "/" in r["request"]]
        if subs and all(r["count"] != "All" and r["candidates"] < r["count"] for r in subs):
            return f"{c['claim']}: no subrequest of its prioritized lists can be met"
    total_wanted = sum(r["count"] for c in claims for r in c.get("requests", []) if r["count"] != "All" and "/" not in r["request"])
    total_free = max((r["candidates"] for c in claims for r in c.get("requests", [])), default=0)
    if total_wanted > total_free:
        return f"the claims need {total_wanted} devices together, the node has {total_free} candidates"
    reasons = []
    if any(claim.spec.constraints for _, claim in s.claims.to_allocate()):
        reasons.append("a constraint (matchAttribute/distinctAttribute) cannot be met")
    if any(p.counter_sets for p in pl.manager.pools_for(node, s.allocator_features)):
        reasons.append("shared counters are exhausted")
    if reasons:
        return "each request has candidates, but " + " or ".join(reasons)
    return "each request has candidates, but not enough distinct devices for all requests together"


__all__ = ["explain_node"]
