"""Pod groups: the PodGroup object, how pods name their group, and the group's live state.

Upstream: staging/src/k8s.io/api/scheduling/v1beta1 (1.37: PodGroup with
spec.schedulingPolicy.{basic,gang{minCount}} and spec.schedulingConstraints.topology[].key),
v1alpha2 (1.36, same shape), v1alpha1 Workload (1.35: spec.podGroups[{name, policy}]); pods
name their group through spec.schedulingGroup.podGroupName (1.36+) or spec.workloadRef
{name, podGroup} (1.35). PodGroupState mirrors the scheduler's pod group state
(pkg/scheduler/backend/cache podgroup state: AllPodsCount, ScheduledPodsCount, UnscheduledPods).

Snapshot objects are kept by ClusterObjects.pod_groups under (kind, "ns/name"); the
kubernetes-sigs scheduler-plugins PodGroup (scheduling.x-k8s.io) is kept under
(X_K8S_POD_GROUP_KIND, "ns/name") so that both API groups coexist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kschedctl.api import content_memo
from kschedctl.api.types import Pod

POD_GROUP_KIND = "PodGroup"
WORKLOAD_KIND = "Workload"
X_K8S_POD_GROUP_KIND = "PodGroup.scheduling.x-k8s.io"  # scheduler-plugins' PodGroup, by kind+group
X_K8S_GROUP = "scheduling.x-k8s.io"


def storage_kind(kind: str, api_version: str) -> str:
    """The key kind a snapshot object is stored under (PodGroups of both API groups coexist)."""
    if kind == POD_GROUP_KIND and api_version.split("/")[0] == X_K8S_GROUP:
        return X_K8S_POD_GROUP_KIND
    return kind


@dataclass
class PodGroup:
    """A PodGroup (or, for 1.35, one pod group of a Workload): its policy and constraints."""

    namespace: str
    name: str
    policy: str = "basic"  # "basic" or "gang"
    min_count: int = 1
    topology_keys: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def is_gang(self) -> bool:
        return self.policy == "gang"


def _policy(spec_policy: Any) -> tuple[str, int]:
    policy = spec_policy if isinstance(spec_policy, dict) else {}
    gang = policy.get("gang")
    if isinstance(gang, dict):
        return "gang", int(gang.get("minCount") or 0)
    return "basic", 1


def pod_group_from_raw(raw: dict[str, Any]) -> PodGroup:
    md = raw.get("metadata") or {}
    spec = raw.get("spec") or {}
    policy, min_count = _policy(spec.get("schedulingPolicy"))
    constraints = spec.get("schedulingConstraints") or {}
    keys = [str(t.get("key")) for t in (constraints.get("topology") or []) if isinstance(t, dict) and t.get("key")]
    return PodGroup(str(md.get("namespace") or "default"), str(md.get("name") or ""), policy, min_count, keys, raw)


# (id of a Workload's raw object, group name) -> (that raw object, its PodGroup): a gang's every
# pod asks for its group at PreEnqueue (twice) and at Permit; a Workload read from the input is
# never edited (an update is a new object), and holding it keeps its id from being reused.
# Bounded as content_memo's memos are.
_WORKLOAD_GROUPS: dict[tuple[int, str], tuple[dict[str, Any], PodGroup | None]] = {}


def workload_pod_group(raw: dict[str, Any], group_name: str) -> PodGroup | None:
    """1.35: the named entry of a Workload's spec.podGroups (one PodGroup per Workload object
    and name: nothing edits a PodGroup)."""
    key = (id(raw), group_name)
    kept = _WORKLOAD_GROUPS.get(key)
    if kept is not None and kept[0] is raw:
        return kept[1]
    group = _workload_pod_group(raw, group_name)
    content_memo.remember(_WORKLOAD_GROUPS, key, (raw, group))
    return group


def _workload_pod_group(raw: dict[str, Any], group_name: str) -> PodGroup | None:
    md = raw.get("metadata") or {}
    for entry in (raw.get("spec") or {}).get("podGroups") or []:
        if isinstance(entry, dict) and entry.get("name") == group_name:
            policy, min_count = _policy(entry.get("policy"))
            return PodGroup(str(md.get("namespace") or "default"), f"{md.get('name')}/{group_name}", policy, min_count, [], raw)
    return None


_UNSET = "\0unset"  # no group key is this (keys are "ns/..." or None)


def _spec(pod: Pod) -> dict[str, Any]:
    raw = pod.raw if isinstance(pod.raw, dict) else {}
    return raw.get("spec") or {}


def scheduling_group_name(pod: Pod) -> str | None:
    """spec.schedulingGroup.podGroupName (1.36+)."""
    ref = _spec(pod).get("schedulingGroup")
    if isinstance(ref, dict) and ref.get("podGroupName"):
        return str(ref["podGroupName"])
    return None


def workload_ref(pod: Pod) -> tuple[str, str] | None:
    """spec.workloadRef (1.35): (workload name, pod group name), kept on the pod object (the
    reference is immutable, an updated pod is a new object)."""
    found: Any = pod.cache.get("podgroup.workloadRefPair", _UNSET)
    if found is _UNSET:
        ref = _spec(pod).get("workloadRef")
        found = (str(ref["name"]), str(ref.get("podGroup") or "")) if isinstance(ref, dict) and ref.get("name") else None
        pod.cache["podgroup.workloadRefPair"] = found
    pair: tuple[str, str] | None = found
    return pair


def uses_pod_group_object(version: Any) -> bool:
    """1.36+ reads a standalone PodGroup object; 1.35 a Workload's pod groups."""
    return bool(version.has("PodGroupObject"))


def _key_by_scheduling_group(pod: Pod) -> str | None:
    """1.36+: "ns/podGroupName" from spec.schedulingGroup (kept on the pod object: the
    reference is immutable, an updated pod is a new object)."""
    key: str | None = pod.cache.get("podgroup.schedulingGroup", _UNSET)
    if key is _UNSET:
        name = scheduling_group_name(pod)
        key = pod.cache["podgroup.schedulingGroup"] = f"{pod.namespace}/{name}" if name else None
    return key


def _key_by_workload_ref(pod: Pod) -> str | None:
    """1.35: "ns/workload/podGroup" from spec.workloadRef (kept on the pod object, as above)."""
    key: str | None = pod.cache.get("podgroup.workloadRef", _UNSET)
    if key is _UNSET:
        ref = workload_ref(pod)
        key = pod.cache["podgroup.workloadRef"] = f"{pod.namespace}/{ref[0]}/{ref[1]}" if ref else None
    return key


def group_key_function(version: Any) -> Callable[[Pod], str | None]:
    """group_key_of for one emulated release: the release asked once, not once per pod (a
    group's state walks every pod the scheduler knows)."""
    return _key_by_scheduling_group if uses_pod_group_object(version) else _key_by_workload_ref


def group_key_of(pod: Pod, version: Any) -> str | None:
    """ "ns/name" of the pod's group, by the reference form of the emulated release."""
    return group_key_function(version)(pod)


def lookup(objects: Any, namespace: str, name: str) -> PodGroup | None:
    """The scheduling.k8s.io PodGroup ns/name of the snapshot, if any."""
    obj = (getattr(objects, "pod_groups", None) or {}).get((POD_GROUP_KIND, f"{namespace}/{name}"))
    return pod_group_from_raw(obj.raw) if obj is not None else None


def lookup_workload(objects: Any, namespace: str, name: str) -> Any:
    return (getattr(objects, "pod_groups", None) or {}).get((WORKLOAD_KIND, f"{namespace}/{name}"))


def group_of(objects: Any, pod: Pod, version: Any) -> PodGroup | None:
    """The pod's group object, or None (no reference, or the object is missing)."""
    if uses_pod_group_object(version):
        name = scheduling_group_name(pod)
        return lookup(objects, pod.namespace, name) if name else None
    ref = workload_ref(pod)
    if ref is None:
        return None
    wl = lookup_workload(objects, pod.namespace, ref[0])
    return workload_pod_group(wl.raw, ref[1]) if wl is not None else None


@dataclass
class PodGroupState:
    """The group's pods as the scheduler knows them (podGroupState)."""

    all_pods: list[Pod] = field(default_factory=list)
    scheduled: list[Pod] = field(default_factory=list)  # assigned or assumed
    unscheduled: list[Pod] = field(default_factory=list)

    def all_pods_count(self) -> int:
        return len(self.all_pods)

    def scheduled_pods_count(self) -> int:
        return len(self.scheduled)


# scans of one pod list for single groups before it is grouped whole (a scan and a grouping
# cost about the same; a gang of 3 asks about one list up to 3 times)
WHOLE_GROUPING_AFTER = 4


class PodGroupManager:
    """The scheduler's view of pod groups (the Handle's WorkloadManager upstream): which group
    a pod belongs to in the emulated release, the group objects, and each group's pods.

    ``pods`` lists every pod the scheduler knows (bound, assumed and pending);
    ``assumed_pod(uid)`` gives the assumed copy (with its node) of a pod assumed in the cache,
    or None. Without a scheduler (plugin tests) the pods are those bound in the snapshot.
    """

    def __init__(
        self,
        objects: Any,
        version: Any,
        pods: Callable[[], Iterable[Pod]],
        assumed_pod: Callable[[str], Pod | None] | None = None,
        pods_version: Callable[[], int] | None = None,
        pod_counts: Callable[[Callable[[Pod], str | None]], Mapping[str, int]] | None = None,
        scheduled_counts: Callable[[Callable[[Pod], str | None]], Mapping[str, int]] | None = None,
    ) -> None:
        """``pods_version``, when given, changes whenever ``pods()`` would list something else:
        the list is then taken once per change instead of once per question. ``pod_counts``,
        when given, maps a key function to the number of non-terminal pods of ``pods()`` per
        key, kept up to date by whoever owns the pods: all_pods_count then walks no pod;
        ``scheduled_counts`` likewise counts those bound or assumed (scheduled_pods_count)."""
        self._objects = objects
        self._version = version
        self._pods = pods
        self._assumed_pod = assumed_pod
        self._pods_version = pods_version
        self._pod_counts = pod_counts
        self._scheduled_counts = scheduled_counts
        self._listed: tuple[int, list[Pod]] | None = None
        # state() is asked for every gated gang pod at every pod event: it groups the pods once
        # per pod list (the list the grouping was made from, compared item by item: Pod compares
        # by identity, an updated or assumed pod is a new object); each pod object keeps its own
        # key (group_key_function)
        self._grouped_from: list[Pod] = []
        self._groups: dict[str, list[Pod]] = {}
        self._scanned: list[Pod] = []
        self._scans = 0

    def group_key_of(self, pod: Pod) -> str | None:
        """ "ns/name" of the pod's group (by the reference form of the emulated release)."""
        return group_key_of(pod, self._version)

    def group_of(self, pod: Pod) -> PodGroup | None:
        """The pod's group object, or None (no reference, or the object is missing)."""
        return group_of(self._objects, pod, self._version)

    def lookup(self, namespace: str, name: str) -> PodGroup | None:
        return lookup(self._objects, namespace, name)

    def lookup_workload(self, namespace: str, name: str) -> Any:
        return lookup_workload(self._objects, namespace, name)

    def _members(self, pod_group_key: str) -> list[Pod]:
        """The group's non-terminal pods, in the order the pod lister gives them.

        A pod list asked about a few times (each scheduling cycle changes it; a pod event
        requeues the gated pods of a small group) is scanned for the group asked; one asked about
        more often (the gated pods of a large gang) is grouped whole once, and the next
        questions about it are answered from the groups."""
        pods = self._pod_list()
        if pods is self._grouped_from or pods == self._grouped_from:
            return self._groups.get(pod_group_key, [])
        key_of = group_key_function(self._version)
        if pods is self._scanned or pods == self._scanned:
            self._scans += 1
        else:
            self._scanned, self._scans = pods, 1
        whole = self._scans > WHOLE_GROUPING_AFTER
        groups: dict[str, list[Pod]] = {}
        for pod in pods:
            key = key_of(pod)
            if key is not None and (whole or key == pod_group_key) and not pod.is_terminal:  # a pod object's phase is fixed
                groups.setdefault(key, []).append(pod)
        if whole:
            self._grouped_from, self._groups = pods, groups
        return groups.get(pod_group_key, [])

    def _pod_list(self) -> list[Pod]:
        """pods() as a list: the same list object while ``pods_version`` says nothing changed."""
        if self._pods_version is None:
            return list(self._pods())
        version = self._pods_version()
        if self._listed is None or self._listed[0] != version:
            self._listed = (version, list(self._pods()))
        return self._listed[1]

    def all_pods_count(self, pod_group_key: str) -> int:
        """state(key).all_pods_count() without sorting the pods into scheduled and not
        (GangScheduling's PreEnqueue asks it at every pod event), from the owner's counts
        when it keeps them."""
        if self._pod_counts is not None:
            return self._pod_counts(group_key_function(self._version)).get(pod_group_key, 0)
        return len(self._members(pod_group_key))

    def scheduled_pods_count(self, pod_group_key: str) -> int:
        """state(key).scheduled_pods_count() without listing the pods (GangScheduling's Permit
        asks it for every pod of a gang), from the owner's counts when it keeps them."""
        if self._scheduled_counts is not None:
            return self._scheduled_counts(group_key_function(self._version)).get(pod_group_key, 0)
        return self.state(pod_group_key).scheduled_pods_count()

    def state(self, pod_group_key: str) -> PodGroupState:
        """podGroupState: the group's non-terminal pods; scheduled = bound or assumed (an
        assumed pod is listed as its assumed copy, which carries the node)."""
        state = PodGroupState()
        for pod in self._members(pod_group_key):
            state.all_pods.append(pod)
            assumed = self._assumed_pod(pod.uid) if self._assumed_pod is not None and not pod.node_name else None
            if pod.node_name:
                state.scheduled.append(pod)
            elif assumed is not None:
                state.scheduled.append(assumed)
            else:
                state.unscheduled.append(pod)
        return state


__all__ = [
    "POD_GROUP_KIND",
    "PodGroup",
    "PodGroupManager",
    "PodGroupState",
    "WORKLOAD_KIND",
    "X_K8S_POD_GROUP_KIND",
    "group_key_of",
    "group_of",
    "lookup",
    "pod_group_from_raw",
    "scheduling_group_name",
    "storage_kind",
    "workload_ref",
]
