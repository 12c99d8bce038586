"""DRA objects as the API server admits and serves them: version conversion and validation.

kube-scheduler's informers watch resource.k8s.io/v1 only; the API server converts objects stored
in older versions when it serves them. A snapshot may still hold objects written in v1beta2 or
v1beta1 (hand-written files, old exports). kschedctl reads them as the API server would serve
them in v1: v1beta2 has the v1 shape (only apiVersion changes); v1beta1 nests a device's fields
under ``basic`` and puts a request's fields directly on the request, which become ``exactly``
(pkg/apis/resource/v1beta1 conversion). Any other version (v1alpha3, ...) is refused.

Validation follows pkg/apis/resource/validation for the fields the scheduler reads: names
(DNS subdomains for objects, DNS labels for requests and devices), the one-of rules of requests
and slices, counts and list limits. The first problem is reported as an ObjectError with its
field path, in field.Error's words.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from kschedctl.api.content_memo import by_content
from kschedctl.api.errors import ObjectError
from kschedctl.api.jsontypes import JSONList, JSONObject

GROUP = "resource.k8s.io"
SERVED_VERSION = f"{GROUP}/v1"
CONVERTED_VERSIONS = (f"{GROUP}/v1beta2", f"{GROUP}/v1beta1")
DRA_KINDS = ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate")

# Limits of staging/src/k8s.io/api/resource/v1/types.go.
DEVICE_REQUESTS_MAX_SIZE = 32  # DeviceRequestsMaxSize
DEVICE_CONSTRAINTS_MAX_SIZE = 32
DEVICE_SELECTORS_MAX_SIZE = 32
FIRST_AVAILABLE_MAX_SIZE = 8  # FirstAvailableDeviceRequestMaxSize
RESOURCE_SLICE_MAX_DEVICES = 128
ALLOCATION_MODES = ("All", "ExactCount")

# Go's $ is the end of the text; Python's also matches before a final newline: \Z
_DNS1123_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_DNS1123_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


# --- conversion ----------------------------------------------------------------------------------


def served_as_v1(raw: JSONObject) -> tuple[JSONObject, str | None]:
    """The object as the API server serves it in resource.k8s.io/v1, and the version it was
    converted from (None when it already was v1). Refuses versions that cannot be read."""
    api_version = raw.get("apiVersion")
    if api_version in (None, "", SERVED_VERSION):
        return raw, None
    if api_version not in CONVERTED_VERSIONS:
        raise ObjectError(
            f'Unsupported value: "{api_version}": kschedctl reads {SERVED_VERSION} '
            f"(and converts {', '.join(CONVERTED_VERSIONS)}) as kube-scheduler's informers see it",
            "apiVersion",
        )
    out = copy.deepcopy(raw)
    out["apiVersion"] = SERVED_VERSION
    if api_version.endswith("/v1beta1"):
        _v1beta1_to_v1(out)
    return out, str(api_version)


def _v1beta1_to_v1(raw: JSONObject) -> None:
    kind = raw.get("kind")
    spec = raw.get("spec")
    if not isinstance(spec, dict):
        return
    if kind == "ResourceSlice":
        for device in spec.get("devices") or []:
            if isinstance(device, dict) and isinstance(device.get("basic"), dict):
                basic = device.pop("basic")
                device.update(basic)
    elif kind == "ResourceClaim":
        _claim_spec_v1beta1_to_v1(spec)
    elif kind == "ResourceClaimTemplate":
        inner = spec.get("spec")
        if isinstance(inner, dict):
            _claim_spec_v1beta1_to_v1(inner)


_EXACT_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations", "capacity")


def _claim_spec_v1beta1_to_v1(spec: JSONObject) -> None:
    """v1beta1 DeviceRequest carries the exact request's fields itself; v1 moves them into
    ``exactly`` unless the request lists ``firstAvailable`` subrequests."""
    devices = spec.get("devices")
    if not isinstance(devices, dict):
        return
    for request in devices.get("requests") or []:
        if not isinstance(request, dict) or "exactly" in request:
            continue
        exact = {k: request.pop(k) for k in _EXACT_FIELDS if k in request}
        if not request.get("firstAvailable"):
            request["exactly"] = exact


# --- validation ----------------------------------------------------------------------------------


def _required(path: str, detail: str = "") -> ObjectError:
    return ObjectError("Required value" + (f": {detail}" if detail else ""), path)


def _invalid(path: str, value: Any, detail: str) -> ObjectError:
    shown = (
        f'"{value}"'
        if isinstance(value, str)
        else ("null" if value is None else str(value).lower() if isinstance(value, bool) else str(value))
    )
    return ObjectError(f"Invalid value: {shown}: {detail}", path)


def _dns_label(value: Any, path: str) -> None:
    if not isinstance(value, str) or not value:
        raise _required(path)
    if len(value) > 63:
        raise _invalid(path, value, "must be no more than 63 characters")
    if not _DNS1123_LABEL_RE.match(value):
        raise _invalid(path, value, _LABEL_MSG)


def _dns_subdomain(value: Any, path: str) -> None:
    if not isinstance(value, str) or not value:
        raise _required(path)
    if len(value) > 253:
        raise _invalid(path, value, "must be no more than 253 characters")
    if not _DNS1123_SUBDOMAIN_RE.match(value):
        raise _invalid(path, value, _SUBDOMAIN_MSG)


def _list_of(raw: Any, path: str, limit: int | None = None) -> JSONList:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ObjectError("expected a list", path)
    if limit is not None and len(raw) > limit:
        raise ObjectError(f"Too many: {len(raw)}: must have at most {limit} items", path)
    return raw


def _map(raw: Any, path: str) -> JSONObject:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ObjectError("expected an object", path)
    return raw


def validate_dra_object(raw: JSONObject) -> None:
    """The first admission error of a DRA object (kind in DRA_KINDS), as an ObjectError."""
    md = _map(raw.get("metadata"), "metadata")
    _dns_subdomain(md.get("name"), "metadata.name")
    kind = raw.get("kind")
    spec = _map(raw.get("spec"), "spec")
    if kind == "DeviceClass":
        _selectors(spec.get("selectors"), "spec.selectors")
    elif kind == "ResourceSlice":
        _slice_spec(spec)
    elif kind == "ResourceClaim":
        by_content(_CLAIM_SPECS_ADMITTED, _claim_spec, spec, "spec")
    elif kind == "ResourceClaimTemplate":
        by_content(_CLAIM_SPECS_ADMITTED, _claim_spec, _map(spec.get("spec"), "spec.spec"), "spec.spec")


# The claim specs that passed _claim_spec, by content (content_memo.py): the claims of one
# template share their spec, and its check depends on nothing else.
_CLAIM_SPECS_ADMITTED: dict[Any, None] = {}
# What places a device itself, rather than its slice, and an attribute's value forms: in the
# order the checks name them.
_DEVICE_PLACEMENT = ("nodeName", "nodeSelector", "allNodes")
_ATTRIBUTE_FORMS = ("int", "bool", "string", "version")


def _selectors(raw: Any, path: str) -> None:
    for i, sel in enumerate(_list_of(raw, path, DEVICE_SELECTORS_MAX_SIZE)):
        sel = _map(sel, f"{path}[{i}]")
        cel = sel.get("cel")
        if cel is None:
            raise _required(f"{path}[{i}].cel")
        expr = _map(cel, f"{path}[{i}].cel").get("expression")
        if not isinstance(expr, str) or not expr.strip():
            raise _required(f"{path}[{i}].cel.expression")


def _slice_spec(spec: JSONObject) -> None:
    driver = spec.get("driver")
    _dns_subdomain(driver, "spec.driver")
    pool = _map(spec.get("pool"), "spec.pool")
    if not pool.get("name"):
        raise _required("spec.pool.name")
    count = pool.get("resourceSliceCount")
    if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
        raise _invalid("spec.pool.resourceSliceCount", count, "must be greater than zero")
    generation = pool.get("generation", 0)
    if isinstance(generation, bool) or not isinstance(generation, int) or generation < 0:
        raise _invalid("spec.pool.generation", generation, "must be greater than or equal to 0")
    devices = _list_of(spec.get("devices"), "spec.devices", RESOURCE_SLICE_MAX_DEVICES)
    chosen = [f for f in ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection") if spec.get(f) not in (None, "", False)]
    if len(chosen) > 1:
        raise _invalid(
            "spec",
            "{" + ", ".join(chosen) + "}",
            "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set",
        )
    if not chosen and devices:
        raise _required("spec", "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required")
    seen: set[str] = set()
    per_device_selection = spec.get("perDeviceNodeSelection") is True
    for i, device in enumerate(devices):
        if not per_device_selection and _plain_device_ok(device) and device["name"] not in seen:
            seen.add(device["name"])
            continue
        device = _map(device, f"spec.devices[{i}]")
        name = device.get("name")
        _dns_label(name, f"spec.devices[{i}].name")
        if name in seen:
            raise ObjectError(f'Duplicate value: "{name}"', f"spec.devices[{i}].name")
        seen.add(str(name))
        per_device = [f for f in _DEVICE_PLACEMENT if device.get(f) not in (None, "", False)]
        if per_device_selection:
            if len(per_device) != 1:
                raise _required(
                    f"spec.devices[{i}]",
                    "exactly one of `nodeName`, `nodeSelector`, `allNodes` is "
                    "required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec",
                )
        elif per_device:
            raise _invalid(
                f"spec.devices[{i}].{per_device[0]}",
                device.get(per_device[0]),
                "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` "
                "is set to true in the ResourceSlice spec",
            )
        for key, attr in _map(device.get("attributes"), f"spec.devices[{i}].attributes").items():
            attr = _map(attr, f"spec.devices[{i}].attributes[{key}]")
            set_values = [k for k in _ATTRIBUTE_FORMS if attr.get(k) is not None]
            if len(set_values) != 1:
                raise _required(f"spec.devices[{i}].attributes[{key}]", "exactly one value must be specified")


def _plain_device_ok(device: Any) -> bool:
    """Whether a device of a slice without perDeviceNodeSelection passes _slice_spec's checks
    at a glance (a name that is a DNS label, no placement of its own, attributes of one value
    each), a hundred devices per slice; False sends it through them, to word what is wrong."""
    if type(device) is not dict or not device.keys().isdisjoint(_DEVICE_PLACEMENT):
        return False
    name = device.get("name")
    if type(name) is not str or not 0 < len(name) <= 63 or not _DNS1123_LABEL_RE.match(name):
        return False
    attributes = device.get("attributes")
    if attributes is None:
        return True
    if type(attributes) is not dict:
        return False
    for attr in attributes.values():
        if type(attr) is not dict or len(attr) != 1:
            return False
        for form, value in attr.items():
            if value is None or form not in _ATTRIBUTE_FORMS:
                return False
    return True


def _claim_spec(spec: JSONObject, path: str) -> None:
    devices = _map(spec.get("devices"), f"{path}.devices")
    names: set[str] = set()
    for i, request in enumerate(_list_of(devices.get("requests"), f"{path}.devices.requests", DEVICE_REQUESTS_MAX_SIZE)):
        rpath = f"{path}.devices.requests[{i}]"
        request = _map(request, rpath)
        name = request.get("name")
        _dns_label(name, f"{rpath}.name")
        if name in names:
            raise ObjectError(f'Duplicate value: "{name}"', f"{rpath}.name")
        names.add(str(name))
        exactly, first = request.get("exactly"), request.get("firstAvailable")
        if exactly is not None and first:
            raise _invalid(rpath, None, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set")
        if exactly is None and not first:
            raise _required(rpath, "exactly one of `exactly` or `firstAvailable` is required")
        if exactly is not None:
            _exact_request(_map(exactly, f"{rpath}.exactly"), f"{rpath}.exactly")
        subs: set[str] = set()
        for j, sub in enumerate(_list_of(first, f"{rpath}.firstAvailable", FIRST_AVAILABLE_MAX_SIZE)):
            spath = f"{rpath}.firstAvailable[{j}]"
            sub = _map(sub, spath)
            _dns_label(sub.get("name"), f"{spath}.name")
            if sub.get("name") in subs:
                raise ObjectError(f'Duplicate value: "{sub.get("name")}"', f"{spath}.name")
            subs.add(sub["name"])
            if sub.get("adminAccess") is not None:
                raise ObjectError("Forbidden: adminAccess is not allowed in subrequests", f"{spath}.adminAccess")
            _exact_request(sub, spath)
    for i, constraint in enumerate(_list_of(devices.get("constraints"), f"{path}.devices.constraints", DEVICE_CONSTRAINTS_MAX_SIZE)):
        cpath = f"{path}.devices.constraints[{i}]"
        constraint = _map(constraint, cpath)
        for j, ref in enumerate(_list_of(constraint.get("requests"), f"{cpath}.requests")):
            if str(ref).split("/")[0] not in names:
                raise _invalid(
                    f"{cpath}.requests[{j}]",
                    str(ref),
                    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'",
                )
        kinds = [k for k in ("matchAttribute", "distinctAttribute") if constraint.get(k)]
        if len(kinds) != 1:
            raise _required(cpath, "exactly one of `matchAttribute` or `distinctAttribute` is required")


def _exact_request(request: JSONObject, path: str) -> None:
    name = request.get("deviceClassName")
    if not name:
        raise _required(f"{path}.deviceClassName")
    _dns_subdomain(name, f"{path}.deviceClassName")
    _selectors(request.get("selectors"), f"{path}.selectors")
    mode = request.get("allocationMode") or "ExactCount"
    count = request.get("count")
    if mode not in ALLOCATION_MODES:
        raise ObjectError(f'Unsupported value: "{mode}": supported values: "All", "ExactCount"', f"{path}.allocationMode")
    if mode == "All" and count not in (None, 0):
        raise _invalid(f"{path}.count", count, "must not be specified when allocationMode is 'All'")
    if mode == "ExactCount" and count is not None and (isinstance(count, bool) or not isinstance(count, int) or count <= 0):
        raise _invalid(f"{path}.count", count, "must be greater than zero")


__all__ = ["CONVERTED_VERSIONS", "DRA_KINDS", "SERVED_VERSION", "served_as_v1", "validate_dra_object"]
