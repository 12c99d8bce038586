"""The vectorised twin of the NodeVolumeLimits port: the class the registry builds, plugin.py's
NodeVolumeLimits plus its batch Filter, which answers many nodes at once and gives exactly the
per-node statuses (tests/test_batch_equivalence.py guards that).

No upstream counterpart: kube-scheduler runs Filter per node in goroutines. The per-node
Filter walks, for every pod and node, the node's CSINode limits and the attachable volumes of
every pod on it; at scheduler_perf's volume sizes (5,000 nodes, a CSI volume per pod) that walk
is most of a run. What a node contributes depends only on its NodeInfo (``generation`` moves on
every change), its CSINode and the PVC, PV, StorageClass and VolumeAttachment tables, so it is
worked out once per node state and kept per columnar row: per limit key, the volumes counted
against it (``attached``) and the limit. A pod's check is then ``attached + new > limit`` over
the rows of the batch in numpy. Nodes whose answer needs more than that (a new volume already
in use on the node, or a pod there whose volumes cannot be resolved) are asked of the port."""

from __future__ import annotations

from collections.abc import Sequence
from operator import is_not
from typing import Any

from kschedctl.api.types import GenericObject, Pod
from kschedctl.backend.cache.columnar import NodeBatch
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import Code, Status
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.lazy import numpy as np
from kschedctl.plugins.node_volume_limits import plugin
from kschedctl.plugins.node_volume_limits.plugin import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED
from kschedctl.plugins.volume_util import NotFound

# Limits are kept as int64; a limit this far out is never reached nor undercut by a count of
# volumes, so clamping to it changes no verdict.
_BOUND = 1 << 62


class _Rows:
    """Per columnar row: the node state its answer was worked out for and the answer.

    ``gen`` / ``csi`` are the NodeInfo generation and id() of the CSINode the row was computed
    with (gen -1: not computed; the CSINode is held in ``csi_objects``). ``held`` maps each
    volume unique name to the rows whose pods use it; ``exact`` flags rows the port must answer
    (an existing pod's volumes fail to resolve). Per limit key, ``used`` counts the volumes
    counted against it and ``limit`` is the CSINode's limit (``_BOUND`` when none)."""

    def __init__(self) -> None:
        self.size = 0
        self.gen = np.zeros(0, np.int64)
        self.csi = np.zeros(0, np.int64)
        self.exact = np.zeros(0, bool)
        self.attached: list[dict[str, str]] = []
        self.csi_objects: list[GenericObject | None] = []  # held, so that no other object takes an id in ``csi``
        self.counts: list[dict[str, int]] = []
        self.limits: list[dict[str, int]] = []
        self.used: dict[str, Any] = {}
        self.limit: dict[str, Any] = {}
        self.held: dict[str, set[int]] = {}

    def grow(self, size: int) -> None:
        if size <= self.size:
            return
        new = max(size, 2 * self.size, 16)
        self.gen = np.concatenate((self.gen, np.full(new - self.size, -1, np.int64)))
        self.csi = np.concatenate((self.csi, np.zeros(new - self.size, np.int64)))
        self.exact = np.concatenate((self.exact, np.zeros(new - self.size, bool)))
        for key in self.used:
            self.used[key] = np.concatenate((self.used[key], np.zeros(new - self.size, np.int64)))
            self.limit[key] = np.concatenate((self.limit[key], np.full(new - self.size, _BOUND, np.int64)))
        self.attached.extend({} for _ in range(new - self.size))
        self.csi_objects.extend([None] * (new - self.size))
        self.counts.extend({} for _ in range(new - self.size))
        self.limits.extend({} for _ in range(new - self.size))
        self.size = new

    def columns(self, key: str) -> tuple[Any, Any]:
        """The ``used`` and ``limit`` arrays of one limit key, filled from the rows' answers
        the first time the key is asked about."""
        if key not in self.used:
            used = np.zeros(self.size, np.int64)
            limit = np.full(self.size, _BOUND, np.int64)
            for row in np.flatnonzero(self.gen >= 0).tolist():
                used[row] = self.counts[row].get(key, 0)
                limit[row] = _clamp(self.limits[row].get(key))
            self.used[key] = used
            self.limit[key] = limit
        return self.used[key], self.limit[key]

    def write(
        self, row: int, gen: int, csi: GenericObject | None, attached: dict[str, str] | None, counts: dict[str, int], limits: dict[str, int]
    ) -> None:
        """Record a row's answer (``attached`` None: the port answers this row)."""
        for unique in self.attached[row]:
            holders = self.held.get(unique)
            if holders is not None:
                holders.discard(row)
                if not holders:
                    del self.held[unique]
        self.gen[row] = gen
        self.csi[row] = id(csi)
        self.csi_objects[row] = csi
        self.exact[row] = attached is None
        self.attached[row] = attached or {}
        self.counts[row] = counts
        self.limits[row] = limits
        for unique in self.attached[row]:
            self.held.setdefault(unique, set()).add(row)
        for key, used in self.used.items():
            used[row] = counts.get(key, 0)
            self.limit[key][row] = _clamp(limits.get(key))


def _clamp(limit: int | None) -> int:
    if limit is None:
        return _BOUND
    return max(-_BOUND, min(_BOUND, limit))


class NodeVolumeLimits(plugin.NodeVolumeLimits):
    """The NodeVolumeLimits port (plugin.py) with its batch Filter: the class the registry builds."""

    def __init__(self, args: dict[str, Any] | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self._rows: _Rows | None = None  # made on first use: a small run never imports numpy
        self._rows_key: tuple[int, ...] = ()

    def _row_key(self) -> tuple[int, ...]:
        """What every row's answer depends on besides its node: the tables (see _tables) and
        the VolumeAttachment list, by identity and size."""
        vas = self.handle.objects.other.get("VolumeAttachment")
        return (*self._tables(), id(vas), len(vas) if vas is not None else 0)

    def filter_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[Status | None] | None:
        """filter() for many nodes; None (the per-node form) without the columnar view or when
        the pod's own volumes fail to resolve with an error."""
        n = len(node_infos)
        if not pod.volumes:
            return [None] * n
        if not isinstance(node_infos, NodeBatch) or node_infos.columns is None:
            return None
        rows = node_infos.rows
        if rows is None:
            return None
        try:
            self._new_volumes(pod, None)  # the port resolves them on every node: its error is every node's
        except NotFound as err:
            return [Status(Code.UnschedulableAndUnresolvable, str(err))] * n
        except ValueError:
            return None  # an Error: the per-node form reports it (and stops there)
        columns = node_infos.columns
        csi_nodes = list(map(self.handle.objects.csi_nodes.get, columns.names_of(rows)))
        out: list[Status | None] = [None] * n
        # Without a CSINode a node has no limit (_volume_limits): nothing to check there.
        has_csi = np.fromiter(map(is_not, csi_nodes, [None] * n), bool, n)
        where = np.flatnonzero(has_csi)
        if not len(where):
            return out
        new_volumes = self._new_volumes(pod, csi_nodes[int(where[0])])
        if not new_volumes:
            return out
        key = self._row_key()
        table = self._rows
        if table is None or key != self._rows_key:
            self._rows = table = _Rows()
            self._rows_key = key
        table.grow(int(rows.max()) + 1 if len(rows) else 0)
        sub_rows = rows[where]
        csi_ids = np.fromiter(map(id, map(csi_nodes.__getitem__, where.tolist())), np.int64, len(where))
        stale = (table.gen[sub_rows] != columns.generation[sub_rows]) | (table.csi[sub_rows] != csi_ids)
        for k in np.flatnonzero(stale).tolist():
            pos = int(where[k])
            self._write_row(table, int(sub_rows[k]), node_infos[pos], csi_nodes[pos])
        new_count: dict[str, int] = {}
        for limit_key in new_volumes.values():
            new_count[limit_key] = new_count.get(limit_key, 0) + 1
        over = np.zeros(len(where), bool)
        for limit_key, count in new_count.items():
            used, limit = table.columns(limit_key)
            over |= limit[sub_rows] - used[sub_rows] < count
        exact = table.exact[sub_rows]
        if new_volumes.keys() & table.held.keys():  # a new volume already in use there counts once
            holders = set().union(*(table.held.get(unique, ()) for unique in new_volumes))
            exact = exact | np.isin(sub_rows, np.fromiter(holders, np.intp, len(holders)))
        rejected = Status(Code.Unschedulable, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        for k in np.flatnonzero(over & ~exact).tolist():
            out[int(where[k])] = rejected
        for k in np.flatnonzero(exact).tolist():
            pos = int(where[k])
            st = self.filter(state, pod, node_infos[pos])
            if st is not None and st.code == Code.Error:
                return None  # the per-node form stops at the first Error
            out[pos] = st
        return out

    def filter_batch_with_added_pods(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], added: Sequence[Sequence[PodInfo]]
    ) -> list[Status | None] | None:
        """filter_batch on each node plus its added pods (the first pass of the Filter with
        nominated pods): where no added pod has a volume the node's plain answer (the batch
        form, else the port), elsewhere the port's filter_with_added_pods, which counts their
        volumes as attached. None when the pod's own volumes fail with an error (the runtime's
        two passes on copies report it)."""
        with_volumes = [i for i, pods in enumerate(added) if any(pi.pod.volumes for pi in pods)]
        if len(with_volumes) == len(node_infos):
            plain: list[Status | None] = [None] * len(node_infos)
        else:
            got = self.filter_batch(state, pod, node_infos)
            if got is None:
                return None
            plain = got
        out = list(plain)
        for i in with_volumes:
            st = self.filter_with_added_pods(state, pod, node_infos[i], added[i])
            if st is not None and st.code == Code.Error:
                return None
            out[i] = st
        return out

    def _write_row(self, table: _Rows, row: int, node_info: NodeInfo, csi_node: GenericObject | None) -> None:
        """Work out what the node contributes, as filter() does: its limits, then (only with
        limits) its pods' volumes and its VolumeAttachments counted per limit key."""
        limits = self._limits(node_info, csi_node)
        counts: dict[str, int] = {}
        attached: dict[str, str] | None = {}
        if limits:
            found = self._existing_volumes(node_info, csi_node)
            if isinstance(found, Status):
                attached = None
            else:
                attached = found
                for limit_key in found.values():
                    counts[limit_key] = counts.get(limit_key, 0) + 1
                for unique, limit_key in self._volume_attachments(node_info.name).items():
                    if unique not in found:
                        counts[limit_key] = counts.get(limit_key, 0) + 1
        table.write(row, node_info.generation, csi_node, attached, counts, limits)
