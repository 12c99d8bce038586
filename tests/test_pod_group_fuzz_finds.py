"""Pod-group inputs the fuzzer's podgroups dimension (tools/fuzz/kfuzz/podgroups.py) broke the
contract with: `explain podgroup/...` when members name other profiles or none (an internal
error; kube registers and queues only the pods a profile serves, addPodToSchedulingQueue, and
frameworkForPodGroup fails the whole group when its members name different profiles), and a
1.35 run where gangs that can never complete preempt each other's members waiting at Permit
for ever (a hang)."""

from __future__ import annotations

import json

from kschedctl.testing import GANG_GATES, TWO_PROFILES_CONFIG


def _snapshot(tmp_path, *scheduler_names):
    pods = "".join(
        f"""- {{apiVersion: v1, kind: Pod, metadata: {{name: m{i}, namespace: default, uid: uid-m{i}}},
   spec: {{schedulerName: {name}, schedulingGroup: {{podGroupName: g}}, containers: [{{name: c, image: x}}]}}}}
"""
        for i, name in enumerate(scheduler_names)
    )
    snap = tmp_path / "snapshot.yaml"
    snap.write_text(
        """\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1alpha2, kind: PodGroup, metadata: {name: g, namespace: default},
   spec: {schedulingPolicy: {gang: {minCount: 1}}}}
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
"""
        + pods
    )
    cfg = tmp_path / "config.yaml"
    cfg.write_text(TWO_PROFILES_CONFIG)
    return str(snap), str(cfg)


def _explain(run_cli, snap, cfg):
    return run_cli(
        "explain", "podgroup/default/g", snap, "--config", cfg, "--kube-version", "1.36", "--feature-gates", GANG_GATES, "-o", "json"
    )


def test_members_without_a_profile_are_not_in_the_group(run_cli, tmp_path):
    snap, cfg = _snapshot(tmp_path, "default-scheduler", "no-such-profile")
    out = _explain(run_cli, snap, cfg)
    assert out.exit_code == 0, out.stderr
    assert [m["pod"] for m in out.json()["members"]] == ["default/m0"]


def test_a_group_no_profile_serves_is_one_error_line(run_cli, tmp_path):
    snap, cfg = _snapshot(tmp_path, "no-such-profile")
    out = _explain(run_cli, snap, cfg)
    assert out.exit_code == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {snap}") and "no pending member a profile serves" in lines[0]


def test_members_naming_two_profiles_fail_as_the_group_cycle_does(run_cli, tmp_path):
    snap, cfg = _snapshot(tmp_path, "default-scheduler", "other")
    out = _explain(run_cli, snap, cfg)
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["status"] == "Error"
    assert (
        data["message"]
        == 'all pods in a single pod group should have the same .spec.schedulerName set, got: "default-scheduler" and "other"'
    )


# The fuzzer's input (tools/difftest gangs at 1.35, seed-drawn, a member made terminating), cut
# down to what still looped: one 18-cpu node for 9 pods; a high-priority gang (minCount 4) of
# which only one member fits at a time, a low gang that would fit, a pod of a missing Workload.
CHURN = [
    {
        "apiVersion": "scheduling.k8s.io/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": "job0", "namespace": "default"},
        "spec": {"podGroups": [{"name": "g0", "policy": {"gang": {"minCount": 4}}}, {"name": "g1", "policy": {"gang": {"minCount": 3}}}]},
    },
    {
        "apiVersion": "scheduling.k8s.io/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": "job2", "namespace": "default"},
        "spec": {"podGroups": [{"name": "g0", "policy": {"gang": {"minCount": 4}}}, {"name": "g1", "policy": {"gang": {"minCount": 3}}}]},
    },
    {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
        "preemptionPolicy": "PreemptLowerPriority",
    },
    {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "mid"},
        "value": 500,
        "preemptionPolicy": "PreemptLowerPriority",
    },
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "n00",
            "uid": "node-n00",
            "creationTimestamp": "2024-01-01T00:00:00Z",
            "labels": {
                "kubernetes.io/hostname": "n00",
                "topology.kubernetes.io/zone": "zone-a",
                "topology.kubernetes.io/region": "region-1",
            },
        },
        "spec": {},
        "status": {
            "allocatable": {"cpu": "18", "memory": "129536Mi", "pods": "9", "ephemeral-storage": "100Gi"},
            "capacity": {"cpu": "18", "memory": "129536Mi", "pods": "9", "ephemeral-storage": "100Gi"},
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w0-g0-0", "namespace": "default", "uid": "uid-default-w0-g0-0", "creationTimestamp": "2024-01-01T00:00:06Z"},
        "spec": {
            "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": "33250m", "memory": "43520Mi"}}}],
            "schedulerName": "default-scheduler",
            "workloadRef": {"name": "job0", "podGroup": "g0"},
            "priorityClassName": "high",
            "priority": 1000,
        },
        "status": {"phase": "Pending"},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w0-g0-1", "namespace": "default", "uid": "uid-default-w0-g0-1", "creationTimestamp": "2024-01-01T00:00:07Z"},
        "spec": {
            "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": "10750m", "memory": "28928Mi"}}}],
            "schedulerName": "default-scheduler",
            "workloadRef": {"name": "job0", "podGroup": "g0"},
            "priorityClassName": "high",
            "priority": 1000,
        },
        "status": {"phase": "Pending"},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w0-g0-2", "namespace": "default", "uid": "uid-default-w0-g0-2", "creationTimestamp": "2024-01-01T00:00:08Z"},
        "spec": {
            "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": "38", "memory": "60672Mi"}}}],
            "schedulerName": "default-scheduler",
            "workloadRef": {"name": "job0", "podGroup": "g0"},
            "priorityClassName": "high",
            "priority": 1000,
        },
        "status": {"phase": "Pending"},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w0-g0-4", "namespace": "default", "uid": "uid-default-w0-g0-4", "creationTimestamp": "2024-01-01T00:00:10Z"},
        "spec": {
            "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": "15750m", "memory": "62976Mi"}}}],
            "schedulerName": "default-scheduler",
            "workloadRef": {"name": "job0", "podGroup": "g0"},
            "priorityClassName": "high",
            "priority": 1000,
        },
        "status": {"phase": "Pending"},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w2-g0-0", "namespace": "default", "uid": "uid-default-w2-g0-0", "creationTimestamp": "2024-01-01T00:00:16Z"},
        "spec": {
            "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": "2450m", "memory": "3008Mi"}}}],
            "schedulerName": "default-scheduler",
            "workloadRef": {"name": "job2", "podGroup": "g0"},
        },
        "status": {"phase": "Pending"},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w2-g0-1", "namespace": "default", "uid": "uid-default-w2-g0-1", "creationTimestamp": "2024-01-01T00:00:17Z"},
        "spec": {
            "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": "1200m", "memory": "10048Mi"}}}],
            "schedulerName": "default-scheduler",
            "workloadRef": {"name": "job2", "podGroup": "g0"},
        },
        "status": {"phase": "Pending"},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w2-g0-2", "namespace": "default", "uid": "uid-default-w2-g0-2", "creationTimestamp": "2024-01-01T00:00:18Z"},
        "spec": {
            "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": "5350m", "memory": "11648Mi"}}}],
            "schedulerName": "default-scheduler",
            "workloadRef": {"name": "job2", "podGroup": "g0"},
        },
        "status": {"phase": "Pending"},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w2-g0-3", "namespace": "default", "uid": "uid-default-w2-g0-3", "creationTimestamp": "2024-01-01T00:00:19Z"},
        "spec": {
            "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": "3800m", "memory": "6080Mi"}}}],
            "schedulerName": "default-scheduler",
            "workloadRef": {"name": "job2", "podGroup": "g0"},
        },
        "status": {"phase": "Pending"},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w3-g0-0", "namespace": "default", "uid": "uid-default-w3-g0-0", "creationTimestamp": "2024-01-01T00:00:23Z"},
        "spec": {
            "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": "13", "memory": "13824Mi"}}}],
            "schedulerName": "default-scheduler",
            "workloadRef": {"name": "job3", "podGroup": "g0"},
        },
        "status": {"phase": "Pending"},
    },
]


def test_gangs_preempting_each_others_waiting_members_end_the_run(run_cli, tmp_path):
    # 1.35 (Permit wait): each high member that fits waits at Permit, times out after 5 minutes,
    # and meanwhile preempts low members waiting at Permit, which are rejected, not deleted:
    # nothing changes for good. kube would go on for ever; the run counted those preemptions as
    # progress and never ended. It now stops as for any livelock, with the warning.
    snap = tmp_path / "churn.json"
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": CHURN}))
    out = run_cli("schedule", str(snap), "--kube-version", "1.35", "--feature-gates", GANG_GATES, "-o", "json")
    assert out.exit_code == 0, out.stderr
    assert out.json()["preemptions"]  # the churn happened
    assert "placed nothing and changed nothing" in out.stderr
