"""Capture a live cluster as one snapshot: every kind kschedctl reads, as `kubectl get -o yaml` prints it.

The kinds are the scheduler's informers (pkg/scheduler/scheduler.go and the plugins' listers):
nodes, pods, namespaces, priority classes, PDBs, the volume objects, the DRA objects, pod groups,
and the workload owners whose selectors make up PodTopologySpread's default constraints. Served
groups and versions are discovered first; each kind is listed in pages (``limit`` and
``continue``, kubectl's ``--chunk-size``). Like kubectl, each item gets its ``kind`` and
``apiVersion`` (list responses leave them out) and loses its ``managedFields``. Secrets and
ConfigMaps are never read, except the one ConfigMap named by ``--scheduler-config``.

A kind the user may not list (403) or that the server does not serve (404) becomes a warning
naming the kind; the rest of the capture goes on. Alpha and optional APIs (DRA before v1, pod
groups) that are not served are simply absent.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import yaml

from kschedctl import __version__
from kschedctl.api.errors import InputError
from kschedctl.cluster.kubeclient import DEFAULT_CHUNK_SIZE, ApiReader, ApiStatusError, LiveClusterError

# kube-scheduler's pod informer skips finished pods (pkg/scheduler/scheduler.go, newPodInformer)
POD_FIELD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"

Progress = Callable[[str, int], None]  # (kind, objects listed so far)


@dataclass(frozen=True)
class KindSpec:
    """One kind to capture: where it is served and whether its absence deserves a warning."""

    kind: str
    resource: str
    group: str  # "" for the core group
    versions: tuple[str, ...]  # in preference order
    optional: bool = False  # alpha or feature-gated: not served is normal, no warning
    query: tuple[tuple[str, str], ...] = ()

    def api_version(self, version: str) -> str:
        return f"{self.group}/{version}" if self.group else version

    def path(self, version: str) -> str:
        base = f"/apis/{self.group}/{version}" if self.group else f"/api/{version}"
        return f"{base}/{self.resource}"


CAPTURED_KINDS: tuple[KindSpec, ...] = (
    KindSpec("Namespace", "namespaces", "", ("v1",)),
    KindSpec("PriorityClass", "priorityclasses", "scheduling.k8s.io", ("v1",)),
    KindSpec("Node", "nodes", "", ("v1",)),
    KindSpec("Pod", "pods", "", ("v1",), query=(("fieldSelector", POD_FIELD_SELECTOR),)),
    KindSpec("PodDisruptionBudget", "poddisruptionbudgets", "policy", ("v1",)),
    KindSpec("PersistentVolumeClaim", "persistentvolumeclaims", "", ("v1",)),
    KindSpec("PersistentVolume", "persistentvolumes", "", ("v1",)),
    KindSpec("StorageClass", "storageclasses", "storage.k8s.io", ("v1",)),
    KindSpec("CSINode", "csinodes", "storage.k8s.io", ("v1",)),
    KindSpec("CSIDriver", "csidrivers", "storage.k8s.io", ("v1",)),
    KindSpec("CSIStorageCapacity", "csistoragecapacities", "storage.k8s.io", ("v1",)),
    # NodeVolumeLimits counts a node's attachments (nodevolumelimits/csi.go getNodeVolumeAttachmentInfo)
    KindSpec("VolumeAttachment", "volumeattachments", "storage.k8s.io", ("v1",), optional=True),
    # owners whose selectors feed the default spreading selector (plugins/helper DefaultSelector)
    KindSpec("Service", "services", "", ("v1",)),
    KindSpec("ReplicationController", "replicationcontrollers", "", ("v1",)),
    KindSpec("ReplicaSet", "replicasets", "apps", ("v1",)),
    KindSpec("StatefulSet", "statefulsets", "apps", ("v1",)),
    # the pods a new node gets in the what-if commands (daemon_controller.go NodeShouldRunDaemonPod)
    KindSpec("DaemonSet", "daemonsets", "apps", ("v1",)),
    KindSpec("DeviceClass", "deviceclasses", "resource.k8s.io", ("v1",), optional=True),
    KindSpec("ResourceSlice", "resourceslices", "resource.k8s.io", ("v1",), optional=True),
    KindSpec("ResourceClaim", "resourceclaims", "resource.k8s.io", ("v1",), optional=True),
    KindSpec("ResourceClaimTemplate", "resourceclaimtemplates", "resource.k8s.io", ("v1",), optional=True),
    # the ResourceSlice tracker's taint rules (DRADeviceTaintRules; v1 from 1.37)
    KindSpec("DeviceTaintRule", "devicetaintrules", "resource.k8s.io", ("v1", "v1beta2", "v1alpha3"), optional=True),
    KindSpec("PodGroup", "podgroups", "scheduling.k8s.io", ("v1beta1", "v1alpha2"), optional=True),
    KindSpec("Workload", "workloads", "scheduling.k8s.io", ("v1alpha1",), optional=True),
    KindSpec("PodGroup", "podgroups", "scheduling.x-k8s.io", ("v1alpha1",), optional=True),  # scheduler-plugins
)


@dataclass
class KindResult:
    spec: KindSpec
    api_version: str | None  # None: not served
    count: int = 0
    problem: str | None = None  # why it is missing from the snapshot


@dataclass
class Capture:
    """What capture read: the items in snapshot order, and what it could not read."""

    context: str
    server: str
    taken_at: str
    items: list[dict[str, Any]] = field(default_factory=list)
    kinds: list[KindResult] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # extra header lines (e.g. where the config went)

    def document(self) -> dict[str, Any]:
        """The snapshot: one List, as `kubectl get ... -o yaml` prints several kinds."""
        return {"apiVersion": "v1", "items": self.items, "kind": "List", "metadata": {"resourceVersion": ""}}


# --- discovery ------------------------------------------------------------------------------


def discover(reader: ApiReader, specs: Iterable[KindSpec]) -> tuple[dict[KindSpec, str | None], list[str]]:
    """The version to list each kind at (None: not served), from /api, /apis and the resource lists."""
    warnings: list[str] = []
    served: dict[str, list[str]] | None
    try:
        served = {"": [v for v in _listed(reader.get_json("/api"), "versions", "/api") if isinstance(v, str)]}
        for group in _listed(reader.get_json("/apis"), "groups", "/apis"):
            if isinstance(group, dict) and isinstance(group.get("name"), str):
                served[group["name"]] = [
                    str(v["version"])
                    for v in _listed(group, "versions", "/apis")
                    if isinstance(v, dict) and isinstance(v.get("version"), str)
                ]
    except ApiStatusError as exc:
        if exc.status not in (403, 404):
            raise
        warnings.append(f"cannot discover the served APIs ({exc.detail}); trying every kind at its preferred version")
        served = None
    resource_lists: dict[str, set[str] | None] = {}
    chosen: dict[KindSpec, str | None] = {}
    for spec in specs:
        candidates = spec.versions if served is None else [v for v in spec.versions if v in served.get(spec.group, [])]
        chosen[spec] = None
        for version in candidates:
            names = _resource_names(reader, spec.api_version(version), resource_lists)
            if names is None or spec.resource in names:  # unknown: try it and let the list answer
                chosen[spec] = version
                break
    return chosen, warnings


def _resource_names(reader: ApiReader, group_version: str, cache: dict[str, set[str] | None]) -> set[str] | None:
    if group_version not in cache:
        path = f"/apis/{group_version}" if "/" in group_version else f"/api/{group_version}"
        try:
            resources = _listed(reader.get_json(path), "resources", path)
            cache[group_version] = {str(r.get("name")) for r in resources if isinstance(r, dict)}
        except ApiStatusError as exc:
            if exc.status not in (403, 404):
                raise
            cache[group_version] = None
    return cache[group_version]


def _listed(doc: dict[str, Any], key: str, path: str) -> list[Any]:
    """A discovery document's list field: absent or null is empty, any other type is an error."""
    value = doc.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise LiveClusterError(f"GET {path}: {key} is {_type_name(value)}, expected a list")
    return value


# --- listing --------------------------------------------------------------------------------


def list_kind(
    reader: ApiReader, spec: KindSpec, version: str, chunk_size: int = DEFAULT_CHUNK_SIZE, progress: Progress | None = None
) -> list[dict[str, Any]]:
    """Every object of one kind, page by page, shaped as kubectl prints it.

    A server can page forever (a new ``continue`` token each time) or send more objects than a
    cluster holds: pages and objects per list are bounded (ListLimits), and each page is checked
    as strictly as a snapshot file's List (``metadata`` an object, ``items`` a list of objects
    each named)."""
    path, api_version = spec.path(version), spec.api_version(version)
    limits = ListLimits.from_env()
    items: list[dict[str, Any]] = []
    token: str | None = None
    seen_tokens: set[str] = set()
    for pages in itertools.count(1):
        query = list(spec.query)
        if chunk_size > 0:
            query.append(("limit", str(chunk_size)))
        if token:
            query.append(("continue", token))
        page = reader.get_json(path, query)
        for i, raw in enumerate(_page_items(page, path)):
            items.append(as_listed_object(_checked_item(raw, path, i, spec.kind), spec.kind, api_version))
        if len(items) > limits.max_objects:
            raise LiveClusterError(
                f"GET {path}: the server listed more than {limits.max_objects} {spec.kind} "
                "objects, more than a cluster holds (KSCHEDCTL_MAX_LIST_OBJECTS)"
            )
        if progress is not None:
            progress(spec.kind, len(items))
        token = _continue_token(page, path)
        if token is None:
            return items
        if token in seen_tokens:  # a server that never ends the list must not hang us
            raise LiveClusterError(f"GET {path}: the server repeated continue token {token[:80]!r}")
        if pages >= limits.max_pages:
            raise LiveClusterError(
                f"GET {path}: the list did not end after {limits.max_pages} pages of "
                f"--chunk-size {chunk_size} (the server keeps sending continue tokens; "
                "KSCHEDCTL_MAX_LIST_PAGES)"
            )
        seen_tokens.add(token)
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class ListLimits:
    """Bounds on one list: kube's largest supported clusters hold 150,000 pods and 5,000 nodes."""

    max_pages: int = 10_000
    max_objects: int = 2_000_000

    @classmethod
    def from_env(cls) -> "ListLimits":
        return cls(_env_int("KSCHEDCTL_MAX_LIST_PAGES", cls.max_pages), _env_int("KSCHEDCTL_MAX_LIST_OBJECTS", cls.max_objects))


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name, "")
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise LiveClusterError(f"{name}={text!r}: expected a positive whole number")
    return int(text)


def _type_name(value: Any) -> str:
    return {
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _page_items(page: dict[str, Any], path: str) -> list[Any]:
    metadata = page.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise LiveClusterError(f"GET {path}: the list's metadata is {_type_name(metadata)}, expected an object")
    items = page.get("items")
    if items is None:
        return []
    if not isinstance(items, list):
        raise LiveClusterError(f"GET {path}: the list's items is {_type_name(items)}, expected a list")
    return items


def _continue_token(page: dict[str, Any], path: str) -> str | None:
    token = (page.get("metadata") or {}).get("continue")
    if token is None or token == "":
        return None
    if not isinstance(token, str):
        raise LiveClusterError(f"GET {path}: metadata.continue is {_type_name(token)}, expected a string")
    return token


def _checked_item(raw: Any, path: str, index: int, kind: str) -> dict[str, Any]:
    """One listed object: an object with a metadata object and a name, as the loader needs."""
    if not isinstance(raw, dict):
        raise LiveClusterError(f"GET {path}: items[{index}] is {_type_name(raw)}, expected a {kind} object")
    metadata = raw.get("metadata")
    if not isinstance(metadata, dict):
        raise LiveClusterError(f"GET {path}: items[{index}].metadata is {_type_name(metadata)}, expected an object")
    name, namespace = metadata.get("name"), metadata.get("namespace")
    if not isinstance(name, str) or not name:
        raise LiveClusterError(f"GET {path}: items[{index}].metadata.name is {_type_name(name)}, expected a non-empty string")
    if namespace is not None and not isinstance(namespace, str):
        raise LiveClusterError(f"GET {path}: {kind} {name}: metadata.namespace is {_type_name(namespace)}, expected a string")
    return raw


def as_listed_object(raw: dict[str, Any], kind: str, api_version: str) -> dict[str, Any]:
    """kubectl's printer: kind and apiVersion set on each item, managedFields left out."""
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": kind}
    for key, value in raw.items():
        if key not in ("apiVersion", "kind"):
            obj[key] = value
    metadata = obj.get("metadata")
    if isinstance(metadata, dict) and "managedFields" in metadata:
        obj["metadata"] = {k: v for k, v in metadata.items() if k != "managedFields"}
    return obj


def capture_cluster(
    reader: ApiReader,
    *,
    context: str,
    server: str,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: Progress | None = None,
    now: datetime | None = None,
    specs: Iterable[KindSpec] = CAPTURED_KINDS,
) -> Capture:
    """Discover, then list every kind; 403 and 404 on a kind are warnings, anything else fails."""
    try:
        return _capture(reader, context, server, chunk_size, progress, now, specs)
    except LiveClusterError as exc:
        if exc.file is None:  # name the server the answer came from
            exc.file = f"context {context} ({server})"
        raise


def _capture(
    reader: ApiReader,
    context: str,
    server: str,
    chunk_size: int,
    progress: Progress | None,
    now: datetime | None,
    specs: Iterable[KindSpec],
) -> Capture:
    taken = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = Capture(context=context, server=server, taken_at=taken)
    versions, out.warnings = discover(reader, specs)
    for spec, version in versions.items():
        result = KindResult(spec, spec.api_version(version) if version else None)
        out.kinds.append(result)
        if version is None:
            if not spec.optional:
                result.problem = "not served"
                out.warnings.append(
                    f"{spec.kind} not captured: {spec.group or 'core'} {'/'.join(spec.versions)} "
                    f"{spec.resource} is not served by this API server"
                )
            continue
        try:
            items = list_kind(reader, spec, version, chunk_size, progress)
        except ApiStatusError as exc:
            if exc.status not in (403, 404):
                raise
            result.problem = "Forbidden (403)" if exc.status == 403 else "NotFound (404)"
            out.warnings.append(
                f"{spec.kind} not captured ({spec.api_version(version)} {spec.resource}): {exc.detail}; the snapshot has none"
            )
            continue
        result.count = len(items)
        out.items.extend(items)
    out.warnings.extend(_unmodelled_warnings(out))
    return out


def _unmodelled_warnings(capture: Capture) -> list[str]:
    """Pods that need objects the cluster did not give us: say so rather than misjudge quietly."""
    captured = {r.spec.kind for r in capture.kinds if r.api_version and r.problem is None}
    uses_claims = any(
        o["kind"] == "Pod" and isinstance(o.get("spec"), dict) and o["spec"].get("resourceClaims") for o in capture.items
    )  # a spec of the wrong type is the loader's to report
    if uses_claims and "ResourceClaim" not in captured:
        return ["pods use resource claims but resource.k8s.io/v1 ResourceClaims were not captured"]
    return []


# --- the scheduler configuration from a ConfigMap -------------------------------------------


@dataclass(frozen=True)
class ConfigMapRef:
    """``configmap/NAMESPACE/NAME[/KEY]``: where a live kube-scheduler's configuration lives."""

    namespace: str
    name: str
    key: str | None = None

    @classmethod
    def parse(cls, text: str) -> "ConfigMapRef":
        parts = text.split("/")
        if len(parts) not in (3, 4) or parts[0].lower() not in ("configmap", "configmaps", "cm") or not all(parts[1:]):
            raise InputError(f"--scheduler-config: expected configmap/NAMESPACE/NAME[/KEY], got {text!r}")
        return cls(parts[1], parts[2], parts[3] if len(parts) == 4 else None)

    def __str__(self) -> str:
        return f"configmap/{self.namespace}/{self.name}" + (f"/{self.key}" if self.key else "")


def read_scheduler_config(reader: ApiReader, ref: ConfigMapRef) -> tuple[str, str]:
    """(the KubeSchedulerConfiguration text, a source name for messages) from one ConfigMap key."""
    try:
        cm = reader.get_json(f"/api/v1/namespaces/{ref.namespace}/configmaps/{ref.name}")
    except ApiStatusError as exc:
        raise LiveClusterError(f"--scheduler-config {ref}: {exc.detail}") from None
    raw = cm.get("data") or {}
    if not isinstance(raw, dict):
        raise LiveClusterError(f"--scheduler-config {ref}: data is {_type_name(raw)}, expected an object")
    data = {str(k): v for k, v in raw.items() if isinstance(v, str)}
    key = ref.key or _config_key(data, ref)
    if key not in data:
        raise LiveClusterError(f"--scheduler-config {ref}: no key {key!r} (keys: {', '.join(sorted(data)) or 'none'})")
    return data[key], f"configmap/{ref.namespace}/{ref.name}/{key}"


def _config_key(data: dict[str, str], ref: ConfigMapRef) -> str:
    if len(data) == 1:
        return next(iter(data))
    candidates = [k for k, v in sorted(data.items()) if "KubeSchedulerConfiguration" in v]
    if len(candidates) == 1:
        return candidates[0]
    raise LiveClusterError(
        f"--scheduler-config {ref}: say which key holds the configuration: "
        f"configmap/{ref.namespace}/{ref.name}/KEY (keys: {', '.join(sorted(data)) or 'none'})"
    )


# --- writing --------------------------------------------------------------------------------


def header_lines(capture: Capture) -> list[str]:
    """The YAML header: when, from where, what is in the file and what is not."""
    lines = [f"kschedctl {__version__} capture at {capture.taken_at}", f"context: {capture.context}", f"server: {capture.server}"]
    counts = [f"{r.spec.kind} {r.count}" for r in capture.kinds if r.api_version and r.problem is None]
    lines.append("objects: " + ", ".join(counts))
    missing = [f"{r.spec.kind} ({r.problem})" for r in capture.kinds if r.problem]
    if missing:
        lines.append("not captured: " + ", ".join(missing))
    absent = [r.spec.kind for r in capture.kinds if r.api_version is None and r.spec.optional]
    if absent:
        lines.append("not served (optional APIs): " + ", ".join(dict.fromkeys(absent)))
    lines.extend(capture.notes)
    from kschedctl.api.field import escape_control  # a context name must not end the comment line

    return [escape_control(line) for line in lines]


def render_capture(capture: Capture, fmt: str) -> str:
    """The snapshot text: YAML (with the header comment), JSON (as kubectl -o json indents it) or
    compact JSON (for a machine: Python's C encoder only runs without indentation, ~10x faster)."""
    doc = capture.document()
    if fmt == "compact-json":
        return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    if fmt == "json":
        return json.dumps(doc, indent=4, ensure_ascii=False) + "\n"
    header = "".join(f"# {line}\n" for line in header_lines(capture))
    from kschedctl.api.decoding import SafeDumper  # quotes what kubectl would read as another type

    return header + yaml.dump(doc, Dumper=SafeDumper, sort_keys=True, default_flow_style=False, allow_unicode=True)


def format_for(path: str) -> str:
    return "json" if path.lower().endswith(".json") else "yaml"


__all__ = [
    "CAPTURED_KINDS",
    "Capture",
    "ConfigMapRef",
    "KindSpec",
    "as_listed_object",
    "capture_cluster",
    "discover",
    "format_for",
    "list_kind",
    "read_scheduler_config",
    "render_capture",
]
