"""The framework of one profile: builds its plugins and runs every extension point.

Upstream: pkg/scheduler/framework/runtime/framework.go. The runtime is the one caller of
plugin code: every extension point in the table of ``framework/extension_points.py`` (the
pod-group placement points, QueueSort's ``less``, EventsToRegister and the optional helpers
such as ``score_extensions`` included) is called here, and each call is guarded the same way:

* an exception becomes an Error Status naming the plugin ("plugin "X" raised in Filter:
  RuntimeError: ..."), so one broken plugin fails one pod's (or pod group's) attempt and
  never the run;
* what the plugin returns is checked: a value of the wrong type is an Error Status naming
  the plugin and what it returned, and every Status is honoured;
* methods a point lists as optional may be missing;
* plugins that are not kschedctl's own run in a Sandbox (runtime/sandbox.py): bounded in
  time, stdout sent to stderr, BaseExceptions contained.

Plugins are named by their registered name (what the configuration says), which is read once
at construction: ``name()`` is plugin code too. Like framework.go it holds one method per
extension point, which keeps it long; MultiPoint expansion, waiting pods, the score table and
the sandbox live beside it.
"""

from __future__ import annotations

import logging
import operator
from itertools import repeat
from typing import Any, Sequence

import numpy as np

from kschedctl.backend.cache.columnar import NodeBatch, columns_of
from kschedctl.config.types import Plugin, Profile
from kschedctl.framework.args import ArgsError
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.extension_points import (
    BY_FIELD,
    EXTENSION_POINTS,
    implements,
    label,
)
from kschedctl.framework.features import Features
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    MAX_PERMIT_TIMEOUT_SECONDS,
    MAX_TOTAL_SCORE,
    MIN_NODE_SCORE,
    ClusterEventWithHint,
    Code,
    NodePluginScores,
    NodeScore,
    PostFilterResult,
    PreFilterResult,
    Status,
)
from kschedctl.framework.placement import Placement, PlacementScore, PodGroupAssignment
from kschedctl.framework.runtime.guard import (
    is_int,
    optional,
    pair,
    permit_result,
    priority_less,
    raised,
    status_of,
    wrong,
)
from kschedctl.framework.runtime.multipoint import FrameworkError, expand_multi_point
from kschedctl.framework.runtime.registry import PluginSpec, Registry
from kschedctl.framework.runtime.sandbox import (
    PluginFailure,
    Sandbox,
    SandboxedPlugin,
    describe,
    sandbox_hint,
)
from kschedctl.framework.runtime.score_table import ScoreTable
from kschedctl.framework.runtime.services import Services
from kschedctl.framework.runtime.waiting_pods import WaitingPod
from kschedctl.framework.types import NodeInfo, NodeToStatus, PodInfo

log = logging.getLogger(__name__)

def _record_filter_results(name: str, alive: list[int], results: list[Status | None], out: np.ndarray,
                           distinct: dict[int, Status | None]) -> list[int] | None:
    """Record one Filter plugin's rejections of the nodes still passing (positions ``alive``)
    into ``out``; return the positions that passed.

    A plugin may return one Status object for many nodes (filter_batch groups nodes by
    outcome), so each distinct object is looked at once: its plugin is set, an error becomes
    the runtime's Error status (one per distinct object), and every node that got it records
    it as is. Recorded statuses are never mutated afterwards, so the sharing cannot be seen.
    ``distinct`` is {id: status} of ``results``. None (nothing recorded) when a result is not
    a Status or None: the caller asks the per-node calls, which say what is wrong.
    """
    if len(distinct) == 1 and results[0] is None:  # every node passed: nothing to record
        return alive
    verdict: dict[int, Status | None] = {}
    same = True
    for st in distinct.values():
        if st is not None and st.__class__ is not Status:
            return None
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


def _status(name: str, what: str, out: Any) -> Status:
    """status_of with the common cases first (a Status, or None for Success)."""
    if out.__class__ is Status:
        return out
    return Status() if out is None else status_of(name, what, out)


def _normalized_scores(scores: list[NodeScore], n: int) -> np.ndarray | None:
    """The scores NormalizeScore left, as an array (see _int_array); None when the plugin left
    something else than one NodeScore with an integer score per node."""
    try:
        values = [ns.score for ns in scores]
    except AttributeError:
        return None
    if len(values) != n:
        return None
    kind = np.asarray(values).dtype.kind if values else "i"
    if kind not in "iuO" or (kind == "O" and not all(is_int(v) for v in values)):
        return None  # floats, strings, bools: not scores
    return _int_array(values)


def _int_array(values: list[int]) -> np.ndarray:
    """Scores as an int64 array; an object array for values beyond int64 (a plugin's bug that
    the range check then reports with the value itself)."""
    try:
        return np.asarray(values, np.int64) if values else np.zeros(0, np.int64)
    except OverflowError:
        return np.asarray(values, dtype=object)


class Framework:
    """frameworkImpl: the plugins of one profile, and the Handle they are given."""

    def __init__(self, profile: Profile, registry: Registry, services: Services) -> None:
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        self.services = services
        self.features = Features.of(services.version)
        self.handle = Handle(self, services)
        self.snapshot: Any = None
        self.waiting_pods: dict[str, WaitingPod] = {}
        self.points: dict[str, list[Any]] = {p.field: [] for p in EXTENSION_POINTS}
        self.score_weights: dict[str, int] = {}
        self.placement_score_weights: dict[str, int] = {}
        self.instances: dict[str, Any] = {}
        self.plugin_names: dict[int, str] = {}  # id(plugin) -> its registered name
        # point -> (the plugin list as last seen, [(plugin, name)]) (_named)
        self._named_cache: dict[str, tuple[list[Any], list[tuple[Any, str]]]] = {}
        self._queue_sort_failed = False
        self._optional_methods: dict[tuple[int, str], Any] = {}  # (id(plugin), method) -> bound method or None
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
            self.instances[name] = self._new_plugin(spec, args_by_name.get(name))
        for point, plist in expanded.items():
            seen: set[str] = set()
            for p in plist:
                plugin = self.instances[p.name]
                if not implements(plugin, point):
                    raise FrameworkError(f"plugin \"{p.name}\" does not extend {label(point)} plugin")
                if p.name in seen:
                    raise FrameworkError(f"plugin \"{p.name}\" already registered as \"{label(point)}\"")
                seen.add(p.name)
                self.points[point].append(plugin)
        for ep in EXTENSION_POINTS:
            if not ep.configurable:  # every plugin of the profile with the method takes part
                self.points[ep.field] = [pl for pl in self.instances.values() if implements(pl, ep.field)]
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
        self._less = optional(self.points["queueSort"][0], "less") or priority_less

    def _new_plugin(self, spec: PluginSpec, args: Any) -> Any:
        """The plugin from its factory; anything not kschedctl's own is sandboxed. A factory
        that raises makes the profile impossible to build (NewFramework's error)."""
        sandbox = None if spec.trusted else Sandbox(spec.name, self.services.plugin_timeout)
        if spec.args_type is not None and not isinstance(args, spec.args_type):
            try:  # a profile built without config defaulting (tests, tools): decode and default here
                args = spec.new_args(args, self.features)
            except ArgsError as exc:
                raise FrameworkError(f"plugin \"{spec.name}\": {exc}") from exc
        try:
            if sandbox is None:
                plugin = spec.factory(args, self.handle)
            else:
                plugin = SandboxedPlugin(sandbox.call(spec.factory, args, self.handle), sandbox)
        except PluginFailure as exc:
            raise FrameworkError(f"plugin \"{spec.name}\": {exc}") from exc
        self.plugin_names[id(plugin)] = spec.name
        if sandbox is not None:
            self._check_name(plugin, spec.name)
        return plugin

    def _check_name(self, plugin: Any, name: str) -> None:
        """``name()`` is called once, guarded; the registered name is used either way."""
        try:
            said = plugin.name()
        except Exception as exc:  # noqa: BLE001 - plugin code
            self.services.warn(f"plugin \"{name}\": name() failed ({describe(exc)}); using its registered name")
            return
        if said != name:
            self.services.warn(f"plugin \"{name}\": name() returned {said!r}, not its registered name; "
                               f"using {name!r}")

    def name_of(self, plugin: Any) -> str:
        return self.plugin_names[id(plugin)]

    def _weights(self, profile: Profile, expanded: dict[str, list[Plugin]], point: str) -> dict[str, int]:
        """getScoreWeights: the first weight found at the point's own entries, then MultiPoint;
        0 or unset is 1."""
        assert profile.plugins is not None
        candidates = list(expanded[point]) + list(profile.plugins.multi_point.enabled)
        weights: dict[str, int] = {}
        for plugin in self.points[point]:
            name = self.name_of(plugin)
            weights[name] = int(next((p.weight for p in candidates if p.name == name and p.weight), None) or 1)
        return weights

    def _check_score_overflow(self) -> None:
        total = 0
        for weight in self.score_weights.values():
            if total > MAX_TOTAL_SCORE - weight * MAX_NODE_SCORE:
                raise FrameworkError("total score of Score plugins could overflow")
            total += weight * MAX_NODE_SCORE

    # --- what the scheduler asks -----------------------------------------------------------
    def plugins_at(self, point: str) -> list[Any]:
        return self.points[point]

    def has_filter_plugins(self) -> bool:
        return bool(self.points["filter"])

    def has_score_plugins(self) -> bool:
        return bool(self.points["score"])

    def has_post_filter_plugins(self) -> bool:
        return bool(self.points["postFilter"])

    def list_plugins(self) -> dict[str, list[str]]:
        return {point: [self.name_of(p) for p in plist] for point, plist in self.points.items()
                if plist and BY_FIELD[point].configurable}

    def _named(self, point: str) -> list[tuple[Any, str]]:
        """[(plugin, name)] of a point, while the plugin list is unchanged."""
        plist = self.points[point]
        cached = self._named_cache.get(point)
        if cached is None or cached[0] != plist:  # element identity compare: cheap
            cached = (list(plist), [(pl, self.plugin_names[id(pl)]) for pl in plist])
            self._named_cache[point] = cached
        return cached[1]

    def _call(self, name: str, what: str, target: Any, method: str, *args: Any) -> Any:
        """One guarded plugin call, ``target.method(*args)`` (looking the method up included):
        its result, or the Error Status of the exception."""
        try:
            return getattr(target, method)(*args)
        except Exception as exc:  # noqa: BLE001 - plugin code may raise anything
            return raised(name, what, exc)

    # --- EnqueueExtensions -----------------------------------------------------------------
    def enqueue_extensions(self) -> list[tuple[str, list[ClusterEventWithHint] | None]]:
        """EventsToRegister of every plugin: (name, registrations), None for a plugin without
        the method, interested in every event (defaultEnqueueExtension). A plugin whose
        EventsToRegister fails is treated as interested in every event (its pods are never
        stuck), and a warning says so."""
        out: list[tuple[str, list[ClusterEventWithHint] | None]] = []
        for name, pl in self.instances.items():
            if optional(pl, "events_to_register") is None:
                out.append((name, None))
                continue
            got = self._call(name, "EventsToRegister", pl, "events_to_register")
            if got is None:
                got = []
            if isinstance(got, Status) or not isinstance(got, (list, tuple)) or \
                    not all(isinstance(h, ClusterEventWithHint) for h in got):
                why = got.message() if isinstance(got, Status) else \
                    f"returned {type(got).__name__}, expected a list of ClusterEventWithHint"
                self.services.warn(f"plugin \"{name}\": EventsToRegister failed ({why}); its pods are retried on "
                                   "every cluster event")
                out.append((name, None))
                continue
            if isinstance(pl, SandboxedPlugin):
                got = [ClusterEventWithHint(h.event, sandbox_hint(h.queueing_hint_fn, pl._sandbox)) for h in got]
            out.append((name, list(got)))
        return out

    def _has(self, pl: Any, method: str) -> bool:
        """Does the plugin (or an object of its) have this (optional) method? Looking is
        guarded too."""
        return optional(pl, method) is not None

    def _opt(self, pl: Any, method: str) -> Any:
        """A plugin's optional method, looked up once per run (a plugin's methods do not come
        and go); None when it has none."""
        key = (id(pl), method)
        try:
            return self._optional_methods[key]
        except KeyError:
            fn = self._optional_methods[key] = optional(pl, method)
            return fn

    # --- PreEnqueue / QueueSort ------------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod: Any) -> Status:
        for pl, name in self._named("preEnqueue"):
            st = _status(name, "PreEnqueue", self._call(name, "PreEnqueue", pl, "pre_enqueue", pod))
            if not st.is_success():
                st.plugin = name
                if not st.is_rejected():
                    return Status(Code.Error, f"running PreEnqueue plugin \"{name}\": {st.message()}", plugin=name)
                return st
        return Status()

    def queue_sort_less(self, a: Any, b: Any) -> bool:
        """QueueSort's less. A QueueSort plugin cannot fail one pod (it orders them all): when
        it raises, times out or does not return a bool, the queue warns once and orders by
        PrioritySort's rule (priority, then queue time) from then on, so that the run goes on
        in a sane order and a hung plugin costs one time limit."""
        if self._queue_sort_failed:
            return priority_less(a, b)
        try:
            out = self._less(a, b)
        except Exception as exc:  # noqa: BLE001 - plugin code
            return self._queue_sort_failure(a, b, f"raised {describe(exc)}")
        if out is True or out is False:
            return out
        if isinstance(out, (bool, np.bool_)):
            return bool(out)
        return self._queue_sort_failure(a, b, f"returned {type(out).__name__}, expected a bool")

    def _queue_sort_failure(self, a: Any, b: Any, why: str) -> bool:
        name = self.name_of(self.points["queueSort"][0])
        self._queue_sort_failed = True
        self.services.warn(f"QueueSort plugin \"{name}\" {why} in Less; pods are ordered by priority, then "
                           "queue time, for the rest of the run")
        return priority_less(a, b)

    # --- PreFilter -------------------------------------------------------------------------
    def run_pre_filter_plugins(self, state: CycleState, pod: Any,
                               nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status, set[str]]:
        """Returns (merged result, status, plugin names): the rejecting plugins on failure,
        the plugins that narrowed the node set on success (framework.go RunPreFilterPlugins)."""
        result: PreFilterResult | None = None
        plugins_with_nodes: list[str] = []
        returned: Status | None = None
        skip = state.skip_filter_plugins
        for pl, name in self._named("preFilter"):
            out = self._call(name, "PreFilter", pl, "pre_filter", state, pod, nodes)
            if out.__class__ is tuple and len(out) == 2 and (out[0] is None or out[0].__class__ is PreFilterResult) \
                    and (out[1] is None or out[1].__class__ is Status):
                r, st = out[0], out[1] if out[1] is not None else Status()  # the common case, checked cheaply
            else:
                out = pair(name, "PreFilter", out, lambda r: r is None or isinstance(r, PreFilterResult),
                           "a (PreFilterResult | None, Status | None) pair")
                r, st = (None, out) if isinstance(out, Status) else out
            if st.is_skip():
                skip.add(name)
                continue
            if not st.is_success():
                st.plugin = name
                if st.code == Code.UnschedulableAndUnresolvable:
                    return None, st, {name}
                if st.code == Code.Unschedulable:
                    returned = st  # the last one is returned; the others run for preemption
                    continue
                msg = f"running PreFilter plugin \"{name}\": {st.message()}"
                return None, Status(Code.Error, msg, plugin=name, err=st.err), set()
            if r is not None and not r.all_nodes():
                plugins_with_nodes.append(name)
            result = r if result is None else result.merge(r)
            if result is not None and not result.all_nodes() and not result.node_names:
                names = sorted(set(plugins_with_nodes))
                if len(names) == 1:
                    msg = f"node(s) didn't satisfy plugin {names[0]}"
                else:
                    msg = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
                return result, Status(Code.UnschedulableAndUnresolvable, msg, plugin=name), set(plugins_with_nodes)
        # The set names the plugins that narrowed the nodes, also beside an Unschedulable
        # status (whose plugin the diagnosis adds): on success it words the absent-node status
        # "node(s) didn't satisfy plugin(s) [...]".
        return result, returned or Status(), set(plugins_with_nodes)

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: Any, info: PodInfo, node_info: NodeInfo) -> Status:
        return self._run_pre_filter_extension(state, pod, info, node_info, "AddPod", "add_pod")

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: Any, info: PodInfo, node_info: NodeInfo) -> Status:
        return self._run_pre_filter_extension(state, pod, info, node_info, "RemovePod", "remove_pod")

    def _pre_filter_extensions(self, pl: Any, name: str) -> Any:
        """The plugin's PreFilterExtensions (None: it has none); a Status when asking failed."""
        if self._opt(pl, "pre_filter_extensions") is None:
            return None
        ext = self._call(name, "PreFilterExtensions", pl, "pre_filter_extensions")
        if ext is None or isinstance(ext, Status):
            return ext
        if not (self._has(ext, "add_pod") and self._has(ext, "remove_pod")):
            return wrong(name, "PreFilterExtensions", ext, "None or an object with add_pod and remove_pod")
        return ext

    def _run_pre_filter_extension(self, state: CycleState, pod: Any, info: PodInfo, node_info: NodeInfo,
                                  what: str, method: str) -> Status:
        """AddPod / RemovePod of every PreFilter plugin not skipped this cycle (framework.go)."""
        skip = state.skip_filter_plugins
        for pl, name in self._named("preFilter"):
            if name in skip:
                continue
            ext = self._pre_filter_extensions(pl, name)
            if ext is None:
                continue
            if isinstance(ext, Status):
                st = ext
            else:
                st = _status(name, what, self._call(name, what, ext, method, state, pod, info, node_info))
            if not st.is_success():
                return Status(Code.Error, f"running {what} on PreFilter plugin \"{name}\": {st.message()}",
                              plugin=name)
        return Status()

    def has_pre_filter_extensions(self, state: CycleState) -> bool:
        """Whether AddPod / RemovePod would call any plugin for this state: when not, running
        them is a no-op returning Success, which preemption's dry run uses to skip the calls."""
        skip = state.skip_filter_plugins
        return any(name not in skip and self._pre_filter_extensions(pl, name) is not None
                   for pl, name in self._named("preFilter"))

    # --- Filter ----------------------------------------------------------------------------
    def run_filter_plugins(self, state: CycleState, pod: Any, node_info: NodeInfo) -> Status:
        """The first non-success status, tagged with its plugin (framework.go RunFilterPlugins)."""
        skip = state.skip_filter_plugins
        for pl, name in self._named("filter"):
            if name in skip:
                continue
            try:  # inline rather than _call: this is the hottest loop of a run
                st = pl.filter(state, pod, node_info)
            except Exception as exc:  # noqa: BLE001 - plugin code may raise anything
                st = raised(name, "Filter", exc)
            if st is None:
                continue
            if st.__class__ is not Status:
                st = status_of(name, "Filter", st)
            if st.code == Code.Success:
                continue
            st.plugin = name
            if not st.is_rejected():
                return Status(Code.Error, f"running \"{name}\" filter plugin: {st.message()}", plugin=name, err=st.err)
            return st
        return Status()

    def _filter_per_node(self, pl: Any, name: str, state: CycleState, pod: Any,
                         nodes: Sequence[NodeInfo]) -> list[Status | None]:
        """One plugin's Filter over nodes, one call each. After the first Error the remaining
        nodes get that same Error without a call: the search stops at the first Error in node
        order, so they are never looked at, and a failing (or hung) plugin is not called
        once per node."""
        results: list[Status | None] = []
        fn = optional(pl, "filter")
        if fn is None:
            return [raised(name, "Filter", AttributeError("filter"))] * len(nodes)
        for ni in nodes:
            try:
                st = fn(state, pod, ni)
            except Exception as exc:  # noqa: BLE001
                st = raised(name, "Filter", exc)
            if st is not None and st.__class__ is not Status:
                st = status_of(name, "Filter", st)
            results.append(st)
            if st is not None and st.code == Code.Error:
                results.extend(repeat(st, len(nodes) - len(results)))
                break
        return results

    def run_filter_plugins_batch(self, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> list[Status | None]:
        """run_filter_plugins for many nodes at once: the status each node would get from it
        (None for Success, so that no object is made for a feasible node).

        Plugins run in order over the nodes still passing; a plugin with ``filter_batch`` sees
        them all in one call, any other plugin (or a batch call that raises or returns
        something else than one Status or None per node) is called per node. Every node gets
        exactly the first non-success status, as in the per-node loop. Nodes with nominated
        pods take the two-pass path of run_filter_plugins_with_nominated_pods.
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
        for pl, name in self._named("filter"):
            if not alive:
                break
            if name in skip:
                continue
            sub = full if len(alive) == n else full.subset(alive)
            results: Any = None
            batch_fn = self._opt(pl, "filter_batch")
            if batch_fn is not None:
                try:
                    results = batch_fn(state, pod, sub)
                    if not isinstance(results, list):
                        results = list(results)
                    if len(results) != len(sub):
                        results = None  # not one result per node: the per-node calls below
                except Exception:  # noqa: BLE001 - the per-node calls below report it exactly
                    log.debug("filter_batch of %s raised; per-node fallback", name, exc_info=True)
                    results = None
            if results is not None:
                recorded = _record_filter_results(name, alive, results, out, dict(zip(map(id, results), results)))
                if recorded is not None:
                    alive = recorded
                    continue
            results = self._filter_per_node(pl, name, state, pod, sub)
            alive = _record_filter_results(name, alive, results, out, dict(zip(map(id, results), results))) or []
        return out.tolist()

    def _nominated_node_names(self) -> Any:
        """The names of nodes with nominated pods (a dict or set); None when unknown."""
        nominator = self.services.nominator
        if nominator is None:
            return ()
        pods = getattr(nominator, "nominated_pods", None)
        return pods if isinstance(pods, dict) else None

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Any, node_info: NodeInfo) -> Status:
        """Two passes: with the nominated pods of equal or higher priority, then without (5.6)."""
        nominated = self._nominated_node_names()
        if nominated is not None and node_info.name not in nominated:
            return self.run_filter_plugins(state, pod, node_info)  # nothing to add: one pass
        nominator = self.services.nominator
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
        try:
            state_out = state.clone()  # plugins' state data clone themselves
        except Exception as exc:  # noqa: BLE001
            return False, state, node_info, Status(Code.Error, f"cloning the cycle state: {describe(exc)}", err=exc)
        added = False
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
        for pl, name in self._named("postFilter"):
            out = pair(name, "PostFilter", self._call(name, "PostFilter", pl, "post_filter", state, pod, node_to_status),
                        lambda r: r is None or isinstance(r, PostFilterResult),
                        "a (PostFilterResult | None, Status | None) pair")
            r, st = (None, out) if isinstance(out, Status) else out
            if st.is_success() or st.code == Code.UnschedulableAndUnresolvable:
                st.plugin = name
                return r, st
            if not st.is_rejected():
                return None, Status(Code.Error, st.message(), plugin=name, err=st.err)
            reasons.extend(st.reasons)
            rejector = rejector or name
            if r is not None and r.mode != "Noop":
                result = r
        return result, Status(Code.Unschedulable, *reasons, plugin=rejector)

    # --- PreScore / Score ------------------------------------------------------------------
    def run_pre_score_plugins(self, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> Status:
        skip = state.skip_score_plugins
        for pl, name in self._named("preScore"):
            st = _status(name, "PreScore", self._call(name, "PreScore", pl, "pre_score", state, pod, nodes))
            if st.is_skip():
                skip.add(name)
                continue
            if not st.is_success():
                return Status(Code.Error, f"running PreScore plugin \"{name}\": {st.message()}", plugin=name, err=st.err)
        return Status()

    def run_score_plugins(self, state: CycleState, pod: Any,
                          nodes: Sequence[NodeInfo]) -> tuple[list[NodePluginScores], Status]:
        """Score, NormalizeScore, range check, weights (framework.go RunScorePlugins)."""
        table, status = self.run_score_plugins_table(state, pod, nodes)
        if table is None:
            return [], status
        return table.node_plugin_scores(), status

    def _score_per_node(self, pl: Any, name: str, state: CycleState, pod: Any,
                        nodes: Sequence[NodeInfo]) -> np.ndarray | Status:
        """One Score call per node: the raw scores, or the Status that ends the phase."""
        per_node: list[int] = []
        score = optional(pl, "score")
        if score is None:
            return Status(Code.Error, f"running Score plugins: {raised(name, 'Score', AttributeError('score')).message()}",
                          plugin=name)
        for info in nodes:
            try:
                out = score(state, pod, info)
            except Exception as exc:  # noqa: BLE001
                out = raised(name, "Score", exc)
            if out.__class__ is tuple and len(out) == 2 and out[1] is None and out[0].__class__ is int:
                per_node.append(out[0])  # the common case, checked cheaply: (int, None)
                continue
            if isinstance(out, Status):
                return Status(Code.Error, f"running Score plugins: {out.message()}", plugin=name, err=out.err)
            checked = pair(name, "Score", out, is_int, "an (int, Status | None) pair")
            if isinstance(checked, Status):
                return Status(Code.Error, f"running Score plugins: {checked.message()}", plugin=name)
            value, st = checked
            if st.code != Code.Success:
                return Status(Code.Error, f"running Score plugins: plugin \"{name}\" failed with: {st.message()}",
                              plugin=name, err=st.err)
            per_node.append(int(value))
        return _int_array(per_node)

    def _normalize(self, pl: Any, name: str, state: CycleState, pod: Any, batch_nodes: NodeBatch | None,
                   names: list[str], values: np.ndarray) -> np.ndarray | Status:
        """NormalizeScore through the plugin's ScoreExtensions, when it has them."""
        n = len(names)
        if self._opt(pl, "score_extensions") is None:
            return values
        ext = self._call(name, "ScoreExtensions", pl, "score_extensions")
        if ext is None:
            return values
        if isinstance(ext, Status) or not self._has(ext, "normalize_score"):
            why = ext.message() if isinstance(ext, Status) else \
                wrong(name, "ScoreExtensions", ext, "None or an object with normalize_score").message()
            return Status(Code.Error, f"running Normalize on Score plugins: {why}", plugin=name)
        normalized = None
        norm_batch = optional(ext, "normalize_score_batch") if batch_nodes is not None else None
        if norm_batch is not None:
            # optional batch NormalizeScore: the nodes and their scores (an int64 array) in,
            # the normalized scores out; if it raises, normalize_score reports it
            try:
                normalized = np.asarray(norm_batch(state, pod, batch_nodes, values.copy()), np.int64)
                if normalized.shape != (n,):
                    normalized = None
            except Exception:  # noqa: BLE001
                log.debug("normalize_score_batch of %s raised; per-node fallback", name, exc_info=True)
                normalized = None
        if normalized is None:
            scores = [NodeScore(nm, v) for nm, v in zip(names, values.tolist())]
            st = _status(name, "NormalizeScore", self._call(name, "NormalizeScore", ext, "normalize_score",
                                                               state, pod, scores))
            if not st.is_success():
                return Status(Code.Error, f"running Normalize on Score plugins: plugin \"{name}\" failed with: "
                                          f"{st.message()}", plugin=name)
            normalized = _normalized_scores(scores, n)
            if normalized is None:
                return Status(Code.Error, f"running Normalize on Score plugins: plugin \"{name}\" left scores that are "
                                          "not one integer NodeScore per node", plugin=name)
        return normalized

    def run_score_plugins_table(self, state: CycleState, pod: Any,
                                nodes: Sequence[NodeInfo]) -> tuple["ScoreTable | None", Status]:
        """run_score_plugins as columns (one list of scores per plugin): no object per node and
        plugin, which is what makes scoring thousands of nodes cheap. ``score_batch`` is used
        when a plugin has it (and ``use_batch`` is on), else one ``score`` call per node."""
        skip = state.skip_score_plugins
        plugins = [(pl, name) for pl, name in self._named("score") if name not in skip]
        columns = columns_of(self.snapshot) if self.use_batch else None
        batch_nodes = NodeBatch(nodes, columns) if columns is not None else None
        rows = batch_nodes.rows if batch_nodes is not None and plugins else None
        table = ScoreTable(columns.names_of(rows) if rows is not None and columns is not None else [n.name for n in nodes])
        n = len(nodes)
        totals = np.zeros(n, np.int64)  # weights x 100 per plugin: bounded by MAX_TOTAL_SCORE
        for pl, name in plugins:
            values: Any = None
            batch_fn = self._opt(pl, "score_batch") if batch_nodes is not None else None
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
                values = self._score_per_node(pl, name, state, pod, nodes)
                if isinstance(values, Status):
                    return None, values
            values = self._normalize(pl, name, state, pod, batch_nodes, table.names, values)
            if isinstance(values, Status):
                return None, values
            weight = self.score_weights[name]
            if n and (int(values.max()) > MAX_NODE_SCORE or int(values.min()) < MIN_NODE_SCORE):
                bad = next(v for v in values.tolist() if v > MAX_NODE_SCORE or v < MIN_NODE_SCORE)
                msg = (f"applying score defaultWeights on Score plugins: plugin \"{name}\" returns an invalid "
                       f"score {bad}, it should in the range of "
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
        for pl, name in self._named("reserve"):
            st = _status(name, "Reserve", self._call(name, "Reserve", pl, "reserve", state, pod, node_name))
            if not st.is_success():
                st.plugin = name
                if st.is_rejected():
                    return st
                return Status(Code.Error, f"running Reserve plugin \"{name}\": {st.message()}", plugin=name, err=st.err)
        return Status()

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Any, node_name: str) -> None:
        """Every Unreserve runs, in reverse order; their failures are only logged."""
        for pl, name in reversed(self._named("reserve")):
            if self._opt(pl, "unreserve") is not None:
                self._call(name, "Unreserve", pl, "unreserve", state, pod, node_name)

    def run_permit_plugins(self, state: CycleState, pod: Any, node_name: str) -> Status:
        waits: dict[str, float] = {}
        messages: list[str] = []
        for pl, name in self._named("permit"):
            st, timeout = permit_result(name, self._call(name, "Permit", pl, "permit", state, pod, node_name))
            if st.is_success():
                continue
            st.plugin = name
            if st.is_rejected():
                return st
            if st.is_wait():
                waits[name] = min(timeout, MAX_PERMIT_TIMEOUT_SECONDS)
                messages.append(st.message())
                continue
            return Status(Code.Error, f"running Permit plugin \"{name}\": {st.message()}", plugin=name, err=st.err)
        if waits:
            now = self.services.clock.now()
            self.waiting_pods[pod.uid] = WaitingPod(pod, node_name, {n: now + t for n, t in waits.items()}, waits,
                                                    messages=messages)
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
        for pl, name in self._named("preBind"):
            if self._opt(pl, "pre_bind_pre_flight") is not None:
                st = _status(name, "PreBindPreFlight", self._call(name, "PreBindPreFlight", pl, "pre_bind_pre_flight",
                                                                     state, pod, node_name))
            else:
                st = Status()
            if st.is_skip():
                state.skip_pre_bind_plugins.add(name)
            elif st.is_success():
                any_success = True
            else:
                return Status(Code.Error, f"running PreBindPreFlight \"{name}\": {st.message()}", plugin=name)
        return Status() if any_success else Status(Code.Skip)

    def run_pre_bind_plugins(self, state: CycleState, pod: Any, node_name: str) -> Status:
        for pl, name in self._named("preBind"):
            if name in state.skip_pre_bind_plugins:
                continue
            st = _status(name, "PreBind", self._call(name, "PreBind", pl, "pre_bind", state, pod, node_name))
            if not st.is_success():
                st.plugin = name
                if st.is_rejected():
                    return st
                return Status(Code.Error, f"running PreBind plugin \"{name}\": {st.message()}", plugin=name, err=st.err)
        return Status()

    def run_bind_plugins(self, state: CycleState, pod: Any, node_name: str) -> Status:
        if not self.points["bind"]:
            return Status(Code.Skip)
        st = Status(Code.Skip)
        for pl, name in self._named("bind"):
            st = _status(name, "Bind", self._call(name, "Bind", pl, "bind", state, pod, node_name))
            if st.is_skip():
                continue
            if not st.is_success():
                st.plugin = name
                if st.is_rejected():
                    return st
                return Status(Code.Error, f"running Bind plugin \"{name}\": {st.message()}", plugin=name, err=st.err)
            return st
        return st

    def run_post_bind_plugins(self, state: CycleState, pod: Any, node_name: str) -> None:
        for pl, name in self._named("postBind"):
            self._call(name, "PostBind", pl, "post_bind", state, pod, node_name)

    # --- pod-group placement points --------------------------------------------------------
    def run_placement_generate_plugins(self, group: Any, placements: list[Placement]) -> tuple[list[Placement], Status]:
        """RunPlacementGeneratePlugins: each plugin refines every placement of the previous one."""
        for pl, name in self._named("placementGenerate"):
            out: list[Placement] = []
            for parent in placements:
                got = self._call(name, "PlacementGenerate", pl, "placement_generate", group, parent)
                if isinstance(got, list):
                    got = (got, None)
                checked = pair(name, "PlacementGenerate", got,
                                lambda r: r is None or (isinstance(r, list) and all(isinstance(p, Placement) for p in r)),
                                "a list of Placement (or a (list, Status | None) pair)")
                if isinstance(checked, Status):
                    res, st = None, checked
                else:
                    res, st = checked
                if not st.is_success():
                    return [], Status(Code.Error, f"running PlacementGenerate plugin \"{name}\": {st.message()}",
                                      plugin=name)
                out.extend(res or [])
            placements = out
        return placements, Status()

    def run_placement_score_plugins(self, group: Any,
                                    assignments: list[PodGroupAssignment]) -> tuple[list[int], Status]:
        """RunPlacementScorePlugins: each plugin's scores (normalized where it normalizes) times
        its placementScore weight, summed per placement."""
        totals = [0] * len(assignments)
        for pl, name in self._named("placementScore"):
            scores = []
            for a in assignments:
                got = self._call(name, "PlacementScore", pl, "placement_score", group, a)
                if is_int(got):
                    got = (got, None)
                checked = pair(name, "PlacementScore", got, is_int, "an int (or an (int, Status | None) pair)")
                if isinstance(checked, Status) or not checked[1].is_success():
                    st = checked if isinstance(checked, Status) else checked[1]
                    return [], Status(Code.Error, f"running PlacementScore plugin \"{name}\": {st.message()}",
                                      plugin=name)
                scores.append(PlacementScore(a.placement, int(checked[0])))
            if self._opt(pl, "normalize_placement_score") is not None:
                st = status_of(name, "NormalizePlacementScore",
                                self._call(name, "NormalizePlacementScore", pl, "normalize_placement_score", group, scores))
                if st.is_success() and not all(isinstance(s, PlacementScore) and is_int(s.score) for s in scores):
                    st = Status(Code.Error, f"plugin \"{name}\" left scores that are not integers", plugin=name)
                if not st.is_success():
                    return [], Status(Code.Error, f"running NormalizePlacementScore plugin \"{name}\": "
                                                  f"{st.message()}", plugin=name)
            w = int(self.placement_score_weights.get(name) or 1)
            for i, s in enumerate(scores):
                totals[i] += int(s.score) * w
        return totals, Status()

    def run_placement_feasible_plugins(self, group: Any, scheduled: int, remaining: int) -> Status:
        """RunPlacementFeasiblePlugins (1.37): the first non-success status; without such a
        plugin the group is feasible."""
        for pl, name in self._named("placementFeasible"):
            st = status_of(name, "PlacementFeasible",
                            self._call(name, "PlacementFeasible", pl, "placement_feasible", group, scheduled, remaining))
            if not st.is_success():
                st.plugin = st.plugin or name
                return st
        return Status()


__all__ = ["Framework", "FrameworkError"]
