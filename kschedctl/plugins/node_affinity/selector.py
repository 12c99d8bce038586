"""Node selectors as the scheduler reads them: nodeaffinity's LazyErrorNodeSelector,
PreferredSchedulingTerms and RequiredNodeAffinity, shared by NodeAffinity, its args, PodTopologySpread
and the DaemonSet reading.

Upstream: staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
(and the requirement parsing of apimachinery's labels.NewRequirement it calls).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from kschedctl.api.labels import (
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
)
from kschedctl.api.types import Node, Pod
from kschedctl.framework.gosemantics import FieldError, aggregate, invalid, not_supported

OBJECT_NAME_FIELD = "metadata.name"
REQUIRED_FIELD = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED_FIELD = "preferredDuringSchedulingIgnoredDuringExecution"

# --- parsing as labels.NewRequirement / nodeSelectorRequirementsAsFieldSelector validate ------

# Go's $ is the end of the text; Python's also matches before a final newline: \Z
_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z")
_VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\Z")
_DNS1123_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_NAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def _key_error(key: str) -> str | None:
    """validation.IsQualifiedName, reduced to one message."""
    parts = key.split("/")
    if len(parts) > 2:
        return "a qualified name " + _NAME_MSG.replace("name part ", "")
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix) > 253 or not _DNS1123_SUBDOMAIN_RE.match(prefix):
            return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _NAME_RE.match(name):
        return _NAME_MSG
    return None


def _is_int64(text: str) -> bool:
    """strconv.ParseInt(s, 10, 64) succeeds."""
    body = text[1:] if text[:1] in "+-" else text
    return bool(body) and body.isascii() and body.isdigit() and -(2**63) <= int(text) < 2**63


def _invalid(path: str, value: Any, detail: str) -> FieldError:
    """field.Invalid; an empty list of values is a nil slice in objects the API server stored."""
    if isinstance(value, (list, tuple)):
        value = list(value) or None
    return invalid(path, value, detail)


def _expression_errors(req: NodeSelectorRequirement, path: str) -> list[tuple[str, str]]:
    """labels.NewRequirement's checks, in its order (key, operator and values, each value)."""
    errs: list[tuple[str, str]] = []
    key_err = _key_error(req.key)
    if key_err:
        errs.append(_invalid(f"{path}.key", req.key, key_err))
    vals, op = req.values, req.operator
    if op in ("In", "NotIn"):
        if not vals:
            errs.append(_invalid(f"{path}.values", vals, "for 'in', 'notin' operators, values set can't be empty"))
    elif op in ("Exists", "DoesNotExist"):
        if vals:
            errs.append(_invalid(f"{path}.values", vals, "values set must be empty for exists and does not exist"))
    elif op in ("Gt", "Lt"):
        if len(vals) != 1:
            errs.append(_invalid(f"{path}.values", vals, "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, v in enumerate(vals):
            if not _is_int64(v):
                errs.append(_invalid(f"{path}.values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer"))
    else:
        return [not_supported(f"{path}.operator", op, ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"))]
    for i, v in enumerate(vals):
        if len(v) > 63:
            errs.append(_invalid(f"{path}.values[{i}][{req.key}]", v, "must be no more than 63 characters"))
        elif not _VALUE_RE.match(v):
            errs.append(_invalid(f"{path}.values[{i}][{req.key}]", v, _VALUE_MSG))
    return errs


def term_errors(term: NodeSelectorTerm, path: str = "") -> list[tuple[str, str]]:
    """newNodeSelectorTerm's parse errors, as (field path, field.Error body); ``path`` is the
    term's own (upstream: "[i]" for a preferred term, without "preference")."""
    errs: list[tuple[str, str]] = []
    for i, req in enumerate(term.match_expressions):
        errs += _expression_errors(req, f"{path}.matchExpressions[{i}]".lstrip("."))
    for i, req in enumerate(term.match_fields):
        where = f"{path}.matchFields[{i}]".lstrip(".")
        if req.operator not in ("In", "NotIn"):
            errs.append(not_supported(f"{where}.operator", req.operator, ("In", "NotIn")))
        elif len(req.values) != 1:
            errs.append(_invalid(f"{where}.values", req.values, "must have one element"))
    return errs


def term_matches(term: NodeSelectorTerm, node_name: str, labels: Mapping[str, str]) -> bool:
    """nodeSelectorTerm.match for a term that parsed; an empty term selects nothing."""
    if term.is_empty():
        return False
    if not all(req.matches(labels) for req in term.match_expressions):
        return False
    fields = {OBJECT_NAME_FIELD: node_name}
    for req in term.match_fields:  # a one-value In / NotIn field selector
        actual = fields.get(req.key, "")
        if (actual == req.values[0]) != (req.operator == "In"):
            return False
    return True


class LazyNodeSelector:
    """nodeaffinity.LazyErrorNodeSelector: terms that fail to parse are kept out and match nothing."""

    __slots__ = ("terms", "errors")

    def __init__(self, selector: NodeSelector) -> None:
        self.terms: list[NodeSelectorTerm] = []
        self.errors: list[tuple[str, str]] = []
        for i, term in enumerate(selector.terms):
            if term.is_empty():
                continue
            errs = term_errors(term, f"nodeSelectorTerms[{i}]")
            if errs:
                self.errors += errs
                continue
            self.terms.append(term)

    def matches(self, node: Node) -> bool:
        return any(term_matches(t, node.name, node.labels) for t in self.terms)


class PreferredTerms:
    """nodeaffinity.PreferredSchedulingTerms: weight-0 and empty terms are ignored."""

    __slots__ = ("terms",)

    def __init__(self, terms: Sequence[PreferredSchedulingTerm], path: str = "") -> None:
        self.terms: list[PreferredSchedulingTerm] = []
        errs: list[tuple[str, str]] = []
        for i, t in enumerate(terms):
            if t.weight == 0 or t.preference.is_empty():
                continue
            term_errs = term_errors(t.preference, f"{path}[{i}]")
            if term_errs:
                errs += term_errs
                continue
            self.terms.append(t)
        if errs:
            raise ValueError(aggregate(errs))

    def score(self, node: Node) -> int:
        return sum(t.weight for t in self.terms if term_matches(t.preference, node.name, node.labels))


# --- the pod's own affinity ------------------------------------------------------------------


def _raw_node_affinity(pod: Pod) -> dict[str, Any]:
    """The raw nodeAffinity, to tell a nil field from an empty one as Go does."""
    spec = pod.raw.get("spec") if isinstance(pod.raw, dict) else None
    aff = (spec or {}).get("affinity") or {}
    na = aff.get("nodeAffinity") if isinstance(aff, dict) else None
    return na if isinstance(na, dict) else {}


def required_node_selector(pod: Pod) -> NodeSelector | None:
    """The pod's requiredDuringSchedulingIgnoredDuringExecution node selector, if any."""
    aff = pod.affinity
    na = aff.node_affinity if aff is not None else None
    return na.required if na is not None else None


def has_node_selector(pod: Pod) -> bool:
    spec = pod.raw.get("spec") if isinstance(pod.raw, dict) else None
    return bool(pod.node_selector) or (isinstance(spec, dict) and spec.get("nodeSelector") is not None)


class RequiredNodeAffinity:
    """nodeaffinity.GetRequiredNodeAffinity: spec.nodeSelector AND the required terms."""

    __slots__ = ("node_selector", "required", "_keys", "_by_name", "_memo")

    def __init__(self, pod: Pod) -> None:
        self.node_selector = dict(pod.node_selector)
        required = required_node_selector(pod)
        self.required = LazyNodeSelector(required) if required is not None else None
        # The verdict depends only on these label values (and the node name when a term has
        # matchFields): remembered per distinct combination, which is few across a cluster.
        keys = list(self.node_selector)
        for term in self.required.terms if self.required is not None else ():
            keys.extend(req.key for req in term.match_expressions)
        self._keys = tuple(dict.fromkeys(keys))
        self._by_name = self.required is not None and any(t.match_fields for t in self.required.terms)
        self._memo: dict[tuple[Any, ...], bool] = {}

    def matches(self, node: Node) -> bool:
        labels = node.labels
        key = tuple(labels.get(k) for k in self._keys)
        if self._by_name:
            key += (node.name,)
        verdict = self._memo.get(key)
        if verdict is None:
            verdict = self._memo[key] = self._matches(node)
        return verdict

    def _matches(self, node: Node) -> bool:
        labels = node.labels
        if any(labels.get(k) != v for k, v in self.node_selector.items()):
            return False
        return self.required is None or self.required.matches(node)

    def clone(self) -> "RequiredNodeAffinity":
        return self


def pod_preferred_terms(pod: Pod) -> PreferredTerms | None:
    """getPodPreferredNodeAffinity: None when the field is absent (not merely empty)."""
    if pod.affinity is None or pod.affinity.node_affinity is None:
        return None
    if _raw_node_affinity(pod).get(PREFERRED_FIELD) is None and not pod.affinity.node_affinity.preferred:
        return None
    return PreferredTerms(pod.affinity.node_affinity.preferred)
