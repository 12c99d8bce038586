"""TaintToleration (Filter, PreScore, Score): NoSchedule/NoExecute taints must be tolerated;
untolerated PreferNoSchedule taints lower the score.

Upstream: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go, matching from
staging/src/k8s.io/api/core/v1/toleration.go (ToleratesTaint) and
staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go (FindMatchingUntoleratedTaint).
The filter reason names no taint ("node(s) had untolerated taint(s)") in every emulated release
(1.35-1.37), so taint values never leak into events. The alpha Gt/Lt toleration operators apply
only when the TaintTolerationComparisonOperators gate is on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.types import (
    TAINT_EFFECT_NO_EXECUTE,
    TAINT_EFFECT_NO_SCHEDULE,
    TAINT_EFFECT_PREFER_NO_SCHEDULE,
    Node,
    Pod,
    Taint,
    Toleration,
)
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import INT64_MAX, INT64_MIN, go_quote
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    NodeScore,
    QueueingHint,
    Status,
)
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins import names
from kschedctl.plugins.helper import (
    default_normalize_score,
)

NAME = names.TaintToleration
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"
_DO_NOT_SCHEDULE = (TAINT_EFFECT_NO_SCHEDULE, TAINT_EFFECT_NO_EXECUTE)


class TolerationValueError(ValueError):
    """A Gt/Lt toleration whose value or whose taint's value is not a canonical decimal int64."""


def _is_decimal_integer(value: str) -> bool:
    """content.IsDecimalInteger: "0" or an optional "-" then 1-9 then digits; nothing else."""
    body = value[1:] if value.startswith("-") else value
    if not body or not body.isascii() or not body.isdigit():
        return False
    if body[0] == "0":
        return value == "0"
    return True


def _parse_int64(value: str, what: str) -> int:
    if not value:  # content.EmptyError()
        raise TolerationValueError(f'failed to parse {what} value "" as int64: must be non-empty')
    if not _is_decimal_integer(value):
        raise TolerationValueError(
            f"failed to parse {what} value {go_quote(value)} as int64: must be a valid decimal integer in canonical form"
        )
    number = int(value)
    if not INT64_MIN <= number <= INT64_MAX:
        raise TolerationValueError(
            f"failed to parse {what} value {go_quote(value)} as int64: strconv.ParseInt: parsing {go_quote(value)}: value out of range"
        )
    return number


def toleration_tolerates(toleration: Toleration, taint: Taint, comparison_ops: bool) -> bool:
    """Toleration.ToleratesTaint with the comparison-operator switch; raises on Gt/Lt parse errors."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    op = toleration.operator
    if op in ("", "Equal"):
        return toleration.value == taint.value
    if op == "Exists":
        return True
    if op in ("Gt", "Lt"):
        if not comparison_ops:
            return False
        wanted = _parse_int64(toleration.value, "toleration")
        actual = _parse_int64(taint.value, "taint")
        return actual > wanted if op == "Gt" else actual < wanted
    return False


def tolerations_tolerate(tolerations: Sequence[Toleration], taint: Taint, comparison_ops: bool) -> tuple[bool, TolerationValueError | None]:
    """TolerationsTolerateTaint: any toleration tolerating wins; else the first parse error, if any."""
    first_err: TolerationValueError | None = None
    for t in tolerations:
        try:
            if toleration_tolerates(t, taint, comparison_ops):
                return True, None
        except TolerationValueError as err:
            if first_err is None:
                first_err = err
    return False, first_err


def find_untolerated_taint(
    taints: Sequence[Taint], tolerations: Sequence[Toleration], effects: tuple[str, ...], comparison_ops: bool
) -> tuple[Taint | None, TolerationValueError | None]:
    """FindMatchingUntoleratedTaint: a cleanly untolerated taint is preferred over a parse failure."""
    first_err: TolerationValueError | None = None
    first_err_taint: Taint | None = None
    for taint in taints:
        if taint.effect not in effects:
            continue
        tolerated, err = tolerations_tolerate(tolerations, taint, comparison_ops)
        if err is not None:
            if first_err is None:
                first_err, first_err_taint = err, taint
            continue
        if not tolerated:
            return taint, None
    if first_err is not None:
        return first_err_taint, first_err
    return None, None


class _PreScoreState:
    """The pod's tolerations that can apply to PreferNoSchedule taints; read-only, so clone is itself."""

    __slots__ = ("tolerations_prefer_no_schedule",)

    def __init__(self, tolerations: tuple[Toleration, ...]) -> None:
        self.tolerations_prefer_no_schedule = tolerations

    def clone(self) -> "_PreScoreState":
        return self


class TaintToleration:
    def __init__(self, args: dict[str, Any] | None, handle: Handle, features: Features | None = None) -> None:
        self.handle = handle
        features = features if features is not None else handle.features
        self.comparison_ops = features.taint_toleration_comparison_operators

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # QueueingHints are on in every emulated release: Node Add|UpdateNodeTaint and the pod's own toleration update.
        return [
            ClusterEventWithHint(ClusterEvent("Node", "Add"), self.is_schedulable_after_node_change),
            ClusterEventWithHint(ClusterEvent("Node", "UpdateNodeTaint"), self.is_schedulable_after_node_change),
            ClusterEventWithHint(ClusterEvent("Pod", "UpdatePodToleration"), self.is_schedulable_after_pod_toleration_change),
        ]

    def _untolerated(self, node: Node, pod: Pod) -> bool:
        taint, err = find_untolerated_taint(node.taints, pod.tolerations, _DO_NOT_SCHEDULE, self.comparison_ops)
        return taint is not None or err is not None

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Queue only when the node goes from having an untolerated taint to having none."""
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            raise TypeError("unexpected objects, want Node")
        was_untolerated = True if old is None else self._untolerated(old, pod)
        if was_untolerated and not self._untolerated(new, pod):
            return QueueingHint.Queue
        return QueueingHint.QueueSkip

    def is_schedulable_after_pod_toleration_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if not isinstance(new, Pod):
            raise TypeError(f"unexpected object {type(new).__name__}, want Pod")
        return QueueingHint.Queue if new.uid == pod.uid else QueueingHint.QueueSkip

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is None:
            return Status(Code.Error, "invalid nodeInfo")
        taint, err = find_untolerated_taint(node.taints, pod.tolerations, _DO_NOT_SCHEDULE, self.comparison_ops)
        if err is not None:
            return Status(Code.UnschedulableAndUnresolvable, err=err)
        if taint is None:
            return None
        return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNTOLERATED)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        # An empty effect means every effect, PreferNoSchedule included.
        tolerations = tuple(t for t in pod.tolerations if t.effect in ("", TAINT_EFFECT_PREFER_NO_SCHEDULE))
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(tolerations))
        return None

    def _count_intolerable(self, taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> int:
        count = 0
        for taint in taints:
            if taint.effect != TAINT_EFFECT_PREFER_NO_SCHEDULE:
                continue
            tolerated, _ = tolerations_tolerate(tolerations, taint, self.comparison_ops)
            if not tolerated:  # a comparison parse error counts as not tolerated
                count += 1
        return count

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFound:
            return 0, Status(Code.Error, f"failed to read {go_quote(PRE_SCORE_STATE_KEY)} from cycleState: not found")
        node = node_info.node
        if node is None:
            return 0, Status(Code.Error, "invalid nodeInfo")
        return self._count_intolerable(node.taints, s.tolerations_prefer_no_schedule), None

    def score_extensions(self) -> "TaintToleration":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, True, scores)
