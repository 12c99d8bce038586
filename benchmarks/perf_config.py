"""scheduler_perf's test cases as snapshot files both kube-scheduler and kschedctl read.

Upstream: kubernetes/kubernetes test/integration/scheduler_perf: misc/, affinity/,
topology_spreading/ and default_preemption/performance-config.yaml (test cases, sizes) and
templates/ (node-default.yaml: 110 pods, 4 cpu, 32Gi; pod-default.yaml: 100m cpu, 500Mi;
pod-with-pod-anti-affinity.yaml, pod-with-node-affinity.yaml, pod-with-topology-spreading.yaml,
pod-with-preferred-topology-spreading.yaml; pod-low-priority.yaml: 900m cpu, priority 0;
pod-high-priority.yaml: 3000m cpu, priority 10).

Unlike workloads.py (init pods pre-bound, for kschedctl's own pods/s figures), these files are
what scheduler_perf feeds the scheduler: the init pods are *pending* and come first in the file
(queue order = file order: equal priority, no creationTimestamp), so kube-scheduler's bench
schedules them as its warmup and kschedctl schedules them too; both do the same work. The one
exception is PreemptionBasic: its high-priority pods would jump the queue ahead of the
low-priority ones, so the low-priority pods are written bound (four per node, 3.6 of 4 cpu),
the state scheduler_perf waits for before it creates the preemptors.

Each file is one JSON `kind: List`, one object per line.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from pathlib import Path

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
# k8s.io/apimachinery/pkg/util/rand's alphabet: scheduler_perf's nodes are generateName'd
# "scheduler-perf-" + rand.String(5).
RAND_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

# The configuration scheduler_perf runs: the default one (one profile, default plugins).
DEFAULT_CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
# scheduler_perf runs the default configuration: one profile (default-scheduler),
# default plugins and weights, percentageOfNodesToScore unset (adaptive).
"""


@dataclass(frozen=True)
class Shape:
    """One scheduler_perf test case: its nodes' zones and its init and measured pod templates."""

    case: str
    zones: tuple[str, ...]
    init_template: str
    measure_template: str
    init_ns: str
    measure_ns: str
    init_bound: bool = False
    # MixedSchedulingBasePod: one createPods op per template, Case.init split evenly among them
    init_mix: tuple[str, ...] = ()
    # "default" (templates/node-default.yaml) or, with nodeAllocatableStrategy, "csi" (an
    # attachable-volumes-csi-ebs.csi.aws.com allocatable and a CSINode of ebs.csi.aws.com, 39
    # volumes) or "csi-migrated" (the same, the CSINode naming kubernetes.io/aws-ebs migrated)
    node_kind: str = "default"
    # SchedulingDaemonset: templates/node-with-name.yaml first (scheduler-perf-node)
    named_node: bool = False
    # createPods with persistentVolumeTemplatePath: one bound PV + PVC per pod ("aws" pv-aws.yaml,
    # "csi" pv-csi.yaml), for the init and/or the measured pods
    init_volume: str | None = None
    measure_volume: str | None = None
    # the NSSelector workloads: createNamespaces init-ns-* and measure-ns-0 from
    # namespace-with-labels.yaml (team: devops), createPodSets over Case.namespaces of them
    ns_selector: bool = False
    # Unschedulable: a churn op creating pods of this template (never schedulable) at 5/s
    # while the measured pods run; written as Case.churn pods between init and measured pods
    churn_template: str | None = None
    # "dra" (dra/performance-config.yaml: scheduler-perf-dra-* nodes, one ResourceSlice of
    # Case.claims_per_node devices per node, one claim per pod as the resourceclaim controller
    # writes it; with Case.init the steady-state shape's allocated claims, no init pods),
    # "gang" (1.35 Workload gangs of Case.pods_per_group pods) or "churn" (SchedulingWithMixedChurn:
    # kschedctl runs a `simulate` timeline, kube's bench the same pods without the churn)
    family: str = ""
    # both programs run with these feature gates (kube's names)
    feature_gates: str = ""
    # dra: the init count is allocated claims (allocResourceClaims), not pods
    init_claims: bool = False


GANG_GATES = "GenericWorkload=true,GangScheduling=true"

SHAPES: dict[str, Shape] = {
    "SchedulingBasic": Shape("SchedulingBasic", (), "default", "default", "namespace-1", "namespace-2"),
    "SchedulingNodeAffinity": Shape("SchedulingNodeAffinity", ("zone1",), "node-affinity", "node-affinity", "namespace-1", "namespace-2"),
    "SchedulingPodAntiAffinity": Shape("SchedulingPodAntiAffinity", (), "anti-affinity", "anti-affinity", "sched-0", "sched-1"),
    "TopologySpreading": Shape(
        "TopologySpreading", ("moon-1", "moon-2", "moon-3"), "default", "topology-spreading", "namespace-1", "namespace-2"
    ),
    "PreferredTopologySpreading": Shape(
        "PreferredTopologySpreading",
        ("moon-1", "moon-2", "moon-3"),
        "default",
        "preferred-topology-spreading",
        "namespace-1",
        "namespace-2",
    ),
    "PreemptionBasic": Shape("PreemptionBasic", (), "low-priority", "high-priority", "namespace-1", "namespace-2", init_bound=True),
    # affinity/performance-config.yaml
    "SchedulingPodAffinity": Shape("SchedulingPodAffinity", ("zone1",), "pod-affinity", "pod-affinity", "sched-0", "sched-1"),
    "SchedulingPreferredPodAffinity": Shape(
        "SchedulingPreferredPodAffinity", (), "preferred-pod-affinity", "preferred-pod-affinity", "sched-0", "sched-1"
    ),
    # upstream's file names pod-with-preferred-pod-affinity.yaml here in some releases (a copy
    # slip); the workload's name and its history say anti-affinity, which is what this writes
    "SchedulingPreferredPodAntiAffinity": Shape(
        "SchedulingPreferredPodAntiAffinity", (), "preferred-pod-anti-affinity", "preferred-pod-anti-affinity", "sched-0", "sched-1"
    ),
    "SchedulingRequiredPodAntiAffinityWithNSSelector": Shape(
        "SchedulingRequiredPodAntiAffinityWithNSSelector",
        (),
        "anti-affinity-ns-selector",
        "anti-affinity-ns-selector",
        "init-ns",
        "measure-ns-0",
        ns_selector=True,
    ),
    "SchedulingPreferredAntiAffinityWithNSSelector": Shape(
        "SchedulingPreferredAntiAffinityWithNSSelector",
        (),
        "preferred-anti-affinity-ns-selector",
        "preferred-anti-affinity-ns-selector",
        "init-ns",
        "measure-ns-0",
        ns_selector=True,
    ),
    "SchedulingRequiredPodAffinityWithNSSelector": Shape(
        "SchedulingRequiredPodAffinityWithNSSelector",
        ("zone1",),
        "affinity-ns-selector",
        "affinity-ns-selector",
        "init-ns",
        "measure-ns-0",
        ns_selector=True,
    ),
    "SchedulingPreferredAffinityWithNSSelector": Shape(
        "SchedulingPreferredAffinityWithNSSelector",
        (),
        "preferred-affinity-ns-selector",
        "preferred-affinity-ns-selector",
        "init-ns",
        "measure-ns-0",
        ns_selector=True,
    ),
    "MixedSchedulingBasePod": Shape(
        "MixedSchedulingBasePod",
        ("zone1",),
        "default",
        "default",
        "sched-0",
        "namespace-7",
        init_mix=("default", "pod-affinity", "anti-affinity", "preferred-pod-affinity", "preferred-pod-anti-affinity"),
    ),
    # volumes/performance-config.yaml
    "SchedulingInTreePVs": Shape(
        "SchedulingInTreePVs", (), "default", "default", "namespace-1", "namespace-2", init_volume="aws", measure_volume="aws"
    ),
    "SchedulingMigratedInTreePVs": Shape(
        "SchedulingMigratedInTreePVs",
        (),
        "default",
        "default",
        "namespace-1",
        "namespace-2",
        node_kind="csi-migrated",
        init_volume="aws",
        measure_volume="aws",
    ),
    "SchedulingCSIPVs": Shape(
        "SchedulingCSIPVs", (), "default", "default", "namespace-1", "namespace-2", node_kind="csi", init_volume="csi", measure_volume="csi"
    ),
    "PreemptionPVs": Shape(
        "PreemptionPVs", (), "low-priority", "high-priority", "namespace-1", "namespace-2", init_bound=True, measure_volume="aws"
    ),
    # misc/ and default_preemption/performance-config.yaml
    "Unschedulable": Shape(
        "Unschedulable", (), "default", "default", "namespace-1", "namespace-3", churn_template="high-priority-large-cpu"
    ),
    "SchedulingDaemonset": Shape("SchedulingDaemonset", (), "daemonset", "daemonset", "namespace-1", "namespace-2", named_node=True),
    # dra/performance-config.yaml (templates/pod-with-claim-template.yaml, resourceclaimtemplate.yaml,
    # deviceclass.yaml, node-with-dra-test-driver.yaml; createResourceDriver's ResourceSlices)
    "SchedulingWithResourceClaimTemplate": Shape(
        "SchedulingWithResourceClaimTemplate", (), "claim-template", "claim-template", "init", "test", family="dra"
    ),
    "SteadyStateClusterResourceClaimTemplate": Shape(
        "SteadyStateClusterResourceClaimTemplate", (), "claim-template", "claim-template", "init", "test", family="dra", init_claims=True
    ),
    # podgroup/gangscheduling/performance-config.yaml GangScheduling (templates/gang-pod.yaml,
    # podgroup.yaml), written in 1.35's Workload API: one Workload per gang, pods with spec.workloadRef
    "GangScheduling": Shape("GangScheduling", (), "gang", "gang", "gang-ns-0", "gang-ns-0", family="gang", feature_gates=GANG_GATES),
    # misc/performance-config.yaml SchedulingWithMixedChurn
    "SchedulingWithMixedChurn": Shape("SchedulingWithMixedChurn", (), "default", "default", "namespace-1", "namespace-2", family="churn"),
}


@dataclass(frozen=True)
class Case:
    """One file of the side-by-side run: a shape at a size (nodes, init pods, measured pods)."""

    shape: str
    nodes: int
    init: int
    measure: int
    provenance: str
    namespaces: int = 0  # NSSelector shapes: the init namespaces (Case.init pods spread over them)
    churn: int = 0  # Unschedulable: the never-schedulable churn pods; MixedChurn: the recreate rounds
    claims_per_node: int = 10  # dra: createResourceDriver's maxClaimsPerNode (devices per node)
    pods_per_group: int = 0  # gang: podsPerGroup (each Workload's gang minCount)

    @property
    def name(self) -> str:
        base = f"{self.shape}_{self.nodes}Nodes_{self.init}Init_{self.measure}Pods"
        return base + (f"_{self.pods_per_group}PerGroup" if self.pods_per_group else "")

    @property
    def feature_gates(self) -> str:
        """The gates both programs run with (kschedoracle -feature-gates, kschedctl --feature-gates)."""
        return SHAPES[self.shape].feature_gates

    @property
    def schedulable(self) -> int:
        """The pending pods both programs must place (the churn pods stay pending)."""
        return self.warmup + self.measure

    @property
    def label(self) -> str:
        """The table's first column: workload (nodes, init + measured pods)."""
        gangs = f", gangs of {self.pods_per_group:,}" if self.pods_per_group else ""
        init = f"{self.init:,} allocated claims" if SHAPES[self.shape].init_claims else f"{self.init:,}"
        return f"{self.shape} ({self.nodes:,} nodes, {init} + {self.measure:,} pods{gangs})"

    @property
    def warmup(self) -> int:
        """kube's `-warmup`: the pending init pods (none when they are written bound or are claims)."""
        shape = SHAPES[self.shape]
        return 0 if shape.init_bound or shape.init_claims else self.init


def _upstream(path: str, workload: str) -> str:
    return f"upstream {path} {workload}"


# The final table's workloads (scheduler_perf performance-config.yaml sizes).
CASES: tuple[Case, ...] = (
    Case("SchedulingBasic", 500, 500, 1000, _upstream("misc/performance-config.yaml", "SchedulingBasic/500Nodes")),
    Case("SchedulingBasic", 5000, 1000, 10000, _upstream("misc/performance-config.yaml", "SchedulingBasic/5000Nodes_10000Pods")),
    Case("SchedulingBasic", 15000, 1000, 10000, "not upstream: 5000Nodes_10000Pods pod counts on 15000 nodes"),
    Case("SchedulingBasic", 5000, 5000, 50000, _upstream("misc/performance-config.yaml", "SchedulingBasic/5000Nodes_50000Pods")),
    Case(
        "SchedulingNodeAffinity",
        5000,
        5000,
        10000,
        _upstream("affinity/performance-config.yaml", "SchedulingNodeAffinity/5000Nodes_10000Pods"),
    ),
    Case(
        "SchedulingPodAntiAffinity",
        5000,
        1000,
        2000,
        _upstream("affinity/performance-config.yaml", "SchedulingPodAntiAffinity/5000Nodes_2000Pods"),
    ),
    Case(
        "TopologySpreading",
        5000,
        5000,
        5000,
        _upstream("topology_spreading/performance-config.yaml", "TopologySpreading/5000Nodes_5000Pods"),
    ),
    Case(
        "PreferredTopologySpreading",
        5000,
        5000,
        5000,
        _upstream("topology_spreading/performance-config.yaml", "PreferredTopologySpreading/5000Nodes_5000Pods"),
    ),
    Case("PreemptionBasic", 1000, 4000, 1000, _upstream("default_preemption/performance-config.yaml", "PreemptionBasic/1000Nodes")),
)

# The workloads added for issue 25, at scheduler_perf's 500-node size and its large one.
MORE_CASES: tuple[Case, ...] = (
    Case("SchedulingNodeAffinity", 500, 500, 1000, _upstream("affinity/performance-config.yaml", "SchedulingNodeAffinity/500Nodes")),
    Case("SchedulingPodAntiAffinity", 500, 100, 400, _upstream("affinity/performance-config.yaml", "SchedulingPodAntiAffinity/500Nodes")),
    Case("TopologySpreading", 500, 1000, 1000, _upstream("topology_spreading/performance-config.yaml", "TopologySpreading/500Nodes")),
    Case(
        "PreferredTopologySpreading",
        500,
        1000,
        1000,
        _upstream("topology_spreading/performance-config.yaml", "PreferredTopologySpreading/500Nodes"),
    ),
    Case("SchedulingPodAffinity", 500, 500, 1000, _upstream("affinity/performance-config.yaml", "SchedulingPodAffinity/500Nodes")),
    Case(
        "SchedulingPodAffinity", 5000, 5000, 5000, _upstream("affinity/performance-config.yaml", "SchedulingPodAffinity/5000Nodes_5000Pods")
    ),
    Case(
        "SchedulingPreferredPodAffinity",
        500,
        500,
        1000,
        _upstream("affinity/performance-config.yaml", "SchedulingPreferredPodAffinity/500Nodes"),
    ),
    Case(
        "SchedulingPreferredPodAffinity",
        5000,
        5000,
        5000,
        _upstream("affinity/performance-config.yaml", "SchedulingPreferredPodAffinity/5000Nodes_5000Pods"),
    ),
    Case(
        "SchedulingPreferredPodAntiAffinity",
        500,
        500,
        1000,
        _upstream("affinity/performance-config.yaml", "SchedulingPreferredPodAntiAffinity/500Nodes"),
    ),
    Case(
        "SchedulingPreferredPodAntiAffinity",
        5000,
        5000,
        5000,
        _upstream("affinity/performance-config.yaml", "SchedulingPreferredPodAntiAffinity/5000Nodes_5000Pods"),
    ),
    Case(
        "SchedulingRequiredPodAntiAffinityWithNSSelector",
        500,
        40,
        100,
        _upstream("affinity/performance-config.yaml", "SchedulingRequiredPodAntiAffinityWithNSSelector/500Nodes"),
        namespaces=10,
    ),
    Case(
        "SchedulingRequiredPodAntiAffinityWithNSSelector",
        6000,
        4000,
        2000,
        _upstream("affinity/performance-config.yaml", "SchedulingRequiredPodAntiAffinityWithNSSelector/5000Nodes_2000Pods (6000 nodes)"),
        namespaces=100,
    ),
    Case(
        "SchedulingPreferredAntiAffinityWithNSSelector",
        500,
        40,
        100,
        _upstream("affinity/performance-config.yaml", "SchedulingPreferredAntiAffinityWithNSSelector/500Nodes"),
        namespaces=10,
    ),
    Case(
        "SchedulingPreferredAntiAffinityWithNSSelector",
        5000,
        4000,
        2000,
        _upstream("affinity/performance-config.yaml", "SchedulingPreferredAntiAffinityWithNSSelector/5000Nodes_2000Pods"),
        namespaces=100,
    ),
    Case(
        "SchedulingRequiredPodAffinityWithNSSelector",
        500,
        40,
        100,
        _upstream("affinity/performance-config.yaml", "SchedulingRequiredPodAffinityWithNSSelector/500Nodes"),
        namespaces=10,
    ),
    Case(
        "SchedulingRequiredPodAffinityWithNSSelector",
        5000,
        5000,
        2000,
        _upstream("affinity/performance-config.yaml", "SchedulingRequiredPodAffinityWithNSSelector/5000Nodes_2000Pods"),
        namespaces=100,
    ),
    Case(
        "SchedulingPreferredAffinityWithNSSelector",
        500,
        40,
        100,
        _upstream("affinity/performance-config.yaml", "SchedulingPreferredAffinityWithNSSelector/500Nodes"),
        namespaces=10,
    ),
    Case(
        "SchedulingPreferredAffinityWithNSSelector",
        5000,
        5000,
        5000,
        _upstream("affinity/performance-config.yaml", "SchedulingPreferredAffinityWithNSSelector/5000Nodes_5000Pods"),
        namespaces=100,
    ),
    Case("MixedSchedulingBasePod", 500, 1000, 1000, _upstream("affinity/performance-config.yaml", "MixedSchedulingBasePod/500Nodes")),
    Case(
        "MixedSchedulingBasePod",
        5000,
        10000,
        5000,
        _upstream("affinity/performance-config.yaml", "MixedSchedulingBasePod/5000Nodes_5000Pods"),
    ),
    Case("SchedulingInTreePVs", 500, 500, 1000, _upstream("volumes/performance-config.yaml", "SchedulingInTreePVs/500Nodes")),
    Case("SchedulingInTreePVs", 5000, 1000, 2000, _upstream("volumes/performance-config.yaml", "SchedulingInTreePVs/5000Nodes_2000Pods")),
    Case(
        "SchedulingMigratedInTreePVs", 500, 500, 1000, _upstream("volumes/performance-config.yaml", "SchedulingMigratedInTreePVs/500Nodes")
    ),
    Case(
        "SchedulingMigratedInTreePVs",
        5000,
        5000,
        5000,
        _upstream("volumes/performance-config.yaml", "SchedulingMigratedInTreePVs/5000Nodes_5000Pods"),
    ),
    Case("SchedulingCSIPVs", 500, 500, 1000, _upstream("volumes/performance-config.yaml", "SchedulingCSIPVs/500Nodes")),
    Case("SchedulingCSIPVs", 5000, 5000, 5000, _upstream("volumes/performance-config.yaml", "SchedulingCSIPVs/5000Nodes_5000Pods")),
    Case("PreemptionPVs", 500, 2000, 500, "not upstream: PreemptionPVs/1000Nodes scaled /2"),
    Case("PreemptionPVs", 1000, 4000, 1000, _upstream("volumes/performance-config.yaml", "PreemptionPVs/1000Nodes")),
    Case(
        "Unschedulable",
        500,
        10,
        1000,
        _upstream("default_preemption/performance-config.yaml", "Unschedulable/500Nodes/10Init/1kPods") + ", churn 5/s as 5 pods",
        churn=5,
    ),
    Case(
        "Unschedulable",
        5000,
        100,
        10000,
        _upstream("default_preemption/performance-config.yaml", "Unschedulable/5kNodes/100Init/10kPods") + ", churn 5/s as 50 pods",
        churn=50,
    ),
    Case("SchedulingDaemonset", 500, 0, 1000, "not upstream: SchedulingDaemonset/15000Nodes scaled /30"),
    Case("SchedulingDaemonset", 15000, 0, 30000, _upstream("misc/performance-config.yaml", "SchedulingDaemonset/15000Nodes")),
    # dra/performance-config.yaml: no feature gate at 1.35 (DynamicResourceAllocation is GA, on);
    # upstream's QueueingHints variants are 1.35's default. Sizes fill every device.
    Case(
        "SchedulingWithResourceClaimTemplate",
        200,
        1000,
        1000,
        _upstream("dra/performance-config.yaml", "SchedulingWithResourceClaimTemplate/2000pods_200nodes"),
    ),
    Case(
        "SchedulingWithResourceClaimTemplate",
        500,
        2500,
        2500,
        _upstream("dra/performance-config.yaml", "SchedulingWithResourceClaimTemplate/5000pods_500nodes_QueueingHintsEnabled"),
    ),
    Case(
        "SteadyStateClusterResourceClaimTemplate",
        500,
        0,
        1000,
        _upstream("dra/performance-config.yaml", "SteadyStateClusterResourceClaimTemplate/empty_500nodes_QueueingHintsEnabled")
        + "; its 10 s of create-10/schedule/delete rounds written as 1000 pods without the deletions",
    ),
    Case(
        "SteadyStateClusterResourceClaimTemplate",
        500,
        2500,
        1000,
        _upstream("dra/performance-config.yaml", "SteadyStateClusterResourceClaimTemplate/half_500nodes_QueueingHintsEnabled")
        + "; its 10 s of create-10/schedule/delete rounds written as 1000 pods without the deletions",
    ),
    Case(
        "SteadyStateClusterResourceClaimTemplate",
        500,
        4990,
        10,
        _upstream("dra/performance-config.yaml", "SteadyStateClusterResourceClaimTemplate/full_500nodes_QueueingHintsEnabled")
        + "; one round of its create-10/schedule/delete steady state (the 10 free devices)",
    ),
    # podgroup/gangscheduling/performance-config.yaml (the PodGroup API of 1.36+), as 1.35 Workloads
    Case(
        "GangScheduling",
        500,
        0,
        300,
        "not upstream: GangScheduling/5000Nodes_1000Gangs_3000Pods scaled /10 (podgroup/gangscheduling/performance-config.yaml)",
        pods_per_group=3,
    ),
    Case(
        "GangScheduling",
        5000,
        0,
        3000,
        _upstream("podgroup/gangscheduling/performance-config.yaml", "GangScheduling/5000Nodes_1000Gangs_3000Pods")
        + " as 1.35 Workloads + spec.workloadRef",
        pods_per_group=3,
    ),
    Case(
        "GangScheduling",
        5000,
        0,
        3000,
        _upstream("podgroup/gangscheduling/performance-config.yaml", "GangScheduling/5000Nodes_3Gangs_3000Pods_1000PerGroup")
        + " as 1.35 Workloads + spec.workloadRef",
        pods_per_group=1000,
    ),
    # misc/performance-config.yaml; kschedctl runs `simulate` with the churn, kube's bench the same
    # pods without it (see side_by_side.py)
    Case(
        "SchedulingWithMixedChurn",
        500,
        0,
        500,
        "not upstream: SchedulingWithMixedChurn/1000Nodes scaled /2, churn as 2 recreate rounds",
        churn=2,
    ),
    Case(
        "SchedulingWithMixedChurn",
        1000,
        0,
        1000,
        _upstream("misc/performance-config.yaml", "SchedulingWithMixedChurn/1000Nodes") + ", churn as 2 recreate rounds",
        churn=2,
    ),
    Case(
        "SchedulingWithMixedChurn",
        5000,
        0,
        10000,
        _upstream("misc/performance-config.yaml", "SchedulingWithMixedChurn/5000Nodes_10000Pods") + ", churn as 20 recreate rounds",
        churn=20,
    ),
)

ALL_CASES: tuple[Case, ...] = CASES + MORE_CASES

# The same shapes small enough for a smoke run (`side_by_side.py --quick`) and for the tests.
QUICK_CASES: tuple[Case, ...] = (
    Case("SchedulingBasic", 100, 100, 200, "SchedulingBasic/500Nodes scaled /5"),
    Case("SchedulingNodeAffinity", 100, 100, 200, "SchedulingNodeAffinity/500Nodes scaled /5"),
    Case("SchedulingPodAntiAffinity", 100, 20, 80, "SchedulingPodAntiAffinity/500Nodes scaled /5"),
    Case("TopologySpreading", 100, 200, 200, "TopologySpreading/500Nodes scaled /5"),
    Case("PreferredTopologySpreading", 100, 200, 200, "PreferredTopologySpreading/500Nodes scaled /5"),
    Case("PreemptionBasic", 10, 40, 10, "PreemptionBasic/5Nodes scaled x2"),
    Case("SchedulingPodAffinity", 100, 100, 200, "SchedulingPodAffinity/500Nodes scaled /5"),
    Case("SchedulingPreferredPodAffinity", 100, 100, 200, "SchedulingPreferredPodAffinity/500Nodes scaled /5"),
    Case("SchedulingPreferredPodAntiAffinity", 100, 100, 200, "SchedulingPreferredPodAntiAffinity/500Nodes scaled /5"),
    Case(
        "SchedulingRequiredPodAntiAffinityWithNSSelector",
        100,
        8,
        20,
        "SchedulingRequiredPodAntiAffinityWithNSSelector/500Nodes scaled /5",
        namespaces=2,
    ),
    Case(
        "SchedulingPreferredAntiAffinityWithNSSelector",
        100,
        8,
        20,
        "SchedulingPreferredAntiAffinityWithNSSelector/500Nodes scaled /5",
        namespaces=2,
    ),
    Case(
        "SchedulingRequiredPodAffinityWithNSSelector",
        100,
        8,
        20,
        "SchedulingRequiredPodAffinityWithNSSelector/500Nodes scaled /5",
        namespaces=2,
    ),
    Case(
        "SchedulingPreferredAffinityWithNSSelector",
        100,
        8,
        20,
        "SchedulingPreferredAffinityWithNSSelector/500Nodes scaled /5",
        namespaces=2,
    ),
    Case("MixedSchedulingBasePod", 100, 200, 200, "MixedSchedulingBasePod/500Nodes scaled /5"),
    Case("SchedulingInTreePVs", 100, 100, 200, "SchedulingInTreePVs/500Nodes scaled /5"),
    Case("SchedulingMigratedInTreePVs", 100, 100, 200, "SchedulingMigratedInTreePVs/500Nodes scaled /5"),
    Case("SchedulingCSIPVs", 100, 100, 200, "SchedulingCSIPVs/500Nodes scaled /5"),
    Case("PreemptionPVs", 10, 40, 10, "PreemptionPVs/5Nodes scaled x2"),
    Case("Unschedulable", 100, 2, 200, "Unschedulable/500Nodes/10Init/1kPods scaled /5", churn=2),
    Case("SchedulingDaemonset", 100, 0, 200, "SchedulingDaemonset/15000Nodes scaled /150"),
    Case("SchedulingWithResourceClaimTemplate", 50, 250, 250, "SchedulingWithResourceClaimTemplate/5000pods_500nodes scaled /10"),
    Case("SteadyStateClusterResourceClaimTemplate", 50, 250, 100, "SteadyStateClusterResourceClaimTemplate/half_500nodes scaled /10"),
    Case("GangScheduling", 100, 0, 30, "GangScheduling/100Nodes_10Gangs (upstream's size)", pods_per_group=3),
    Case("SchedulingWithMixedChurn", 100, 0, 200, "SchedulingWithMixedChurn/1000Nodes scaled /10, 2 churn rounds", churn=2),
)


# --- object templates --------------------------------------------------------------------------


def node_names(count: int, rng: random.Random) -> list[str]:
    """scheduler_perf's node names, listed sorted as its label strategy walks them."""
    seen: set[str] = set()
    while len(seen) < count:
        seen.add("scheduler-perf-" + "".join(rng.choice(RAND_ALPHABET) for _ in range(5)))
    return sorted(seen)


CSI_DRIVER = "ebs.csi.aws.com"
CSI_LIMIT = 39
# nodeAllocatableStrategy's nodeAllocatable (volumes/performance-config.yaml)
CSI_ALLOCATABLE = {f"attachable-volumes-csi-{CSI_DRIVER}": str(CSI_LIMIT)}


def node(name: str, zone: str | None, kind: str = "default") -> dict:
    """templates/node-default.yaml, allocatable written out (the API server defaults it to capacity).

    kind "csi"/"csi-migrated": nodeAllocatableStrategy patches the allocatable only (not capacity).
    """
    labels = {HOSTNAME: name}
    if zone is not None:
        labels[ZONE] = zone
    res = {"pods": "110", "cpu": "4", "memory": "32Gi"}
    alloc = dict(res) | (CSI_ALLOCATABLE if kind != "default" else {})
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {},
        "status": {
            "capacity": dict(res),
            "allocatable": alloc,
            "conditions": [{"type": "Ready", "status": "True"}],
            "phase": "Running",
        },
    }


NAMED_NODE = "scheduler-perf-node"


def _capacity_node(name: str, pods: str) -> dict:
    """A Ready node with 4 cpu, 32Gi and ``pods`` pods as capacity, allocatable the same (the
    API server defaults it to capacity), labelled with its hostname: the templates below."""
    res = {"pods": pods, "cpu": "4", "memory": "32Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {HOSTNAME: name}},
        "spec": {},
        "status": {
            "capacity": dict(res),
            "allocatable": dict(res),
            "conditions": [{"type": "Ready", "status": "True"}],
            "phase": "Running",
        },
    }


def named_node() -> dict:
    """templates/node-with-name.yaml (capacity only; the API server defaults allocatable to it)."""
    return _capacity_node(NAMED_NODE, "90000")


def csi_node(name: str, migrated: bool) -> dict:
    """The CSINode nodeAllocatableStrategy creates (test/utils NodeAllocatableStrategy.createCSINode):
    the migrated-plugins annotation always present, empty when none."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {
            "name": name,
            "annotations": {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs" if migrated else ""},
        },
        "spec": {"drivers": [{"name": CSI_DRIVER, "nodeID": name, "allocatable": {"count": CSI_LIMIT}}]},
    }


def volume_pair(kind: str, namespace: str, index: int) -> tuple[dict, dict]:
    """A bound PV and PVC as CreatePodWithPersistentVolume (test/utils/runners.go) makes them from
    pv-aws.yaml / pv-csi.yaml and pvc.yaml: PV "<ns>-vol-<i>" (the CSI handle its name, the EBS
    volumeID "vol-<i>"), claimRef to "pvc-<i>", both phases Bound."""
    pv_name, pvc_name = f"{namespace}-vol-{index}", f"pvc-{index}"
    spec: dict = {
        "accessModes": ["ReadOnlyMany"],
        "capacity": {"storage": "1Gi"},
        "persistentVolumeReclaimPolicy": "Retain",
        "claimRef": {"kind": "PersistentVolumeClaim", "namespace": namespace, "name": pvc_name, "apiVersion": "v1"},
    }
    if kind == "aws":
        spec["awsElasticBlockStore"] = {"volumeID": f"vol-{index}"}
    else:
        spec["csi"] = {"driver": CSI_DRIVER, "volumeHandle": pv_name}
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv_name}, "spec": spec, "status": {"phase": "Bound"}}
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": pvc_name, "namespace": namespace, "annotations": {"pv.kubernetes.io/bind-completed": "true"}},
        "spec": {"accessModes": ["ReadOnlyMany"], "resources": {"requests": {"storage": "1Gi"}}, "volumeName": pv_name},
        "status": {"phase": "Bound"},
    }
    return pv, pvc


def _containers(image: str, cpu: str = "100m") -> list[dict]:
    res = {"cpu": cpu, "memory": "500Mi"}
    return [
        {
            "name": "pause",
            "image": image,
            "ports": [{"containerPort": 80, "protocol": "TCP"}],
            "resources": {"limits": dict(res), "requests": dict(res)},
        }
    ]


def _spread(when: str) -> list[dict]:
    return [{"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": when, "labelSelector": {"matchLabels": {"color": "blue"}}}]


# PriorityClasses of the preemption workload; the pods also carry the value the priority
# admission plugin would have written into spec.priority (kube's scheduler reads only that).
PRIORITY_CLASSES = {"low-priority": 0, "high-priority": 10}


# template -> (affinity kind, required?, colour, topology key, image): templates/pod-with-pod-affinity.yaml,
# pod-with-preferred-pod-affinity.yaml, pod-with-preferred-pod-anti-affinity.yaml and the four
# *-ns-selector.yaml (namespaceSelector team: devops instead of namespaces [sched-1, sched-0])
AFFINITY_TEMPLATES: dict[str, tuple[str, bool, str, str, str]] = {
    "pod-affinity": ("podAffinity", True, "blue", ZONE, "registry.k8s.io/pause:3.10.1"),
    "preferred-pod-affinity": ("podAffinity", False, "red", HOSTNAME, "registry.k8s.io/pause:3.10.1"),
    "preferred-pod-anti-affinity": ("podAntiAffinity", False, "yellow", HOSTNAME, "registry.k8s.io/pause:3.10.1"),
    "anti-affinity-ns-selector": ("podAntiAffinity", True, "green", HOSTNAME, "registry.k8s.io/pause:3.10.1"),
    "affinity-ns-selector": ("podAffinity", True, "blue", ZONE, "registry.k8s.io/pause:3.10.1"),
    "preferred-affinity-ns-selector": ("podAffinity", False, "red", HOSTNAME, "registry.k8s.io/pause:3.10.2"),
    "preferred-anti-affinity-ns-selector": ("podAntiAffinity", False, "green", HOSTNAME, "registry.k8s.io/pause:3.10"),
}


def pod(template: str, name: str, namespace: str, node_name: str | None = None, claim: str | None = None) -> dict:
    """One pod of a scheduler_perf template (templates/<template>.yaml)."""
    meta: dict = {"name": name, "namespace": namespace}
    spec: dict = {"schedulerName": "default-scheduler"}
    if template == "default":
        spec["containers"] = _containers("registry.k8s.io/pause:3.10.1")
    elif template == "anti-affinity":
        meta["labels"] = {"color": "green"}
        spec["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"color": "green"}}, "topologyKey": HOSTNAME, "namespaces": ["sched-1", "sched-0"]}
                ]
            }
        }
        spec["containers"] = _containers("registry.k8s.io/pause:3.10.2")
    elif template == "node-affinity":
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["zone1", "zone2"]}]}]
                }
            }
        }
        spec["containers"] = _containers("registry.k8s.io/pause:3.10.1")
    elif template in ("topology-spreading", "preferred-topology-spreading"):
        meta["labels"] = {"color": "blue"}
        when = "DoNotSchedule" if template == "topology-spreading" else "ScheduleAnyway"
        spec["topologySpreadConstraints"] = _spread(when)
        spec["containers"] = _containers("registry.k8s.io/pause:3.10.1")
    elif template in AFFINITY_TEMPLATES:
        kind, required, color, key, image = AFFINITY_TEMPLATES[template]
        meta["labels"] = {"color": color}
        term: dict = {"labelSelector": {"matchLabels": {"color": color}}, "topologyKey": key}
        if template.endswith("ns-selector"):
            term["namespaceSelector"] = {"matchLabels": {"team": "devops"}}
        else:
            term["namespaces"] = ["sched-1", "sched-0"]
        terms = (
            {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
            if required
            else {"preferredDuringSchedulingIgnoredDuringExecution": [{"podAffinityTerm": term, "weight": 1}]}
        )
        spec["affinity"] = {kind: terms}
        spec["containers"] = _containers(image)
    elif template == "daemonset":
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NAMED_NODE]}]}]
                }
            }
        }
        spec["containers"] = [{"name": "pause", "image": "registry.k8s.io/pause:3.10.2"}]
    elif template == "high-priority-large-cpu":
        spec["priority"] = 10
        spec["containers"] = [
            {
                "name": "pause",
                "image": "registry.k8s.io/pause:3.10.1",
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "9", "memory": "500Mi"}},
            }
        ]
    elif template in PRIORITY_CLASSES:
        spec["priorityClassName"] = template
        spec["priority"] = PRIORITY_CLASSES[template]
        spec["terminationGracePeriodSeconds"] = 0
        spec["containers"] = _containers("registry.k8s.io/pause:3.10", cpu="900m" if template == "low-priority" else "3000m")
    else:
        raise ValueError(f"unknown pod template {template!r}")
    if claim is not None:
        spec["volumes"] = [{"name": "vol", "persistentVolumeClaim": {"claimName": claim}}]
    out: dict = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if node_name is not None:
        spec["nodeName"] = node_name
        out["status"] = {"phase": "Running"}
    return out


def _stamp(seconds: int) -> str:
    return f"2024-01-01T{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}Z"


def running(obj: dict, index: int) -> dict:
    """A bound pod as a live cluster lists it: created and started in file order, one second apart.

    Preemption's last criterion before its map-order tie-break is the latest start time of a
    node's earliest-started victim (pickOneNodeForPreemption, pkg/scheduler/framework/preemption/
    preemption.go), so both programs must see the same start times, not a default each.
    """
    obj["metadata"]["creationTimestamp"] = _stamp(index)
    obj["status"]["startTime"] = _stamp(index)
    return obj


# --- DRA (dra/performance-config.yaml) ----------------------------------------------------------

DRA_DRIVER = "test-driver.cdi.k8s.io"
DRA_CLASS = "test-class"
DRA_TEMPLATE = "test-claim-template"
DRA_POD_CLAIM = "resource"  # the pod's spec.resourceClaims[].name
DRA_REQUEST = {"name": "req-0", "exactly": {"deviceClassName": DRA_CLASS}}


def dra_node(index: int) -> dict:
    """templates/node-with-dra-test-driver.yaml (capacity only; allocatable as the API server defaults it)."""
    return _capacity_node(f"scheduler-perf-dra-{index}", "110")


def resource_slice(node_name: str, devices: int) -> dict:
    """createResourceDriver's slice for one node (scheduler_perf dra.go resourceSlice): pool = node,
    devices instance-0..N-1 with the test driver's attributes and a 1Gi memory capacity."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": node_name},
        "spec": {
            "driver": DRA_DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 0, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"instance-{i}",
                    "attributes": {
                        "model": {"string": "A100"},
                        "family": {"string": "GPU"},
                        "driverVersion": {"version": "1.2.3"},
                        "dra.example.com/numa": {"int": i},
                    },
                    "capacity": {"memory": {"value": "1Gi"}},
                }
                for i in range(devices)
            ],
        },
    }


def device_class() -> dict:
    """templates/deviceclass.yaml."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": DRA_CLASS},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRA_DRIVER}"'}}]},
    }


def claim_template(namespace: str) -> dict:
    """templates/resourceclaimtemplate.yaml (one request; the scheduler itself never reads it)."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": DRA_TEMPLATE, "namespace": namespace},
        "spec": {"spec": {"devices": {"requests": [dict(DRA_REQUEST)]}}},
    }


def _uid(rng: random.Random) -> str:
    """A version-4-shaped uid from the case's generator (files stay reproducible)."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def claim_pod(name: str, namespace: str, rng: random.Random) -> list[dict]:
    """templates/pod-with-claim-template.yaml as kube-scheduler sees it once the resourceclaim
    controller has run: the pod (with its uid) and the claim it generated from the template
    (owned by the pod, named <pod>-resource-<5 random>, recorded in pod.status.resourceClaimStatuses)."""
    uid = _uid(rng)
    claim_name = f"{name}-{DRA_POD_CLAIM}-" + "".join(rng.choice(RAND_ALPHABET) for _ in range(5))
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": claim_name,
            "namespace": namespace,
            "uid": _uid(rng),
            "annotations": {"resource.kubernetes.io/pod-claim-name": DRA_POD_CLAIM},
            "ownerReferences": [
                {"apiVersion": "v1", "kind": "Pod", "name": name, "uid": uid, "controller": True, "blockOwnerDeletion": True}
            ],
        },
        "spec": {"devices": {"requests": [dict(DRA_REQUEST)]}},
    }
    pod_obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": uid},
        "spec": {
            "schedulerName": "default-scheduler",
            "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10.1", "resources": {"claims": [{"name": DRA_POD_CLAIM}]}}],
            "resourceClaims": [{"name": DRA_POD_CLAIM, "resourceClaimTemplateName": DRA_TEMPLATE}],
        },
        "status": {"phase": "Pending", "resourceClaimStatuses": [{"name": DRA_POD_CLAIM, "resourceClaimName": claim_name}]},
    }
    return [claim, pod_obj]


def allocated_claims(count: int, node_names_: list[str], devices: int, rng: random.Random) -> list[dict]:
    """templates/resourceclaim.yaml x count after the allocResourceClaims op: each claim allocated
    in turn on a random node with a free device (the op shuffles the nodes and takes the first
    that fits; the allocator takes the node's first free device), reserved for nobody."""
    free = {n: 0 for n in node_names_}  # next free device index per node
    open_nodes = list(node_names_)
    out = []
    for i in range(count):
        if not open_nodes:
            raise ValueError(f"{count} claims do not fit {len(node_names_)} nodes x {devices} devices")
        node_name = rng.choice(open_nodes)
        device = free[node_name]
        free[node_name] += 1
        if free[node_name] >= devices:
            open_nodes.remove(node_name)
        out.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaim",
                "metadata": {"name": f"test-claim-{i}", "namespace": "init", "uid": _uid(rng)},
                "spec": {"devices": {"requests": [dict(DRA_REQUEST)]}},
                "status": {
                    "allocation": {
                        "devices": {
                            "results": [{"request": "req-0", "driver": DRA_DRIVER, "pool": node_name, "device": f"instance-{device}"}]
                        },
                        "nodeSelector": {
                            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]
                        },
                    }
                },
            }
        )
    return out


def dra_objects(case: Case, shape: Shape, rng: random.Random) -> list[dict]:
    """Nodes, slices, class, templates, then (steady state) the allocated init claims or (claim
    template) the init pods with their claims, then the measured pods with theirs."""
    nodes = [dra_node(i) for i in range(case.nodes)]
    names = [n["metadata"]["name"] for n in nodes]
    items: list[dict] = [_namespace(ns, False) for ns in sorted({shape.init_ns, shape.measure_ns})]
    items += nodes + [resource_slice(n, case.claims_per_node) for n in names] + [device_class()]
    if shape.init_claims:
        items += allocated_claims(case.init, names, case.claims_per_node, rng)
    else:
        items.append(claim_template(shape.init_ns))
        for i in range(case.init):
            items += claim_pod(f"test-dra-init-{i:05d}", shape.init_ns, rng)
    items.append(claim_template(shape.measure_ns))
    for i in range(case.measure):
        items += claim_pod(f"test-dra-{i:05d}", shape.measure_ns, rng)
    return items


# --- gangs (podgroup/gangscheduling/performance-config.yaml, 1.35 Workload API) ----------------

GANG_POD_GROUP = "gang"


def gang_objects(case: Case, shape: Shape, rng: random.Random) -> list[dict]:
    """Nodes (node-default.yaml), one Workload per gang (scheduling.k8s.io/v1alpha1, one gang pod
    group of minCount podsPerGroup: 1.35's form of upstream's PodGroup gang-<i>) and pods
    test-gang-scheduling-<i> (gang-pod.yaml: 100m, 100Mi) with spec.workloadRef to gang-<i / podsPerGroup>.
    A last gang short of podsPerGroup pods (only in odd hand-made sizes) gets its own size as minCount."""
    per = max(case.pods_per_group, 1)
    items: list[dict] = [_namespace(shape.measure_ns, False)]
    items += [node(n, None) for n in node_names(case.nodes, rng)]
    gangs = -(-case.measure // per)
    for g in range(gangs):
        size = min(per, case.measure - g * per)
        items.append(
            {
                "apiVersion": "scheduling.k8s.io/v1alpha1",
                "kind": "Workload",
                "metadata": {"name": f"gang-{g}", "namespace": shape.measure_ns},
                "spec": {"podGroups": [{"name": GANG_POD_GROUP, "policy": {"gang": {"minCount": size}}}]},
            }
        )
    for i in range(case.measure):
        res = {"cpu": "100m", "memory": "100Mi"}
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"test-gang-scheduling-{i}", "namespace": shape.measure_ns},
                "spec": {
                    "schedulerName": "default-scheduler",
                    "workloadRef": {"name": f"gang-{i // per}", "podGroup": GANG_POD_GROUP},
                    "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10.1", "resources": {"requests": res}}],
                },
            }
        )
    return items


# --- SchedulingWithMixedChurn (misc/performance-config.yaml) -----------------------------------

CHURN_NODE = "node-churn"
CHURN_POD = "churn-pod"
CHURN_NAMESPACE = "namespace-1"


def churn_objects(case: Case, shape: Shape, rng: random.Random) -> list[dict]:
    """The file both programs read: nodes (node-default.yaml) and the measured pods (pod-default.yaml);
    the churn is the scenario's timeline (scenario())."""
    items: list[dict] = [_namespace(ns, False) for ns in (CHURN_NAMESPACE, shape.measure_ns)]
    items += [node(n, None) for n in node_names(case.nodes, rng)]
    items += [pod("default", f"pod-{i:05d}", shape.measure_ns) for i in range(case.measure)]
    return items


def churn_events(rounds: int) -> list[dict]:
    """The churn op (mode recreate, number 1, every 1000 ms) over churn/node-default.yaml,
    pod-high-priority-large-cpu.yaml and service-default.yaml: at each second one node and one
    9-cpu priority-10 pod (never schedulable: no node has 9 cpu) replace the previous round's.
    Services are left out: no default plugin reads them."""
    events: list[dict] = []
    for r in range(rounds):
        at = r + 1
        if r:
            events.append({"at": at, "action": "deletePod", "pod": f"{CHURN_NAMESPACE}/{CHURN_POD}-{r - 1}"})
            events.append({"at": at, "action": "removeNode", "node": f"{CHURN_NODE}-{r - 1}"})
        churn_node = node(f"{CHURN_NODE}-{r}", None)
        events.append({"at": at, "action": "addNode", "object": churn_node})
        churn_pod = pod("high-priority-large-cpu", f"{CHURN_POD}-{r}", CHURN_NAMESPACE)
        events.append({"at": at, "action": "createPod", "object": churn_pod})
    return events


def write_scenario(case: Case, snapshot: Path) -> Path:
    """DIR/<case>.scenario.json: `kschedctl simulate`'s input, the case's file plus the churn timeline."""
    path = snapshot.with_name(f"{case.name}.scenario.json")
    doc = {
        "apiVersion": "kschedctl.io/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": case.name, "description": case.provenance},
        "snapshot": snapshot.name,
        "events": churn_events(case.churn),
    }
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


# --- files --------------------------------------------------------------------------------------


def case_seed(case: Case) -> int:
    """The node-name seed: fixed per shape and size, so every run writes the same file."""
    return case.nodes * 7919 + sum(map(ord, case.shape))


def _namespace(name: str, team: bool) -> dict:
    labels = {"kubernetes.io/metadata.name": name} | ({"team": "devops"} if team else {})
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def _init_groups(case: Case, shape: Shape) -> list[tuple[str, str, int]]:
    """(template, namespace, count) per init createPods op, in file (= queue) order."""
    if shape.ns_selector:
        per_ns = case.init // max(case.namespaces, 1)
        return [(shape.init_template, f"init-ns-{k}", per_ns) for k in range(case.namespaces)]
    if shape.init_mix:
        per_op = case.init // len(shape.init_mix)
        return [(template, shape.init_ns, per_op) for template in shape.init_mix]
    return [(shape.init_template, shape.init_ns, case.init)]


def objects(case: Case, seed: int | None = None) -> list[dict]:
    """The case's objects in file order: Namespaces (PriorityClasses), Nodes (CSINodes), init pods
    (with their PVs and PVCs), churn pods, measured pods (with theirs)."""
    shape = SHAPES[case.shape]
    rng = random.Random(case_seed(case) if seed is None else seed)
    if shape.family:
        return FAMILY_OBJECTS[shape.family](case, shape, rng)
    groups = _init_groups(case, shape)
    namespaces = {ns for _, ns, _ in groups} | {shape.measure_ns} | ({"namespace-2"} if shape.churn_template else set())
    items: list[dict] = [_namespace(ns, shape.ns_selector) for ns in sorted(namespaces)]
    if shape.init_template in PRIORITY_CLASSES:
        items += [
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}
            for name, value in PRIORITY_CLASSES.items()
        ]
    names = node_names(case.nodes, rng)
    if shape.named_node:
        items.append(named_node())
    # LabelNodePrepareStrategy: zone values round-robin over the sorted nodes
    items += [node(n, shape.zones[i % len(shape.zones)] if shape.zones else None, shape.node_kind) for i, n in enumerate(names)]
    if shape.node_kind != "default":
        items += [csi_node(n, shape.node_kind == "csi-migrated") for n in names]
    index = 0
    for template, ns, count in groups:
        for i in range(count):
            bound = names[index % len(names)] if shape.init_bound else None
            claim = None
            if shape.init_volume:
                items += volume_pair(shape.init_volume, ns, i)
                claim = f"pvc-{i}"
            init = pod(template, f"init-{index:05d}", ns, bound, claim)
            items.append(running(init, index) if bound else init)
            index += 1
    items += [pod(shape.churn_template, f"churn-{i:05d}", "namespace-2") for i in range(case.churn) if shape.churn_template]
    for i in range(case.measure):
        claim = None
        if shape.measure_volume:
            items += volume_pair(shape.measure_volume, shape.measure_ns, i)
            claim = f"pvc-{i}"
        items.append(pod(shape.measure_template, f"pod-{i:05d}", shape.measure_ns, claim=claim))
    return items


FAMILY_OBJECTS = {"dra": dra_objects, "gang": gang_objects, "churn": churn_objects}


def write(case: Case, directory: Path, seed: int | None = None) -> Path:
    """Writes DIR/<case>.json (a `kind: List`, one object per line) and DIR/config.yaml."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{case.name}.json"
    items = objects(case, seed)
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{"apiVersion": "v1", "kind": "List", "items": [\n')
        fh.write(",\n".join(json.dumps(it, separators=(",", ":")) for it in items))
        fh.write("\n]}\n")
    (directory / "config.yaml").write_text(DEFAULT_CONFIG, encoding="utf-8")
    if SHAPES[case.shape].family == "churn":
        write_scenario(case, path)
    return path
