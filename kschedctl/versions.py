"""Every behavioural difference between the emulated kube-scheduler releases, in one place.

Code asks ``version.enabled(FEATURE)`` (or reads a value here) instead of comparing version
numbers, so each difference is named once, next to the upstream change that made it.
Feature gates take their default value of the emulated release.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SUPPORTED_VERSIONS = ("1.35", "1.36", "1.37")
DEFAULT_VERSION = "1.37"


@dataclass(frozen=True, slots=True)
class Change:
    """A behaviour that starts at release ``since`` (inclusive)."""

    since: str
    upstream: str  # the upstream change (PR, KEP or file) that introduced it


# name -> Change. Keep sorted by name; each entry says where it came from.
CHANGES: dict[str, Change] = {
    # NodeResourcesBalancedAllocation scores the change in balance the pod causes
    # (50 + (50 + withPod - withoutPod) / 2) instead of 1 - std of the result.
    "BalancedAllocationScoresImprovement": Change("1.36", "kubernetes/kubernetes#135573 balanced_allocation.go"),
    # The DRA structured allocator rolls back what it reserved for a rejected or backtracked
    # candidate (counters, constraints, capacity), counts shared devices when rebuilding counters
    # and keys counter caches by pool ID (kubernetes/kubernetes#140431, #140437, #140435, #139040;
    # 1.36.3 and 1.37). 1.35.4 keeps the leaks (structured/internal/*/allocator_*.go).
    "DRAAllocatorAccountingFixes": Change("1.36", "kubernetes/kubernetes#140431 allocator_experimental.go allocateDevice"),
    # DynamicResources' computeScore takes a claim allocated before the cycle from its status and
    # pairs the allocations Filter made with the claims needing one; 1.35 pairs the i-th claim with
    # the i-th allocation and fails on a pod with an allocated claim and one to allocate ("number
    # of allocations 1 is smaller than number of claims"). 1.36+ Score also returns 0 while
    # DRAPrioritizedList is off. Read in dynamicresources.go of v1.36.2 (vendored by
    # openshift/kubernetes-autoscaler) and of 1.35 (kubernetes/kubernetes#134711's computeScore).
    "DRAScoreReadsClaimAllocations": Change("1.36", "dynamicresources.go computeScore unallocatedIndex"),
    # The DRA allocator tries pools in (driver, pool) order and slices in name order
    # (kubernetes/kubernetes#136641 pools_experimental.go sortPoolsByID); 1.35 uses Go map order.
    "DRASortedPoolsAndSlices": Change("1.36", "kubernetes/kubernetes#136641 pools_experimental.go"),
    # ImageLocality counts image volumes in the image count that sets its max threshold
    # (1000 MiB per image source), not only in the summed image scores (which 1.35/1.36 already do).
    "ImageLocalityCountsImageVolumes": Change("1.37", "kubernetes/kubernetes#138951 image_locality.go"),
    # Gang scheduling: the group cycle asks PlacementFeasible plugins (GangScheduling: "minCount (%d)
    # cannot be satisfied / is not yet satisfied") instead of Permit; PodGroup is scheduling.k8s.io/v1beta1.
    "GangPlacementFeasible": Change("1.37", "gangscheduling.go PlacementFeasible; algorithm_podgroup.go"),
    # The queue's addPod records a new pod's status.nominatedNodeName before PreEnqueue, so a
    # scheduling-gated pod's nomination holds its node against pods of lower or equal priority
    # (kubernetes/kubernetes#139057; scheduling_queue.go addPod at 4e67a75321bb of the 1.37 tree).
    # 1.35/1.36 nominate only in moveToActiveQ, i.e. pods that pass PreEnqueue.
    "NominateGatedPodsOnAdd": Change("1.37", "kubernetes/kubernetes#139057 scheduling_queue.go addPod"),
    # The max backoff of a pod group's members is multiplied by sqrt(number of pods in the group
    # entity) (backoff_queue.go calculateBackoffDuration(count, entitySize)). Release taken from
    # the reference's v1.36 pod-group section (it came with the QueuedPodGroupInfo queue entity).
    "PodGroupBackoffSqrtSize": Change("1.36", "pkg/scheduler/backend/queue/backoff_queue.go calculateBackoffDuration"),
    # Pods name a standalone PodGroup (spec.schedulingGroup.podGroupName, scheduling/v1alpha2)
    # instead of a Workload's pod group (spec.workloadRef, scheduling/v1alpha1).
    "PodGroupObject": Change("1.36", "KEP-4671 scheduling/v1alpha2 PodGroup"),
    # Pod-group members are filtered and scored without the single-pod PostFilter (preemption):
    # algorithm_podgroup.go schedulePod of the 1.37 tree. In 1.36.2 each member goes through
    # schedulingAlgorithm with post-filters on (podGroupPodSchedulingAlgorithm, runAllPostFilters):
    # the FitError message ends with what DynamicResources and DefaultPreemption say, and a member
    # whose preemption nominates a node is assumed there ("pod group is waiting for preemption").
    "PodGroupMembersSkipPostFilter": Change("1.37", "algorithm_podgroup.go schedulePod"),
    # Pods of a group are popped together and placed in one snapshot (scheduleOnePodGroup);
    # 1.35 schedules them one by one and holds them at Permit.
    "PodGroupSchedulingCycle": Change("1.36", "pkg/scheduler/schedule_one_podgroup.go"),
    # PodTopologySpread keeps the exact global minimum per constraint (MinMatchNum + DomainsAtCount)
    # instead of two critical paths, which could overstate it after several AddPod/RemovePod.
    "PodTopologySpreadExactMinMatchNum": Change("1.37", "podtopologyspread/filtering.go MinMatchNum"),
}

# Feature gates (pkg/features/kube_features.go) whose defaults matter to scheduling decisions,
# as {gate: {release: default}}. Absent releases inherit the previous entry.
FEATURE_GATES: dict[str, dict[str, bool]] = {
    "DynamicResourceAllocation": {"1.35": True},
    "SchedulerQueueingHints": {"1.35": True},
    "SchedulerPopFromBackoffQ": {"1.35": True},
    "SchedulerAsyncPreemption": {"1.35": True},
    "PodLevelResources": {"1.35": True},
    "SidecarContainers": {"1.35": True},
    "MatchLabelKeysInPodTopologySpread": {"1.35": True},
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": {"1.35": True},
    # KEP-4049: alpha (off) since 1.33, beta and on in 1.37 (versioned specs in
    # staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go of the 1.37 tree, commits
    # ead35706ec68 and 080d02a09a47). VolumeBinding then defaults its shape to {0: 10, 100: 0} and
    # scores dynamic provisioning by CSIStorageCapacity; scorer.go is unchanged (de741dc854).
    "StorageCapacityScoring": {"1.35": False, "1.37": True},
    "GenericWorkload": {"1.35": False},
    "GangScheduling": {"1.35": False},
    "TopologyAwareWorkloadScheduling": {"1.35": False},
    "TaintTolerationComparisonOperators": {"1.35": False},
    # alpha in 1.35, beta (on) in 1.36 (kube_features.go of v1.36.2), GA in 1.37; kschedctl has
    # no NodeDeclaredFeatures plugin, so the value decides nothing yet.
    "NodeDeclaredFeatures": {"1.35": False, "1.36": True},
    # NodeVolumeLimits rejects a node whose CSINode lacks a driver whose CSIDriver sets
    # spec.preventPodSchedulingIfMissing (alpha 1.35, beta and on in 1.37: staging/src/k8s.io/
    # kube-scheduler/pkg/features/kube_features.go at ead35706ec68). Not modelled: the snapshot's
    # use of the field is said on stderr (kschedctl/cluster/release_remarks.py).
    "VolumeLimitScaling": {"1.35": False, "1.37": True},
    # VolumeBinding's FindMatchingVolume compares volumeAttributesClassName (GA in 1.34).
    "VolumeAttributesClass": {"1.35": True},
    # DynamicResourcesArgs fields (validation_pluginargs.go ValidateDynamicResourcesArgs):
    # filterTimeout needs DRASchedulerFilterTimeout (beta, on since 1.34); bindingTimeout needs
    # DRADeviceBindingConditions (beta, on by default from 1.36) and DRAResourceClaimDeviceStatus.
    "DRASchedulerFilterTimeout": {"1.35": True},
    "DRADeviceBindingConditions": {"1.35": False, "1.36": True},
    "DRAResourceClaimDeviceStatus": {"1.35": True},
    # The structured allocator's features (AllocatorFeatures in dynamicresources.go), defaults from
    # pkg/features/kube_features.go of each release.
    "DRAAdminAccess": {"1.35": True},
    "DRAPrioritizedList": {"1.35": True},
    "DRAPartitionableDevices": {"1.35": False, "1.36": True},
    "DRADeviceTaints": {"1.35": False, "1.36": True},
    "DRAConsumableCapacity": {"1.35": False, "1.36": True},
    "DRAExtendedResource": {"1.35": False, "1.36": True},
    "DRADeviceTaintRules": {"1.35": False, "1.37": True},
}


# Gates a release locks to its default (LockToDefault: true in the gate's versioned specs), as
# {gate: first release locked}; a lock is never lifted (component-base featuregate refuses a
# spec that unlocks). Setting such a gate to anything but its default makes kube-scheduler refuse
# to start (feature_gate.go unsafeSetFromMap: "cannot set feature gate %v to %v, feature is
# locked to %v"). Read in pkg/features/kube_features.go of v1.36.2 (vendored by
# openshift/kubernetes-autoscaler; its history gives 1.35's locks) and, for 1.37, the scheduler's
# feature list of the 1.37 development tree (SetupCurrentKubernetesSpecificFeatureGates).
LOCKED_TO_DEFAULT: dict[str, str] = {
    "DynamicResourceAllocation": "1.35",  # GA 1.34, locked 1.35
    "SchedulerQueueingHints": "1.35",  # GA and locked since 1.34
    "SidecarContainers": "1.35",  # GA and locked since 1.33
    "VolumeAttributesClass": "1.36",
    "DRAAdminAccess": "1.36",
    "DRAPrioritizedList": "1.37",
    "DRAResourceClaimDeviceStatus": "1.37",
    "DRAExtendedResource": "1.37",
    "NodeDeclaredFeatures": "1.37",
}


# Reason and message texts, checked release by release in upstream source, as
# {key: {release: text}}; absent releases inherit the previous entry. Plugins take their words
# from here (``version.wording(key, **fields)``, str.format fields) so that a release that
# rewords a message changes one line. kube's own typos are kept ("pods's").
WORDINGS: dict[str, dict[str, str]] = {
    # volumerestrictions/volume_restrictions.go ErrReasonReadWriteOncePodConflict, reworded in
    # 1.33 (kubernetes/kubernetes#129145); the same text in 1.35, 1.36 and 1.37.
    "VolumeRestrictions.ReadWriteOncePodConflict": {
        "1.35": "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod",
    },
    # gangscheduling/gangscheduling.go PreEnqueue, the pod's group object is not in the cluster:
    # 1.35 names the Workload of spec.workloadRef, 1.36+ the PodGroup of spec.schedulingGroup.
    "GangScheduling.GroupNotFound": {
        "1.35": 'waiting for pods\'s workload "{name}" to appear in scheduling queue',
        "1.36": 'waiting for pods\'s pod group "{name}" to appear in scheduling queue',
    },
    # 1.35 PreEnqueue: the Workload has no pod group of the pod's spec.workloadRef.podGroup
    # (UnschedulableAndUnresolvable). 1.36+ pods name a PodGroup directly.
    "GangScheduling.PodGroupNotInWorkload": {
        "1.35": 'pod group "{group}" doesn\'t exist for a workload "{workload}"',
    },
    # PreEnqueue: fewer than minCount pods of the gang exist (1.35, 1.36, 1.37).
    "GangScheduling.MinCountNotInQueue": {
        "1.35": "waiting for minCount pods from a gang to appear in scheduling queue",
    },
    # dynamic-resource-allocation/resourceclaim IsForPod: a claim from a template that the pod does
    # not own (DynamicResources PreEnqueue/PreFilter). 1.36 capitalises Pod (resourceclaim.go, next
    # to the new IsForPodGroup); checked in the v1.35.4 and v1.36.2 vendored sources.
    "DynamicResources.ClaimNotForPod": {
        "1.35": "ResourceClaim {claim} was not created for pod {pod} (pod is not owner)",
        "1.36": "ResourceClaim {claim} was not created for Pod {pod} (Pod is not owner)",
    },
    # Permit (1.35/1.36): Wait while fewer than minCount pods of the gang are assumed.
    "GangScheduling.PermitWait": {
        "1.35": "waiting for minCount pods from a gang to be waiting on permit",
        "1.36": "waiting for minCount pods from a gang to be scheduled",
    },
}


def _key(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


class UnsupportedVersion(ValueError):
    pass


class LockedFeatureGate(UnsupportedVersion):
    """`--feature-gates` changes a gate the release locks: kube-scheduler refuses to start."""


class UnknownFeatureGate(KeyError):
    """A gate name kschedctl does not know: a typo, never read as off."""

    def __str__(self) -> str:
        return f"unknown feature gate {self.args[0]!r} (known: {', '.join(sorted(FEATURE_GATES))})"


@dataclass(frozen=True)
class KubeVersion:
    """The emulated release, with feature gates at its defaults unless overridden."""

    version: str = DEFAULT_VERSION
    gate_overrides: dict[str, bool] = field(default_factory=dict)
    # answers of has() and feature_enabled(), asked per pod in hot paths: the release and its
    # overrides never change after construction
    _answers: dict[tuple[str, str], bool] = field(default_factory=dict, init=False, repr=False, compare=False)
    _wordings: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.version not in SUPPORTED_VERSIONS:
            raise UnsupportedVersion(f"unsupported --kube-version {self.version!r}: supported releases are {', '.join(SUPPORTED_VERSIONS)}")
        for gate in self.gate_overrides:
            if gate not in FEATURE_GATES:
                raise UnknownFeatureGate(gate)

    def at_least(self, version: str) -> bool:
        return _key(self.version) >= _key(version)

    def has(self, change: str) -> bool:
        """Is this named behaviour change in effect in the emulated release?"""
        key = ("change", change)
        answer = self._answers.get(key)
        if answer is None:
            answer = self._answers[key] = self.at_least(CHANGES[change].since)
        return answer

    def feature_enabled(self, gate: str) -> bool:
        """The gate's value in the emulated release; an unknown name raises UnknownFeatureGate."""
        key = ("gate", gate)
        answer = self._answers.get(key)
        if answer is None:
            answer = self._answers[key] = self._feature_enabled(gate)
        return answer

    def _feature_enabled(self, gate: str) -> bool:
        history = FEATURE_GATES.get(gate)
        if history is None:
            raise UnknownFeatureGate(gate)
        if gate in self.gate_overrides:
            return self.gate_overrides[gate]
        value = False
        for release in sorted(history, key=_key):
            if _key(release) <= _key(self.version):
                value = history[release]
        return value

    def wording(self, key: str, **fields: str) -> str:
        """The text of WORDINGS[key] in the emulated release, with ``fields`` filled in."""
        text = self._wordings.get(key)
        if text is None:
            text = ""
            for release in sorted(WORDINGS[key], key=_key):
                if _key(release) <= _key(self.version):
                    text = WORDINGS[key][release]
            self._wordings[key] = text
        return text.format(**fields) if fields else text

    def locked_gate_errors(self) -> list[str]:
        """kube-scheduler's refusals of the overrides that change a gate this release locks."""
        errors = []
        for gate, value in self.gate_overrides.items():
            since = LOCKED_TO_DEFAULT.get(gate)
            if since is None or not self.at_least(since):
                continue
            default = self.with_defaults().feature_enabled(gate)
            if value != default:
                errors.append(f"cannot set feature gate {gate} to {_go_bool(value)}, feature is locked to {_go_bool(default)}")
        return errors

    def with_defaults(self) -> "KubeVersion":
        """The release with every gate at its default."""
        return KubeVersion(self.version)

    def with_gates(self, **gates: bool) -> "KubeVersion":
        merged = dict(self.gate_overrides)
        merged.update(gates)
        return KubeVersion(self.version, merged)

    def __str__(self) -> str:
        return self.version


def parse_feature_gates(text: str | None) -> dict[str, bool]:
    """`--feature-gates A=true,B=false`, as kube-scheduler's flag takes it; unknown gates are errors."""
    gates: dict[str, bool] = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or value.strip().lower() not in ("true", "false"):
            raise UnsupportedVersion(f"invalid value of {item}, err: expected <gate>=<true|false>")
        if name not in FEATURE_GATES:
            raise UnsupportedVersion(f"unrecognized feature gate: {name} (known: {', '.join(sorted(FEATURE_GATES))})")
        gates[name] = value.strip().lower() == "true"
    return gates


def _go_bool(value: bool) -> str:
    return "true" if value else "false"


def parse_version(text: str | None, feature_gates: str | None = None) -> KubeVersion:
    """The release and `--feature-gates` as a user gives them: kube-scheduler's own checks,
    locked gates included (several refusals read as utilerrors.NewAggregate prints them).
    KubeVersion itself accepts any override, as upstream's plugin tests set feature.Features."""
    version = KubeVersion(text or DEFAULT_VERSION, parse_feature_gates(feature_gates))
    errors = version.locked_gate_errors()
    if errors:
        raise LockedFeatureGate(errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]")
    return version
