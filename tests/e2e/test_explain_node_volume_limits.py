"""`kschedctl explain -o json` with NodeVolumeLimits: n1's CSINode allows one volume of the
driver and already has one attached (upstream csi_test.go "doesn't when node volume limit <= pods CSI volume")."""

from __future__ import annotations

from pathlib import Path

from volume_e2e import explain

ITEMS = """\
- {apiVersion: storage.k8s.io/v1, kind: CSINode, metadata: {name: n1},
   spec: {drivers: [{name: ebs.csi.aws.com, nodeID: n1, allocatable: {count: 1}}]}}
- {apiVersion: storage.k8s.io/v1, kind: CSINode, metadata: {name: n2},
   spec: {drivers: [{name: ebs.csi.aws.com, nodeID: n2, allocatable: {count: 1}}]}}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-1}
  spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-2}
  spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], csi: {driver: ebs.csi.aws.com, volumeHandle: vol-2}}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: old, namespace: default, annotations: {pv.kubernetes.io/bind-completed: "yes"}}
  spec: {volumeName: pv-1}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: new, namespace: default, annotations: {pv.kubernetes.io/bind-completed: "yes"}}
  spec: {volumeName: pv-2}
- apiVersion: v1
  kind: Pod
  metadata: {name: existing, namespace: default}
  spec: {nodeName: n1, containers: [{name: c, image: x}], volumes: [{name: d, persistentVolumeClaim: {claimName: old}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec: {containers: [{name: c, image: x}], volumes: [{name: d, persistentVolumeClaim: {claimName: new}}]}
"""


def test_explain_node_volume_limits(tmp_path: Path) -> None:
    out = explain(tmp_path, ITEMS)
    assert out["nodes"]["n1"]["filter"] == {
        "code": "Unschedulable",
        "plugin": "NodeVolumeLimits",
        "reasons": ["node(s) exceed max volume count"],
    }
    assert out["nodes"]["n2"]["filter"] == {"code": "Success"}
    assert out["node"] == "n2"
    # the facts behind kube's reason (kschedctl/plugins/node_volume_limits/details.py)
    assert out["nodes"]["n1"]["details"]["NodeVolumeLimits"] == {
        "limits": [{"limit": "attachable-volumes-csi-ebs.csi.aws.com", "max": 1, "attached": 1, "new": 1}],
        "summary": "attachable-volumes-csi-ebs.csi.aws.com: 1 attached + 1 new > limit 1",
    }
