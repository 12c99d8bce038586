"""What kschedctl cannot model of 1.36/1.37 is said on stderr when the snapshot calls on it.

* NodeDeclaredFeatures: on by default from 1.36 (beta), GA and locked in 1.37 (versioned specs in
  staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go, 1.37 tree at ead35706ec68).
  The filter (pkg/scheduler/framework/plugins/nodedeclaredfeatures/nodedeclaredfeatures.go at
  854e67bb51e1) infers a pod's needs from the k8s.io/component-helpers/nodedeclaredfeatures
  registry, which kschedctl does not carry: nodes that declare features get a warning.
* PodGroup spec.resourceClaims (DRAWorkloadResourceClaims: alpha 1.36, beta and off in 1.37, same
  file): not modelled, warned when pod groups are read.
"""

from __future__ import annotations

import pytest

from kschedctl.testing import GANG_GATES


def _node(declared: list[str] | None) -> dict:
    status: dict = {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}
    if declared is not None:
        status["declaredFeatures"] = declared
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": status}


def _pod() -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"schedulingGroup": {"podGroupName": "pg"}, "containers": [{"name": "c", "image": "x"}]},
    }


def _group(claims: bool) -> dict:
    spec: dict = {"schedulingPolicy": {"gang": {"minCount": 1}}}
    if claims:
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "shared-gpu"}]
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "pg", "namespace": "default"}, "spec": spec}


def _warnings(stderr: str, word: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:") and word in line]


@pytest.mark.parametrize("release, warned", [("1.35", False), ("1.36", True), ("1.37", True)])
def test_nodes_declaring_features_are_warned_where_the_filter_is_on(run_cli, write_snapshot, release, warned):
    path = write_snapshot(_node(["PodLevelResourcesResize"]), _group(False), _pod())
    out = run_cli("schedule", path, "--kube-version", release, "-o", "json")
    assert out.exit_code == 0, out.stderr
    lines = _warnings(out.stderr, "declaredFeatures")
    assert len(lines) == (1 if warned else 0)
    if warned:
        assert "n1" in lines[0] and "does not model" in lines[0]


def test_no_declared_features_no_warning(run_cli, write_snapshot):
    out = run_cli("schedule", write_snapshot(_node(None), _group(False), _pod()), "--feature-gates", GANG_GATES, "-o", "json")
    assert out.exit_code == 0
    assert _warnings(out.stderr, "declaredFeatures") == [] and _warnings(out.stderr, "resourceClaims") == []


def test_pod_group_claims_are_warned_when_groups_are_read(run_cli, write_snapshot):
    path = write_snapshot(_node(None), _group(True), _pod())
    out = run_cli("schedule", path, "--feature-gates", GANG_GATES, "-o", "json")
    assert out.exit_code == 0, out.stderr
    [line] = _warnings(out.stderr, "spec.resourceClaims")
    assert "default/pg" in line and "DRAWorkloadResourceClaims" in line
    # without GenericWorkload the group itself is ignored (said once, by the pod-group remark)
    out = run_cli("schedule", path, "-o", "json")
    assert _warnings(out.stderr, "spec.resourceClaims") == []


def _csi_cluster(prevent: bool) -> list[dict]:
    driver = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "csi.example.com"}, "spec": {}}
    if prevent:
        driver["spec"]["preventPodSchedulingIfMissing"] = True
    return [_node(None), driver]


@pytest.mark.parametrize("release, gates, warned", [("1.36", "", False), ("1.37", "", True), ("1.37", "VolumeLimitScaling=false", False)])
def test_drivers_that_prevent_scheduling_if_missing_are_warned_from_1_37(run_cli, write_snapshot, release, gates, warned):
    # VolumeLimitScaling: alpha 1.35, beta and on in 1.37 (kube-scheduler/pkg/features/kube_features.go at ead35706ec68)
    path = write_snapshot(*_csi_cluster(True), _pod())
    args = ["schedule", path, "--kube-version", release, "-o", "json"] + (["--feature-gates", gates] if gates else [])
    out = run_cli(*args)
    assert out.exit_code == 0, out.stderr
    lines = _warnings(out.stderr, "preventPodSchedulingIfMissing")
    assert len(lines) == (1 if warned else 0)
    if warned:
        assert "csi.example.com" in lines[0] and "does not model" in lines[0]


def test_drivers_without_the_field_are_not_warned(run_cli, write_snapshot):
    out = run_cli("schedule", write_snapshot(*_csi_cluster(False), _pod()), "-o", "json")
    assert _warnings(out.stderr, "preventPodSchedulingIfMissing") == []
