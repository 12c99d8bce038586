"""DynamicResources (PreEnqueue, PreFilter, Filter, PostFilter, Score, Reserve, PreBind):
DRA ResourceClaims. Only pods WITHOUT claims are modelled faithfully.

Upstream: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go.
For a pod without resource claims upstream: PreEnqueue succeeds, PreFilter writes an empty
state and returns Skip, Filter/Reserve/Unreserve/PreBind do nothing, PreBindPreFlight
returns Skip, Score returns 0 (NormalizeScore keeps all zeros), and PostFilter returns
Unschedulable "no new claims to deallocate" -- the text every FitError of a release with
DRA on ends its PostFilter part with.

kschedctl does not model device allocation (ResourceSlices, DeviceClasses, the structured
allocator). A pod WITH claims is therefore rejected in PreFilter as
UnschedulableAndUnresolvable with a message saying so, instead of guessing.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.gosemantics import go_value
from kschedctl.framework.interface import (
    MAX_NODE_SCORE,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    NodeScore,
    PostFilterResult,
    PreFilterResult,
    Status,
)
from kschedctl.framework.runtime.registry import PluginSpec
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins import names

NAME = names.DynamicResources
STATE_KEY = NAME
MSG_NO_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
MSG_STILL_NOT_SCHEDULABLE = "still not schedulable"
DEFAULT_FILTER_TIMEOUT = "10s"
DEFAULT_BINDING_TIMEOUT = "10m0s"


def not_modelled_message(pod: Pod) -> str:
    count = len(pod.resource_claims)
    return (f"kschedctl does not model DynamicResources device allocation yet: pod has {count} "
            f"resource claim(s) (spec.resourceClaims)")


class _State:
    __slots__ = ("claims",)

    def __init__(self, claims: tuple[dict, ...] = ()) -> None:
        self.claims = claims

    def clone(self) -> "_State":
        return self


class DynamicResources:
    def __init__(self, args: dict | None, handle: Any) -> None:
        self.handle = handle
        self.enabled = handle.version.feature_enabled("DynamicResourceAllocation")
        self.args = default_args(args, handle.version)

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(r, a)) for r, a in (
            ("ResourceClaim", "Add"), ("ResourceClaim", "Update"), ("ResourceSlice", "Add"),
            ("ResourceSlice", "Update"), ("DeviceClass", "Add"), ("DeviceClass", "Update"), ("Pod", "Delete"))]

    def _state(self, state: CycleState) -> _State:
        return state.read(STATE_KEY)

    def pre_enqueue(self, pod: Pod) -> Status | None:
        # Upstream checks that every referenced claim exists; claims are not read from
        # snapshots yet, so such pods are let through and rejected in PreFilter instead.
        return None

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status(Code.Skip)
        s = _State(tuple(pod.resource_claims))
        state.write(STATE_KEY, s)
        if not s.claims:
            return None, Status(Code.Skip)
        return None, Status(Code.UnschedulableAndUnresolvable, not_modelled_message(pod))

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not self.enabled:
            return None
        try:
            s = self._state(state)
        except StateNotFound as err:
            return Status.as_status(err)
        if not s.claims:
            return None
        return Status(Code.UnschedulableAndUnresolvable, not_modelled_message(pod))

    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status_map: Any) -> tuple[PostFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status(Code.Unschedulable, "plugin disabled")
        try:
            s = self._state(state)
        except StateNotFound as err:
            return None, Status.as_status(err)
        if not s.claims:
            return None, Status(Code.Unschedulable, MSG_NO_CLAIMS_TO_DEALLOCATE)
        # No claim is ever marked unavailable here (allocation is not modelled), so there is
        # nothing to deallocate: upstream's final answer.
        return None, Status(Code.Unschedulable, MSG_STILL_NOT_SCHEDULABLE)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if not self.enabled:
            return 0, None
        try:
            self._state(state)
        except StateNotFound as err:
            return 0, Status.as_status(err)
        return 0, None  # no claims (or no allocations): 0

    def score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> list[int]:
        """score() for many nodes: 0 everywhere (a missing state raises, and the runtime's
        per-node calls then report it exactly)."""
        if self.enabled:
            self._state(state)
        return [0] * len(node_infos)

    def score_extensions(self) -> "DynamicResources":
        return self

    def normalize_score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo],
                              values: Sequence[int]) -> Sequence[int]:
        """normalize_score over a whole batch: DefaultNormalizeScore(MaxNodeScore, false)."""
        arr = np.asarray(values, np.int64)
        highest = int(arr.max()) if self.enabled and len(arr) else 0
        if highest == 0:
            return arr
        return (MAX_NODE_SCORE * arr) // highest  # floor division, as normalize_score

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """helper.DefaultNormalizeScore(MaxNodeScore, reverse=false)."""
        if not self.enabled:
            return None
        highest = max((s.score for s in scores), default=0)
        if highest == 0:
            return None
        for s in scores:
            s.score = MAX_NODE_SCORE * s.score // highest
        return None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        try:
            self._state(state)
        except StateNotFound as err:
            return Status.as_status(err)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return Status(Code.Skip)
        try:
            s = self._state(state)
        except StateNotFound as err:
            return Status.as_status(err)
        return Status(Code.Skip) if not s.claims else None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None


# --- args (DynamicResourcesArgs) -----------------------------------------------------------

_DURATION_RE = re.compile(r"([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """time.ParseDuration (seconds); raises ValueError."""
    s = text.strip()
    sign = 1.0
    if s[:1] in "+-":
        sign, s = (-1.0 if s[0] == "-" else 1.0), s[1:]
    if s == "0":
        return 0.0
    pos, total = 0, 0.0
    while pos < len(s):
        m = _DURATION_RE.match(s, pos)
        if m is None:
            raise ValueError(f'time: invalid duration "{text}"')
        total += float(m.group(1)) * _UNIT_SECONDS[m.group(2)]
        pos = m.end()
    if not s:
        raise ValueError(f'time: invalid duration "{text}"')
    return sign * total


def _binding_conditions(version: Any) -> bool:
    return (version.feature_enabled("DRADeviceBindingConditions")
            and version.feature_enabled("DRAResourceClaimDeviceStatus"))


def default_args(args: dict | None, version: Any) -> dict:
    """SetDefaults_DynamicResourcesArgs: filterTimeout 10s and bindingTimeout 10m, each only
    when its feature gates are on."""
    out = dict(args or {})
    if out.get("filterTimeout") is None and version.feature_enabled("DRASchedulerFilterTimeout"):
        out["filterTimeout"] = DEFAULT_FILTER_TIMEOUT
    if out.get("bindingTimeout") is None and _binding_conditions(version):
        out["bindingTimeout"] = DEFAULT_BINDING_TIMEOUT
    return out


def validate_args(args: dict, version: Any) -> list[tuple[str, str]]:
    """ValidateDynamicResourcesArgs: setting a field whose feature is off is an error."""
    errs: list[tuple[str, str]] = []
    ft = args.get("filterTimeout")
    if version.feature_enabled("DRASchedulerFilterTimeout"):
        if ft is not None:
            try:
                if parse_duration(str(ft)) < 0:
                    errs.append(("filterTimeout", f"Invalid value: {go_value(ft)}: must be zero or positive"))
            except ValueError as err:
                errs.append(("filterTimeout", f"Invalid value: {go_value(ft)}: {err}"))
    elif ft is not None:
        errs.append(("filterTimeout", "Forbidden: DRASchedulingFilterTimeout feature gate is disabled"))
    bt = args.get("bindingTimeout")
    if _binding_conditions(version):
        if bt is not None:
            try:
                if parse_duration(str(bt)) < 1:
                    errs.append(("bindingTimeout", f"Invalid value: {go_value(bt)}: must be at least 1 second"))
            except ValueError as err:
                errs.append(("bindingTimeout", f"Invalid value: {go_value(bt)}: {err}"))
    elif bt is not None:
        errs.append(("bindingTimeout",
                     "Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"))
    return errs


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, DynamicResources, DynamicResources, args_kind="DynamicResourcesArgs",
                      default_args=default_args, validate_args=validate_args)
