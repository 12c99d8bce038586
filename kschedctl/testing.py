"""Builders for test objects, like upstream's pkg/scheduler/testing wrappers.

    make_pod("web").req(cpu="1", memory="1Gi").node("n1").obj()
    make_node("n1").capacity(cpu="4", memory="8Gi", pods=110).zone("z1").obj()

``.dict()`` gives the raw Kubernetes object (for snapshot files), ``.obj()`` the typed one.
``new_framework`` builds a real Framework (with ``Services.minimal``, no scheduler) over a
Snapshot for plugin tests; ``fwk.handle`` is what its plugins were given.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kschedctl.api.jsontypes import JSONList, JSONObject
from kschedctl.api.types import Node, Pod, PodDisruptionBudget

if TYPE_CHECKING:
    from kschedctl.framework.args import PluginArgs
    from kschedctl.framework.gosemantics import FieldError
    from kschedctl.versions import KubeVersion

_RES_ALIASES = {"ephemeral_storage": "ephemeral-storage"}

# The feature gates of the 1.35/1.36 gang workloads: GangScheduling needs GenericWorkload
# (kube_features.go), and both are off by default in those releases.
GANG_GATES = "GenericWorkload=true,GangScheduling=true"

# Two profiles, kube's default one and "other": the configuration of a gang whose members name
# different profiles.
TWO_PROFILES_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: other
"""


def _res(values: dict[str, Any]) -> dict[str, Any]:
    return {_RES_ALIASES.get(k, k): v for k, v in values.items()}


def _limit_non_overcommitable(res: dict[str, Any]) -> None:
    """Extended resources and huge pages cannot be overcommitted: the API server requires a limit
    equal to the request (validateResourceRequirements), so the builder sets one as a user must."""
    from kschedctl.api.admission.core import is_overcommit_allowed

    for name, qty in (res.get("requests") or {}).items():
        if not is_overcommit_allowed(name):
            res.setdefault("limits", {}).setdefault(name, qty)


class PodBuilder:
    def __init__(self, name: str, namespace: str = "default") -> None:
        self.raw: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": f"{namespace}-{name}-uid"},
            "spec": {"containers": []},
            "status": {},
        }

    @property
    def _spec(self) -> JSONObject:
        spec: JSONObject = self.raw["spec"]
        return spec

    @property
    def _md(self) -> JSONObject:
        md: JSONObject = self.raw["metadata"]
        return md

    def uid(self, uid: str) -> "PodBuilder":
        self._md["uid"] = uid
        return self

    def container(
        self,
        requests: JSONObject | None = None,
        *,
        image: str = "",
        name: str | None = None,
        limits: JSONObject | None = None,
        ports: JSONList | None = None,
    ) -> "PodBuilder":
        c: dict[str, Any] = {"name": name or f"c{len(self._spec['containers'])}", "image": image or "busybox"}
        res: dict[str, Any] = {}
        if requests:
            res["requests"] = _res(requests)
        if limits:
            res["limits"] = _res(limits)
        _limit_non_overcommitable(res)
        if res:
            c["resources"] = res
        if ports:
            c["ports"] = ports
        self._spec["containers"].append(c)
        return self

    def req(self, **requests: Any) -> "PodBuilder":
        """A container requesting these resources (cpu="1", memory="1Gi", ephemeral_storage=...)."""
        return self.container(requests)

    def res(self, requests: dict[str, Any]) -> "PodBuilder":
        """A container requesting resources given by full name ({"example.com/gpu": 1})."""
        return self.container(requests)

    def init_req(self, requests: dict[str, Any], *, sidecar: bool = False, image: str = "") -> "PodBuilder":
        c: dict[str, Any] = {
            "name": f"init{len(self._spec.get('initContainers', []))}",
            "image": image or "busybox",
            "resources": {"requests": _res(requests)},
        }
        _limit_non_overcommitable(c["resources"])
        if sidecar:
            c["restartPolicy"] = "Always"
        self._spec.setdefault("initContainers", []).append(c)
        return self

    def image(self, *images: str) -> "PodBuilder":
        for img in images:
            self.container(image=img)
        return self

    def overhead(self, **res: Any) -> "PodBuilder":
        self._spec["overhead"] = _res(res)
        return self

    def pod_requests(self, **res: Any) -> "PodBuilder":
        self._spec["resources"] = {"requests": _res(res)}
        return self

    def host_port(self, port: int, protocol: str = "TCP", host_ip: str = "") -> "PodBuilder":
        p: dict[str, Any] = {"containerPort": port, "hostPort": port, "protocol": protocol}
        if host_ip:
            p["hostIP"] = host_ip
        return self.container(ports=[p])

    def node(self, node_name: str) -> "PodBuilder":
        self._spec["nodeName"] = node_name
        return self

    def priority(self, value: int) -> "PodBuilder":
        self._spec["priority"] = value
        return self

    def priority_class(self, name: str) -> "PodBuilder":
        self._spec["priorityClassName"] = name
        return self

    def preemption_policy(self, policy: str) -> "PodBuilder":
        self._spec["preemptionPolicy"] = policy
        return self

    def label(self, key: str, value: str) -> "PodBuilder":
        self._md.setdefault("labels", {})[key] = value
        return self

    def labels(self, labels: dict[str, str]) -> "PodBuilder":
        self._md.setdefault("labels", {}).update(labels)
        return self

    def namespace(self, ns: str) -> "PodBuilder":
        self._md["namespace"] = ns
        return self

    def created(self, timestamp: str) -> "PodBuilder":
        self._md["creationTimestamp"] = timestamp
        return self

    def start_time(self, timestamp: str) -> "PodBuilder":
        self.raw["status"]["startTime"] = timestamp
        return self

    def terminating(self, timestamp: str = "2024-01-01T00:00:00Z") -> "PodBuilder":
        self._md["deletionTimestamp"] = timestamp
        return self

    def phase(self, phase: str) -> "PodBuilder":
        self.raw["status"]["phase"] = phase
        return self

    def nominated(self, node_name: str) -> "PodBuilder":
        self.raw["status"]["nominatedNodeName"] = node_name
        return self

    def scheduler(self, name: str) -> "PodBuilder":
        self._spec["schedulerName"] = name
        return self

    def gates(self, *gates: str) -> "PodBuilder":
        self._spec["schedulingGates"] = [{"name": g} for g in gates]
        return self

    def toleration(self, key: str = "", value: str = "", effect: str = "", operator: str = "Equal") -> "PodBuilder":
        t = {"key": key, "operator": operator, "effect": effect}
        if operator != "Exists":
            t["value"] = value
        self._spec.setdefault("tolerations", []).append(t)
        return self

    def node_selector(self, selector: dict[str, str]) -> "PodBuilder":
        self._spec["nodeSelector"] = selector
        return self

    def node_affinity_in(self, key: str, values: list[str]) -> "PodBuilder":
        """A required node affinity term `key In values` (ANDed into the first term)."""
        na = self._spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
        req = na.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {"nodeSelectorTerms": [{"matchExpressions": []}]})
        req["nodeSelectorTerms"][0].setdefault("matchExpressions", []).append({"key": key, "operator": "In", "values": values})
        return self

    def affinity(self, affinity: JSONObject) -> "PodBuilder":
        self._spec["affinity"] = affinity
        return self

    def pod_affinity_term(self, term: JSONObject, *, anti: bool = False, weight: int | None = None) -> "PodBuilder":
        """Append a raw PodAffinityTerm: required, or preferred when a weight is given."""
        kind = "podAntiAffinity" if anti else "podAffinity"
        section = self._spec.setdefault("affinity", {}).setdefault(kind, {})
        if weight is None:
            section.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(term)
        else:
            section.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append({"weight": weight, "podAffinityTerm": term})
        return self

    def pod_affinity_in(
        self, key: str, topology_key: str, values: list[str], *, anti: bool = False, weight: int | None = None
    ) -> "PodBuilder":
        """Like upstream st.MakePod().PodAffinityIn / PodAntiAffinityIn."""
        return self.pod_affinity_term(
            {"labelSelector": {"matchExpressions": [{"key": key, "operator": "In", "values": values}]}, "topologyKey": topology_key},
            anti=anti,
            weight=weight,
        )

    def pod_affinity_not_in(
        self, key: str, topology_key: str, values: list[str], *, anti: bool = False, weight: int | None = None
    ) -> "PodBuilder":
        return self.pod_affinity_term(
            {"labelSelector": {"matchExpressions": [{"key": key, "operator": "NotIn", "values": values}]}, "topologyKey": topology_key},
            anti=anti,
            weight=weight,
        )

    def pod_affinity_exists(self, key: str, topology_key: str, *, anti: bool = False, weight: int | None = None) -> "PodBuilder":
        return self.pod_affinity_term(
            {"labelSelector": {"matchExpressions": [{"key": key, "operator": "Exists"}]}, "topologyKey": topology_key},
            anti=anti,
            weight=weight,
        )

    def spread(
        self, max_skew: int, topology_key: str, when: str = "DoNotSchedule", selector: JSONObject | None = None, **extra: Any
    ) -> "PodBuilder":
        c: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": topology_key, "whenUnsatisfiable": when}
        if selector is not None:
            c["labelSelector"] = selector
        c.update(extra)
        self._spec.setdefault("topologySpreadConstraints", []).append(c)
        return self

    def pvc(self, claim_name: str, volume_name: str | None = None) -> "PodBuilder":
        self._spec.setdefault("volumes", []).append({"name": volume_name or claim_name, "persistentVolumeClaim": {"claimName": claim_name}})
        return self

    def volume(self, volume: JSONObject) -> "PodBuilder":
        self._spec.setdefault("volumes", []).append(volume)
        return self

    def set(self, path: str, value: Any) -> "PodBuilder":
        """Set any field by dotted path, e.g. set("spec.hostNetwork", True)."""
        _set_path(self.raw, path, value)
        return self

    def pod_group(self, name: str) -> "PodBuilder":
        """spec.schedulingGroup.podGroupName (1.36+ pod groups)."""
        self._spec["schedulingGroup"] = {"podGroupName": name}
        return self

    def workload_ref(self, workload: str, pod_group: str) -> "PodBuilder":
        """spec.workloadRef (1.35 Workload pod groups)."""
        self._spec["workloadRef"] = {"name": workload, "podGroup": pod_group}
        return self

    def dict(self) -> JSONObject:
        return copy.deepcopy(self.raw)

    def obj(self) -> Pod:
        pod = Pod.from_dict(self.dict())
        if pod.preemption_policy is None:
            pod.preemption_policy = "PreemptLowerPriority"
        return pod


class NodeBuilder:
    def __init__(self, name: str) -> None:
        self.raw: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": {},
            "status": {"allocatable": {"pods": "110"}},
        }

    def capacity(self, **res: Any) -> "NodeBuilder":
        """Allocatable (and capacity) resources; pods defaults to 110."""
        alloc = {"pods": "110"}
        alloc.update({k: str(v) for k, v in _res(res).items()})
        self.raw["status"]["allocatable"] = alloc
        self.raw["status"]["capacity"] = dict(alloc)
        return self

    def res(self, resources: dict[str, Any]) -> "NodeBuilder":
        self.raw["status"]["allocatable"].update({k: str(v) for k, v in resources.items()})
        return self

    def label(self, key: str, value: str) -> "NodeBuilder":
        self.raw["metadata"]["labels"][key] = value
        return self

    def labels(self, labels: dict[str, str]) -> "NodeBuilder":
        self.raw["metadata"]["labels"].update(labels)
        return self

    def zone(self, zone: str, region: str | None = None) -> "NodeBuilder":
        self.label("topology.kubernetes.io/zone", zone)
        if region:
            self.label("topology.kubernetes.io/region", region)
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> "NodeBuilder":
        self.raw["spec"].setdefault("taints", []).append({"key": key, "value": value, "effect": effect})
        return self

    def unschedulable(self, value: bool = True) -> "NodeBuilder":
        self.raw["spec"]["unschedulable"] = value
        return self

    def images(self, images: list[tuple[list[str], int]]) -> "NodeBuilder":
        self.raw["status"]["images"] = [{"names": n, "sizeBytes": s} for n, s in images]
        return self

    def set(self, path: str, value: Any) -> "NodeBuilder":
        _set_path(self.raw, path, value)
        return self

    def dict(self) -> JSONObject:
        return copy.deepcopy(self.raw)

    def obj(self) -> Node:
        return Node.from_dict(self.dict())


def _set_path(raw: JSONObject, path: str, value: Any) -> None:
    parts = path.split(".")
    cur = raw
    for p in parts[:-1]:
        cur = cur.setdefault(p, {})
    cur[parts[-1]] = value


def make_pod(name: str, namespace: str = "default") -> PodBuilder:
    return PodBuilder(name, namespace)


def make_node(name: str) -> NodeBuilder:
    return NodeBuilder(name)


def make_pod_group(
    name: str,
    namespace: str = "default",
    min_count: int | None = None,
    topology_key: str | None = None,
    api_version: str = "scheduling.k8s.io/v1beta1",
) -> JSONObject:
    """A PodGroup object (raw): gang{minCount} when min_count is given, else basic."""
    policy: dict[str, Any] = {"gang": {"minCount": min_count}} if min_count is not None else {"basic": {}}
    spec: dict[str, Any] = {"schedulingPolicy": policy}
    if topology_key:
        spec["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    return {
        "apiVersion": api_version,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace, "uid": f"{namespace}-{name}-pg-uid"},
        "spec": spec,
    }


# --- a framework over a snapshot, for plugin tests -----------------------------------------


def only_plugins(*names: str, plugin_config: dict[str, JSONObject] | None = None, weights: dict[str, int] | None = None) -> str:
    """A KubeSchedulerConfiguration (YAML text) whose one profile runs just these plugins, plus
    the queue sort and binder every profile needs; pluginConfig args and score weights by name."""
    import yaml

    weights = weights or {}
    enabled = [{"name": n, **({"weight": weights[n]} if n in weights else {})} for n in ("PrioritySort", "DefaultBinder", *names)]
    profile: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"disabled": [{"name": "*"}], "enabled": enabled}},
    }
    if plugin_config:
        profile["pluginConfig"] = [{"name": n, "args": a} for n, a in plugin_config.items()]
    from kschedctl.api.decoding import SafeDumper  # quotes what kube's go-yaml reads as another type

    return yaml.dump(
        {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "profiles": [profile]},
        Dumper=SafeDumper,
        sort_keys=False,
    )


def FakeClock(now: float = 0.0) -> Any:  # noqa: N802 - kept for tests: a clock only tests move
    from kschedctl.runtime.services import FixedClock

    return FixedClock(now)


def make_pdb(
    name: str, match_labels: dict[str, str], allowed: int = 0, disrupted: Iterable[str] = (), namespace: str = "default"
) -> PodDisruptionBudget:
    """A policy/v1 PodDisruptionBudget selecting ``match_labels``, with ``allowed`` disruptions
    left and the ``disrupted`` pods already being evicted (status.disruptedPods)."""
    return PodDisruptionBudget.from_dict(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"matchLabels": dict(match_labels)}},
            "status": {"disruptionsAllowed": allowed, "disruptedPods": {p: "2024-01-01T00:00:00Z" for p in disrupted}},
        }
    )


def new_snapshot(nodes: Iterable[Node], pods: Iterable[Pod] = ()) -> Any:
    from kschedctl.backend.cache.cache import Snapshot

    return Snapshot.from_nodes_and_pods(list(nodes), list(pods))


def new_framework(
    config_yaml: str | None = None, *, nodes: Iterable[Node] = (), pods: Iterable[Pod] = (), objects: Any = None, version: Any = None
) -> Any:
    """A Framework for the (first) profile of a config (default config when None), over a snapshot."""
    from kschedctl.config.loader import load_config_text
    from kschedctl.plugins.plugin_manager import default_registry
    from kschedctl.runtime.framework import Framework
    from kschedctl.runtime.services import Services

    services = Services.minimal(version, objects)
    registry = default_registry().registry
    config = load_config_text(config_yaml or "", "<test>", services.version, registry)
    fwk = Framework(config.profiles[0], registry, services)
    fwk.snapshot = new_snapshot(nodes, pods)
    return fwk


# --- storage objects (PV, PVC, StorageClass, CSINode, CSIDriver) ------------------------------


class StorageObjectBuilder:
    """A raw storage object; ``.obj()`` gives the GenericObject ClusterObjects holds."""

    def __init__(self, kind: str, api_version: str, name: str, namespace: str | None = None) -> None:
        md: dict[str, Any] = {"name": name, "uid": f"{namespace or ''}-{name}-uid"}
        if namespace is not None:
            md["namespace"] = namespace
        self.raw: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": md}
        self.namespaced = namespace is not None

    def set(self, path: str, value: Any) -> "StorageObjectBuilder":
        _set_path(self.raw, path, value)
        return self

    def label(self, key: str, value: str) -> "StorageObjectBuilder":
        self.raw["metadata"].setdefault("labels", {})[key] = value
        return self

    def annotate(self, key: str, value: str) -> "StorageObjectBuilder":
        self.raw["metadata"].setdefault("annotations", {})[key] = value
        return self

    # PVC / PV
    def storage_class(self, name: str) -> "StorageObjectBuilder":
        return self.set("spec.storageClassName", name)

    def access_modes(self, *modes: str) -> "StorageObjectBuilder":
        return self.set("spec.accessModes", list(modes))

    def request(self, storage: str) -> "StorageObjectBuilder":
        return self.set("spec.resources", {"requests": {"storage": storage}})

    def bound_to(self, pv_name: str, completed: bool = True) -> "StorageObjectBuilder":
        """PVC bound to a PV (with the bind-completed annotation unless completed=False)."""
        self.set("spec.volumeName", pv_name)
        if completed:
            self.annotate("pv.kubernetes.io/bind-completed", "yes")
        return self

    def phase(self, phase: str) -> "StorageObjectBuilder":
        return self.set("status.phase", phase)

    def capacity(self, storage: str) -> "StorageObjectBuilder":
        return self.set("spec.capacity", {"storage": storage})

    def node_affinity(self, key: str, values: list[str]) -> "StorageObjectBuilder":
        return self.set(
            "spec.nodeAffinity",
            {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": values}]}]}},
        )

    def csi(self, driver: str, handle: str) -> "StorageObjectBuilder":
        return self.set("spec.csi", {"driver": driver, "volumeHandle": handle})

    def claim_ref(self, namespace: str, name: str) -> "StorageObjectBuilder":
        return self.set("spec.claimRef", {"namespace": namespace, "name": name})

    def owner_pod(self, pod: "Pod") -> "StorageObjectBuilder":
        self.raw["metadata"]["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid, "controller": True}
        ]
        return self

    def dict(self) -> JSONObject:
        return copy.deepcopy(self.raw)

    def obj(self) -> Any:
        from kschedctl.api.types import GenericObject

        return GenericObject.from_dict(self.dict(), namespaced=self.namespaced)


def make_pvc(name: str, namespace: str = "default") -> StorageObjectBuilder:
    return StorageObjectBuilder("PersistentVolumeClaim", "v1", name, namespace)


def make_pv(name: str) -> StorageObjectBuilder:
    return StorageObjectBuilder("PersistentVolume", "v1", name)


def make_storage_class(
    name: str, provisioner: str = "", binding_mode: str = "Immediate", allowed_topologies: JSONList | None = None
) -> StorageObjectBuilder:
    b = StorageObjectBuilder("StorageClass", "storage.k8s.io/v1", name)
    b.raw["provisioner"] = provisioner
    b.raw["volumeBindingMode"] = binding_mode
    if allowed_topologies is not None:
        b.raw["allowedTopologies"] = allowed_topologies
    return b


def make_csi_node(name: str, limits: dict[str, int | None]) -> StorageObjectBuilder:
    """A CSINode with one driver per entry (count None: no allocatable)."""
    drivers = []
    for driver, count in limits.items():
        d: dict[str, Any] = {"name": driver, "nodeID": name}
        if count is not None:
            d["allocatable"] = {"count": count}
        drivers.append(d)
    return StorageObjectBuilder("CSINode", "storage.k8s.io/v1", name).set("spec.drivers", drivers)


def cluster_objects(*objs: Any) -> Any:
    """ClusterObjects holding these GenericObjects (or builders), indexed by kind."""
    from kschedctl.api.objects import ClusterObjects

    out = ClusterObjects()
    index = {
        "PersistentVolume": out.persistent_volumes,
        "StorageClass": out.storage_classes,
        "CSINode": out.csi_nodes,
        "CSIDriver": out.csi_drivers,
    }
    for o in objs:
        if isinstance(o, StorageObjectBuilder):
            o = o.obj()
        if o.kind == "PersistentVolumeClaim":
            out.persistent_volume_claims[f"{o.namespace}/{o.name}"] = o
        elif o.kind in index:
            index[o.kind][o.name] = o
        else:
            out.other.setdefault(o.kind, []).append(o)
    return out


# --- typed plugin args ------------------------------------------------------------------------


def args_defaults(args_type: type[PluginArgs], args: JSONObject | None = None, version: KubeVersion | None = None) -> JSONObject:
    """The args a plugin gets for this pluginConfig ``args`` (decoded, v1-defaulted), as JSON."""
    from kschedctl.framework.features import Features
    from kschedctl.versions import KubeVersion

    return args_type.from_dict(args, Features.of(version or KubeVersion())).to_dict()


def args_errors(args_type: type[PluginArgs], args: JSONObject, version: KubeVersion | None = None) -> list[FieldError]:
    """What validation says of these args as given (no defaulting): the decoding errors, or the
    args kind's validation errors, as (path relative to the args, message) pairs."""
    from kschedctl.framework.args import ArgsError
    from kschedctl.framework.features import Features
    from kschedctl.versions import KubeVersion

    try:
        decoded = args_type.decode(args)
    except ArgsError as exc:
        return list(exc.errors)
    return list(decoded.validate(Features.of(version or KubeVersion())))
