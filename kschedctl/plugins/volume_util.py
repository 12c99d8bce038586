"""PV / PVC / StorageClass helpers shared by the volume plugins.

Why: VolumeRestrictions, VolumeZone, NodeVolumeLimits and VolumeBinding all resolve a pod's
claims the same way upstream does, through the helpers of
k8s.io/component-helpers/storage/volume (pv_helpers.go: GetPersistentVolumeClaimClass,
GetPersistentVolumeClass, CheckNodeAffinity, FindMatchingVolume, IsDelayBindingMode),
k8s.io/component-helpers/storage/ephemeral (VolumeClaimName, VolumeIsForPod) and the
apiserver's NotFound error texts. Objects are read from their raw Kubernetes dicts
(GenericObject.raw), exactly as a snapshot file holds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kschedctl.api.labels import LabelSelector, node_selector_from_dict
from kschedctl.api.quantity import QuantityError, int_value
from kschedctl.api.types import GenericObject, Pod, Volume

BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"

READ_WRITE_ONCE_POD = "ReadWriteOncePod"
VOLUME_AVAILABLE = "Available"
CLAIM_LOST = "Lost"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


class NotFound(LookupError):
    """apierrors.NewNotFound: the message is what the apiserver/lister would say."""


def pvc_not_found(name: str) -> NotFound:
    return NotFound(f'persistentvolumeclaim "{name}" not found')


def pv_not_found(name: str) -> NotFound:
    return NotFound(f'persistentvolume "{name}" not found')


def storage_class_not_found(name: str) -> NotFound:
    return NotFound(f'storageclasses.storage.k8s.io "{name}" not found')


# --- raw-dict accessors --------------------------------------------------------------------


def spec(obj: GenericObject | dict[str, Any]) -> dict[str, Any]:
    raw = obj.raw if isinstance(obj, GenericObject) else obj
    return raw.get("spec") or {}


def status(obj: GenericObject | dict[str, Any]) -> dict[str, Any]:
    raw = obj.raw if isinstance(obj, GenericObject) else obj
    return raw.get("status") or {}


def metadata(obj: GenericObject | dict[str, Any]) -> dict[str, Any]:
    raw = obj.raw if isinstance(obj, GenericObject) else obj
    return raw.get("metadata") or {}


def annotations_of(obj: GenericObject | dict[str, Any]) -> dict[str, Any]:
    return metadata(obj).get("annotations") or {}


def labels(obj: GenericObject | dict[str, Any]) -> dict[str, Any]:
    return metadata(obj).get("labels") or {}


def claim_class(pvc: GenericObject | dict[str, Any]) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName."""
    ann = annotations_of(pvc)
    if BETA_STORAGE_CLASS_ANNOTATION in ann:
        return str(ann[BETA_STORAGE_CLASS_ANNOTATION])
    return str(spec(pvc).get("storageClassName") or "")


def volume_class(pv: GenericObject | dict[str, Any]) -> str:
    """GetPersistentVolumeClass."""
    ann = annotations_of(pv)
    if BETA_STORAGE_CLASS_ANNOTATION in ann:
        return str(ann[BETA_STORAGE_CLASS_ANNOTATION])
    return str(spec(pv).get("storageClassName") or "")


def access_modes(obj: GenericObject | dict[str, Any]) -> list[str]:
    return [str(m) for m in (spec(obj).get("accessModes") or [])]


def storage_quantity(resources: Mapping[str, Any] | None) -> int:
    """Quantity.Value() of resources["storage"]; 0 when absent or unparsable."""
    value = (resources or {}).get("storage")
    if value is None:
        return 0
    try:
        return int_value(value)
    except QuantityError:
        return 0


def claim_request(pvc: GenericObject | dict[str, Any]) -> int:
    return storage_quantity((spec(pvc).get("resources") or {}).get("requests"))


def has_claim_request(pvc: GenericObject | dict[str, Any]) -> bool:
    return "storage" in ((spec(pvc).get("resources") or {}).get("requests") or {})


def volume_capacity(pv: GenericObject | dict[str, Any]) -> int:
    return storage_quantity(spec(pv).get("capacity"))


# --- pod volumes ---------------------------------------------------------------------------


def claim_name_of(pod: Pod, vol: Volume) -> str | None:
    """The PVC a volume uses: its claimName, or `<pod>-<volume>` for a generic ephemeral
    volume (ephemeral.VolumeClaimName); None for any other volume type."""
    if vol.pvc_claim_name is not None:
        return vol.pvc_claim_name
    if vol.ephemeral:
        return f"{pod.name}-{vol.name}"
    return None


def volume_is_for_pod(pod: Pod, pvc: GenericObject) -> str | None:
    """ephemeral.VolumeIsForPod: the error text, or None when the pod controls the PVC."""
    if pvc.namespace != pod.namespace:
        return f"PVC {pvc.namespace}/{pvc.name} was not created for pod {pod.namespace}/{pod.name} (different namespace)"
    for ref in pvc.meta.owner_references:
        if isinstance(ref, dict) and ref.get("controller") and str(ref.get("uid", "")) == pod.uid:
            return None
    return f"PVC {pvc.namespace}/{pvc.name} was not created for pod {pod.namespace}/{pod.name} (pod is not owner)"


# --- lookups -------------------------------------------------------------------------------


def get_pvc(objects: Any, namespace: str, name: str) -> GenericObject:
    pvc: GenericObject | None = objects.persistent_volume_claims.get(f"{namespace}/{name}")
    if pvc is None:
        raise pvc_not_found(name)
    return pvc


def get_pv(objects: Any, name: str) -> GenericObject:
    pv: GenericObject | None = objects.persistent_volumes.get(name)
    if pv is None:
        raise pv_not_found(name)
    return pv


def get_storage_class(objects: Any, name: str) -> GenericObject:
    sc: GenericObject | None = objects.storage_classes.get(name)
    if sc is None:
        raise storage_class_not_found(name)
    return sc


def binding_mode(sc: GenericObject) -> str:
    """StorageClass.volumeBindingMode (a top-level field). The API server defaults an unset
    mode to Immediate, so a hand-written snapshot without it reads as Immediate (upstream's
    "VolumeBindingMode not set" errors cannot occur for objects read from a cluster)."""
    return str(sc.raw.get("volumeBindingMode") or "Immediate")


def is_delay_binding_mode(objects: Any, pvc: GenericObject) -> bool:
    """IsDelayBindingMode: no class or an unknown class means Immediate."""
    name = claim_class(pvc)
    if not name:
        return False
    sc = objects.storage_classes.get(name)
    if sc is None:
        return False
    return binding_mode(sc) == WAIT_FOR_FIRST_CONSUMER


def is_pvc_fully_bound(pvc: GenericObject) -> bool:
    """volumeName set and the pv.kubernetes.io/bind-completed annotation present."""
    return bool(spec(pvc).get("volumeName")) and ANN_BIND_COMPLETED in annotations_of(pvc)


# --- matching ------------------------------------------------------------------------------


def check_node_affinity(pv: GenericObject | dict[str, Any], node_labels: Mapping[str, str]) -> bool:
    """CheckNodeAffinity: the PV's required node selector against the node's labels only
    (upstream builds a Node with just the labels, so matchFields never match)."""
    node_affinity = spec(pv).get("nodeAffinity")
    if not node_affinity or not node_affinity.get("required"):
        return True
    selector = node_selector_from_dict(node_affinity["required"], "spec.nodeAffinity.required")
    return selector is not None and selector.matches("", node_labels)


def match_topology_selector_terms(terms: list[Any] | None, node_labels: Mapping[str, str]) -> bool:
    """v1helper.MatchTopologySelectorTerms: no terms match everything; terms are ORed,
    their matchLabelExpressions ANDed (label present with a listed value)."""
    if not terms:
        return True
    for term in terms:
        exprs = (term or {}).get("matchLabelExpressions") or []
        if not exprs:
            continue
        if all(
            str(e.get("key", "")) in node_labels and node_labels[str(e.get("key", ""))] in [str(v) for v in (e.get("values") or [])]
            for e in exprs
        ):
            return True
    return False


def is_volume_bound_to_claim(pv: dict[str, Any], pvc: GenericObject) -> bool:
    """IsVolumeBoundToClaim: claimRef names the claim (and its UID, when set)."""
    ref = spec(pv).get("claimRef")
    if not ref:
        return False
    if ref.get("name") != pvc.name or (ref.get("namespace") or "") != pvc.namespace:
        return False
    uid = ref.get("uid")
    return not uid or uid == pvc.meta.uid


def _volume_mode(obj: dict[str, Any]) -> str:
    return str(spec(obj).get("volumeMode") or "Filesystem")


def _vac(obj: dict[str, Any]) -> str:
    return str(spec(obj).get("volumeAttributesClassName") or "")


def check_access_modes(pvc: GenericObject, pv: dict[str, Any]) -> bool:
    have = set(access_modes(pv))
    return all(mode in have for mode in access_modes(pvc))


def find_matching_volume(
    pvc: GenericObject, volumes: Iterable[dict[str, Any]], node_labels: Mapping[str, str], excluded: set[str], vac_enabled: bool = True
) -> dict[str, Any] | None:
    """FindMatchingVolume (scheduler path, delayBinding=true): a PV pre-bound to the claim
    wins outright (unless its node affinity fails, then nothing matches); otherwise the
    smallest Available PV of the claim's class whose size, volume mode, selector, node
    affinity and access modes fit. PVs are given as raw dicts (possibly assumed copies)."""
    requested = claim_request(pvc)
    requested_class = claim_class(pvc)
    selector = LabelSelector.from_dict(spec(pvc).get("selector"), "spec.selector")
    smallest: dict[str, Any] | None = None
    smallest_qty = 0
    for pv in volumes:
        name = metadata(pv).get("name")
        if name in excluded:
            continue
        if spec(pv).get("claimRef") and not is_volume_bound_to_claim(pv, pvc):
            continue
        qty = volume_capacity(pv)
        if qty < requested:
            continue
        if _volume_mode(pv) != _volume_mode(pvc.raw):
            continue
        if metadata(pv).get("deletionTimestamp"):
            continue
        affinity_ok = check_node_affinity(pv, node_labels)
        if is_volume_bound_to_claim(pv, pvc):
            return pv if affinity_ok else None
        if status(pv).get("phase") != VOLUME_AVAILABLE:
            continue
        if selector is not None and not selector.matches(labels(pv)):
            continue
        if volume_class(pv) != requested_class:
            continue
        if vac_enabled and _vac(pv) != _vac(pvc.raw):
            continue
        if not affinity_ok:
            continue
        if not check_access_modes(pvc, pv):
            continue
        if smallest is None or smallest_qty > qty:
            smallest, smallest_qty = pv, qty
    return smallest
