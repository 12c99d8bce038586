"""NodeAffinity (PreFilter, Filter, PreScore, Score): spec.nodeSelector, required and preferred
node affinity, plus the scheduler-enforced ``addedAffinity`` of NodeAffinityArgs.

Upstream: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go and
staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go.
Required terms are parsed lazily as upstream does: a term that does not parse (bad key,
bad value, wrong number of values) is dropped and so matches nothing, while the other terms
still count. Preferred terms that do not parse make PreScore fail, as NewPreferredSchedulingTerms does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from kschedctl.api.errors import ObjectError
from kschedctl.api.labels import (
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
    node_selector_from_dict,
    preferred_terms_from_list,
)
from kschedctl.api.types import Node, Pod
from kschedctl.framework.args import PluginArgs, Raw
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import FieldError, aggregate, invalid, not_supported
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    NodeScore,
    PreFilterResult,
    QueueingHint,
    Status,
)
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins import names
from kschedctl.plugins.helper import (
    default_normalize_score,
)

NAME = names.NodeAffinity
ARGS_KIND = "NodeAffinityArgs"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
OBJECT_NAME_FIELD = "metadata.name"
_REQ = "requiredDuringSchedulingIgnoredDuringExecution"
_PREF = "preferredDuringSchedulingIgnoredDuringExecution"

# --- parsing as labels.NewRequirement / nodeSelectorRequirementsAsFieldSelector validate ------

_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_DNS1123_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
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


def _required(pod: Pod) -> NodeSelector | None:
    """The pod's requiredDuringSchedulingIgnoredDuringExecution node selector, if any."""
    aff = pod.affinity
    na = aff.node_affinity if aff is not None else None
    return na.required if na is not None else None


def _has_node_selector(pod: Pod) -> bool:
    spec = pod.raw.get("spec") if isinstance(pod.raw, dict) else None
    return bool(pod.node_selector) or (isinstance(spec, dict) and spec.get("nodeSelector") is not None)


class RequiredNodeAffinity:
    """nodeaffinity.GetRequiredNodeAffinity: spec.nodeSelector AND the required terms."""

    __slots__ = ("node_selector", "required", "_keys", "_by_name", "_memo")

    def __init__(self, pod: Pod) -> None:
        self.node_selector = dict(pod.node_selector)
        required = _required(pod)
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
    if _raw_node_affinity(pod).get(_PREF) is None and not pod.affinity.node_affinity.preferred:
        return None
    return PreferredTerms(pod.affinity.node_affinity.preferred)


# --- args ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeAffinityArgs(PluginArgs):
    """NodeAffinityArgs (types_pluginargs.go): no defaults, addedAffinity stays unset."""

    KIND: ClassVar[str] = ARGS_KIND
    added_affinity: Raw = None  # a v1.NodeAffinity

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidateNodeAffinityArgs: every addedAffinity term must parse (non-lazy NewNodeSelector)."""
        added = self.added_affinity
        if added is None:
            return []
        if not isinstance(added, dict):
            return [FieldError("addedAffinity", "expected an object")]
        errs: list[FieldError] = []
        base = "addedAffinity"
        try:
            required = node_selector_from_dict(added.get(_REQ), f"{base}.{_REQ}")
            preferred = preferred_terms_from_list(added.get(_PREF), f"{base}.{_PREF}")
        except ObjectError as exc:
            return [FieldError(base, str(exc))]
        if required is not None:
            for i, term in enumerate(required.terms):
                if not term.is_empty():  # NewNodeSelector skips empty terms
                    errs += [FieldError(*e) for e in term_errors(term, f"{base}.{_REQ}.nodeSelectorTerms[{i}]")]
        for i, t in enumerate(preferred):
            if t.weight != 0 and not t.preference.is_empty():  # NewPreferredSchedulingTerms skips these
                errs += [FieldError(*e) for e in term_errors(t.preference, f"{base}.{_PREF}[{i}]")]
        return errs


# --- the plugin ------------------------------------------------------------------------------


class NodeAffinity:
    def __init__(self, args: NodeAffinityArgs | dict[str, Any] | None, handle: Handle) -> None:
        self.handle = handle
        self.added_node_selector: LazyNodeSelector | None = None
        self.added_pref_terms: PreferredTerms | None = None
        na_args = args if isinstance(args, NodeAffinityArgs) else NodeAffinityArgs.from_dict(args, handle.features)
        added = na_args.added_affinity
        if added:
            problems = na_args.validate(handle.features)
            if problems:
                raise ValueError(aggregate(problems))
            required = node_selector_from_dict(added.get(_REQ), f"addedAffinity.{_REQ}")
            if required is not None:
                self.added_node_selector = LazyNodeSelector(required)
            preferred = preferred_terms_from_list(added.get(_PREF), f"addedAffinity.{_PREF}")
            if preferred:
                self.added_pref_terms = PreferredTerms(preferred)

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # QueueingHints are on in every emulated release: Node Add|UpdateNodeLabel only.
        return [
            ClusterEventWithHint(ClusterEvent("Node", "Add"), self.is_schedulable_after_node_change),
            ClusterEventWithHint(ClusterEvent("Node", "UpdateNodeLabel"), self.is_schedulable_after_node_change),
        ]

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Queue when an added node matches, or an updated node starts matching."""
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            raise TypeError("unexpected objects, want Node")
        if self.added_node_selector is not None and not self.added_node_selector.matches(new):
            return QueueingHint.QueueSkip
        required = RequiredNodeAffinity(pod)
        if not required.matches(new):
            return QueueingHint.QueueSkip
        if old is None:
            return QueueingHint.Queue
        return QueueingHint.QueueSkip if required.matches(old) else QueueingHint.Queue

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        required = _required(pod)
        if required is None and self.added_node_selector is None and not _has_node_selector(pod):
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, RequiredNodeAffinity(pod))
        if required is None:
            return None, None
        terms = required.terms
        if not terms:
            return None, None
        node_names: set[str] | None = None
        for term in terms:
            term_names: set[str] | None = None
            for req in term.match_fields:
                if req.key == OBJECT_NAME_FIELD and req.operator == "In":
                    values = set(req.values)  # requirements are ANDed: intersect
                    term_names = values if term_names is None else term_names & values
            if term_names is None:
                return None, None  # this term does not pin names; terms are ORed, so all nodes qualify
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, Status(Code.UnschedulableAndUnresolvable, ERR_REASON_CONFLICT)
        if node_names:
            return PreFilterResult(node_names), None
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is None:
            return Status(Code.Error, "node not found")
        if self.added_node_selector is not None and not self.added_node_selector.matches(node):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_ENFORCED)
        try:
            required = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFound:  # PreFilter disabled: compute here
            required = RequiredNodeAffinity(pod)
        if not required.matches(node):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_POD)
        return None

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        try:
            preferred = pod_preferred_terms(pod)
        except ValueError as exc:
            return Status.as_status(exc)
        if preferred is None and self.added_pref_terms is None:
            return Status(Code.Skip)
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(preferred))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        node = node_info.node
        if node is None:
            return 0, Status(Code.Error, "node not found")
        count = 0
        if self.added_pref_terms is not None:
            count += self.added_pref_terms.score(node)
        try:
            preferred = state.read(PRE_SCORE_STATE_KEY).preferred
        except StateNotFound:  # PreScore disabled: compute here
            try:
                preferred = pod_preferred_terms(pod)
            except ValueError as exc:
                return 0, Status.as_status(exc)
        if preferred is not None:
            count += preferred.score(node)
        return count, None

    def score_extensions(self) -> "NodeAffinity":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, False, scores)


class _PreScoreState:
    __slots__ = ("preferred",)

    def __init__(self, preferred: PreferredTerms | None) -> None:
        self.preferred = preferred

    def clone(self) -> "_PreScoreState":
        return self
