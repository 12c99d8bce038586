"""Typed, light Kubernetes objects built from the raw dicts of a snapshot.

Only what the scheduler reads is typed; the raw dict is kept (``raw``) so a snapshot can be
written back unchanged except for what the run decides (``--write-snapshot``). The API
server's defaulting that a hand-written snapshot may lack is applied here, as the API
server would have done before the scheduler ever saw the object (pkg/apis/core/v1/defaults.go):
namespace ``default``, schedulerName ``default-scheduler``, container requests defaulted
from limits, hostPort defaulted from containerPort on hostNetwork pods, protocol ``TCP``.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from kschedctl.api.content_memo import by_content, replica_spec
from kschedctl.api.errors import ObjectError
from kschedctl.api.gotime import TimeParseError, canonical_rfc3339
from kschedctl.api.jsontypes import JSONList, JSONObject
from kschedctl.api.labels import (
    LabelSelector,
    LabelSelectorRequirement,
    NodeSelector,
    PreferredSchedulingTerm,
    node_selector_from_dict,
    preferred_terms_from_list,
)
from kschedctl.api.quantity import QuantityError, parse_quantity

DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_NAMESPACE = "default"

TAINT_EFFECT_NO_SCHEDULE = "NoSchedule"
TAINT_EFFECT_PREFER_NO_SCHEDULE = "PreferNoSchedule"
TAINT_EFFECT_NO_EXECUTE = "NoExecute"


def _dict(value: Any, where: str) -> JSONObject:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ObjectError(f"expected an object, got {type(value).__name__}", where)
    return value


def _list(value: Any, where: str) -> JSONList:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ObjectError(f"expected a list, got {type(value).__name__}", where)
    return value


def _str_map(value: Any, where: str) -> dict[str, str]:
    if type(value) is dict and all(type(k) is str and type(v) is str for k, v in value.items()):
        return dict(value)  # the common case: already a map of strings
    out = {}
    for k, v in _dict(value, where).items():
        out[str(k)] = "" if v is None else (str(v).lower() if isinstance(v, bool) else str(v))
    return out


def _int(value: Any, where: str, default: int | None = None) -> int | None:
    if value is None:
        return default
    if type(value) is float and value.is_integer():  # YAML's 300000.0: JSON would carry it as 300000
        return int(value)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ObjectError(f"expected an integer, got {value!r}", where)
    try:
        return int(value)
    except ValueError:
        raise ObjectError(f"expected an integer, got {value!r}", where) from None


def resource_list(value: Any, where: str) -> dict[str, Any]:
    """A v1.ResourceList, each quantity checked now so bad input fails at load time."""
    out: dict[str, Any] = {}
    for name, qty in _dict(value, where).items():
        try:
            out[str(name)] = parse_quantity(qty)
        except QuantityError as exc:
            raise ObjectError(str(exc), f"{where}.{name}") from None
    return out


# --- taints and tolerations -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Taint:
    """A node's taint (v1.Taint): key, value and effect (NoSchedule, PreferNoSchedule or NoExecute)."""

    key: str
    value: str
    effect: str


@dataclass(frozen=True, slots=True)
class Toleration:
    """A pod's toleration (v1.Toleration); an empty operator means Equal."""

    key: str = ""
    operator: str = ""  # Equal (or empty) / Exists
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """v1.Toleration.ToleratesTaint (staging/src/k8s.io/api/core/v1/toleration.go)."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        return False


def tolerations_tolerate_taint(tolerations: tuple[Toleration, ...], taint: Taint) -> bool:
    return any(t.tolerates(taint) for t in tolerations)


def find_matching_untolerated_taint(
    taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...], effects: tuple[str, ...]
) -> Taint | None:
    """v1helper.FindMatchingUntoleratedTaint: the first taint of the given effects not tolerated."""
    for taint in taints:
        if taint.effect in effects and not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None


# --- containers ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ContainerPort:
    """A container's port (v1.ContainerPort); hostPort is defaulted from containerPort on hostNetwork pods."""

    container_port: int
    host_port: int
    protocol: str
    host_ip: str


@dataclass(frozen=True, slots=True)
class Container:
    """A container or init container (v1.Container): requests (defaulted from limits), limits, ports, and restartPolicy (sidecars)."""

    name: str
    image: str
    requests: dict[str, Any]
    limits: dict[str, Any]
    ports: tuple[ContainerPort, ...]
    restart_policy: str | None = None  # "Always" marks a restartable init container (sidecar)

    @property
    def is_sidecar(self) -> bool:
        return self.restart_policy == "Always"


def _container(raw: Any, where: str, host_network: bool) -> Container:
    raw = _dict(raw, where)
    # Paths are formatted only when a value is of the wrong type (this runs for every container).
    res = raw.get("resources")
    if type(res) is not dict:
        res = _dict(res, f"{where}.resources")
    req_raw, lim_raw = res.get("requests"), res.get("limits")
    requests = resource_list(req_raw, f"{where}.resources.requests") if req_raw else {}
    limits = resource_list(lim_raw, f"{where}.resources.limits") if lim_raw else {}
    for name, qty in limits.items():  # SetDefaults_Pod: requests default to limits
        requests.setdefault(name, qty)
    ports = []
    for i, p in enumerate(_list(raw.get("ports"), f"{where}.ports") if raw.get("ports") else ()):
        p = _dict(p, f"{where}.ports[{i}]")
        cport = _int(p.get("containerPort"), f"{where}.ports[{i}].containerPort", 0) or 0
        hport = _int(p.get("hostPort"), f"{where}.ports[{i}].hostPort", 0) or 0
        if host_network and hport == 0:
            hport = cport
        ports.append(ContainerPort(cport, hport, str(p.get("protocol") or "TCP"), str(p.get("hostIP") or "")))
    return Container(
        name=str(raw.get("name", "")),
        image=str(raw.get("image", "")),
        requests=requests,
        limits=limits,
        ports=tuple(ports),
        restart_policy=raw.get("restartPolicy"),
    )


# --- affinity -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    """A v1.PodAffinityTerm as the pod gives it; framework.AffinityTerm is the term resolved against the pod."""

    label_selector: LabelSelector | None
    namespaces: tuple[str, ...]
    topology_key: str
    namespace_selector: LabelSelector | None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    """A v1.WeightedPodAffinityTerm: a preferred pod (anti-)affinity term and its weight."""

    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class NodeAffinity:
    """A v1.NodeAffinity: the required node selector (None when absent) and the preferred, weighted terms."""

    required: NodeSelector | None
    preferred: tuple[PreferredSchedulingTerm, ...]


@dataclass(frozen=True, slots=True)
class PodAffinity:
    """A v1.PodAffinity or v1.PodAntiAffinity (the same fields): required terms and preferred, weighted terms."""

    required: tuple[PodAffinityTerm, ...]
    preferred: tuple[WeightedPodAffinityTerm, ...]


@dataclass(frozen=True, slots=True)
class Affinity:
    """A pod's spec.affinity (v1.Affinity); pods with the same affinity document share one object (``_affinity``)."""

    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None


def _pod_affinity_term(raw: Any, where: str) -> PodAffinityTerm:
    raw = _dict(raw, where)
    return PodAffinityTerm(
        label_selector=LabelSelector.from_dict(raw.get("labelSelector"), f"{where}.labelSelector"),
        namespaces=tuple(str(n) for n in _list(raw.get("namespaces"), f"{where}.namespaces")),
        topology_key=str(raw.get("topologyKey", "")),
        namespace_selector=LabelSelector.from_dict(raw.get("namespaceSelector"), f"{where}.namespaceSelector"),
        match_label_keys=tuple(str(k) for k in _list(raw.get("matchLabelKeys"), f"{where}.matchLabelKeys")),
        mismatch_label_keys=tuple(str(k) for k in _list(raw.get("mismatchLabelKeys"), f"{where}.mismatchLabelKeys")),
    )


def _pod_affinity(raw: Any, where: str) -> PodAffinity | None:
    if raw is None:
        return None
    raw = _dict(raw, where)
    req_key = "requiredDuringSchedulingIgnoredDuringExecution"
    pref_key = "preferredDuringSchedulingIgnoredDuringExecution"
    required = tuple(_pod_affinity_term(t, f"{where}.{req_key}[{i}]") for i, t in enumerate(_list(raw.get(req_key), where)))
    preferred = []
    for i, t in enumerate(_list(raw.get(pref_key), where)):
        t = _dict(t, f"{where}.{pref_key}[{i}]")
        preferred.append(
            WeightedPodAffinityTerm(
                _int(t.get("weight"), f"{where}.{pref_key}[{i}].weight", 0) or 0,
                _pod_affinity_term(t.get("podAffinityTerm"), f"{where}.{pref_key}[{i}].podAffinityTerm"),
            )
        )
    return PodAffinity(required, tuple(preferred))


_AFFINITIES: dict[Hashable, Any] = {}


def _affinity(raw: Any, where: str) -> Affinity | None:
    """The pod's Affinity, one object per distinct document (content_memo.py): the objects are
    frozen, and a Deployment's replicas share theirs."""
    if raw is None:
        return None
    return by_content(_AFFINITIES, _new_affinity, raw, where)


def _new_affinity(raw: Any, where: str) -> Affinity:
    raw = _dict(raw, where)
    node_aff = None
    if raw.get("nodeAffinity") is not None:
        na = _dict(raw["nodeAffinity"], f"{where}.nodeAffinity")
        node_aff = NodeAffinity(
            node_selector_from_dict(
                na.get("requiredDuringSchedulingIgnoredDuringExecution"),
                f"{where}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
            ),
            preferred_terms_from_list(
                na.get("preferredDuringSchedulingIgnoredDuringExecution"),
                f"{where}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution",
            ),
        )
    return Affinity(
        node_aff,
        _pod_affinity(raw.get("podAffinity"), f"{where}.podAffinity"),
        _pod_affinity(raw.get("podAntiAffinity"), f"{where}.podAntiAffinity"),
    )


# --- topology spread ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    """One spec.topologySpreadConstraints entry of a pod (v1.TopologySpreadConstraint), read by PodTopologySpread."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    label_selector: LabelSelector | None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = ()


def _spread(raw: Any, where: str) -> TopologySpreadConstraint:
    raw = _dict(raw, where)
    return TopologySpreadConstraint(
        max_skew=_int(raw.get("maxSkew"), f"{where}.maxSkew", 0) or 0,
        topology_key=str(raw.get("topologyKey", "")),
        when_unsatisfiable=str(raw.get("whenUnsatisfiable", "")),
        label_selector=LabelSelector.from_dict(raw.get("labelSelector"), f"{where}.labelSelector"),
        min_domains=_int(raw.get("minDomains"), f"{where}.minDomains"),
        node_affinity_policy=raw.get("nodeAffinityPolicy"),
        node_taints_policy=raw.get("nodeTaintsPolicy"),
        match_label_keys=tuple(str(k) for k in _list(raw.get("matchLabelKeys"), f"{where}.matchLabelKeys")),
    )


# --- objects ------------------------------------------------------------------------------


@dataclass(slots=True)
class ObjectMeta:
    """The metav1.ObjectMeta fields the scheduler reads; ``uid`` defaults to "ns/name" (or the name) when the object has none."""

    name: str
    namespace: str
    uid: str
    labels: dict[str, str]
    annotations: dict[str, str]
    creation_timestamp: str | None
    deletion_timestamp: str | None
    owner_references: tuple[JSONObject, ...]


def _meta(raw: JSONObject, namespaced: bool) -> ObjectMeta:
    md = _dict(raw.get("metadata"), "metadata")
    name = md.get("name")
    if not name:
        raise ObjectError("required value", "metadata.name")
    namespace = str(md.get("namespace") or DEFAULT_NAMESPACE) if namespaced else ""
    labels, annotations, refs = md.get("labels"), md.get("annotations"), md.get("ownerReferences")
    return ObjectMeta(
        name=str(name),
        namespace=namespace,
        uid=str(md.get("uid") or (f"{namespace}/{name}" if namespaced else str(name))),
        labels=_str_map(labels, "metadata.labels") if labels else {},
        annotations=_str_map(annotations, "metadata.annotations") if annotations else {},
        creation_timestamp=_ts(md.get("creationTimestamp"), "metadata.creationTimestamp"),
        deletion_timestamp=_ts(md.get("deletionTimestamp"), "metadata.deletionTimestamp"),
        owner_references=tuple(_list(refs, "metadata.ownerReferences")) if refs else (),
    )


def _ts(value: Any, path: str) -> str | None:
    """A metav1.Time as the scheduler receives it: the instant the text names (its offset
    honoured), in UTC, whole seconds ("2024-01-01T10:00:00+05:00" -> "2024-01-01T05:00:00Z"),
    so that texts compare and sort as instants. ObjectError where the API server refuses it."""
    if value is None:
        return None
    if type(value) is not str:
        raise ObjectError(f"cannot unmarshal {type(value).__name__} into Go value of type string", path)
    try:
        return canonical_rfc3339(value)
    except TimeParseError as exc:
        raise ObjectError(str(exc), path) from None


@dataclass(slots=True)
class Volume:
    """A pod's volume (v1.Volume): the PVC it names, if any, and whether it is an ephemeral volume; the rest is in ``raw``."""

    name: str
    pvc_claim_name: str | None
    ephemeral: bool
    raw: JSONObject


@dataclass(slots=True, eq=False)
class Pod:
    """A v1.Pod: the spec and status fields the scheduler reads, defaulted as the API server would; ``raw`` is the object
    as read, ``cache`` holds what is derived from it (PodInfo, ...)."""

    meta: ObjectMeta
    node_name: str
    scheduler_name: str
    priority: int | None
    priority_class_name: str
    preemption_policy: str | None
    containers: tuple[Container, ...]
    init_containers: tuple[Container, ...]
    overhead: dict[str, Any]
    pod_requests: dict[str, Any] | None  # spec.resources.requests (PodLevelResources)
    tolerations: tuple[Toleration, ...]
    node_selector: dict[str, str]
    affinity: Affinity | None
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...]
    volumes: tuple[Volume, ...]
    scheduling_gates: tuple[str, ...]
    resource_claims: tuple[JSONObject, ...]
    host_network: bool
    phase: str
    nominated_node_name: str
    start_time: str | None
    conditions: tuple[JSONObject, ...]
    raw: JSONObject = field(repr=False)
    # PodInfo and other data derived from the pod, by key: each reader knows its own entry's type.
    cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # convenience accessors, named as in kube's code
    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def namespace(self) -> str:
        return self.meta.namespace

    @property
    def uid(self) -> str:
        return self.meta.uid

    @property
    def labels(self) -> dict[str, str]:
        return self.meta.labels

    @property
    def key(self) -> str:
        """namespace/name, as the contract refers to pods."""
        return f"{self.meta.namespace}/{self.meta.name}"

    @property
    def is_terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    @property
    def is_terminating(self) -> bool:
        return self.meta.deletion_timestamp is not None

    def effective_priority(self) -> int:
        """corev1helpers.PodPriority: nil priority is 0."""
        return self.priority if self.priority is not None else 0

    @staticmethod
    def from_dict(raw: JSONObject) -> "Pod":
        # Runs for every pod of a snapshot: absent sections cost one dict look-up each.
        meta = _meta(raw, namespaced=True)
        spec = _dict(raw.get("spec"), "spec")
        status = _dict(raw.get("status"), "status")
        shared = replica_spec(spec)
        # a replica's parts are kept by its template's content; one with volumes or claims has
        # its own (its Volume objects and claim entries)
        parts = _spec_parts(spec, "spec") if shared is None else by_content(_SPEC_PARTS, _spec_parts, shared, "spec")
        return Pod(
            meta=meta,
            node_name=str(spec.get("nodeName") or ""),
            **parts,
            phase=str(status.get("phase") or ""),
            nominated_node_name=str(status.get("nominatedNodeName") or ""),
            start_time=_ts(status.get("startTime"), "status.startTime"),
            conditions=tuple(_list(status.get("conditions"), "status.conditions")) if status.get("conditions") else (),
            raw=raw,
        )


# The parts of a Pod built from its spec (all but nodeName), by the spec's content: the replicas
# of a Deployment or a Job repeat one template, whose containers, quantities, tolerations and
# affinity cost more to build than the rest of the pod. What is kept is shared by those pods and
# never mutated (as copy_pod shares it with a pod's copies); an error is never kept.
_SPEC_PARTS: dict[Hashable, Any] = {}


def _spec_parts(spec: JSONObject, where: str) -> dict[str, Any]:
    """Pod's fields read from ``spec`` but nodeName, as keyword arguments; built in the order
    from_dict always read them, so the first bad field is the same one."""
    get = spec.get
    host_network = bool(get("hostNetwork"))
    containers = tuple(
        _container(c, f"spec.containers[{i}]", host_network) for i, c in enumerate(_list(get("containers"), "spec.containers"))
    )
    inits = (
        tuple(
            _container(c, f"spec.initContainers[{i}]", host_network)
            for i, c in enumerate(_list(get("initContainers"), "spec.initContainers"))
        )
        if get("initContainers")
        else ()
    )
    pod_res = get("resources")
    pod_requests = None
    if pod_res is not None:
        pod_res = _dict(pod_res, "spec.resources")
        pod_requests = resource_list(pod_res.get("requests"), "spec.resources.requests")
        for name, qty in resource_list(pod_res.get("limits"), "spec.resources.limits").items():
            pod_requests.setdefault(name, qty)
        if not pod_requests:
            pod_requests = None
    tolerations = _tolerations(spec) if get("tolerations") else ()
    volumes = _volumes(spec) if get("volumes") else ()
    gates = (
        tuple(str(_dict(g, "spec.schedulingGates").get("name", "")) for g in _list(get("schedulingGates"), "spec.schedulingGates"))
        if get("schedulingGates")
        else ()
    )
    spread = get("topologySpreadConstraints")
    priority = _int(get("priority"), "spec.priority")
    overhead = resource_list(get("overhead"), "spec.overhead") if get("overhead") else {}
    node_selector = _str_map(get("nodeSelector"), "spec.nodeSelector") if get("nodeSelector") else {}
    affinity = _affinity(get("affinity"), "spec.affinity")
    constraints = (
        tuple(_spread(c, f"spec.topologySpreadConstraints[{i}]") for i, c in enumerate(_list(spread, "spec.topologySpreadConstraints")))
        if spread
        else ()
    )
    claims = tuple(_list(get("resourceClaims"), "spec.resourceClaims")) if get("resourceClaims") else ()
    return {
        "scheduler_name": str(get("schedulerName") or DEFAULT_SCHEDULER_NAME),
        "priority": priority,
        "priority_class_name": str(get("priorityClassName") or ""),
        "preemption_policy": get("preemptionPolicy"),
        "containers": containers,
        "init_containers": inits,
        "overhead": overhead,
        "pod_requests": pod_requests,
        "tolerations": tolerations,
        "node_selector": node_selector,
        "affinity": affinity,
        "topology_spread_constraints": constraints,
        "volumes": volumes,
        "scheduling_gates": gates,
        "resource_claims": claims,
        "host_network": host_network,
    }


# Pod's fields in __init__'s order, read in one C call (copy_pod); positional only while every
# field is an init, non-keyword-only one, as today.
_POD_FIELDS = tuple(f.name for f in dataclasses.fields(Pod))
_POD_POSITIONAL = all(f.init and not f.kw_only for f in dataclasses.fields(Pod))
_pod_values = operator.attrgetter(*_POD_FIELDS)
_POD_NODE_NAME = _POD_FIELDS.index("node_name")
_POD_CACHE = _POD_FIELDS.index("cache")


def copy_pod(pod: Pod, node_name: str | None = None) -> Pod:
    """``dataclasses.replace(pod, cache={})``, with ``node_name`` set when given: a copy sharing
    every part but an empty ``cache``. The scheduler makes one for every pod it assumes (the
    pod with spec.nodeName set); replace() walks the 24 fields in Python (~6.6 us), this reads
    them in one C call and passes them positionally (~1.3 us). A subclass of Pod, whose fields
    may differ, goes through replace()."""
    if pod.__class__ is not Pod or not _POD_POSITIONAL:
        if node_name is None:
            return dataclasses.replace(pod, cache={})
        return dataclasses.replace(pod, node_name=node_name, cache={})
    values = list(_pod_values(pod))
    if node_name is not None:
        values[_POD_NODE_NAME] = node_name
    values[_POD_CACHE] = {}
    return Pod(*values)


def _tolerations(spec: JSONObject) -> tuple[Toleration, ...]:
    tolerations = []
    for i, t in enumerate(_list(spec.get("tolerations"), "spec.tolerations")):
        t = _dict(t, f"spec.tolerations[{i}]")
        tolerations.append(
            Toleration(
                key=str(t.get("key") or ""),
                operator=str(t.get("operator") or ""),
                value="" if t.get("value") is None else str(t.get("value")),
                effect=str(t.get("effect") or ""),
                toleration_seconds=_int(t.get("tolerationSeconds"), f"spec.tolerations[{i}].tolerationSeconds"),
            )
        )
    return tuple(tolerations)


def _volumes(spec: JSONObject) -> tuple[Volume, ...]:
    volumes = []
    for i, v in enumerate(_list(spec.get("volumes"), "spec.volumes")):
        v = _dict(v, f"spec.volumes[{i}]")
        pvc = v.get("persistentVolumeClaim")
        volumes.append(
            Volume(
                name=str(v.get("name", "")),
                pvc_claim_name=str(_dict(pvc, f"spec.volumes[{i}].persistentVolumeClaim").get("claimName", ""))
                if pvc is not None
                else None,
                ephemeral=v.get("ephemeral") is not None,
                raw=v,
            )
        )
    return tuple(volumes)


@dataclass(frozen=True, slots=True)
class ContainerImage:
    """One status.images entry of a node (v1.ContainerImage): the image's names and size, for ImageLocality."""

    names: tuple[str, ...]
    size_bytes: int


@dataclass(slots=True, eq=False)
class Node:
    """A v1.Node: unschedulable, taints, capacity and allocatable (capacity when not given), and the images it holds."""

    meta: ObjectMeta
    unschedulable: bool
    taints: tuple[Taint, ...]
    allocatable: dict[str, Any]
    capacity: dict[str, Any]
    images: tuple[ContainerImage, ...]
    raw: JSONObject = field(repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def labels(self) -> dict[str, str]:
        return self.meta.labels

    @staticmethod
    def from_dict(raw: JSONObject) -> "Node":
        meta = _meta(raw, namespaced=False)
        spec = _dict(raw.get("spec"), "spec")
        status = _dict(raw.get("status"), "status")
        taints = []
        for i, t in enumerate(_list(spec.get("taints"), "spec.taints")):
            t = _dict(t, f"spec.taints[{i}]")
            effect = str(t.get("effect") or "")
            if effect not in (TAINT_EFFECT_NO_SCHEDULE, TAINT_EFFECT_PREFER_NO_SCHEDULE, TAINT_EFFECT_NO_EXECUTE):
                raise ObjectError(
                    f'unsupported value {effect!r}: supported values: "NoExecute", "NoSchedule", "PreferNoSchedule"',
                    f"spec.taints[{i}].effect",
                )
            taints.append(Taint(str(t.get("key", "")), "" if t.get("value") is None else str(t.get("value")), effect))
        capacity = resource_list(status.get("capacity"), "status.capacity")
        allocatable = resource_list(status.get("allocatable"), "status.allocatable")
        if not allocatable:  # the node controller defaults allocatable to capacity
            allocatable = dict(capacity)
        images = []
        for i, img in enumerate(_list(status.get("images"), "status.images")):
            img = _dict(img, f"status.images[{i}]")
            images.append(
                ContainerImage(
                    tuple(str(n) for n in _list(img.get("names"), f"status.images[{i}].names")),
                    _int(img.get("sizeBytes"), f"status.images[{i}].sizeBytes", 0) or 0,
                )
            )
        return Node(meta, bool(spec.get("unschedulable")), tuple(taints), allocatable, capacity, tuple(images), raw)


@dataclass(slots=True)
class Namespace:
    """A v1.Namespace; its labels are what namespaceSelectors match (ClusterObjects.namespace_labels)."""

    meta: ObjectMeta
    raw: JSONObject = field(repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @staticmethod
    def from_dict(raw: JSONObject) -> "Namespace":
        return Namespace(_meta(raw, namespaced=False), raw)


@dataclass(slots=True)
class PriorityClass:
    """A scheduling.k8s.io PriorityClass: its value, globalDefault and preemptionPolicy."""

    name: str
    value: int
    global_default: bool
    preemption_policy: str | None
    raw: JSONObject = field(repr=False)

    @staticmethod
    def from_dict(raw: JSONObject) -> "PriorityClass":
        meta = _meta(raw, namespaced=False)
        value = _int(raw.get("value"), "value")
        if value is None:
            raise ObjectError("required value", "value")
        return PriorityClass(meta.name, value, bool(raw.get("globalDefault")), raw.get("preemptionPolicy"), raw)


@dataclass(slots=True)
class PodDisruptionBudget:
    """A policy/v1 PodDisruptionBudget: its selector and the status preemption reads (disruptionsAllowed, disruptedPods)."""

    meta: ObjectMeta
    selector: LabelSelector | None
    disruptions_allowed: int
    disrupted_pods: frozenset[str]
    raw: JSONObject = field(repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def namespace(self) -> str:
        return self.meta.namespace

    @staticmethod
    def from_dict(raw: JSONObject) -> "PodDisruptionBudget":
        meta = _meta(raw, namespaced=True)
        spec = _dict(raw.get("spec"), "spec")
        status = _dict(raw.get("status"), "status")
        return PodDisruptionBudget(
            meta,
            LabelSelector.from_dict(spec.get("selector"), "spec.selector"),
            _int(status.get("disruptionsAllowed"), "status.disruptionsAllowed", 0) or 0,
            frozenset(_dict(status.get("disruptedPods"), "status.disruptedPods").keys()),
            raw,
        )


@dataclass(slots=True)
class GenericObject:
    """An object the scheduler reads through its raw dict (volumes, CSI, pod groups)."""

    kind: str
    api_version: str
    meta: ObjectMeta
    raw: JSONObject = field(repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def namespace(self) -> str:
        return self.meta.namespace

    @staticmethod
    def from_dict(raw: JSONObject, namespaced: bool) -> "GenericObject":
        return GenericObject(str(raw.get("kind")), str(raw.get("apiVersion", "")), _meta(raw, namespaced), raw)


__all__ = [
    "Affinity",
    "Container",
    "ContainerImage",
    "ContainerPort",
    "GenericObject",
    "LabelSelectorRequirement",
    "Namespace",
    "Node",
    "NodeAffinity",
    "ObjectMeta",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PodDisruptionBudget",
    "PriorityClass",
    "Taint",
    "Toleration",
    "TopologySpreadConstraint",
    "Volume",
    "WeightedPodAffinityTerm",
    "find_matching_untolerated_taint",
    "tolerations_tolerate_taint",
]
