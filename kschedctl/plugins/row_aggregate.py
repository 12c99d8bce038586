"""Per-snapshot sums of per-node contributions kept across scheduling cycles, and per-topology-key
label columns, for the PreFilter/PreScore/batch forms of InterPodAffinity.

No upstream counterpart: kube-scheduler walks every node's pods in parallel goroutines each
cycle (interpodaffinity/filtering.go getExistingAntiAffinityCounts, getIncomingAffinityAntiAffinityCounts,
scoring.go PreScore). In Python that walk dominated the cycle, so the same counts are kept as
a sum of per-row contributions: a row's contribution is recomputed only when its NodeInfo
generation moved (``Columns.generation``, which the columnar view keeps in sync), so a cycle
costs O(changed nodes) plus a vector comparison of generations instead of O(pods).

Only snapshots that a Cache keeps (``tracks_rows``) use these: their NodeInfos are replaced,
never edited in place, so a generation names one content of a node.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from kschedctl.backend.cache.columnar import Columns, columns_of
from kschedctl.framework.types import NodeInfo
from kschedctl.lazy import numpy as np

Contribution = dict[Any, dict[Any, int]]  # group -> key -> count (counts > 0); groups and keys are hashable

_MAX_AGGREGATES = 128
# Up to this many rows written since an aggregate's last sync are checked one by one; more,
# by comparing every row's generation.
_JOURNAL_ROWS = 64


class RowAggregate:
    """``total[group][key]`` = the sum over rows of ``contrib(node_info)[group][key]``; entries
    whose sum is 0 are absent (every contribution is a positive count). ``version`` moves on
    every change of the sums, so a copy of them taken at one version is known to be equal
    to them while it has not moved."""

    __slots__ = ("contrib", "rows", "gens", "parts", "total", "version", "tables", "count_tables", "seen", "epoch")

    def __init__(self, contrib: Callable[[NodeInfo], Contribution | None]) -> None:
        self.contrib = contrib
        self.rows: np.ndarray | None = None
        self.gens: np.ndarray | None = None
        self.parts: dict[int, Contribution] = {}
        self.total: Contribution = {}
        self.version = 0
        # group -> label key -> the PositiveTable of that group over that key's label column
        self.tables: dict[Any, dict[str, PositiveTable]] = {}
        # group -> label key -> the CountTable of that group over that key's label column
        self.count_tables: dict[Any, dict[str, CountTable]] = {}
        # (columns, their kept 0..n-1 rows) of the last sync over a snapshot's own node list,
        # and the columns' epoch then: the next sync reads their journal (sync_tracked)
        self.seen: tuple[Columns, np.ndarray] | None = None
        self.epoch = -1

    def _add(self, part: Contribution, sign: int) -> None:
        total, tables, count_tables = self.total, self.tables, self.count_tables
        self.version += 1
        for group, counts in part.items():
            tg = total.get(group)
            if tg is None:
                tg = total[group] = {}
            watching = tables.get(group) if tables else None
            counting = count_tables.get(group) if count_tables else None
            for key, c in counts.items():
                old = tg.get(key, 0)
                n = old + sign * c
                if n:
                    tg[key] = n
                else:
                    del tg[key]
                if watching and (not old or not n):
                    for table in watching.values():
                        table.mark(key, bool(n))
                if counting:
                    for counted in counting.values():
                        counted.add(key, sign * c)
            if not tg:
                del total[group]

    def positive_table(self, group: Any, column: LabelColumn) -> np.ndarray:
        """A boolean table over ``column``'s codes: the (column's key, value) pair has a
        positive sum in ``group`` (the last slot, code -1 = key missing, stays False). Kept
        as the sums change (only pairs going from zero to positive or back are written), so a
        cycle reads it instead of walking every pair of the group. Do not mutate it."""
        by_key = self.tables.setdefault(group, {})
        table = by_key.get(column.key)
        if table is None or table.column is not column:
            table = by_key[column.key] = PositiveTable(column)
        return table.read(self.total.get(group, {}))

    def count_table(self, group: Any, column: LabelColumn) -> np.ndarray:
        """An int64 table over ``column``'s codes: the sum of the (column's key, value) pair in
        ``group`` (0 for a pair without one, and in the last slot, code -1 = key missing).
        Kept as the sums change, like positive_table, so a cycle reads every node's count
        with one take instead of walking the group's pairs. Do not mutate it."""
        by_key = self.count_tables.setdefault(group, {})
        table = by_key.get(column.key)
        if table is None or table.column is not column:
            table = by_key[column.key] = CountTable(column)
        return table.read(self.total.get(group, {}))

    def sync(self, nodes: Sequence[NodeInfo], rows: np.ndarray, gens: np.ndarray) -> Contribution:
        """Bring the sums up to date with ``nodes`` (at ``rows``, generations ``gens``)."""
        contrib = self.contrib
        # the same rows, read as bytes (~0.3 us; np.array_equal's wrapper ~5 us): rows of one
        # dtype, so equal bytes are equal rows, and any other difference only rebuilds
        if self.rows is None or len(self.rows) != len(rows) or self.rows.tobytes() != rows.tobytes():
            self.parts, self.total = {}, {}
            self.version += 1
            for by_key in self.tables.values():
                for table in by_key.values():
                    table.drop()
            for by_count in self.count_tables.values():
                for counted in by_count.values():
                    counted.drop()
            for row, ni in zip(rows.tolist(), nodes):
                part = contrib(ni)
                if part:
                    self.parts[row] = part
                    self._add(part, 1)
            self.rows, self.gens = rows.copy(), gens.copy()
            return self.total
        assert self.gens is not None  # set with self.rows above
        changed = (self.gens != gens).nonzero()[0]
        if len(changed):
            self._recount(nodes, rows, changed.tolist())
            self.gens[changed] = gens[changed]
        return self.total

    def _recount(self, nodes: Sequence[NodeInfo], rows: np.ndarray, positions: list[int]) -> None:
        """Replace the contributions of the nodes at ``positions`` (ascending) by their current ones."""
        contrib, parts = self.contrib, self.parts
        for pos in positions:
            row = int(rows[pos])
            old = parts.pop(row, None)
            if old:
                self._add(old, -1)
            part = contrib(nodes[pos])
            if part:
                parts[row] = part
                self._add(part, 1)

    def sync_tracked(self, tracked: Tracked) -> None:
        """sync() for a cycle's Tracked nodes. Over a snapshot's own node list (its rows the
        columns' kept 0..n-1, the same array object as at the last sync), the rows written
        since then are the columns' journal (what RowMemo reads too): only those rows'
        generations are compared, instead of reading and comparing every row's (~5 us for
        500 rows, several times a cycle where InterPodAffinity keeps its sums)."""
        columns, rows = tracked.columns, tracked.rows
        seen, gens = self.seen, self.gens
        if seen is not None and seen[0] is columns and seen[1] is rows and gens is not None:
            written = columns.written_since(self.epoch)
            if written is not None and len(written) <= _JOURNAL_ROWS:
                self.epoch = columns.epoch
                generation, n = columns.generation, len(rows)
                changed = sorted({row for row in written if row < n and gens[row] != generation[row]})
                if changed:
                    self._recount(tracked.nodes, rows, changed)
                    for row in changed:
                        gens[row] = generation[row]
                return
        self.sync(tracked.nodes, rows, tracked.gens)
        if columns.is_all_rows(rows):
            self.seen, self.epoch = (columns, rows), columns.epoch
        else:
            self.seen, self.epoch = None, -1


class _ColumnTable:
    """A table over the codes of one label column, kept for one group of a RowAggregate (whose
    pairs are (label key, value)): built from the group's pairs when first read, when the
    column has gained values since, or after ``drop``; written pair by pair in between."""

    __slots__ = ("column", "table", "size")

    def __init__(self, column: LabelColumn) -> None:
        self.column = column
        self.table: np.ndarray | None = None
        self.size = -1  # len(column.values) when the table was built

    def drop(self) -> None:
        self.table = None

    def _slot(self, pair: Any) -> tuple[np.ndarray, int] | None:
        """The built table and its slot for ``pair``, else None (not built, another key, or a
        value coded after the build, which the rebuild that growth causes covers)."""
        table = self.table
        if table is None or pair[0] != self.column.key:
            return None
        code = self.column.code_of.get(pair[1])
        return (table, code) if code is not None and code < self.size else None

    def _build(self, pairs: dict[Any, int]) -> np.ndarray:
        raise NotImplementedError

    def read(self, pairs: dict[Any, int]) -> np.ndarray:
        table = self.table
        if table is None or self.size != len(self.column.values):
            table = self.table = self._build(pairs)
            self.size = len(self.column.values)
        return table


class PositiveTable(_ColumnTable):
    """Which codes of one label column have a positive sum in one group of a RowAggregate:
    InterPodAffinity's "a pod in this topology domain" tables, written as sums appear and
    vanish."""

    __slots__ = ()

    def mark(self, pair: Any, positive: bool) -> None:
        """The sum of ``pair`` became positive, or zero."""
        slot = self._slot(pair)
        if slot is not None:
            slot[0][slot[1]] = positive

    def _build(self, pairs: dict[Any, int]) -> np.ndarray:
        return self.column.positive_lut(pairs)


class CountTable(_ColumnTable):
    """The sums of one group of a RowAggregate by the codes of one label column:
    InterPodAffinity's topology scores of a term, before its weight, written as sums change."""

    __slots__ = ()

    def add(self, pair: Any, delta: int) -> None:
        """The sum of ``pair`` moved by ``delta``."""
        slot = self._slot(pair)
        if slot is not None:
            slot[0][slot[1]] += delta

    def _build(self, pairs: dict[Any, int]) -> np.ndarray:
        return self.column.count_lut(pairs)


class Tracked:
    """A snapshot's nodes with their rows, computed once per cycle, and their generations,
    read from ``columns`` when first asked for."""

    __slots__ = ("nodes", "rows", "store", "columns", "_gens")

    def __init__(self, nodes: Sequence[NodeInfo], rows: np.ndarray, store: dict[Any, Any], columns: Columns) -> None:
        self.nodes, self.rows, self.store, self.columns = nodes, rows, store, columns
        self._gens: np.ndarray | None = None

    @property
    def gens(self) -> np.ndarray:
        if self._gens is None:
            self._gens = self.columns.generation[self.rows]
        return self._gens


def tracked_rows(snapshot: Any) -> Tracked | None:
    """The snapshot's nodes as rows; None when it cannot be tracked (not kept by a Cache, or
    its nodes have no columnar rows): the caller walks the nodes instead."""
    if snapshot is None or not getattr(snapshot, "tracks_rows", False):
        return None
    columns = columns_of(snapshot)
    store = getattr(snapshot, "row_aggregates", None)
    if columns is None or not isinstance(store, dict):
        return None
    nodes = snapshot.list()
    rows = columns.rows(nodes)
    if rows is None:
        return None
    return Tracked(nodes, rows, store, columns)


def aggregate(tracked: Tracked, key: Hashable, contrib: Callable[[NodeInfo], Contribution | None]) -> Contribution:
    """The up-to-date sums of ``contrib`` over all the tracked nodes (``key`` names ``contrib``,
    which must depend only on the NodeInfo). Do not mutate the result."""
    return synced_aggregate(tracked, key, contrib).total


def synced_aggregate(tracked: Tracked, key: Hashable, contrib: Callable[[NodeInfo], Contribution | None]) -> RowAggregate:
    """aggregate()'s RowAggregate itself, brought up to date (its ``version`` and tables)."""
    store = tracked.store
    agg: RowAggregate | None = store.get(key)
    if agg is None:
        if len(store) >= _MAX_AGGREGATES:
            store.clear()
        agg = store[key] = RowAggregate(contrib)
    agg.sync_tracked(tracked)
    return agg


class LabelColumn:
    """One topology key's value per row, as integer codes (-1: the node lacks the key).
    ``version`` changes whenever a row's code does, so what is derived from the codes can be
    kept until then."""

    __slots__ = ("key", "codes", "gens", "code_of", "values", "version")

    def __init__(self, key: str) -> None:
        self.key = key
        self.codes = np.zeros(0, np.int64)
        self.gens = np.zeros(0, np.int64)
        self.code_of: dict[str, int] = {}
        self.values: list[str] = []
        self.version = 0

    def sync(self, columns: Columns, rows: np.ndarray) -> np.ndarray:
        """The codes of these rows (which ``columns.rows`` has just synced)."""
        if len(self.codes) < columns.size:
            grow = columns.size - len(self.codes)
            self.codes = np.concatenate([self.codes, np.full(grow, -1, np.int64)])
            self.gens = np.concatenate([self.gens, np.full(grow, -1, np.int64)])
        stale = (self.gens[rows] != columns.generation[rows]).nonzero()[0]
        if len(stale):
            key, code_of, values, infos = self.key, self.code_of, self.values, columns.infos
            for row in rows[stale].tolist():
                node = infos[row].node
                value = node.labels.get(key) if node is not None else None
                code: int | None
                if value is None:
                    code = -1
                else:
                    code = code_of.get(value)
                    if code is None:
                        code = code_of[value] = len(values)
                        values.append(value)
                if self.codes[row] != code:
                    self.codes[row] = code
                    self.version += 1
                self.gens[row] = columns.generation[row]
        codes: np.ndarray = self.codes[rows]
        return codes

    def lut(self, dtype: Any) -> np.ndarray:
        """A zeroed lookup table over the codes, with a last slot for -1 (missing)."""
        return np.zeros(len(self.values) + 1, dtype)

    def positive_lut(self, pairs: Mapping[Any, int]) -> np.ndarray:
        """A boolean table over the codes: (this column's key, the code's value) has a positive
        count in ``pairs``, keyed (label key, value); the last slot (code -1) stays False."""
        key, get = self.key, self.code_of.get
        table = self.lut(bool)
        codes = np.fromiter([get(value, -1) for (k, value), c in pairs.items() if k == key and c > 0], np.intp)
        table[codes[codes >= 0]] = True  # a value no node has (code -1) marks nothing
        return table

    def count_lut(self, pairs: Mapping[Any, int]) -> np.ndarray:
        """An int64 table over the codes: the count of (this column's key, the code's value) in
        ``pairs``, keyed (label key, value), 0 where it has none; the last slot (code -1) is 0."""
        key, get = self.key, self.code_of.get
        table = self.lut(np.int64)
        for (k, value), c in pairs.items():
            if k == key:
                code = get(value)
                if code is not None:  # a value no node of the column has counts nowhere
                    table[code] = c
        return table


def label_column(columns: Columns, key: str) -> LabelColumn:
    """The snapshot's label column of ``key`` (created on first use, kept with its columns)."""
    store: dict[str, LabelColumn] = columns.label_columns
    col = store.get(key)
    if col is None:
        col = store[key] = LabelColumn(key)
    return col


def label_codes(node_batch: Any, key: str) -> tuple[LabelColumn, np.ndarray] | None:
    """The label column of ``key`` and the codes of the batch's nodes; None without rows."""
    rows = getattr(node_batch, "rows", None)
    columns = getattr(node_batch, "columns", None)
    if rows is None or columns is None:
        return None
    col = label_column(columns, key)
    return col, col.sync(columns, rows)
