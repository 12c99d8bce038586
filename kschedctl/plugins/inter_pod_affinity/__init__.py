"""The InterPodAffinity plugin, one module per concern:

- plugin.py: the faithful per-node port
- batch.py: its vectorised numpy twin, a subclass of the port adding the batch forms (what
  the registry builds)
- args.py: its typed args
- details.py: the facts `explain` shows behind a Filter rejection
- counts.py: the per-snapshot counts kept across cycles

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec
from kschedctl.plugins.inter_pod_affinity.args import InterPodAffinityArgs
from kschedctl.plugins.inter_pod_affinity.batch import InterPodAffinity
from kschedctl.plugins.inter_pod_affinity.plugin import NAME


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, InterPodAffinity, InterPodAffinity, args_type=InterPodAffinityArgs)


__all__ = ["InterPodAffinity", "plugin_spec"]
