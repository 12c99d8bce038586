"""VolumeRestrictions' rejection (volumerestrictions/volume_restrictions.go): a ReadWriteOncePod
claim already used by a pod somewhere in the cluster, or the same disk mounted on the node.

The ReadWriteOncePod lock is cluster-wide: PreFilter counts every scheduled pod using one of the
pod's RWOP claims, and while that count is above zero every node rejects the pod. So the fact
names the holder and its node on every node, and says that no node can help until the holder
goes (only preemption of the holder, where it is allowed, frees it).
"""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState, StateNotFound
from kschedctl.framework.types import NodeInfo


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    rwop = _read_write_once_pod(plugin, state, pod)
    if rwop is not None:
        return rwop
    from kschedctl.plugins.volume_restrictions.plugin import is_volume_conflict, needs_restrictions_check

    sharing = sorted(
        {p.pod.key for p in info.pods if any(needs_restrictions_check(v) and is_volume_conflict(v, p.pod) for v in pod.volumes)}
    )
    if not sharing:
        return None
    return {"pods": sharing, "summary": f"the same disk is mounted read-write on the node by {', '.join(sharing)}"}


def _read_write_once_pod(plugin: Any, state: CycleState, pod: Pod) -> dict[str, Any] | None:
    from kschedctl.plugins.volume_restrictions.plugin import PRE_FILTER_STATE_KEY

    try:
        s = state.read(PRE_FILTER_STATE_KEY)
    except StateNotFound:
        return None
    if not s.conflicting_ref_count or not s.rwop_pvcs:
        return None
    holders = []
    for node_info in plugin.handle.snapshot_shared_lister().list():
        for p in node_info.pods:
            if p.pod.namespace == pod.namespace and p.pod.uid != pod.uid and any(v.pvc_claim_name in s.rwop_pvcs for v in p.pod.volumes):
                holders.append({"pod": p.pod.key, "node": node_info.name})
    claims = sorted(f"{pod.namespace}/{c}" for c in s.rwop_pvcs)
    held_by = ", ".join(f"{h['pod']} on {h['node']}" for h in holders) or "a pod of the cluster"
    summary = (
        f"ReadWriteOncePod claim {', '.join(claims)} is in use by {held_by}: the lock is cluster-wide, "
        "so no node can take this pod until that pod is gone"
    )
    return {
        "claims": claims,
        "holders": holders,
        "summary": summary,
        "verdictNote": f"The ReadWriteOncePod claim {', '.join(claims)} is held by {held_by}: no node can "
        "help until it is gone; more capacity would not.",
    }
