"""PodTopologySpread: hard and soft spreading of pods over topology domains.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/. Modules: common.py (constraints,
default selector, counting), filtering.py (PreFilter/Filter), scoring.py (PreScore/Score),
args.py (PodTopologySpreadArgs), plugin.py (the plugin, events and queueing hints).
"""

from __future__ import annotations

from kschedctl.framework.runtime.registry import PluginSpec
from kschedctl.plugins.pod_topology_spread.args import default_args, validate_args
from kschedctl.plugins.pod_topology_spread.plugin import NAME, PodTopologySpread


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, PodTopologySpread, PodTopologySpread, args_kind="PodTopologySpreadArgs",
                      default_args=default_args, validate_args=validate_args)


__all__ = ["NAME", "PodTopologySpread", "plugin_spec"]
