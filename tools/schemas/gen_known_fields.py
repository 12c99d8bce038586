"""Writes kschedctl/api/known-fields.json: the field names of every kind kschedctl reads, as
the API server's OpenAPI schema has them, taken from the generated models of the official Python
client (`pip install kubernetes`; each model's attribute_map and openapi_types).

Run it when the emulated releases move on:

    python tools/schemas/gen_known_fields.py

The loader warns, as kubectl does ('unknown field "spec.foo"'), about a field the API server would
drop, so that a miscased ``NodeAffinityPolicy`` is not silently not applied.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import kubernetes
import kubernetes.client.models as models

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "kschedctl" / "api" / "known-fields.json"

# kind -> (apiVersion checked, client model)
KINDS = {
    "Pod": ("v1", "V1Pod"),
    "Node": ("v1", "V1Node"),
    "Namespace": ("v1", "V1Namespace"),
    "Service": ("v1", "V1Service"),
    "ReplicationController": ("v1", "V1ReplicationController"),
    "PersistentVolume": ("v1", "V1PersistentVolume"),
    "PersistentVolumeClaim": ("v1", "V1PersistentVolumeClaim"),
    "PriorityClass": ("scheduling.k8s.io/v1", "V1PriorityClass"),
    "PodDisruptionBudget": ("policy/v1", "V1PodDisruptionBudget"),
    "StorageClass": ("storage.k8s.io/v1", "V1StorageClass"),
    "CSINode": ("storage.k8s.io/v1", "V1CSINode"),
    "CSIDriver": ("storage.k8s.io/v1", "V1CSIDriver"),
    "CSIStorageCapacity": ("storage.k8s.io/v1", "V1CSIStorageCapacity"),
    "VolumeAttachment": ("storage.k8s.io/v1", "V1VolumeAttachment"),
    "ReplicaSet": ("apps/v1", "V1ReplicaSet"),
    "StatefulSet": ("apps/v1", "V1StatefulSet"),
    "DaemonSet": ("apps/v1", "V1DaemonSet"),
    "Deployment": ("apps/v1", "V1Deployment"),
    "DeviceClass": ("resource.k8s.io/v1", "V1DeviceClass"),
    "ResourceSlice": ("resource.k8s.io/v1", "V1ResourceSlice"),
    "ResourceClaim": ("resource.k8s.io/v1", "ResourceV1ResourceClaim"),
    "ResourceClaimTemplate": ("resource.k8s.io/v1", "V1ResourceClaimTemplate"),
}
# fields of releases the client no longer has (1.35's Workload reference, alpha, gone in 1.36)
EXTRA = {"V1PodSpec": {"workloadRef": None}}

_LIST = re.compile(r"^List\[(.+)\]$")
_DICT = re.compile(r"^Dict\[str, (.+)\]$")


def _child(type_name: str, todo: list[str]) -> object:
    """None for a leaf; a model name; or ["map", model] for a map of models."""
    m = _LIST.match(type_name)
    if m:
        type_name = m.group(1)
    d = _DICT.match(type_name)
    if d:
        inner = d.group(1)
        if hasattr(models, inner):
            todo.append(inner)
            return ["map", inner]
        return None
    if hasattr(models, type_name):
        todo.append(type_name)
        return type_name
    return None


def main() -> int:
    types: dict[str, dict[str, object]] = {}
    todo = [model for _, model in KINDS.values()]
    while todo:
        name = todo.pop()
        if name in types:
            continue
        model = getattr(models, name)
        fields: dict[str, object] = {}
        for attr, json_name in model.attribute_map.items():
            fields[json_name] = _child(model.openapi_types[attr], todo)
        fields.update(EXTRA.get(name, {}))
        types[name] = fields
    doc = {
        "source": f"kubernetes Python client {kubernetes.__version__} (generated models)",
        "kinds": {k: {"apiVersion": v, "type": t} for k, (v, t) in sorted(KINDS.items())},
        "types": {k: types[k] for k in sorted(types)},
    }
    OUT.write_text(json.dumps(doc, separators=(",", ":"), sort_keys=False) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {len(types)} types, {OUT.stat().st_size} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
