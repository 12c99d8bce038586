"""Per-row results of a batch form kept across scheduling cycles, for pods of one shape.

No upstream counterpart: kube-scheduler scores every node afresh each cycle, in goroutines.
Here a batch Score over a few hundred rows is some twenty numpy calls of ~1 us each, for
numbers that mostly did not change: between two cycles, one node (the previous pod's) has
new requests, and the next pod is often the same shape (a Deployment's replicas). A
RowMemo keeps a plugin's per-row value for one key (what besides the node the value depends
on: the pod's requests), forgets the rows the columnar view has rewritten since
(``Columns.journal``), and computes only the rows of a batch it does not know: per node
when they are few (the port's own code), with the batch form otherwise.

The values are the batch form's and the port's, which tests/test_batch_equivalence.py holds
equal; tests/test_row_memo.py holds a memoised run to the plain one.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from kschedctl.backend.cache.columnar import Columns, NodeBatch
from kschedctl.framework.types import NodeInfo
from kschedctl.lazy import numpy as np

# At most this many keys per plugin instance (a memo is two arrays of the view's size).
MAX_KEYS = 8
# Up to this many unknown rows in a batch are computed node by node; more, by the batch form.
PER_NODE_MAX = 8
# Up to this many rows written since a memo's last call are forgotten one by one (~0.1 us
# each); more, by one index assignment (~1 us to convert the list).
_SET_ONE_BY_ONE = 8


class RowMemo:
    """One key's values per row of one Columns, and which rows hold a current value."""

    __slots__ = ("columns", "values", "known", "epoch")

    def __init__(self, columns: Columns) -> None:
        self.columns = columns
        self.values = np.zeros(columns.size, np.int64)
        self.known = np.zeros(columns.size, bool)
        self.epoch = columns.epoch

    def catch_up(self) -> bool:
        """Forget the rows written since the last call; False when the journal no longer
        reaches back that far or the view has grown (start again)."""
        columns = self.columns
        written = columns.written_since(self.epoch)
        if len(self.values) != columns.size or written is None:
            return False
        if written:
            known = self.known
            if len(written) <= _SET_ONE_BY_ONE:
                for row in written:  # a cycle's write or two: no index array to build
                    known[row] = False
            else:
                known[written] = False
            self.epoch = columns.epoch
        return True


def memoised(
    store: dict[Hashable, RowMemo],
    key: Hashable,
    batch: Any,
    per_node: Callable[[NodeInfo], int | None],
    per_batch: Callable[[NodeBatch], Any],
) -> Any:
    """The batch's values (an int64 array), from ``store``'s memo of ``key`` where it knows
    them; the rest from ``per_node`` (one NodeInfo's value, None: give up) or ``per_batch``
    (the batch form on a sub-batch; None: give up). None when the batch has no rows or a
    computation gave up: the caller's plain path."""
    rows = batch.rows if isinstance(batch, NodeBatch) else None
    if rows is None or batch.columns is None:
        return None
    memo = store.get(key)
    if memo is None or memo.columns is not batch.columns or not memo.catch_up():
        if len(store) >= MAX_KEYS:
            store.clear()
        memo = store[key] = RowMemo(batch.columns)
    unknown = (~memo.known[rows]).nonzero()[0]
    if len(unknown):
        positions: list[int] = unknown.tolist()
        if len(positions) <= PER_NODE_MAX:
            for pos in positions:
                value = per_node(batch[pos])
                if value is None:
                    return None
                memo.values[rows[pos]] = value
        else:
            values = per_batch(batch.subset(positions))
            if values is None:
                return None
            memo.values[rows[unknown]] = values
        memo.known[rows[unknown]] = True
    return memo.values[rows]
