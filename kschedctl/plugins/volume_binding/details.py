"""VolumeBinding's rejection: the pod's PersistentVolumeClaims, each with its phase, storage
class and the volume it is bound to (volumebinding/volume_binding.go says only which check
failed; the claims are where to look)."""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo
from kschedctl.plugins.volume_util import claim_class, spec


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    claims = []
    pvcs = plugin.handle.objects.persistent_volume_claims
    for vol in pod.volumes:
        if not vol.pvc_claim_name:
            continue
        pvc = pvcs.get(f"{pod.namespace}/{vol.pvc_claim_name}")
        if pvc is None:
            claims.append({"claim": vol.pvc_claim_name, "storageClass": None, "volume": None, "phase": "missing"})
            continue
        claims.append(
            {
                "claim": vol.pvc_claim_name,
                "storageClass": claim_class(pvc) or None,
                "volume": spec(pvc).get("volumeName") or None,
                "phase": (pvc.raw.get("status") or {}).get("phase"),
            }
        )
    if not claims:
        return None
    return {
        "claims": claims,
        "summary": "claims "
        + ", ".join(
            f"{c['claim']} ({'bound to ' + c['volume'] if c['volume'] else 'unbound'}"
            f"{', class ' + c['storageClass'] if c['storageClass'] else ''})"
            for c in claims
        ),
    }
