"""PodTopologySpread: hard and soft spreading of pods over topology domains.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/. Modules: common.py (constraints,
default selector, counting), filtering.py (PreFilter/Filter), scoring.py (PreScore/Score),
args.py (PodTopologySpreadArgs), plugin.py (the plugin, events and queueing hints), batch.py (the
class the registry builds: the plugin plus the vectorised Filter, Score and NormalizeScore), details.py (what explain shows behind a
rejection).
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec, with_features
from kschedctl.plugins.pod_topology_spread.args import PodTopologySpreadArgs
from kschedctl.plugins.pod_topology_spread.batch import PodTopologySpread
from kschedctl.plugins.pod_topology_spread.plugin import NAME


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, with_features(PodTopologySpread), PodTopologySpread, args_type=PodTopologySpreadArgs)


__all__ = ["NAME", "PodTopologySpread", "plugin_spec"]
