"""The 1.36 pod-group cycle against the real kube-scheduler 1.36.2: cases the differential runner
(tools/difftest, category gangs at --oracle-version 1.36) found once kschedoracle drove
scheduleOnePodGroup, pinned through the CLI. Recorded with kschedoracle 1.36.2 -mode sequential
-feature-gates GenericWorkload=true,GangScheduling=true on the same objects.
"""

from __future__ import annotations

import json
from pathlib import Path

from kschedctl.testing import GANG_GATES

WAIT_REJECTION = (
    "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, "
    "one or more plugins asked to wait and no plugin rejected pod"
)


def _pod(name: str, second: int, cpu: str, group: str | None = None) -> dict:
    spec: dict = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    meta = {"name": name, "namespace": "default", "uid": f"uid-{name}", "creationTimestamp": f"2024-01-01T00:00:{second:02d}Z"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _group(name: str, min_count: int) -> dict:
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


def _cluster(tmp_path: Path) -> str:
    """One 64-cpu node. Gang a (minCount 4): a0-a2 fit, a3 asks for 100 cpus; then s0, gang b
    (minCount 2, three pods), s1-s3 and c0-c5, one second apart in that order."""
    items: list[dict] = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
            "status": {"allocatable": {"cpu": "64", "memory": "64Gi", "pods": "110"}},
        },
        _group("a", 4),
        _group("b", 2),
    ]
    names = [("a0", "a"), ("a1", "a"), ("a2", "a"), ("a3", "a"), ("s0", None), ("b0", "b"), ("b1", "b"), ("b2", "b")]
    names += [(f"s{i}", None) for i in range(1, 4)] + [(f"c{i}", None) for i in range(6)]
    for second, (name, group) in enumerate(names, start=1):
        items.append(_pod(name, second, "100" if name == "a3" else "1", group))
    snap = tmp_path / "snapshot.json"
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"apiVersion": "kschedctl.io/v1alpha1", "kind": "Scenario", "snapshot": "snapshot.json", "events": []}))
    return str(scenario)


def test_pods_after_a_failed_gang_keep_their_queue_order(run_cli, tmp_path):
    # kschedoracle 1.36.2 -mode sequential: gang a's cycle fails (a3 fits nowhere), then s0, gang
    # b, s1, s2, s3, c0..c5 are attempted in creation order, every one placed on n1. kschedctl's
    # activeQ heap kept the entries a's cycle took out (PopSpecificPod) and then compared them by
    # the timestamps their requeue gave them: s0 came last, s3 before s1.
    data = run_cli("simulate", _cluster(tmp_path), "--kube-version", "1.36", "--feature-gates", GANG_GATES, "-o", "json").json()
    order: list[str] = []
    for e in data["events"]:
        if e["event"] in ("Scheduled", "FailedScheduling") and e["attempts"] == 1 and e["pod"] not in order:
            order.append(e["pod"])
    blocks = [p.split("/")[1] for p in order]
    assert blocks[:5] == ["a0", "a1", "a2", "a3", "s0"]
    assert sorted(blocks[5:8]) == ["b0", "b1", "b2"]  # the order their binding cycles end in is kube's goroutines'
    assert blocks[8:] == ["s1", "s2", "s3", "c0", "c1", "c2", "c3", "c4", "c5"]
    first = {e["pod"]: e for e in data["events"] if e["event"] in ("Scheduled", "FailedScheduling") and e["attempts"] == 1}
    assert all(first[f"default/{n}"]["event"] == "Scheduled" for n in blocks[4:])


def test_members_rejected_for_their_gang_name_the_group_and_the_wait(run_cli, tmp_path):
    # kschedoracle 1.36.2 -mode sequential (pod-group cycle): a0-a2 fit but wait at Permit (3 of
    # minCount 4), so each gets NewStatus(Unschedulable, <its Permit status>).WithError(
    # errPodGroupUnschedulable): the error's text first, then GangScheduling's reason and the one
    # RunPermitPlugins appends to a Wait; a3 gets its own FitError with PostFilter's message.
    data = run_cli("simulate", _cluster(tmp_path), "--kube-version", "1.36", "--feature-gates", GANG_GATES, "-o", "json").json()
    first = {e["pod"]: e.get("message") for e in data["events"] if e["event"] == "FailedScheduling" and e["attempts"] == 1}
    assert first["default/a0"] == first["default/a1"] == first["default/a2"] == WAIT_REJECTION
    assert first["default/a3"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
        "0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )


NOMINATED_GANG = """\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000, preemptionPolicy: PreemptLowerPriority}
- {apiVersion: scheduling.k8s.io/v1alpha2, kind: PodGroup, metadata: {name: g, namespace: default},
   spec: {schedulingPolicy: {gang: {minCount: 2}}}}
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: filler, namespace: default, uid: uid-filler, creationTimestamp: "2024-01-01T00:00:00Z"},
   spec: {nodeName: n1, priority: 0, containers: [{name: c, image: x, resources: {requests: {cpu: 3500m}}}]},
   status: {phase: Running, startTime: "2024-01-01T00:00:00Z"}}
- {apiVersion: v1, kind: Pod, metadata: {name: m0, namespace: default, uid: uid-m0, creationTimestamp: "2024-01-01T00:00:01Z"},
   spec: {schedulingGroup: {podGroupName: g}, priorityClassName: high, priority: 1000,
          containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: m1, namespace: default, uid: uid-m1, creationTimestamp: "2024-01-01T00:00:02Z"},
   spec: {schedulingGroup: {podGroupName: g}, priorityClassName: high, priority: 1000,
          containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}}
"""


def test_a_member_assumed_in_the_group_cycle_no_longer_counts_as_nominated(run_cli, tmp_path):
    # kschedoracle 1.36.2 -mode sequential (pod-group cycle): attempt 1, m0 and m1 each preempt
    # "filler" on n1 (both nominated there) and the group waits for the preemption; attempt 2, m0
    # is assumed on n1 in the group's snapshot, which drops its nomination (Scheduler.assume), so
    # m1 sees 2 of 4 cpus taken, not 4 (assumed and nominated): both are placed on n1. kschedctl
    # kept the assumed member's nomination and the gang never fitted.
    (tmp_path / "snapshot.yaml").write_text(NOMINATED_GANG)
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"apiVersion": "kschedctl.io/v1alpha1", "kind": "Scenario", "snapshot": "snapshot.yaml", "events": []}))
    data = run_cli("simulate", str(scenario), "--kube-version", "1.36", "--feature-gates", GANG_GATES, "-o", "json").json()
    assert data["preemptions"] == [
        {"preemptor": "default/m0", "node": "n1", "victims": ["default/filler"], "time": 0},
        {"preemptor": "default/m1", "node": "n1", "victims": ["default/filler"], "time": 0},
    ]
    first = {e["pod"]: e["message"] for e in data["events"] if e["event"] == "FailedScheduling" and e["attempts"] == 1}
    assert first == {
        "default/m0": "0/1 nodes are available: 1 Insufficient cpu.",
        "default/m1": "0/1 nodes are available: 1 Insufficient cpu.",
    }
    assert sorted((p["pod"], p["node"], p["attempts"]) for p in data["placements"]) == [("default/m0", "n1", 2), ("default/m1", "n1", 2)]
