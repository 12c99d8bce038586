"""apimachinery's name validation and the resource-name helpers built on it.

Upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go (IsQualifiedName,
RegexError) and pkg/apis/core/v1/helper/helpers.go (IsExtendedResourceName, IsNativeResource).
Config validation and the plugins' args validation word their errors with these.
"""

from __future__ import annotations

import re
from functools import lru_cache

QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_ERR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
QUALIFIED_NAME_MAX_LENGTH = 63
_QUALIFIED_NAME_RE = re.compile(QUALIFIED_NAME_FMT)  # fullmatch: Go's $ does not match before a final newline
_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL + "(\\." + _DNS1123_LABEL + ")*"
DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
_DNS1123_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT)

RESOURCE_DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
DEFAULT_RESOURCE_REQUESTS_PREFIX = "requests."


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """validation.RegexError: "<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')"."""
    if examples:
        msg += " (e.g. " + ",  or ".join(f"'{e}'" for e in examples) + ", "
    else:
        msg += " ("
    return msg + f"regex used for validation is '{fmt}')"


def qualified_name_errors(value: str) -> list[str]:
    """validation.IsQualifiedName: [prefix/]name, prefix a DNS subdomain, name up to 63 characters."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            if len(prefix) > DNS1123_SUBDOMAIN_MAX_LENGTH:
                errs.append(f"prefix part must be no more than {DNS1123_SUBDOMAIN_MAX_LENGTH} characters")
            if not _DNS1123_SUBDOMAIN_RE.fullmatch(prefix):
                errs.append("prefix part " + regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
    else:
        return [
            regex_error("a qualified name " + QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append(f"name part must be no more than {QUALIFIED_NAME_MAX_LENGTH} characters")
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        errs.append("name part " + regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


def is_native_resource(name: str) -> bool:
    """v1helper.IsNativeResource: no domain, or in the kubernetes.io namespace."""
    return "/" not in name or RESOURCE_DEFAULT_NAMESPACE_PREFIX in name


def is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName: not native, and a valid quota name once "requests." is prefixed."""
    if is_native_resource(name) or name.startswith(DEFAULT_RESOURCE_REQUESTS_PREFIX):
        return False
    return not qualified_name_errors(DEFAULT_RESOURCE_REQUESTS_PREFIX + name)


# --- the object validation rules of kube-apiserver (admission) ---------------------------------
# Upstream (1.35): staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go (names: lengths
# in "characters") and staging/src/k8s.io/apimachinery/pkg/api/validate/content/{kube,dns}.go
# (label keys and values: lengths in "bytes", "a valid label key"). Results are cached: a snapshot
# repeats the same label keys, values and names many thousand times.

_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL)
DNS1123_LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character"
)
DNS1123_LABEL_MAX_LENGTH = 63
LABEL_VALUE_FMT = f"({QUALIFIED_NAME_FMT})?"
LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
LABEL_VALUE_MAX_LENGTH = 63
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_FMT)


def _byte_len(value: str) -> int:
    return len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))


@lru_cache(maxsize=65536)
def dns1123_subdomain_errors(value: str) -> tuple[str, ...]:
    """validation.IsDNS1123Subdomain (object names: Pod, Node, PriorityClass, PV, ...)."""
    errs = []
    if _byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(f"must be no more than {DNS1123_SUBDOMAIN_MAX_LENGTH} characters")
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return tuple(errs)


@lru_cache(maxsize=65536)
def dns1123_label_errors(value: str) -> tuple[str, ...]:
    """validation.IsDNS1123Label (Namespace names, volume and claim names)."""
    errs = []
    if _byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(f"must be no more than {DNS1123_LABEL_MAX_LENGTH} characters")
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(DNS1123_LABEL_ERR, _DNS1123_LABEL, "my-name", "123-abc"))
    return tuple(errs)


@lru_cache(maxsize=65536)
def label_key_errors(value: str) -> tuple[str, ...]:
    """content.IsLabelKey (1.35): label keys, taint and toleration keys, topology keys."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            sub = []
            if _byte_len(prefix) > DNS1123_SUBDOMAIN_MAX_LENGTH:
                sub.append(f"must be no more than {DNS1123_SUBDOMAIN_MAX_LENGTH} bytes")
            if not _DNS1123_SUBDOMAIN_RE.fullmatch(prefix):
                sub.append(regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
            errs.extend("prefix part " + e for e in sub)
    else:
        return (
            "a valid label key "
            + regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        )
    if not name:
        errs.append("name part must be non-empty")
    elif _byte_len(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append(f"name part must be no more than {QUALIFIED_NAME_MAX_LENGTH} bytes")
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        errs.append("name part " + regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"))
    return tuple(errs)


@lru_cache(maxsize=65536)
def label_value_errors(value: str) -> tuple[str, ...]:
    """content.IsLabelValue: empty, or up to 63 bytes of [A-Za-z0-9-_.] starting and ending alphanumeric."""
    errs = []
    if _byte_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(f"must be no more than {LABEL_VALUE_MAX_LENGTH} bytes")
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return tuple(errs)


def port_num_errors(port: int) -> tuple[str, ...]:
    """validation.IsValidPortNum: 1-65535."""
    return () if 1 <= port <= 65535 else ("must be between 1 and 65535, inclusive",)
