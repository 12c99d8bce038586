"""Resource quantities, Nodes, Namespaces, taints and tolerations, as kube-apiserver validates them.

Upstream: pkg/apis/core/validation/validation.go (ValidateNode, ValidateNodeResources,
validateNodeTaints, ValidateTolerations, validateResourceRequirements,
ValidateResourceQuantityValue, ValidateNamespace) and pkg/apis/core/helper/helpers.go.

One rule is kschedctl's own: a quantity must fit the scheduler's arithmetic (its MilliValue()
within int64). kube-scheduler would silently overflow on such a value; kschedctl refuses it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from kschedctl.api import field
from kschedctl.api.admission.fields import (
    INT64,
    IS_NEGATIVE,
    boolean,
    check_dns_label,
    check_enum,
    check_label_key,
    check_meta,
    condition_times,
    fail,
    integer,
    items,
    lst,
    obj,
    string,
    strings,
    type_error,
)
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.quantity import MAX_INT64, QuantityError, QuantityOutOfRange, canonical, parse_quantity
from kschedctl.api.validation import (
    is_extended_resource_name,
    is_native_resource,
    label_key_errors,
    label_value_errors,
)

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
TOLERATION_OPERATORS = ("Equal", "Exists")
OUT_OF_RANGE = f"must be no more than {MAX_INT64}m (the largest quantity kube-scheduler can count)"
_INTEGER_RESOURCES = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})


def is_integer_resource(name: str) -> bool:
    """helper.IsIntegerResourceName: object counts and extended resources."""
    return name in _INTEGER_RESOURCES or is_extended_resource_name(name)


@lru_cache(maxsize=4096)
def is_overcommit_allowed(name: str) -> bool:
    """helper.IsOvercommitAllowed: native resources except huge pages."""
    return is_native_resource(name) and not name.startswith("hugepages-")


@lru_cache(maxsize=65536)
def _quantity_problem(value: Any, integer_resource: bool) -> tuple[str, Any] | None:
    """(message, shown value) of the first problem of a quantity, None when it is acceptable:
    unparsable (the decoder's message), negative, not whole for an integer resource, or
    beyond the scheduler's int64 milli range."""
    try:
        parsed = parse_quantity(value)
    except QuantityOutOfRange:
        return (OUT_OF_RANGE, value)
    except QuantityError as exc:
        return (str(exc), None)
    shown = value if isinstance(value, str) else canonical(parsed)
    if parsed < 0:
        return (IS_NEGATIVE, shown)
    if abs(parsed) * 1000 > MAX_INT64:
        return (OUT_OF_RANGE, shown)
    if integer_resource and (parsed * 1000).__ceil__() % 1000 != 0:
        return ("must be an integer", shown)
    return None


_QUANTITY_TYPES = (str, int, float)


def check_quantity(value: Any, path: str, integer_resource: bool = False) -> None:
    problem = _quantity_problem(value, integer_resource) if type(value) in _QUANTITY_TYPES else None
    if problem is not None or type(value) not in _QUANTITY_TYPES:
        _raise_quantity(value, path, problem)


def _raise_quantity(value: Any, path: str, problem: tuple[str, Any] | None) -> None:
    if type(value) not in _QUANTITY_TYPES:
        raise type_error(path, value, "resource.Quantity")
    assert problem is not None
    message, shown = problem
    if shown is None:  # a decoding error: the quantity's own message, as kube's decoder says it
        raise fail(field.FieldError(path, message))
    raise fail(field.invalid(path, shown, message))


def _check_quantities(quantities: JSONObject, path: str, key: str, name_check: Any) -> None:
    """Each quantity of a resource list; paths (``<path>.<key>[<name>]``) are built only on error."""
    for name, qty in quantities.items():
        if name_check is not None and name not in _GOOD_NAMES[name_check]:
            name_check(name, f"{path}.{key}[{name}]")
        if type(qty) in _QUANTITY_TYPES:
            problem = _quantity_problem(qty, _integer_resource(name))
            if problem is None:
                continue
        else:
            problem = None
        _raise_quantity(qty, f"{path}.{key}[{name}]", problem)


def resource_list(parent: JSONObject, key: str, path: str) -> dict[str, Any]:
    value = obj(parent, key, path, "v1.ResourceList")
    return value or {}


def check_node_resources(status: JSONObject) -> None:
    """ValidateNodeResources: capacity and allocatable quantities (paths: status.capacity.<name>)."""
    for key in ("capacity", "allocatable"):
        for name, qty in resource_list(status, key, f"status.{key}").items():
            if type(qty) in _QUANTITY_TYPES and _quantity_problem(qty, _integer_resource(name)) is None:
                continue
            check_quantity(qty, f"status.{key}.{name}", _integer_resource(name))


_GOOD_CONTAINER_RESOURCES: set[str] = set()
_GOOD_POD_RESOURCES: set[str] = set()


def check_container_resource_name(name: str, path: str) -> None:
    """validateContainerResourceName."""
    if name in _GOOD_CONTAINER_RESOURCES:
        return
    errs = label_key_errors(name)
    if errs:
        raise fail(field.invalid(path, name, errs[0]))
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            raise fail(field.invalid(path, name, "must be a standard resource for containers"))
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        raise fail(field.invalid(path, name, "doesn't follow extended resource name standard"))
    if len(_GOOD_CONTAINER_RESOURCES) < 4096:
        _GOOD_CONTAINER_RESOURCES.add(name)


def check_pod_resource_name(name: str, path: str) -> None:
    """validatePodResourceName: pod-level resources are cpu, memory and huge pages."""
    if name in _GOOD_POD_RESOURCES:
        return
    errs = label_key_errors(name)
    if errs:
        raise fail(field.invalid(path, name, errs[0]))
    if name not in ("cpu", "memory") and not name.startswith("hugepages-"):
        raise fail(field.not_supported(path, name, ("cpu", "hugepages-", "memory")))
    if len(_GOOD_POD_RESOURCES) < 4096:
        _GOOD_POD_RESOURCES.add(name)


@lru_cache(maxsize=4096)
def _integer_resource(name: str) -> bool:
    return is_integer_resource(name)


_GOOD_NAMES = {check_container_resource_name: _GOOD_CONTAINER_RESOURCES, check_pod_resource_name: _GOOD_POD_RESOURCES}


def check_resource_requirements(resources: JSONObject, path: str, pod_level: bool = False) -> None:
    """validateResourceRequirements: names, quantities, requests <= limits (== for resources
    that cannot be overcommitted), and a limit for every non-overcommitable request."""
    name_check = check_pod_resource_name if pod_level else check_container_resource_name
    limits = resource_list(resources, "limits", f"{path}.limits") if "limits" in resources else {}
    requests = resource_list(resources, "requests", f"{path}.requests") if "requests" in resources else {}
    if limits:
        _check_quantities(limits, path, "limits", name_check)
    if requests:
        _check_quantities(requests, path, "requests", name_check)
    for name, qty in requests.items():
        if name in limits:
            request, limit = parse_quantity(qty), parse_quantity(limits[name])
            shown = qty if isinstance(qty, str) else canonical(request)
            limit_text = limits[name] if isinstance(limits[name], str) else canonical(limit)
            if request != limit and not is_overcommit_allowed(name):
                raise fail(field.invalid(f"{path}.requests", shown, f"must be equal to {name} limit of {limit_text}"))
            if request > limit:
                raise fail(field.invalid(f"{path}.requests", shown, f"must be less than or equal to {name} limit of {limit_text}"))
        elif not is_overcommit_allowed(name):
            raise fail(field.required(f"{path}.limits", "Limit must be set for non overcommitable resources"))


# --- taints and tolerations -----------------------------------------------------------------------


def check_taints(spec: JSONObject) -> None:
    """validateNodeTaints. Upstream names the path metadata.taints[i] (ValidateNode passes the
    metadata path); kschedctl names the field where it is, spec.taints[i]."""
    taints = lst(spec, "taints", "spec.taints", "[]v1.Taint")
    seen: set[tuple[str, str]] = set()
    for i, _, taint in items(taints, "spec.taints"):
        path = f"spec.taints[{i}]"
        key = string(taint, "key", f"{path}.key")
        check_label_key(key, f"{path}.key")
        value = string(taint, "value", f"{path}.value")
        errs = label_value_errors(value)
        if errs:
            raise fail(field.invalid(f"{path}.value", value, ";".join(errs)))
        effect = string(taint, "effect", f"{path}.effect")
        if not effect:
            raise fail(field.required(f"{path}.effect"))
        check_enum(effect, f"{path}.effect", TAINT_EFFECTS)
        string(taint, "timeAdded", f"{path}.timeAdded")
        if (key, effect) in seen:
            raise fail(
                field.duplicate(path, {"key": key, "value": value, "effect": effect}, "taints must be unique by key and effect pair")
            )
        seen.add((key, effect))


def check_tolerations(spec: JSONObject) -> None:
    """ValidateTolerations (the comparison operators Lt/Gt are behind a feature gate that is
    off by default, so they are refused as the default API server refuses them)."""
    tolerations = lst(spec, "tolerations", "spec.tolerations", "[]v1.Toleration")
    for _i, path, tol in items(tolerations, "spec.tolerations"):
        key = string(tol, "key", f"{path}.key")
        operator = string(tol, "operator", f"{path}.operator")
        value = string(tol, "value", f"{path}.value")
        effect = string(tol, "effect", f"{path}.effect")
        seconds = integer(tol, "tolerationSeconds", f"{path}.tolerationSeconds", INT64)
        if key:
            check_label_key(key, f"{path}.key")
        if not key and operator != "Exists":
            raise fail(
                field.invalid(
                    f"{path}.operator", operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'
                )
            )
        if seconds is not None and effect != "NoExecute":
            raise fail(field.invalid(f"{path}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if operator in ("Equal", ""):
            errs = label_value_errors(value)
            if errs:
                raise fail(field.invalid(f"{path}.operator", value, ";".join(errs)))
        elif operator == "Exists":
            if value:
                raise fail(field.invalid(f"{path}.operator", value, "value must be empty when `operator` is 'Exists'"))
        else:
            raise fail(field.not_supported(f"{path}.operator", operator, TOLERATION_OPERATORS))
        if effect:
            check_enum(effect, f"{path}.effect", TAINT_EFFECTS)


# --- Node, Namespace --------------------------------------------------------------------------------


def admit_node(raw: JSONObject) -> None:
    """ValidateNode for what the scheduler reads: name, labels, taints, resources, images."""
    check_meta(raw, namespaced=False)
    spec = obj(raw, "spec", "spec", "v1.NodeSpec") or {}
    check_taints(spec)
    boolean(spec, "unschedulable", "spec.unschedulable")
    status = obj(raw, "status", "status", "v1.NodeStatus") or {}
    check_node_resources(status)
    if "conditions" in status:
        condition_times(
            lst(status, "conditions", "status.conditions", "[]v1.NodeCondition"),
            "status.conditions",
            ("lastHeartbeatTime", "lastTransitionTime"),
        )
    images = lst(status, "images", "status.images", "[]v1.ContainerImage")
    for _, path, image in items(images, "status.images"):
        strings(lst(image, "names", f"{path}.names", "[]string"), f"{path}.names")
        integer(image, "sizeBytes", f"{path}.sizeBytes", INT64)


def admit_namespace(raw: JSONObject) -> None:
    check_meta(raw, namespaced=False, name_check=check_dns_label)
