"""PodInfo, NodeInfo and the bookkeeping types of the scheduling framework.

Upstream: pkg/scheduler/framework/types.go (PodInfo, AffinityTerm, NodeInfo, HostPortInfo,
ImageStateSummary, QueuedPodInfo, Diagnosis, FitError, NodeToStatus).
PodInfo is computed once per pod (requests, affinity terms) and shared by every NodeInfo
that holds the pod; NodeInfo carries an ``index`` into the snapshot's node list so a
columnar view can address the same node.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, compress

from kschedctl.api.labels import LabelSelector
from kschedctl.api.types import Node, Pod, PodAffinityTerm, copy_pod
from kschedctl.framework.interface import Code, Status, by_identity
from kschedctl.framework.resource import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    Resource,
    requests_of,
)

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"
_NODE_NAME = operator.attrgetter("node.meta.name")  # NodeInfo.name without the two properties
DEFAULT_PROTOCOL = "TCP"
_COUNTED_BY_SCANS = 8  # FitError.reason_histogram counts up to this many Status objects by scans


# --- affinity terms ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """A PodAffinityTerm resolved against its owning pod (framework.AffinityTerm)."""

    namespaces: frozenset[str]
    selector: LabelSelector | None  # None: labels.Nothing()
    topology_key: str
    namespace_selector: LabelSelector | None  # None: labels.Nothing()

    def matches(self, pod: Pod, ns_labels: Mapping[str, str] | None) -> bool:
        if pod.namespace in self.namespaces or (
            self.namespace_selector is not None and ns_labels is not None and self.namespace_selector.matches(ns_labels)
        ):
            return self.selector is not None and self.selector.matches(pod.labels)
        return False


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    """framework.WeightedAffinityTerm: a preferred AffinityTerm and its weight."""

    term: AffinityTerm
    weight: int


def new_affinity_term(pod: Pod, term: PodAffinityTerm) -> AffinityTerm:
    """newAffinityTerm: namespaces default to the pod's own when none and no namespaceSelector.

    matchLabelKeys / mismatchLabelKeys are not read here: the API server merges them into the
    labelSelector when it creates the pod (MatchLabelKeysInPodAffinity), and the scheduler
    uses the labelSelector as stored. A snapshot of a live cluster holds the merged selector; a
    hand-written pod without it is scheduled as kube would, on its labelSelector alone
    (kschedoracle -mode explain, InterPodAffinity scores; framework/types.go newAffinityTerm).
    """
    selector = term.label_selector
    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset((pod.namespace,))
    else:
        namespaces = frozenset(term.namespaces)
    return AffinityTerm(namespaces, selector, term.topology_key, term.namespace_selector)


class PodInfo:
    """A pod plus what the scheduler precomputes for it (framework.PodInfo)."""

    __slots__ = (
        "pod",
        "required_affinity_terms",
        "required_anti_affinity_terms",
        "preferred_affinity_terms",
        "preferred_anti_affinity_terms",
        "requests",
        "non_zero_cpu",
        "non_zero_mem",
        "priority",
    )

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        # corev1helpers.PodPriority, read per pod of a node by the nominated-pods pass and the
        # preemption dry run: an attribute, not a call on the pod (the spec is fixed)
        self.priority: int = pod.effective_priority()
        self.requests: Resource
        self.requests, self.non_zero_cpu, self.non_zero_mem = requests_of(pod)
        aff = pod.affinity
        pa = aff.pod_affinity if aff else None
        paa = aff.pod_anti_affinity if aff else None
        if pa is None and paa is None:  # most pods: no term to make
            self.required_affinity_terms, self.required_anti_affinity_terms = [], []
            self.preferred_affinity_terms, self.preferred_anti_affinity_terms = [], []
            return
        self.required_affinity_terms = [new_affinity_term(pod, t) for t in (pa.required if pa else ())]
        self.required_anti_affinity_terms = [new_affinity_term(pod, t) for t in (paa.required if paa else ())]
        self.preferred_affinity_terms = [
            WeightedAffinityTerm(new_affinity_term(pod, w.term), w.weight) for w in (pa.preferred if pa else ())
        ]
        self.preferred_anti_affinity_terms = [
            WeightedAffinityTerm(new_affinity_term(pod, w.term), w.weight) for w in (paa.preferred if paa else ())
        ]

    @staticmethod
    def of(pod: Pod) -> "PodInfo":
        """The PodInfo of a pod, computed once and kept on the pod object."""
        info = pod.cache.get("pod_info")
        if info is None:
            info = PodInfo(pod)
            pod.cache["pod_info"] = info
        return info

    def with_node_name(self, node_name: str) -> "PodInfo":
        """The PodInfo of an assumed copy of this pod (spec.nodeName set), sharing the computed parts."""
        pod = copy_pod(self.pod, node_name)
        info = PodInfo.__new__(PodInfo)
        # every slot but ``pod``, written out: a loop of getattr/setattr over __slots__ cost
        # ~2 us of each pod's cycle (tests/test_copy_pod.py holds this list to __slots__)
        info.required_affinity_terms = self.required_affinity_terms
        info.required_anti_affinity_terms = self.required_anti_affinity_terms
        info.preferred_affinity_terms = self.preferred_affinity_terms
        info.preferred_anti_affinity_terms = self.preferred_anti_affinity_terms
        info.requests = self.requests
        info.non_zero_cpu = self.non_zero_cpu
        info.non_zero_mem = self.non_zero_mem
        info.priority = self.priority
        info.pod = pod
        pod.cache["pod_info"] = info
        return info

    @property
    def has_affinity(self) -> bool:
        aff = self.pod.affinity
        return aff is not None and (aff.pod_affinity is not None or aff.pod_anti_affinity is not None)

    @property
    def has_required_anti_affinity(self) -> bool:
        return bool(self.required_anti_affinity_terms)

    def __repr__(self) -> str:
        return f"PodInfo({self.pod.key})"


# --- host ports ----------------------------------------------------------------------------


class HostPortInfo:
    """ip -> {(protocol, port)} (framework.HostPortInfo)."""

    __slots__ = ("ports",)

    def __init__(self) -> None:
        self.ports: dict[str, set[tuple[str, int]]] = {}

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or DEFAULT_PROTOCOL

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        self.ports.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        entries = self.ports.get(ip)
        if entries is not None:
            entries.discard((protocol, port))
            if not entries:
                del self.ports[ip]

    def len(self) -> int:
        return sum(len(v) for v in self.ports.values())

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """0.0.0.0 conflicts with any IP's use of the pair; another IP with itself and 0.0.0.0."""
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(pp in entries for entries in self.ports.values())
        for key in (DEFAULT_BIND_ALL_HOST_IP, ip):
            entries = self.ports.get(key)
            if entries is not None and pp in entries:
                return True
        return False

    def clone(self) -> "HostPortInfo":
        copy = HostPortInfo()
        copy.ports = {ip: set(v) for ip, v in self.ports.items()}
        return copy


def host_ports_of(pod: Pod) -> list[tuple[str, str, int]]:
    """(hostIP, protocol, hostPort) wanted by containers and restartable init containers."""
    out: list[tuple[str, str, int]] = []
    for c in pod.containers:
        if c.ports:  # most containers have none: no generator made for them
            out.extend((p.host_ip, p.protocol, p.host_port) for p in c.ports if p.host_port > 0)
    for c in pod.init_containers:
        if c.ports and c.is_sidecar:
            out.extend((p.host_ip, p.protocol, p.host_port) for p in c.ports if p.host_port > 0)
    return out


# --- NodeInfo ------------------------------------------------------------------------------


def summed_requests(pods: Iterable[PodInfo]) -> tuple[int, int, int]:
    """The pods' summed (cpu, memory, ephemeral storage) requests, as NodeInfo.add_pod_info
    adds them to ``requested``."""
    cpu = mem = eph = 0
    for pi in pods:
        r = pi.requests
        cpu += r.milli_cpu
        mem += r.memory
        eph += r.ephemeral_storage
    return cpu, mem, eph


def node_names(infos: Sequence["NodeInfo"]) -> list[str]:
    """[info.name for info in infos], without two property calls per node (hot loops)."""
    names = all_node_names(infos)
    # a NodeInfo without its Node: the property knows what to say
    return names if names is not None else [info.name for info in infos]


def all_node_names(infos: Sequence["NodeInfo"]) -> list[str] | None:
    """The names of ``infos`` as node_names gives them, or None when some NodeInfo has no Node
    (a caller that skips such nodes then takes its per-node way)."""
    try:
        return list(map(_NODE_NAME, infos))
    except AttributeError:
        return None


@dataclass(frozen=True, slots=True)
class ImageStateSummary:
    """framework.ImageStateSummary: an image's size and on how many nodes it is present, for ImageLocality."""

    size: int
    num_nodes: int


class NodeInfo:
    """A node and the pods on it, with the aggregates plugins read (framework.NodeInfo)."""

    __slots__ = (
        "node",
        "index",
        "_pods",
        "_pods_view",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "used_ports",
        "requested",
        "non_zero_requested",
        "allocatable",
        "image_states",
        "pvc_ref_counts",
        "generation",
        "_lowest_priority",
    )

    _generation_counter = 0

    def __init__(self, node: Node | None = None, pods: Iterable[PodInfo] = ()) -> None:
        self.node: Node | None = None
        self.index = -1
        # The pods, or, for a clone not read yet, None and a view of the list it was cloned
        # from (see ``pods``).
        self._pods: list[PodInfo] | None = []
        self._pods_view: tuple[list[PodInfo], int] | None = None
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.used_ports = HostPortInfo()
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.allocatable = Resource()
        self.image_states: dict[str, ImageStateSummary] = {}
        self.pvc_ref_counts: dict[str, int] = {}
        self.generation = 0
        # (generation, pod count, lowest priority) as lowest_pod_priority last found it
        self._lowest_priority: tuple[int, int, int | None] | None = None
        if node is not None:
            self.set_node(node)
        for p in pods:
            self.add_pod_info(p)
        self._bump()

    def _bump(self) -> None:
        NodeInfo._generation_counter += 1
        self.generation = NodeInfo._generation_counter

    @property
    def pods(self) -> list[PodInfo]:
        """The pods on the node (NodeInfo.Pods).

        A clone (``clone``) takes the list it copies only when something reads it. Upstream's
        Snapshot copies the slice of pointers on every clone; in Python a copy also touches
        every pod once, and a node of 30,000 pods (the node every SchedulingDaemonset pod is
        bound for) cost ~40 us a cycle for a list the cycle never read: its Filter reads only
        the count (``num_pods``). The view stays exact because a NodeInfo's own list only ever
        grows at its end (``add_pod_info``); a removal makes it a new list (``remove_pod``,
        ``remove_pod_infos``), leaving the one a view may hold as it was."""
        pods = self._pods
        if pods is None:
            assert self._pods_view is not None
            source, count = self._pods_view
            pods = self._pods = source[:count]
            self._pods_view = None
        return pods

    @pods.setter
    def pods(self, pods: list[PodInfo]) -> None:
        self._pods = pods
        self._pods_view = None

    @property
    def num_pods(self) -> int:
        """len(pods), without taking a clone's list."""
        pods = self._pods
        if pods is None:
            assert self._pods_view is not None
            return self._pods_view[1]
        return len(pods)

    @property
    def name(self) -> str:
        node = self.node  # Node.name's own property read inline: asked per node, per pod
        return node.meta.name if node is not None else ""

    def lowest_pod_priority(self) -> int | None:
        """The lowest priority (corev1helpers.PodPriority) of the pods on the node; None without pods.

        The preemption dry run asks it of every potential node for every preemptor: a node
        whose pods all have at least the preemptor's priority has no victim. Remembered for
        the node's generation (which moves on every add and remove; a clone keeps both), so a
        node is walked once per change, not once per preemptor.
        """
        count = self.num_pods
        cached = self._lowest_priority
        if cached is not None and cached[0] == self.generation and cached[1] == count:
            return cached[2]
        lowest = min((pi.priority for pi in self.pods), default=None)
        self._lowest_priority = (self.generation, count, lowest)
        return lowest

    def set_node(self, node: Node) -> None:
        self.node = node
        self.allocatable = Resource.from_list(node.allocatable)
        self._bump()

    def add_pod(self, pod: Pod) -> None:
        self.add_pod_info(PodInfo.of(pod))

    def add_pod_info(self, info: PodInfo) -> None:
        """NodeInfo.AddPodInfo: the pod's requests, ports and PVC references now count here."""
        self.pods.append(info)
        if info.has_affinity:
            self.pods_with_affinity.append(info)
        if info.has_required_anti_affinity:
            self.pods_with_required_anti_affinity.append(info)
        self._update(info, +1)

    def remove_pod(self, pod: Pod) -> bool:
        """NodeInfo.RemovePod, matched by uid; False if the pod is not here."""
        pods = self.pods
        for i, info in enumerate(pods):
            if info.pod.uid == pod.uid:
                self.pods = pods[:i] + pods[i + 1 :]  # a new list: a clone's view keeps the old one
                _remove_by_uid(self.pods_with_affinity, pod.uid)
                _remove_by_uid(self.pods_with_required_anti_affinity, pod.uid)
                self._update(info, -1)
                return True
        return False

    def remove_pod_infos(self, infos: Sequence[PodInfo]) -> None:
        """RemovePod of many pods that are all here, in one pass over the pod lists (the
        preemption dry run removes every lower-priority pod of a node at once)."""
        uids = {info.pod.uid for info in infos}
        removed = [info for info in self.pods if info.pod.uid in uids]
        self.pods = [info for info in self.pods if info.pod.uid not in uids]
        if self.pods_with_affinity:
            self.pods_with_affinity = [info for info in self.pods_with_affinity if info.pod.uid not in uids]
        if self.pods_with_required_anti_affinity:
            self.pods_with_required_anti_affinity = [info for info in self.pods_with_required_anti_affinity if info.pod.uid not in uids]
        for info in removed:
            self._update(info, -1)

    def _update(self, info: PodInfo, sign: int) -> None:
        req = info.requests
        r = self.requested
        r.milli_cpu += sign * req.milli_cpu
        r.memory += sign * req.memory
        r.ephemeral_storage += sign * req.ephemeral_storage
        for name, value in req.scalar_resources.items():
            r.scalar_resources[name] = r.scalar_resources.get(name, 0) + sign * value
        self.non_zero_requested.milli_cpu += sign * info.non_zero_cpu
        self.non_zero_requested.memory += sign * info.non_zero_mem
        for ip, protocol, port in host_ports_of(info.pod):
            if sign > 0:
                self.used_ports.add(ip, protocol, port)
            else:
                self.used_ports.remove(ip, protocol, port)
        for vol in info.pod.volumes:
            if vol.pvc_claim_name is not None or vol.ephemeral:
                claim = vol.pvc_claim_name if vol.pvc_claim_name is not None else f"{info.pod.name}-{vol.name}"
                key = f"{info.pod.namespace}/{claim}"
                count = self.pvc_ref_counts.get(key, 0) + sign
                if count > 0:
                    self.pvc_ref_counts[key] = count
                else:
                    self.pvc_ref_counts.pop(key, None)
        self._bump()

    def clone(self) -> "NodeInfo":
        copy = NodeInfo.__new__(NodeInfo)
        copy.node = self.node
        copy.index = self.index
        own = self._pods
        copy._pods = None
        copy._pods_view = (own, len(own)) if own is not None else self._pods_view
        copy.pods_with_affinity = list(self.pods_with_affinity)
        copy.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        copy.used_ports = self.used_ports.clone()
        copy.requested = self.requested.clone()
        copy.non_zero_requested = self.non_zero_requested.clone()
        copy.allocatable = self.allocatable.clone()
        copy.image_states = self.image_states
        copy.pvc_ref_counts = dict(self.pvc_ref_counts)
        copy.generation = self.generation
        copy._lowest_priority = self._lowest_priority
        return copy

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, pods={self.num_pods}, requested={self.requested})"


def _remove_by_uid(infos: list[PodInfo], uid: str) -> None:
    for i, info in enumerate(infos):
        if info.pod.uid == uid:
            del infos[i]
            return


# --- queue entity --------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class QueuedPodInfo:
    """A pod in the scheduling queue with its attempt bookkeeping (framework.QueuedPodInfo)."""

    pod_info: PodInfo
    timestamp: float = 0.0
    seq: int = 0  # input order, the last tie-breaker of the queue order
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_count: int = 0
    consecutive_errors_count: int = 0
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    gating_plugin: str = ""
    gating_message: str = ""
    gated: bool = False
    backoff_expiration: float | None = None
    # Pods in the queue entity this pod was last tried with (QueuedEntityInfo.Size()): the
    # group's members for a pod-group cycle, else 1. Scales the max backoff (backend/queue.py).
    entity_size: int = 1
    # The event (a ClusterEvent label, e.g. "NodeAdd", "UnschedulableTimeout", or
    # "ScheduleAttemptFailure" for an error's backoff) that moved the pod back towards activeQ
    # after its last failure; ``moved_by`` is that of the attempt being made (set at pop).
    requeued_by: str = ""
    moved_by: str = ""
    # The queue's memo of the key under which this gated pod's requeue may be shared
    # (PriorityQueue._shared_gate_key): (pod_info, gating plugin, gating message, key or None),
    # valid while the three are the same.
    pre_enqueue_share: tuple[PodInfo, str, str, tuple[object, str] | None] | None = None

    @property
    def pod(self) -> Pod:
        return self.pod_info.pod


# --- diagnosis and FitError ----------------------------------------------------------------


class NodeToStatus:
    """node name -> Status, plus the status of nodes not in the map (absentNodesStatus).

    A search's rejections come in by ``record`` and are put in the map by name only when the
    map is read: a cycle that finds a node reads nothing of it but its size (findNodesThatFitPod
    moves nextStartNodeIndex by it), and naming every rejected node was ~5 % of a cycle where
    most nodes fail (SchedulingPodAntiAffinity)."""

    __slots__ = ("_statuses", "_unnamed", "_unnamed_count", "absent_nodes_status")

    def __init__(self) -> None:
        self._statuses: dict[str, Status] = {}
        self._unnamed: list[tuple[Sequence[NodeInfo], Sequence[Status]]] = []  # recorded, not yet in _statuses
        self._unnamed_count = 0
        self.absent_nodes_status = Status(Code.UnschedulableAndUnresolvable)

    @property
    def node_to_status(self) -> dict[str, Status]:
        """The map itself (nodeToStatus.nodeToStatus), every recorded node in it."""
        if self._unnamed:
            self._name_recorded()
        return self._statuses

    @node_to_status.setter
    def node_to_status(self, statuses: dict[str, Status]) -> None:
        self._unnamed.clear()
        self._unnamed_count = 0
        self._statuses = statuses

    def record(self, nodes: Sequence[NodeInfo], statuses: Sequence[Status]) -> None:
        """Set each of ``nodes`` to its Status (``statuses``, one per node, in order): nodes of
        one search, each given once and none already in the map, so that ``len`` can count
        them before they are named. Neither sequence may change afterwards."""
        self._unnamed.append((nodes, statuses))
        self._unnamed_count += len(nodes)

    def _name_recorded(self) -> None:
        for nodes, statuses in self._unnamed:
            self._statuses.update(zip(node_names(nodes), statuses))
        self._unnamed.clear()
        self._unnamed_count = 0

    def statuses(self) -> list[Status]:
        """Every recorded node's Status, named or not, without naming the recorded nodes: what a
        count of reasons needs (a recorded node is never also in the map, see ``record``)."""
        out = list(self._statuses.values())
        for _, statuses in self._unnamed:
            out.extend(statuses)
        return out

    def get(self, node_name: str) -> Status:
        if not node_name:  # no node is named "" (a pod's empty nominatedNodeName): nothing to name
            return self.absent_nodes_status
        return self.node_to_status.get(node_name, self.absent_nodes_status)

    def set(self, node_name: str, status: Status) -> None:
        self.node_to_status[node_name] = status

    def len(self) -> int:
        if self._unnamed and self._statuses:  # a recorded node may be one set before: name them
            self._name_recorded()
        return len(self._statuses) + self._unnamed_count

    def set_absent_nodes_status(self, status: Status) -> None:
        self.absent_nodes_status = status

    def nodes_for_status_code(self, nodes: Iterable["NodeInfo"], code: Code) -> list["NodeInfo"]:
        """Nodes whose status (explicit or absent) has this code, in the given order."""
        statuses = self.statuses()
        distinct = by_identity(statuses).values()  # shared objects looked at once
        if all(st.code == code for st in distinct) and self.absent_nodes_status.code != code:
            # the recorded nodes, in the given order
            if not self._statuses and self._unnamed:
                found = self._recorded_among(nodes)
                if found is not None:
                    return found
            try:
                names = list(map(_NODE_NAME, nodes))
            except AttributeError:  # a NodeInfo without its Node
                names = [n.name for n in nodes]
            return list(compress(nodes, map(self.node_to_status.__contains__, names)))
        get, absent = self.node_to_status.get, self.absent_nodes_status
        return [n for n in nodes if get(n.name, absent).code == code]

    def _recorded_among(self, nodes: Iterable["NodeInfo"]) -> list["NodeInfo"] | None:
        """The recorded (not yet named) nodes among ``nodes``, in their order, found by identity:
        a search records the very NodeInfos of the list it walked, so naming thousands of nodes
        twice (the map, then ``nodes``) is not needed to find them again. None when not every
        recorded node is found that way (another list's NodeInfos): the caller names them."""
        recorded = set(chain.from_iterable(chunk for chunk, _ in self._unnamed))  # NodeInfo hashes by identity
        listed = nodes if isinstance(nodes, (list, tuple)) else list(nodes)  # walked twice below
        found = list(compress(listed, map(recorded.__contains__, listed)))
        return found if len(found) == self._unnamed_count == len(recorded) else None


@dataclass(slots=True)
class Diagnosis:
    """framework.Diagnosis: why a scheduling cycle found no node: each node's Status, the plugins that rejected the pod,
    and the PreFilter and PostFilter messages."""

    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""
    evaluated_nodes: int = 0


class FitError(Exception):
    """The pod fits on no node: carries the Diagnosis that explains why."""

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    def reason_histogram(self) -> dict[str, int]:
        """Reason -> number of nodes, explicit statuses plus the absent nodes (types.go)."""
        histogram: dict[str, int] = {}
        nts = self.diagnosis.node_to_status
        # Nodes that failed the same way share one Status object: count each object once and
        # weigh it by its nodes. Objects come in order of first use, so reasons do too.
        statuses = nts.statuses()  # the recorded nodes need no names to be counted
        ids = list(map(id, statuses))
        distinct = dict(zip(ids, statuses))
        # a few objects (the usual case): each one's count by a scan of the ids in C
        uses: Mapping[int, int] = Counter(ids) if len(distinct) > _COUNTED_BY_SCANS else {key: ids.count(key) for key in distinct}
        for key, status in distinct.items():
            count = uses[key]
            for reason in status.reasons:
                histogram[reason] = histogram.get(reason, 0) + count
        absent = self.num_all_nodes - nts.len()
        if absent > 0:
            for reason in nts.absent_nodes_status.reasons:
                histogram[reason] = histogram.get(reason, 0) + absent
        return histogram

    def message(self, histogram: dict[str, int] | None = None) -> str:
        """FitError.Error(): "0/N nodes are available: <sorted histogram>. <PostFilterMsg>".
        ``histogram``: reason_histogram() when the caller has just taken it."""
        msg = f"0/{self.num_all_nodes} nodes are available:"
        if self.diagnosis.pre_filter_msg:
            msg += " " + self.diagnosis.pre_filter_msg + "."
        else:
            if histogram is None:
                histogram = self.reason_histogram()
            entries = sorted(f"{count} {reason}" for reason, count in histogram.items())
            if entries:
                msg += " " + ", ".join(entries) + "."
        if self.diagnosis.post_filter_msg:
            msg += " " + self.diagnosis.post_filter_msg
        return msg

    def __str__(self) -> str:
        return self.message()


def fit_error_for_single_node(pod: Pod, node_name: str, status: Status) -> FitError:
    """Reserve/Permit/binding rejections: a FitError with NumAllNodes 1 (schedule_one.go)."""
    diagnosis = Diagnosis()
    diagnosis.node_to_status.set(node_name, status)
    if status.plugin:
        diagnosis.unschedulable_plugins.add(status.plugin)
    return FitError(pod, 1, diagnosis)


__all__ = [
    "AffinityTerm",
    "CPU",
    "Diagnosis",
    "EPHEMERAL_STORAGE",
    "FitError",
    "HostPortInfo",
    "ImageStateSummary",
    "MEMORY",
    "NodeInfo",
    "NodeToStatus",
    "PODS",
    "PodInfo",
    "QueuedPodInfo",
    "WeightedAffinityTerm",
    "fit_error_for_single_node",
    "host_ports_of",
    "new_affinity_term",
]
