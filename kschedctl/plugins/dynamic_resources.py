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

from dataclasses import dataclass, replace
from typing import Any, ClassVar, Sequence

import numpy as np

from kschedctl.api.types import Pod
from kschedctl.framework.args import PluginArgs
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import (
    FieldError,
    forbidden,
    invalid,
    parse_duration,
)
from kschedctl.framework.handle import Handle
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
from kschedctl.framework.runtime.registry import PluginSpec, with_features
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
    def __init__(self, args: DynamicResourcesArgs | dict | None, handle: Handle,
                 features: Features | None = None) -> None:
        self.handle = handle
        features = features if features is not None else handle.features
        self.enabled = features.dynamic_resource_allocation
        self.args = DynamicResourcesArgs.of(args, features)

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

@dataclass(frozen=True)
class DynamicResourcesArgs(PluginArgs):
    """DynamicResourcesArgs (types_pluginargs.go): metav1.Durations, kept as their text."""

    KIND: ClassVar[str] = "DynamicResourcesArgs"
    filter_timeout: str | None = None
    binding_timeout: str | None = None

    def defaulted(self, features: Features | None) -> "DynamicResourcesArgs":
        """SetDefaults_DynamicResourcesArgs: filterTimeout 10s and bindingTimeout 10m, each only
        when its feature gates are on."""
        features = features or Features.default()
        ft, bt = self.filter_timeout, self.binding_timeout
        if ft is None and features.dra_scheduler_filter_timeout:
            ft = DEFAULT_FILTER_TIMEOUT
        if bt is None and _binding_conditions(features):
            bt = DEFAULT_BINDING_TIMEOUT
        return replace(self, filter_timeout=ft, binding_timeout=bt)

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidateDynamicResourcesArgs: setting a field whose feature is off is an error."""
        features = features or Features.default()
        errs: list[FieldError] = []
        ft, bt = self.filter_timeout, self.binding_timeout
        if features.dra_scheduler_filter_timeout:
            if ft is not None:
                errs += _duration_errors("filterTimeout", ft, 0.0, "must be zero or positive")
        elif ft is not None:
            errs.append(forbidden("filterTimeout", "DRASchedulingFilterTimeout feature gate is disabled"))
        if _binding_conditions(features):
            if bt is not None:
                errs += _duration_errors("bindingTimeout", bt, 1.0, "must be at least 1 second")
        elif bt is not None:
            errs.append(forbidden("bindingTimeout",
                                  "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"))
        return errs


def _duration_errors(path: str, text: str, minimum: float, detail: str) -> list[FieldError]:
    try:
        if parse_duration(text) < minimum:
            return [invalid(path, text, detail)]
    except ValueError as err:
        return [invalid(path, text, str(err))]
    return []


def _binding_conditions(features: Features) -> bool:
    return features.dra_device_binding_conditions and features.dra_resource_claim_device_status


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, with_features(DynamicResources), DynamicResources, args_type=DynamicResourcesArgs)
