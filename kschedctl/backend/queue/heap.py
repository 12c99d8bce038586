"""A heap of QueuedPodInfos keyed by pod UID, with deletion.

Upstream: pkg/scheduler/backend/heap/heap.go. Entries equal under the less function come
out first in, first out, so runs are deterministic.
"""

from __future__ import annotations

import copy
import heapq
import itertools
from collections.abc import Callable
from typing import Any

from kschedctl.framework.types import QueuedPodInfo


class _Item:
    __slots__ = ("qpi", "less", "seq", "removed")

    def __init__(self, qpi: QueuedPodInfo, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool], seq: int) -> None:
        self.qpi, self.less, self.seq, self.removed = qpi, less, seq, False

    def __lt__(self, other: "_Item") -> bool:
        if self.less(self.qpi, other.qpi):
            return True
        if self.less(other.qpi, self.qpi):
            return False
        return self.seq < other.seq  # equal by the order: first in, first out (deterministic)


class _Keyed:
    """A keyed heap's entry: the pod info and whether it was deleted. The heap array holds
    ``(key, seq, entry)``: key is the QueueSort plugin's sort_key of the pod at add time (the
    pod and its queue time do not change while it is in a heap: an update re-adds it), so
    heapq compares the tuples in C, without a Python call per comparison, in the order less
    would give (seq is unique: the entry itself is never compared)."""

    __slots__ = ("qpi", "order", "removed")

    def __init__(self, qpi: QueuedPodInfo, key: Any, seq: int) -> None:
        self.qpi, self.order, self.removed = qpi, (key, seq), False

    def __lt__(self, other: "_Keyed") -> bool:  # list(): the entries sorted as the heap orders them
        return self.order < other.order


class Heap:
    """A heap of QueuedPodInfos keyed by pod UID, with deletion (backend/heap/heap.go).

    ``key``: a key function whose order is exactly ``less``'s (QueueSort's sort_key), used
    instead of calling less for each comparison; None calls less."""

    _counter = itertools.count()

    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool], key: Callable[[QueuedPodInfo], Any] | None = None) -> None:
        self.less = less
        self.key = key
        self._heap: list[Any] = []
        self._items: dict[str, Any] = {}

    def add(self, qpi: QueuedPodInfo) -> None:
        self.delete(qpi.pod.uid)
        if self.key is None:
            item: Any = _Item(qpi, self.less, next(self._counter))
            heapq.heappush(self._heap, item)
        else:
            item = _Keyed(qpi, self.key(qpi), next(self._counter))
            heapq.heappush(self._heap, (*item.order, item))
        self._items[qpi.pod.uid] = item

    def _top(self) -> Any:
        """The entry at the top of the array (its _Item or _Keyed)."""
        top = self._heap[0]
        return top if self.key is None else top[2]

    def delete(self, uid: str) -> bool:
        """Lazy deletion: the entry stays in the array, marked, until it reaches the top. It keeps
        being compared while sifting, so it keeps a copy of the pod info as it was: the queue goes
        on changing the live one (attempts, timestamp, backoff expiry of a popped or moved pod),
        which would otherwise reorder a dead entry under the live ones and break the heap order
        (a pod taken with its group's cycle made later pods pop before earlier ones)."""
        item = self._items.pop(uid, None)
        if item is None:
            return False
        item.removed = True
        if self.key is None:  # a keyed entry's order was fixed when it was added
            item.qpi = copy.copy(item.qpi)
        return True

    def peek(self) -> QueuedPodInfo | None:
        while self._heap and self._top().removed:
            heapq.heappop(self._heap)
        return self._top().qpi if self._heap else None

    def pop(self) -> QueuedPodInfo | None:
        qpi = self.peek()
        if qpi is not None:
            heapq.heappop(self._heap)
            del self._items[qpi.pod.uid]
        return qpi

    def get(self, uid: str) -> QueuedPodInfo | None:
        item = self._items.get(uid)
        return item.qpi if item is not None else None

    def __contains__(self, uid: str) -> bool:
        return uid in self._items

    def __len__(self) -> int:
        return len(self._items)

    def list(self) -> list[QueuedPodInfo]:
        return [i.qpi for i in sorted(self._items.values())]
