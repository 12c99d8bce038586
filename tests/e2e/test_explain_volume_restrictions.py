"""`kschedctl explain -o json` with VolumeRestrictions: the same GCE PD is mounted read-write
by a pod on n1 (upstream volume_restrictions_test.go TestGCEDiskConflicts "same state")."""

from __future__ import annotations

from pathlib import Path

from volume_e2e import explain

ITEMS = """\
- apiVersion: v1
  kind: Pod
  metadata: {name: existing, namespace: default}
  spec: {nodeName: n1, containers: [{name: c, image: x}], volumes: [{name: d, gcePersistentDisk: {pdName: disk-1}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec: {containers: [{name: c, image: x}], volumes: [{name: d, gcePersistentDisk: {pdName: disk-1}}]}
"""


def test_explain_volume_restrictions(tmp_path: Path) -> None:
    out = explain(tmp_path, ITEMS)
    assert out["nodes"]["n1"]["filter"] == {
        "code": "Unschedulable",
        "plugin": "VolumeRestrictions",
        "reasons": ["node(s) had no available disk"],
    }
    assert out["nodes"]["n2"]["filter"] == {"code": "Success"}
    assert out["node"] == "n2"
