"""The plugin interfaces of every extension point, one Protocol each, and Status.

Upstream: staging/src/k8s.io/kube-scheduler/framework/interface.go (older releases:
pkg/scheduler/framework/interface.go). The runtime calls plugins only through these.
A plugin method may return ``None`` where upstream returns a nil *Status: it means Success.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from kschedctl.api.types import Pod
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.placement import (
        Placement,
        PlacementScore,
        PodGroupAssignment,
    )
    from kschedctl.framework.podgroup import PodGroup
    from kschedctl.framework.types import NodeInfo, PodInfo, QueuedPodInfo

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = 2**63 - 1
MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_WEIGHT = MAX_TOTAL_SCORE // MAX_NODE_SCORE
# waiting_pods_map.go / framework.go: a Permit plugin may not ask to wait longer than this.
MAX_PERMIT_TIMEOUT_SECONDS = 15 * 60


class Code(IntEnum):
    """Status codes; the numeric order is upstream's (interface.go)."""

    Success = 0
    Error = 1
    Unschedulable = 2
    UnschedulableAndUnresolvable = 3
    Wait = 4
    Skip = 5
    Pending = 6


# Code's members as module constants, for the comparisons a cycle makes a few dozen times per
# pod: on Python 3.11 every attribute read of an Enum class goes through EnumType.__getattr__'s
# slot (~95 ns; a module global ~20 ns). The same objects: ``SUCCESS is Code.Success``.
SUCCESS, ERROR, UNSCHEDULABLE, UNRESOLVABLE, WAIT, SKIP, PENDING = (
    Code.Success,
    Code.Error,
    Code.Unschedulable,
    Code.UnschedulableAndUnresolvable,
    Code.Wait,
    Code.Skip,
    Code.Pending,
)
_REJECTED = (UNSCHEDULABLE, UNRESOLVABLE, PENDING)


class Status:
    """framework.Status: a code, ordered reasons, the plugin that produced it, and an error."""

    __slots__ = ("code", "reasons", "plugin", "err")

    def __init__(self, code: Code = SUCCESS, *reasons: str, plugin: str = "", err: BaseException | None = None):
        self.code = code
        self.reasons: list[str] = list(reasons)
        self.plugin = plugin
        self.err = err
        if err is not None and not self.reasons:
            self.reasons = [str(err)]

    # constructors named as upstream's helpers
    @staticmethod
    def as_status(err: BaseException) -> "Status":
        return Status(Code.Error, err=err)

    @staticmethod
    def error(message: str) -> "Status":
        return Status(Code.Error, message)

    def message(self) -> str:
        """Reasons joined by ", " (Status.Message)."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> "Status":
        self.plugin = plugin
        return self

    def is_success(self) -> bool:
        return self.code == SUCCESS

    def is_wait(self) -> bool:
        return self.code == WAIT

    def is_skip(self) -> bool:
        return self.code == SKIP

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending."""
        return self.code in _REJECTED

    def as_error(self) -> BaseException | None:
        if self.is_success():
            return None
        return self.err if self.err is not None else RuntimeError(self.message())

    def __eq__(self, other: object) -> bool:
        if other is None:
            return self.code == SUCCESS
        if not isinstance(other, Status):
            return NotImplemented
        return self.code == other.code and self.reasons == other.reasons

    def __repr__(self) -> str:
        plugin = f", plugin={self.plugin!r}" if self.plugin else ""
        return f"Status({self.code.name}, {self.reasons!r}{plugin})"


def is_success(status: Status | None) -> bool:
    return status is None or status.code == SUCCESS


def code_of(status: Status | None) -> Code:
    return Code.Success if status is None else status.code


_NONES: list[None] = []


_T = TypeVar("_T")


def all_success(statuses: Sequence[Status | None]) -> bool:
    """Whether every status of a batch is None or a Success Status, by one list comparison
    in C: elements identical to None cost no call, and the first other element ends it
    (Status.__eq__(None) is "is a Success"). A map of ``is_not`` over the batch cost ~9 ns a
    node for every plugin and chunk; this is ~0.5 ns."""
    if statuses.__class__ is not list:  # a tuple or an array: element by element
        return all(st is None or st.code == SUCCESS for st in statuses)
    n = len(statuses)
    if len(_NONES) < n:
        _NONES.extend([None] * (n - len(_NONES)))
    return statuses == (_NONES if len(_NONES) == n else _NONES[:n])


def by_identity(items: Iterable[_T]) -> dict[int, _T]:
    """{id: object} of the distinct objects of a batch, in first-seen order, by one walk in C:
    the nodes a plugin rejects the same way share one Status, so a caller that words, records
    or checks each Status does it once per object, not once per node. ``items`` is walked
    twice: a list, a tuple or an object array, never an iterator."""
    return dict(zip(map(id, items), items))


class SparseStatuses(list):  # type: ignore[type-arg]  # list[Status | None]
    """A Filter batch's statuses (None where a node passed) that also say where the Statuses
    are: ``failing``, their positions in ascending order. It is a list like any other batch
    result; the runtime and the scheduling algorithm read ``failing`` where they would
    otherwise walk every node of the batch to find the few that failed."""

    __slots__ = ("failing", "kinds")

    def __init__(self, statuses: list[Status | None], failing: list[int], kinds: Iterable[Status] | None = None) -> None:
        """``kinds``, when the maker knows them: the distinct Status objects at ``failing``
        (each one at least once), so that nobody walks the batch to find them again."""
        super().__init__(statuses)
        self.failing = failing
        self.kinds: dict[int, Status] | None = None if kinds is None else {id(st): st for st in kinds}

    def distinct(self) -> dict[int, Status]:
        """{id: Status} of its distinct Status objects (nodes failing the same way share one,
        so each is looked at once): the kinds its maker gave, else from the failing positions,
        or, when most of the batch failed (every node of a full cluster), by one C-level walk
        of the whole list (~40 ns a node here: two walks of 500 nodes were ~7 % of a
        SchedulingPodAntiAffinity cycle)."""
        if self.kinds is not None:
            return self.kinds
        if len(self.failing) * 2 > len(self):
            out: dict[int, Any] = by_identity(self)
            out.pop(id(None), None)
            return out
        return {id(self[i]): self[i] for i in self.failing}


@dataclass(slots=True)
class PreFilterResult:
    """The nodes a PreFilter plugin narrows the search to; ``None`` node_names means all."""

    node_names: set[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: "PreFilterResult | None") -> "PreFilterResult":
        if other is None or other.all_nodes():
            return PreFilterResult(None if self.node_names is None else set(self.node_names))
        if self.all_nodes():
            return PreFilterResult(set(other.node_names or ()))
        return PreFilterResult((self.node_names or set()) & (other.node_names or set()))


@dataclass(slots=True)
class NodeScore:
    """framework.NodeScore: a node's name and one plugin's score for it."""

    name: str
    score: int


@dataclass(slots=True)
class PluginScore:
    """framework.PluginScore: one plugin's score for a node, weighted (``score``), with the normalized score and weight behind it."""

    name: str
    score: int  # weighted: normalized score x weight
    normalized: int = 0
    weight: int = 1


@dataclass(slots=True)
class NodePluginScores:
    """framework.NodePluginScores: a node's score from each Score plugin, and their total."""

    name: str
    scores: list[PluginScore] = field(default_factory=list)
    total_score: int = 0


@dataclass(slots=True)
class ClusterEvent:
    """{Resource, ActionType}, e.g. ("Node", "Add"); see framework/events.go."""

    resource: str
    action: str
    label: str = ""


@dataclass(slots=True)
class ClusterEventWithHint:
    """framework.ClusterEventWithHint: an event a plugin registers (EventsToRegister) and its QueueingHintFn (None: always Queue)."""

    event: ClusterEvent
    queueing_hint_fn: Any = None  # (pod, old, new) -> QueueingHint


class QueueingHint(IntEnum):
    QueueSkip = 0
    Queue = 1


@dataclass(slots=True)
class PostFilterResult:
    """framework.PostFilterResult: the node a PostFilter plugin nominates the pod to, and the nominating mode (Noop or Override)."""

    nominated_node_name: str = ""
    mode: str = "Override"  # ModeNoop / ModeOverride


# --- plugin protocols ----------------------------------------------------------------------


@runtime_checkable
class Plugin(Protocol):
    def name(self) -> str: ...


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    def pre_enqueue(self, pod: "Pod") -> Status | None: ...


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    def less(self, a: "QueuedPodInfo", b: "QueuedPodInfo") -> bool: ...


@runtime_checkable
class EnqueueExtensions(Plugin, Protocol):
    def events_to_register(self) -> list[ClusterEventWithHint]: ...


class PreFilterExtensions(Protocol):
    def add_pod(self, state: "CycleState", pod_to_schedule: "Pod", pod_info_to_add: "PodInfo", node_info: "NodeInfo") -> Status | None: ...

    def remove_pod(
        self, state: "CycleState", pod_to_schedule: "Pod", pod_info_to_remove: "PodInfo", node_info: "NodeInfo"
    ) -> Status | None: ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    def pre_filter(self, state: "CycleState", pod: "Pod", nodes: Sequence["NodeInfo"]) -> tuple[PreFilterResult | None, Status | None]: ...

    def pre_filter_extensions(self) -> PreFilterExtensions | None: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    def filter(self, state: "CycleState", pod: "Pod", node_info: "NodeInfo") -> Status | None: ...


# What a batch Score or NormalizeScore form returns: one integer per node, a list or an int64 array.
BatchScores: TypeAlias = "Sequence[int] | np.ndarray"  # a string: importing interface leaves numpy out


class BatchFilterPlugin(Protocol):
    """Optional batch form of Filter: the same statuses as ``filter`` for many nodes at once.

    ``node_infos`` is a ``backend.columnar.NodeBatch`` (a list of NodeInfo with ``.rows`` into
    the snapshot's numpy ``.columns``; ``.rows`` is None when the columnar view cannot serve
    these nodes). Return one ``Status | None`` per node, each a fresh object, equal (code and
    reasons) to what ``filter`` returns for that node, with no side effect on the decision:
    the runtime may call it for nodes past the point where the per-node search would stop.
    Return None to mean "use the per-node form" (a case the batch form does not model, or a
    batch without rows): the runtime then calls ``filter`` per node, so the plugin never loops
    over ``filter`` itself. If it raises, the runtime calls ``filter`` per node too, which
    reports the error exactly. Plugins without it keep the per-node interface; nothing else
    changes for them.
    """

    def filter_batch(self, state: "CycleState", pod: "Pod", node_infos: Sequence["NodeInfo"]) -> list[Status | None] | None: ...


class BatchFilterWithAddedPodsPlugin(Protocol):
    """Optional: ``filter_batch``'s statuses as if the PodInfos ``added[i]`` were on
    ``node_infos[i]``: the first pass of the Filter with nominated pods (the node plus the pods
    nominated to it with priority >= the pod's), answered without copying NodeInfos.

    The runtime asks it only when no PreFilter extension (AddPod) would run this cycle, so the
    pass sees this very CycleState, and only when every active Filter plugin has it. A plugin
    whose verdict reads only the Node returns its plain statuses (plugins/helper.py
    ``node_only_filter_batch``). Each status must equal what ``filter`` returns on a copy of the
    node with the pods added; None means "cannot say", and the runtime then runs the two passes
    on copies for those nodes, as it does when the method raises.
    """

    def filter_batch_with_added_pods(
        self, state: "CycleState", pod: "Pod", node_infos: Sequence["NodeInfo"], added: Sequence[Sequence["PodInfo"]]
    ) -> list[Status | None] | None: ...


class BatchScorePlugin(Protocol):
    """Optional batch form of Score: ``score_batch`` returns the raw (pre-normalize) score of
    each node, equal to ``score(...)[0]``, or None for "use the per-node form" (the runtime
    then calls ``score`` per node); it raises where ``score`` would return an error status,
    and the runtime then repeats the per-node calls to report it exactly."""

    def score_batch(self, state: "CycleState", pod: "Pod", node_infos: Sequence["NodeInfo"]) -> BatchScores | None: ...


class BatchNormalizeScore(Protocol):
    """Optional batch form of NormalizeScore, on the object ``score_extensions()`` returns:
    the nodes and their scores (an int64 numpy array, in node order; the plugin may keep it) in,
    the normalized scores out (list or array), equal to what ``normalize_score`` leaves in the
    NodeScores, or None for "use ``normalize_score``"; it raises where ``normalize_score``
    would fail, and the runtime then runs ``normalize_score`` to report it exactly."""

    def normalize_score_batch(
        self, state: "CycleState", pod: "Pod", node_infos: Sequence["NodeInfo"], values: Any
    ) -> BatchScores | None: ...


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    def post_filter(
        self, state: "CycleState", pod: "Pod", filtered_node_status_map: Any
    ) -> tuple[PostFilterResult | None, Status | None]: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    def pre_score(self, state: "CycleState", pod: "Pod", nodes: Sequence["NodeInfo"]) -> Status | None: ...


class ScoreExtensions(Protocol):
    def normalize_score(self, state: "CycleState", pod: "Pod", scores: list[NodeScore]) -> Status | None: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    def score(self, state: "CycleState", pod: "Pod", node_info: "NodeInfo") -> tuple[int, Status | None]: ...

    def score_extensions(self) -> ScoreExtensions | None: ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    def reserve(self, state: "CycleState", pod: "Pod", node_name: str) -> Status | None: ...

    def unreserve(self, state: "CycleState", pod: "Pod", node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    def permit(self, state: "CycleState", pod: "Pod", node_name: str) -> tuple[Status | None, float]: ...


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    def pre_bind_pre_flight(self, state: "CycleState", pod: "Pod", node_name: str) -> Status | None: ...

    def pre_bind(self, state: "CycleState", pod: "Pod", node_name: str) -> Status | None: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    def bind(self, state: "CycleState", pod: "Pod", node_name: str) -> Status | None: ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    def post_bind(self, state: "CycleState", pod: "Pod", node_name: str) -> None: ...


@runtime_checkable
class PlacementGeneratePlugin(Plugin, Protocol):
    """Proposes placements (node subsets) for a pod group, refining the parent placement
    (TopologyAwareWorkloadScheduling). A bare list means Success."""

    def placement_generate(self, group: "PodGroup", parent: "Placement") -> "tuple[list[Placement], Status | None] | list[Placement]": ...


@runtime_checkable
class PlacementScorePlugin(Plugin, Protocol):
    """Scores a feasible placement of a pod group (with the hosts its members got). A bare
    int means Success. ``normalize_placement_score(group, scores)`` is optional."""

    def placement_score(self, group: "PodGroup", assignment: "PodGroupAssignment") -> "tuple[int, Status | None] | int": ...


class PlacementScoreExtensions(Protocol):
    def normalize_placement_score(self, group: "PodGroup", scores: "list[PlacementScore]") -> Status | None: ...


@runtime_checkable
class PlacementFeasiblePlugin(Plugin, Protocol):
    """Is a pod group, with ``scheduled`` members placed and ``remaining`` to try, (still)
    feasible? Unschedulable ends the group cycle, Wait lets it go on (1.37 gang scheduling).
    Every plugin of the profile that has the method takes part (the point has no
    configuration field)."""

    def placement_feasible(self, group: "PodGroup", scheduled: int, remaining: int) -> Status | None: ...
