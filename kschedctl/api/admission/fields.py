"""Typed field access (the API server's strict JSON decoding) and the ObjectMeta/selector rules.

A raw object is JSON-shaped data (kschedctl.api.decoding guarantees that). Reading a field
checks its type as Go's json decoding into the v1 type would: ``null`` is the same as absent,
a string where an integer is wanted is an error, an integer must fit its int32/int64 field.
The first problem raises ``Invalid`` carrying a field.Error; messages follow
k8s.io/apimachinery (validation.go, objectmeta.go, meta/v1/validation) and
pkg/apis/core/validation/validation.go, with kube's field paths.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from kschedctl.api import field
from kschedctl.api.field import FieldError
from kschedctl.api.gotime import TimeParseError, parse_rfc3339
from kschedctl.api.jsontypes import JSONList, JSONObject
from kschedctl.api.validation import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_key_errors,
    label_value_errors,
)

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)
IS_NEGATIVE = "must be greater than or equal to 0"
NOT_POSITIVE = "must be greater than zero"

_SUBDOMAIN_OK = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*").fullmatch
_LABEL_OK = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?").fullmatch


class Invalid(Exception):
    """The first validation error of an object."""

    def __init__(self, error: FieldError) -> None:
        super().__init__(str(error))
        self.error = error


def fail(error: FieldError) -> Invalid:
    return Invalid(error)


# --- strict decoding ----------------------------------------------------------------------------

_JSON_KIND = {str: "string", bool: "bool", int: "number", float: "number", list: "array", dict: "object"}


def type_error(path: str, value: Any, go_type: str) -> Invalid:
    """encoding/json's UnmarshalTypeError, worded as kube-apiserver reports it."""
    kind = _JSON_KIND.get(type(value), type(value).__name__)
    if kind == "number":
        kind = f"number {field.render_value(value)}"
    return Invalid(FieldError(path, f"cannot unmarshal {kind} into Go value of type {go_type}"))


def obj(parent: JSONObject, key: str, path: str, go_type: str = "object") -> JSONObject | None:
    value = parent.get(key)
    if value is None or type(value) is dict:
        return value
    raise type_error(path, value, go_type)


def lst(parent: JSONObject, key: str, path: str, go_type: str = "array") -> JSONList | None:
    value = parent.get(key)
    if value is None or type(value) is list:
        return value
    raise type_error(path, value, go_type)


def string(parent: JSONObject, key: str, path: str) -> str:
    """A string field; absent or null reads as "" (Go's zero value)."""
    value = parent.get(key)
    if type(value) is str:
        return value
    if value is None:
        return ""
    raise type_error(path, value, "string")


def opt_string(parent: JSONObject, key: str, path: str) -> str | None:
    value = parent.get(key)
    if value is None or type(value) is str:
        return value
    raise type_error(path, value, "string")


def boolean(parent: JSONObject, key: str, path: str) -> bool:
    value = parent.get(key)
    if value is None:
        return False
    if type(value) is bool:
        return value
    raise type_error(path, value, "bool")


def integer(parent: JSONObject, key: str, path: str, bounds: tuple[int, int] = INT32) -> int | None:
    """An int32 (default) or int64 field; a float with a fraction or out of range is refused as
    Go's decoder refuses it."""
    value = parent.get(key)
    if value is None:
        return None
    if type(value) is int:
        if bounds[0] <= value <= bounds[1]:
            return value
    elif type(value) is float and value.is_integer() and bounds[0] <= value <= bounds[1]:
        return int(value)
    raise type_error(path, value, "int32" if bounds == INT32 else "int64")


def timestamp(parent: JSONObject, key: str, path: str) -> str | None:
    """A metav1.Time field: null or an RFC 3339 text that metav1.Time.UnmarshalJSON accepts
    (time.Parse(time.RFC3339, s): offsets honoured, fractions accepted, ranges checked); its
    refusal is time.Parse's message, as kube-apiserver answers it."""
    value = parent.get(key)
    if value is None:
        return None
    if type(value) is not str:
        raise type_error(path, value, "string")
    try:
        parse_rfc3339(value)
    except TimeParseError as exc:
        raise Invalid(FieldError(path, str(exc))) from None
    return value


def condition_times(conditions: JSONList | None, path: str, keys: tuple[str, ...]) -> None:
    """The metav1.Time fields of a list of conditions (lastTransitionTime, lastProbeTime...)."""
    for _, cpath, cond in items(conditions, path):
        for key in keys:
            if key in cond:
                timestamp(cond, key, f"{cpath}.{key}")


def items(value: JSONList | None, path: str, go_type: str = "object") -> Iterable[tuple[int, str, JSONObject]]:
    """The elements of a list of objects, each checked to be an object."""
    for i, item in enumerate(value or ()):
        item_path = f"{path}[{i}]"
        if type(item) is not dict:
            raise type_error(item_path, item, go_type)
        yield i, item_path, item


def strings(value: JSONList | None, path: str) -> list[str]:
    for i, item in enumerate(value or ()):
        if type(item) is not str:
            raise type_error(f"{path}[{i}]", item, "string")
    return value or []


def string_map(parent: JSONObject, key: str, path: str) -> dict[str, str]:
    value = obj(parent, key, path, "map[string]string")
    if not value:
        return {}
    for _k, v in value.items():
        if type(v) is not str:
            if v is None:
                continue  # a null value decodes as ""
            raise type_error(path, v, "string")
    return value


# --- names, labels, annotations -----------------------------------------------------------------


def check_subdomain(value: str, path: str) -> None:
    if len(value) > 253 or not _SUBDOMAIN_OK(value):
        raise fail(field.invalid(path, value, dns1123_subdomain_errors(value)[0]))


def check_dns_label(value: str, path: str) -> None:
    if len(value) > 63 or not _LABEL_OK(value):
        raise fail(field.invalid(path, value, dns1123_label_errors(value)[0]))


def check_label_key(value: str, path: str) -> None:
    errs = label_key_errors(value)
    if errs:
        raise fail(field.invalid(path, value, errs[0]))


def check_label_value(value: str, path: str) -> None:
    errs = label_value_errors(value)
    if errs:
        raise fail(field.invalid(path, value, errs[0]))


def check_labels(labels: dict[str, str], path: str) -> None:
    """ValidateLabels: every key a qualified name, every value a label value (path: the map)."""
    for k, v in labels.items():
        check_label_key(k, path)
        check_label_value(v or "", path)


def check_annotations(annotations: dict[str, str], path: str) -> None:
    """ValidateAnnotations: keys are qualified names (lower-cased first), total size <= 256 KiB."""
    total = 0
    for k, v in annotations.items():
        errs = label_key_errors(k.lower())
        if errs:
            raise fail(field.invalid(path, k, errs[0]))
        total += len(k) + len(v or "")
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        raise fail(field.too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))


NameCheck = Callable[[str, str], None]


def check_meta(raw: JSONObject, namespaced: bool, name_check: NameCheck = check_subdomain) -> JSONObject:
    """ValidateObjectMeta for the fields kschedctl reads; returns the metadata object."""
    md = raw.get("metadata")
    if type(md) is not dict:
        if md is not None:
            raise type_error("metadata", md, "v1.ObjectMeta")
        raise fail(field.required("metadata.name", "name or generateName is required"))
    name = md.get("name")
    if type(name) is not str or not name:
        string(md, "name", "metadata.name")
        raise fail(field.required("metadata.name", "name or generateName is required"))
    name_check(name, "metadata.name")
    for key in md:
        check = _META_CHECKS.get(key)
        if check is not None:
            check(md, namespaced)
    return md


_GOOD_NAMESPACES: set[str] = set()


def _meta_namespace(md: JSONObject, namespaced: bool) -> None:
    namespace = md["namespace"]
    if namespaced and type(namespace) is str and namespace in _GOOD_NAMESPACES:
        return
    namespace = string(md, "namespace", "metadata.namespace")
    if namespaced:
        if namespace:  # the API server fills an absent namespace from the request
            check_dns_label(namespace, "metadata.namespace")
            if len(_GOOD_NAMESPACES) < 65536:
                _GOOD_NAMESPACES.add(namespace)
    elif namespace:
        raise fail(field.forbidden("metadata.namespace", "not allowed on this type"))


def _meta_string(key: str) -> Callable[[JSONObject, bool], None]:
    def check(md: JSONObject, namespaced: bool) -> None:
        if type(md[key]) is not str:
            string(md, key, f"metadata.{key}")

    return check


def _meta_time(key: str) -> Callable[[JSONObject, bool], None]:
    def check(md: JSONObject, namespaced: bool) -> None:
        timestamp(md, key, f"metadata.{key}")

    return check


def _meta_managed_fields(md: JSONObject, namespaced: bool) -> None:
    """managedFields[].time is a metav1.Time too (kubectl get -o yaml --show-managed-fields)."""
    entries = lst(md, "managedFields", "metadata.managedFields", "[]v1.ManagedFieldsEntry")
    for _, path, entry in items(entries, "metadata.managedFields"):
        if "time" in entry:
            timestamp(entry, "time", f"{path}.time")


def _meta_labels(md: JSONObject, namespaced: bool) -> None:
    check_labels(string_map(md, "labels", "metadata.labels"), "metadata.labels")


def _meta_annotations(md: JSONObject, namespaced: bool) -> None:
    check_annotations(string_map(md, "annotations", "metadata.annotations"), "metadata.annotations")


def _meta_owner_references(md: JSONObject, namespaced: bool) -> None:
    """ValidateOwnerReferences (objectmeta.go; its paths carry no index, as upstream's do)."""
    refs = lst(md, "ownerReferences", "metadata.ownerReferences", "[]v1.OwnerReference")
    base = "metadata.ownerReferences"
    controller = ""
    for _i, path, ref in items(refs, base):
        api_version, kind, name, uid = (string(ref, key, f"{path}.{key}") for key in ("apiVersion", "kind", "name", "uid"))
        if not api_version.rpartition("/")[2]:
            raise fail(field.invalid(f"{base}.apiVersion", api_version, "version must not be empty"))
        for key, value in (("kind", kind), ("name", name), ("uid", uid)):
            if not value:
                raise fail(field.invalid(f"{base}.{key}", value, "must not be empty"))
        if boolean(ref, "controller", f"{path}.controller"):
            if controller:
                raise fail(
                    field.invalid(
                        base,
                        refs,
                        "Only one reference can have Controller set to true. Found "
                        f'"true" in references for {controller} and {kind}/{name}',
                    )
                )
            controller = f"{kind}/{name}"


_META_CHECKS: dict[str, Callable[[JSONObject, bool], None]] = {
    "namespace": _meta_namespace,
    "uid": _meta_string("uid"),
    "creationTimestamp": _meta_time("creationTimestamp"),
    "deletionTimestamp": _meta_time("deletionTimestamp"),
    "managedFields": _meta_managed_fields,
    "labels": _meta_labels,
    "annotations": _meta_annotations,
    "ownerReferences": _meta_owner_references,
}


# --- selectors ------------------------------------------------------------------------------------

LABEL_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist")
NODE_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def check_label_selector(parent: JSONObject, key: str, path: str, allow_invalid_values: bool = False) -> JSONObject | None:
    """metav1 ValidateLabelSelector."""
    selector = obj(parent, key, path, "v1.LabelSelector")
    if selector is None:
        return None
    check_labels(string_map(selector, "matchLabels", f"{path}.matchLabels"), f"{path}.matchLabels")
    exprs = lst(selector, "matchExpressions", f"{path}.matchExpressions", "[]v1.LabelSelectorRequirement")
    for _, epath, expr in items(exprs, f"{path}.matchExpressions"):
        _check_requirement(expr, epath, allow_invalid_values, numeric_ops=False)
    return selector


def _check_requirement(req: JSONObject, epath: str, allow_invalid_values: bool, numeric_ops: bool) -> None:
    """A label requirement: ValidateLabelSelectorRequirement, or with Gt/Lt (numeric_ops)
    validateNodeSelectorRequirement; the same messages for the operators both know."""
    op = string(req, "operator", f"{epath}.operator")
    values = strings(lst(req, "values", f"{epath}.values", "[]string"), f"{epath}.values")
    if op in ("In", "NotIn"):
        if not values:
            raise fail(field.required(f"{epath}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            raise fail(field.forbidden(f"{epath}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif numeric_ops and op in ("Gt", "Lt"):
        if len(values) != 1:
            raise fail(field.required(f"{epath}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        raise fail(field.invalid(f"{epath}.operator", op, "not a valid selector operator"))
    check_label_key(string(req, "key", f"{epath}.key"), f"{epath}.key")
    if not allow_invalid_values:
        for i, v in enumerate(values):
            check_label_value(v, f"{epath}.values[{i}]")


def check_node_selector_term(term: JSONObject, path: str, allow_invalid_values: bool) -> None:
    """ValidateNodeSelectorTerm: matchExpressions on labels, matchFields on metadata.name."""
    exprs = lst(term, "matchExpressions", f"{path}.matchExpressions", "[]v1.NodeSelectorRequirement")
    for _, epath, req in items(exprs, f"{path}.matchExpressions"):
        _check_requirement(req, epath, allow_invalid_values, numeric_ops=True)
    fields = lst(term, "matchFields", f"{path}.matchFields", "[]v1.NodeSelectorRequirement")
    for _, fpath, req in items(fields, f"{path}.matchFields"):
        op = string(req, "operator", f"{fpath}.operator")
        values = strings(lst(req, "values", f"{fpath}.values", "[]string"), f"{fpath}.values")
        if op in ("In", "NotIn"):
            if len(values) != 1:
                raise fail(
                    field.required(f"{fpath}.values", "must be only one value when `operator` is 'In' or 'NotIn' for node field selector")
                )
        else:
            raise fail(field.invalid(f"{fpath}.operator", op, "not a valid selector operator"))
        key = string(req, "key", f"{fpath}.key")
        if key != "metadata.name":
            raise fail(field.invalid(f"{fpath}.key", key, "not a valid field selector key"))
        for i, v in enumerate(values):
            check_subdomain(v, f"{fpath}.values[{i}]")


def check_node_selector(parent: JSONObject, key: str, path: str, allow_invalid_values: bool = False) -> None:
    """ValidateNodeSelector: at least one term, each term valid."""
    selector = obj(parent, key, path, "v1.NodeSelector")
    if selector is None:
        return
    terms = lst(selector, "nodeSelectorTerms", f"{path}.nodeSelectorTerms", "[]v1.NodeSelectorTerm")
    if not terms:
        raise fail(field.required(f"{path}.nodeSelectorTerms", "must have at least one node selector term"))
    for _, tpath, term in items(terms, f"{path}.nodeSelectorTerms"):
        check_node_selector_term(term, tpath, allow_invalid_values)


def check_enum(value: str, path: str, valid: tuple[str, ...], allow_empty: bool = True) -> None:
    if value in valid or (allow_empty and not value):
        return
    raise fail(field.not_supported(path, value, valid))
