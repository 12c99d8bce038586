"""--write-snapshot: the input snapshot with each placed pod's spec.nodeName set.

Runs can then be chained: the output of one run is a valid snapshot for the next. Pods
evicted by preemption are left out, since they no longer exist in the simulated cluster.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

from kschedctl.cluster.loader import ClusterSnapshot
from kschedctl.scheduler.result import RunResult


def write_snapshot_file(cluster: ClusterSnapshot, result: RunResult, path: str) -> None:
    placed = {p.pod: p.node for p in result.placements if not p.preempted_by}
    victims = {v for pre in result.preemptions for v in pre.victims}
    nominated = {u.pod: u.nominated_node for u in result.unschedulable if u.nominated_node}
    items: list[dict[str, Any]] = []
    for node in cluster.nodes:
        items.append(node.raw)
    for pod in cluster.pods:
        if pod.key in victims:
            continue
        raw = pod.raw
        if pod.key in placed:
            raw = copy.deepcopy(raw)
            raw.setdefault("spec", {})["nodeName"] = placed[pod.key]
            raw.setdefault("status", {}).pop("nominatedNodeName", None)
        elif pod.key in nominated:
            raw = copy.deepcopy(raw)
            raw.setdefault("status", {})["nominatedNodeName"] = nominated[pod.key]
        items.append(raw)
    for kind_objects in _other_objects(cluster):
        items.extend(kind_objects)
    with open(path, "w", encoding="utf-8") as fh:
        yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, fh, sort_keys=False)


def _other_objects(cluster: ClusterSnapshot) -> list[list[dict]]:
    o = cluster.objects
    return [
        [ns.raw for ns in o.namespaces.values()],
        [pc.raw for pc in o.priority_classes.values()],
        [pdb.raw for pdb in o.pdbs],
        [x.raw for x in o.persistent_volumes.values()],
        [x.raw for x in o.persistent_volume_claims.values()],
        [x.raw for x in o.storage_classes.values()],
        [x.raw for x in o.csi_nodes.values()],
        [x.raw for x in o.csi_drivers.values()],
        [x.raw for x in o.services + o.replication_controllers + o.replica_sets + o.stateful_sets],
        [x.raw for x in o.pod_groups.values()],
    ]
