"""A columnar view of the Snapshot: numpy arrays of per-node numbers, one row per NodeInfo.index.

No upstream counterpart: kube-scheduler is fast because it is Go and filters in parallel; here
the batch forms of the hot plugins (``filter_batch`` / ``score_batch``, see
framework/interface.py) evaluate many nodes with a few numpy operations instead of one Python
call per node. The arrays mirror what the NodeInfos hold (allocatable, requested, non-zero
requested, pod count, unschedulable, taint presence) and are kept in sync incrementally: a
row is rebuilt only when its NodeInfo is a different object or has a different generation
than when the row was written (``NodeInfo.generation`` moves on every change). A snapshot
kept by a Cache lists the rows update_snapshot replaced (``Snapshot.replaced_rows``), so only
those are rewritten and a row's own NodeInfo needs no generation check; a standalone snapshot
(``tracks_rows`` False: tests edit its NodeInfos in place) has every node's generation checked
on every call. Either way a NodeInfo that is not the row's (a clone) has its row rewritten.

The Scheduler's snapshot has no view below ``COLUMNAR_MIN_NODES`` nodes (``Snapshot.columns``
is None): there, calling each plugin per node costs less than building arrays, and a small run
never imports numpy (kschedctl/lazy.py), a fifth of a 10-node `schedule`'s time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any, cast

from kschedctl.framework.types import NodeInfo
from kschedctl.lazy import numpy as np

if TYPE_CHECKING:
    from kschedctl.backend.cache.cache import Snapshot

# From this many nodes on, the Scheduler's snapshot has a columnar view (Snapshot.columns).
# Where the batch forms start to pay: with numpy loaded, 200 pods on 16 nodes schedule 0-15 %
# faster node by node, on 32 nodes up to 40 % faster with the view (SchedulingBasic, TopologySpreading,
# SchedulingPodAntiAffinity, Mixed); below it, a run also saves numpy's import (~65 ms).
COLUMNAR_MIN_NODES = 24

_FLAG_COLUMNS = ("unschedulable", "has_taints", "nodeless")
_INT_COLUMNS = (
    "alloc_cpu",
    "alloc_mem",
    "alloc_eph",
    "alloc_pods",
    "req_cpu",
    "req_mem",
    "req_eph",
    "nz_cpu",
    "nz_mem",
    "pod_count",
    "generation",
)


class Columns:
    """The arrays of one Snapshot. ``rows(nodes)`` syncs and returns the row of each node."""

    def __init__(self, snapshot: Any = None) -> None:
        self.size = 0
        self.infos: list[NodeInfo | None] = []
        self.gen_list: list[int] = []  # generation per row, as a plain list for cheap checks
        self.names: list[str] = []  # node name per row
        self.snapshot: Any = snapshot  # the Snapshot that owns these rows
        self.label_columns: dict[str, Any] = {}  # topology key -> row_aggregate.LabelColumn
        self.alloc_cpu = self.alloc_mem = self.alloc_eph = self.alloc_pods = np.zeros(0, np.int64)
        self.req_cpu = self.req_mem = self.req_eph = np.zeros(0, np.int64)
        self.nz_cpu = self.nz_mem = self.pod_count = self.generation = np.zeros(0, np.int64)
        self.unschedulable = np.zeros(0, bool)
        self.has_taints = np.zeros(0, bool)
        self.nodeless = np.zeros(0, bool)
        # rows set in each boolean column (rows past the snapshot's end included): a batch
        # over a cluster without taints asks for no flagged positions at all
        self.flagged = dict.fromkeys(_FLAG_COLUMNS, 0)
        self._all_rows = np.zeros(0, np.intp)
        # The rows written, in order (row_memo.py forgets what it kept for them): the epoch
        # of journal[0] is journal_base, and the whole journal is dropped when it grows long
        # (a memo older than journal_base starts again).
        self.journal: list[int] = []
        self.journal_base = 0
        self._grow(0)

    def _grow(self, size: int) -> None:
        if size <= self.size and self.size:
            return
        new = max(size, 2 * self.size, 16)
        for name in _INT_COLUMNS:
            old = getattr(self, name)
            arr = np.zeros(new, np.int64)
            arr[: len(old)] = old
            setattr(self, name, arr)
        for name in _FLAG_COLUMNS:
            old = getattr(self, name)
            arr = np.zeros(new, bool)
            arr[: len(old)] = old
            setattr(self, name, arr)
        self.infos.extend([None] * (new - len(self.infos)))
        self.gen_list.extend([-1] * (new - len(self.gen_list)))
        self.names.extend([""] * (new - len(self.names)))
        self.size = new

    def _write(self, row: int, info: NodeInfo) -> None:
        a, r, nz = info.allocatable, info.requested, info.non_zero_requested
        self.alloc_cpu[row] = a.milli_cpu
        self.alloc_mem[row] = a.memory
        self.alloc_eph[row] = a.ephemeral_storage
        self.alloc_pods[row] = a.allowed_pod_number
        self.req_cpu[row] = r.milli_cpu
        self.req_mem[row] = r.memory
        self.req_eph[row] = r.ephemeral_storage
        self.nz_cpu[row] = nz.milli_cpu
        self.nz_mem[row] = nz.memory
        self.pod_count[row] = info.num_pods
        self.generation[row] = info.generation
        self.gen_list[row] = info.generation
        self.names[row] = info.name
        node = info.node
        # a NodeInfo without a node is flagged so that the per-node code reports it
        self._flag(self.unschedulable, "unschedulable", row, node is None or bool(node.unschedulable))
        self._flag(self.has_taints, "has_taints", row, node is None or bool(node.taints))
        self._flag(self.nodeless, "nodeless", row, node is None)
        self.infos[row] = info
        journal = self.journal
        journal.append(row)
        if len(journal) > 4 * self.size + 1024:
            self.journal_base += len(journal)
            journal.clear()

    def _flag(self, column: np.ndarray, name: str, row: int, value: bool) -> None:
        """column[row] = value, counted in ``flagged``."""
        if bool(column[row]) != value:
            column[row] = value
            self.flagged[name] += 1 if value else -1

    @property
    def epoch(self) -> int:
        """How many row writes these columns have seen."""
        return self.journal_base + len(self.journal)

    def written_since(self, epoch: int) -> list[int] | None:
        """The rows written since ``epoch`` (an earlier ``epoch``), in order, repeats included;
        None when the journal no longer reaches back that far (it was dropped since)."""
        if epoch < self.journal_base:
            return None
        return self.journal[epoch - self.journal_base :]

    def rows(self, nodes: Sequence[NodeInfo]) -> np.ndarray | None:
        """The row of each node, after refreshing stale rows; None when a node has no row (a
        NodeInfo outside the snapshot, e.g. a clone made for preemption): use the per-node path.

        The staleness check (same NodeInfo object, same generation as when the row was written)
        runs through C-level ``map`` calls over plain lists, so a batch whose rows are all
        current costs a few list passes rather than a Python loop; only stale rows are written.
        """
        if not nodes:
            return np.zeros(0, np.intp)
        snapshot = self.snapshot
        if snapshot is not None and nodes is getattr(snapshot, "node_info_list", None) and getattr(snapshot, "tracks_rows", False):
            # The snapshot's own list: NodeInfo.index is the position, so after syncing the
            # replaced rows every row is its member's; no per-node check (O(changed rows)).
            self._sync_replaced(snapshot)
            return self._arange(len(nodes))
        idx = list(map(_INDEX, nodes))
        arr = np.array(idx, np.intp)
        if np.minimum.reduce(arr) < 0:  # the ufunc's reduce: ndarray.min's wrapper costs more
            return None
        top = int(np.maximum.reduce(arr)) + 1
        if top > self.size:
            self._grow(top)
        infos = self.infos
        gens = self.gen_list
        if snapshot is not None and getattr(snapshot, "tracks_rows", False):
            # The snapshot says which rows it replaced: only those are rewritten, and a node
            # that is the row's own NodeInfo needs no generation check.
            self._sync_replaced(snapshot)
            if all(map(is_, map(infos.__getitem__, idx), nodes)):
                return arr
        elif all(map(is_, map(infos.__getitem__, idx), nodes)) and list(map(gens.__getitem__, idx)) == list(map(_GENERATION, nodes)):
            # every row is this very NodeInfo at its current generation (so no row is shared
            # by two different NodeInfos either)
            return arr
        for ni, row in zip(nodes, idx):
            if infos[row] is not ni or gens[row] != ni.generation:
                self._write(row, ni)
        # A row shared by two different NodeInfos in one batch cannot be represented.
        if len(set(idx)) != len(idx):
            return None
        return arr

    def range_rows(self, snapshot: Any, first: int, size: int) -> np.ndarray | None:
        """The rows of ``size`` consecutive members of a row-tracking snapshot's node list from
        position ``first`` (wrapping around), after syncing the replaced rows: a member's row is
        its position, so no per-node check is needed. None for any other snapshot."""
        members = getattr(snapshot, "node_info_list", None)
        if snapshot is not self.snapshot or members is None or not getattr(snapshot, "tracks_rows", False):
            return None
        self._sync_replaced(snapshot)
        n = len(members)
        every = self._arange(n)
        if first + size <= n:
            return every[first : first + size]
        return np.concatenate((every[first:], every[: size - (n - first)]))

    def member_rows(self, members: Sequence[NodeInfo]) -> np.ndarray:
        """The rows of members of the snapshot's own node list whose rows range_rows has just
        synced (a member's row is its index, which is its position): no per-node check."""
        return np.fromiter(map(_INDEX, members), np.intp, len(members))

    def is_all_rows(self, rows: np.ndarray) -> bool:
        """Whether ``rows`` is the kept 0..n-1 that ``rows()`` gives for the snapshot's own node
        list: the same array object from call to call while the list keeps its length, never
        written, so a caller may know it again by identity."""
        return rows is self._all_rows

    def _arange(self, n: int) -> np.ndarray:
        """0..n-1, kept between calls (callers only index with it)."""
        if len(self._all_rows) != n:
            self._all_rows = np.arange(n, dtype=np.intp)
        return self._all_rows

    def _sync_replaced(self, snapshot: Snapshot) -> None:
        """Rewrite the rows the snapshot replaced since the last sync (all rows after a rebuild)."""
        replaced = snapshot.replaced_rows
        if replaced is not None and not replaced:
            return
        members = snapshot.node_info_list
        if len(members) > self.size:
            self._grow(len(members))
        rows = range(len(members)) if replaced is None else [r for r in replaced if r < len(members)]
        infos, gens = self.infos, self.gen_list
        for row in rows:
            ni = members[row]
            if infos[row] is not ni or gens[row] != ni.generation:
                self._write(row, ni)
        snapshot.replaced_rows = set()

    def names_of(self, rows: np.ndarray) -> list[str]:
        """The node names of rows that ``rows()`` has just synced."""
        return list(map(self.names.__getitem__, rows.tolist()))


_INDEX = attrgetter("index")
_GENERATION = attrgetter("generation")


class NodeBatch(list[NodeInfo]):
    """The nodes of one batch call, with their rows in the snapshot's Columns (computed once)."""

    __slots__ = ("columns", "_rows", "_rows_done", "_taken")

    def __init__(self, nodes: Sequence[NodeInfo], columns: Columns | None, rows: np.ndarray | None = None) -> None:
        super().__init__(nodes)
        self.columns = columns
        self._rows: np.ndarray | None = rows
        self._rows_done = rows is not None
        self._taken: dict[str, Any] | None = None

    def take(self, column: str) -> np.ndarray:
        """``columns.<column>[rows]`` (the batch has rows), gathered once per batch: the plugins
        of one cycle read the same columns of the same nodes, which do not change within it.
        Callers only read the array."""
        taken = self._taken
        if taken is None:
            taken = self._taken = {}
        arr: np.ndarray | None = taken.get(column)
        if arr is None:
            arr = taken[column] = getattr(self.columns, column)[self.rows]
        return arr

    def offers(self, column: str) -> bool:
        """Whether every node of the batch has a non-zero ``column`` (an allocatable), asked
        once per batch."""
        key = "offers:" + column
        taken = self._taken
        if taken is None:
            taken = self._taken = {}
        flag = taken.get(key)
        if flag is None:
            flag = taken[key] = bool(self.take(column).all())
        return bool(flag)

    def all_have_nodes(self) -> bool:
        """Whether every NodeInfo of the batch has its Node (the batch forms that read labels
        need it), asked once per batch: from the rows' ``nodeless`` flags when the batch has
        rows (a Python pass over thousands of NodeInfos per plugin and cycle costs more than
        the plugin's own arrays), else by that pass."""
        taken = self._taken
        if taken is None:
            taken = self._taken = {}
        flag = taken.get("all_have_nodes")
        if flag is None:
            if self.rows is not None:
                flag = not cast(Columns, self.columns).flagged["nodeless"] or not bool(self.take("nodeless").any())
            else:
                flag = all(ni.node is not None for ni in self)
            taken["all_have_nodes"] = flag
        return bool(flag)

    def subset(self, positions: list[int]) -> "NodeBatch":
        """The nodes at these positions, reusing the rows already computed."""
        rows = self.rows
        return NodeBatch(list(map(self.__getitem__, positions)), self.columns, rows[positions] if rows is not None else None)

    def head(self, k: int) -> "NodeBatch":
        """The first k nodes, with their rows when already known."""
        rows = self._rows if self._rows_done else None
        return NodeBatch(self[:k], self.columns, rows[:k] if rows is not None else None)

    @property
    def rows(self) -> np.ndarray | None:
        """None when the columnar view cannot serve these nodes: fall back to per-node code."""
        if not self._rows_done:
            self._rows_done = True
            self._rows = self.columns.rows(self) if self.columns is not None else None
        return self._rows


def every_node_known(node_infos: Sequence[NodeInfo]) -> bool:
    """Whether every NodeInfo has its Node (a NodeBatch answers from its rows)."""
    if isinstance(node_infos, NodeBatch):
        return node_infos.all_have_nodes()
    return all(ni.node is not None for ni in node_infos)


def rows_with_nodes(node_infos: Sequence[NodeInfo]) -> bool:
    """Whether ``node_infos`` has columnar rows and every NodeInfo its Node: what the
    label-code batch forms need (otherwise they answer None and the per-node form runs)."""
    return getattr(node_infos, "rows", None) is not None and every_node_known(node_infos)


def columns_of(snapshot: Any) -> Columns | None:
    """The Columns a Snapshot owns; None for any other lister (no columnar view: per node)."""
    cols = getattr(snapshot, "columns", None)
    return cols if isinstance(cols, Columns) else None


def as_batch(nodes: Sequence[NodeInfo], snapshot: Any) -> NodeBatch:
    """``nodes`` as a NodeBatch over the snapshot's columns (itself when it is one already,
    over those columns: its rows are then reused)."""
    columns = columns_of(snapshot)
    if isinstance(nodes, NodeBatch) and nodes.columns is columns:
        return nodes
    return NodeBatch(nodes, columns)


def flagged_positions(node_infos: Sequence[NodeInfo], column: str) -> list[int] | None:
    """The positions of the batch whose boolean ``column`` is set, ascending; None when the
    batch has no rows (a batch form's "use the per-node form")."""
    if not isinstance(node_infos, NodeBatch):
        return None
    rows = node_infos.rows
    if rows is None:
        return None
    columns = cast(Columns, node_infos.columns)  # (rows come from the batch's columns)
    if not columns.flagged[column]:
        return []  # no row is flagged: none of the batch's is
    flags = getattr(columns, column)[rows]
    positions: list[int] = flags.nonzero()[0].tolist()
    return positions


def map_flagged(node_infos: Sequence[NodeInfo], column: str, fn: Callable[[NodeInfo], Any], default: Any) -> list[Any] | None:
    """``fn(node_info)`` for the nodes whose boolean ``column`` is set, ``default`` for the rest;
    None when the batch has no rows (a batch form's "use the per-node form")."""
    positions = flagged_positions(node_infos, column)
    if positions is None:
        return None
    out = [default] * len(node_infos)
    for i in positions:
        out[i] = fn(node_infos[i])
    return out
