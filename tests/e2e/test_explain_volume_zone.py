"""`kschedctl explain -o json` with VolumeZone: the bound PV lives in zone a
(upstream volume_zone_test.go "zone label mismatched")."""

from __future__ import annotations

from pathlib import Path

from volume_e2e import explain

ITEMS = """\
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-a, labels: {topology.kubernetes.io/zone: a}}
  spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], csi: {driver: pd.example.com, volumeHandle: d1}}
  status: {phase: Bound}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data, namespace: default, annotations: {pv.kubernetes.io/bind-completed: "yes"}}
  spec: {volumeName: pv-a, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
  status: {phase: Bound}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec: {containers: [{name: c, image: x}], volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]}
"""


def test_explain_volume_zone(tmp_path: Path) -> None:
    out = explain(tmp_path, ITEMS)
    assert out["nodes"]["n1"]["filter"] == {"code": "Success"}
    assert out["nodes"]["n2"]["filter"] == {
        "code": "UnschedulableAndUnresolvable",
        "plugin": "VolumeZone",
        "reasons": ["node(s) had no available volume zone"],
    }
    assert out["node"] == "n1"
    # the facts behind kube's reason (kschedctl/plugins/volume_zone/details.py)
    assert out["nodes"]["n2"]["details"]["VolumeZone"] == {
        "volumes": [{"volume": "pv-a", "label": "topology.kubernetes.io/zone", "volumeValues": ["a"], "nodeValue": "b"}],
        "summary": "PersistentVolume pv-a is in topology.kubernetes.io/zone=a, the node is in b",
    }
