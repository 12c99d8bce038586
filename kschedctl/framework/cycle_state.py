"""CycleState: per-scheduling-cycle scratch data shared by the plugins of one profile.

Upstream: pkg/scheduler/framework/cycle_state.go. Plugins write what PreFilter/PreScore
computed under their own key and read it back in Filter/Score; preemption and nominated-pod
filtering clone the state so their AddPod/RemovePod changes never leak into the real cycle.
Values stored must offer ``clone()`` when they are mutated by PreFilterExtensions.
"""

from __future__ import annotations

from typing import Any


class StateNotFound(KeyError):
    """framework.ErrNotFound: nothing was written under this key in this cycle.

    Its text is kube's, "not found", whoever turns it into a Status (a KeyError would print
    the quoted key instead); the key stays available as ``key``.
    """

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key

    def __str__(self) -> str:
        return "not found"


class StateCloneError(Exception):
    """A stored value's ``clone()`` failed (plugin code: whatever it raised, BaseExceptions
    included, becomes this, so the runtime fails the attempt and never the run)."""


class CycleState:
    __slots__ = ("_storage", "skip_filter_plugins", "skip_score_plugins", "skip_pre_bind_plugins", "record_plugin_metrics")

    def __init__(self) -> None:
        self._storage: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()
        self.skip_pre_bind_plugins: set[str] = set()
        self.record_plugin_metrics = False

    def read(self, key: str) -> Any:
        try:
            return self._storage[key]
        except KeyError:
            raise StateNotFound(key) from None

    def write(self, key: str, value: Any) -> None:
        self._storage[key] = value

    def delete(self, key: str) -> None:
        self._storage.pop(key, None)

    def get(self, key: str, default: Any = None) -> Any:
        return self._storage.get(key, default)

    def clone(self) -> "CycleState":
        """Each stored value is cloned when it knows how (StateData.Clone)."""
        copy = CycleState()
        for key, value in self._storage.items():
            clone = getattr(value, "clone", None)
            if not callable(clone):
                copy._storage[key] = value
                continue
            try:
                copy._storage[key] = clone()
            except BaseException as exc:  # noqa: BLE001 - plugin code; a real Ctrl-C still stops the run
                if type(exc) is KeyboardInterrupt:
                    raise
                raise StateCloneError(f"cloning the cycle state data {key!r}: {type(exc).__name__}: {exc}") from exc
        copy.skip_filter_plugins = set(self.skip_filter_plugins)
        copy.skip_score_plugins = set(self.skip_score_plugins)
        copy.skip_pre_bind_plugins = set(self.skip_pre_bind_plugins)
        copy.record_plugin_metrics = self.record_plugin_metrics
        return copy
