"""What every extension point's runner shares: the plugins at each point, their registered
names, and the one guarded way of calling them.

The Framework (framework.py) is assembled from one runner per group of extension points, as
framework.go groups its Run*Plugins methods: filter_points.py (PreFilter, Filter,
PostFilter), score_points.py (PreScore, Score, NormalizeScore), binding_points.py (Reserve,
Permit, PreBind, Bind, PostBind), placement_points.py (the pod-group placement points); the
queueing points (PreEnqueue, QueueSort, EnqueueExtensions) stay with the construction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kschedctl.backend.cache.columnar import columns_of
from kschedctl.runtime.guard import optional, raised
from kschedctl.runtime.services import Services

if TYPE_CHECKING:
    from kschedctl.framework.types import PodInfo


class PluginCalls:
    """The state every runner reads (set by Framework.__init__) and the guarded call."""

    services: Services
    snapshot: Any
    points: dict[str, list[Any]]
    plugin_names: dict[int, str]  # id(plugin) -> its registered name
    # point -> (the plugin list as last seen, [(plugin, name)]) (_named)
    _named_cache: dict[str, tuple[list[Any], list[tuple[Any, str]]]]
    _optional_methods: dict[tuple[int, str], Any]  # (id(plugin), method) -> bound method or None
    # the nominator they were kept for, and pod priority -> (the nominator's ``changes`` when
    # read, node name -> the nominated pods a first pass adds) (FilterPoints._adds_for_priority)
    _kept_adds_by_node: tuple[Any, dict[int, tuple[int, dict[str, tuple[PodInfo, ...]]]]]
    # Batch forms of Filter/Score (filter_batch / score_batch) are used when True
    use_batch: bool

    def batches(self) -> bool:
        """Whether this cycle's Filter and Score go through the batch forms: ``use_batch`` is on
        and the snapshot has a columnar view (a small Scheduler snapshot has none, so a small
        run calls each plugin per node and never imports numpy; both ways decide the same)."""
        return self.use_batch and columns_of(self.snapshot) is not None

    def name_of(self, plugin: Any) -> str:
        return self.plugin_names[id(plugin)]

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
        its result, or the Error Status of the exception. PreFilter and PreScore, which call
        every plugin of a profile for every pod (a dozen and eight with the defaults), write
        these lines in their loops instead: a call frame less per plugin and pod."""
        try:
            return getattr(target, method)(*args)
        except Exception as exc:  # noqa: BLE001 - plugin code may raise anything
            return raised(name, what, exc)

    # --- EnqueueExtensions -----------------------------------------------------------------
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
