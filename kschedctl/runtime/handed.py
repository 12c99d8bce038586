"""What a sandboxed plugin was handed, as it was: taken before the call, compared after, put back.

kube hands its plugins pointers into the scheduler's snapshot (the pod, each NodeInfo) and
trusts them not to write through them: they are compiled in and reviewed. kschedctl hands a
third-party plugin the same objects, so a plugin that sets ``node_info.allocatable``, adds a
pod to ``node_info.pods`` or rewrites the pod's labels would change what every later pod is
decided on (an over-committed node, a selector that matches what it should not).

For every call into a sandboxed plugin's method (framework/runtime/sandbox.py), ``taken``
records the parts of the pods and NodeInfos among its arguments that decisions read: each
field's object (so an assignment shows), the resource amounts, and the contents of the pod
list and of the label, annotation, selector and allocatable maps. ``changed`` compares after
the call; on a difference it puts every recorded value back and names what changed, and the
sandbox fails that call (a failed attempt naming the plugin). In-tree plugins are called
directly and pay nothing; a sandboxed call pays a few microseconds per pod or node handed.

Not covered (the trust boundary, docs/writing-plugins.md): objects reached by other routes (the
handle's snapshot lister, CycleState, objects nested deeper than these fields), and changes
made by a plugin's own thread after its call returned.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

# Record[0] is the object; the rest is what restore() needs.
Record = tuple[Any, ...]
_Taker = Callable[[Any], Record]

_TAKERS: dict[type, _Taker] | None = None
_G: dict[str, Any] = {}  # kind -> operator.attrgetter of its fields (a tuple, built in C)
_POD_FIELDS: tuple[str, ...] = ()
_META_FIELDS: tuple[str, ...] = ()
_NODE_FIELDS: tuple[str, ...] = ()
_NODE_INFO_FIELDS = (
    "node",
    "pods",
    "pods_with_affinity",
    "pods_with_required_anti_affinity",
    "used_ports",
    "requested",
    "non_zero_requested",
    "allocatable",
    "image_states",
    "pvc_ref_counts",
)
_RESOURCES = ("requested", "non_zero_requested", "allocatable")


def _resource(r: Any) -> tuple[Any, ...]:
    return (r.milli_cpu, r.memory, r.ephemeral_storage, r.allowed_pod_number, dict(r.scalar_resources))


def _put_resource(r: Any, saved: tuple[Any, ...]) -> None:
    r.milli_cpu, r.memory, r.ephemeral_storage, r.allowed_pod_number, scalars = saved
    r.scalar_resources.clear()
    r.scalar_resources.update(scalars)


def _meta(meta: Any) -> tuple[Any, ...]:
    return (_G["meta"](meta), dict(meta.labels), dict(meta.annotations))


def _put_meta(meta: Any, saved: tuple[Any, ...]) -> None:
    fields, labels, annotations = saved
    for f, v in zip(_META_FIELDS, fields):
        setattr(meta, f, v)
    _put_dict(meta.labels, labels)
    _put_dict(meta.annotations, annotations)


def _put_dict(d: dict[str, Any], saved: dict[str, Any]) -> None:
    if d != saved:
        d.clear()
        d.update(saved)


def _take_pod(pod: Any) -> Record:
    info = pod.cache.get("pod_info")
    requests = info.requests if info is not None else None
    return (
        pod,
        _G["pod"](pod),
        _meta(pod.meta),
        dict(pod.node_selector),
        info,
        requests,
        _resource(requests) if requests is not None else None,
    )


def _put_pod(rec: Record) -> None:
    pod, fields, meta, selector, info, requests, amounts = rec
    for f, v in zip(_POD_FIELDS, fields):
        setattr(pod, f, v)
    _put_meta(pod.meta, meta)
    _put_dict(pod.node_selector, selector)
    if info is not None:
        pod.cache["pod_info"] = info
        info.requests = requests
        _put_resource(requests, amounts)


def _take_node(node: Any) -> tuple[Any, ...]:
    return (_G["node"](node), _meta(node.meta), dict(node.allocatable))


def _put_node(node: Any, saved: tuple[Any, ...]) -> None:
    fields, meta, allocatable = saved
    for f, v in zip(_NODE_FIELDS, fields):
        setattr(node, f, v)
    _put_meta(node.meta, meta)
    _put_dict(node.allocatable, allocatable)


def _take_node_info(ni: Any) -> Record:
    node = ni.node
    return (
        ni,
        _G["node_info"](ni),
        tuple(ni.pods),  # the PodInfos themselves: one added or removed shows
        ni.generation,
        (_resource(ni.requested), _resource(ni.non_zero_requested), _resource(ni.allocatable)),
        _take_node(node) if node is not None else None,
    )


def _put_node_info(rec: Record) -> None:
    ni, fields, pods, generation, amounts, node = rec
    for f, v in zip(_NODE_INFO_FIELDS, fields):
        setattr(ni, f, v)
    ni.pods[:] = pods
    ni.generation = generation
    for r, saved in zip(_RESOURCES, amounts):
        _put_resource(getattr(ni, r), saved)
    if node is not None:
        _put_node(ni.node, node)


def _takers() -> dict[type, _Taker]:
    """The types looked at, resolved on first use (this module imports nothing at start-up)."""
    global _TAKERS, _POD_FIELDS, _META_FIELDS, _NODE_FIELDS
    if _TAKERS is None:
        import dataclasses

        from kschedctl.api.types import Node, ObjectMeta, Pod
        from kschedctl.framework.types import NodeInfo, PodInfo, QueuedPodInfo

        _POD_FIELDS = tuple(f.name for f in dataclasses.fields(Pod) if f.name not in ("raw", "cache"))
        _META_FIELDS = tuple(f.name for f in dataclasses.fields(ObjectMeta))
        _NODE_FIELDS = tuple(f.name for f in dataclasses.fields(Node) if f.name != "raw")
        _G.update(
            pod=attrgetter(*_POD_FIELDS),
            meta=attrgetter(*_META_FIELDS),
            node=attrgetter(*_NODE_FIELDS),
            node_info=attrgetter(*_NODE_INFO_FIELDS),
        )
        _TAKERS = {
            Pod: _take_pod,
            NodeInfo: _take_node_info,
            PodInfo: lambda info: _take_pod(info.pod),
            QueuedPodInfo: lambda q: _take_pod(q.pod_info.pod),
        }
    return _TAKERS


def taken(args: tuple[Any, ...]) -> list[Record]:
    """The records of the pods and NodeInfos among a call's arguments (lists of them too)."""
    takers = _takers()
    out: list[Record] = []
    for a in args:
        take = takers.get(type(a))
        if take is not None:
            out.append(take(a))
        elif type(a) is list or type(a) is tuple:
            for item in a:
                take = takers.get(type(item))
                if take is None:
                    break
                out.append(take(item))
    return out


def _what(rec: Record) -> str:
    obj = rec[0]
    if len(rec) == 6:
        return f'the NodeInfo of node "{obj.name}"'
    return f'pod "{obj.namespace}/{obj.name}"'


def changed(records: list[Record]) -> str | None:
    """After the call: None when everything is as it was; else every record is put back and the
    answer names the objects that changed."""
    names: list[str] = []
    for rec in records:
        obj = rec[0]
        if len(rec) == 6:  # a NodeInfo's
            if _take_node_info(obj) != rec:
                names.append(_what(rec))
                _put_node_info(rec)
            continue
        now = _take_pod(obj)
        if rec[4] is None:  # no PodInfo before the call: one computed during it is not a change
            now = now[:4] + (None, None, None)
        if now != rec:
            names.append(_what(rec))
            _put_pod(rec)
    if not names:
        return None
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


__all__ = ["changed", "taken"]
