"""The pods `capacity` schedules: copies of a pod, or of a workload's pod template, as the
workload's controller would create them; and the hypothetical nodes it adds.

A copy carries what its controller gives it: the template's labels (plus the controller's own:
`pod-template-hash` for a Deployment's ReplicaSet, `statefulset.kubernetes.io/pod-name` and
`apps.kubernetes.io/pod-index` for a StatefulSet, `batch.kubernetes.io/job-name` for a Job) and
a controller owner reference. The owning ReplicaSet or StatefulSet is added to the cluster's
objects when the snapshot lacks it, so PodTopologySpread's default constraints (which read the
owner's selector, helper.DefaultSelector) apply to the copies as they would to real replicas.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
from dataclasses import dataclass, field

from kschedctl.api.admission import admit
from kschedctl.api.errors import InputError, ObjectError
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.types import GenericObject, Node, Pod
from kschedctl.cluster.loader import ClusterSnapshot, iter_objects, parse_documents, read_text, resolve_priorities
from kschedctl.framework.types import PodInfo

WORKLOAD_KINDS = ("Pod", "Deployment", "ReplicaSet", "StatefulSet", "Job", "CronJob", "ReplicationController")
HOSTNAME_LABEL = "kubernetes.io/hostname"
# rand.SafeEncodeString's alphabet (k8s.io/apimachinery/pkg/util/rand): no vowels, no lookalikes.
_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


@dataclass
class PodTemplate:
    """Makes copy ``i`` (1-based) of a pod: same spec, its own name and uid."""

    source: str  # "Deployment default/web", "Pod default/web"
    base: Pod
    name_prefix: str
    first_index: int = 1
    per_copy_labels: bool = False  # StatefulSet identity labels (pod-name, pod-index)
    owners: list[GenericObject] = field(default_factory=list)  # objects to add to the cluster

    def copy(self, i: int) -> Pod:
        index = self.first_index + i - 1
        name = f"{self.name_prefix}-{index}"
        labels = self.base.meta.labels
        if self.per_copy_labels:
            labels = {**labels, "statefulset.kubernetes.io/pod-name": name, "apps.kubernetes.io/pod-index": str(index)}
        meta = dataclasses.replace(self.base.meta, name=name, uid=f"kschedctl-capacity/{self.base.namespace}/{name}", labels=labels)
        raw = {**self.base.raw, "metadata": {**self.base.raw.get("metadata", {}), "name": name, "uid": meta.uid, "labels": dict(labels)}}
        pod = dataclasses.replace(self.base, meta=meta, raw=raw, cache={})
        if not self.per_copy_labels:
            # Same spec and labels: the precomputed requests and affinity terms are the base's
            # (as PodInfo.with_node_name shares them with an assumed copy).
            shared = PodInfo.__new__(PodInfo)
            base_info = PodInfo.of(self.base)
            for slot in PodInfo.__slots__:
                setattr(shared, slot, getattr(base_info, slot))
            shared.pod = pod
            pod.cache["pod_info"] = shared
        return pod

    def install(self, cluster: ClusterSnapshot) -> None:
        """Add the owner objects the snapshot lacks (the controller's ReplicaSet or StatefulSet)."""
        pools = {
            "ReplicaSet": cluster.objects.replica_sets,
            "StatefulSet": cluster.objects.stateful_sets,
            "ReplicationController": cluster.objects.replication_controllers,
        }
        for owner in self.owners:
            pool = pools[owner.kind]
            if not any(o.namespace == owner.namespace and o.name == owner.name for o in pool):
                pool.append(owner)


def load_pod_template(spec: str, cluster: ClusterSnapshot) -> PodTemplate:
    """``--pod``: a file holding a Pod or a workload (the first such object), or ns/name of a snapshot pod."""
    from pathlib import Path

    if Path(spec).is_file() or spec == "-":
        return _template_from_file(spec, cluster)
    ns, _, name = spec.rpartition("/")
    ns = ns or "default"
    for pod in cluster.pods:
        if pod.namespace == ns and pod.name == name:
            return _template(f"Pod {pod.key}", copy.deepcopy(pod.raw), [], name, cluster, spec)
    raise InputError(f"no such file, and no pod {ns}/{name} in the snapshot", file=spec)


def _template_from_file(path: str, cluster: ClusterSnapshot) -> PodTemplate:
    text = read_text(path)
    for doc_index, doc in enumerate(parse_documents(text, path)):
        for raw, _source in iter_objects(doc, path, doc_index):
            kind = str(raw.get("kind"))
            if kind in WORKLOAD_KINDS:
                return _workload_template(kind, raw, cluster, path)
    raise InputError(f"no object of kind {', '.join(WORKLOAD_KINDS)} found", file=path)


def _workload_template(kind: str, raw: JSONObject, cluster: ClusterSnapshot, path: str) -> PodTemplate:
    md: JSONObject = raw["metadata"] if isinstance(raw.get("metadata"), dict) else {}
    name = str(md.get("name") or "")
    generate = md.get("generateName")
    if not name and isinstance(generate, str) and generate.rstrip("-"):
        name = generate.rstrip("-")  # the copies are named from the prefix, as a controller names its pods
    if not name:
        raise InputError("name or generateName is required", file=path, obj=kind, field="metadata.name")
    namespace = str(md.get("namespace") or "default")
    if kind == "Pod":
        pod_raw = copy.deepcopy(raw)
        pod_raw["metadata"]["name"] = name
        return _template(f"Pod {namespace}/{name}", pod_raw, [], name, cluster, path)
    spec: JSONObject = raw["spec"] if isinstance(raw.get("spec"), dict) else {}
    if kind == "CronJob":
        spec = ((spec.get("jobTemplate") or {}).get("spec")) or {}
    tmpl = spec.get("template")
    if not isinstance(tmpl, dict):
        raise InputError("required value", file=path, obj=f"{kind} {namespace}/{name}", field="spec.template")
    tmd = dict(tmpl.get("metadata") or {})
    labels = {str(k): str(v) for k, v in (tmd.get("labels") or {}).items()}
    selector = copy.deepcopy(spec.get("selector")) or {"matchLabels": dict(labels)}
    owners: list[GenericObject] = []
    prefix, first, per_copy = name, 1, False
    api, owner_kind, owner_name = "apps/v1", kind, name
    if kind == "Deployment":
        pod_hash = _template_hash(tmpl)
        labels["pod-template-hash"] = pod_hash
        owner_kind, owner_name = "ReplicaSet", f"{name}-{pod_hash}"
        selector = copy.deepcopy(selector)
        selector.setdefault("matchLabels", {})["pod-template-hash"] = pod_hash
        prefix = owner_name
    elif kind == "StatefulSet":
        first, per_copy = 0, True
    elif kind in ("Job", "CronJob"):
        api, owner_kind = "batch/v1", "Job"
        labels.setdefault("batch.kubernetes.io/job-name", name)
        labels.setdefault("job-name", name)
    elif kind == "ReplicationController":
        api = "v1"
    owner_ref = {
        "apiVersion": api,
        "kind": owner_kind,
        "name": owner_name,
        "uid": f"kschedctl-capacity/{namespace}/{owner_name}",
        "controller": True,
    }
    if owner_kind != "Job":
        owners.append(
            GenericObject.from_dict(
                {
                    "apiVersion": api,
                    "kind": owner_kind,
                    "metadata": {"name": owner_name, "namespace": namespace, "uid": owner_ref["uid"]},
                    "spec": {"selector": selector},
                },
                namespaced=True,
            )
        )
    pod_raw = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            **{k: v for k, v in tmd.items() if k in ("annotations",)},
            "name": prefix,
            "namespace": namespace,
            "labels": labels,
            "ownerReferences": [owner_ref],
        },
        "spec": copy.deepcopy(tmpl.get("spec") or {}),
    }
    template = _template(f"{kind} {namespace}/{name}", pod_raw, owners, prefix, cluster, path)
    template.first_index, template.per_copy_labels = first, per_copy
    return template


def _template(source: str, raw: JSONObject, owners: list[GenericObject], prefix: str, cluster: ClusterSnapshot, where: str) -> PodTemplate:
    """A pending pod from ``raw``: no node, no status, priority resolved as admission would."""
    spec = raw.setdefault("spec", {})
    if isinstance(spec, dict):
        spec.pop("nodeName", None)
    raw["status"] = {}
    md = raw.setdefault("metadata", {})
    for key in ("uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "generateName"):
        md.pop(key, None)
    error = admit(raw)  # the pod the controller would create, as the API server would admit it
    if error is not None:
        raise InputError(error.body, file=where, obj=source, field=error.field or None)
    try:
        base = Pod.from_dict(raw)
    except ObjectError as exc:
        raise InputError(exc.message, file=where, obj=source, field=exc.field) from None
    resolve_priorities(ClusterSnapshot(pods=[base], objects=cluster.objects))
    return PodTemplate(source, base, prefix, owners=owners)


def _template_hash(template: JSONObject) -> str:
    """A stable stand-in for the ReplicaSet controller's pod-template-hash (10 safe characters)."""
    digest = hashlib.sha256(json.dumps(template, sort_keys=True, default=str).encode()).digest()
    return "".join(_SAFE_ALPHABET[b % len(_SAFE_ALPHABET)] for b in digest[:10])


# --- hypothetical nodes --------------------------------------------------------------------


def load_node_template(path: str) -> JSONObject:
    """The first Node object of a file, as a raw dict."""
    text = read_text(path)
    for doc_index, doc in enumerate(parse_documents(text, path)):
        for raw, _source in iter_objects(doc, path, doc_index):
            if raw.get("kind") == "Node":
                error = admit(raw)
                if error is not None:
                    raise InputError(error.body, file=path, obj="Node", field=error.field or None)
                try:
                    Node.from_dict(copy.deepcopy(raw))
                except ObjectError as exc:
                    raise InputError(exc.message, file=path, obj="Node", field=exc.field) from None
                node: JSONObject = raw
                return node
    raise InputError("no Node object found", file=path)


def node_copy(template: JSONObject, name: str) -> Node:
    """A fresh node of the template's shape named ``name`` (its hostname label follows the name,
    as a new machine's would; cluster-autoscaler's FreshNodeInfoFromTemplateNodeInfo does the same)."""
    raw = copy.deepcopy(template)
    md = raw.setdefault("metadata", {})
    md["name"] = name
    md.pop("uid", None)
    labels = md.setdefault("labels", {})
    labels[HOSTNAME_LABEL] = name
    return Node.from_dict(raw)


def parse_add_nodes(spec: str) -> tuple[str, int]:
    """``NODE.yaml[:COUNT]``."""
    path, sep, count = spec.rpartition(":")
    if sep and count.isdigit():
        if int(count) < 1:
            raise InputError("COUNT must be at least 1", file=path, field="--add-nodes")
        return path, int(count)
    return spec, 1


def hypothetical_nodes(specs: list[str], existing: set[str]) -> list[Node]:
    """``--add-nodes`` as nodes: COUNT copies named NAME-1..NAME-COUNT (the name itself for one)."""
    out: list[Node] = []
    for spec in specs:
        path, count = parse_add_nodes(spec)
        raw = load_node_template(path)
        base = str(raw["metadata"]["name"])
        names = [base] if count == 1 else [f"{base}-{i}" for i in range(1, count + 1)]
        for name in names:
            if name in existing:
                raise InputError(f"a node named {name} is already in the snapshot", file=path, obj=f"Node {base}")
            existing.add(name)
            out.append(node_copy(raw, name))
    return out
