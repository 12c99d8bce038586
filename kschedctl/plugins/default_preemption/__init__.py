"""DefaultPreemption plugin package: the plugin (plugin.py), the preemption.Interface of the
generic Evaluator in kschedctl/preemption, and DefaultPreemptionArgs (args.py).

Upstream: pkg/scheduler/framework/plugins/defaultpreemption/.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec, with_features
from kschedctl.plugins.default_preemption.args import DefaultPreemptionArgs
from kschedctl.plugins.default_preemption.plugin import (
    NAME,
    DefaultPreemption,
    pod_terminating_by_preemption,
)
from kschedctl.preemption.evaluator import (
    Candidate,
    Evaluator,
    earliest_pod_start_time,
    filter_pods_with_pdb_violation,
    more_important_pod,
    pick_one_node_for_preemption,
    pod_start_time,
)


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, with_features(DefaultPreemption), DefaultPreemption, args_type=DefaultPreemptionArgs)


__all__ = [
    "Candidate",
    "DefaultPreemption",
    "DefaultPreemptionArgs",
    "Evaluator",
    "NAME",
    "earliest_pod_start_time",
    "filter_pods_with_pdb_violation",
    "more_important_pod",
    "pick_one_node_for_preemption",
    "plugin_spec",
    "pod_start_time",
    "pod_terminating_by_preemption",
]
