"""VolumeRestrictions' rejection: the pods on the node using the same disk or the same
ReadWriteOncePod claim (volumerestrictions/volume_restrictions.go)."""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    claims = {v.pvc_claim_name for v in pod.volumes if v.pvc_claim_name}
    sharing = sorted({p.pod.key for p in info.pods
                      if p.pod.namespace == pod.namespace
                      and claims & {v.pvc_claim_name for v in p.pod.volumes if v.pvc_claim_name}})
    if not sharing:
        return None
    return {"pods": sharing, "summary": f"claim(s) in use on the node by {', '.join(sharing)}"}
