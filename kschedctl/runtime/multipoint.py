"""MultiPoint expansion of a profile's plugins (framework.go expandMultiPointPlugins).

A plugin enabled under `multiPoint` joins every extension point it implements, unless that
point disables it (or disables "*"); an entry at the point itself overrides the MultiPoint one.
"""

from __future__ import annotations

from typing import Any

from kschedctl.framework.config_types import Plugin, PluginSet
from kschedctl.framework.extension_points import CONFIG_FIELDS, implements, label
from kschedctl.framework.registry import Registry


class FrameworkError(ValueError):
    """The profile cannot be built (framework.go NewFramework errors)."""


def expand_multi_point(plugins: Any, registry: Registry) -> dict[str, list[Plugin]]:
    """expandMultiPointPlugins: each MultiPoint plugin joins every point it implements.

    Order per point: overrides (in the point's own order), then MultiPoint-only plugins,
    then the point's remaining plugins. A point whose `disabled` has "*" takes nothing from
    MultiPoint.
    """
    out: dict[str, list[Plugin]] = {}
    mp: PluginSet = plugins.multi_point
    for point in CONFIG_FIELDS:
        specific: PluginSet = plugins.get(point)
        disabled = {p.name for p in specific.disabled}
        if "*" in disabled:
            out[point] = list(specific.enabled)
            continue
        specific_names = {p.name for p in specific.enabled}
        overrides: list[Plugin] = []
        from_mp: list[Plugin] = []
        seen_mp: set[str] = set()
        for p in mp.enabled:
            spec = registry.get(p.name)
            if spec is None:
                raise FrameworkError(f'{label(point)} "{p.name}" does not exist')
            if not implements(spec.plugin_class, point):
                continue
            if p.name in disabled:
                continue
            if p.name in specific_names:
                continue  # override: the specific entry wins, placed below
            if p.name in seen_mp:
                raise FrameworkError(f'plugin "{p.name}" already registered as "{label(point)}"')
            seen_mp.add(p.name)
            from_mp.append(p)
        mp_names = {p.name for p in mp.enabled}
        for p in specific.enabled:
            if p.name in mp_names and p.name not in disabled:
                overrides.append(p)
        rest = [p for p in specific.enabled if p.name not in mp_names or p.name in disabled]
        out[point] = overrides + from_mp + rest
    return out
