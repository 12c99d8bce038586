"""--write-snapshot: the input snapshot in the state the run left the cluster in.

Runs can then be chained: the output of one run is a valid snapshot for the next. What changes
(placed pods bound with their PodScheduled condition, unschedulable pods' conditions and
nominations, claims and volumes VolumeBinding bound, victims gone) is kschedctl/cluster/after_run.py's
to say; this module writes the objects out.
"""

from __future__ import annotations

from typing import Any

import yaml

from kschedctl.cluster.after_run import changes, created
from kschedctl.cluster.loader import ClusterSnapshot
from kschedctl.scheduler.result import RunResult


def write_snapshot_file(cluster: ClusterSnapshot, result: RunResult, path: str) -> None:
    changed = changes(cluster, result)
    items: list[dict[str, Any]] = []
    for raw in [node.raw for node in cluster.nodes] + [pod.raw for pod in cluster.pods]:
        _keep(items, raw, changed)
    for kind_objects in _other_objects(cluster):
        for raw in kind_objects:
            _keep(items, raw, changed)
    items.extend(created(cluster, result))
    with open(path, "w", encoding="utf-8") as fh:
        yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, fh, sort_keys=False)


def _keep(items: list[dict[str, Any]], raw: dict[str, Any], changed: dict[int, Any]) -> None:
    new = changed.get(id(raw), raw)
    if new is not None:
        items.append(new)


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
        [x.raw for objs in o.other.values() for x in objs],
        # DRA (claims as the run left them: after_run)
        [x.raw for x in o.device_classes.values()],
        [x.raw for x in o.resource_slices.values()],
        [x.raw for x in o.resource_claim_templates.values()],
        [x.raw for x in o.resource_claims.values()],
    ]
