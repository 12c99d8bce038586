"""NodePorts' rejection: each host port the pod wants that is taken on the node, and the pods
there holding it (nodeports/node_ports.go fitsPorts)."""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import HostPortInfo, NodeInfo, host_ports_of


def filter_details(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    conflicts: list[dict[str, Any]] = []
    for ip, protocol, port in host_ports_of(pod):
        if not info.used_ports.check_conflict(ip, protocol, port):
            continue
        mine = HostPortInfo()
        mine.add(ip, protocol, port)
        holders = []
        for existing in info.pods:
            theirs = HostPortInfo()
            for eip, eproto, eport in host_ports_of(existing.pod):
                theirs.add(eip, eproto, eport)
            if any(theirs.check_conflict(i, p, n) for i, entries in mine.ports.items() for p, n in entries):
                holders.append(existing.pod.key)
        conflicts.append({"port": port, "protocol": protocol or "TCP", "hostIP": ip or "0.0.0.0", "heldBy": holders})
    if not conflicts:
        return None
    text = ", ".join(f"{c['protocol']}/{c['port']}" + (f" held by {', '.join(c['heldBy'])}" if c["heldBy"] else "") for c in conflicts)
    return {"ports": conflicts, "summary": f"host port {text}"}
