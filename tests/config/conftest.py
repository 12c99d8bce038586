"""A registry for config validation tests: the real plugins, plus stand-ins for the default
plugins not written yet (so the tests do not depend on the order other modules land in).

A stand-in implements the extension points the upstream plugin implements (reference 1.3).
"""

from __future__ import annotations

import pytest

from kschedctl.framework.registry import PluginSpec, Registry
from kschedctl.plugins.plugin_manager import default_registry

# upstream plugin -> the method names of the extension points it implements
_POINTS = {
    "SchedulingGates": ["pre_enqueue"],
    "PrioritySort": ["less"],
    "NodeUnschedulable": ["filter"],
    "NodeName": ["filter"],
    "TaintToleration": ["filter", "pre_score", "score"],
    "NodeAffinity": ["pre_filter", "filter", "pre_score", "score"],
    "NodePorts": ["pre_filter", "filter"],
    "NodeResourcesFit": ["pre_filter", "filter", "pre_score", "score"],
    "VolumeRestrictions": ["pre_filter", "filter"],
    "NodeVolumeLimits": ["pre_filter", "filter"],
    "VolumeBinding": ["pre_filter", "filter", "pre_score", "score", "reserve", "pre_bind"],
    "VolumeZone": ["pre_filter", "filter"],
    "PodTopologySpread": ["pre_filter", "filter", "pre_score", "score"],
    "InterPodAffinity": ["pre_filter", "filter", "pre_score", "score"],
    "DynamicResources": ["pre_filter", "filter", "post_filter", "pre_score", "score", "reserve", "pre_bind"],
    "DefaultPreemption": ["pre_enqueue", "post_filter"],
    "NodeResourcesBalancedAllocation": ["pre_score", "score"],
    "ImageLocality": ["score"],
    "DefaultBinder": ["bind"],
    "GangScheduling": ["pre_enqueue", "reserve", "permit"],
}


def stub_spec(name: str, methods: list[str]) -> PluginSpec:
    def _method(self, *args, **kwargs):  # pragma: no cover - never run, only looked up
        return None

    body = {m: _method for m in methods}
    body["__init__"] = lambda self, args, handle: None
    body["name"] = lambda self: name
    cls = type(f"Stub{name}", (), body)
    return PluginSpec(name, cls, cls)


def registry_with_stubs() -> Registry:
    registry = Registry()
    registry.merge(default_registry().registry)
    for name, methods in _POINTS.items():
        if name not in registry:
            registry.register(stub_spec(name, methods))
    return registry


@pytest.fixture(scope="session")
def registry() -> Registry:
    return registry_with_stubs()
