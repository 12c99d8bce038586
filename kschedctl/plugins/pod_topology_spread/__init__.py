"""PodTopologySpread: hard and soft spreading of pods over topology domains.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/. Modules: common.py (constraints,
default selector, counting), filtering.py (PreFilter/Filter), scoring.py (PreScore/Score),
args.py (PodTopologySpreadArgs), plugin.py (the plugin, events and queueing hints).
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec, with_features
from kschedctl.plugins.pod_topology_spread.args import PodTopologySpreadArgs
from kschedctl.plugins.pod_topology_spread.plugin import NAME, PodTopologySpread


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, with_features(PodTopologySpread), PodTopologySpread, args_type=PodTopologySpreadArgs)


__all__ = ["NAME", "PodTopologySpread", "plugin_spec"]
