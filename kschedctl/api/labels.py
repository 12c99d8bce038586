"""Label selectors and node selectors, matched as apimachinery and component-helpers do.

Upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector),
staging/src/k8s.io/apimachinery/pkg/labels/selector.go, and
staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kschedctl.api.errors import ObjectError
from kschedctl.api.jsontypes import JSONList, JSONObject


@dataclass(frozen=True, slots=True)
class LabelSelectorRequirement:
    """One matchExpressions entry of a metav1.LabelSelector: a key, an operator (In, NotIn, Exists, DoesNotExist) and values."""

    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op == "In":
            return self.key in labels and labels[self.key] in self.values
        if op == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        return False


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A metav1.LabelSelector. ``None`` stands for a nil selector (matches nothing);
    an empty LabelSelector matches everything, as LabelSelectorAsSelector has it."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()

    def is_empty(self) -> bool:
        return not self.match_labels and not self.match_expressions

    def matches(self, labels: Mapping[str, str]) -> bool:
        for key, value in self.match_labels:
            if labels.get(key) != value:
                return False
        for req in self.match_expressions:
            if not req.matches(labels):
                return False
        return True

    def with_requirements(self, extra: Sequence[LabelSelectorRequirement]) -> "LabelSelector":
        return LabelSelector(self.match_labels, self.match_expressions + tuple(extra))

    @staticmethod
    def from_dict(raw: object, where: str = "labelSelector") -> "LabelSelector | None":
        if raw is None:
            return None
        if not isinstance(raw, dict):
            raise ObjectError(f"{where}: expected an object")
        labels = raw.get("matchLabels") or {}
        exprs = []
        for i, expr in enumerate(raw.get("matchExpressions") or []):
            op = expr.get("operator")
            values = tuple(str(v) for v in (expr.get("values") or []))
            if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
                raise ObjectError(f"{where}.matchExpressions[{i}].operator: {op!r} is not a valid label selector operator")
            if op in ("In", "NotIn") and not values:
                raise ObjectError(f"{where}.matchExpressions[{i}].values: must be specified when `operator` is 'In' or 'NotIn'")
            exprs.append(LabelSelectorRequirement(str(expr.get("key", "")), op, values))
        return LabelSelector(tuple((str(k), str(v)) for k, v in labels.items()), tuple(exprs))


def selector_matches(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """nil selector matches nothing; empty matches everything."""
    return selector is not None and selector.matches(labels)


# --- node selectors (nodeaffinity.go) -------------------------------------------------


@dataclass(frozen=True, slots=True)
class NodeSelectorRequirement:
    """A v1.NodeSelectorRequirement (matchExpressions or matchFields entry); Gt and Lt compare the value as an int64."""

    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist, Gt, Lt
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        present = self.key in labels
        if op == "In":
            return present and labels[self.key] in self.values
        if op == "NotIn":
            return not present or labels[self.key] not in self.values
        if op == "Exists":
            return present
        if op == "DoesNotExist":
            return not present
        if op in ("Gt", "Lt"):
            if not present or len(self.values) != 1:
                return False
            left = _parse_int64(labels[self.key])
            right = _parse_int64(self.values[0])
            if left is None or right is None:
                return False
            return left > right if op == "Gt" else left < right
        return False


def _parse_int64(text: str) -> int | None:
    """strconv.ParseInt(s, 10, 64): optional sign, decimal digits, in int64 range."""
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    if not -(2**63) <= value < 2**63:
        return None
    return value


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """A v1.NodeSelectorTerm: its requirements are ANDed, an empty term matches no node, and
    matchFields may only name ``metadata.name``."""

    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()

    def is_empty(self) -> bool:
        return not self.match_expressions and not self.match_fields

    def matches(self, node_name: str, labels: Mapping[str, str]) -> bool:
        # An empty term matches no objects (nodeaffinity.go: nodeSelectorTerms).
        if self.is_empty():
            return False
        for req in self.match_expressions:
            if not req.matches(labels):
                return False
        if self.match_fields:
            fields = {"metadata.name": node_name}
            for req in self.match_fields:
                if req.key != "metadata.name" or not req.matches(fields):
                    return False
        return True


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """A v1.NodeSelector (e.g. nodeAffinity's requiredDuringSchedulingIgnoredDuringExecution): its terms, ORed."""

    terms: tuple[NodeSelectorTerm, ...] = ()

    def matches(self, node_name: str, labels: Mapping[str, str]) -> bool:
        """Terms are ORed; an empty list matches nothing."""
        return any(term.matches(node_name, labels) for term in self.terms)


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerm:
    """A v1.PreferredSchedulingTerm: a node selector term and the weight NodeAffinity's Score gives a node matching it."""

    weight: int
    preference: NodeSelectorTerm


def node_selector_term_from_dict(raw: JSONObject, where: str) -> NodeSelectorTerm:
    def reqs(items: JSONList | None, sub: str) -> tuple[NodeSelectorRequirement, ...]:
        out = []
        for i, item in enumerate(items or []):
            op = item.get("operator")
            if op not in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"):
                raise ObjectError(f"{where}.{sub}[{i}].operator: {op!r} is not a valid node selector operator")
            out.append(NodeSelectorRequirement(str(item.get("key", "")), op, tuple(str(v) for v in (item.get("values") or []))))
        return tuple(out)

    raw = raw or {}
    return NodeSelectorTerm(reqs(raw.get("matchExpressions"), "matchExpressions"), reqs(raw.get("matchFields"), "matchFields"))


def node_selector_from_dict(raw: JSONObject | None, where: str) -> NodeSelector | None:
    if raw is None:
        return None
    terms = tuple(
        node_selector_term_from_dict(t, f"{where}.nodeSelectorTerms[{i}]") for i, t in enumerate(raw.get("nodeSelectorTerms") or [])
    )
    return NodeSelector(terms)


def preferred_terms_from_list(raw: JSONList | None, where: str) -> tuple[PreferredSchedulingTerm, ...]:
    out = []
    for i, item in enumerate(raw or []):
        out.append(
            PreferredSchedulingTerm(
                int(item.get("weight", 0)),
                node_selector_term_from_dict(item.get("preference") or {}, f"{where}[{i}].preference"),
            )
        )
    return tuple(out)


__all__ = [
    "LabelSelector",
    "LabelSelectorRequirement",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "PreferredSchedulingTerm",
    "node_selector_from_dict",
    "node_selector_term_from_dict",
    "preferred_terms_from_list",
    "selector_matches",
]
