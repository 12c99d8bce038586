"""VolumeRestrictions (PreFilter, Filter): inline disks that may not be shared, and
ReadWriteOncePod claims already in use.

Upstream: pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go.
* Inline GCE PD / AWS EBS / RBD / iSCSI volumes conflict with the same disk mounted by a pod
  already on the node (read-only sharing allowed for GCE PD, RBD and iSCSI):
  Unschedulable "node(s) had no available disk".
* PreFilter counts, cluster-wide, the existing pods using any of the pod's ReadWriteOncePod
  PVCs; AddPod/RemovePod keep the count right during preemption. A count above zero makes
  every node Unschedulable (so preemption can help).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.types import Pod, Volume
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    SKIP,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    PreFilterResult,
    Status,
)
from kschedctl.framework.registry import PluginSpec
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins import names
from kschedctl.plugins.volume_util import (
    READ_WRITE_ONCE_POD,
    NotFound,
    access_modes,
    get_pvc,
)

NAME = names.VolumeRestrictions
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
# The ReadWriteOncePod conflict reason is worded per release: versions.WORDINGS
# "VolumeRestrictions.ReadWriteOncePodConflict".
RWOP_CONFLICT = "VolumeRestrictions.ReadWriteOncePodConflict"

_CHECKED_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")


class _PreFilterState:
    """Names of the pod's RWOP claims and how many scheduled pods reference them."""

    __slots__ = ("rwop_pvcs", "conflicting_ref_count")

    def __init__(self, rwop_pvcs: frozenset[str], conflicting_ref_count: int) -> None:
        self.rwop_pvcs = rwop_pvcs
        self.conflicting_ref_count = conflicting_ref_count

    def update_with_pod(self, info: PodInfo, multiplier: int) -> None:
        refs = sum(1 for v in info.pod.volumes if v.pvc_claim_name is not None and v.pvc_claim_name in self.rwop_pvcs)
        self.conflicting_ref_count += multiplier * refs

    def clone(self) -> "_PreFilterState":
        return _PreFilterState(self.rwop_pvcs, self.conflicting_ref_count)


def needs_restrictions_check(vol: Volume) -> bool:
    return any(vol.raw.get(src) is not None for src in _CHECKED_SOURCES)


def _have_overlap(a: list[Any], b: list[Any]) -> bool:
    return bool(set(a) & set(b))


def is_volume_conflict(vol: Volume, existing_pod: Pod) -> bool:
    """isVolumeConflict: does `vol` clash with any volume of an existing pod?"""
    raw = vol.raw
    for ev in existing_pod.volumes:
        other = ev.raw
        gce, egce = raw.get("gcePersistentDisk"), other.get("gcePersistentDisk")
        if gce is not None and egce is not None:
            if gce.get("pdName") == egce.get("pdName") and not (gce.get("readOnly") and egce.get("readOnly")):
                return True
        ebs, eebs = raw.get("awsElasticBlockStore"), other.get("awsElasticBlockStore")
        if ebs is not None and eebs is not None and ebs.get("volumeID") == eebs.get("volumeID"):
            return True
        iscsi, eiscsi = raw.get("iscsi"), other.get("iscsi")
        if iscsi is not None and eiscsi is not None:
            if iscsi.get("iqn") == eiscsi.get("iqn") and not (iscsi.get("readOnly") and eiscsi.get("readOnly")):
                return True
        rbd, erbd = raw.get("rbd"), other.get("rbd")
        if rbd is not None and erbd is not None:
            if (
                _have_overlap(rbd.get("monitors") or [], erbd.get("monitors") or [])
                and (rbd.get("pool") or "rbd") == (erbd.get("pool") or "rbd")
                and rbd.get("image") == erbd.get("image")
                and not (rbd.get("readOnly") and erbd.get("readOnly"))
            ):
                return True
    return False


def satisfy_volume_conflicts(pod: Pod, node_info: NodeInfo) -> bool:
    for vol in pod.volumes:
        if not needs_restrictions_check(vol):
            continue
        for existing in node_info.pods:
            if is_volume_conflict(vol, existing.pod):
                return False
    return True


class VolumeRestrictions:
    def __init__(self, args: dict[str, Any] | None, handle: Handle) -> None:
        self.handle = handle

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent("Pod", "Delete")),
            ClusterEventWithHint(ClusterEvent("Node", "Add")),
            ClusterEventWithHint(ClusterEvent("PersistentVolumeClaim", "Add")),
        ]

    def _rwop_pvcs(self, pod: Pod) -> frozenset[str]:
        """readWriteOncePodPVCsForPod; raises NotFound for a missing claim."""
        out = set()
        for vol in pod.volumes:
            if vol.pvc_claim_name is None:
                continue
            pvc = get_pvc(self.handle.objects, pod.namespace, vol.pvc_claim_name)
            if READ_WRITE_ONCE_POD in access_modes(pvc):
                out.add(pvc.name)
        return frozenset(out)

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.volumes:  # nothing to check and no ReadWriteOncePod claim: what the steps below conclude
            return None, Status(SKIP)
        needs_check = any(needs_restrictions_check(v) for v in pod.volumes)
        try:
            pvcs = self._rwop_pvcs(pod)
        except NotFound as err:
            return None, Status(Code.UnschedulableAndUnresolvable, str(err))
        lister = self.handle.snapshot_shared_lister()
        count = sum(1 for name in pvcs if lister.is_pvc_used_by_pods(f"{pod.namespace}/{name}"))
        s = _PreFilterState(pvcs, count)
        if not needs_check and s.conflicting_ref_count == 0:
            return None, Status(SKIP)
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> "VolumeRestrictions":
        return self

    def _state(self, state: CycleState) -> _PreFilterState:
        try:
            s: _PreFilterState = state.read(PRE_FILTER_STATE_KEY)
            return s
        except StateNotFound:
            raise RuntimeError(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState') from None

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status | None:
        try:
            self._state(state).update_with_pod(pod_info_to_add, 1)
        except RuntimeError as err:
            return Status.as_status(err)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status | None:
        try:
            self._state(state).update_with_pod(pod_info_to_remove, -1)
        except RuntimeError as err:
            return Status.as_status(err)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not satisfy_volume_conflicts(pod, node_info):
            return Status(Code.Unschedulable, ERR_REASON_DISK_CONFLICT)
        try:
            s = self._state(state)
        except RuntimeError as err:
            return Status.as_status(err)
        if s.conflicting_ref_count > 0:
            return Status(Code.Unschedulable, self.handle.version.wording(RWOP_CONFLICT))
        return None


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, VolumeRestrictions, VolumeRestrictions)
