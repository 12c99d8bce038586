"""VolumeBinding (PreFilter, Filter, PreScore, Score, Reserve, PreBind): a pod's PVCs must be
bound to PVs usable from the node, or bindable / provisionable for it.

Upstream: pkg/scheduler/framework/plugins/volumebinding/volume_binding.go, binder.go
(GetPodVolumeClaims, FindPodVolumes, checkBoundClaims, findMatchingVolumes,
checkVolumeProvisions, hasEnoughCapacity, AssumePodVolumes), scorer.go, and
k8s.io/component-helpers/storage/volume (FindMatchingVolume, CheckNodeAffinity).
* PreFilter: Skip without PVCs; a missing / lost / deleting claim and unbound claims of an
  Immediate class are UnschedulableAndUnresolvable.
* Filter: bound PVs' node affinity, static binding of WaitForFirstConsumer claims to the
  smallest fitting Available PV, else dynamic provisioning (provisioner set, node inside the
  class's allowedTopologies, CSIStorageCapacity when the CSIDriver asks for it). All reasons
  are UnschedulableAndUnresolvable, in upstream's order.
* Reserve assumes the chosen PV claimRefs / selected-node annotations in this plugin's
  assume cache (later pods of the same run see them); Unreserve reverts; PreBind is a no-op
  success (the simulation does not wait for the PV controller).
* PreScore/Score only with the StorageCapacityScoring gate (scorer.go); otherwise Skip.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kschedctl.api.labels import LabelSelector
from kschedctl.api.quantity import QuantityError, int_value
from kschedctl.api.storage import NOT_SUPPORTED_PROVISIONER
from kschedctl.api.types import GenericObject, Node, Pod
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import (
    go_div,
    go_round,
)
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_NODE_SCORE,
    SKIP,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    PreFilterResult,
    Status,
)
from kschedctl.framework.registry import PluginSpec, with_features
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins import names
from kschedctl.plugins.node_resources.args import UtilizationShapePoint
from kschedctl.plugins.volume_binding.args import VolumeBindingArgs
from kschedctl.plugins.volume_util import (
    ANN_SELECTED_NODE,
    CLAIM_LOST,
    NotFound,
    annotations_of,
    check_node_affinity,
    claim_class,
    claim_name_of,
    claim_request,
    find_matching_volume,
    get_storage_class,
    has_claim_request,
    is_delay_binding_mode,
    is_pvc_fully_bound,
    match_topology_selector_terms,
    metadata,
    spec,
    status,
    volume_capacity,
    volume_class,
    volume_is_for_pod,
)

NAME = names.VolumeBinding
STATE_KEY = NAME
MAX_UTILIZATION = 100

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"


@dataclass
class PodVolumeClaims:
    """podVolumeClaims: the pod's PVCs as bound, unbound with delayed binding, or unbound immediate, and the PVs of each
    delayed claim's storage class."""

    bound: list[GenericObject] = field(default_factory=list)
    unbound_delay: list[GenericObject] = field(default_factory=list)
    unbound_immediate: list[GenericObject] = field(default_factory=list)
    unbound_volumes_delay: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


@dataclass
class PodVolumes:
    """PodVolumes: how the pod's unbound claims would be met on one node: PVs to bind (static) and claims to provision (dynamic)."""

    static_bindings: list[tuple[GenericObject, dict[str, Any]]] = field(default_factory=list)  # (pvc, pv raw)
    dynamic_provisions: list[tuple[GenericObject, dict[str, Any] | None]] = field(default_factory=list)  # (pvc, capacity raw)


# FindPodVolumes' answer when it cannot depend on the node (VolumeBinding.same_on_every_node)
EVERY_NODE_FITS = "fits"
NO_NODE_HAS_THE_PV = "pv missing"


class _State:
    """stateData; shared (not copied) by clones, as upstream's Clone returns itself."""

    __slots__ = ("all_bound", "pod_volumes_by_node", "claims", "has_static_bindings", "same_everywhere")

    def __init__(self, claims: PodVolumeClaims | None = None) -> None:
        self.all_bound = False
        self.pod_volumes_by_node: dict[str, PodVolumes] = {}
        self.claims = claims
        self.has_static_bindings = False
        # (the assume cache's PV writes when worked out, same_on_every_node's answer)
        self.same_everywhere: tuple[int, str | None] | None = None

    def clone(self) -> "_State":
        return self


# --- scorer (scorer.go, helper/shape_score.go) ---------------------------------------------


def broken_linear(shape: list[tuple[int, int]], p: int) -> int:
    """helper.BuildBrokenLinearFunction with Go's truncating division."""
    for i, (util, score) in enumerate(shape):
        if p <= util:
            if i == 0:
                return shape[0][1]
            pu, ps = shape[i - 1]
            return ps + go_div((score - ps) * (p - pu), util - pu)
    return shape[-1][1]


def build_scorer(shape_args: Sequence[UtilizationShapePoint]) -> Callable[[dict[str, list[int]]], int]:
    """buildScorerFunction: per storage class requested/capacity through the shape,
    averaged with math.Round."""
    shape = [(p.utilization, p.score * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for p in shape_args]

    def class_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return broken_linear(shape, MAX_UTILIZATION)
        return broken_linear(shape, requested * MAX_UTILIZATION // capacity)

    def scorer(class_resources: dict[str, list[int]]) -> int:
        if not class_resources:
            return 0
        total = sum(class_score(req, cap) for req, cap in class_resources.values())
        return go_round(total / len(class_resources))

    return scorer


# --- the plugin ----------------------------------------------------------------------------


class VolumeBinding:
    def __init__(self, args: VolumeBindingArgs | dict[str, Any] | None, handle: Handle, features: Features | None = None) -> None:
        self.handle = handle
        features = features if features is not None else handle.features
        self.args = VolumeBindingArgs.of(args, features)
        self.capacity_scoring = features.storage_capacity_scoring
        self.vac_enabled = features.volume_attributes_class
        self.scorer = build_scorer(self.args.shape or ()) if self.capacity_scoring else None
        # The binder's assume caches: PV name -> assumed PV dict, "ns/name" -> assumed PVC.
        self.assumed_pvs: dict[str, dict[str, Any]] = {}
        self.assumed_pvcs: dict[str, GenericObject] = {}
        self.pv_writes = 0  # changes of assumed_pvs: what a state's same_everywhere was read at

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(r, a))
            for r, a in (
                ("StorageClass", "Add"),
                ("StorageClass", "Update"),
                ("PersistentVolumeClaim", "Add"),
                ("PersistentVolumeClaim", "Update"),
                ("PersistentVolume", "Add"),
                ("PersistentVolume", "Update"),
                ("Node", "Add"),
                ("Node", "UpdateNodeLabel"),
                ("CSINode", "Add"),
                ("CSINode", "Update"),
                ("CSIDriver", "Update"),
                ("CSIStorageCapacity", "Add"),
                ("CSIStorageCapacity", "Update"),
            )
        ]

    # --- assume-cache views ----------------------------------------------------------------
    def _pvc(self, namespace: str, name: str) -> GenericObject:
        key = f"{namespace}/{name}"
        if key in self.assumed_pvcs:
            return self.assumed_pvcs[key]
        pvc = self.handle.objects.persistent_volume_claims.get(key)
        if pvc is None:
            raise NotFound(f'persistentvolumeclaim "{name}" not found')
        return pvc

    def _pv(self, name: str) -> dict[str, Any] | None:
        if name in self.assumed_pvs:
            return self.assumed_pvs[name]
        pv = self.handle.objects.persistent_volumes.get(name)
        return None if pv is None else pv.raw

    def _pvs_of_class(self, class_name: str) -> list[dict[str, Any]]:
        names_ = sorted(set(self.handle.objects.persistent_volumes) | set(self.assumed_pvs))
        out = []
        for n in names_:
            pv = self._pv(n)
            if pv is not None and volume_class(pv) == class_name:
                out.append(pv)
        return out

    # --- PreFilter -------------------------------------------------------------------------
    def _pod_has_pvcs(self, pod: Pod) -> tuple[bool, str | None]:
        """podHasPVCs: (has a PVC volume, error message)."""
        has = False
        for vol in pod.volumes:
            claim = claim_name_of(pod, vol)
            if claim is None:
                continue
            has = True
            try:
                pvc = self._pvc(pod.namespace, claim)
            except NotFound as err:
                if vol.ephemeral:
                    return has, f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{claim}"'
                return has, str(err)
            if status(pvc).get("phase") == CLAIM_LOST:
                return has, (
                    f'persistentvolumeclaim "{pvc.name}" bound to non-existent persistentvolume "{spec(pvc).get("volumeName", "")}"'
                )
            if pvc.meta.deletion_timestamp:
                return has, f'persistentvolumeclaim "{pvc.name}" is being deleted'
            if vol.ephemeral:
                problem = volume_is_for_pod(pod, pvc)
                if problem is not None:
                    return has, problem
        return has, None

    def _is_volume_bound(self, pod: Pod, vol: Any) -> tuple[bool, GenericObject | None]:
        """isVolumeBound; raises ValueError/NotFound on lookup problems."""
        claim = claim_name_of(pod, vol)
        if claim is None:
            return True, None
        try:
            pvc = self._pvc(pod.namespace, claim)
        except NotFound as err:
            raise ValueError(f'error getting PVC "{pod.namespace}/{claim}": {err}') from None
        if vol.ephemeral:
            problem = volume_is_for_pod(pod, pvc)
            if problem is not None:
                raise ValueError(problem)
        return is_pvc_fully_bound(pvc), pvc

    def get_pod_volume_claims(self, pod: Pod) -> PodVolumeClaims:
        claims = PodVolumeClaims()
        for vol in pod.volumes:
            bound, pvc = self._is_volume_bound(pod, vol)
            if pvc is None:
                continue
            if bound:
                claims.bound.append(pvc)
            elif is_delay_binding_mode(self.handle.objects, pvc) and not spec(pvc).get("volumeName"):
                claims.unbound_delay.append(pvc)
            else:
                claims.unbound_immediate.append(pvc)  # prebound claims count as immediate
        for pvc in claims.unbound_delay:
            cls = claim_class(pvc)
            claims.unbound_volumes_delay[cls] = self._pvs_of_class(cls)
        return claims

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        has, problem = self._pod_has_pvcs(pod)
        if problem is not None:
            return None, Status(Code.UnschedulableAndUnresolvable, problem)
        if not has:
            state.write(STATE_KEY, _State())
            return None, Status(SKIP)
        try:
            claims = self.get_pod_volume_claims(pod)
        except ValueError as err:
            return None, Status.as_status(err)
        if claims.unbound_immediate:
            return None, Status(Code.UnschedulableAndUnresolvable, ERR_UNBOUND_IMMEDIATE)
        state.write(STATE_KEY, _State(claims))
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    # --- Filter ----------------------------------------------------------------------------
    def _has_enough_capacity(self, provisioner: str, pvc: GenericObject, class_name: str, node: Node) -> tuple[bool, dict[str, Any] | None]:
        """hasEnoughCapacity: only for CSIDrivers with storageCapacity: true."""
        if not has_claim_request(pvc):
            return True, None
        driver = self.handle.objects.csi_drivers.get(provisioner)
        if driver is None or not spec(driver).get("storageCapacity"):
            return True, None
        size = claim_request(pvc)
        for cap in self.handle.objects.other.get("CSIStorageCapacity", []):
            raw = cap.raw
            limit = raw.get("maximumVolumeSize", raw.get("capacity"))
            if raw.get("storageClassName") != class_name or limit is None:
                continue
            try:
                if int_value(limit) < size:
                    continue
            except QuantityError:
                continue
            topology = raw.get("nodeTopology")
            if topology is None:
                continue
            selector = LabelSelector.from_dict(topology, "nodeTopology")
            if selector is not None and selector.matches(node.labels):
                return True, raw
        return False, None

    def _check_volume_provisions(self, claims: list[GenericObject], node: Node, pod_volumes: PodVolumes) -> tuple[bool, bool]:
        """checkVolumeProvisions -> (provision satisfied, sufficient storage); raises ValueError."""
        provisions = []
        for pvc in claims:
            class_name = claim_class(pvc)
            if not class_name:
                raise ValueError(f'no class for claim "{pvc.namespace}/{pvc.name}"')
            try:
                sc = get_storage_class(self.handle.objects, class_name)
            except NotFound:
                raise ValueError(f'failed to find storage class "{class_name}"') from None
            provisioner = str(sc.raw.get("provisioner") or "")
            if not provisioner or provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True
            if not match_topology_selector_terms(sc.raw.get("allowedTopologies"), node.labels):
                return False, True
            sufficient, capacity = self._has_enough_capacity(provisioner, pvc, class_name, node)
            if not sufficient:
                return True, False
            provisions.append((pvc, capacity))
        pod_volumes.dynamic_provisions = provisions
        return True, True

    def find_pod_volumes(self, pod: Pod, claims: PodVolumeClaims, node: Node) -> tuple[PodVolumes, list[str]]:
        """FindPodVolumes -> (pod volumes, conflict reasons); raises ValueError on errors."""
        pv_out = PodVolumes()
        bound_ok = unbound_ok = enough = pvs_found = True

        def reasons() -> list[str]:
            out = []
            if not bound_ok:
                out.append(ERR_REASON_NODE_CONFLICT)
            if not unbound_ok:
                out.append(ERR_REASON_BIND_CONFLICT)
            if not enough:
                out.append(ERR_REASON_NOT_ENOUGH_SPACE)
            if not pvs_found:
                out.append(ERR_REASON_PV_NOT_EXIST)
            return out

        for pvc in claims.bound:  # checkBoundClaims: stops at the first problem
            pv = self._pv(str(spec(pvc).get("volumeName")))
            if pv is None:
                pvs_found = False
                break
            if not check_node_affinity(pv, node.labels):
                bound_ok = False
                break
        if not claims.unbound_delay:
            return pv_out, reasons()
        to_match, to_provision = [], []
        for pvc in claims.unbound_delay:
            selected = annotations_of(pvc).get(ANN_SELECTED_NODE)
            if selected is not None:
                if selected != node.name:
                    unbound_ok = False
                    return pv_out, reasons()
                to_provision.append(pvc)
            else:
                to_match.append(pvc)
        if to_match:
            chosen: set[str] = set()
            for pvc in sorted(to_match, key=claim_request):  # smallest requests first
                pv = find_matching_volume(
                    pvc, claims.unbound_volumes_delay.get(claim_class(pvc), []), node.labels, chosen, self.vac_enabled
                )
                if pv is None:
                    to_provision.append(pvc)
                    unbound_ok = False
                    continue
                chosen.add(metadata(pv)["name"])  # a PV of the snapshot: it has its name
                pv_out.static_bindings.append((pvc, pv))
        if to_provision:
            unbound_ok, enough = self._check_volume_provisions(to_provision, node, pv_out)
        return pv_out, reasons()

    def _state(self, state: CycleState) -> _State:
        s: _State = state.read(STATE_KEY)
        return s

    def same_on_every_node(self, s: _State) -> str | None:
        """FindPodVolumes' answer when the node cannot change it: every claim bound, and no PV
        (up to the first missing one) with a required node affinity. EVERY_NODE_FITS (no
        conflict, nothing to bind), NO_NODE_HAS_THE_PV (the first problem on every node is a
        missing PV), or None when it depends on the node's labels or claims are unbound.

        The claims are fixed by PreFilter, the PVs change only through the assume cache: the
        answer is kept in the state (which the dry run's copies share) while the cache has not
        changed, so a preemptor's dry run works it out once, not once per candidate node."""
        kept = s.same_everywhere
        if kept is not None and kept[0] == self.pv_writes:
            return kept[1]
        answer = self._bound_claims_answer(s.claims)
        s.same_everywhere = (self.pv_writes, answer)
        return answer

    def _bound_claims_answer(self, claims: PodVolumeClaims | None) -> str | None:
        if claims is None or claims.unbound_delay:
            return None
        for pvc in claims.bound:  # checkBoundClaims: stops at the first problem
            pv = self._pv(str(spec(pvc).get("volumeName")))
            if pv is None:
                return NO_NODE_HAS_THE_PV
            affinity = spec(pv).get("nodeAffinity")
            if affinity and affinity.get("required"):
                return None  # check_node_affinity reads the node's labels
        return EVERY_NODE_FITS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            s = self._state(state)
        except StateNotFound as err:
            return Status.as_status(err)
        if s.claims is None:
            return None
        node = node_info.node
        if node is None:
            return Status(Code.Error, "node not found")
        same = self.same_on_every_node(s)
        if same is EVERY_NODE_FITS:
            s.pod_volumes_by_node[node.name] = PodVolumes()
            return None
        if same is NO_NODE_HAS_THE_PV:
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_PV_NOT_EXIST)
        try:
            pod_volumes, reasons = self.find_pod_volumes(pod, s.claims, node)
        except ValueError as err:
            return Status.as_status(err)
        if reasons:
            return Status(Code.UnschedulableAndUnresolvable, *reasons)
        s.pod_volumes_by_node[node.name] = pod_volumes
        s.has_static_bindings = s.has_static_bindings or bool(pod_volumes.static_bindings)
        return None

    # --- PreScore / Score ------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if self.scorer is None:
            return Status(SKIP)
        try:
            s = self._state(state)
        except StateNotFound as err:
            return Status.as_status(err)
        if s.has_static_bindings or self.capacity_scoring:
            return None
        return Status(SKIP)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if self.scorer is None:
            return 0, None
        try:
            s = self._state(state)
        except StateNotFound as err:
            return 0, Status.as_status(err)
        pod_volumes = s.pod_volumes_by_node.get(node_info.name)
        if pod_volumes is None:
            return 0, None
        classes: dict[str, list[int]] = {}
        if pod_volumes.static_bindings or not self.capacity_scoring:
            for pvc, pv in pod_volumes.static_bindings:
                entry = classes.setdefault(str(spec(pv).get("storageClassName") or ""), [0, 0])
                entry[0] += claim_request(pvc)
                entry[1] += volume_capacity(pv)
        else:
            for pvc, capacity in pod_volumes.dynamic_provisions:
                if capacity is None:
                    continue
                entry = classes.setdefault(claim_class(pvc), [0, 0])
                try:
                    entry[1] = int_value(capacity.get("capacity") or 0)
                except QuantityError:
                    entry[1] = 0
                entry[0] += claim_request(pvc)
        return self.scorer(classes), None

    def score_extensions(self) -> None:
        return None

    # --- Reserve / Unreserve / PreBind -----------------------------------------------------
    def _are_pod_volumes_bound(self, pod: Pod) -> bool:
        for vol in pod.volumes:
            try:
                bound, _ = self._is_volume_bound(pod, vol)
            except ValueError:
                return False
            if not bound:
                return False
        return True

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        try:
            s = self._state(state)
        except StateNotFound as err:
            return Status.as_status(err)
        pod_volumes = s.pod_volumes_by_node.get(node_name)
        if pod_volumes is None:
            s.all_bound = True
            return None
        if self._are_pod_volumes_bound(pod):
            s.all_bound = True
            return None
        for pvc, pv in pod_volumes.static_bindings:  # GetBindVolumeToClaim, then assume
            if spec(pv).get("claimRef") is None:
                new = copy.deepcopy(pv)
                new.setdefault("spec", {})["claimRef"] = {
                    "kind": "PersistentVolumeClaim",
                    "apiVersion": "v1",
                    "namespace": pvc.namespace,
                    "name": pvc.name,
                    "uid": pvc.meta.uid,
                }
                new.setdefault("metadata", {}).setdefault("annotations", {})["pv.kubernetes.io/bound-by-controller"] = "yes"
                self.assumed_pvs[metadata(pv)["name"]] = new
                self.pv_writes += 1
        for pvc, _ in pod_volumes.dynamic_provisions:
            raw = copy.deepcopy(pvc.raw)
            raw.setdefault("metadata", {}).setdefault("annotations", {})[ANN_SELECTED_NODE] = node_name
            self.assumed_pvcs[f"{pvc.namespace}/{pvc.name}"] = GenericObject.from_dict(raw, namespaced=True)
        s.all_bound = False
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        s = state.get(STATE_KEY)
        if s is None:
            return
        pod_volumes = s.pod_volumes_by_node.get(node_name)
        if pod_volumes is None:
            return
        for _, pv in pod_volumes.static_bindings:
            self.assumed_pvs.pop(metadata(pv)["name"], None)
            self.pv_writes += 1
        for pvc, _ in pod_volumes.dynamic_provisions:
            self.assumed_pvcs.pop(f"{pvc.namespace}/{pvc.name}", None)

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        try:
            s = self._state(state)
        except StateNotFound as err:
            return Status.as_status(err)
        if s.all_bound:
            return Status(SKIP)
        if node_name not in s.pod_volumes_by_node:
            return Status.error(f'no pod volumes found for node "{node_name}"')
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """BindPodVolumes' API updates (binder.go): each statically bound PV with its claimRef,
        each claim to provision with the selected-node annotation, written through the client.
        The wait for the PV controller and the provisioner is not simulated: the assumed
        bindings stand, so the bind succeeds."""
        try:
            s = self._state(state)
        except StateNotFound as err:
            return Status.as_status(err)
        if s.all_bound:
            return None
        pod_volumes = s.pod_volumes_by_node.get(node_name)
        if pod_volumes is None:
            return Status.error(f'no pod volumes found for node "{node_name}"')
        client = self.handle.client
        if client is None:
            return None
        for _, pv in pod_volumes.static_bindings:
            assumed = self.assumed_pvs.get(str(metadata(pv).get("name")))
            if assumed is not None:
                client.update(copy.deepcopy(assumed))
        for pvc, _ in pod_volumes.dynamic_provisions:
            assumed_pvc = self.assumed_pvcs.get(f"{pvc.namespace}/{pvc.name}")
            if assumed_pvc is not None:
                client.update(copy.deepcopy(assumed_pvc.raw))
        return None


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, with_features(VolumeBinding), VolumeBinding, args_type=VolumeBindingArgs)
