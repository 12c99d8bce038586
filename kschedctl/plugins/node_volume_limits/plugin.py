"""NodeVolumeLimits (PreFilter, Filter): CSI volumes attached to a node stay within each
driver's limit.

Upstream: pkg/scheduler/framework/plugins/nodevolumelimits/csi.go (CSILimits), utils.go,
pkg/volume/util GetCSIAttachLimitKey.
A PVC resolves to (driver, volumeHandle): from the bound PV's spec.csi, or, when unbound or
its PV is missing, from the StorageClass provisioner with a per-claim placeholder handle.
In-tree PVs and inline volumes (AWS EBS, GCE PD, Azure Disk, Cinder) count against their CSI
driver when the node has a CSINode (CSI migration is on for those plugins). The limit per
driver comes from CSINode spec.drivers[].allocatable.count (or a node allocatable
`attachable-volumes-csi-<driver>`); volumes already used on the node are counted once.
Over the limit: Unschedulable "node(s) exceed max volume count".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.storage import MIGRATABLE
from kschedctl.api.types import GenericObject, Pod, Volume
from kschedctl.framework.cycle_state import CycleState
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
    NotFound,
    claim_class,
    claim_name_of,
    get_pvc,
    labels,
    spec,
    volume_is_for_pod,
)

NAME = names.NodeVolumeLimits
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
ATTACH_LIMIT_PREFIX = "attachable-volumes-"
CSI_ATTACH_LIMIT_PREFIX = "attachable-volumes-csi-"
RESOURCE_NAME_LENGTH_LIMIT = 63
# Deterministic stand-in for upstream's random 32-character prefix of unbound-claim handles.
UNBOUND_VOLUME_ID_PREFIX = "kschedctl-unbound"


def csi_attach_limit_key(driver: str) -> str:
    """GetCSIAttachLimitKey: long names keep 23 characters plus 16 hex digits of their SHA-1."""
    if len(CSI_ATTACH_LIMIT_PREFIX) + len(driver) >= RESOURCE_NAME_LENGTH_LIMIT:
        import hashlib  # OpenSSL's, loaded by the first name that needs it

        digest = hashlib.sha1(driver.encode()).hexdigest()[:16]
        return CSI_ATTACH_LIMIT_PREFIX + driver[:23] + digest
    return CSI_ATTACH_LIMIT_PREFIX + driver


def _gce_handle(source: dict[str, Any], pv_labels: dict[str, Any] | None) -> str | None:
    """translateGCEPD (csi-translation-lib gce_pd.go): the zone comes from the PV's beta zone
    label, else its GA one ("__"-separated zones: a regional disk); None when the zones do not
    name one region (the translation fails and the volume is not counted)."""
    zones_label = ""
    if pv_labels is not None:
        zones_label = str(pv_labels.get("failure-domain.beta.kubernetes.io/zone") or "")
        if not zones_label:
            zones_label = str(pv_labels.get("topology.kubernetes.io/zone") or "")
    zones = zones_label.split("__")
    disk = source.get("pdName", "")
    if len(zones) == 1 and zones[0]:
        return f"projects/UNSPECIFIED/zones/{zones[0]}/disks/{disk}"
    if len(zones) > 1:
        regions = set()
        for zone in zones:  # gceGetRegionFromZones: {locale}-{region}-{zone}
            parts = zone.split("-")
            if len(parts) != 3:
                return None
            regions.add("-".join(parts[:2]))
        if len(regions) != 1:
            return None
        return f"projects/UNSPECIFIED/regions/{regions.pop()}/disks/{disk}"
    return f"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{disk}"


def _ebs_handle(source: dict[str, Any]) -> str:
    """KubernetesVolumeIDToEBSVolumeID: aws://<zone>/<vol-id> -> vol-id."""
    vid = str(source.get("volumeID", ""))
    if vid.startswith("aws://"):
        return vid.rstrip("/").rsplit("/", 1)[-1]
    return vid


def _translate(source_container: dict[str, Any], pv_labels: dict[str, Any] | None) -> tuple[str, str, str] | None:
    """(in-tree plugin, CSI driver, handle) of an in-tree source, or None."""
    for plugin, (field, driver) in MIGRATABLE.items():
        source = source_container.get(field)
        if source is None:
            continue
        if field == "gcePersistentDisk":
            handle = _gce_handle(source, pv_labels)
            return None if handle is None else (plugin, driver, handle)
        if field == "awsElasticBlockStore":
            return plugin, driver, _ebs_handle(source)
        if field == "azureDisk":
            return plugin, driver, str(source.get("diskURI", ""))
        return plugin, driver, str(source.get("volumeID", ""))
    return None


# CSINodes whose limits are remembered (see _limits).
LIMITS_MEMO_MAX = 65536


class NodeVolumeLimits:
    def __init__(self, args: dict[str, Any] | None, handle: Handle) -> None:
        self.handle = handle
        self._attachments_by_node: tuple[int, int, dict[str, list[GenericObject]]] | None = None
        # node name -> (its PodInfos, the CSINode, their volumes): the node's last state only
        self._attached_memo: dict[str, tuple[tuple[Any, ...], GenericObject | None, dict[str, str]]] = {}
        self._attached_memo_tables: tuple[int, ...] = ()
        # the pod being filtered: (pod, tables) -> its own attachable volumes, with and without a CSINode
        self._new_memo: dict[bool, tuple[Pod, tuple[int, ...], dict[str, str]]] = {}
        # id(CSINode) -> (the CSINode, its limits)
        self._limits_memo: dict[int, tuple[GenericObject, dict[str, int]]] = {}

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent("CSINode", "Add")),
            ClusterEventWithHint(ClusterEvent("Pod", "Delete")),
            ClusterEventWithHint(ClusterEvent("PersistentVolumeClaim", "Add")),
        ]

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        for vol in pod.volumes:
            if vol.pvc_claim_name is not None or vol.ephemeral or _translate(vol.raw, None) is not None:
                return None, None
        return None, Status(SKIP)

    def pre_filter_extensions(self) -> None:
        return None

    # --- resolving volumes ---------------------------------------------------------------
    def _driver_info_from_sc(self, pvc: GenericObject, csi_node: GenericObject | None) -> tuple[str, str]:
        sc_name = claim_class(pvc)
        if not sc_name:
            return "", ""
        sc = self.handle.objects.storage_classes.get(sc_name)
        if sc is None:
            return "", ""
        handle = f"{UNBOUND_VOLUME_ID_PREFIX}-{pvc.namespace}/{pvc.name}"
        provisioner = str(sc.raw.get("provisioner") or "")
        if provisioner in MIGRATABLE:
            if csi_node is None:
                return "", ""
            return MIGRATABLE[provisioner][1], handle
        return provisioner, handle

    def _driver_info(self, pvc: GenericObject, csi_node: GenericObject | None) -> tuple[str, str]:
        """getCSIDriverInfo."""
        pv_name = str(spec(pvc).get("volumeName") or "")
        if not pv_name:
            return self._driver_info_from_sc(pvc, csi_node)
        pv = self.handle.objects.persistent_volumes.get(pv_name)
        if pv is None:
            return self._driver_info_from_sc(pvc, csi_node)
        csi = spec(pv).get("csi")
        if csi is None:
            translated = _translate(spec(pv), labels(pv))
            if translated is None or csi_node is None:
                return "", ""
            return translated[1], translated[2]
        return str(csi.get("driver", "")), str(csi.get("volumeHandle", ""))

    def _attachable_volumes(self, pod: Pod, csi_node: GenericObject | None, new_pod: bool, result: dict[str, str]) -> None:
        """filterAttachableVolumes: unique name "driver/handle" -> limit key. Raises NotFound
        (new pod's PVC missing) or ValueError (other errors) for the new pod only."""
        objects = self.handle.objects
        for vol in pod.volumes:
            claim = claim_name_of(pod, vol)
            if claim is None:
                self._inline(vol, csi_node, result)
                continue
            if claim == "":
                raise ValueError("PersistentVolumeClaim had no name")
            try:
                pvc = get_pvc(objects, pod.namespace, claim)
            except NotFound as err:
                if new_pod:
                    raise NotFound(f"looking up PVC {pod.namespace}/{claim}: {err}") from None
                continue
            if vol.ephemeral:
                problem = volume_is_for_pod(pod, pvc)
                if problem is not None:
                    raise ValueError(problem)
            driver, handle = self._driver_info(pvc, csi_node)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = csi_attach_limit_key(driver)

    @staticmethod
    def _inline(vol: Volume, csi_node: GenericObject | None, result: dict[str, str]) -> None:
        """checkAttachableInlineVolume: migratable inline volumes count once CSINode exists."""
        translated = _translate(vol.raw, None)
        if translated is None or csi_node is None:
            return
        _, driver, handle = translated
        result[f"{driver}/{handle}"] = csi_attach_limit_key(driver)

    def _volume_attachments(self, node_name: str) -> dict[str, str]:
        """getNodeVolumeAttachmentInfo: the node's VolumeAttachments of CSI PVs, as volume unique
        name (attacher/volumeHandle) -> limit key. Attachments without an attacher or a PV name,
        whose PV is missing or not CSI, are left out (upstream logs and skips them). A new pod's
        volume is not taken off the new ones for being attached (upstream counts it in both)."""
        out: dict[str, str] = {}
        for va in self._attachments_of(node_name):
            va_spec = spec(va)
            attacher = va_spec.get("attacher") or ""
            pv_name = (va_spec.get("source") or {}).get("persistentVolumeName")
            if not attacher or pv_name is None:
                continue
            pv = self.handle.objects.persistent_volumes.get(pv_name)
            csi = spec(pv).get("csi") if pv is not None else None
            if not isinstance(csi, dict):
                continue
            out[f"{attacher}/{csi.get('volumeHandle', '')}"] = csi_attach_limit_key(attacher)
        return out

    def _attachments_of(self, node_name: str) -> list[GenericObject]:
        """The VolumeAttachments whose spec.nodeName is this node, indexed once per list of them
        (upstream lists them all per Filter call; the snapshot's list only changes by loading)."""
        vas = self.handle.objects.other.get("VolumeAttachment", [])
        cached = self._attachments_by_node
        if cached is None or cached[0] != id(vas) or cached[1] != len(vas):
            index: dict[str, list[GenericObject]] = {}
            for va in vas:
                node = spec(va).get("nodeName")
                if isinstance(node, str):
                    index.setdefault(node, []).append(va)
            cached = self._attachments_by_node = (id(vas), len(vas), index)
        return cached[2].get(node_name, [])

    def _tables(self) -> tuple[int, ...]:
        """What the remembered volume answers depend on besides pods and CSINodes: the PVC, PV
        and StorageClass tables, by identity and size (the loader fills them; a run only reads)."""
        objects = self.handle.objects
        return (
            id(objects.persistent_volume_claims),
            len(objects.persistent_volume_claims),
            id(objects.persistent_volumes),
            len(objects.persistent_volumes),
            id(objects.storage_classes),
            len(objects.storage_classes),
        )

    def _new_volumes(self, pod: Pod, csi_node: GenericObject | None) -> dict[str, str]:
        """The pod's own attachable volumes on a node with or without a CSINode (all they depend
        on of the node), a fresh dict each call (Filter takes from it); remembered for the pod being
        filtered, as Filter asks this for every node. Raises as _attachable_volumes does (then
        nothing is remembered)."""
        tables = self._tables()
        without = csi_node is None
        found = self._new_memo.get(without)
        if found is not None and found[0] is pod and found[1] == tables:
            return dict(found[2])
        out: dict[str, str] = {}
        self._attachable_volumes(pod, csi_node, True, out)
        self._new_memo[without] = (pod, tables, out)
        return dict(out)

    def _limits(self, node_info: NodeInfo, csi_node: GenericObject | None) -> dict[str, int]:
        """_volume_limits, remembered per CSINode object (read, never changed, by a run)."""
        if csi_node is None:
            return self._volume_limits(node_info, csi_node)
        found = self._limits_memo.get(id(csi_node))
        if found is not None and found[0] is csi_node:
            return found[1]
        limits = self._volume_limits(node_info, csi_node)
        if len(self._limits_memo) >= LIMITS_MEMO_MAX:
            self._limits_memo = {}
        self._limits_memo[id(csi_node)] = (csi_node, limits)
        return limits

    def _existing_volumes(self, node_info: NodeInfo, csi_node: GenericObject | None) -> dict[str, str] | Status:
        """The attachable volumes of the pods already on the node (filterAttachableVolumes over
        them), or the Status of the first that fails. Filter asks this for every pod and node,
        and the answer is a walk of every volume of every pod there; it depends only on those
        pods (PodInfos, whose pods and volumes do not change), the node's CSINode and the PVC,
        PV and StorageClass tables, so each node's last answer is kept with its PodInfos (by
        identity) and CSINode, and all are forgotten whenever a table is another object or
        changes size. Failures are not remembered (worked out again, the same way, each time)."""
        tables = self._tables()
        if tables != self._attached_memo_tables:
            self._attached_memo = {}
            self._attached_memo_tables = tables
        pods = tuple(node_info.pods)  # PodInfos compare by identity
        found = self._attached_memo.get(node_info.name)
        if found is not None and found[1] is csi_node and found[0] == pods:
            return found[2]
        attached: dict[str, str] = {}
        for existing in node_info.pods:
            try:
                self._attachable_volumes(existing.pod, csi_node, False, attached)
            except (NotFound, ValueError) as err:
                return Status.as_status(err)
        self._attached_memo[node_info.name] = (pods, csi_node, attached)
        return attached

    def verdict_ignores_pods(self, pod: Pod, node_info: NodeInfo) -> bool:
        """Whether filter() on this node answers the same whatever pods are on it: it returns
        before reading them when the pod has no volume, its volumes fail to resolve or none is
        attachable here, or the node has no limit (no CSINode count). Preemption's dry run then
        needs no copy of the node to know this plugin's verdict while it removes pods."""
        if not pod.volumes:
            return True
        csi_node = self.handle.objects.csi_nodes.get(node_info.name)
        if csi_node is None:
            return True  # no CSINode, no count: _volume_limits is empty whatever the volumes
        try:
            if not self._new_volumes(pod, csi_node):
                return True
        except (NotFound, ValueError):
            return True
        return not self._limits(node_info, csi_node)

    @staticmethod
    def _volume_limits(node_info: NodeInfo, csi_node: GenericObject | None) -> dict[str, int]:
        """getVolumeLimits: the CSINode's drivers[].allocatable.count, nothing else (1.35's csi.go
        no longer reads attachable-volumes-* from the node's allocatable; kschedoracle explain
        agrees: a node with such an allocatable and no CSINode count has no limit)."""
        limits: dict[str, int] = {}
        if csi_node is not None:
            for driver in spec(csi_node).get("drivers") or []:
                count = (driver.get("allocatable") or {}).get("count")
                if count is not None:
                    limits[csi_attach_limit_key(str(driver.get("name", "")))] = int(count)
        return limits

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return self.filter_with_added_pods(state, pod, node_info, ())

    def filter_with_added_pods(self, state: CycleState, pod: Pod, node_info: NodeInfo, added: Sequence[PodInfo]) -> Status | None:
        """filter() on the node as if the PodInfos ``added`` were on it after its own pods (as
        NodeInfo.add_pod_info puts them; this plugin has no AddPod extension): the first pass
        of the Filter with nominated pods without a copy of the node. Their volumes count as
        attached, after the node's pods' (whose first failure comes first)."""
        if not pod.volumes:
            return None
        csi_node = self.handle.objects.csi_nodes.get(node_info.name)
        try:
            new_volumes = self._new_volumes(pod, csi_node)
        except NotFound as err:
            return Status(Code.UnschedulableAndUnresolvable, str(err))
        except ValueError as err:
            return Status.as_status(err)
        if not new_volumes or csi_node is None:  # without a CSINode, no limit (_volume_limits)
            return None
        limits = self._limits(node_info, csi_node)
        if not limits:
            return None
        attached = self._existing_volumes(node_info, csi_node)
        if isinstance(attached, Status):
            return attached
        if added:
            attached = dict(attached)  # the node's remembered answer stays as it is
            for info in added:
                try:
                    self._attachable_volumes(info.pod, csi_node, False, attached)
                except (NotFound, ValueError) as err:
                    return Status.as_status(err)
        attached_count: dict[str, int] = {}
        for unique, key in attached.items():
            new_volumes.pop(unique, None)
            attached_count[key] = attached_count.get(key, 0) + 1
        for unique, key in self._volume_attachments(node_info.name).items():
            if unique not in attached:  # a volume also used by a pod on the node is counted once
                attached_count[key] = attached_count.get(key, 0) + 1
        new_count: dict[str, int] = {}
        for key in new_volumes.values():
            new_count[key] = new_count.get(key, 0) + 1
        for key, count in new_count.items():
            limit = limits.get(key)
            if limit is not None and attached_count.get(key, 0) + count > limit:
                return Status(Code.Unschedulable, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, NodeVolumeLimits, NodeVolumeLimits)
