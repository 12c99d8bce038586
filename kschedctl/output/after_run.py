"""The cluster after a run, as a real cluster would hold it: what --write-snapshot writes.

A pod the run placed is bound: ``spec.nodeName`` set, the ``PodScheduled=True`` condition the API
server's binding adds, no ``status.nominatedNodeName``. A pod left unschedulable carries the
``PodScheduled=False`` condition kube-scheduler writes (reason ``Unschedulable``, or
``SchedulerError`` after an error, and its message) and the nomination it was left with (none:
cleared). Preemption victims are gone. The objects plugins wrote through the client at PreBind
replace theirs: a PV VolumeBinding bound statically gets its ``claimRef`` (and ``Bound``), and
its claim what the PV controller then writes (``volumeName``, the bind-completed annotations,
``Bound``): kube-scheduler binds the pod only once that is done. A claim to provision carries
the ``volume.kubernetes.io/selected-node`` annotation, as the external provisioner finds it.
DRA objects are as the run left them: a claim DynamicResources allocated carries
``status.allocation``, ``reservedFor`` and the delete-protection finalizer; claims the
resourceclaim controller created from templates are added (``created``), and a victim's
generated claims are gone.

``changes`` maps each changed input object (by identity) to its new version, or None when it is
gone; the writer keeps every other object as it was.
"""

from __future__ import annotations

import copy
import time
from typing import Any

from kschedctl.cluster.loader import ClusterSnapshot
from kschedctl.scheduler.result import RunResult

POD_SCHEDULED = "PodScheduled"
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"

Changes = dict[int, "dict[str, Any] | None"]  # id(input object) -> its new version, None: removed


def rfc3339(t: float) -> str:
    """metav1.Time as the API server writes it: UTC, whole seconds."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(t)))


def changes(cluster: ClusterSnapshot, result: RunResult) -> Changes:
    out: Changes = {}
    _pods(cluster, result, out)
    _volumes(cluster, result, out)
    _dra(cluster, result, out)
    return out


def created(cluster: ClusterSnapshot, result: RunResult) -> list[dict[str, Any]]:
    """Objects the run made that the input lacks: claims created from templates (and the DRA
    objects a scenario added)."""
    before = cluster.objects.dra_objects()
    return [raw for kind, table in result.dra_objects.items() for key, raw in table.items() if key not in before.get(kind, {})]


def _dra(cluster: ClusterSnapshot, result: RunResult, out: Changes) -> None:
    if not result.dra_objects:
        return
    for kind, table in cluster.objects.dra_objects().items():
        after = result.dra_objects.get(kind, {})
        for key, raw in table.items():
            new = after.get(key)
            if new is not raw:
                out[id(raw)] = new


# --- pods ----------------------------------------------------------------------------------------


def _pods(cluster: ClusterSnapshot, result: RunResult, out: Changes) -> None:
    placed = {p.pod: p for p in result.placements if not p.preempted_by}
    victims = {v for pre in result.preemptions for v in pre.victims}
    unschedulable = {u.pod: u for u in result.unschedulable}
    for pod in cluster.pods:
        raw = pod.raw
        if pod.key in victims:
            out[id(raw)] = None
        elif pod.key in placed:
            p = placed[pod.key]
            new = _with(raw, "spec", nodeName=p.node)
            new["status"] = {k: v for k, v in (raw.get("status") or {}).items() if k != "nominatedNodeName"}
            _set_condition(new, {"type": POD_SCHEDULED, "status": "True", "lastProbeTime": None, "lastTransitionTime": rfc3339(p.time)})
            out[id(raw)] = new
        elif pod.key in unschedulable:
            u = unschedulable[pod.key]
            new = copy.copy(raw)
            status = {k: v for k, v in (raw.get("status") or {}).items() if k != "nominatedNodeName"}
            if u.nominated_node:
                status["nominatedNodeName"] = u.nominated_node
            new["status"] = status
            _set_condition(
                new,
                {
                    "type": POD_SCHEDULED,
                    "status": "False",
                    "lastProbeTime": None,
                    "lastTransitionTime": rfc3339(u.time or result.start_time),
                    "reason": "SchedulerError" if u.error else "Unschedulable",
                    "message": u.message,
                },
            )
            out[id(raw)] = new


def _with(raw: dict[str, Any], section: str, **values: Any) -> dict[str, Any]:
    """A shallow copy of ``raw`` with ``raw[section]`` updated (the input is never modified)."""
    new = dict(raw)
    new[section] = {**(raw.get(section) or {}), **values}
    return new


def _set_condition(raw: dict[str, Any], condition: dict[str, Any]) -> None:
    """podutil.UpdatePodCondition: replace the condition of that type (its transition time kept
    when its status does not change), or add it."""
    status = raw.setdefault("status", {})
    conditions = [dict(c) for c in status.get("conditions") or [] if isinstance(c, dict)]
    for i, c in enumerate(conditions):
        if c.get("type") == condition["type"]:
            if c.get("status") == condition["status"] and c.get("lastTransitionTime"):
                condition["lastTransitionTime"] = c["lastTransitionTime"]
            conditions[i] = condition
            break
    else:
        conditions.append(condition)
    status["conditions"] = conditions


# --- volumes -------------------------------------------------------------------------------------


def _volumes(cluster: ClusterSnapshot, result: RunResult, out: Changes) -> None:
    objects = cluster.objects
    for written in result.written:
        kind = written.get("kind")
        md = written.get("metadata") or {}
        if kind == "PersistentVolume":
            pv = objects.persistent_volumes.get(str(md.get("name")))
            if pv is None:
                continue
            bound_pv = copy.deepcopy(written)
            bound_pv.setdefault("status", {})["phase"] = "Bound"
            out[id(pv.raw)] = bound_pv
            _bind_claim(cluster, bound_pv, out)
        elif kind == "PersistentVolumeClaim":
            pvc = objects.persistent_volume_claims.get(f"{md.get('namespace') or 'default'}/{md.get('name')}")
            if pvc is not None:
                out[id(pvc.raw)] = copy.deepcopy(written)


def _bind_claim(cluster: ClusterSnapshot, pv: dict[str, Any], out: Changes) -> None:
    """The PV controller's half of a static binding (syncUnboundClaim -> bind): the claim gets
    the volume's name, the bind-completed and bound-by-controller annotations and phase Bound."""
    ref = (pv.get("spec") or {}).get("claimRef") or {}
    pvc = cluster.objects.persistent_volume_claims.get(f"{ref.get('namespace') or 'default'}/{ref.get('name')}")
    if pvc is None:
        return
    raw = copy.deepcopy(out.get(id(pvc.raw)) or pvc.raw)
    raw.setdefault("spec", {})["volumeName"] = (pv.get("metadata") or {}).get("name")
    annotations = raw.setdefault("metadata", {}).setdefault("annotations", {})
    annotations[ANN_BIND_COMPLETED] = "yes"
    annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
    pv_spec = pv.get("spec") or {}
    raw["status"] = {
        **(raw.get("status") or {}),
        "phase": "Bound",
        "accessModes": list(pv_spec.get("accessModes") or []),
        "capacity": dict(pv_spec.get("capacity") or {}),
    }
    out[id(pvc.raw)] = raw


__all__ = ["changes", "created", "rfc3339"]
