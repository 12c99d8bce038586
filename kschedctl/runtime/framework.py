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
at construction: ``name()`` is plugin code too. framework.go holds one method per extension
point; here they are grouped by phase, one module each (filter_points.py, score_points.py,
binding_points.py, placement_points.py, sharing calls.py), and this module builds the profile
and runs the queueing points. MultiPoint expansion, waiting pods, the score table, the result
checks (guard.py) and the sandbox live beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from kschedctl.api.jsontypes import JSONObject
from kschedctl.framework.args import ArgsError, PluginArgs
from kschedctl.framework.config_types import Plugin, Profile
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
    MAX_TOTAL_SCORE,
    ClusterEventWithHint,
    Code,
    Status,
)
from kschedctl.framework.registry import PluginSpec, Registry
from kschedctl.framework.waiting_pods import WaitingPod
from kschedctl.lazy import loaded
from kschedctl.runtime.binding_points import BindingPoints
from kschedctl.runtime.filter_points import FilterPoints
from kschedctl.runtime.guard import as_status, optional, priority_less
from kschedctl.runtime.multipoint import FrameworkError, expand_multi_point
from kschedctl.runtime.placement_points import PlacementPoints
from kschedctl.runtime.plugin_args import new_args
from kschedctl.runtime.sandbox import (
    PluginFailure,
    Sandbox,
    SandboxedPlugin,
    describe,
    sandbox_hint,
)
from kschedctl.runtime.score_points import ScorePoints
from kschedctl.runtime.services import Services


class Framework(FilterPoints, ScorePoints, BindingPoints, PlacementPoints):
    """frameworkImpl: the plugins of one profile, and the Handle they are given. The runners of
    the extension points come from one class per group (calls.py says which)."""

    def __init__(self, profile: Profile, registry: Registry, services: Services) -> None:
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        self.services = services
        self.features = Features.of(services.version)
        self.handle = Handle(self, services)
        self.snapshot: Any = None
        self.waiting_pods: dict[str, WaitingPod] = services.waiting_pods  # every profile's (Services)
        self.points: dict[str, list[Any]] = {p.field: [] for p in EXTENSION_POINTS}
        self.score_weights: dict[str, int] = {}
        self.placement_score_weights: dict[str, int] = {}
        self.instances: dict[str, Any] = {}
        self.plugin_names: dict[int, str] = {}  # id(plugin) -> its registered name
        # point -> (the plugin list as last seen, [(plugin, name)]) (_named)
        self._named_cache: dict[str, tuple[list[Any], list[tuple[Any, str]]]] = {}
        self._queue_sort_failed = False
        self._optional_methods: dict[tuple[int, str], Any] = {}  # (id(plugin), method) -> bound method or None
        self._kept_adds_by_node = (None, {})  # FilterPoints._adds_for_priority
        # Batch forms of Filter/Score (filter_batch / score_batch) are used when True; the
        # per-node path is kept for plugins without them and for the equivalence tests.
        self.use_batch = True
        self._build(profile, registry)

    # --- construction ----------------------------------------------------------------------
    def _build(self, profile: Profile, registry: Registry) -> None:
        args_by_name: dict[str, PluginArgs | JSONObject | None] = {}
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
                raise FrameworkError(f'plugin "{name}" does not exist')
            self.instances[name] = self._new_plugin(spec, args_by_name.get(name))
        for point, plist in expanded.items():
            seen: set[str] = set()
            for p in plist:
                plugin = self.instances[p.name]
                if not implements(plugin, point):
                    raise FrameworkError(f'plugin "{p.name}" does not extend {label(point)} plugin')
                if p.name in seen:
                    raise FrameworkError(f'plugin "{p.name}" already registered as "{label(point)}"')
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
                f'only one queue sort plugin required for profile with scheduler name "{self.profile_name}", '
                f"but got {len(self.points['queueSort'])}"
            )
        if not self.points["bind"]:
            raise FrameworkError(f'at least one bind plugin is needed for profile with scheduler name "{self.profile_name}"')
        self._less = optional(self.points["queueSort"][0], "less") or priority_less
        self.queue_sort_key = _sort_key(self.points["queueSort"][0])

    def _new_plugin(self, spec: PluginSpec, args: Any) -> Any:
        """The plugin from its factory; anything not kschedctl's own is sandboxed. A factory
        that raises makes the profile impossible to build (NewFramework's error)."""
        sandbox = None if spec.trusted else Sandbox(spec.name, self.services.plugin_timeout)
        if spec.args_type is not None and not isinstance(args, spec.args_type):
            try:  # a profile built without config defaulting (tests, tools): decode and default here
                args = new_args(spec, args, self.features)
            except ArgsError as exc:
                raise FrameworkError(f'plugin "{spec.name}": {exc}') from exc
        try:
            if sandbox is None:
                plugin = spec.factory(args, self.handle)
            else:
                plugin = SandboxedPlugin(sandbox.call(spec.factory, args, self.handle), sandbox)
        except PluginFailure as exc:
            raise FrameworkError(f'plugin "{spec.name}": {exc}') from exc
        self.plugin_names[id(plugin)] = spec.name
        if sandbox is not None:
            self._check_name(plugin, spec.name)
        return plugin

    def _check_name(self, plugin: Any, name: str) -> None:
        """``name()`` is called once, guarded; the registered name is used either way."""
        try:
            said = plugin.name()
        except Exception as exc:  # noqa: BLE001 - plugin code
            self.services.warn(f'plugin "{name}": name() failed ({describe(exc)}); using its registered name')
            return
        if said != name:
            self.services.warn(f'plugin "{name}": name() returned {said!r}, not its registered name; using {name!r}')

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
        return {point: [self.name_of(p) for p in plist] for point, plist in self.points.items() if plist and BY_FIELD[point].configurable}

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
            if isinstance(got, Status) or not isinstance(got, (list, tuple)) or not all(isinstance(h, ClusterEventWithHint) for h in got):
                why = (
                    got.message() if isinstance(got, Status) else f"returned {type(got).__name__}, expected a list of ClusterEventWithHint"
                )
                self.services.warn(f'plugin "{name}": EventsToRegister failed ({why}); its pods are retried on every cluster event')
                out.append((name, None))
                continue
            if isinstance(pl, SandboxedPlugin):
                got = [ClusterEventWithHint(h.event, sandbox_hint(h.queueing_hint_fn, pl._sandbox)) for h in got]
            out.append((name, list(got)))
        return out

    # --- PreEnqueue / QueueSort ------------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod: Any) -> Status:
        for pl, name in self._named("preEnqueue"):
            out = self._call(name, "PreEnqueue", pl, "pre_enqueue", pod)
            if out is None:
                continue  # Success: no Status made to say so
            st = as_status(name, "PreEnqueue", out)
            if not st.is_success():
                st.plugin = name
                if not st.is_rejected():
                    return Status(Code.Error, f'running PreEnqueue plugin "{name}": {st.message()}', plugin=name)
                return st
        return Status()

    def pre_enqueue_share_key(self, pod: Any, gating_plugin: str) -> Hashable | None:
        """A key under which the queue may share, between the pods gated by ``gating_plugin``,
        what one event does to them: pods with equal keys (gated by that plugin with the same
        message) get the same answer from this profile's PreEnqueue plugins and the same
        queueing hints from ``gating_plugin`` at any one moment, so one pod's requeue tells
        what the others' would do. None: no such key (the pod is asked on its own).

        The key is ``gating_plugin``'s ``pre_enqueue_share_key(pod)``, given only when every
        PreEnqueue plugin ahead of it vouches that it admits this pod object whatever the
        cluster's state (``pre_enqueue_always_admits(pod)``): the chain's answer is then the
        gating plugin's. Both promises are kschedctl's own plugins' (a sandboxed plugin makes
        none; a subclass that overrides PreEnqueue does not inherit them). A pod object's key is
        fixed; the queue keeps it with the pod."""
        for pl, name in self._named("preEnqueue"):
            if name == gating_plugin:
                share = _vouched(pl, "pre_enqueue_share_key")
                key = None if share is None else self._call(name, "PreEnqueue", pl, share, pod)
                return None if key is None or isinstance(key, Status) else (name, key)
            admits = _vouched(pl, "pre_enqueue_always_admits")
            if admits is None or self._call(name, "PreEnqueue", pl, admits, pod) is not True:
                return None
        return None

    # queue_sort_key: the QueueSort plugin's order as a key function, or None (see _sort_key)
    queue_sort_key: Callable[[Any], Any] | None

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
        np = loaded("numpy")  # a numpy bool only exists once numpy is loaded
        if np is not None and isinstance(out, np.bool_):
            return bool(out)
        return self._queue_sort_failure(a, b, f"returned {type(out).__name__}, expected a bool")

    def _queue_sort_failure(self, a: Any, b: Any, why: str) -> bool:
        name = self.name_of(self.points["queueSort"][0])
        self._queue_sort_failed = True
        self.services.warn(
            f'QueueSort plugin "{name}" {why} in Less; pods are ordered by priority, then queue time, for the rest of the run'
        )
        return priority_less(a, b)


__all__ = ["Framework", "FrameworkError"]


def _vouched(plugin: Any, method: str) -> str | None:
    """``method`` when the plugin's class defines it and PreEnqueue in the same class (the
    promise it makes is about that PreEnqueue), else None. Looked up on the class: a sandboxed
    plugin's proxy defines neither."""
    owner = _defining_class(type(plugin), method)
    if owner is None or _defining_class(type(plugin), "pre_enqueue") is not owner:
        return None
    return method


def _defining_class(cls: type, attr: str) -> type | None:
    return next((c for c in cls.__mro__ if attr in c.__dict__), None)


def _sort_key(plugin: Any) -> Callable[[Any], Any] | None:
    """The QueueSort plugin's ``sort_key`` when it declares itself the key of this very plugin's
    less (``sort_key.orders is type(plugin).less``: PrioritySort's), else None; the queue then
    orders by the key, the same order as less, without calling less per comparison."""
    key = optional(plugin, "sort_key")
    if key is None:
        return None
    try:
        orders = getattr(key, "orders", None)
        own = getattr(type(plugin), "less", None)
    except Exception:  # noqa: BLE001 - plugin code
        return None
    return key if orders is not None and orders is own else None
