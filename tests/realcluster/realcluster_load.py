"""Loading a kschedctl snapshot into a real, empty kube-apiserver, as the objects would be in a cluster.

No controller-manager runs, so what controllers would do is done here, in the order a cluster has it:
namespaces and their ``default`` ServiceAccount first, cluster-scoped policy and storage objects,
nodes (created, then their status written through the status subresource, and any taint an
admission plugin added removed), DRA objects where the release serves them, owners, and pods last
(a bound pod is created with spec.nodeName set; its status is written as the snapshot has it).
Every request is bounded, and the whole load has a deadline.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from .realcluster_env import ApiError, Cluster, EnvError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SCHEDULER_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - {name: cpu, weight: 1}
        - {name: memory, weight: 1}
"""

LOAD_DEADLINE = 120.0
# the order objects go in: what others refer to first
ORDER = (
    "Namespace",
    "ServiceAccount",
    "PriorityClass",
    "StorageClass",
    "CSIDriver",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Node",
    "CSINode",
    "CSIStorageCapacity",
    "DeviceClass",
    "ResourceSlice",
    "ResourceClaimTemplate",
    "ResourceClaim",
    "ConfigMap",
    "Service",
    "ReplicationController",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "PodDisruptionBudget",
)
WITH_STATUS = {"Node", "Pod", "PersistentVolume", "PersistentVolumeClaim", "ResourceClaim", "PodDisruptionBudget"}
SERVER_OWNED = ("resourceVersion", "uid", "creationTimestamp", "managedFields", "selfLink", "generation", "deletionTimestamp")


def snapshot_items(path: Path) -> list[dict[str, Any]]:
    """A snapshot file's objects (a List, or several documents)."""
    items: list[dict[str, Any]] = []
    for doc in yaml.safe_load_all(path.read_text()):
        if not doc:
            continue
        items.extend(doc.get("items", []) if doc.get("kind", "").endswith("List") else [doc])
    return items


class Loader:
    """Creates objects through the API, finding each kind's resource by discovery."""

    def __init__(self, cluster: Cluster, deadline: float = LOAD_DEADLINE) -> None:
        self.cluster = cluster
        self.end = time.monotonic() + deadline
        self._resources: dict[str, dict[str, tuple[str, bool]] | None] = {}
        self.skipped: list[str] = []  # "Kind group/version: why" for what the release does not serve

    def resource(self, api_version: str, kind: str) -> tuple[str, bool] | None:
        """(plural, namespaced) of a kind, None when its group/version is not served."""
        if api_version not in self._resources:
            path = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
            try:
                doc = self.cluster.request("GET", path)
            except ApiError as err:
                if err.code != 404:
                    raise
                self._resources[api_version] = None
            else:
                self._resources[api_version] = {
                    r["kind"]: (r["name"], bool(r["namespaced"])) for r in doc.get("resources", []) if "/" not in r["name"]
                }
        kinds = self._resources[api_version]
        return None if kinds is None else kinds.get(kind)

    def path(self, obj: dict[str, Any], plural: str, namespaced: bool) -> str:
        av = obj["apiVersion"]
        base = f"/apis/{av}" if "/" in av else f"/api/{av}"
        if namespaced:
            base += f"/namespaces/{obj['metadata'].get('namespace') or 'default'}"
        return f"{base}/{plural}"

    def create(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Create one object (and set its status); None when its kind is not served."""
        if time.monotonic() > self.end:
            raise EnvError(f"loading the snapshot took more than {LOAD_DEADLINE:.0f}s")
        kind, av = obj["kind"], obj["apiVersion"]
        found = self.resource(av, kind)
        if found is None:
            self.skipped.append(f"{kind} {av}: not served")
            return None
        plural, namespaced = found
        body = copy.deepcopy(obj)
        md = body.setdefault("metadata", {})
        for key in SERVER_OWNED:
            md.pop(key, None)
        if namespaced:
            md.setdefault("namespace", "default")
        status = body.pop("status", None)
        collection = self.path(body, plural, namespaced)
        try:
            created = self.cluster.request("POST", collection, body)
        except ApiError as err:
            if err.code == 409 and kind in ("Namespace", "ServiceAccount"):
                return None  # default, kube-system... exist already
            raise
        item = f"{collection}/{md['name']}"
        if kind == "Node" and (created.get("spec", {}).get("taints") or []) != (obj.get("spec", {}).get("taints") or []):
            created["spec"]["taints"] = obj.get("spec", {}).get("taints") or []
            created = self.cluster.request("PUT", item, created)
        if status and kind in WITH_STATUS and status != {"phase": "Pending"}:  # a new pod is Pending already
            # over what the server set (a gated pod's PodScheduled=False condition stays)
            created["status"] = {**(created.get("status") or {}), **status}
            created = self.cluster.request("PUT", f"{item}/status", created)
        return dict(created)


def load_snapshot(
    cluster: Cluster, items: list[dict[str, Any]], before_pending: Callable[[], object] | None = None, *, one_second_apart: bool = True
) -> Loader:
    """Load a snapshot's objects into an empty cluster; returns the loader (what it skipped).
    before_pending runs once everything but the pending pods is in (to start a scheduler that then
    sees them arrive one by one, in order). Without one_second_apart the pending pods go in at
    once, in the snapshot's order (for a scheduler started after them, which lists them by name)."""
    loader = Loader(cluster)
    namespaces = {o["metadata"].get("namespace") or "default" for o in items if o.get("kind") not in _CLUSTER_SCOPED}
    declared = {o["metadata"]["name"] for o in items if o.get("kind") == "Namespace"}
    implied = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}}}
        for ns in sorted(namespaces - declared)
    ]
    accounts = [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default", "namespace": ns}}
        for ns in sorted(namespaces | declared)
    ]
    rank = {kind: i for i, kind in enumerate(ORDER)}
    ordered = sorted(implied + accounts + list(items), key=lambda o: rank.get(o.get("kind", ""), len(ORDER) + (o.get("kind") == "Pod")))
    pending = [o for o in ordered if _is_pending_pod(o)]
    rest = [o for o in ordered if not _is_pending_pod(o)]
    created = [(obj, loader.create(obj)) for obj in rest]
    if before_pending is not None:
        before_pending()
    # the queue orders pods of one priority by creation time, which the server sets (to the
    # second): pending pods go in one second apart, in the snapshot's order of creation
    for obj in sorted(pending, key=lambda o: str(o.get("metadata", {}).get("creationTimestamp") or "")):
        if one_second_apart:
            _next_second()
        created.append((obj, loader.create(obj)))
    _repoint_pod_uids(loader, [c for _, c in created if c is not None])
    return loader


def _is_pending_pod(obj: dict[str, Any]) -> bool:
    return obj.get("kind") == "Pod" and not obj.get("spec", {}).get("nodeName")


def _next_second() -> None:
    """Wait until the wall clock is in the next whole second (creationTimestamp's resolution)."""
    now = time.time()
    time.sleep(math.floor(now) + 1.02 - now)


def _repoint_pod_uids(loader: Loader, created: list[dict[str, Any]]) -> None:
    """A claim reserved for, or owned by, a pod names the pod's uid; the server gave the pod a new
    one, so the claim is updated to name it (as the claim would in the cluster the snapshot is of)."""
    uids = {(o["metadata"]["namespace"], o["metadata"]["name"]): o["metadata"]["uid"] for o in created if o.get("kind") == "Pod"}
    for claim in (o for o in created if o.get("kind") == "ResourceClaim"):
        md = claim["metadata"]
        path = f"/apis/{claim['apiVersion']}/namespaces/{md['namespace']}/resourceclaims/{md['name']}"
        owners = [r for r in md.get("ownerReferences") or [] if r.get("kind") == "Pod" and (md["namespace"], r.get("name")) in uids]
        if owners:
            for ref in owners:
                ref["uid"] = uids[(md["namespace"], ref["name"])]
            claim = loader.cluster.request("PUT", path, claim)
        reserved = [r for r in claim.get("status", {}).get("reservedFor") or [] if r.get("resource") == "pods"]
        if any((claim["metadata"]["namespace"], r.get("name")) in uids for r in reserved):
            for ref in reserved:
                ref["uid"] = uids.get((claim["metadata"]["namespace"], ref.get("name")), ref.get("uid"))
            loader.cluster.request("PUT", f"{path}/status", claim)


_CLUSTER_SCOPED = {
    "Namespace",
    "Node",
    "PriorityClass",
    "StorageClass",
    "CSIDriver",
    "CSINode",
    "PersistentVolume",
    "DeviceClass",
    "ResourceSlice",
    "VolumeAttachment",
}
