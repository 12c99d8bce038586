"""Identical copies, scheduled fast: what cannot change between two copies is not recomputed.

`capacity` schedules copy after copy of one pod on a Scheduler that schedules nothing else.
Between two copies one thing changes in the cluster: the node the previous copy was bound to
(its NodeInfo is replaced in the snapshot). Every copy still goes through the real Scheduler —
queue, PreEnqueue, PreFilter, PreScore, Reserve, Permit, the binding cycle, and for the copy
that does not fit, the plain filter pass, PostFilter and the FitError — with two shortcuts:

1. ``CopyAlgorithm`` (the SchedulingAlgorithm of that Scheduler) keeps every node's Filter
   status and every *node-local* Score plugin's raw score (NODE_LOCAL: a function of the pod's
   spec and that node's NodeInfo alone; their PreFilter/PreScore state comes from the pod only)
   from one copy to the next, and recomputes them — by calling the plugins — only for the nodes
   whose NodeInfo object changed. The node search (rotating start index, numNodesToFind),
   NormalizeScore over the nodes found (the plugins' own normalizers), weights and the seeded
   tie-break (``select_host_from_table``) then run on those arrays as schedule_pod runs them.
   Score plugins that are not node-local are called afresh on the nodes found; a Filter plugin
   that is not node-local and not skipped, a PreFilterResult, nominated pods, or no feasible
   node send the attempt to the plain schedule_pod.
2. ``_SkipReplay``: a SKIP_STABLE plugin that returned Skip at PreFilter or PreScore for one
   copy returns Skip for every later copy — what it skips on (the pod's own spread constraints
   or (anti-)affinity terms, existing pods' (anti-)affinity terms that copies without terms
   cannot add) is the same for all copies, and it writes nothing to the CycleState before
   skipping — so Skip is answered without the call.

``tests/test_capacity_fast_path.py`` holds this path equal to the plain one (every copy's node,
the count, the stop message) on small clusters, with seeds, profiles and node sampling.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kschedctl.api.types import Pod
from kschedctl.backend.cache.columnar import NodeBatch, columns_of
from kschedctl.framework.interface import Code, Status
from kschedctl.plugins import names
from kschedctl.runtime.guard import optional
from kschedctl.runtime.score_points import score_array, weigh_scores
from kschedctl.runtime.score_table import ScoreTable
from kschedctl.scheduler.algorithm import ScheduleResult, SchedulingAlgorithm, SchedulingError
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.whatif.templates import PodTemplate

NODE_LOCAL = frozenset(
    {
        names.NodeResourcesFit,
        names.NodeResourcesBalancedAllocation,
        names.NodeName,
        names.NodePorts,
        names.NodeUnschedulable,
        names.NodeAffinity,
        names.TaintToleration,
        names.ImageLocality,
    }
)
# Plugins whose Skip depends on the pod's own spec (and on existing pods' terms that copies
# without (anti-)affinity cannot add), and which write nothing to the CycleState before
# returning it (a plugin that does, like DynamicResources, must keep being called).
SKIP_STABLE = frozenset({names.InterPodAffinity, names.PodTopologySpread})

# Below this many changed nodes, plugins are called per node rather than through a batch.
FEW = 8

Copier = Callable[[Scheduler, Pod], "tuple[str | None, str]"]


def identical_copy_scheduler(sched: Scheduler, template: PodTemplate, plain: Copier) -> Copier | None:
    """Install CopyAlgorithm and the skip replays on ``sched`` (which must schedule nothing but
    copies of ``template``); None when the profile has no columnar view: every copy goes plain."""
    fwk = sched.profiles.get(template.base.scheduler_name)
    if fwk is None or not fwk.use_batch:
        return None
    if _has_pod_affinity(template.base) and names.InterPodAffinity in SKIP_STABLE:
        stable = SKIP_STABLE - {names.InterPodAffinity}  # copies with terms change each other's view
    else:
        stable = SKIP_STABLE
    proxies: dict[int, Any] = {}
    for plist in fwk.points.values():
        for i, pl in enumerate(plist):
            name = plugin_name(fwk, pl)
            if name in stable:
                proxy = plist[i] = proxies.setdefault(id(pl), _SkipReplay(pl, name))
                names_ = getattr(fwk, "plugin_names", None)
                if isinstance(names_, dict):  # the runtime knows plugins by identity
                    names_[id(proxy)] = name
    old = sched.algorithm
    sched.algorithm = CopyAlgorithm(fwk, old.percentage_of_nodes_to_score, old.rng)
    sched.algorithm.next_start_node_index = old.next_start_node_index
    return plain


def plugin_name(fwk: Any, pl: Any) -> str:
    """The name the profile registered the plugin under (the runtime's, when it keeps them)."""
    name_of = getattr(fwk, "name_of", None)
    if name_of is not None:
        try:
            return str(name_of(pl))
        except KeyError:
            pass
    return str(pl.name())


def _has_pod_affinity(pod: Pod) -> bool:
    aff = pod.affinity
    return aff is not None and (aff.pod_affinity is not None or aff.pod_anti_affinity is not None)


class CopyAlgorithm(SchedulingAlgorithm):
    """SchedulingAlgorithm for the copies of one pod: every node's filter verdict and every
    node-local plugin's raw score are kept across cycles and recomputed only for the nodes whose
    NodeInfo changed; the node search (rotating start, numNodesToFind), NormalizeScore over the
    nodes found, weights and the seeded tie-break are done on those arrays as schedule_pod does
    them; Score plugins that are not node-local are called afresh on the nodes found. Whatever
    falls outside that (a PreFilterResult, nominated pods, a Filter plugin that is neither
    node-local nor skipped, no feasible node: the FitError) goes to the plain schedule_pod,
    whose answer is then the answer."""

    def __init__(self, fwk: Any, percentage: int, rng: Any) -> None:
        super().__init__(percentage, rng)
        self.fwk = fwk
        self.infos: list[Any] = []  # the NodeInfos the arrays below were computed from
        self.statuses: list[Any] = []  # filter status per node (None: feasible)
        self.feasible = np.zeros(0, bool)
        self.raw: dict[str, np.ndarray] = {}  # plugin -> raw score per node
        self.fast_cycles = 0

    def schedule_pod(self, fwk: Any, state: Any, qpi: Any, snapshot: Any) -> ScheduleResult:
        start = self.next_start_node_index
        try:
            return self._schedule_copy(fwk, state, qpi, snapshot)
        except _Fallback:
            self.infos, self.raw = [], {}
            self.next_start_node_index = start
            return super().schedule_pod(fwk, state, qpi, snapshot)

    def _schedule_copy(self, fwk: Any, state: Any, qpi: Any, snapshot: Any) -> ScheduleResult:
        pod = qpi.pod
        if (
            fwk is not self.fwk
            or pod.nominated_node_name
            or not fwk.use_batch
            or not fwk.has_score_plugins()
            or snapshot.num_nodes() == 0
            or self._nominated(fwk)
        ):
            return super().schedule_pod(fwk, state, qpi, snapshot)
        all_nodes = snapshot.list()
        pre_res, status, _ = fwk.run_pre_filter_plugins(state, pod, all_nodes)
        filters = [n for n in (plugin_name(fwk, pl) for pl in fwk.points["filter"]) if n not in state.skip_filter_plugins]
        if not status.is_success() or (pre_res is not None and not pre_res.all_nodes()) or any(n not in NODE_LOCAL for n in filters):
            return super().schedule_pod(fwk, state, qpi, snapshot)  # PreFilter again, on the same pod: same result
        changed = self._refresh_filters(fwk, state, pod, all_nodes)
        n = len(all_nodes)
        num_to_find = min(self.num_nodes_to_find(fwk, n), n)
        start = self.next_start_node_index
        rotated = np.roll(self.feasible, -start)
        found = np.cumsum(rotated)
        total = int(found[-1]) if n else 0
        if total == 0:
            return super().schedule_pod(fwk, state, qpi, snapshot)  # the FitError, exactly
        processed = n if total < num_to_find else int(np.searchsorted(found, num_to_find)) + 1
        positions = (np.flatnonzero(rotated[:processed]) + start) % n
        self.next_start_node_index = (start + processed) % n
        self.fast_cycles += 1
        if len(positions) == 1:
            return ScheduleResult(all_nodes[int(positions[0])].name, processed, 1)
        feasible = [all_nodes[i] for i in positions.tolist()]
        table = self._score(fwk, state, pod, all_nodes, feasible, positions, changed)
        host = self.select_host_from_table(table)
        return ScheduleResult(host, processed, len(feasible), table=table)

    @staticmethod
    def _nominated(fwk: Any) -> bool:
        names_ = fwk._nominated_node_names()
        return names_ is None or bool(names_)

    def _refresh_filters(self, fwk: Any, state: Any, pod: Pod, all_nodes: list[Any]) -> np.ndarray | None:
        """Filter the nodes whose NodeInfo is not the one last filtered; returns their positions
        (None: all were filtered anew)."""
        if len(all_nodes) != len(self.infos):
            changed = None
            self.statuses = list(fwk.run_filter_plugins_batch(state, pod, all_nodes))  # plain: edited below
        else:
            changed = np.asarray(changed_positions(self.infos, all_nodes), np.intp)
            if len(changed) > FEW:
                fresh = fwk.run_filter_plugins_batch(state, pod, [all_nodes[i] for i in changed.tolist()])
                for i, st in zip(changed.tolist(), fresh):
                    self.statuses[i] = st
            else:  # a node or two: the per-node path costs less than building a batch
                for i in changed.tolist():
                    st = fwk.run_filter_plugins(state, pod, all_nodes[i])
                    self.statuses[i] = None if st.is_success() else st
        if any(
            st is not None and st.code == Code.Error
            for st in (self.statuses if changed is None else [self.statuses[i] for i in changed.tolist()])
        ):
            self.infos = []
            raise _Fallback()
        self.infos = list(all_nodes)
        if changed is None:
            self.feasible = np.fromiter(map(_is_none, self.statuses), bool, len(all_nodes))
            self.raw = {}
        else:
            for i in changed.tolist():
                self.feasible[i] = self.statuses[i] is None
        return changed

    def _score(
        self, fwk: Any, state: Any, pod: Pod, all_nodes: list[Any], feasible: list[Any], positions: np.ndarray, changed: np.ndarray | None
    ) -> ScoreTable:
        status = fwk.run_pre_score_plugins(state, pod, feasible)
        if not status.is_success():
            raise SchedulingError(status)
        plugins = [(pl, n) for pl, n in ((pl, plugin_name(fwk, pl)) for pl in fwk.points["score"]) if n not in state.skip_score_plugins]
        columns = columns_of(fwk.snapshot)
        batch = NodeBatch(feasible, columns)
        rows = batch.rows
        table = (
            ScoreTable(columns=columns, rows=rows) if columns is not None and rows is not None else ScoreTable([ni.name for ni in feasible])
        )
        scored = []
        for pl, name in plugins:
            if name in NODE_LOCAL:
                values = self._raw(pl, name, state, pod, all_nodes, changed)[positions]
            else:  # anything else is scored afresh on the nodes found, as the runtime would
                values = self._score_nodes(pl, name, state, pod, feasible)
            # NormalizeScore exactly as run_score_plugins_table does it (the runtime's own step)
            values = fwk._normalize(pl, name, state, pod, batch, table, values)
            if isinstance(values, Status):
                raise _Fallback()  # the runtime words that error
            scored.append(values)
        named = [name for _, name in plugins]
        if weigh_scores(table, named, [fwk.score_weights[name] for name in named], scored) is not None:
            raise _Fallback()  # a score out of range: the runtime words that error
        return table

    def _raw(self, pl: Any, name: str, state: Any, pod: Pod, all_nodes: list[Any], changed: np.ndarray | None) -> np.ndarray:
        """The plugin's raw score of every node, recomputed where the NodeInfo changed."""
        raw = self.raw.get(name)
        if raw is None:
            raw = self.raw[name] = self._score_nodes(pl, name, state, pod, all_nodes)
        elif changed is not None and len(changed):
            raw[changed] = self._score_nodes(pl, name, state, pod, [all_nodes[i] for i in changed.tolist()])
        return raw

    def _score_nodes(self, pl: Any, name: str, state: Any, pod: Pod, infos: list[Any]) -> np.ndarray:
        """Raw scores by the plugin's batch form (many nodes) or the runtime's per-node calls."""
        batch_fn = optional(pl, "score_batch") if len(infos) > FEW else None
        if batch_fn is not None:
            try:
                raw = batch_fn(state, pod, NodeBatch(infos, columns_of(self.fwk.snapshot)))
                out = np.asarray(raw, np.int64) if raw is not None else None  # None: the per-node form
                if out is not None and out.shape == (len(infos),):
                    return out
            except Exception:  # noqa: BLE001 - the per-node calls say what went wrong
                pass
        values = self.fwk._score_per_node(pl, name, state, pod, infos)
        if isinstance(values, Status):
            raise _Fallback()
        return score_array(values)


def _is_none(value: Any) -> bool:
    return value is None


def changed_positions(old: list[Any], new: list[Any], chunk: int = 64) -> list[int]:
    """Positions where ``new`` holds another object than ``old`` (same lengths). NodeInfo has no
    __eq__, so list equality is identity, and it runs in C: slices of ``chunk`` are compared at
    once, and only a slice that differs is walked."""
    out: list[int] = []
    if old == new:
        return out
    for start in range(0, len(new), chunk):
        end = start + chunk
        if old[start:end] != new[start:end]:
            out.extend(i for i in range(start, min(end, len(new))) if old[i] is not new[i])
    return out


class _Fallback(Exception):
    """Something the copy algorithm does not model happened: the attempt is redone plainly."""


class _SkipReplay:
    """Stands in for one SKIP_STABLE plugin in the framework's lists: once it returned Skip at
    PreFilter (or PreScore), it is not called there again. Everything else is the plugin's own."""

    def __init__(self, plugin: Any, name: str) -> None:
        self._plugin = plugin
        self._name = name
        self._pre_filter_skipped = False
        self._pre_score_skipped = False

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._plugin, attr)

    def name(self) -> str:
        return self._name

    def pre_filter(self, state: Any, pod: Pod, nodes: Any) -> Any:
        if self._pre_filter_skipped:
            return None, Status(Code.Skip)
        out = self._plugin.pre_filter(state, pod, nodes)
        st = out if isinstance(out, Status) else (out[1] if isinstance(out, tuple) else None)
        self._pre_filter_skipped = isinstance(st, Status) and st.is_skip()
        return out

    def pre_score(self, state: Any, pod: Pod, nodes: Any) -> Any:
        if self._pre_score_skipped:
            return Status(Code.Skip)
        out = self._plugin.pre_score(state, pod, nodes)
        self._pre_score_skipped = isinstance(out, Status) and out.is_skip()
        return out


__all__ = ["NODE_LOCAL", "SKIP_STABLE", "identical_copy_scheduler"]
