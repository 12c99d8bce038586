"""The framework of one profile: builds its plugins and runs every extension point.

Upstream: pkg/scheduler/framework/runtime/framework.go. Plugins are reached only through
the protocols of ``interface.py``. A plugin that raises is turned into an Error status that
names it, so one broken plugin fails one pod's attempt and never the run. Like framework.go it
holds one method per extension point, which keeps it long; the pieces with a life of their own
(MultiPoint expansion, waiting pods, the score table) live beside it.
"""

from __future__ import annotations

import logging
import operator
from functools import partial
from itertools import repeat
from typing import Any, Callable, Sequence

import numpy as np

from kschedctl.backend.cache.columnar import NodeBatch, columns_of
from kschedctl.config.types import Plugin, Profile
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    MAX_PERMIT_TIMEOUT_SECONDS,
    MAX_TOTAL_SCORE,
    MIN_NODE_SCORE,
    Code,
    NodePluginScores,
    NodeScore,
    PostFilterResult,
    PreFilterResult,
    Status,
    implements,
)
from kschedctl.framework.runtime.multipoint import (
    POINT_LABELS,
    RUNTIME_POINTS,
    FrameworkError,
    expand_multi_point,
)
from kschedctl.framework.runtime.registry import Registry
from kschedctl.framework.runtime.score_table import ScoreTable
from kschedctl.framework.runtime.waiting_pods import WaitingPod
from kschedctl.framework.types import NodeInfo, NodeToStatus, PodInfo

log = logging.getLogger(__name__)

def _record_filter_results(name: str, alive: list[int], results: list[Status | None], out: np.ndarray) -> list[int]:
    """Record one Filter plugin's rejections of the nodes still passing (positions ``alive``)
    into ``out``; return the positions that passed.

    A plugin may return one Status object for many nodes (filter_batch groups nodes by
    outcome), so each distinct object is looked at once: its plugin is set, an error becomes
    the runtime's Error status (one per distinct object), and every node that got it records
    it as is. Recorded statuses are never mutated afterwards, so the sharing cannot be seen.
    """
    distinct = dict(zip(map(id, results), results))
    if len(distinct) == 1 and results[0] is None:  # every node passed: nothing to record
        return alive
    verdict: dict[int, Status | None] = {}
    same = True
    for key, st in distinct.items():
        if st is None or st.code == Code.Success:
            verdict[key] = None
            same = same and st is None
            continue
        st.plugin = name
        if not st.is_rejected():
            st = Status(Code.Error, f"running \"{name}\" filter plugin: {st.message()}", plugin=name, err=st.err)
            same = False
        verdict[key] = st
    recorded = results if same else list(map(verdict.__getitem__, map(id, results)))
    failed = np.fromiter(map(operator.is_not, recorded, repeat(None)), bool, len(recorded))
    where = np.flatnonzero(failed)
    if not len(where):
        return alive
    values = np.empty(len(recorded), object)
    values[:] = recorded
    positions = np.asarray(alive, dtype=np.intp)
    out[positions[where]] = values[where]
    return positions[~failed].tolist()


def _guard(plugin: Any, what: str, call: Callable[[], Any]) -> Any:
    """Run one plugin call; an exception becomes an Error Status naming the plugin."""
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - third-party plugin code may raise anything
        log.debug("plugin %s raised in %s", plugin.name(), what, exc_info=True)
        return Status(Code.Error, f"plugin \"{plugin.name()}\" raised in {what}: {type(exc).__name__}: {exc}",
                      plugin=plugin.name(), err=exc)


def _reraise(exc: BaseException) -> Any:
    raise exc


def _int_array(values: list[int]) -> np.ndarray:
    """Scores as an int64 array; an object array for values beyond int64 (a plugin's bug that
    the range check then reports with the value itself)."""
    try:
        return np.asarray(values, np.int64) if values else np.zeros(0, np.int64)
    except OverflowError:
        return np.asarray(values, dtype=object)


def _as_status(value: Any) -> Status:
    return value if isinstance(value, Status) else Status()


class Framework:
    """frameworkImpl: the plugins of one profile, and the Handle they are given."""

    def __init__(self, profile: Profile, registry: Registry, context: Any) -> None:
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        self.context = context  # the scheduler-wide state plugins may read (see Handle methods)
        self.snapshot: Any = None
        self.waiting_pods: dict[str, WaitingPod] = {}
        self.points: dict[str, list[Any]] = {p: [] for p in RUNTIME_POINTS}
        self.score_weights: dict[str, int] = {}
        self.placement_score_weights: dict[str, int] = {}
        self.instances: dict[str, Any] = {}
        # point -> (the plugin list as last seen, [(plugin, name)]): names read once (_named)
        self._named_cache: dict[str, tuple[list[Any], list[tuple[Any, str]]]] = {}
        # Batch forms of Filter/Score (filter_batch / score_batch) are used when True; the
        # per-node path is kept for plugins without them and for the equivalence tests.
        self.use_batch = True
        self._build(profile, registry)

    # --- construction ----------------------------------------------------------------------
    def _build(self, profile: Profile, registry: Registry) -> None:
        args_by_name: dict[str, dict | None] = {}
        for pc in profile.plugin_config:
            if pc.name in args_by_name:
                raise FrameworkError(f"repeated config for plugin {pc.name}")
            args_by_name[pc.name] = pc.args
        assert profile.plugins is not None, "profile must be defaulted first"
        expanded = expand_multi_point(profile.plugins, registry)
        for name in [p.name for plist in expanded.values() for p in plist]:
            if name in self.instances:
                continue
            spec = registry.get(name)
            if spec is None:
                raise FrameworkError(f"plugin \"{name}\" does not exist")
            self.instances[name] = spec.factory(args_by_name.get(name), self)
        for point, plist in expanded.items():
            seen: set[str] = set()
            for p in plist:
                plugin = self.instances[p.name]
                if not implements(plugin, point):
                    raise FrameworkError(f"plugin \"{p.name}\" does not extend {POINT_LABELS.get(point, point)} plugin")
                if p.name in seen:
                    raise FrameworkError(f"plugin \"{p.name}\" already registered as \"{POINT_LABELS.get(point, point)}\"")
                seen.add(p.name)
                self.points[point].append(plugin)
        self.score_weights = self._weights(profile, expanded, "score")
        self._check_score_overflow()
        # A weight under `score` applies only to per-pod scoring (upstream docs,
        # topology-aware-scheduling.md); placement scorers take theirs from placementScore.
        self.placement_score_weights = self._weights(profile, expanded, "placementScore")
        if len(self.points["queueSort"]) != 1:
            raise FrameworkError(
                f"only one queue sort plugin required for profile with scheduler name \"{self.profile_name}\", "
                f"but got {len(self.points['queueSort'])}")
        if not self.points["bind"]:
            raise FrameworkError(f"at least one bind plugin is needed for profile with scheduler name \"{self.profile_name}\"")

    def _weights(self, profile: Profile, expanded: dict[str, list[Plugin]], point: str) -> dict[str, int]:
        """getScoreWeights: the first weight found at the point's own entries, then MultiPoint;
        0 or unset is 1."""
        assert profile.plugins is not None
        candidates = list(expanded[point]) + list(profile.plugins.multi_point.enabled)
        weights: dict[str, int] = {}
        for plugin in self.points[point]:
            name = plugin.name()
            weights[name] = int(next((p.weight for p in candidates if p.name == name and p.weight), None) or 1)
        return weights

    def _check_score_overflow(self) -> None:
        total = 0
        for weight in self.score_weights.values():
            if total > MAX_TOTAL_SCORE - weight * MAX_NODE_SCORE:
                raise FrameworkError("total score of Score plugins could overflow")
            total += weight * MAX_NODE_SCORE

    # --- Handle ----------------------------------------------------------------------------
    def snapshot_shared_lister(self) -> Any:
        return self.snapshot

    @property
    def objects(self) -> Any:
        return self.context.objects

    @property
    def version(self) -> Any:
        return self.context.version

    @property
    def rng(self) -> Any:
        return self.context.rng

    @property
    def clock(self) -> Any:
        return self.context.clock

    @property
    def nominator(self) -> Any:
        return self.context.nominator

    def plugins_at(self, point: str) -> list[Any]:
        return self.points[point]

    def has_filter_plugins(self) -> bool:
        return bool(self.points["filter"])

    def has_score_plugins(self) -> bool:
        return bool(self.points["score"])

    def has_post_filter_plugins(self) -> bool:
        return bool(self.points["postFilter"])

    def list_plugins(self) -> dict[str, list[str]]:
        return {point: [p.name() for p in plist] for point, plist in self.points.items() if plist}

    # --- PreEnqueue / QueueSort ------------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod: Any) -> Status:
        for pl in self.points["preEnqueue"]:
            st = _as_status(_guard(pl, "PreEnqueue", lambda pl=pl: pl.pre_enqueue(pod)))
            if not st.is_success():
                st.plugin = pl.name()
                if not st.is_rejected():
                    return Status(Code.Error, f"running PreEnqueue plugin \"{pl.name()}\": {st.message()}", plugin=pl.name())
                return st
        return Status()

    def queue_sort_less(self, a: Any, b: Any) -> bool:
        return self.points["queueSort"][0].less(a, b)

    # --- PreFilter -------------------------------------------------------------------------
    def run_pre_filter_plugins(self, state: CycleState, pod: Any,
                               nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status, set[str]]:
        """Returns (merged result, status, plugin names): the rejecting plugins on failure,
        the plugins that narrowed the node set on success (framework.go RunPreFilterPlugins)."""
        result: PreFilterResult | None = None
        plugins_with_nodes: list[str] = []
        rejectors: set[str] = set()
        returned: Status | None = None
        skip = state.skip_filter_plugins
        for pl in self.points["preFilter"]:
            out = _guard(pl, "PreFilter", lambda pl=pl: pl.pre_filter(state, pod, nodes))
            if isinstance(out, Status):
                r, st = None, out
            else:
                r, st = out
                st = _as_status(st)
            if st.is_skip():
                skip.add(pl.name())
                continue
            if not st.is_success():
                st.plugin = pl.name()
                if st.code == Code.UnschedulableAndUnresolvable:
                    return None, st, {pl.name()}
                if st.code == Code.Unschedulable:
                    rejectors.add(pl.name())
                    returned = st
                    continue
                msg = f"running PreFilter plugin \"{pl.name()}\": {st.message()}"
                return None, Status(Code.Error, msg, plugin=pl.name(), err=st.err), set()
            if r is not None and not r.all_nodes():
                plugins_with_nodes.append(pl.name())
            result = r if result is None else result.merge(r)
            if result is not None and not result.all_nodes() and not result.node_names:
                names = sorted(set(plugins_with_nodes))
                if len(names) == 1:
                    msg = f"node(s) didn't satisfy plugin {names[0]}"
                else:
                    msg = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
                return result, Status(Code.UnschedulableAndUnresolvable, msg, plugin=pl.name()), set(plugins_with_nodes)
        if returned is not None:
            return result, returned, rejectors
        # On success the set names the plugins that narrowed the nodes: it words the
        # absent-node status "node(s) didn't satisfy plugin(s) [...]".
        return result, Status(), set(plugins_with_nodes)

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: Any, info: PodInfo, node_info: NodeInfo) -> Status:
        return self._run_pre_filter_extension(state, pod, info, node_info, "AddPod", "add_pod")

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: Any, info: PodInfo, node_info: NodeInfo) -> Status:
        return self._run_pre_filter_extension(state, pod, info, node_info, "RemovePod", "remove_pod")

    def _run_pre_filter_extension(self, state: CycleState, pod: Any, info: PodInfo, node_info: NodeInfo,
                                  what: str, method: str) -> Status:
        """AddPod / RemovePod of every PreFilter plugin not skipped this cycle (framework.go)."""
        skip = state.skip_filter_plugins
        for pl, name in self._named("preFilter"):
            if name in skip:
                continue
            ext = pl.pre_filter_extensions()
            if ext is None:
                continue
            fn = getattr(ext, method)
            st = _as_status(_guard(pl, what, partial(fn, state, pod, info, node_info)))
            if not st.is_success():
                return Status(Code.Error, f"running {what} on PreFilter plugin \"{name}\": {st.message()}",
                              plugin=name)
        return Status()

    def has_pre_filter_extensions(self, state: CycleState) -> bool:
        """Whether AddPod / RemovePod would call any plugin for this state: when not, running
        them is a no-op returning Success, which preemption's dry run uses to skip the calls."""
        skip = state.skip_filter_plugins
        return any(name not in skip and pl.pre_filter_extensions() is not None for pl, name in self._named("preFilter"))

    def _named(self, point: str) -> list[tuple[Any, str]]:
        """[(plugin, name)] of a point, the names read once while the plugin list is unchanged."""
        plist = self.points[point]
        cached = self._named_cache.get(point)
        if cached is None or cached[0] != plist:  # element identity compare: cheap
            cached = (list(plist), [(pl, pl.name()) for pl in plist])
            self._named_cache[point] = cached
        return cached[1]

    # --- Filter ----------------------------------------------------------------------------
    def run_filter_plugins(self, state: CycleState, pod: Any, node_info: NodeInfo) -> Status:
        """The first non-success status, tagged with its plugin (framework.go RunFilterPlugins)."""
        skip = state.skip_filter_plugins
        for pl, name in self._named("filter"):
            if name in skip:
                continue
            try:  # inline rather than _guard: this is the hottest loop of a run
                st = pl.filter(state, pod, node_info)
            except Exception as exc:  # noqa: BLE001 - third-party plugin code may raise anything
                st = _guard(pl, "Filter", partial(_reraise, exc))
            if st is None or st.code == Code.Success:
                continue
            st.plugin = name
            if not st.is_rejected():
                return Status(Code.Error, f"running \"{name}\" filter plugin: {st.message()}", plugin=name, err=st.err)
            return st
        return Status()

    def run_filter_plugins_batch(self, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> list[Status | None]:
        """run_filter_plugins for many nodes at once: the status each node would get from it
        (None for Success, so that no object is made for a feasible node).

        Plugins run in order over the nodes still passing; a plugin with ``filter_batch`` sees
        them all in one call, any other plugin (or a batch call that raises) is called per node.
        Every node gets exactly the first non-success status, as in the per-node loop. Nodes with
        nominated pods take the two-pass path of run_filter_plugins_with_nominated_pods.
        """
        n = len(nodes)
        out = np.full(n, None, object)  # a list at the end
        nominated = self._nominated_node_names()
        if nominated is None:
            return [self.run_filter_plugins_with_nominated_pods(state, pod, ni) for ni in nodes]  # type: ignore[misc]
        alive = list(range(n))
        if nominated:
            alive = []
            for i, ni in enumerate(nodes):
                if ni.name in nominated:
                    out[i] = self.run_filter_plugins_with_nominated_pods(state, pod, ni)
                else:
                    alive.append(i)
        full = NodeBatch(nodes, columns_of(self.snapshot))
        skip = state.skip_filter_plugins
        for pl in self.points["filter"]:
            if not alive:
                break
            name = pl.name()
            if name in skip:
                continue
            sub = full if len(alive) == n else full.subset(alive)
            results = None
            batch_fn = getattr(pl, "filter_batch", None)
            if batch_fn is not None:
                try:
                    results = batch_fn(state, pod, sub)
                    if len(results) != len(sub):
                        results = None
                except Exception:  # noqa: BLE001 - the per-node calls below report it exactly
                    log.debug("filter_batch of %s raised; per-node fallback", name, exc_info=True)
                    results = None
            if results is None:
                results = []
                for ni in sub:
                    try:
                        results.append(pl.filter(state, pod, ni))
                    except Exception as exc:  # noqa: BLE001
                        results.append(_guard(pl, "Filter", partial(_reraise, exc)))
            if not isinstance(results, list):
                results = list(results)
            alive = _record_filter_results(name, alive, results, out)
        return out.tolist()

    def _nominated_node_names(self) -> Any:
        """The names of nodes with nominated pods (a dict or set); None when unknown."""
        nominator = self.context.nominator if self.context is not None else None
        if nominator is None:
            return ()
        pods = getattr(nominator, "nominated_pods", None)
        return pods if isinstance(pods, dict) else None

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Any, node_info: NodeInfo) -> Status:
        """Two passes: with the nominated pods of equal or higher priority, then without (5.6)."""
        nominated = self._nominated_node_names()
        if nominated is not None and node_info.name not in nominated:
            return self.run_filter_plugins(state, pod, node_info)  # nothing to add: one pass
        nominator = self.context.nominator
        pods_added = False
        status = Status()
        for i in range(2):
            state_to_use, info_to_use = state, node_info
            if i == 0:
                pods_added, state_to_use, info_to_use, st = self._add_nominated_pods(state, pod, node_info, nominator)
                if not st.is_success():
                    return st
            elif not pods_added or not status.is_success():
                break
            status = self.run_filter_plugins(state_to_use, pod, info_to_use)
            if not status.is_success() and not status.is_rejected():
                return status
        return status

    def _add_nominated_pods(self, state: CycleState, pod: Any, node_info: NodeInfo,
                            nominator: Any) -> tuple[bool, CycleState, NodeInfo, Status]:
        if nominator is None or node_info.node is None:
            return False, state, node_info, Status()
        nominated = nominator.nominated_pods_for_node(node_info.name)
        if not nominated:
            return False, state, node_info, Status()
        priority = pod.effective_priority()
        if not any(pi.pod.effective_priority() >= priority and pi.pod.uid != pod.uid for pi in nominated):
            return False, state, node_info, Status()  # none would be added: no copies needed
        info_out = node_info.clone()
        state_out = state.clone()
        added = False
        priority = pod.effective_priority()
        for pi in nominated:
            if pi.pod.effective_priority() >= priority and pi.pod.uid != pod.uid:
                info_out.add_pod_info(pi)
                st = self.run_pre_filter_extension_add_pod(state_out, pod, pi, info_out)
                if not st.is_success():
                    return False, state, node_info, st
                added = True
        return added, state_out, info_out, Status()

    # --- PostFilter ------------------------------------------------------------------------
    def run_post_filter_plugins(self, state: CycleState, pod: Any,
                                node_to_status: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        reasons: list[str] = []
        result: PostFilterResult | None = None
        rejector = ""
        for pl in self.points["postFilter"]:
            out = _guard(pl, "PostFilter", lambda pl=pl: pl.post_filter(state, pod, node_to_status))
            r, st = (None, out) if isinstance(out, Status) else (out[0], _as_status(out[1]))
            if st.is_success() or st.code == Code.UnschedulableAndUnresolvable:
                st.plugin = pl.name()
                return r, st
            if not st.is_rejected():
                return None, Status(Code.Error, st.message(), plugin=pl.name(), err=st.err)
            reasons.extend(st.reasons)
            rejector = rejector or pl.name()
            if r is not None and r.mode != "Noop":
                result = r
        return result, Status(Code.Unschedulable, *reasons, plugin=rejector)

    # --- PreScore / Score ------------------------------------------------------------------
    def run_pre_score_plugins(self, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> Status:
        skip = state.skip_score_plugins
        for pl in self.points["preScore"]:
            st = _as_status(_guard(pl, "PreScore", lambda pl=pl: pl.pre_score(state, pod, nodes)))
            if st.is_skip():
                skip.add(pl.name())
                continue
            if not st.is_success():
                return Status(Code.Error, f"running PreScore plugin \"{pl.name()}\": {st.message()}", plugin=pl.name(), err=st.err)
        return Status()

    def run_score_plugins(self, state: CycleState, pod: Any,
                          nodes: Sequence[NodeInfo]) -> tuple[list[NodePluginScores], Status]:
        """Score, NormalizeScore, range check, weights (framework.go RunScorePlugins)."""
        table, status = self.run_score_plugins_table(state, pod, nodes)
        if table is None:
            return [], status
        return table.node_plugin_scores(), status

    def run_score_plugins_table(self, state: CycleState, pod: Any,
                                nodes: Sequence[NodeInfo]) -> tuple["ScoreTable | None", Status]:
        """run_score_plugins as columns (one list of scores per plugin): no object per node and
        plugin, which is what makes scoring thousands of nodes cheap. ``score_batch`` is used
        when a plugin has it (and ``use_batch`` is on), else one ``score`` call per node."""
        skip = state.skip_score_plugins
        plugins = [pl for pl in self.points["score"] if pl.name() not in skip]
        columns = columns_of(self.snapshot) if self.use_batch else None
        batch_nodes = NodeBatch(nodes, columns) if columns is not None else None
        rows = batch_nodes.rows if batch_nodes is not None and plugins else None
        table = ScoreTable(columns.names_of(rows) if rows is not None else [n.name for n in nodes])
        n = len(nodes)
        totals = np.zeros(n, np.int64)  # weights x 100 per plugin: bounded by MAX_TOTAL_SCORE
        for pl in plugins:
            name = pl.name()
            values: Any = None
            batch_fn = getattr(pl, "score_batch", None) if batch_nodes is not None else None
            if batch_fn is not None:
                try:
                    values = batch_fn(state, pod, batch_nodes)
                    values = np.asarray(values if isinstance(values, np.ndarray) else list(values), np.int64)
                    if values.shape != (n,):
                        values = None
                except Exception:  # noqa: BLE001 - the per-node calls below report it exactly
                    log.debug("score_batch of %s raised; per-node fallback", name, exc_info=True)
                    values = None
            if values is None:
                per_node: list[int] = []
                score = pl.score
                for info in nodes:
                    try:
                        out = score(state, pod, info)
                    except Exception as exc:  # noqa: BLE001
                        out = _guard(pl, "Score", partial(_reraise, exc))
                    if isinstance(out, Status):
                        return None, Status(Code.Error, f"running Score plugins: {out.message()}", plugin=name, err=out.err)
                    value, st = out
                    if st is not None and st.code != Code.Success:
                        return None, Status(Code.Error, f"plugin \"{name}\" failed with: {st.message()}", plugin=name, err=st.err)
                    per_node.append(int(value))
                values = _int_array(per_node)
            ext = pl.score_extensions()
            if ext is not None:
                normalized = None
                norm_batch = getattr(ext, "normalize_score_batch", None) if batch_nodes is not None else None
                if norm_batch is not None:
                    # optional batch NormalizeScore: the nodes and their scores (an int64 array)
                    # in, the normalized scores out; if it raises, normalize_score reports it
                    try:
                        normalized = np.asarray(norm_batch(state, pod, batch_nodes, values.copy()), np.int64)
                        if normalized.shape != (n,):
                            normalized = None
                    except Exception:  # noqa: BLE001
                        log.debug("normalize_score_batch of %s raised; per-node fallback", name, exc_info=True)
                        normalized = None
                if normalized is None:
                    scores = [NodeScore(nm, v) for nm, v in zip(table.names, values.tolist())]
                    st = _as_status(_guard(pl, "NormalizeScore", lambda ext=ext: ext.normalize_score(state, pod, scores)))
                    if not st.is_success():
                        return None, Status(Code.Error, f"running Normalize on Score plugins: plugin \"{name}\" failed with: "
                                            f"{st.message()}", plugin=name)
                    normalized = _int_array([ns.score for ns in scores])
                values = normalized
            weight = self.score_weights[name]
            if n and (int(values.max()) > MAX_NODE_SCORE or int(values.min()) < MIN_NODE_SCORE):
                bad = next(v for v in values.tolist() if v > MAX_NODE_SCORE or v < MIN_NODE_SCORE)
                msg = (f"plugin \"{name}\" returns an invalid score {bad}, it should in the range of "
                       f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing")
                return None, Status(Code.Error, msg, plugin=name)
            if values.dtype != np.int64:
                values = values.astype(np.int64)
            table.plugins.append((name, weight, values.tolist()))
            if n:
                totals += values * weight
        table.totals = totals.tolist()
        return table, Status()

    # --- Reserve / Permit ------------------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod: Any, node_name: str) -> Status:
        for pl in self.points["reserve"]:
            st = _as_status(_guard(pl, "Reserve", lambda pl=pl: pl.reserve(state, pod, node_name)))
            if not st.is_success():
                st.plugin = pl.name()
                if st.is_rejected():
                    return st
                return Status(Code.Error, f"running Reserve plugin \"{pl.name()}\": {st.message()}", plugin=pl.name(), err=st.err)
        return Status()

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Any, node_name: str) -> None:
        """Every Unreserve runs, in reverse order; their failures are only logged."""
        for pl in reversed(self.points["reserve"]):
            _guard(pl, "Unreserve", lambda pl=pl: pl.unreserve(state, pod, node_name))

    def run_permit_plugins(self, state: CycleState, pod: Any, node_name: str) -> Status:
        waits: dict[str, float] = {}
        for pl in self.points["permit"]:
            out = _guard(pl, "Permit", lambda pl=pl: pl.permit(state, pod, node_name))
            st, timeout = (out, 0.0) if isinstance(out, Status) else (_as_status(out[0]), float(out[1] or 0))
            if st.is_success():
                continue
            st.plugin = pl.name()
            if st.is_rejected():
                return st
            if st.is_wait():
                waits[pl.name()] = min(timeout, MAX_PERMIT_TIMEOUT_SECONDS)
                continue
            return Status(Code.Error, f"running Permit plugin \"{pl.name()}\": {st.message()}", plugin=pl.name(), err=st.err)
        if waits:
            now = self.context.clock.now() if self.context is not None else 0.0
            self.waiting_pods[pod.uid] = WaitingPod(pod, node_name, {n: now + t for n, t in waits.items()}, waits)
            return Status(Code.Wait, f"one or more plugins asked to wait and no plugin rejected pod \"{pod.name}\"")
        return Status()

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self.waiting_pods.get(uid)

    def iterate_over_waiting_pods(self) -> list[WaitingPod]:
        return list(self.waiting_pods.values())

    def reject_waiting_pod(self, uid: str) -> bool:
        wp = self.waiting_pods.get(uid)
        if wp is None:
            return False
        wp.reject("", "removed")
        return True

    # --- binding cycle ---------------------------------------------------------------------
    def run_pre_bind_pre_flights(self, state: CycleState, pod: Any, node_name: str) -> Status:
        """Success if any plugin has work, Skip if none has (skipped ones' PreBind won't run)."""
        any_success = False
        for pl in self.points["preBind"]:
            fn = getattr(pl, "pre_bind_pre_flight", None)
            st = _as_status(_guard(pl, "PreBindPreFlight", lambda fn=fn: fn(state, pod, node_name))) if fn else Status()
            if st.is_skip():
                state.skip_pre_bind_plugins.add(pl.name())
            elif st.is_success():
                any_success = True
            else:
                return Status(Code.Error, f"running PreBindPreFlight \"{pl.name()}\": {st.message()}", plugin=pl.name())
        return Status() if any_success else Status(Code.Skip)

    def run_pre_bind_plugins(self, state: CycleState, pod: Any, node_name: str) -> Status:
        for pl in self.points["preBind"]:
            if pl.name() in state.skip_pre_bind_plugins:
                continue
            st = _as_status(_guard(pl, "PreBind", lambda pl=pl: pl.pre_bind(state, pod, node_name)))
            if not st.is_success():
                st.plugin = pl.name()
                if st.is_rejected():
                    return st
                return Status(Code.Error, f"running PreBind plugin \"{pl.name()}\": {st.message()}", plugin=pl.name(), err=st.err)
        return Status()

    def run_bind_plugins(self, state: CycleState, pod: Any, node_name: str) -> Status:
        if not self.points["bind"]:
            return Status(Code.Skip)
        st = Status(Code.Skip)
        for pl in self.points["bind"]:
            st = _as_status(_guard(pl, "Bind", lambda pl=pl: pl.bind(state, pod, node_name)))
            if st.is_skip():
                continue
            if not st.is_success():
                st.plugin = pl.name()
                if st.is_rejected():
                    return st
                return Status(Code.Error, f"running Bind plugin \"{pl.name()}\": {st.message()}", plugin=pl.name(), err=st.err)
            return st
        return st

    def run_post_bind_plugins(self, state: CycleState, pod: Any, node_name: str) -> None:
        for pl in self.points["postBind"]:
            _guard(pl, "PostBind", lambda pl=pl: pl.post_bind(state, pod, node_name))
