"""The vectorised twins of NodeResourcesFit (fit.py) and NodeResourcesBalancedAllocation
(balanced_allocation.py), and the array form of their shared scorer (resource_allocation.py):
the classes the registry builds, each port plus its batch forms, which take many nodes at once
over the columnar view's int64 columns and give exactly the per-node integers
(tests/test_batch_equivalence.py guards that).

No upstream counterpart: kube-scheduler runs Filter and Score per node in goroutines. Kept out
of the ports so they read like upstream's files; subclasses rather than mixins because the
batch forms read the ports' state keys and helpers (no import runs the other way)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, cast

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    Code,
    SparseStatuses,
    Status,
)
from kschedctl.framework.resource import CPU, EPHEMERAL_STORAGE, MEMORY
from kschedctl.framework.types import NodeInfo, PodInfo, summed_requests
from kschedctl.lazy import numpy as np
from kschedctl.plugins.node_resources import balanced_allocation, fit
from kschedctl.plugins.node_resources.args import LEAST_ALLOCATED, MOST_ALLOCATED
from kschedctl.plugins.node_resources.resource_allocation import ResourceAllocationScorer
from kschedctl.plugins.row_memo import RowMemo, memoised

# the resources the columnar view keeps per node: a scorer over any other takes the per-node form
_FIXED_RESOURCES = (CPU, MEMORY, EPHEMERAL_STORAGE)

# per resource: (allocatable, requested with the pod, requested, offered by every node)
Allocation = tuple[Any, Any, Any, bool]


class NodeResourcesFit(fit.NodeResourcesFit):
    """The NodeResourcesFit port (fit.py) with its batch forms: the class the registry builds."""

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """filter() over a NodeBatch: the checks of fitsRequest as array comparisons; statuses
        (same reasons, same order) are built once per distinct outcome and shared by the nodes
        that fail that way. Pods asking for scalar resources take the per-node code."""
        return self._filter_rows(state, pod, node_infos, None)

    def filter_batch_with_added_pods(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], added: Sequence[Sequence[PodInfo]]
    ) -> list[Status | None] | None:
        """filter_batch on each node plus its added pods: what NodeInfo.add_pod_info adds to
        ``requested`` (each pod's requests) and to the pod count, summed per node."""
        extra = _added_extra(self, added)
        if extra is None:
            return None  # sums numpy's int64 might not hold beside the columns: the copies' way
        return self._filter_rows(state, pod, node_infos, extra.T)

    def score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> Any:
        """score() over a NodeBatch: LeastAllocated / MostAllocated on arrays, else per node.
        The values are kept per row across cycles for pods of the same requests (row_memo.py)."""
        s = state.get(fit.PRE_SCORE_STATE_KEY) if state is not None else None
        pod_requests = s.pod_requests if isinstance(s, fit._PreScoreState) else self.scorer.pod_request_list(pod)
        if not _arrays_model(self.scorer):
            return None  # a strategy or resource the arrays do not model: the per-node form
        return _kept_scores(self, pod_requests, node_infos)

    def _score_rows(self, pod_requests: Sequence[int], node_infos: Sequence[NodeInfo]) -> Any:
        columns = allocation_columns(self.scorer, node_infos, pod_requests)
        return weighted_score_batch(self.scorer.name, self.scorer.resources, columns) if columns else None

    def _filter_rows(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], extra: np.ndarray | None
    ) -> list[Status | None] | None:
        """fitsRequest as array comparisons over a NodeBatch; ``extra`` (cpu, memory, ephemeral
        storage, pod count; one column per node) is added to each node's requested and pods.
        Without ``extra`` each row's outcome is kept across cycles for pods of the same
        requests (row_memo.py)."""
        try:
            req = state.read(fit.PRE_FILTER_STATE_KEY)
        except KeyError:
            return None  # the per-node form reports the missing state
        rows = getattr(node_infos, "rows", None)
        if rows is None or any(req.scalar_resources.values()):
            return None
        cols = node_infos.columns  # type: ignore[attr-defined]  # a NodeBatch: its rows are known
        checks = _fit_checks(req, cols)
        if extra is None:
            outcome = memoised(
                _memos(self),
                ("filter", req.milli_cpu, req.memory, req.ephemeral_storage),
                node_infos,
                lambda ni: _outcome_of(self.filter(state, pod, ni), checks),
                lambda b: None if b.rows is None else _outcomes(checks, cols, b.rows, None),
            )
            if outcome is None:
                outcome = _outcomes(checks, cols, rows, None)
        else:
            outcome = _outcomes(checks, cols, rows, extra)
        failing = outcome.nonzero()[0]
        if not len(failing):
            return [None] * len(node_infos)
        # One Status per distinct outcome, shared by its rows (statuses are never mutated once
        # returned, so sharing is invisible); a dict and a list, 2-6x quicker than np.unique
        # and object arrays for the few hundred rows of a cycle
        keys = outcome[failing].tolist()
        positions = failing.tolist()
        shared: dict[int, Status] = {}
        for key in sorted(set(keys)):
            reasons = ["Too many pods"] if key & 1 else []
            reasons += [check[0] for bit, check in enumerate(checks) if key >> (bit + 1) & 1]
            code = Code.UnschedulableAndUnresolvable if key >> (len(checks) + 1) & 1 else Code.Unschedulable
            shared[key] = Status(code, *reasons)
        out: list[Status | None] = [None] * len(node_infos)
        for pos, key in zip(positions, keys):
            out[pos] = shared[key]
        return SparseStatuses(out, positions, shared.values())


# One check of fitsRequest over the arrays: (reason, requested, allocatable column, used
# column, the row of filter_batch_with_added_pods' extra that adds to the used column).
FitCheck = tuple[str, int, Any, Any, int]


def _fit_checks(req: Any, cols: Any) -> list[FitCheck]:
    """The resource checks fitsRequest makes for these requests, in its order."""
    if not fit._has_request(req):
        return []
    return [
        (f"Insufficient {name}", want, alloc_col, used_col, k)
        for k, (name, want, alloc_col, used_col) in enumerate(
            (
                ("cpu", req.milli_cpu, cols.alloc_cpu, cols.req_cpu),
                ("memory", req.memory, cols.alloc_mem, cols.req_mem),
                ("ephemeral-storage", req.ephemeral_storage, cols.alloc_eph, cols.req_eph),
            )
        )
        if want > 0
    ]


def _outcomes(checks: list[FitCheck], cols: Any, rows: np.ndarray, extra: np.ndarray | None) -> np.ndarray:
    """Each row's outcome as bits: 1 "Too many pods", 1 << (k + 1) the k-th check failed,
    1 << (len(checks) + 1) a failed check asks more than the node's allocatable (the
    UnschedulableAndUnresolvable code); 0 passes."""
    pod_count = cols.pod_count[rows] if extra is None else cols.pod_count[rows] + extra[3]
    pods_fail = pod_count + 1 > cols.alloc_pods[rows]
    fails = []
    any_fail = pods_fail.copy()
    for _, want, alloc_col, used_col, k in checks:
        alloc = alloc_col[rows]
        used = used_col[rows] if extra is None else used_col[rows] + extra[k]
        fail = want > alloc - used
        fails.append((fail, want > alloc))
        any_fail |= fail
    outcome = np.zeros(len(rows), np.int64)
    failing = any_fail.nonzero()[0]
    if not len(failing):
        return outcome
    bits = pods_fail[failing].astype(np.int64)
    unresolvable = np.zeros(len(failing), bool)
    for bit, (fail, too_big) in enumerate(fails):
        f = fail[failing]
        bits |= f.astype(np.int64) << (bit + 1)
        unresolvable |= f & too_big[failing]
    bits |= unresolvable.astype(np.int64) << (len(checks) + 1)
    outcome[failing] = bits
    return outcome


def _outcome_of(status: Status | None, checks: list[FitCheck]) -> int | None:
    """The port's Filter status as _outcomes' bits (None: a status they do not express). Asked
    only for the few rows a memo does not know, so the reasons' bits are looked up here."""
    if status is None or status.code == Code.Success:
        return 0
    if status.code not in (Code.Unschedulable, Code.UnschedulableAndUnresolvable):
        return None
    bit_of = {"Too many pods": 0, **{check[0]: bit + 1 for bit, check in enumerate(checks)}}
    bits = 0
    for reason in status.reasons:
        bit = bit_of.get(reason)
        if bit is None:
            return None
        bits |= 1 << bit
    if status.code == Code.UnschedulableAndUnresolvable:
        bits |= 1 << (len(checks) + 1)
    return bits


class NodeResourcesBalancedAllocation(balanced_allocation.NodeResourcesBalancedAllocation):
    """The NodeResourcesBalancedAllocation port (balanced_allocation.py) with its batch form:
    the class the registry builds."""

    def score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> Any:
        """score() over a NodeBatch (an int64 array): for up to two resources the fractions and
        the std are the same IEEE-754 operations as balanced_resource_score; otherwise per node."""
        s = state.get(balanced_allocation.PRE_SCORE_STATE_KEY) if state is not None else None
        if isinstance(s, balanced_allocation._PreScoreState):
            pod_requests = s.pod_requests
        else:
            pod_requests = self.scorer.pod_request_list(pod)
            if self._is_best_effort(pod_requests):
                return [0] * len(node_infos)
        if not 0 < len(self.scorer.resources) <= 2 or not _arrays_model(self.scorer):
            return None  # more than two resources, or one the arrays do not model: per node
        return _kept_scores(self, pod_requests, node_infos)

    def _score_rows(self, pod_requests: Sequence[int], node_infos: Sequence[NodeInfo]) -> Any:
        """The batch score from the arrays (None without rows)."""
        columns = allocation_columns(self.scorer, node_infos, pod_requests)
        if columns is None:
            return None
        with_pod = _balanced_batch([(a, r, everywhere) for a, r, _, everywhere in columns])
        if self.scorer.scorer is balanced_allocation.balanced_resource_scorer_legacy:
            return with_pod
        without_pod = _balanced_batch([(a, used, everywhere) for a, _, used, everywhere in columns])
        half = MAX_NODE_SCORE // 2
        diff = half + with_pod - without_pod
        # Go division truncates toward zero: diff may be negative
        return half + np.where(diff < 0, -((-diff) // 2), diff // 2)


def _balanced_batch(columns: list[tuple[np.ndarray, np.ndarray, bool]]) -> np.ndarray:
    """balanced_resource_score over arrays of (allocatable, requested, offered by every node)
    for one or two resources."""
    if len(columns) == 1:
        return np.full(len(columns[0][0]), MAX_NODE_SCORE, np.int64)  # std 0: (1 - 0) * 100
    fractions = []
    offered: list[np.ndarray | None] = []
    for alloc, req, everywhere in columns:
        if everywhere:  # the usual case: no node without the resource, nothing to mask
            fractions.append(np.minimum(req.astype(np.float64) / alloc.astype(np.float64), 1.0))
            offered.append(None)
            continue
        ok = alloc != 0
        f = np.minimum(req.astype(np.float64) / np.where(ok, alloc, 1).astype(np.float64), 1.0)
        fractions.append(np.where(ok, f, 0.0))
        offered.append(ok)
    std = np.abs((fractions[0] - fractions[1]) / 2)
    masks = [mask for mask in offered if mask is not None]
    if masks:  # a node without one of the resources: std 0 there
        both = masks[0] if len(masks) == 1 else masks[0] & masks[1]
        std = np.where(both, std, 0.0)
    return np.trunc((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)


def _arrays_model(scorer: ResourceAllocationScorer) -> bool:
    """Whether the batch score models this scorer: its resources are columns of the view and,
    for a weighted strategy, the strategy is one weighted_score_batch computes."""
    if not scorer.resources or any(name not in _FIXED_RESOURCES for name, _ in scorer.resources):
        return False
    return scorer.name in (LEAST_ALLOCATED, MOST_ALLOCATED) or scorer.name == balanced_allocation.NAME


def _kept_scores(plugin: Any, pod_requests: Sequence[int], node_infos: Sequence[NodeInfo]) -> Any:
    """The score batch of Fit or BalancedAllocation (``plugin``, with ``scorer`` and
    ``_score_rows``) for pods of these requests, through the plugin's RowMemos: the rows it
    does not know from the scorer per node (few) or ``_score_rows`` (many); ``_score_rows``
    over the whole batch when the memo cannot serve it."""
    scorer = plugin.scorer

    def per_node(ni: NodeInfo) -> int | None:
        score, status = scorer.score(ni, pod_requests)
        return score if status is None or status.is_success() else None

    kept = memoised(_memos(plugin), tuple(pod_requests), node_infos, per_node, lambda b: plugin._score_rows(pod_requests, b))
    return kept if kept is not None else plugin._score_rows(pod_requests, node_infos)


# At most this many lists of added pods are kept with their sums (_added_extra).
MAX_KEPT_SUMS = 4096


class _KeptSums:
    """Lists of added pods and their (cpu, memory, ephemeral storage, pod count) sums: row
    ``rows[id(pods)]`` of ``table`` (row 0 stays zero). ``held`` keeps every list whose id is
    a key, so an id here always names the list it was taken from."""

    __slots__ = ("held", "rows", "table")

    def __init__(self) -> None:
        self.rows: dict[int, int] = {}
        self.held: list[Sequence[PodInfo]] = []
        self.table = np.zeros((64, 4), dtype=np.int64)

    def add(self, pods: Sequence[PodInfo], summed: tuple[int, int, int, int]) -> int:
        row = len(self.held) + 1
        if row == len(self.table):
            self.table = np.concatenate((self.table, np.zeros_like(self.table)))
        self.table[row] = summed
        self.rows[id(pods)] = row
        self.held.append(pods)
        return row


def _added_extra(plugin: Any, added: Sequence[Sequence[PodInfo]]) -> Any:
    """Per node, the sums of its added pods (cpu, memory, ephemeral storage, pod count) as
    an (nodes, 4) int64 array; None when a sum might not fit numpy's int64 beside the columns.

    The runtime keeps a node's list of nominated pods to add across cycles, as a tuple
    (FilterPoints._adds_for_priority), so a preemption-heavy cycle hands back the same few
    hundred tuples it handed the cycle before: their sums are kept as rows of one table,
    found by one lookup per list and gathered at once. Only tuples are kept (a list could be
    edited after its sums were taken); a list is summed each time."""
    kept: _KeptSums | None = plugin.__dict__.get("_kept_sums")
    if kept is None or len(kept.held) > MAX_KEPT_SUMS:
        kept = plugin.__dict__["_kept_sums"] = _KeptSums()
    at = list(map(kept.rows.get, map(id, added)))
    loose: list[tuple[int, tuple[int, int, int, int]]] = []  # (position, sums) of lists not kept
    if None in at:
        for j, row in enumerate(at):
            if row is not None:
                continue
            pods = added[j]
            summed = (*summed_requests(pods), len(pods))
            if max(summed) > fit._INT64_HEADROOM:
                return None
            if pods.__class__ is tuple:
                at[j] = kept.add(pods, summed)
            else:
                at[j] = 0
                loose.append((j, summed))
    extra = kept.table[cast("list[int]", at)]
    for j, summed in loose:
        extra[j] = summed
    return extra


def _memos(plugin: Any) -> dict[Hashable, RowMemo]:
    """The plugin instance's RowMemos (one per pod shape), made on first use."""
    memos: dict[Hashable, RowMemo] | None = plugin.__dict__.get("_row_memos")
    if memos is None:
        memos = plugin.__dict__["_row_memos"] = {}
    return memos


def allocation_columns(scorer: ResourceAllocationScorer, batch: Any, pod_requests: Sequence[int]) -> list[Allocation] | None:
    """Per configured resource, the (allocatable, requested-with-pod, requested) arrays of a
    NodeBatch, as calculateResourceAllocatableRequest gives them, and whether every node offers
    it; None when a resource is not in the columnar view (scalar resources) or the batch has no
    rows: the caller uses the per-node code. The columns are gathered once per batch
    (NodeBatch.take), so Fit and BalancedAllocation share them."""
    import numpy as np

    rows = batch.rows
    if rows is None or any(name not in _FIXED_RESOURCES for name, _ in scorer.resources):
        return None
    out = []
    for (name, _), want in zip(scorer.resources, pod_requests):
        if name == CPU:
            alloc_col, used_col = "alloc_cpu", "req_cpu" if scorer.use_requested else "nz_cpu"
        elif name == MEMORY:
            alloc_col, used_col = "alloc_mem", "req_mem" if scorer.use_requested else "nz_mem"
        else:
            alloc_col, used_col = "alloc_eph", "req_eph"
        alloc = batch.take(alloc_col)
        used = batch.take(used_col)
        req = used + np.int64(want)
        # "only fill in resources the node offers": a resource with allocatable 0 is all zeros
        if batch.offers(alloc_col):  # the usual case: nothing to zero
            out.append((alloc, req, used, True))
        else:
            offered = alloc != 0
            out.append((alloc, np.where(offered, req, 0), np.where(offered, used, 0), False))
    return out


def weighted_score_batch(kind: str, resources: Sequence[tuple[str, int]], columns: list[Allocation]) -> Any:
    """LeastAllocated / MostAllocated over arrays, with the exact integer arithmetic of the
    per-node scorers (all operands are non-negative, so floor division is Go's truncation):
    an int64 array, or None for a strategy the arrays do not model."""
    import numpy as np

    if kind not in (LEAST_ALLOCATED, MOST_ALLOCATED):
        return None
    n = len(columns[0][0]) if columns else 0
    if columns and all(everywhere for _, _, _, everywhere in columns):
        return _weighted_offered(kind, resources, columns, n)
    node_score = np.zeros(n, np.int64)
    weight_sum = np.zeros(n, np.int64)
    for (alloc, req, _, _), (_, weight) in zip(columns, resources):
        offered = alloc != 0
        if (req < 0).any():
            return None
        safe = np.where(offered, alloc, 1)
        if kind == LEAST_ALLOCATED:
            s = np.where(req > alloc, 0, ((safe - req) * MAX_NODE_SCORE) // safe)
        else:
            s = (np.minimum(req, safe) * MAX_NODE_SCORE) // safe
        s = np.where(offered, s, 0)
        node_score += s * weight
        weight_sum += np.where(offered, weight, 0)
    return np.where(weight_sum == 0, 0, node_score // np.where(weight_sum == 0, 1, weight_sum))


def _weighted_offered(kind: str, resources: Sequence[tuple[str, int]], columns: list[Allocation], n: int) -> Any:
    """weighted_score_batch when every node offers every resource (no allocatable 0): the same
    arithmetic without the masks, and the weight sum the same for every node."""
    import numpy as np

    node_score = np.zeros(n, np.int64)
    for (alloc, req, _, _), (_, weight) in zip(columns, resources):
        if (req < 0).any():
            return None
        if kind == LEAST_ALLOCATED:
            s = np.where(req > alloc, 0, ((alloc - req) * MAX_NODE_SCORE) // alloc)
        else:
            s = (np.minimum(req, alloc) * MAX_NODE_SCORE) // alloc
        node_score += s * weight
    weight_sum = sum(weight for _, weight in resources)
    return node_score // weight_sum if weight_sum else np.zeros(n, np.int64)
