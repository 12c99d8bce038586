"""`kschedctl explain -o json` with VolumeBinding: a WaitForFirstConsumer claim can only bind
to the local PV of n1 (upstream volume_binding_test.go "unbound claims no matches" reason on n2)."""

from __future__ import annotations

from pathlib import Path

from volume_e2e import explain

ITEMS = """\
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: local}, provisioner: kubernetes.io/no-provisioner,
   volumeBindingMode: WaitForFirstConsumer}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-n1}
  spec:
    storageClassName: local
    capacity: {storage: 10Gi}
    accessModes: [ReadWriteOnce]
    nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1]}]}]}}
  status: {phase: Available}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data, namespace: default}
  spec: {storageClassName: local, accessModes: [ReadWriteOnce], resources: {requests: {storage: 5Gi}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec: {containers: [{name: c, image: x}], volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]}
"""


def test_explain_volume_binding(tmp_path: Path) -> None:
    out = explain(tmp_path, ITEMS)
    assert out["nodes"]["n2"]["filter"] == {
        "code": "UnschedulableAndUnresolvable",
        "plugin": "VolumeBinding",
        "reasons": ["node(s) didn't find available persistent volumes to bind"],
    }
    assert out["nodes"]["n1"]["filter"] == {"code": "Success"}
    assert out["node"] == "n1"
    # the claims behind kube's reason (kschedctl/plugins/volume_binding/details.py)
    assert out["nodes"]["n2"]["details"]["VolumeBinding"]["claims"] == [
        {"claim": "data", "storageClass": "local", "volume": None, "phase": None}
    ]


def test_explain_missing_claim(tmp_path: Path) -> None:
    items = ITEMS.replace("claimName: data", "claimName: nope")
    out = explain(tmp_path, items)
    assert out["node"] is None
    assert 'persistentvolumeclaim "nope" not found' in out["message"]
