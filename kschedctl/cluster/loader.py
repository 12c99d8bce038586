"""Load a cluster snapshot: files, directories and stdin, YAML or JSON, objects or lists.

Accepts exactly what `kubectl get nodes,pods,pdb,priorityclasses -A -o yaml` prints, and
hand-written files. Reading is strict and bounded (kschedctl.api.decoding); every object the
scheduler reads is admitted as kube-apiserver would admit it (kschedctl.api.admission), names
are unique per kind (per namespace for namespaced kinds) and uids unique across all objects.
Every problem becomes one InputError naming the file, the object, the field and the line.
Lines are looked up only when an error is reported, from the object's own lines
(kschedctl.cluster.sources), never by re-parsing a whole file in Python.
"""

from __future__ import annotations

import copy
import functools
import os
import stat
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kschedctl.api.admission import NAMESPACED, admit
from kschedctl.api.errors import InputError, ObjectError
from kschedctl.api.inputs import read_text as read_input
from kschedctl.api.json_decoding import DecodeError, load_json
from kschedctl.api.jsontypes import JSONList, JSONObject
from kschedctl.api.known_fields import unknown_fields
from kschedctl.api.names import NameGenerator, needs_generated_name
from kschedctl.api.objects import ClusterObjects, dra_types
from kschedctl.api.resource_admission import DRA_KINDS, served_as_v1
from kschedctl.api.types import (
    GenericObject,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
)
from kschedctl.cluster.admission_ahead import Verdicts
from kschedctl.cluster.daemonsets import daemon_set_from
from kschedctl.cluster.simulator_export import as_list_document, is_simulator_export
from kschedctl.cluster.sources import Source, files_overlay, locate, locate_line, overlay_files, remember_text
from kschedctl.framework.podgroup import storage_kind

if TYPE_CHECKING:
    from kschedctl.api.decoding import Span  # (decoding loads PyYAML: imported where YAML is read)

SNAPSHOT_SUFFIXES = (".yaml", ".yml", ".json")
_NAMESPACED_GENERIC = {
    "PersistentVolumeClaim",
    "Service",
    "ReplicaSet",
    "StatefulSet",
    "ReplicationController",
    "PodGroup",
    "Workload",
    "DaemonSet",
}
_CLUSTER_GENERIC = {"PersistentVolume", "StorageClass", "CSINode", "CSIDriver"}
# Read through ClusterObjects.other[kind] (VolumeBinding's capacity check; NodeVolumeLimits' attachments).
_OTHER_NAMESPACED = {"CSIStorageCapacity"}
_OTHER_CLUSTER = {"VolumeAttachment"}
# Dynamic Resource Allocation, read by the DynamicResources plugin (resource.k8s.io/v1).
_DRA_KINDS = set(DRA_KINDS)
# Kinds kube-scheduler 1.35 reads that kschedctl does not model: said on stderr, never "not used".
NOT_MODELLED: dict[str, str] = {}


def _skipped_kind_warning(kind: str) -> str:
    """Why objects of this kind are left out: unused by the scheduler, or used by kube-scheduler but
    not modelled here (then decisions may differ, and the user is told so)."""
    reason = NOT_MODELLED.get(kind)
    if reason is None:
        return f"warning: skipping objects of kind {kind!r} (not used for scheduling)"
    return (
        f"warning: skipping objects of kind {kind!r}: kube-scheduler reads them but kschedctl does not model "
        f"them ({reason}); decisions may differ"
    )


@dataclass
class ClusterSnapshot:
    """The snapshot files as read: nodes, pods and the other objects, warnings, and where each object came from
    (for messages and --write-snapshot)."""

    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    objects: ClusterObjects = field(default_factory=ClusterObjects)
    warnings: list[str] = field(default_factory=list)
    documents: list[Any] = field(default_factory=list)  # raw top-level documents, for --write-snapshot
    sources: dict[int, Source] = field(default_factory=dict)  # id(raw object) -> Source
    replaced: dict[int, JSONObject] = field(default_factory=dict)  # id(input object) -> the object as built (DRA v1)
    names: dict[tuple[str, str, str], JSONObject] = field(default_factory=dict)  # (kind, namespace, name) -> raw
    uids: dict[str, JSONObject] = field(default_factory=dict)  # uid -> raw (explicit uids; pods' effective ones)
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
    files = overlay_files()
    for p in paths:
        if p == "-":
            out.append(p)
            continue
        if not p:
            raise InputError("empty path: name a file, a directory, or - for standard input", file='""')
        if files is not None:
            out.extend(_expand_in_overlay(p, files))
            continue
        if _plain_file(p):  # what the lines below find for it, without pathlib (see there)
            out.append(p)
            continue
        from pathlib import Path

        path = Path(p)
        try:
            if path.is_dir():
                found = sorted(str(f) for f in path.rglob("*") if f.is_file() and f.suffix in SNAPSHOT_SUFFIXES)
                out.extend(found)
            elif path.exists():
                out.append(str(path))
            else:
                raise InputError("no such file or directory", file=p)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", file=p) from None
    return out


def read_text(path: str) -> str:
    """A snapshot file's text (``-``: standard input, read once; in a sweep worker, the shipped
    texts of files_overlay)."""
    files = overlay_files()
    if files is not None and path != "-":
        if path not in files:
            raise InputError("cannot read: not among the files shipped with this snapshot", file=path)
        return files[path]
    if path != "-" and _is_dir(path):
        raise InputError("is a directory, not a snapshot file", file=path)
    return read_input(path)


def _plain_file(p: str) -> bool:
    """Whether ``p`` names something that is not a directory and is spelled as pathlib spells
    it: then ``Path(p).is_dir()`` is False, ``Path(p).exists()`` True and ``str(Path(p))`` is
    ``p``, and a run reading a file named plainly imports no pathlib (~4 ms with the
    urllib.parse and ipaddress it imports). pathlib drops empty and "." parts and a trailing
    slash (keeping a leading "//"); a path with none of those is its own spelling."""
    if p == "." or "//" in p or "/./" in p or p.startswith("./") or p.endswith(("/", "/.")):
        return False
    try:
        return not stat.S_ISDIR(os.stat(p).st_mode)
    except (OSError, ValueError):
        return False  # pathlib decides, and words the error


def _is_dir(path: str) -> bool:
    """``Path(path).is_dir()``: a stat that succeeds answers it; any failure is pathlib's to
    judge (which errors mean "no", which are raised)."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        from pathlib import Path

        return Path(path).is_dir()


def _expand_in_overlay(p: str, files: Mapping[str, str]) -> list[str]:
    """A file of the overlay, or a directory: its files, sorted, as rglob over the disk gives them."""
    from pathlib import Path

    key = str(Path(p))
    if key in files:
        return [key]
    prefix = key.rstrip("/") + "/"
    found = sorted(f for f in files if f.startswith(prefix) and Path(f).suffix in SNAPSHOT_SUFFIXES)
    if not found:
        raise InputError("no such file or directory", file=p)
    return found


def _looks_like_json(text: str, path: str) -> bool:
    return path.endswith(".json") or text.lstrip().startswith(("{", "["))


def iter_documents(text: str, path: str) -> Iterator[tuple[int, Any, list[Span] | None, Any, dict[tuple[int, ...], Span] | None]]:
    """(index, data, item spans, document span, nested item spans) of every document of a file;
    JSON has no spans (its lines are found by walking the text). Malformed input is one
    InputError with its line."""
    if _looks_like_json(text, path):
        try:
            yield 0, load_json(text), None, None, None
            return
        except DecodeError as exc:
            if path.endswith(".json"):
                raise InputError(exc.message, file=path, line=exc.line) from None
    from kschedctl.api.decoding import yaml_documents  # PyYAML is loaded for YAML files only

    try:
        for index, doc in enumerate(yaml_documents(text)):
            yield index, doc.data, doc.item_spans, doc.span, doc.nested_spans
    except DecodeError as exc:
        raise InputError(exc.message, file=path, line=exc.line) from None


def parse_documents(text: str, path: str) -> list[Any]:
    """Every document of a file, read as load_snapshot reads them (strict and bounded)."""
    return [doc for _, doc, _, _, _ in iter_documents(text, path)]


def iter_objects(doc: Any, path: str, doc_index: int) -> Iterator[tuple[Any, Source]]:
    """The objects of one document of ``path`` (for readers of single objects: what-if templates)."""
    yield from _document_objects(doc, Source(path, doc_index, None, fmt="yaml"), None)


MAX_LIST_DEPTH = 16  # Lists inside Lists: flattened this deep, refused deeper


def _is_list(doc: JSONObject) -> bool:
    """A List document: ``kind: List``, or a ``*List`` kind with items (what kubectl get prints
    for one kind: PodList, NodeList...)."""
    kind = doc.get("kind")
    return isinstance(kind, str) and (kind == "List" or (kind.endswith("List") and "items" in doc))


def _list_items(doc: JSONObject, source: Source) -> JSONList:
    """The items of a List, each lacking both kind and apiVersion given the list's item kind and
    apiVersion (unstructuredJSONScheme.decodeToList: a PodList's items are Pods)."""
    items = doc.get("items") or []
    if not isinstance(items, list):
        raise InputError(
            "items: expected a list",
            file=source.file,
            obj=source.where or str(doc.get("kind")),
            field="items",
            line=locate(source, "items"),
        )
    item_kind = str(doc.get("kind")).removesuffix("List")
    if item_kind:
        for item in items:
            if type(item) is dict and not item.get("kind") and not item.get("apiVersion"):
                item["kind"] = item_kind
                if isinstance(doc.get("apiVersion"), str):
                    item["apiVersion"] = doc["apiVersion"]
    return items


def _document_objects(
    doc: Any, source: Source, item_spans: list[Span] | None, nested_spans: dict[tuple[int, ...], Span] | None = None
) -> Iterator[tuple[Any, Source]]:
    """The objects of one document: the document itself, or the items of a List (``*List``),
    Lists among the items flattened in the order kubectl's FlattenListVisitor visits them
    (cli-runtime resource/visitor.go: breadth first, a nested List's items after the items
    of the List that holds it), at most MAX_LIST_DEPTH levels deep."""
    if doc is None:
        return
    if isinstance(doc, list):  # a bare JSON array (or YAML sequence) of objects
        top = doc
    elif not isinstance(doc, dict):
        raise InputError("expected a Kubernetes object or a list of them", file=source.file, line=locate(source))
    elif not _is_list(doc):
        yield doc, source
        return
    else:
        top = _list_items(doc, source)
    queue: deque[tuple[Any, Source, tuple[int, ...]]] = deque((item, source.item_source(i, item_spans), (i,)) for i, item in enumerate(top))
    while queue:
        item, item_source, path = queue.popleft()
        if type(item) is not dict or not _is_list(item):
            yield item, item_source
            continue
        if len(path) >= MAX_LIST_DEPTH:
            raise InputError(
                f"Lists nested more than {MAX_LIST_DEPTH} levels deep",
                file=source.file,
                obj=item_source.where,
                field="items",
                line=locate(item_source, "items"),
            )
        for j, sub in enumerate(_list_items(item, item_source)):
            sub_path = path + (j,)
            queue.append((sub, source.nested_source(sub_path, (nested_spans or {}).get(sub_path)), sub_path))


def document_objects(doc: Any) -> Iterator[Any]:
    """The objects of a document the loader has read, in the loader's order (Lists, nested ones
    included, flattened): what --write-snapshot writes back."""
    for raw, _source in _document_objects(doc, Source("", 0, None), None):
        yield raw


# --- building typed objects ----------------------------------------------------------------


def load_snapshot(paths: list[str]) -> ClusterSnapshot:
    """Read every file and build the snapshot; raises InputError on the first problem."""
    snap = ClusterSnapshot(inputs=list(paths))
    reading = _Reading()
    for path in expand_paths(paths):
        text = read_text(path)
        remember_text(path, text)
        verdicts = Verdicts.start(text, functools.partial(_raw_objects, text, path))
        try:
            objects, notes, stopped = _file_objects(snap, text, path)
            _add_objects(snap, objects, notes, reading, verdicts)
        finally:
            if verdicts is not None:
                verdicts.close()
        if stopped is not None:
            raise stopped
    resolve_priorities(snap)
    snap.warnings.extend(dra_conversion_warnings(snap.objects))
    snap.warnings.extend(_unknown_field_warnings(reading.unknown))
    return snap


@dataclass
class _Reading:
    """What reading the files keeps from one object to the next."""

    skipped_kinds: set[str] = field(default_factory=set)
    unknown: list[str] = field(default_factory=list)  # the unknown-field warnings, in order
    names: NameGenerator = field(default_factory=NameGenerator)


def _file_objects(snap: ClusterSnapshot, text: str, path: str) -> tuple[list[tuple[Any, Source]], dict[int, list[str]], InputError | None]:
    """A file's objects in the loader's order; the warnings to say before the object at an
    index (a kube-scheduler-simulator export's); and the error that stopped the reading, which
    is raised once the objects read before it are added, as reading object by object would."""
    objects: list[tuple[Any, Source]] = []
    notes: dict[int, list[str]] = {}
    try:
        for doc_index, doc, item_spans, doc_span, nested_spans in iter_documents(text, path):
            if is_simulator_export(doc):  # kube-scheduler-simulator's export: the List it stands for
                if isinstance(doc.get("schedulerConfig"), dict):
                    notes.setdefault(len(objects), []).append(
                        f"warning: {path}: a kube-scheduler-simulator export; its schedulerConfig "
                        f"is the configuration only when the file is named with --config too"
                    )
                doc, item_spans, nested_spans = as_list_document(doc), None, None
            if doc is not None:
                snap.documents.append(doc)
            source = Source(path, doc_index, None, doc_span, "json" if doc_span is None else "yaml")
            for found in _document_objects(doc, source, item_spans, nested_spans):
                objects.append(found)
    except InputError as exc:
        return objects, notes, exc
    return objects, notes, None


def _raw_objects(text: str, path: str) -> list[Any]:
    """The objects of a file's text as load_snapshot reads them, in its order (up to an error)."""
    flat = _flat_list_items(text, path)
    if flat is not None:
        return flat
    return [raw for raw, _ in _file_objects(ClusterSnapshot(), text, path)[0]]


def _flat_list_items(text: str, path: str) -> list[Any] | None:
    """The items of a JSON file that is one List of objects and no List among them (what
    ``kubectl get -o json`` and capture write), without the Source of each that _file_objects
    makes for the loader's messages; None for any other file (_file_objects reads it)."""
    if not _looks_like_json(text, path):
        return None
    try:
        doc = load_json(text)
    except DecodeError:
        return None
    if type(doc) is not dict or not _is_list(doc) or is_simulator_export(doc) or type(doc.get("items")) is not list:
        return None
    if any(type(item) is dict and _is_list(item) for item in doc["items"]):
        return None
    return _list_items(doc, Source(path, 0, None, None, "json"))


def _add_objects(
    snap: ClusterSnapshot, objects: list[tuple[Any, Source]], notes: dict[int, list[str]], reading: _Reading, verdicts: Verdicts | None
) -> None:
    """Name, admit, build and index a file's objects in order; a large file's are admitted
    ahead on a second core (``verdicts``: cluster/admission_ahead.py)."""
    for index, (raw, obj_source) in enumerate(objects):
        if notes:
            snap.warnings.extend(notes.pop(index, ()))
        prefix = needs_generated_name(raw)
        if prefix is not None:  # named as the API server names it on create
            raw["metadata"]["name"] = reading.names.generate(prefix, _NamesTaken(snap, raw))
        built = add_object(snap, raw, obj_source, verdicts, index)
        if built is not None:
            reading.unknown.extend(_unknown_fields(raw, obj_source, verdicts, index))
        else:
            kind = str(raw.get("kind"))
            if kind not in reading.skipped_kinds:
                reading.skipped_kinds.add(kind)
                snap.warnings.append(_skipped_kind_warning(kind))
    for rest in notes.values():  # said after the file's last object
        snap.warnings.extend(rest)


MAX_UNKNOWN_FIELD_WARNINGS = 10


class _NamesTaken:
    """The names already used by objects of one kind (and namespace), looked up in the
    snapshot's own index of names: no set of them is built for each generated name."""

    def __init__(self, snap: ClusterSnapshot, raw: JSONObject) -> None:
        self.names = snap.names
        self.kind = raw.get("kind")
        self.namespace = (raw["metadata"].get("namespace") or "default") if self.kind in NAMESPACED else ""

    def __contains__(self, name: object) -> bool:
        return (self.kind, self.namespace, name) in self.names


def _unknown_fields(raw: JSONObject, source: Source, verdicts: Verdicts | None = None, index: int = 0) -> list[str]:
    """kubectl's 'unknown field' warnings for one object, each naming file, line and object
    (found by ``verdicts``, for the object at ``index``, when it checked the file ahead)."""
    out = []
    found = unknown_fields(raw) if verdicts is None else verdicts.unknown_fields(index, raw)
    for path, same_but_case in found:
        line = locate(source, path)
        where = f"{source.file}:{line}" if line is not None else source.file
        hint = f' (did you mean "{same_but_case}"?)' if same_but_case else ""
        out.append(
            f'warning: {where}: {raw.get("kind")} {display_name(raw)}: unknown field "{path}"{hint}: '
            "the API server drops it, so scheduling does not see it"
        )
    return out


def _unknown_field_warnings(lines: list[str]) -> list[str]:
    if len(lines) <= MAX_UNKNOWN_FIELD_WARNINGS:
        return lines
    rest = len(lines) - MAX_UNKNOWN_FIELD_WARNINGS
    return lines[:MAX_UNKNOWN_FIELD_WARNINGS] + [f"warning: and {rest} more unknown field(s)"]


def copy_snapshot(snap: ClusterSnapshot) -> ClusterSnapshot:
    """The same snapshot built again from copies of its objects: a second run (explain's look
    at what `schedule` does) then shares nothing a first one may write (pod statuses, claims)."""
    out = ClusterSnapshot(inputs=list(snap.inputs), warnings=list(snap.warnings))
    for raw in snap.names.values():
        source = snap.sources.get(id(raw)) or Source("", 0, None, None, "yaml")
        add_object(out, copy.deepcopy(raw), source)
    resolve_priorities(out)
    return out


def dra_conversion_warnings(objects: ClusterObjects) -> list[str]:
    """One line per (kind, version) of DRA objects read from an older API version."""
    return [
        f"warning: read {n} {kind} object(s) written in {version} as the API server serves them in resource.k8s.io/v1 (converted)"
        for (kind, version), n in sorted(objects.dra_conversions.items())
    ]


def add_object(snap: ClusterSnapshot, raw: Any, source: Source, verdicts: Verdicts | None = None, index: int = 0) -> Any:
    """Admit, build and index one object; None for a kind the scheduler does not read. With
    ``verdicts``, the admission is the one they hold for the object at ``index``."""
    if not isinstance(raw, dict):
        raise InputError("expected a Kubernetes object", file=source.file, obj=source.where, line=locate(source))
    kind = raw.get("kind")
    if not kind:
        raise InputError("object has no kind", file=source.file, obj=source.where, field="kind", line=locate(source))
    if not isinstance(kind, str):
        raise InputError(
            f"cannot unmarshal {type(kind).__name__} into Go value of type string",
            file=source.file,
            obj=source.where,
            field="kind",
            line=locate(source, "kind"),
        )
    error = admit(raw) if verdicts is None else verdicts.admit(index, raw)
    if error is not None:
        raise _object_error(ObjectError(error.body, error.field or None), raw, source)
    try:
        obj = _build(kind, raw, snap.objects)
    except ObjectError as exc:
        raise _object_error(exc, raw, source) from None
    if obj is None:
        return None
    built = getattr(obj, "raw", raw)
    if built is not raw:  # converted as served (an older DRA version): --write-snapshot writes this one
        snap.replaced[id(raw)] = built
    _check_unique(snap, kind, raw, source)
    snap.sources[id(raw)] = source
    if kind == "Node":
        snap.nodes.append(obj)
    elif kind == "Pod":
        snap.pods.append(obj)
    return obj


def _check_unique(snap: ClusterSnapshot, kind: str, raw: JSONObject, source: Source) -> None:
    """Names are unique per kind (and namespace); uids are unique across all objects: explicit
    ones, and pods' effective ones (explicit, or namespace/name as the builder defaults it), since
    the scheduler keys pods by uid. (Runs for every object: no formatting unless there is an error.)"""
    md = raw["metadata"]  # admission checked it
    namespaced = kind in NAMESPACED
    namespace = (md.get("namespace") or "default") if namespaced else ""
    kind_key = storage_kind(kind, str(raw.get("apiVersion", ""))) if kind == "PodGroup" else kind
    key = (kind_key, namespace, md["name"])
    first = snap.names.get(key)
    if first is not None:
        where = _where(snap, first)
        raise _object_error(ObjectError(f"duplicate {kind}, first defined in {where}", "metadata.name"), raw, source)
    snap.names[key] = raw
    uid = md.get("uid") or (f"{namespace}/{md['name']}" if kind == "Pod" else None)
    if uid:
        other = snap.uids.get(uid)
        if other is not None:
            first_obj = f"{other.get('kind')} {display_name(other)}"
            raise _object_error(
                ObjectError(f'Duplicate value: "{uid}": also the uid of {first_obj} ({_where(snap, other)})', "metadata.uid"), raw, source
            )
        snap.uids[uid] = raw


def _where(snap: ClusterSnapshot, raw: JSONObject) -> str:
    source = snap.sources.get(id(raw))
    if source is None:
        return "?"
    line = locate(source)
    return source.file + (f":{line}" if line is not None else "")


def display_name(raw: JSONObject) -> str:
    """name, or namespace/name for namespaced kinds ("?" for what is missing or not a string)."""
    md = raw.get("metadata")
    if type(md) is not dict:
        return "?"
    name = md.get("name")
    if type(name) is not str or not name:
        name = "?"
    if raw.get("kind") not in NAMESPACED:
        return name
    namespace = md.get("namespace")
    return f"{namespace if type(namespace) is str and namespace else 'default'}/{name}"


def _object_error(exc: ObjectError, raw: JSONObject, source: Source) -> InputError:
    obj = f"{raw.get('kind')} {display_name(raw)}"
    return InputError(exc.message, file=source.file, obj=obj, field=exc.field, line=locate(source, exc.field))


def _build(kind: str, raw: JSONObject, objects: ClusterObjects) -> Any:
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
        {
            "PersistentVolume": objects.persistent_volumes,
            "StorageClass": objects.storage_classes,
            "CSINode": objects.csi_nodes,
            "CSIDriver": objects.csi_drivers,
        }[kind][obj.name] = obj
        return obj
    if kind in _OTHER_NAMESPACED or kind in _OTHER_CLUSTER:
        obj = GenericObject.from_dict(raw, namespaced=kind in _OTHER_NAMESPACED)
        objects.other.setdefault(kind, []).append(obj)
        return obj
    if kind in _DRA_KINDS:
        return _build_dra(kind, raw, objects)
    if kind == "DeviceTaintRule":
        rule = dra_types()[kind].from_dict(raw)
        if rule.name in objects.device_taint_rules:
            raise ObjectError("duplicate DeviceTaintRule", "metadata.name")
        objects.device_taint_rules[rule.name] = rule
        return rule
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
        elif kind == "DaemonSet":  # its template is checked as the pod it becomes, field under spec.template
            daemon_set_from(obj)
            objects.daemon_sets.append(obj)
        else:
            _check_group_version(kind, obj.api_version)
            objects.pod_groups[(storage_kind(kind, obj.api_version), key)] = obj
        return obj
    return None


# The versions the API servers of the emulated releases serve these kinds in (1.35 Workload
# v1alpha1; 1.36 PodGroup v1alpha2; 1.37 PodGroup v1beta1; scheduler-plugins' PodGroup v1alpha1).
GROUP_VERSIONS = {
    "PodGroup": ("scheduling.k8s.io/v1alpha2", "scheduling.k8s.io/v1beta1", "scheduling.x-k8s.io/v1alpha1"),
    "Workload": ("scheduling.k8s.io/v1alpha1",),
}


def _check_group_version(kind: str, api_version: str) -> None:
    """A pod-group object of a version no release serves is refused as kubectl refuses it
    ("no matches for kind ... in version ..."), instead of being read as if it were served."""
    if api_version not in GROUP_VERSIONS.get(kind, (api_version,)):
        raise ObjectError(
            f'no matches for kind "{kind}" in version "{api_version}" (served: {", ".join(GROUP_VERSIONS[kind])})', "apiVersion"
        )


def _build_dra(kind: str, raw: JSONObject, objects: ClusterObjects) -> Any:
    """DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate: served as v1 (older
    versions converted), built; names are unique per kind (and namespace). Admission
    (kschedctl.api.admission.admit_dra) validated it first, as served."""
    raw, converted_from = served_as_v1(raw)
    obj: Any = dra_types()[kind].from_dict(raw)
    if kind == "DeviceClass":
        table: dict[str, Any] = objects.device_classes
        key = obj.name
    elif kind == "ResourceSlice":
        table, key = objects.resource_slices, obj.name
    elif kind == "ResourceClaim":
        table, key = objects.resource_claims, obj.key
    else:
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
                    raise InputError(
                        f"no PriorityClass with name {pod.priority_class_name} was found",
                        file=source.file if source else None,
                        obj=f"Pod {pod.key}",
                        field="spec.priorityClassName",
                        line=locate(source, "spec.priorityClassName") if source else None,
                    )
                continue
        else:
            pc = default_class
        if pod.priority is None:
            pod.priority = pc.value if pc is not None else 0
        if pod.preemption_policy is None:
            pod.preemption_policy = (pc.preemption_policy if pc is not None else None) or "PreemptLowerPriority"


__all__ = [
    "ClusterSnapshot",
    "InputError",
    "Source",
    "add_object",
    "copy_snapshot",
    "document_objects",
    "expand_paths",
    "files_overlay",
    "is_pending",
    "iter_objects",
    "load_snapshot",
    "locate_line",
    "parse_documents",
    "read_text",
]
