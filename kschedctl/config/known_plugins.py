"""Plugin names a kube-scheduler user may write that kschedctl's registry does not hold, and
what to say about each instead of a bare "not registered" (or a did-you-mean that names another
plugin).

Three kinds:
- the packages shipped in this repository's plugins/ folder, when they are not installed;
- kubernetes-sigs/scheduler-plugins' plugins (their names as its ``pkg/*/`` packages register
  them), which kschedctl cannot run unless a package for them is installed;
- in-tree plugins kube-scheduler removed, with their successors (the v1beta2/v1beta3 -> v1
  migration notes of KubeSchedulerConfiguration; NodeResourcesLeastAllocated,
  NodeResourcesMostAllocated and RequestedToCapacityRatio became NodeResourcesFit's
  ``scoringStrategy`` in 1.23, SelectorSpread gave way to PodTopologySpread's system defaults
  in 1.27, NodeLabel and ServiceAffinity were removed in 1.23 and NodePreferAvoidPods in 1.24).
"""

from __future__ import annotations

# the packages in plugins/ of this repository: name -> the directory to pip install
SHIPPED_PACKAGES = {
    "Coscheduling": "plugins/kschedctl-coscheduling",
    "NodeLabel": "plugins/kschedctl-node-label",
    "NodeResourcesAllocatable": "plugins/kschedctl-node-resources-allocatable",
}

# kubernetes-sigs/scheduler-plugins, beyond those shipped here
SCHEDULER_PLUGINS = (
    "CapacityScheduling",
    "CrossNodePreemption",
    "LoadVariationRiskBalancing",
    "LowRiskOverCommitment",
    "NetworkOverhead",
    "NodeResourceTopologyMatch",
    "Peaks",
    "PodState",
    "PreemptionToleration",
    "QOSSort",
    "SySched",
    "TargetLoadPacking",
    "TopologicalSort",
)

# removed in-tree plugins -> what replaced them
REMOVED_IN_TREE = {
    "NodeResourcesLeastAllocated": "NodeResourcesFit with args scoringStrategy: {type: LeastAllocated} "
    "(removed in 1.23; LeastAllocated is NodeResourcesFit's default)",
    "NodeResourcesMostAllocated": "NodeResourcesFit with args scoringStrategy: {type: MostAllocated} (removed in 1.23)",
    "RequestedToCapacityRatio": "NodeResourcesFit with args scoringStrategy: {type: RequestedToCapacityRatio, "
    "requestedToCapacityRatio: {shape: [...]}} (removed in 1.23)",
    "SelectorSpread": "PodTopologySpread with defaultingType: System (removed in 1.27)",
    "DefaultPodTopologySpread": "PodTopologySpread with defaultingType: System",
    "ServiceAffinity": "InterPodAffinity or NodeAffinity (removed in 1.23)",
    "NodePreferAvoidPods": "node taints with PreferNoSchedule (removed in 1.24)",
    "NodeResourcesLimitsPriority": "nothing: it was an alpha score plugin, removed",
}


def known_elsewhere(name: str) -> str | None:
    """What to tell a user whose configuration names `name`, which no installed package
    registers; None when the name is not a well-known one."""
    if name in SHIPPED_PACKAGES:
        return f"it is provided by the package in {SHIPPED_PACKAGES[name]}: pip install ./{SHIPPED_PACKAGES[name]}"
    if name in SCHEDULER_PLUGINS:
        return "it is a kubernetes-sigs/scheduler-plugins plugin, not available for kschedctl (no package for it is installed)"
    if name in REMOVED_IN_TREE:
        return f"kube-scheduler removed it; use {REMOVED_IN_TREE[name]}"
    return None
