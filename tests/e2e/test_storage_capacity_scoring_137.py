"""StorageCapacityScoring (KEP-4049) is beta and on by default in 1.37.

Read in staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go of the 1.37 development
tree (commits ead35706ec68f83822a56d53b1577fa8a185ca14 and
080d02a09a472ab8954ee6e99b6ff308bde601eb): ``StorageCapacityScoring`` has
{1.33, false, Alpha} then {1.37, true, Beta}. With the gate on, SetDefaults_VolumeBindingArgs
gives VolumeBinding the shape {0: 10, 100: 0} and VolumeBinding scores a pod's dynamically
provisioned claims by requested / CSIStorageCapacity per class (scorer.go at de741dc854, unchanged
since the alpha). So from 1.37 a pod whose claim is provisioned lands, other scores equal, on the
node with the most free capacity; 1.35 and 1.36 skip VolumeBinding's Score. Established by
reading the source; no 1.37 kube-scheduler binary was run.
"""

from __future__ import annotations

import pytest


def _node(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }


def _csinode(name: str) -> dict:
    spec = {"drivers": [{"name": "csi.example.com", "nodeID": name, "topologyKeys": ["kubernetes.io/hostname"]}]}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name}, "spec": spec}


def _capacity(node: str, size: str) -> dict:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSIStorageCapacity",
        "metadata": {"name": f"cap-{node}", "namespace": "default"},
        "storageClassName": "local",
        "capacity": size,
        "nodeTopology": {"matchLabels": {"kubernetes.io/hostname": node}},
    }


def _cluster() -> list[dict]:
    """n1: 50Gi free for a 50Gi claim (utilization 100, score 0) and an idle CPU; n2: 1000Gi free
    (utilization 5, score 95) but a busy CPU, so NodeResourcesFit prefers n1."""
    return [
        _node("n1"),
        _node("n2"),
        _csinode("n1"),
        _csinode("n2"),
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "local"},
            "provisioner": "csi.example.com",
            "volumeBindingMode": "WaitForFirstConsumer",
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIDriver",
            "metadata": {"name": "csi.example.com"},
            "spec": {"storageCapacity": True},
        },
        _capacity("n1", "50Gi"),
        _capacity("n2", "1000Gi"),
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": "default"},
            "spec": {"storageClassName": "local", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "50Gi"}}},
            "status": {"phase": "Pending"},
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "busy", "namespace": "default", "uid": "busy-uid"},
            "spec": {"nodeName": "n2", "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]},
            "status": {"phase": "Running"},
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "web", "namespace": "default", "uid": "web-uid"},
            "spec": {
                "containers": [{"name": "c", "image": "x"}],
                "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}],
            },
        },
    ]


@pytest.mark.parametrize("release, want", [("1.35", "n1"), ("1.36", "n1"), ("1.37", "n2")])
def test_capacity_scoring_by_release(run_cli, write_snapshot, release, want):
    path = write_snapshot(*_cluster())
    result = run_cli("schedule", path, "--kube-version", release, "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert [(p["pod"], p["node"]) for p in result.json()["placements"]] == [("default/web", want)]


def test_gate_off_at_1_37_restores_the_old_choice(run_cli, write_snapshot):
    path = write_snapshot(*_cluster())
    result = run_cli("schedule", path, "--feature-gates", "StorageCapacityScoring=false", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert [p["node"] for p in result.json()["placements"]] == ["n1"]


def test_explain_shows_volume_binding_scores_at_1_37(run_cli, write_snapshot):
    path = write_snapshot(*_cluster())
    result = run_cli("explain", "default/web", path, "-o", "json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["node"] == "n2"
    scores = {node: row["scores"]["VolumeBinding"]["score"] for node, row in data["nodes"].items()}
    assert scores == {"n1": 0, "n2": 95}
