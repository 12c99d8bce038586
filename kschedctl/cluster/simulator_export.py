"""kube-scheduler-simulator's export, read as a snapshot.

The simulator (kubernetes-sigs/kube-scheduler-simulator, simulator/export/export.go
``ResourcesForExport``) exports one JSON object of typed lists, without kind or apiVersion on the
items (Go's typed List items carry no TypeMeta): ``pods``, ``nodes``, ``pvs``, ``pvcs``,
``storageClasses``, ``priorityClasses``, ``namespaces`` and ``schedulerConfig`` (a
KubeSchedulerConfiguration). Its users have that file; kschedctl reads it as the List it stands
for, and its ``schedulerConfig`` through ``--config`` (kschedctl.config.unwrap).
"""

from __future__ import annotations

from typing import Any

# export key -> (apiVersion, kind) of its items
EXPORT_KINDS = {
    "namespaces": ("v1", "Namespace"),
    "priorityClasses": ("scheduling.k8s.io/v1", "PriorityClass"),
    "storageClasses": ("storage.k8s.io/v1", "StorageClass"),
    "pvs": ("v1", "PersistentVolume"),
    "pvcs": ("v1", "PersistentVolumeClaim"),
    "nodes": ("v1", "Node"),
    "pods": ("v1", "Pod"),
}
CONFIG_KEY = "schedulerConfig"


def is_simulator_export(doc: Any) -> bool:
    """An object with no kind whose keys are the export's, one of them a list."""
    if not isinstance(doc, dict) or "kind" in doc or not doc:
        return False
    keys = set(doc)
    return keys <= set(EXPORT_KINDS) | {CONFIG_KEY} and any(isinstance(doc.get(k), list) for k in EXPORT_KINDS)


def as_list_document(doc: Any) -> Any:
    """The export as the List it stands for (items typed by their key, in the export's order of
    kinds); any other document unchanged."""
    if not is_simulator_export(doc):
        return doc
    items: list[Any] = []
    for key, (api_version, kind) in EXPORT_KINDS.items():
        for item in doc.get(key) or []:
            if isinstance(item, dict):
                item = {
                    "apiVersion": item.get("apiVersion") or api_version,
                    "kind": item.get("kind") or kind,
                    **{k: v for k, v in item.items() if k not in ("apiVersion", "kind")},
                }
            items.append(item)
    return {"apiVersion": "v1", "kind": "List", "items": items}
