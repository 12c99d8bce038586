"""createNodeSelector (allocator_experimental.go): where an allocation can be used.

A device local to one node (a slice or device ``nodeName``, or ``bindsToNode``) pins the
allocation to the node it was made for; otherwise the single-term node selectors of the
slices (or per-device selectors) are merged into one term; devices for all nodes add nothing,
and an allocation usable everywhere has no node selector.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.jsontypes import JSONObject
from kschedctl.dra.structured.types import AllocationError


def _requirement_key(req: JSONObject) -> tuple[str, str, frozenset[str]]:
    return (str(req.get("key", "")), str(req.get("operator", "")), frozenset(str(v) for v in req.get("values") or ()))


def _add_new(source: Sequence[JSONObject], target: list[JSONObject]) -> None:
    for req in source:
        key = _requirement_key(req)
        if not any(_requirement_key(existing) == key for existing in target):
            target.append(dict(req))


def create_node_selector(results: Sequence[Any], node_name: str) -> JSONObject | None:
    """``results`` are the allocator's device results (with ``device`` and ``slice``)."""
    fields: list[JSONObject] = []
    expressions: list[JSONObject] = []
    for r in results:
        s, d = r.slice, r.device
        if s.per_device_node_selection:
            local, raw = d.node_name, d.node_selector_raw
        else:
            local, raw = s.node_name, s.node_selector_raw
        if local is not None or d.binds_to_node:
            return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}
        if raw is not None:
            terms = raw.get("nodeSelectorTerms") or []
            if len(terms) == 1:
                given = terms[0] or {}
                _add_new(given.get("matchFields") or [], fields)
                _add_new(given.get("matchExpressions") or [], expressions)
            elif len(terms) > 1:
                raise AllocationError(f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
    if not fields and not expressions:
        return None
    term: JSONObject = {}
    if expressions:
        term["matchExpressions"] = expressions
    if fields:
        term["matchFields"] = fields
    return {"nodeSelectorTerms": [term]}
