"""Load a cluster snapshot: files, directories and stdin, YAML or JSON, objects or lists.

Accepts exactly what `kubectl get nodes,pods,pdb,priorityclasses -A -o yaml` prints, and
hand-written files. Every problem becomes one InputError naming the file, the object, the
field and, where the YAML parser knows it, the line. Lines are looked up only when an
error is reported, so the fast C loader can be used for the normal path.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

import yaml

from kschedctl.api.errors import InputError, ObjectError
from kschedctl.api.inputs import read_text as read_input
from kschedctl.api.resource import DeviceClass, ResourceSlice
from kschedctl.api.resource_admission import DRA_KINDS, served_as_v1, validate_dra_object
from kschedctl.api.resourceclaim import ResourceClaim, ResourceClaimTemplate
from kschedctl.api.types import (
    GenericObject,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
)
from kschedctl.backend.podgroup import storage_kind
from kschedctl.cluster.objects import ClusterObjects

try:  # libyaml's C loader when present: an order of magnitude faster
    _YamlLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _YamlLoader = yaml.SafeLoader

try:  # a fast JSON parser when installed (extra "fast")
    import orjson

    def _json_loads(text: str | bytes) -> Any:
        return orjson.loads(text)
except ImportError:  # pragma: no cover
    def _json_loads(text: str | bytes) -> Any:
        return json.loads(text)


SNAPSHOT_SUFFIXES = (".yaml", ".yml", ".json")
_NAMESPACED_GENERIC = {"PersistentVolumeClaim", "Service", "ReplicaSet", "StatefulSet", "ReplicationController",
                       "PodGroup", "Workload"}
_CLUSTER_GENERIC = {"PersistentVolume", "StorageClass", "CSINode", "CSIDriver"}
# Read through ClusterObjects.other[kind] (VolumeBinding's capacity check).
_OTHER_NAMESPACED = {"CSIStorageCapacity"}
# Dynamic Resource Allocation, read by the DynamicResources plugin (resource.k8s.io/v1).
_DRA_KINDS = set(DRA_KINDS)


@dataclass
class Source:
    """Where an object came from: for error messages and line look-ups."""

    file: str
    document: int
    item: int | None


@dataclass
class ClusterSnapshot:
    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    objects: ClusterObjects = field(default_factory=ClusterObjects)
    warnings: list[str] = field(default_factory=list)
    documents: list[dict] = field(default_factory=list)  # raw top-level documents, for --write-snapshot
    sources: dict[int, Source] = field(default_factory=dict)  # id(raw object) -> Source
    inputs: list[str] = field(default_factory=list)  # the paths as given (files, directories, -), for messages

    @property
    def pending_pods(self) -> list[Pod]:
        return [p for p in self.pods if is_pending(p)]

    @property
    def bound_pods(self) -> list[Pod]:
        return [p for p in self.pods if p.node_name and not p.is_terminal]


def is_pending(pod: Pod) -> bool:
    """Unbound, not terminal and not being deleted: the scheduler's pending pods."""
    return not pod.node_name and not pod.is_terminal and not pod.is_terminating


# --- reading files -------------------------------------------------------------------------


def expand_paths(paths: list[str]) -> list[str]:
    out: list[str] = []
    files = _overlay_files()
    for p in paths:
        if p == "-":
            out.append(p)
            continue
        if files is not None:
            out.extend(_expand_in_overlay(p, files))
            continue
        path = Path(p)
        if path.is_dir():
            found = sorted(str(f) for f in path.rglob("*") if f.is_file() and f.suffix in SNAPSHOT_SUFFIXES)
            out.extend(found)
        elif path.exists():
            out.append(str(path))
        else:
            raise InputError("no such file or directory", file=p)
    return out


def read_text(path: str) -> str:
    files = _overlay_files()
    if files is not None and path != "-":
        if path not in files:
            raise InputError("cannot read: not among the files shipped with this snapshot", file=path)
        return files[path]
    return read_input(path)


# --- files served from memory --------------------------------------------------------------
# A sweep cell may run on a machine that does not have the snapshot files: the sweep ships
# their texts, and the worker reads them through this overlay, under the names they have on
# the machine that started the sweep (so errors name the user's files and lines).

_OVERLAY = threading.local()


@contextmanager
def files_overlay(files: Mapping[str, str]) -> Iterator[None]:
    """Within the block (in this thread), the loaders read these paths' texts, and only them."""
    previous = getattr(_OVERLAY, "files", None)
    _OVERLAY.files = files
    try:
        yield
    finally:
        _OVERLAY.files = previous


def _overlay_files() -> Mapping[str, str] | None:
    return getattr(_OVERLAY, "files", None)


def _expand_in_overlay(p: str, files: Mapping[str, str]) -> list[str]:
    """A file of the overlay, or a directory: its files, sorted, as rglob over the disk gives them."""
    key = str(Path(p))
    if key in files:
        return [key]
    prefix = key.rstrip("/") + "/"
    found = sorted(f for f in files if f.startswith(prefix) and Path(f).suffix in SNAPSHOT_SUFFIXES)
    if not found:
        raise InputError("no such file or directory", file=p)
    return found


def parse_documents(text: str, path: str) -> list[Any]:
    """All documents of a file: JSON when it looks like JSON, else (multi-document) YAML."""
    stripped = text.lstrip()
    if path.endswith(".json") or stripped.startswith(("{", "[")):
        try:
            return [_json_loads(text)]
        except ValueError as exc:
            if path.endswith(".json"):
                line = getattr(exc, "lineno", None)
                raise InputError(f"malformed JSON: {exc}", file=path, line=line) from None
    try:
        return list(yaml.load_all(text, Loader=_YamlLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        line = mark.line + 1 if mark is not None else None
        raise InputError(f"malformed YAML: {problem}", file=path, line=line) from None


def iter_objects(doc: Any, path: str, doc_index: int) -> Iterator[tuple[dict, Source]]:
    if doc is None:
        return
    if isinstance(doc, list):  # a bare JSON array of objects
        for i, item in enumerate(doc):
            yield from _checked(item, path, doc_index, i)
        return
    if not isinstance(doc, dict):
        raise InputError("expected a Kubernetes object or a list of them", file=path, line=locate_line(path, doc_index, None))
    kind = str(doc.get("kind", ""))
    if kind == "List" or (kind.endswith("List") and "items" in doc):
        items = doc.get("items") or []
        if not isinstance(items, list):
            raise InputError("items: expected a list", file=path, obj=kind)
        for i, item in enumerate(items):
            yield from _checked(item, path, doc_index, i)
        return
    yield from _checked(doc, path, doc_index, None)


def _checked(item: Any, path: str, doc_index: int, item_index: int | None) -> Iterator[tuple[dict, Source]]:
    where = f"items[{item_index}]" if item_index is not None else None
    if not isinstance(item, dict):
        raise InputError("expected a Kubernetes object", file=path, obj=where, line=locate_line(path, doc_index, item_index))
    if not item.get("kind"):
        raise InputError("object has no kind", file=path, obj=where, field="kind",
                         line=locate_line(path, doc_index, item_index))
    yield item, Source(path, doc_index, item_index)


# --- building typed objects ----------------------------------------------------------------


def load_snapshot(paths: list[str]) -> ClusterSnapshot:
    """Read every file and build the snapshot; raises InputError on the first problem."""
    snap = ClusterSnapshot(inputs=list(paths))
    skipped_kinds: set[str] = set()
    seen: dict[tuple[str, str], Source] = {}
    for path in expand_paths(paths):
        text = read_text(path)
        if path == "-":
            _STDIN_CACHE["-"] = text
        for doc_index, doc in enumerate(parse_documents(text, path)):
            if doc is not None:
                snap.documents.append(doc)
            for raw, source in iter_objects(doc, path, doc_index):
                kind = str(raw["kind"])
                try:
                    obj = _build(kind, raw, snap.objects)
                except ObjectError as exc:
                    raise _object_error(exc, raw, source) from None
                if obj is None:
                    if kind not in skipped_kinds:
                        skipped_kinds.add(kind)
                        snap.warnings.append(f"warning: skipping objects of kind {kind!r} (not used for scheduling)")
                    continue
                key = (kind, _display_name(raw))
                if kind in ("Node", "Pod"):
                    if key in seen:
                        first = seen[key]
                        raise _object_error(ObjectError(f"duplicate {kind}, first defined in {first.file}"), raw, source)
                    seen[key] = source
                snap.sources[id(raw)] = source
                if kind == "Node":
                    snap.nodes.append(obj)
                elif kind == "Pod":
                    snap.pods.append(obj)
    resolve_priorities(snap)
    snap.warnings.extend(dra_conversion_warnings(snap.objects))
    return snap


def dra_conversion_warnings(objects: ClusterObjects) -> list[str]:
    """One line per (kind, version) of DRA objects read from an older API version."""
    return [f"warning: read {n} {kind} object(s) written in {version} as the API server serves them in "
            f"resource.k8s.io/v1 (converted)" for (kind, version), n in sorted(objects.dra_conversions.items())]


def _display_name(raw: dict) -> str:
    md = raw.get("metadata") or {}
    if not isinstance(md, dict):
        return "?"
    name = str(md.get("name") or "?")
    if raw.get("kind") in ("Node", "Namespace", "PriorityClass", "PersistentVolume", "StorageClass", "CSINode", "CSIDriver",
                           "DeviceClass", "ResourceSlice"):
        return name
    return f"{md.get('namespace') or 'default'}/{name}"


def _object_error(exc: ObjectError, raw: dict, source: Source) -> InputError:
    obj = f"{raw.get('kind')} {_display_name(raw)}"
    return InputError(exc.message, file=source.file, obj=obj, field=exc.field,
                      line=locate_line(source.file, source.document, source.item, exc.field))


def _build(kind: str, raw: dict, objects: ClusterObjects) -> Any:
    if kind == "Pod":
        return Pod.from_dict(raw)
    if kind == "Node":
        return Node.from_dict(raw)
    if kind == "Namespace":
        ns = Namespace.from_dict(raw)
        objects.namespaces[ns.name] = ns
        return ns
    if kind == "PriorityClass":
        pc = PriorityClass.from_dict(raw)
        objects.priority_classes[pc.name] = pc
        return pc
    if kind == "PodDisruptionBudget":
        pdb = PodDisruptionBudget.from_dict(raw)
        objects.pdbs.append(pdb)
        return pdb
    if kind in _CLUSTER_GENERIC:
        obj = GenericObject.from_dict(raw, namespaced=False)
        {"PersistentVolume": objects.persistent_volumes, "StorageClass": objects.storage_classes,
         "CSINode": objects.csi_nodes, "CSIDriver": objects.csi_drivers}[kind][obj.name] = obj
        return obj
    if kind in _OTHER_NAMESPACED:
        obj = GenericObject.from_dict(raw, namespaced=True)
        objects.other.setdefault(kind, []).append(obj)
        return obj
    if kind in _DRA_KINDS:
        return _build_dra(kind, raw, objects)
    if kind in _NAMESPACED_GENERIC:
        obj = GenericObject.from_dict(raw, namespaced=True)
        key = f"{obj.namespace}/{obj.name}"
        if kind == "PersistentVolumeClaim":
            objects.persistent_volume_claims[key] = obj
        elif kind == "Service":
            objects.services.append(obj)
        elif kind == "ReplicaSet":
            objects.replica_sets.append(obj)
        elif kind == "StatefulSet":
            objects.stateful_sets.append(obj)
        elif kind == "ReplicationController":
            objects.replication_controllers.append(obj)
        else:
            objects.pod_groups[(storage_kind(kind, obj.api_version), key)] = obj
        return obj
    return None


def _build_dra(kind: str, raw: dict, objects: ClusterObjects) -> Any:
    """DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate: served as v1 (older
    versions converted), admitted, built; names are unique per kind (and namespace)."""
    raw, converted_from = served_as_v1(raw)
    validate_dra_object(raw)
    obj: Any
    if kind == "DeviceClass":
        obj = DeviceClass.from_dict(raw)
        table: dict[str, Any] = objects.device_classes
        key = obj.name
    elif kind == "ResourceSlice":
        obj = ResourceSlice.from_dict(raw)
        table, key = objects.resource_slices, obj.name
    elif kind == "ResourceClaim":
        obj = ResourceClaim.from_dict(raw)
        table, key = objects.resource_claims, obj.key
    else:
        obj = ResourceClaimTemplate.from_dict(raw)
        table, key = objects.resource_claim_templates, f"{obj.meta.namespace}/{obj.name}"
    if key in table:
        raise ObjectError(f"duplicate {kind}", "metadata.name")
    table[key] = obj
    if converted_from is not None:
        objects.dra_conversions[(kind, converted_from)] = objects.dra_conversions.get((kind, converted_from), 0) + 1
    return obj


def resolve_priorities(snap: ClusterSnapshot) -> None:
    """The Priority admission plugin: spec.priority from the class, or the global default, or 0."""
    default_class = snap.objects.global_default_priority_class()
    for pod in snap.pods:
        if pod.priority_class_name:
            pc = snap.objects.priority_classes.get(pod.priority_class_name)
            if pc is None:
                if pod.priority is None:
                    source = snap.sources.get(id(pod.raw))
                    raise InputError(f"no PriorityClass with name {pod.priority_class_name} was found",
                                     file=source.file if source else None, obj=f"Pod {pod.key}",
                                     field="spec.priorityClassName")
                continue
        else:
            pc = default_class
        if pod.priority is None:
            pod.priority = pc.value if pc is not None else 0
        if pod.preemption_policy is None:
            pod.preemption_policy = (pc.preemption_policy if pc is not None else None) or "PreemptLowerPriority"


# --- line numbers, looked up only for error messages ---------------------------------------

_STDIN_CACHE: dict[str, str] = {}


def locate_line(path: str, doc_index: int, item_index: int | None, field_path: str | None = None) -> int | None:
    """The 1-based line of an object (or of one of its fields) in a YAML/JSON file."""
    try:
        files = _overlay_files()
        if path == "-":
            text = _STDIN_CACHE.get(path)
        elif files is not None:
            text = files.get(path)
        else:
            text = Path(path).read_text(encoding="utf-8")
        if text is None:
            return None
        nodes = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return None
    if doc_index >= len(nodes) or nodes[doc_index] is None:
        return None
    node = nodes[doc_index]
    if item_index is not None:
        node = _child(node, "items") if isinstance(node, yaml.MappingNode) else node
        if not isinstance(node, yaml.SequenceNode) or item_index >= len(node.value):
            return None
        node = node.value[item_index]
    for part in _split_field(field_path):
        child = _child(node, part)
        if child is None:
            break
        node = child
    return node.start_mark.line + 1


def _split_field(field_path: str | None) -> list[str | int]:
    if not field_path:
        return []
    parts: list[str | int] = []
    for chunk in field_path.replace("]", "").split("."):
        name, _, index = chunk.partition("[")
        if name:
            parts.append(name)
        if index:
            parts.append(int(index))
    return parts


def _child(node: Any, key: str | int) -> Any:
    if isinstance(key, int):
        if isinstance(node, yaml.SequenceNode) and key < len(node.value):
            return node.value[key]
        return None
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if getattr(k, "value", None) == key:
                return v
    return None


__all__ = ["ClusterSnapshot", "InputError", "is_pending", "load_snapshot", "Source"]
