"""Pods, as kube-apiserver validates them (ValidatePodCreate / ValidatePodSpec), for the fields
the scheduler reads: metadata, nodeName, priority, containers (resources, ports, restartPolicy),
overhead and pod-level resources, tolerations, nodeSelector, affinity, topology spread
constraints, volumes, resource claims, scheduling gates, and status.nominatedNodeName.

Upstream: pkg/apis/core/validation/validation.go (validateContainerPorts, checkHostPortConflicts,
validateAffinity, validateTopologySpreadConstraints, ValidateVolumes, validatePodResourceClaims,
validateSchedulingGates, ValidatePreemptionPolicy, validatePodHostNetworkDeps). Fields the API
server defaults before validating (protocol TCP, preemptionPolicy) are treated as defaulted;
fields the scheduler never reads (probes, env, security context...) are not checked.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from kschedctl.api import field
from kschedctl.api.admission.core import check_quantity, check_resource_requirements, check_tolerations, resource_list
from kschedctl.api.admission.fields import (
    INT32,
    NOT_POSITIVE,
    boolean,
    check_dns_label,
    check_enum,
    check_label_key,
    check_label_selector,
    check_labels,
    check_meta,
    check_node_selector,
    check_node_selector_term,
    check_subdomain,
    fail,
    integer,
    items,
    lst,
    obj,
    opt_string,
    string,
    string_map,
    strings,
    timestamp,
    type_error,
)
from kschedctl.api.content_memo import LIMIT, by_content, content_key, replica_spec
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.validation import label_key_errors, port_num_errors

PROTOCOLS = ("SCTP", "TCP", "UDP")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
NODE_INCLUSION_POLICIES = ("Honor", "Ignore")
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
# v1.VolumeSource: exactly one of these per volume.
VOLUME_SOURCES = (
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
)
# string fields of the sources VolumeRestrictions and NodeVolumeLimits compare
_SOURCE_STRINGS = {
    "gcePersistentDisk": ("pdName", "fsType"),
    "awsElasticBlockStore": ("volumeID", "fsType"),
    "iscsi": ("targetPortal", "iqn"),
    "rbd": ("image", "pool"),
    "cinder": ("volumeID",),
    "azureDisk": ("diskName", "diskURI"),
    "csi": ("driver",),
}


def admit_pod(raw: JSONObject) -> None:
    md = check_meta(raw, namespaced=True)
    spec = obj(raw, "spec", "spec", "v1.PodSpec") or {}
    shared = replica_spec(spec)
    if shared is None:
        _check_spec(spec, md)
    else:
        # The replicas of one template: every check but nodeName's reads the spec alone, so a
        # spec that passed them (its content without nodeName) only has its node checked.
        key = content_key(shared)
        if key in _ADMITTED_SPECS:
            if "nodeName" in spec:
                _spec_node_name(spec, md, False, set())
        else:
            _check_spec(spec, md)
            if len(_ADMITTED_SPECS) >= LIMIT:
                _ADMITTED_SPECS.clear()
            _ADMITTED_SPECS.add(key)
    if spec.get("nodeName") and spec.get("schedulingGates"):
        # ValidatePodCreate (pkg/apis/core/validation/validation.go): a pod is created either
        # gated or bound, never both, and gates are only ever removed afterwards
        raise fail(field.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"))
    if "status" in raw:
        _check_status(raw)


def _check_spec(spec: JSONObject, md: JSONObject) -> None:
    """ValidatePodSpec for the fields present, in the spec's own order."""
    host_network = boolean(spec, "hostNetwork", "spec.hostNetwork") if "hostNetwork" in spec else False
    claim_names = _check_resource_claims(spec, md) if "resourceClaims" in spec else set()
    for key in spec:  # only the fields present are looked at: most pods set a handful
        check = _SPEC_CHECKS.get(key)
        if check is not None:
            check(spec, md, host_network, claim_names)


# The contents of the replica specs (content_memo.replica_spec) that passed every check, LIMIT
# at most; a spec that fails is never kept, so it fails every time with its own path and words.
_ADMITTED_SPECS: set[Hashable] = set()


def _spec_containers(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    _check_containers(spec, "containers", host_network, claim_names)


def _spec_init_containers(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    _check_containers(spec, "initContainers", host_network, claim_names)


def _spec_resources(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    pod_resources = obj(spec, "resources", "spec.resources", "v1.ResourceRequirements")
    if pod_resources is not None:
        check_resource_requirements(pod_resources, "spec.resources", pod_level=True)


def _spec_node_selector(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    check_labels(string_map(spec, "nodeSelector", "spec.nodeSelector"), "spec.nodeSelector")


def _spec_node_name(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    node_name = string(spec, "nodeName", "spec.nodeName")
    if node_name:
        check_subdomain(node_name, "spec.nodeName")


def _spec_scheduler_name(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    string(spec, "schedulerName", "spec.schedulerName")


def _spec_priority_class(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    class_name = string(spec, "priorityClassName", "spec.priorityClassName")
    if class_name:
        check_subdomain(class_name, "spec.priorityClassName")


def _spec_priority(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    integer(spec, "priority", "spec.priority", INT32)


def _spec_preemption_policy(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    policy = opt_string(spec, "preemptionPolicy", "spec.preemptionPolicy")
    if policy is not None:
        if not policy:
            raise fail(field.required("spec.preemptionPolicy"))
        check_enum(policy, "spec.preemptionPolicy", PREEMPTION_POLICIES)


def _spec_overhead(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    for name, qty in resource_list(spec, "overhead", "spec.overhead").items():
        check_quantity(qty, f"spec.overhead[{name}]")


def _spec_volumes(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    _check_volumes(spec, string(md, "name", "metadata.name"))


def _spec_tolerations(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    check_tolerations(spec)


def _spec_affinity(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    _check_affinity(spec)


def _spec_gates(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    _check_scheduling_gates(spec)


def _spec_spread(spec: JSONObject, md: JSONObject, host_network: bool, claim_names: set[str]) -> None:
    _check_spread_constraints(spec)


def _check_status(raw: JSONObject) -> None:
    status = obj(raw, "status", "status", "v1.PodStatus") or {}
    for key in status:
        if key == "startTime":
            timestamp(status, key, "status.startTime")
        elif key in ("phase", "nominatedNodeName"):
            value = string(status, key, f"status.{key}")
            if key == "nominatedNodeName" and value:
                check_subdomain(value, "status.nominatedNodeName")
        elif key == "conditions":
            conditions = lst(status, "conditions", "status.conditions", "[]v1.PodCondition")
            for _, path, cond in items(conditions, "status.conditions"):
                for ckey in ("type", "status", "reason", "message"):
                    string(cond, ckey, f"{path}.{ckey}")
                for ckey in ("lastProbeTime", "lastTransitionTime"):
                    if ckey in cond:
                        timestamp(cond, ckey, f"{path}.{ckey}")


# --- containers -------------------------------------------------------------------------------------


def _check_containers(spec: JSONObject, key: str, host_network: bool, claim_names: set[str]) -> None:
    containers = lst(spec, key, f"spec.{key}", "[]v1.Container")
    host_ports: set[str] = set()
    for i, ctr in enumerate(containers or ()):
        path = f"spec.{key}[{i}]"
        if type(ctr) is not dict:
            raise type_error(path, ctr, "v1.Container")
        if type(ctr.get("name")) is not str:
            string(ctr, "name", f"{path}.name")
        if type(ctr.get("image")) is not str:
            string(ctr, "image", f"{path}.image")
        resources = ctr.get("resources")
        if resources is not None:
            if type(resources) is not dict:
                raise type_error(f"{path}.resources", resources, "v1.ResourceRequirements")
            by_content(_PASSED, check_resource_requirements, resources, f"{path}.resources")
            if "claims" in resources:
                _check_claim_refs(resources, f"{path}.resources", claim_names)
        if "restartPolicy" in ctr:
            restart = opt_string(ctr, "restartPolicy", f"{path}.restartPolicy")
            if restart is not None:
                if key == "initContainers":
                    check_enum(restart, f"{path}.restartPolicy", ("Always",), allow_empty=False)
                else:
                    raise fail(field.forbidden(f"{path}.restartPolicy", "may not be set for non-init containers"))
        if "ports" in ctr:
            _check_ports(ctr, path, host_network, host_ports if key == "containers" else set())


def _check_ports(ctr: JSONObject, path: str, host_network: bool, host_ports: set[str]) -> None:
    """validateContainerPorts, validatePodHostNetworkDeps and checkHostPortConflicts (across the
    regular containers; each init container on its own)."""
    ports = lst(ctr, "ports", f"{path}.ports", "[]v1.ContainerPort")
    names: set[str] = set()
    for _, ppath, port in items(ports, f"{path}.ports"):
        name = string(port, "name", f"{ppath}.name")
        if name:
            if name in names:
                raise fail(field.duplicate(f"{ppath}.name", name))
            names.add(name)
        container_port = integer(port, "containerPort", f"{ppath}.containerPort") or 0
        if container_port == 0:
            raise fail(field.required(f"{ppath}.containerPort"))
        errs = port_num_errors(container_port)
        if errs:
            raise fail(field.invalid(f"{ppath}.containerPort", container_port, errs[0]))
        host_port = integer(port, "hostPort", f"{ppath}.hostPort") or 0
        if host_port:
            errs = port_num_errors(host_port)
            if errs:
                raise fail(field.invalid(f"{ppath}.hostPort", host_port, errs[0]))
        protocol = string(port, "protocol", f"{ppath}.protocol") or "TCP"
        check_enum(protocol, f"{ppath}.protocol", PROTOCOLS, allow_empty=False)
        host_ip = string(port, "hostIP", f"{ppath}.hostIP")
        if host_network and host_port and host_port != container_port:
            raise fail(field.invalid(f"{ppath}.hostPort", host_port, "must match `containerPort` when `hostNetwork` is true"))
        effective = host_port or (container_port if host_network else 0)
        if effective:
            key = f"{protocol}/{host_ip}/{effective}"
            if key in host_ports:
                raise fail(field.duplicate(f"{ppath}.hostPort", key))
            host_ports.add(key)


def _check_claim_refs(resources: JSONObject, path: str, claim_names: set[str]) -> None:
    """validateResourceClaimNames: resources.claims name entries of spec.resourceClaims."""
    claims = lst(resources, "claims", f"{path}.claims", "[]v1.ResourceClaim")
    for _i, cpath, claim in items(claims, f"{path}.claims"):
        name = string(claim, "name", f"{cpath}.name")
        if not name:
            raise fail(field.required(f"{cpath}.name"))
        if name not in claim_names:
            raise fail(
                field.not_found(
                    f"{cpath}.name",
                    name,
                    "must be one of the names in pod.spec.resourceClaims"
                    if claim_names
                    else "must be one of the names in pod.spec.resourceClaims which is empty",
                )
            )


def _check_resource_claims(spec: JSONObject, md: JSONObject) -> set[str]:
    """validatePodResourceClaims."""
    claims = lst(spec, "resourceClaims", "spec.resourceClaims", "[]v1.PodResourceClaim")
    names: set[str] = set()
    for _, path, claim in items(claims, "spec.resourceClaims"):
        name = string(claim, "name", f"{path}.name")
        if not name:
            raise fail(field.required(f"{path}.name"))
        if name in names:
            raise fail(field.duplicate(f"{path}.name", name))
        check_dns_label(name, f"{path}.name")
        names.add(name)
        claim_name = opt_string(claim, "resourceClaimName", f"{path}.resourceClaimName")
        template = opt_string(claim, "resourceClaimTemplateName", f"{path}.resourceClaimTemplateName")
        if claim_name is not None and template is not None:
            raise fail(field.invalid(path, claim, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
        if claim_name is None and template is None:
            raise fail(field.invalid(path, claim, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
        if claim_name is not None:
            check_subdomain(claim_name, f"{path}.resourceClaimName")
        if template is not None:
            check_subdomain(template, f"{path}.resourceClaimTemplateName")
    return names


# --- volumes ------------------------------------------------------------------------------------------


def _check_volumes(spec: JSONObject, pod_name: str) -> None:
    """ValidateVolumes: names are unique DNS labels, exactly one source each; the sources the
    scheduler reads are type-checked."""
    volumes = lst(spec, "volumes", "spec.volumes", "[]v1.Volume")
    names: set[str] = set()
    for _, path, vol in items(volumes, "spec.volumes"):
        name = string(vol, "name", f"{path}.name")
        if not name:
            raise fail(field.required(f"{path}.name"))
        check_dns_label(name, f"{path}.name")
        if name in names:
            raise fail(field.duplicate(f"{path}.name", name))
        names.add(name)
        present = [key for key in VOLUME_SOURCES if vol.get(key) is not None]
        if not present:
            raise fail(field.required(path, "must specify a volume type"))
        if len(present) > 1:
            raise fail(field.forbidden(f"{path}.{present[1]}", "may not specify more than 1 volume type"))
        source_key = present[0]
        source = obj(vol, source_key, f"{path}.{source_key}")
        assert source is not None
        spath = f"{path}.{source_key}"
        if source_key == "persistentVolumeClaim":
            claim = string(source, "claimName", f"{spath}.claimName")
            if not claim:
                raise fail(field.required(f"{spath}.claimName"))
            boolean(source, "readOnly", f"{spath}.readOnly")
        elif source_key == "ephemeral":
            if obj(source, "volumeClaimTemplate", f"{spath}.volumeClaimTemplate") is None:
                raise fail(field.required(f"{spath}.volumeClaimTemplate"))
        for key in _SOURCE_STRINGS.get(source_key, ()):
            string(source, key, f"{spath}.{key}")
        if source_key in ("gcePersistentDisk", "iscsi", "rbd"):
            boolean(source, "readOnly", f"{spath}.readOnly")
        if source_key == "rbd":
            strings(lst(source, "monitors", f"{spath}.monitors", "[]string"), f"{spath}.monitors")
    for _, path, vol in items(volumes, "spec.volumes"):
        pvc = vol.get("persistentVolumeClaim")
        if (
            pvc
            and pod_name
            and any(v.get("ephemeral") is not None and f"{pod_name}-{v.get('name')}" == pvc.get("claimName") for v in volumes or ())
        ):
            raise fail(
                field.invalid(
                    f"{path}.persistentVolumeClaim.claimName",
                    pvc.get("claimName"),
                    "must not reference a PVC that gets created for an ephemeral volume",
                )
            )


# --- scheduling constraints -------------------------------------------------------------------------


def _check_scheduling_gates(spec: JSONObject) -> None:
    gates = lst(spec, "schedulingGates", "spec.schedulingGates", "[]v1.PodSchedulingGate")
    seen: set[str] = set()
    for _i, path, gate in items(gates, "spec.schedulingGates"):
        name = string(gate, "name", f"{path}.name")
        errs = label_key_errors(name)
        if errs:
            raise fail(field.invalid(path, name, errs[0]))
        if name in seen:
            raise fail(field.duplicate(path, name))
        seen.add(name)


def _check_affinity(spec: JSONObject) -> None:
    affinity = obj(spec, "affinity", "spec.affinity", "v1.Affinity")
    if affinity is None:
        return
    by_content(_PASSED, _check_affinity_document, affinity, "spec.affinity")


# (path, document, arguments) -> None for the checks a document passed (content_memo.py)
_PASSED: dict[Hashable, Any] = {}


def _check_affinity_document(affinity: JSONObject, where: str) -> None:
    """_check_affinity on the affinity document itself (``where`` is always spec.affinity)."""
    node = obj(affinity, "nodeAffinity", "spec.affinity.nodeAffinity", "v1.NodeAffinity")
    if node is not None:
        path = "spec.affinity.nodeAffinity"
        check_node_selector(node, REQUIRED, f"{path}.{REQUIRED}")
        terms = lst(node, PREFERRED, f"{path}.{PREFERRED}", "[]v1.PreferredSchedulingTerm")
        for _, tpath, term in items(terms, f"{path}.{PREFERRED}"):
            weight = integer(term, "weight", f"{tpath}.weight") or 0
            if weight <= 0 or weight > 100:
                raise fail(field.invalid(f"{tpath}.weight", weight, "must be in the range 1-100"))
            preference = obj(term, "preference", f"{tpath}.preference", "v1.NodeSelectorTerm") or {}
            # "we always allow invalid label-value for preferred affinity"
            check_node_selector_term(preference, f"{tpath}.preference", allow_invalid_values=True)
    for key in ("podAffinity", "podAntiAffinity"):
        pod_affinity = obj(affinity, key, f"spec.affinity.{key}", f"v1.{key[0].upper()}{key[1:]}")
        if pod_affinity is None:
            continue
        path = f"spec.affinity.{key}"
        for _, tpath, term in items(lst(pod_affinity, REQUIRED, f"{path}.{REQUIRED}", "[]v1.PodAffinityTerm"), f"{path}.{REQUIRED}"):
            _check_pod_affinity_term(term, tpath)
        for _, tpath, term in items(
            lst(pod_affinity, PREFERRED, f"{path}.{PREFERRED}", "[]v1.WeightedPodAffinityTerm"), f"{path}.{PREFERRED}"
        ):
            weight = integer(term, "weight", f"{tpath}.weight") or 0
            if weight <= 0 or weight > 100:
                raise fail(field.invalid(f"{tpath}.weight", weight, "must be in the range 1-100"))
            inner = obj(term, "podAffinityTerm", f"{tpath}.podAffinityTerm", "v1.PodAffinityTerm") or {}
            _check_pod_affinity_term(inner, f"{tpath}.podAffinityTerm")


def _check_pod_affinity_term(term: JSONObject, path: str) -> None:
    """validatePodAffinityTerm."""
    selector = check_label_selector(term, "labelSelector", f"{path}.labelSelector")
    check_label_selector(term, "namespaceSelector", f"{path}.namespaceSelector")
    for ns in strings(lst(term, "namespaces", f"{path}.namespaces", "[]string"), f"{path}.namespaces"):
        check_dns_label(ns, f"{path}.namespace")
    match_keys = strings(lst(term, "matchLabelKeys", f"{path}.matchLabelKeys", "[]string"), f"{path}.matchLabelKeys")
    mismatch_keys = strings(lst(term, "mismatchLabelKeys", f"{path}.mismatchLabelKeys", "[]string"), f"{path}.mismatchLabelKeys")
    _check_label_keys(match_keys, mismatch_keys, selector, path)
    topology_key = string(term, "topologyKey", f"{path}.topologyKey")
    if not topology_key:
        raise fail(field.required(f"{path}.topologyKey", "can not be empty"))
    check_label_key(topology_key, f"{path}.topologyKey")


def _check_label_keys(match_keys: list[str], mismatch_keys: list[str], selector: JSONObject | None, path: str) -> None:
    """ValidateMatchLabelKeysAndMismatchLabelKeys."""
    for name, keys in (("matchLabelKeys", match_keys), ("mismatchLabelKeys", mismatch_keys)):
        if keys and selector is None:
            raise fail(field.forbidden(f"{path}.{name}", "must not be specified when labelSelector is not set"))
        for i, key in enumerate(keys):
            check_label_key(key, f"{path}.{name}[{i}]")
    if selector is not None and match_keys:
        index = {key: i for i, key in enumerate(match_keys)}
        seen = set((selector.get("matchLabels") or {}).keys())
        for expr in selector.get("matchExpressions") or ():
            key = expr.get("key")
            if key in index and key in seen:
                raise fail(field.invalid(f"{path}[{index[key]}]", key, "exists in both matchLabelKeys and labelSelector"))
            seen.add(key)
    mismatch = set(mismatch_keys)
    for i, key in enumerate(match_keys):
        if key in mismatch:
            raise fail(field.invalid(f"{path}.matchLabelKeys[{i}]", key, "exists in both matchLabelKeys and mismatchLabelKeys"))


def _check_spread_constraints(spec: JSONObject) -> None:
    """validateTopologySpreadConstraints."""
    constraints = lst(spec, "topologySpreadConstraints", "spec.topologySpreadConstraints", "[]v1.TopologySpreadConstraint")
    pairs = [(c.get("topologyKey"), c.get("whenUnsatisfiable")) for c in constraints or () if type(c) is dict]
    for i, path, c in items(constraints, "spec.topologySpreadConstraints"):
        max_skew = integer(c, "maxSkew", f"{path}.maxSkew") or 0
        if max_skew <= 0:
            raise fail(field.invalid(f"{path}.maxSkew", max_skew, NOT_POSITIVE))
        topology_key = string(c, "topologyKey", f"{path}.topologyKey")
        if not topology_key:
            raise fail(field.required(f"{path}.topologyKey", "can not be empty"))
        when = string(c, "whenUnsatisfiable", f"{path}.whenUnsatisfiable")
        check_enum(when, f"{path}.whenUnsatisfiable", WHEN_UNSATISFIABLE, allow_empty=False)
        if (topology_key, when) in pairs[i + 1 :]:  # ValidateSpreadConstraintNotRepeat: reported at the first
            raise fail(field.duplicate(f"{path}.{{topologyKey, whenUnsatisfiable}}", f"{{{topology_key}, {when}}}"))
        min_domains = integer(c, "minDomains", f"{path}.minDomains")
        if min_domains is not None:
            if min_domains <= 0:
                raise fail(field.invalid(f"{path}.minDomains", min_domains, NOT_POSITIVE))
            if when != "DoNotSchedule":
                raise fail(
                    field.invalid(
                        f"{path}.minDomains", min_domains, f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {when}"
                    )
                )
        for key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = opt_string(c, key, f"{path}.{key}")
            if policy is not None:
                check_enum(policy, f"{path}.{key}", NODE_INCLUSION_POLICIES, allow_empty=False)
        selector = check_label_selector(c, "labelSelector", f"{path}.labelSelector")
        keys = strings(lst(c, "matchLabelKeys", f"{path}.matchLabelKeys", "[]string"), f"{path}.matchLabelKeys")
        _check_label_keys(keys, [], selector, path)


_SPEC_CHECKS = {
    "containers": _spec_containers,
    "initContainers": _spec_init_containers,
    "resources": _spec_resources,
    "nodeSelector": _spec_node_selector,
    "affinity": _spec_affinity,
    "schedulingGates": _spec_gates,
    "topologySpreadConstraints": _spec_spread,
    "nodeName": _spec_node_name,
    "schedulerName": _spec_scheduler_name,
    "tolerations": _spec_tolerations,
    "priorityClassName": _spec_priority_class,
    "priority": _spec_priority,
    "preemptionPolicy": _spec_preemption_policy,
    "overhead": _spec_overhead,
    "volumes": _spec_volumes,
}

__all__ = ["admit_pod"]
