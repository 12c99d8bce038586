"""InterPodAffinity (PreFilter, Filter, PreScore, Score): required and preferred pod (anti-)affinity.

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/{filtering.go,scoring.go,plugin.go}
and pkg/scheduler/framework/types.go (AffinityTerm).

Namespaces: upstream unrolls the incoming pod's ``namespaceSelector`` into its namespace set
(``mergeAffinityTermNamespacesIfNotEmpty``) and matches existing pods' terms against the incoming
pod's namespace labels. Our AffinityTerm.matches takes the labels of the namespace of the pod being
matched, so incoming terms are matched with the existing pod's namespace labels and existing
terms with the incoming pod's: the same outcome without rewriting the terms.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kschedctl.api.types import Node, Pod
from kschedctl.framework.cycle_state import CycleState, StateNotFound
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
from kschedctl.framework.types import (
    AffinityTerm,
    NodeInfo,
    PodInfo,
    WeightedAffinityTerm,
    new_affinity_term,
)
from kschedctl.plugins import names
from kschedctl.plugins.inter_pod_affinity import counts as ipa_counts
from kschedctl.plugins.inter_pod_affinity.args import (
    InterPodAffinityArgs,
)
from kschedctl.plugins.row_aggregate import tracked_rows

NAME = names.InterPodAffinity
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"


TopologyPair = tuple[str, str]  # (topology key, node's value for it)
NsLabelsFn = Callable[[str], Mapping[str, str]]


# --- topology pair counts (filtering.go topologyToMatchedTermCount) ------------------------


def _update(counts: dict[TopologyPair, int], node: Node, key: str, value: int) -> None:
    """Add value under (key, node's label value) if the node has the key; drop entries that reach 0."""
    tv = node.labels.get(key)
    if tv is None:
        return
    pair = (key, tv)
    n = counts.get(pair, 0) + value
    if n == 0:
        counts.pop(pair, None)
    else:
        counts[pair] = n


def _matches_all(terms: Sequence[AffinityTerm], pod: Pod, ns_labels: Mapping[str, str] | None) -> bool:
    """podMatchesAllAffinityTerms: false for no terms, else every term matches the pod."""
    if not terms:
        return False
    return all(t.matches(pod, ns_labels) for t in terms)


def _update_with_affinity_terms(
    counts: dict[TopologyPair, int], terms: Sequence[AffinityTerm], pod: Pod, ns_labels: Mapping[str, str] | None, node: Node, value: int
) -> None:
    """One existing pod counts for every affinity term only if it matches ALL of them."""
    if _matches_all(terms, pod, ns_labels):
        for t in terms:
            _update(counts, node, t.topology_key, value)


def _update_with_anti_affinity_terms(
    counts: dict[TopologyPair, int], terms: Sequence[AffinityTerm], pod: Pod, ns_labels: Mapping[str, str] | None, node: Node, value: int
) -> None:
    """Anti-affinity terms count one by one."""
    for t in terms:
        if t.matches(pod, ns_labels):
            _update(counts, node, t.topology_key, value)


class PreFilterState:
    """preFilterState: the three count maps plus the incoming pod's PodInfo and namespace labels."""

    __slots__ = (
        "existing_anti_affinity_counts",
        "affinity_counts",
        "anti_affinity_counts",
        "pod_info",
        "namespace_labels",
        "ns_labels_of",
        "luts",
    )

    def __init__(self, pod_info: PodInfo, namespace_labels: Mapping[str, str], ns_labels_of: NsLabelsFn) -> None:
        self.existing_anti_affinity_counts: dict[TopologyPair, int] = {}
        self.affinity_counts: dict[TopologyPair, int] = {}
        self.anti_affinity_counts: dict[TopologyPair, int] = {}
        self.pod_info = pod_info
        self.namespace_labels = namespace_labels
        self.ns_labels_of = ns_labels_of
        # filter_batch's tables over label codes, built once per cycle from the counts above
        # (counts.filter_masks); dropped whenever the counts change
        self.luts: dict[tuple[object, ...], object] = {}

    def clone(self) -> "PreFilterState":
        copy = PreFilterState(self.pod_info, self.namespace_labels, self.ns_labels_of)
        copy.existing_anti_affinity_counts = dict(self.existing_anti_affinity_counts)
        copy.affinity_counts = dict(self.affinity_counts)
        copy.anti_affinity_counts = dict(self.anti_affinity_counts)
        return copy

    def update_with_pod(self, info: PodInfo, node: Node | None, multiplier: int) -> None:
        """AddPod/RemovePod: the pod's own required anti-affinity against the incoming pod, and the
        incoming pod's required (anti-)affinity against it."""
        if node is None:
            return
        self.luts.clear()
        incoming = self.pod_info.pod
        _update_with_anti_affinity_terms(
            self.existing_anti_affinity_counts, info.required_anti_affinity_terms, incoming, self.namespace_labels, node, multiplier
        )
        pod_ns = self.ns_labels_of(info.pod.namespace)
        _update_with_affinity_terms(self.affinity_counts, self.pod_info.required_affinity_terms, info.pod, pod_ns, node, multiplier)
        _update_with_anti_affinity_terms(
            self.anti_affinity_counts, self.pod_info.required_anti_affinity_terms, info.pod, pod_ns, node, multiplier
        )


class PreScoreState:
    """preScoreState: topologyKey -> value -> summed weight. Never mutated after PreScore.

    From the kept sums (counts.py), PreScore leaves the map as ``sources``, one per term, and
    the map is summed on its first read: the batch Score reads the sources' tables and never
    needs it. Like any CycleState entry, it is read within its cycle."""

    __slots__ = ("_topology_score", "sources", "pod_info", "namespace_labels")

    def __init__(self, pod_info: PodInfo, namespace_labels: Mapping[str, str]) -> None:
        self._topology_score: dict[str, dict[str, int]] | None = {}
        self.sources: list[ipa_counts.ScoreSource] | None = None
        self.pod_info = pod_info
        self.namespace_labels = namespace_labels

    @property
    def topology_score(self) -> dict[str, dict[str, int]]:
        if self._topology_score is None:
            self._topology_score = ipa_counts.topology_score_of(self.sources or ())
        return self._topology_score

    @topology_score.setter
    def topology_score(self, scores: dict[str, dict[str, int]]) -> None:
        self._topology_score, self.sources = scores, None

    def empty(self) -> bool:
        """An empty topologyScore (its map not summed for the asking)."""
        if self._topology_score is None:
            return not self.sources
        return not self._topology_score

    def clone(self) -> "PreScoreState":
        return self


def _process_term(
    scores: dict[str, dict[str, int]],
    term: AffinityTerm,
    weight: int,
    pod: Pod,
    ns_labels: Mapping[str, str] | None,
    node: Node,
    multiplier: int,
) -> None:
    if term.matches(pod, ns_labels):
        tv = node.labels.get(term.topology_key)
        if tv is not None:
            by_value = scores.setdefault(term.topology_key, {})
            by_value[tv] = by_value.get(tv, 0) + weight * multiplier


def _process_terms(
    scores: dict[str, dict[str, int]],
    terms: Iterable[WeightedAffinityTerm],
    pod: Pod,
    ns_labels: Mapping[str, str] | None,
    node: Node,
    multiplier: int,
) -> None:
    for wt in terms:
        _process_term(scores, wt.term, wt.weight, pod, ns_labels, node, multiplier)


# --- the plugin ----------------------------------------------------------------------------


class InterPodAffinity:
    def __init__(self, args: InterPodAffinityArgs | dict[str, Any] | None, handle: Handle) -> None:
        ipa_args = InterPodAffinityArgs.of(args, handle.features)
        self.hard_pod_affinity_weight: int = int(ipa_args.hard_pod_affinity_weight or 0)
        self.ignore_preferred_terms_of_existing_pods: bool = bool(ipa_args.ignore_preferred_terms_of_existing_pods)
        self.handle = handle

    def name(self) -> str:
        return NAME

    # --- helpers ---------------------------------------------------------------------------
    def _ns_labels_fn(self) -> NsLabelsFn:
        """namespace -> labels, looked up once per namespace per cycle (the namespace lister)."""
        objects = self.handle.objects
        cache: dict[str, Mapping[str, str]] = {}

        def lookup(ns: str) -> Mapping[str, str]:
            labels = cache.get(ns)
            if labels is None:
                labels = objects.namespace_labels(ns) if objects is not None else {}
                cache[ns] = labels
            return labels

        return lookup

    # --- EnqueueExtensions (plugin.go) -----------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        pod_hint = self._is_schedulable_after_pod_change
        node_hint = self._is_schedulable_after_node_change
        return [
            ClusterEventWithHint(ClusterEvent("Pod", "Add"), pod_hint),
            ClusterEventWithHint(ClusterEvent("Pod", "UpdatePodLabel"), pod_hint),
            ClusterEventWithHint(ClusterEvent("Pod", "Delete"), pod_hint),
            ClusterEventWithHint(ClusterEvent("Node", "Add"), node_hint),
            ClusterEventWithHint(ClusterEvent("Node", "UpdateNodeLabel"), node_hint),
            ClusterEventWithHint(ClusterEvent("Node", "UpdateNodeTaint"), node_hint),
        ]

    @staticmethod
    def _raw_terms(pod: Pod) -> tuple[list[AffinityTerm], list[AffinityTerm]]:
        """GetAffinityTerms of the waiting pod; namespaceSelector matched against nil labels later."""
        aff = pod.affinity
        pa = aff.pod_affinity if aff else None
        paa = aff.pod_anti_affinity if aff else None
        return (
            [new_affinity_term(pod, t) for t in (pa.required if pa else ())],
            [new_affinity_term(pod, t) for t in (paa.required if paa else ())],
        )

    def _is_schedulable_after_pod_change(self, pod: Pod, old: Pod | None, new: Pod | None) -> QueueingHint:
        if (new is not None and not new.node_name) or (old is not None and not old.node_name):
            return QueueingHint.QueueSkip
        terms, anti_terms = self._raw_terms(pod)
        nil_labels: dict[str, str] = {}  # upstream passes nil namespace labels here
        if new is not None and old is not None:
            if not _matches_all(terms, old, nil_labels) and _matches_all(terms, new, nil_labels):
                return QueueingHint.Queue
            if _matches_all(anti_terms, old, nil_labels) and not _matches_all(anti_terms, new, nil_labels):
                return QueueingHint.Queue
            return QueueingHint.QueueSkip
        if new is not None:
            return QueueingHint.Queue if _matches_all(terms, new, nil_labels) else QueueingHint.QueueSkip
        if old is None or not _matches_all(anti_terms, old, nil_labels):
            return QueueingHint.QueueSkip
        return QueueingHint.Queue

    def _is_schedulable_after_node_change(self, pod: Pod, old: Node | None, new: Node | None) -> QueueingHint:
        if new is None:
            return QueueingHint.Queue
        terms, anti_terms = self._raw_terms(pod)
        for t in terms + anti_terms:
            if t.topology_key in new.labels:
                return QueueingHint.Queue
        return QueueingHint.QueueSkip

    # --- PreFilter / Filter (filtering.go) -------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        lister = self.handle.snapshot_shared_lister()
        pod_info = PodInfo.of(pod)
        aff_terms = pod_info.required_affinity_terms
        anti_terms = pod_info.required_anti_affinity_terms
        if not aff_terms and not anti_terms and not lister.have_pods_with_required_anti_affinity_list():
            # Nothing could be counted (filtering.go PreFilter: no existing pod with required
            # anti-affinity, no terms of its own): Skip without touching a node.
            return None, Status(SKIP)
        ns_labels_of = self._ns_labels_fn()
        s = PreFilterState(pod_info, ns_labels_of(pod.namespace), ns_labels_of)
        tracked = tracked_rows(lister)
        if tracked is not None:
            ipa_counts.pre_filter_counts(s, tracked)
        else:
            self._pre_filter_walk(s, pod, lister)
        if not s.existing_anti_affinity_counts and not aff_terms and not anti_terms:
            return None, Status(SKIP)
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    @staticmethod
    def _pre_filter_walk(s: PreFilterState, pod: Pod, lister: Any) -> None:
        """The counts of PreFilter by walking every node's pods (filtering.go)."""
        ns_labels_of = s.ns_labels_of
        # Existing pods' required anti-affinity terms that match the incoming pod.
        for ni in lister.have_pods_with_required_anti_affinity_list():
            node = ni.node
            if node is None:
                continue
            for existing in ni.pods_with_required_anti_affinity:
                _update_with_anti_affinity_terms(
                    s.existing_anti_affinity_counts, existing.required_anti_affinity_terms, pod, s.namespace_labels, node, 1
                )

        # Existing pods matching the incoming pod's required affinity / anti-affinity terms.
        aff_terms = s.pod_info.required_affinity_terms
        anti_terms = s.pod_info.required_anti_affinity_terms
        if aff_terms or anti_terms:
            for ni in lister.list():
                node = ni.node
                if node is None:
                    continue
                for existing in ni.pods:
                    ep = existing.pod
                    ep_ns = ns_labels_of(ep.namespace)
                    _update_with_affinity_terms(s.affinity_counts, aff_terms, ep, ep_ns, node, 1)
                    _update_with_anti_affinity_terms(s.anti_affinity_counts, anti_terms, ep, ep_ns, node, 1)

    def pre_filter_extensions(self) -> "InterPodAffinity":
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status | None:
        s, err = _read_pre_filter_state(state)
        if err is not None:
            return err
        s.update_with_pod(pod_info_to_add, node_info.node, 1)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status | None:
        s, err = _read_pre_filter_state(state)
        if err is not None:
            return err
        s.update_with_pod(pod_info_to_remove, node_info.node, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s, err = _read_pre_filter_state(state)
        if err is not None:
            return err
        node = node_info.node
        if node is None:
            return Status(Code.Error, "node not found")
        if not _satisfy_pod_affinity(s, node):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
        if not _satisfy_pod_anti_affinity(s, node):
            return Status(Code.Unschedulable, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
        if not _satisfy_existing_pods_anti_affinity(s, node):
            return Status(Code.Unschedulable, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
        return None

    # --- PreScore / Score / NormalizeScore (scoring.go) ------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        lister = self.handle.snapshot_shared_lister()
        if lister is None:
            return Status(Code.Error, "empty shared lister in InterPodAffinity PreScore")
        pod_info = PodInfo.of(pod)
        has_constraints = bool(pod_info.preferred_affinity_terms or pod_info.preferred_anti_affinity_terms)
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status(SKIP)
        # Without preferred terms of its own, only existing pods with (anti-)affinity can contribute.
        all_nodes = lister.list() if has_constraints else lister.have_pods_with_affinity_list()
        if not all_nodes:
            return Status(SKIP)  # scoring.go PreScore: an empty topologyScore is a Skip

        ns_labels_of = self._ns_labels_fn()
        s = PreScoreState(pod_info, ns_labels_of(pod.namespace))
        tracked = tracked_rows(lister)
        if tracked is not None:
            s.sources = ipa_counts.pre_score_counts(s, tracked, self.hard_pod_affinity_weight, ns_labels_of)
            s._topology_score = None
        else:
            scores = s.topology_score
            for ni in all_nodes:
                node = ni.node
                if node is None:
                    continue
                pods = ni.pods if has_constraints else ni.pods_with_affinity
                for existing in pods:
                    self._process_existing_pod(s, existing, node, pod, ns_labels_of, scores)
        if s.empty():
            return Status(SKIP)
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def _process_existing_pod(
        self, s: PreScoreState, existing: PodInfo, node: Node, incoming: Pod, ns_labels_of: NsLabelsFn, scores: dict[str, dict[str, int]]
    ) -> None:
        if not node.labels:
            return
        ep_ns = ns_labels_of(existing.pod.namespace)
        # The incoming pod's preferred terms against the existing pod: + / - weight.
        _process_terms(scores, s.pod_info.preferred_affinity_terms, existing.pod, ep_ns, node, 1)
        _process_terms(scores, s.pod_info.preferred_anti_affinity_terms, existing.pod, ep_ns, node, -1)
        # The existing pod's terms against the incoming pod (symmetry).
        if self.hard_pod_affinity_weight > 0:
            for t in existing.required_affinity_terms:
                _process_term(scores, t, self.hard_pod_affinity_weight, incoming, s.namespace_labels, node, 1)
        _process_terms(scores, existing.preferred_affinity_terms, incoming, s.namespace_labels, node, 1)
        _process_terms(scores, existing.preferred_anti_affinity_terms, incoming, s.namespace_labels, node, -1)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s, err = _read_pre_score_state(state)
        if err is not None:
            return 0, err
        node = node_info.node
        labels = node.labels if node is not None else {}
        total = 0
        for key, by_value in s.topology_score.items():
            value = labels.get(key)
            if value is not None:
                total += by_value.get(value, 0)
        return total, None

    def score_extensions(self) -> "InterPodAffinity":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Scale to [0, 100] between the min and max raw scores: float, truncated (int64(f))."""
        s, err = _read_pre_score_state(state)
        if err is not None:
            return err
        if s.empty() or not scores:
            return None
        min_count = min(ns.score for ns in scores)
        max_count = max(ns.score for ns in scores)
        diff = max_count - min_count
        for ns in scores:
            f = 0.0
            if diff > 0:
                f = float(MAX_NODE_SCORE) * (float(ns.score - min_count) / float(diff))
            ns.score = int(f)
        return None


def _satisfy_pod_affinity(s: PreFilterState, node: Node) -> bool:
    """Every term's key must be on the node; a count > 0 for each, or the first-pod exception."""
    pods_exist = True
    labels = node.labels
    for t in s.pod_info.required_affinity_terms:
        value = labels.get(t.topology_key)
        if value is None:
            return False
        if s.affinity_counts.get((t.topology_key, value), 0) <= 0:
            pods_exist = False
    if not pods_exist:
        # The first pod of a group with affinity to itself: no matching pod anywhere, and the pod
        # matches all its own terms.
        incoming = s.pod_info.pod
        return not s.affinity_counts and _matches_all(s.pod_info.required_affinity_terms, incoming, s.ns_labels_of(incoming.namespace))
    return True


def _satisfy_pod_anti_affinity(s: PreFilterState, node: Node) -> bool:
    if s.anti_affinity_counts:
        labels = node.labels
        for t in s.pod_info.required_anti_affinity_terms:
            value = labels.get(t.topology_key)
            if value is not None and s.anti_affinity_counts.get((t.topology_key, value), 0) > 0:
                return False
    return True


def _satisfy_existing_pods_anti_affinity(s: PreFilterState, node: Node) -> bool:
    if s.existing_anti_affinity_counts:
        for key, value in node.labels.items():
            if s.existing_anti_affinity_counts.get((key, value), 0) > 0:
                return False
    return True


def _read_pre_filter_state(state: CycleState) -> tuple[PreFilterState, Status | None]:
    try:
        s = state.read(PRE_FILTER_STATE_KEY)
    except StateNotFound:
        return None, Status(Code.Error, f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')  # type: ignore[return-value]
    if not isinstance(s, PreFilterState):
        return None, Status(Code.Error, f"{s!r}  convert to interpodaffinity.state error")  # type: ignore[return-value]
    return s, None


def _read_pre_score_state(state: CycleState) -> tuple[PreScoreState, Status | None]:
    try:
        s = state.read(PRE_SCORE_STATE_KEY)
    except StateNotFound:
        return None, Status(Code.Error, f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')  # type: ignore[return-value]
    if not isinstance(s, PreScoreState):
        return None, Status(Code.Error, f"{s!r}  convert to interpodaffinity.preScoreState error")  # type: ignore[return-value]
    return s, None


# --- args (apis/config/v1/defaults.go, validation_pluginargs.go) ---------------------------
