"""VolumeZone (PreFilter, Filter): bound PVs' zone/region labels must match the node's.

Upstream: pkg/scheduler/framework/plugins/volumezone/volume_zone.go.
PreFilter reads, for each PVC volume of the pod, the bound PV's topology labels (beta and GA
zone/region keys; a value may list several zones joined by "__"). Unbound claims of a
WaitForFirstConsumer class are skipped; every other lookup failure is
UnschedulableAndUnresolvable with upstream's text. Filter: a node with none of the topology
labels accepts anything (single-zone clusters); otherwise each PV label must have the node's
value (a beta PV key may be matched by the node's GA key).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kschedctl.api.types import Pod
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
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins import names
from kschedctl.plugins.volume_util import (
    WAIT_FOR_FIRST_CONSUMER,
    NotFound,
    binding_mode,
    claim_class,
    get_pv,
    get_pvc,
    get_storage_class,
    labels,
    spec,
)

NAME = names.VolumeZone
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

LABEL_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (LABEL_BETA_ZONE, LABEL_BETA_REGION, LABEL_ZONE, LABEL_REGION)
_TO_GA = {LABEL_BETA_ZONE: LABEL_ZONE, LABEL_BETA_REGION: LABEL_REGION}


@dataclass(frozen=True, slots=True)
class PVTopology:
    """pvTopology: a zone or region label of a PV the pod uses, and the values it lists."""

    pv_name: str
    key: str
    values: frozenset[str]


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """volumehelpers.LabelZonesToSet: "__"-separated, trimmed; None if any part is empty."""
    out = set()
    for part in value.split("__"):
        part = part.strip()
        if not part:
            return None
        out.add(part)
    return frozenset(out)


class _State:
    __slots__ = ("topologies",)

    def __init__(self, topologies: list[PVTopology]) -> None:
        self.topologies = topologies

    def clone(self) -> "_State":
        return self


class VolumeZone:
    def __init__(self, args: dict[str, Any] | None, handle: Handle) -> None:
        self.handle = handle

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent("StorageClass", "Add")),
            ClusterEventWithHint(ClusterEvent("Node", "Add")),
            ClusterEventWithHint(ClusterEvent("Node", "UpdateNodeLabel")),
            ClusterEventWithHint(ClusterEvent("PersistentVolumeClaim", "Add")),
            ClusterEventWithHint(ClusterEvent("PersistentVolumeClaim", "Update")),
            ClusterEventWithHint(ClusterEvent("PersistentVolume", "Add")),
            ClusterEventWithHint(ClusterEvent("PersistentVolume", "Update")),
        ]

    def _pv_topologies(self, pod: Pod) -> tuple[list[PVTopology], Status | None]:
        """getPVbyPod."""
        objects = self.handle.objects
        out: list[PVTopology] = []
        for vol in pod.volumes:
            if vol.pvc_claim_name is None:
                continue
            if vol.pvc_claim_name == "":
                return [], Status(Code.UnschedulableAndUnresolvable, "PersistentVolumeClaim had no name")
            try:
                pvc = get_pvc(objects, pod.namespace, vol.pvc_claim_name)
                pv_name = str(spec(pvc).get("volumeName") or "")
                if not pv_name:
                    sc_name = claim_class(pvc)
                    if not sc_name:
                        return [], Status(Code.UnschedulableAndUnresolvable, "PersistentVolumeClaim had no pv name and storageClass name")
                    sc = get_storage_class(objects, sc_name)
                    if binding_mode(sc) == WAIT_FOR_FIRST_CONSUMER:
                        continue  # unbound volumes are skipped
                    return [], Status(Code.UnschedulableAndUnresolvable, "PersistentVolume had no name")
                pv = get_pv(objects, pv_name)
            except NotFound as err:
                return [], Status(Code.UnschedulableAndUnresolvable, str(err))
            pv_labels = labels(pv)
            for key in TOPOLOGY_LABELS:
                if key in pv_labels:
                    values = label_zones_to_set(str(pv_labels[key]))
                    if values is None:
                        continue  # unparsable label: ignored, as upstream logs and continues
                    out.append(PVTopology(pv.name, key, values))
        return out, None

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.volumes:  # no PV to read a topology from: what the walk below concludes
            return None, Status(SKIP)
        topologies, status = self._pv_topologies(pod)
        if status is not None:
            return None, status
        if not topologies:
            return None, Status(SKIP)
        state.write(PRE_FILTER_STATE_KEY, _State(topologies))
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod.volumes:
            return None
        try:
            topologies = state.read(PRE_FILTER_STATE_KEY).topologies
        except StateNotFound:
            topologies, status = self._pv_topologies(pod)
            if status is not None:
                return status
        node = node_info.node
        node_labels = node.labels if node is not None else {}
        if not any(key in node_labels for key in TOPOLOGY_LABELS):
            return None
        for topo in topologies:
            value = node_labels.get(topo.key)
            if value is None:
                value = node_labels.get(_TO_GA.get(topo.key, topo.key))
            if value is None or value not in topo.values:
                return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_CONFLICT)
        return None


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, VolumeZone, VolumeZone)
