"""The other kinds the scheduler reads: storage (PV, PVC, StorageClass, CSINode, CSIDriver,
CSIStorageCapacity), PriorityClass, PodDisruptionBudget, pod groups (Workload, PodGroup) and the
owners whose selectors default PodTopologySpread (Service, ReplicaSet, StatefulSet,
ReplicationController), and DaemonSet (the pods a new node gets, for the what-if commands).

Upstream: pkg/apis/core/validation/validation.go (ValidatePersistentVolume[Claim]Spec,
ValidateTopologySelectorTerm), pkg/apis/storage/validation, pkg/apis/scheduling/validation
(ValidatePriorityClass, ValidateWorkload: pod group policies), pkg/apis/policy/validation.
Required-ness is enforced where the scheduler's reading depends on it; fields the scheduler
never reads are not checked.
"""

from __future__ import annotations

from kschedctl.api import field
from kschedctl.api.admission.core import check_quantity, resource_list
from kschedctl.api.admission.fields import (
    INT32,
    IS_NEGATIVE,
    NOT_POSITIVE,
    boolean,
    check_dns_label,
    check_enum,
    check_label_key,
    check_label_selector,
    check_labels,
    check_meta,
    check_node_selector,
    check_subdomain,
    condition_times,
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
)
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.labels import LabelSelector
from kschedctl.api.validation import label_key_errors

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
VOLUME_MODES = ("Block", "Filesystem")
BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASSES = {"system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000}


def _access_modes(spec: JSONObject, path: str) -> None:
    modes = strings(lst(spec, "accessModes", f"{path}.accessModes", "[]v1.PersistentVolumeAccessMode"), f"{path}.accessModes")
    for mode in modes:
        check_enum(mode, f"{path}.accessModes", ACCESS_MODES, allow_empty=False)
    if "ReadWriteOncePod" in modes and len(set(modes)) > 1:
        raise fail(field.forbidden(f"{path}.accessModes", "may not use ReadWriteOncePod with other access modes"))


def _storage_class_name(spec: JSONObject, path: str) -> None:
    name = string(spec, "storageClassName", f"{path}.storageClassName")
    if name:
        check_subdomain(name, f"{path}.storageClassName")


def _volume_mode(spec: JSONObject, path: str) -> None:
    mode = opt_string(spec, "volumeMode", f"{path}.volumeMode")
    if mode is not None:
        check_enum(mode, f"{path}.volumeMode", VOLUME_MODES, allow_empty=False)


def admit_persistent_volume(raw: JSONObject) -> None:
    check_meta(raw, namespaced=False)
    spec = obj(raw, "spec", "spec", "v1.PersistentVolumeSpec") or {}
    _access_modes(spec, "spec")
    for name, qty in resource_list(spec, "capacity", "spec.capacity").items():
        check_quantity(qty, f"spec.capacity[{name}]")
        if name != "storage":
            raise fail(field.not_supported("spec.capacity", spec["capacity"], ("storage",)))
    _storage_class_name(spec, "spec")
    _volume_mode(spec, "spec")
    string(spec, "volumeAttributesClassName", "spec.volumeAttributesClassName")
    ref = obj(spec, "claimRef", "spec.claimRef", "v1.ObjectReference")
    if ref is not None:
        for key in ("name", "namespace", "uid", "kind", "apiVersion"):
            string(ref, key, f"spec.claimRef.{key}")
    affinity = obj(spec, "nodeAffinity", "spec.nodeAffinity", "v1.VolumeNodeAffinity")
    if affinity is not None:
        if affinity.get("required") is None:
            raise fail(field.required("spec.nodeAffinity.required", "must specify required node constraints"))
        check_node_selector(affinity, "required", "spec.nodeAffinity.required")
    status = obj(raw, "status", "status", "v1.PersistentVolumeStatus") or {}
    string(status, "phase", "status.phase")


def admit_persistent_volume_claim(raw: JSONObject) -> None:
    check_meta(raw, namespaced=True)
    spec = obj(raw, "spec", "spec", "v1.PersistentVolumeClaimSpec") or {}
    _access_modes(spec, "spec")
    check_label_selector(spec, "selector", "spec.selector")
    resources = obj(spec, "resources", "spec.resources", "v1.VolumeResourceRequirements") or {}
    for key in ("requests", "limits"):
        for name, qty in resource_list(resources, key, f"spec.resources.{key}").items():
            check_quantity(qty, f"spec.resources.{key}[{name}]")
    _storage_class_name(spec, "spec")
    _volume_mode(spec, "spec")
    string(spec, "volumeName", "spec.volumeName")
    string(spec, "volumeAttributesClassName", "spec.volumeAttributesClassName")
    status = obj(raw, "status", "status", "v1.PersistentVolumeClaimStatus") or {}
    string(status, "phase", "status.phase")


def admit_storage_class(raw: JSONObject) -> None:
    check_meta(raw, namespaced=False)
    provisioner = string(raw, "provisioner", "provisioner")
    if not provisioner:
        raise fail(field.required("provisioner"))
    errs = label_key_errors(provisioner.lower())
    if errs:
        raise fail(field.invalid("provisioner", provisioner, errs[0]))
    mode = opt_string(raw, "volumeBindingMode", "volumeBindingMode")
    if mode is not None:
        check_enum(mode, "volumeBindingMode", BINDING_MODES, allow_empty=False)
    terms = lst(raw, "allowedTopologies", "allowedTopologies", "[]v1.TopologySelectorTerm")
    for _, tpath, term in items(terms, "allowedTopologies"):
        seen: set[str] = set()
        exprs = lst(term, "matchLabelExpressions", f"{tpath}.matchLabelExpressions", "[]v1.TopologySelectorLabelRequirement")
        for _, epath, expr in items(exprs, f"{tpath}.matchLabelExpressions"):
            values = strings(lst(expr, "values", f"{epath}.values", "[]string"), f"{epath}.values")
            if not values:
                raise fail(field.required(f"{epath}.values"))
            for i, value in enumerate(values):
                if value in values[:i]:
                    raise fail(field.duplicate(f"{epath}.values[{i}]", value))
            key = string(expr, "key", f"{epath}.key")
            check_label_key(key, f"{epath}.key")
            if key in seen:
                raise fail(field.duplicate(f"{epath}.key", key))
            seen.add(key)


def _check_csi_driver_name(name: str, path: str) -> None:
    """validateCSIDriverName: required, at most 63 characters, a DNS subdomain (lower-cased)."""
    if not name:
        raise fail(field.required(path))
    if len(name) > 63:
        raise fail(field.too_long(path, 63))
    check_subdomain(name.lower(), path)


def admit_csi_node(raw: JSONObject) -> None:
    check_meta(raw, namespaced=False)
    spec = obj(raw, "spec", "spec", "v1.CSINodeSpec") or {}
    seen: set[str] = set()
    for _, path, driver in items(lst(spec, "drivers", "spec.drivers", "[]v1.CSINodeDriver"), "spec.drivers"):
        name = string(driver, "name", f"{path}.name")
        _check_csi_driver_name(name, f"{path}.name")
        if name in seen:
            raise fail(field.duplicate(f"{path}.name", name))
        seen.add(name)
        if not string(driver, "nodeID", f"{path}.nodeID"):
            raise fail(field.required(f"{path}.nodeID"))
        for _i, key in enumerate(strings(lst(driver, "topologyKeys", f"{path}.topologyKeys", "[]string"), f"{path}.topologyKeys")):
            check_label_key(key, f"{path}.topologyKeys")
        allocatable = obj(driver, "allocatable", f"{path}.allocatable", "v1.VolumeNodeResources")
        if allocatable is not None:
            count = integer(allocatable, "count", f"{path}.allocatable.count", INT32)
            if count is not None and count < 0:
                raise fail(field.invalid(f"{path}.allocatable.count", count, IS_NEGATIVE))


def admit_csi_driver(raw: JSONObject) -> None:
    check_meta(raw, namespaced=False, name_check=_check_csi_driver_name)
    spec = obj(raw, "spec", "spec", "v1.CSIDriverSpec") or {}
    for key in ("attachRequired", "podInfoOnMount", "storageCapacity", "requiresRepublish", "seLinuxMount"):
        if spec.get(key) is not None:
            boolean(spec, key, f"spec.{key}")


def admit_csi_storage_capacity(raw: JSONObject) -> None:
    check_meta(raw, namespaced=True)
    name = string(raw, "storageClassName", "storageClassName")
    if not name:
        raise fail(field.required("storageClassName"))
    check_subdomain(name, "storageClassName")
    check_label_selector(raw, "nodeTopology", "nodeTopology")
    for key in ("capacity", "maximumVolumeSize"):
        if raw.get(key) is not None:
            check_quantity(raw[key], key)


# --- scheduling, policy ----------------------------------------------------------------------------


def admit_priority_class(raw: JSONObject) -> None:
    """ValidatePriorityClass; value is a required int32."""
    md = check_meta(raw, namespaced=False)
    name = md["name"]
    value = integer(raw, "value", "value", INT32)
    if value is None:
        raise fail(field.required("value"))
    global_default = boolean(raw, "globalDefault", "globalDefault")
    if name.startswith("system-"):
        known = SYSTEM_PRIORITY_CLASSES.get(name)
        if known is None:
            error = f"{name} is not a known system priority class"
        elif value != known:
            error = f"value of {name} PriorityClass must be {known}"
        elif global_default:
            error = f"globalDefault of {name} PriorityClass must be false"
        else:
            error = ""
        if error:
            raise fail(
                field.forbidden(
                    "metadata.name", f"priority class names with 'system-' prefix are reserved for system use only. error: {error}"
                )
            )
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        raise fail(field.forbidden("value", f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"))
    policy = opt_string(raw, "preemptionPolicy", "preemptionPolicy")
    if policy is not None:
        if not policy:
            raise fail(field.required("preemptionPolicy"))
        check_enum(policy, "preemptionPolicy", PREEMPTION_POLICIES)


def admit_pdb(raw: JSONObject) -> None:
    check_meta(raw, namespaced=True)
    spec = obj(raw, "spec", "spec", "v1.PodDisruptionBudgetSpec") or {}
    check_label_selector(spec, "selector", "spec.selector")
    status = obj(raw, "status", "status", "v1.PodDisruptionBudgetStatus") or {}
    for key in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"):
        value = integer(status, key, f"status.{key}", INT32)
        if value is not None and value < 0:
            raise fail(field.invalid(f"status.{key}", value, IS_NEGATIVE))
    disrupted = obj(status, "disruptedPods", "status.disruptedPods", "map[string]v1.Time") or {}
    for pod_name in disrupted:
        timestamp(disrupted, pod_name, f"status.disruptedPods.{pod_name}")  # map[string]metav1.Time
        check_subdomain(pod_name, "status.disruptedPods")
    if "conditions" in status:
        condition_times(lst(status, "conditions", "status.conditions", "[]v1.Condition"), "status.conditions", ("lastTransitionTime",))


def _check_pod_group_policy(policy: JSONObject, path: str) -> None:
    """validatePodGroupPolicy: exactly one of basic, gang; gang.minCount >= 1."""
    basic = obj(policy, "basic", f"{path}.basic")
    gang = obj(policy, "gang", f"{path}.gang")
    if basic is None and gang is None:
        raise fail(field.invalid(path, "", "must specify one of: `basic`, `gang`"))
    if basic is not None and gang is not None:
        raise fail(field.invalid(path, "{`basic`, `gang`}", "exactly one of `basic`, `gang` is required, but multiple fields are set"))
    if gang is not None:
        min_count = integer(gang, "minCount", f"{path}.gang.minCount", INT32) or 0
        if min_count == 0:
            raise fail(field.required(f"{path}.gang.minCount"))
        if min_count < 0:
            raise fail(field.invalid(f"{path}.gang.minCount", min_count, NOT_POSITIVE))


def admit_workload(raw: JSONObject) -> None:
    """ValidateWorkload (scheduling/v1alpha1, 1.35)."""
    check_meta(raw, namespaced=True)
    spec = obj(raw, "spec", "spec", "v1alpha1.WorkloadSpec") or {}
    groups = lst(spec, "podGroups", "spec.podGroups", "[]v1alpha1.PodGroup")
    if not groups:
        raise fail(field.required("spec.podGroups", "must have at least one item"))
    seen: set[str] = set()
    for _, path, group in items(groups, "spec.podGroups"):
        name = string(group, "name", f"{path}.name")
        if not name:
            raise fail(field.required(f"{path}.name"))
        check_dns_label(name, f"{path}.name")
        if name in seen:
            raise fail(field.duplicate(path, group))
        seen.add(name)
        _check_pod_group_policy(obj(group, "policy", f"{path}.policy") or {}, f"{path}.policy")


def admit_pod_group(raw: JSONObject) -> None:
    """PodGroup (scheduling/v1alpha2 and v1beta1: schedulingPolicy, schedulingConstraints); the
    scheduler-plugins PodGroup (scheduling.x-k8s.io: minMember) is checked for its types."""
    check_meta(raw, namespaced=True)
    spec = obj(raw, "spec", "spec") or {}
    if str(raw.get("apiVersion", "")).split("/")[0] == "scheduling.x-k8s.io":
        min_member = integer(spec, "minMember", "spec.minMember", INT32)
        if min_member is not None and min_member < 0:
            raise fail(field.invalid("spec.minMember", min_member, IS_NEGATIVE))
        return
    _check_pod_group_policy(obj(spec, "schedulingPolicy", "spec.schedulingPolicy") or {}, "spec.schedulingPolicy")
    constraints = obj(spec, "schedulingConstraints", "spec.schedulingConstraints") or {}
    for _, path, topology in items(
        lst(constraints, "topology", "spec.schedulingConstraints.topology"), "spec.schedulingConstraints.topology"
    ):
        key = string(topology, "key", f"{path}.key")
        if not key:
            raise fail(field.required(f"{path}.key"))
        check_label_key(key, f"{path}.key")


def admit_owner(raw: JSONObject) -> None:
    """Service / ReplicationController (selector: a label map) and ReplicaSet / StatefulSet
    (selector: a LabelSelector): what DefaultSelector reads."""
    check_meta(raw, namespaced=True)
    spec = obj(raw, "spec", "spec") or {}
    if raw.get("kind") in ("Service", "ReplicationController"):
        check_labels(string_map(spec, "selector", "spec.selector"), "spec.selector")
    else:
        check_label_selector(spec, "selector", "spec.selector")
    integer(spec, "replicas", "spec.replicas", INT32)


def admit_daemon_set(raw: JSONObject) -> None:
    """DaemonSet (apps/v1): ValidateDaemonSetSpec for what the DaemonSet controller reads when it
    places pods on a new node: a non-empty selector that matches the template's labels, and a
    pod template (checked as the pod it becomes, by the reader, kschedctl.cluster.daemonsets)."""
    check_meta(raw, namespaced=True)
    spec = obj(raw, "spec", "spec", "v1.DaemonSetSpec") or {}
    selector = check_label_selector(spec, "selector", "spec.selector")
    if not selector or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        raise fail(field.required("spec.selector"))
    template = obj(spec, "template", "spec.template", "v1.PodTemplateSpec")
    if template is None:
        raise fail(field.required("spec.template"))
    tmd = obj(template, "metadata", "spec.template.metadata", "v1.ObjectMeta") or {}
    labels = string_map(tmd, "labels", "spec.template.metadata.labels") or {}
    check_labels(labels, "spec.template.metadata.labels")
    parsed = LabelSelector.from_dict(selector, "spec.selector")
    if parsed is not None and not parsed.matches(labels):
        raise fail(field.invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`"))
    obj(template, "spec", "spec.template.spec", "v1.PodSpec")


__all__ = [
    "admit_csi_driver",
    "admit_csi_node",
    "admit_csi_storage_capacity",
    "admit_daemon_set",
    "admit_owner",
    "admit_pdb",
    "admit_persistent_volume",
    "admit_persistent_volume_claim",
    "admit_pod_group",
    "admit_priority_class",
    "admit_storage_class",
    "admit_workload",
]
