"""InterPodAffinity's counts from per-snapshot sums, and its batch Filter/Score by label codes.

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (getExistingAntiAffinityCounts,
getIncomingAffinityAntiAffinityCounts, satisfy*), scoring.go (PreScore, Score). Upstream walks every
node's pods in parallel each cycle; here the same counts are sums of per-node contributions kept
across cycles (row_aggregate.py), recomputed only for nodes whose NodeInfo changed:

* the existing pods' terms, grouped by (kind, term, weight) -> (topology key, value) -> count,
  which does not depend on the incoming pod: each distinct term is matched against it once;
* per incoming term (or set of terms, for required affinity: a pod counts only if it matches
  all of them), the number of existing pods matching it by (topology key, value).

Every count is a number of (pod, term) matches, so an entry exists exactly when the walk would
have created it, and sums do not depend on the order of nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kschedctl.framework.types import AffinityTerm, NodeInfo
from kschedctl.lazy import numpy as np
from kschedctl.plugins.row_aggregate import (
    Contribution,
    RowAggregate,
    Tracked,
    label_codes,
    synced_aggregate,
)

TopologyPair = tuple[str, str]
NsLabelsFn = Callable[[str], Mapping[str, str]]

REQ_ANTI, REQ_AFF, PREF_AFF, PREF_ANTI = "requiredAnti", "required", "preferred", "preferredAnti"
_EXISTING_KEY = ("InterPodAffinity.existing",)


def existing_terms_contribution(ni: NodeInfo) -> Contribution | None:
    """One node's existing pods' terms: (kind, term, weight) -> (key, node's value) -> count."""
    node = ni.node
    if node is None or not ni.pods_with_affinity:
        return None
    labels = node.labels
    out: Contribution = {}

    def add(group: tuple[Any, ...], key: str) -> None:
        value = labels.get(key)
        if value is not None:
            pairs = out.setdefault(group, {})
            pairs[(key, value)] = pairs.get((key, value), 0) + 1

    for info in ni.pods_with_affinity:
        for t in info.required_anti_affinity_terms:
            add((REQ_ANTI, t, 0), t.topology_key)
        for t in info.required_affinity_terms:
            add((REQ_AFF, t, 0), t.topology_key)
        for wt in info.preferred_affinity_terms:
            add((PREF_AFF, wt.term, wt.weight), wt.term.topology_key)
        for wt in info.preferred_anti_affinity_terms:
            add((PREF_ANTI, wt.term, wt.weight), wt.term.topology_key)
    return out or None


def matching_aggregate(tracked: Tracked, terms: tuple[AffinityTerm, ...], ns_labels_of: NsLabelsFn) -> RowAggregate:
    """The sums, as a RowAggregate of one group (None), of (topology key, value) -> number of
    existing pods matching every one of ``terms`` (each term counting under its own key), over
    all nodes. Namespace labels are those of the snapshot's objects, which do not change
    during a run."""

    def contribution(ni: NodeInfo) -> Contribution | None:
        node = ni.node
        if node is None or not ni.pods:
            return None
        labels = node.labels
        pairs = [(t.topology_key, labels.get(t.topology_key)) for t in terms]
        if all(v is None for _, v in pairs):
            return None
        n = 0
        for info in ni.pods:
            p = info.pod
            ns = ns_labels_of(p.namespace)
            if all(t.matches(p, ns) for t in terms):
                n += 1
        if not n:
            return None
        out: dict[Any, Any] = {}
        for pair in pairs:
            if pair[1] is not None:
                out[pair] = out.get(pair, 0) + n
        return {None: out}

    return synced_aggregate(tracked, ("InterPodAffinity.matching", terms), contribution)


def merge(counts: dict[TopologyPair, int], pairs: Mapping[TopologyPair, int]) -> None:
    """counts += pairs, dropping entries that reach 0 (every count in ``pairs`` is positive)."""
    if not counts:
        counts.update(pairs)  # the usual first merge: a copy, in C
        return
    for pair, c in pairs.items():
        n = counts.get(pair, 0) + c
        if n:
            counts[pair] = n
        else:
            counts.pop(pair, None)


def add_scores(scores: dict[str, dict[str, int]], pairs: Mapping[TopologyPair, int], weight: int) -> None:
    for (key, value), c in pairs.items():
        by_value = scores.setdefault(key, {})
        by_value[value] = by_value.get(value, 0) + weight * c


def pre_filter_counts(s: Any, tracked: Tracked) -> None:
    """PreFilter's three count maps of ``s`` (a PreFilterState) from the sums.

    A map that is one group of one RowAggregate, copied, names it in ``s.luts`` with the
    aggregate's version: while neither the state's counts (update_with_pod clears
    ``s.luts``) nor the sums (the version) have changed, filter_masks reads the aggregate's
    kept tables instead of walking every pair."""
    incoming = s.pod_info.pod
    counts = s.existing_anti_affinity_counts
    existing = synced_aggregate(tracked, _EXISTING_KEY, existing_terms_contribution)
    merged = []
    for group, pairs in existing.total.items():
        kind, term, _ = group
        if kind == REQ_ANTI and term.matches(incoming, s.namespace_labels):
            merge(counts, pairs)
            merged.append(group)
    # every pair of a group has its term's topology key, and a group has pairs
    s.luts[("existing keys",)] = {group[1].topology_key for group in merged}
    if len(merged) == 1:
        s.luts[("source", "existing")] = (existing, merged[0], existing.version)
    aff_terms = s.pod_info.required_affinity_terms
    if aff_terms:
        agg = matching_aggregate(tracked, tuple(aff_terms), s.ns_labels_of)
        merge(s.affinity_counts, agg.total.get(None, {}))
        s.luts[("source", "aff")] = (agg, None, agg.version)
    anti_terms = s.pod_info.required_anti_affinity_terms
    for t in anti_terms:
        agg = matching_aggregate(tracked, (t,), s.ns_labels_of)
        merge(s.anti_affinity_counts, agg.total.get(None, {}))
        if len(anti_terms) == 1:
            s.luts[("source", "anti")] = (agg, None, agg.version)


class ScoreSource:
    """``weight`` times the sums of one group of a RowAggregate, all of them pairs of one
    topology key: one term's part of PreScore's topologyScore, read from the sums when the
    scores are (``version``: the sums PreScore saw; a cycle's Score reads them unchanged)."""

    __slots__ = ("agg", "group", "weight", "key", "version")

    def __init__(self, agg: RowAggregate, group: Any, weight: int, key: str) -> None:
        self.agg, self.group, self.weight, self.key, self.version = agg, group, weight, key, agg.version

    def pairs(self) -> Mapping[TopologyPair, int]:
        if self.agg.version != self.version:
            raise RuntimeError("InterPodAffinity's PreScore state was read after its cycle")
        return self.agg.total.get(self.group, {})


def pre_score_counts(s: Any, tracked: Tracked, hard_weight: int, ns_labels_of: NsLabelsFn) -> list[ScoreSource]:
    """PreScore's topology scores for ``s`` (a PreScoreState) from the sums: one ScoreSource
    per term that adds to them (none for a term without pairs, so no sources means an empty
    topologyScore). Summing them into topologyScore's map is left to whoever reads that map:
    the batch Score reads each source's CountTable instead."""
    incoming = s.pod_info.pod
    sources: list[ScoreSource] = []
    existing = synced_aggregate(tracked, _EXISTING_KEY, existing_terms_contribution)
    for group in existing.total:
        kind, term, weight = group
        if kind == REQ_ANTI:
            continue
        if kind == REQ_AFF:
            if hard_weight <= 0:
                continue
            weight = hard_weight
        elif kind == PREF_ANTI:
            weight = -weight
        if term.matches(incoming, s.namespace_labels):
            sources.append(ScoreSource(existing, group, weight, term.topology_key))
    signed = [(wt, 1) for wt in s.pod_info.preferred_affinity_terms]
    signed += [(wt, -1) for wt in s.pod_info.preferred_anti_affinity_terms]
    for wt, sign in signed:
        agg = matching_aggregate(tracked, (wt.term,), ns_labels_of)
        if agg.total.get(None):
            sources.append(ScoreSource(agg, None, sign * wt.weight, wt.term.topology_key))
    return sources


def topology_score_of(sources: Sequence[ScoreSource]) -> dict[str, dict[str, int]]:
    """topologyScore's map (key -> value -> summed weight) from PreScore's sources."""
    scores: dict[str, dict[str, int]] = {}
    for src in sources:
        add_scores(scores, src.pairs(), src.weight)
    return scores


def _positive_lut(s: Any, which: str, col: Any, counts: Mapping[TopologyPair, int]) -> np.ndarray:
    """A boolean table over ``col``'s codes: the value's (col.key, value) count is positive (the
    last slot, code -1 = key missing, stays False). Kept in ``s.luts`` for the cycle (a
    chunk after the first reuses it) until the counts change or the column gains values."""
    source = s.luts.get(("source", which))
    if source is not None:
        agg, group, version = source
        if agg.version == version:  # the counts are still that group's sums
            kept: np.ndarray = agg.positive_table(group, col)
            return kept
    cache_key = (which, col.key, len(col.values))
    lut: np.ndarray | None = s.luts.get(cache_key)
    if lut is not None:
        return lut
    lut = s.luts[cache_key] = col.positive_lut(counts)
    return lut


def filter_masks(s: Any, node_infos: Sequence[NodeInfo], first_pod: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nodes failing satisfyPodAffinity, satisfyPodAntiAffinity and
    satisfyExistingPodsAntiAffinity (``node_infos`` has rows and every node a Node).
    ``first_pod``: no pod matches the affinity terms and the pod matches its own terms."""
    n = len(node_infos)
    aff_fail = np.zeros(n, bool)
    terms = s.pod_info.required_affinity_terms
    if terms:
        missing = np.zeros(n, bool)
        all_exist = np.ones(n, bool)
        for t in terms:
            col, codes = label_codes(node_infos, t.topology_key)  # type: ignore[misc]
            missing |= codes < 0
            all_exist &= _positive_lut(s, "aff", col, s.affinity_counts)[codes]
        aff_fail = missing | (~all_exist & (not first_pod))
    anti_fail = np.zeros(n, bool)
    if s.anti_affinity_counts:
        for t in s.pod_info.required_anti_affinity_terms:
            col, codes = label_codes(node_infos, t.topology_key)  # type: ignore[misc]
            anti_fail |= _positive_lut(s, "anti", col, s.anti_affinity_counts)[codes]
    existing_fail = np.zeros(n, bool)
    if s.existing_anti_affinity_counts:
        keys = s.luts.get(("existing keys",))
        if keys is None:
            keys = s.luts[("existing keys",)] = {k for (k, _), c in s.existing_anti_affinity_counts.items() if c > 0}
        for key in keys:
            col, codes = label_codes(node_infos, key)  # type: ignore[misc]
            existing_fail |= _positive_lut(s, "existing", col, s.existing_anti_affinity_counts)[codes]
    return aff_fail, anti_fail, existing_fail


def topology_scores(s: Any, node_infos: Sequence[NodeInfo]) -> np.ndarray:
    """Score for a batch with rows: the weighted sums of each source's CountTable at the nodes'
    label codes, or (scores summed into a map, by the per-node walk) a table of summed weights
    per topology key."""
    total = np.zeros(len(node_infos), np.int64)
    sources = s.sources
    if sources is not None:
        for src in sources:
            col, codes = label_codes(node_infos, src.key)  # type: ignore[misc]
            src.pairs()  # the version check
            total += src.weight * src.agg.count_table(src.group, col)[codes]
        return total
    for key, by_value in s.topology_score.items():
        col, codes = label_codes(node_infos, key)  # type: ignore[misc]
        lut = col.lut(np.int64)
        for value, w in by_value.items():
            code = col.code_of.get(value)
            if code is not None:
                lut[code] = w
        total += lut[codes]
    return total
