"""The generic preemption Evaluator (evaluator.py), as kube keeps it apart from any plugin.

Upstream: pkg/scheduler/framework/preemption/. The DefaultPreemption plugin
(kschedctl/plugins/default_preemption) is its preemption.Interface; an installed PostFilter
plugin could drive it the same way. It reads only the framework and the API types, so it sits
just above kschedctl/framework in tests/test_tree.py's LAYERS, below the plugins that use it.
"""

from __future__ import annotations

from kschedctl.preemption.evaluator import (
    Candidate,
    Evaluator,
    earliest_pod_start_time,
    filter_pods_with_pdb_violation,
    more_important_pod,
    pick_one_node_for_preemption,
    pod_start_time,
)

__all__ = [
    "Candidate",
    "Evaluator",
    "earliest_pod_start_time",
    "filter_pods_with_pdb_violation",
    "more_important_pod",
    "pick_one_node_for_preemption",
    "pod_start_time",
]
