"""NodeAffinity (PreFilter, Filter, PreScore, Score): spec.nodeSelector, required and preferred
node affinity, plus the scheduler-enforced ``addedAffinity`` of NodeAffinityArgs.

Upstream: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go and
staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go.
Required terms are parsed lazily as upstream does: a term that does not parse (bad key,
bad value, wrong number of values) is dropped and so matches nothing, while the other terms
still count. Preferred terms that do not parse make PreScore fail, as NewPreferredSchedulingTerms does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.labels import (
    node_selector_from_dict,
    preferred_terms_from_list,
)
from kschedctl.api.types import Node, Pod
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.gosemantics import aggregate
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    SKIP,
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
from kschedctl.plugins.node_affinity.args import NodeAffinityArgs
from kschedctl.plugins.node_affinity.selector import (
    OBJECT_NAME_FIELD,
    PREFERRED_FIELD,
    REQUIRED_FIELD,
    LazyNodeSelector,
    PreferredTerms,
    RequiredNodeAffinity,
    has_node_selector,
    pod_preferred_terms,
    required_node_selector,
)

NAME = names.NodeAffinity
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
# Distinct (required selector, nodeSelector) pairs kept per plugin instance.
REQUIRED_KEPT = 1024
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
# --- the plugin ------------------------------------------------------------------------------


class NodeAffinity:
    def __init__(self, args: NodeAffinityArgs | dict[str, Any] | None, handle: Handle) -> None:
        self.handle = handle
        # (id of the pod's required selector, its nodeSelector) -> (that selector, its
        # RequiredNodeAffinity): see _required_affinity
        self._required: dict[tuple[int, tuple[tuple[str, str], ...]], tuple[object, RequiredNodeAffinity]] = {}
        self.added_node_selector: LazyNodeSelector | None = None
        self.added_pref_terms: PreferredTerms | None = None
        na_args = args if isinstance(args, NodeAffinityArgs) else NodeAffinityArgs.from_dict(args, handle.features)
        added = na_args.added_affinity
        if added:
            problems = na_args.validate(handle.features)
            if problems:
                raise ValueError(aggregate(problems))
            required = node_selector_from_dict(added.get(REQUIRED_FIELD), f"addedAffinity.{REQUIRED_FIELD}")
            if required is not None:
                self.added_node_selector = LazyNodeSelector(required)
            preferred = preferred_terms_from_list(added.get(PREFERRED_FIELD), f"addedAffinity.{PREFERRED_FIELD}")
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
        required = self._required_affinity(pod, required_node_selector(pod))
        if not required.matches(new):
            return QueueingHint.QueueSkip
        if old is None:
            return QueueingHint.Queue
        return QueueingHint.QueueSkip if required.matches(old) else QueueingHint.Queue

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        required = required_node_selector(pod)
        if required is None and self.added_node_selector is None and not has_node_selector(pod):
            return None, Status(SKIP)
        state.write(PRE_FILTER_STATE_KEY, self._required_affinity(pod, required))
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

    def _required_affinity(self, pod: Pod, required: object) -> RequiredNodeAffinity:
        """RequiredNodeAffinity(pod) (``required`` its required node selector), one per distinct
        required selector and nodeSelector, for PreFilter, Filter and the queueing hint alike.

        The pods of a Deployment or a DaemonSet share their Affinity object (api/types.py keeps
        one per distinct document, frozen), so its selector is checked and its verdicts per
        node (kept by label values, and by name with matchFields) are reused from pod to pod
        instead of being made again every cycle: ~7 us a cycle on SchedulingDaemonset, whose
        30,000 pods name one node. The verdict depends only on the selector, the nodeSelector
        and the node, which is what the key and the instance hold; the selector object is kept
        with its entry, so its id names it while the entry lives."""
        key = (id(required), tuple(pod.node_selector.items()))
        found = self._required.get(key)
        if found is not None and found[0] is required:
            return found[1]
        made = RequiredNodeAffinity(pod)
        if len(self._required) >= REQUIRED_KEPT:
            self._required.clear()
        self._required[key] = (required, made)
        return made

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
            required = self._required_affinity(pod, required_node_selector(pod))
        if not required.matches(node):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_POD)
        return None

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        try:
            preferred = pod_preferred_terms(pod)
        except ValueError as exc:
            return Status.as_status(exc)
        if preferred is None and self.added_pref_terms is None:
            return Status(SKIP)
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
