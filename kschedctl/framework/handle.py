"""The Handle: everything a plugin may use of the scheduler that runs it, and nothing else.

Upstream: staging/src/k8s.io/kube-scheduler/framework/interface.go (Handle: the snapshot's
SharedLister, the informers' listers, the clientset, waiting pods, the PodNominator, the
PluginsRunner, the WorkloadManager). A plugin gets its Handle from its factory
``factory(args, handle)``; the scheduler behind it is never handed over. The Handle is filled
from what the runtime lends it, seen here only through two interfaces, as kube's Handle sees
frameworkImpl: ``ProfileRunner`` (its profile's Framework, kschedctl/runtime/framework.py)
and ``HandleServices`` (the scheduler's ``Services``, kschedctl/runtime/services.py, which
config validation and tests build without a scheduler, ``Services.minimal``).

kschedctl's informers are the snapshot: ``objects`` holds the cluster objects
(namespaces, PVCs, PVs, storage classes, CSINodes, PDBs, pod groups, ...) and
``pod_lister()`` every pod the scheduler knows.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from kschedctl.framework.interface import NodePluginScores, Status

if TYPE_CHECKING:
    from kschedctl.api.objects import ClusterObjects
    from kschedctl.api.resourceclaim import ResourceClaim
    from kschedctl.api.types import Pod
    from kschedctl.dra.manager import DRAManager
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.extender import Extender
    from kschedctl.framework.features import Features
    from kschedctl.framework.podgroup import PodGroupManager
    from kschedctl.framework.types import NodeInfo, PodInfo
    from kschedctl.framework.waiting_pods import WaitingPod
    from kschedctl.versions import KubeVersion


class SharedLister(Protocol):
    """The scheduling cycle's snapshot (NodeInfoLister + StorageInfoLister upstream)."""

    def list(self) -> list["NodeInfo"]: ...

    def get(self, node_name: str) -> "NodeInfo | None": ...

    def num_nodes(self) -> int: ...

    def have_pods_with_affinity_list(self) -> Sequence["NodeInfo"]: ...

    def have_pods_with_required_anti_affinity_list(self) -> Sequence["NodeInfo"]: ...

    def is_pvc_used_by_pods(self, key: str) -> bool:
        """Is the PVC ("namespace/name") used by a pod of the snapshot (StorageInfoLister)?"""
        ...


class PodLister(Protocol):
    """Every pod the scheduler knows: bound, assumed and pending (the pod informer's lister)."""

    def list(self) -> list["Pod"]: ...


class Clock(Protocol):
    """The scheduler's clock: virtual time, in seconds since the epoch."""

    def now(self) -> float: ...


class Client(Protocol):
    """The API calls plugins make, applied to the simulated cluster (the clientset upstream)."""

    def bind(self, pod: "Pod", node_name: str) -> Status: ...

    def preempt(self, preemptor: "Pod", node_name: str, victims: list["Pod"]) -> None: ...

    def update(self, obj: dict[str, Any]) -> Status:
        """Write an object back (an Update call): PreBind's writes, e.g. VolumeBinding's PV
        claimRef and PVC selected-node annotation. The object is the whole new version."""
        ...

    # ResourceClaims (DynamicResources): the stored object is returned; an API error raises
    # ApiError (kschedctl.framework.handle). The informers see the change at once.
    def update_resource_claim(self, claim: "ResourceClaim") -> "ResourceClaim": ...

    def create_resource_claim(self, claim: "ResourceClaim") -> "ResourceClaim": ...

    def delete_resource_claim(self, claim: "ResourceClaim") -> None: ...

    def patch_pod_status(self, pod: "Pod", status: dict[str, Any]) -> None: ...


class ApiError(Exception):
    """A failed API call (the error text kube would see from the clientset)."""


class PodNominator(Protocol):
    """Pods nominated to nodes (framework.PodNominator)."""

    def nominated_pods_for_node(self, node_name: str) -> list["PodInfo"]: ...

    def add_nominated_pod(self, info: "PodInfo", node_name: str | None = None) -> None: ...

    def delete_nominated_pod_if_exists(self, pod: "Pod") -> None: ...


class _SnapshotPods:
    """The pod lister without a scheduler: the pods bound in the snapshot."""

    def __init__(self, handle: "Handle") -> None:
        self._handle = handle

    def list(self) -> list["Pod"]:
        snap = self._handle.snapshot_shared_lister()
        return [pi.pod for ni in (snap.list() if snap is not None else []) for pi in ni.pods]


class ProfileRunner(Protocol):
    """What a Handle reads of its profile's Framework (the runtime's, kschedctl/runtime/framework.py):
    the cycle's snapshot, the profile's plugins, its waiting pods, and the PluginsRunner."""

    @property
    def snapshot(self) -> SharedLister: ...

    @property
    def features(self) -> "Features": ...

    @property
    def profile_name(self) -> str: ...

    @property
    def points(self) -> Mapping[str, Sequence[Any]]: ...

    @property
    def waiting_pods(self) -> Mapping[str, "WaitingPod"]: ...

    def name_of(self, plugin: Any) -> str: ...

    def reject_waiting_pod(self, uid: str) -> bool: ...

    def run_filter_plugins(self, state: "CycleState", pod: "Pod", node_info: "NodeInfo") -> Status: ...

    def run_filter_plugins_with_nominated_pods(self, state: "CycleState", pod: "Pod", node_info: "NodeInfo") -> Status: ...

    def run_pre_filter_extension_add_pod(self, state: "CycleState", pod: "Pod", info: "PodInfo", node_info: "NodeInfo") -> Status: ...

    def run_pre_filter_extension_remove_pod(self, state: "CycleState", pod: "Pod", info: "PodInfo", node_info: "NodeInfo") -> Status: ...

    def has_pre_filter_extensions(self, state: "CycleState") -> bool: ...

    def run_pre_score_plugins(self, state: "CycleState", pod: "Pod", nodes: Sequence["NodeInfo"]) -> Status: ...

    def run_score_plugins(self, state: "CycleState", pod: "Pod", nodes: Sequence["NodeInfo"]) -> tuple[list[NodePluginScores], Status]: ...


class HandleServices(Protocol):
    """What a Handle reads of the scheduler's services (the runtime's Services,
    kschedctl/runtime/services.py): the objects, the release, the clock, the client."""

    @property
    def objects(self) -> "ClusterObjects": ...

    @property
    def version(self) -> "KubeVersion": ...

    @property
    def rng(self) -> random.Random: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def nominator(self) -> PodNominator | None: ...

    @property
    def client(self) -> Client | None: ...

    @property
    def pods(self) -> PodLister | None: ...

    @property
    def assumed_pod(self) -> "Callable[[str], Pod | None] | None": ...

    @property
    def extenders(self) -> Sequence["Extender"]: ...

    def dra_manager(self) -> "DRAManager": ...


class Handle:
    """framework.Handle for one profile: services, listers, waiting pods, plugins runner."""

    # weak references allowed: plugin packages keep per-scheduler state keyed by their Handle
    # (a WeakKeyDictionary), which must go with the scheduler in a long-lived process (a sweep's
    # worker runs hundreds of schedulers)
    __slots__ = ("_fwk", "_services", "_pods", "_pod_groups", "__weakref__")

    def __init__(self, fwk: ProfileRunner, services: HandleServices) -> None:
        self._fwk = fwk
        self._services = services
        self._pods: PodLister = services.pods if services.pods is not None else _SnapshotPods(self)
        self._pod_groups: "PodGroupManager | None" = None

    # --- the cluster ------------------------------------------------------------------------
    def snapshot_shared_lister(self) -> SharedLister:
        """The snapshot of this scheduling cycle (restricted to a placement's nodes while a pod
        group is tried in it)."""
        snapshot: SharedLister = self._fwk.snapshot
        return snapshot

    @property
    def objects(self) -> "ClusterObjects":
        """The snapshot's other objects (namespaces, PVCs, PVs, storage classes, CSINodes,
        CSIDrivers, PDBs, priority classes, pod groups, owners): the informers' listers."""
        return self._services.objects

    def shared_dra_manager(self) -> "DRAManager":
        """Dynamic Resource Allocation state shared by all profiles (SharedDRAManager): claims,
        in-flight allocations, allocated devices, ResourceSlices, DeviceClasses."""
        return self._services.dra_manager()

    def pod_lister(self) -> PodLister:
        return self._pods

    def pod_group_manager(self) -> "PodGroupManager":
        """Pod groups: a pod's group, the group objects, each group's pods (WorkloadManager)."""
        if self._pod_groups is None:
            from kschedctl.framework.podgroup import PodGroupManager

            self._pod_groups = PodGroupManager(
                self._services.objects,
                self._services.version,
                self._pods.list,
                self._services.assumed_pod,
                pods_version=getattr(self._pods, "version", None),
                pod_counts=getattr(self._pods, "counts_by", None),
                scheduled_counts=getattr(self._pods, "scheduled_counts_by", None),
            )
        return self._pod_groups

    # --- the emulated release ---------------------------------------------------------------
    @property
    def version(self) -> "KubeVersion":
        """The emulated release: ``version.has(CHANGE)`` for release differences."""
        return self._services.version

    @property
    def features(self) -> "Features":
        """The feature gates of the run (also passed to ``factory_with_features``)."""
        return self._fwk.features

    # --- scheduler services -----------------------------------------------------------------
    @property
    def rng(self) -> random.Random:
        """The run's seeded random source (same --seed, same draws)."""
        return self._services.rng

    @property
    def clock(self) -> Clock:
        return self._services.clock

    @property
    def nominator(self) -> PodNominator | None:
        return self._services.nominator

    def extenders(self) -> list["Extender"]:
        """The scheduler's HTTP extenders (Handle.Extenders): preemption lets them filter its
        candidates (kschedctl/scheduler/extender.py)."""
        return list(self._services.extenders)

    @property
    def client(self) -> Client | None:
        """Bind, preempt (evict), update and ResourceClaim calls; None where nothing may
        change (validation)."""
        return self._services.client

    @property
    def profile_name(self) -> str:
        return self._fwk.profile_name

    def plugins(self, point: str) -> tuple[tuple[str, Any], ...]:
        """(registered name, plugin) of the profile's plugins at an extension point (its config
        field name, e.g. "filter"), in order."""
        return tuple((self._fwk.name_of(pl), pl) for pl in self._fwk.points.get(point, ()))

    # --- waiting pods -----------------------------------------------------------------------
    def iterate_over_waiting_pods(self) -> list["WaitingPod"]:
        return list(self._fwk.waiting_pods.values())

    def get_waiting_pod(self, uid: str) -> "WaitingPod | None":
        return self._fwk.waiting_pods.get(uid)

    def reject_waiting_pod(self, uid: str) -> bool:
        return self._fwk.reject_waiting_pod(uid)

    # --- PluginsRunner ----------------------------------------------------------------------
    def run_filter_plugins(self, state: "CycleState", pod: "Pod", node_info: "NodeInfo") -> Status:
        return self._fwk.run_filter_plugins(state, pod, node_info)

    def run_filter_plugins_with_nominated_pods(self, state: "CycleState", pod: "Pod", node_info: "NodeInfo") -> Status:
        return self._fwk.run_filter_plugins_with_nominated_pods(state, pod, node_info)

    def run_pre_filter_extension_add_pod(self, state: "CycleState", pod: "Pod", info: "PodInfo", node_info: "NodeInfo") -> Status:
        return self._fwk.run_pre_filter_extension_add_pod(state, pod, info, node_info)

    def run_pre_filter_extension_remove_pod(self, state: "CycleState", pod: "Pod", info: "PodInfo", node_info: "NodeInfo") -> Status:
        return self._fwk.run_pre_filter_extension_remove_pod(state, pod, info, node_info)

    def has_pre_filter_extensions(self, state: "CycleState") -> bool:
        """Would AddPod / RemovePod call any plugin for this state (else they are no-ops)?"""
        return self._fwk.has_pre_filter_extensions(state)

    def run_pre_score_plugins(self, state: "CycleState", pod: "Pod", nodes: Sequence["NodeInfo"]) -> Status:
        return self._fwk.run_pre_score_plugins(state, pod, nodes)

    def run_score_plugins(self, state: "CycleState", pod: "Pod", nodes: Sequence["NodeInfo"]) -> tuple[list[NodePluginScores], Status]:
        return self._fwk.run_score_plugins(state, pod, nodes)

    def __repr__(self) -> str:
        return f"Handle(profile={self.profile_name!r})"


__all__ = ["ApiError", "Client", "Clock", "Handle", "HandleServices", "PodLister", "PodNominator", "ProfileRunner", "SharedLister"]
