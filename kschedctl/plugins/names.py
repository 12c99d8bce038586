"""Plugin names, as pkg/scheduler/framework/plugins/names/names.go has them, and their modules."""

PrioritySort = "PrioritySort"
DefaultBinder = "DefaultBinder"
DefaultPreemption = "DefaultPreemption"
DynamicResources = "DynamicResources"
ImageLocality = "ImageLocality"
InterPodAffinity = "InterPodAffinity"
NodeAffinity = "NodeAffinity"
NodeName = "NodeName"
NodePorts = "NodePorts"
NodeResourcesBalancedAllocation = "NodeResourcesBalancedAllocation"
NodeResourcesFit = "NodeResourcesFit"
NodeUnschedulable = "NodeUnschedulable"
NodeVolumeLimits = "NodeVolumeLimits"
PodTopologySpread = "PodTopologySpread"
SchedulingGates = "SchedulingGates"
TaintToleration = "TaintToleration"
VolumeBinding = "VolumeBinding"
VolumeRestrictions = "VolumeRestrictions"
VolumeZone = "VolumeZone"
GangScheduling = "GangScheduling"
TopologyPlacementGenerator = "TopologyPlacementGenerator"
PodGroupPodsCount = "PodGroupPodsCount"
PlacementBinPacking = "PlacementBinPacking"

# Modules under kschedctl.plugins that each define plugin_spec(), in registration order: a plugin's
# package (its __init__ exports plugin_spec), a module of a package holding several plugins, or
# "module:function" where a package holding several plugins names each one's spec function.
IN_TREE_MODULES: list[str] = [
    "scheduling_gates",
    "priority_sort",
    "node_unschedulable",
    "node_name",
    "taint_toleration",
    "node_affinity",
    "node_ports",
    "node_resources:fit_plugin_spec",
    "volume_restrictions",
    "node_volume_limits",
    "volume_binding",
    "volume_zone",
    "pod_topology_spread",
    "inter_pod_affinity",
    "dynamic_resources",
    "default_preemption",
    "node_resources:balanced_allocation_plugin_spec",
    "image_locality",
    "default_binder",
    "gang_scheduling",
    "topology_placement_generator",
    "pod_group_pods_count",
    "node_resources.placement_bin_packing",
]
