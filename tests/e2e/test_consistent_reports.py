"""Consistent reports, through the CLI on kubectl-shaped snapshots: a pod group's status is its
outcome over the run (with placed/total counts), `simulate`'s summary adds up (deleted pods
counted) and each retry names the event that moved the pod back to the queue, and
--write-snapshot writes a state a real cluster could be in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubectl_shape as k
import pytest
import yaml

from kschedctl.testing import GANG_GATES, make_node, make_pod, make_pod_group


def _write(tmp_path: Path, *objects: Any, name: str = "snap.yaml") -> str:
    path = tmp_path / name
    items = [o.dict() if hasattr(o, "dict") else o for o in objects]
    path.write_text(yaml.safe_dump(k.listed(*items), sort_keys=False))
    return str(path)


def _nodes(n: int, cpu: str = "2") -> list[dict[str, Any]]:
    return [k.node(make_node(f"n{i}").capacity(cpu=cpu, memory="8Gi")) for i in range(n)]


# --- pod groups ----------------------------------------------------------------------------------


def _worker(i: int, node: str | None = None) -> dict[str, Any]:
    b = make_pod(f"worker-{i}", "ml").req(cpu="1500m").pod_group("train")
    return k.pod(b.node(node) if node else b, owner="train")


def _group(min_count: int) -> dict[str, Any]:
    group = make_pod_group("train", min_count=min_count)
    group = group.dict() if hasattr(group, "dict") else group
    group["metadata"]["namespace"] = "ml"
    return group


def test_gang_whose_min_count_is_bound_reports_scheduled(run_cli, tmp_path):
    """A gang of 7 (minCount 4) with 6 members bound and the 7th fitting nowhere: the group is
    scheduled, 6 of 7; its last cycle (the lone retry) is reported apart."""
    path = _write(tmp_path, *_nodes(6), _group(4), *[_worker(i, f"n{i}") for i in range(6)], _worker(6))
    out = run_cli("schedule", path, "-o", "json", "--seed", "1", "--feature-gates", GANG_GATES)
    assert out.exit_code == 0, out.stderr
    [group] = out.json()["podGroups"]
    assert (group["status"], group["placed"], group["total"]) == ("Scheduled", 6, 7)
    assert group["message"] == "6/7 pods scheduled (minCount 4); the others are unschedulable"
    assert group["lastCycle"] == {"status": "Unschedulable", "message": "no pods were schedulable"}
    [member] = group["members"]
    assert member["pod"] == "ml/worker-6" and member["message"] == "0/6 nodes are available: 6 Insufficient cpu."
    table = run_cli("schedule", path, "--seed", "1", "--feature-gates", GANG_GATES).stdout
    assert "ml/train" in table and "6/7" in table


def test_gang_placed_whole_in_the_run(run_cli, tmp_path):
    path = _write(tmp_path, *_nodes(4), _group(4), *[_worker(i) for i in range(4)])
    [group] = run_cli("schedule", path, "-o", "json", "--seed", "1", "--feature-gates", GANG_GATES).json()["podGroups"]
    assert (group["status"], group["message"], group["placed"], group["total"]) == ("Scheduled", "", 4, 4)
    assert "lastCycle" not in group


def test_gang_below_min_count_stays_unschedulable(run_cli, tmp_path):
    path = _write(tmp_path, *_nodes(3), _group(4), *[_worker(i) for i in range(4)])
    [group] = run_cli("schedule", path, "-o", "json", "--seed", "1", "--feature-gates", GANG_GATES).json()["podGroups"]
    assert (group["status"], group["placed"], group["total"]) == ("Unschedulable", 0, 4)
    assert "lastCycle" not in group  # the group's outcome is its last cycle's


# --- simulate: the summary adds up, retries name their event ------------------------------------


def _scenario(tmp_path: Path, objects: list[Any], events: list[dict[str, Any]]) -> str:
    doc = {
        "apiVersion": "kschedctl.io/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "s"},
        "objects": [o.dict() if hasattr(o, "dict") else o for o in objects],
        "events": events,
    }
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return str(path)


def _adds_up(summary: dict[str, int]) -> bool:
    return summary["pending"] == (summary["scheduled"] + summary["unschedulable"] + summary["skipped"] + summary.get("deleted", 0))


def test_deleted_pending_pod_is_counted(run_cli, tmp_path):
    path = _scenario(
        tmp_path,
        [
            *_nodes(1),
            k.pod(make_pod("big-0").req(cpu="3")),
            k.pod(make_pod("gated-0").req(cpu="1").gates("example.com/wait")),
            k.pod(make_pod("ok-0").req(cpu="1")),
        ],
        [{"at": "10s", "action": "deletePod", "pod": "default/big-0"}, {"at": "20s", "action": "deletePod", "pod": "default/gated-0"}],
    )
    out = run_cli("simulate", path, "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["summary"] == {"pending": 3, "scheduled": 1, "unschedulable": 0, "skipped": 0, "preempted": 0, "deleted": 2}
    assert data["deleted"] == [{"pod": "default/big-0", "time": 10}, {"pod": "default/gated-0", "time": 20}]
    table = run_cli("simulate", path, "--seed", "1").stdout
    assert "3 pending: 1 scheduled, 0 unschedulable, 0 skipped, 2 deleted, 0 preempted" in table


def test_summary_adds_up_in_the_drain_example(run_cli):
    drain = str(Path(__file__).resolve().parents[2] / "examples" / "scenario-drain.yaml")
    data = run_cli("simulate", drain, "-o", "json", "--seed", "1").json()
    assert _adds_up(data["summary"]) and "deleted" not in data["summary"]


def _attempts(data: dict[str, Any], pod: str) -> list[dict[str, Any]]:
    return [e for e in data["events"] if e.get("pod") == pod and e["event"] in ("Scheduled", "FailedScheduling")]


@pytest.mark.parametrize(
    "event, moved_by",
    [
        ({"at": "30s", "action": "addNode", "object": k.node(make_node("n9").capacity(cpu="4", memory="8Gi"))}, "NodeAdd"),
        ({"at": "30s", "action": "deletePod", "pod": "default/hog-0"}, "AssignedPodDelete"),
        ({"at": "30s", "action": "updateNode", "node": "n0", "allocatable": {"cpu": "8"}}, "NodeUpdateNodeAllocatable"),
    ],
    ids=["node-added", "pod-deleted", "node-grew"],
)
def test_each_retry_names_the_event_that_moved_the_pod(run_cli, tmp_path, event, moved_by):
    objects = [*_nodes(1), k.pod(make_pod("hog-0").req(cpu="1500m").node("n0")), k.pod(make_pod("web-0").req(cpu="1"))]
    out = run_cli("simulate", _scenario(tmp_path, objects, [event]), "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    first, retry = _attempts(out.json(), "default/web-0")
    assert first["event"] == "FailedScheduling" and "movedBy" not in first
    assert (retry["event"], retry["attempts"], retry["movedBy"]) == ("Scheduled", 2, moved_by)
    table = run_cli("simulate", _scenario(tmp_path, objects, [event]), "--seed", "1").stdout
    assert f"movedBy={moved_by}" in table


def test_retry_after_the_unschedulable_timeout(run_cli, tmp_path):
    """No event helps: the pool's 5-minute flush moves the pod (UnschedulableTimeout), once the
    cluster changed in a way its rejecting plugin does not watch."""
    objects = [*_nodes(1), k.pod(make_pod("web-0").req(cpu="3"))]
    events = [{"at": "10s", "action": "updateNode", "node": "n0", "labels": {"team": "a"}}]
    data = run_cli("simulate", _scenario(tmp_path, objects, events), "-o", "json", "--seed", "1").json()
    retries = _attempts(data, "default/web-0")[1:]
    assert retries and retries[0]["movedBy"] == "UnschedulableTimeout"


# --- --write-snapshot: a state a real cluster could be in ---------------------------------------


def _items(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    doc = yaml.safe_load(path.read_text())
    return {(o["kind"], f"{o['metadata'].get('namespace', '')}/{o['metadata']['name']}".lstrip("/")): o for o in doc["items"]}


def _condition(pod: dict[str, Any]) -> dict[str, Any]:
    [cond] = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"]
    return cond


def test_written_snapshot_binds_pods_and_records_failures(run_cli, tmp_path):
    path = _write(
        tmp_path, *_nodes(2), k.pod(make_pod("web-0").req(cpu="1").nominated("n1")), k.pod(make_pod("big-0").req(cpu="8").nominated("n0"))
    )
    out_path = tmp_path / "after.yaml"
    run = run_cli("schedule", path, "--seed", "1", "--write-snapshot", str(out_path), "-o", "json")
    assert run.exit_code == 0, run.stderr
    items = _items(out_path)
    web, big = items[("Pod", "default/web-0")], items[("Pod", "default/big-0")]
    assert web["spec"]["nodeName"] in ("n0", "n1")
    assert "nominatedNodeName" not in web["status"]
    cond = _condition(web)
    assert (cond["status"], cond.get("reason")) == ("True", None)
    assert cond["lastTransitionTime"] == k.STAMP  # the run's virtual clock starts at the newest pod
    assert "nodeName" not in big["spec"] and "nominatedNodeName" not in big["status"]
    cond = _condition(big)
    assert (cond["status"], cond["reason"]) == ("False", "Unschedulable")
    assert cond["message"] == run.json()["unschedulable"][0]["message"]
    # chained: the written state is a snapshot whose only pending pod is the unschedulable one
    again = run_cli("schedule", str(out_path), "-o", "json", "--seed", "1").json()
    assert again["summary"]["pending"] == 1 and again["unschedulable"][0]["pod"] == "default/big-0"


def test_written_snapshot_drops_victims_and_keeps_the_nomination(run_cli, tmp_path):
    low = k.pod(make_pod("low-0").req(cpu="2").priority(0).node("n0"))
    high = k.pod(make_pod("high-0").req(cpu="2").priority(1000))
    out_path = tmp_path / "after.yaml"
    run = run_cli("schedule", _write(tmp_path, *_nodes(1), low, high), "--seed", "1", "--write-snapshot", str(out_path), "-o", "json")
    assert run.json()["preemptions"] == [{"preemptor": "default/high-0", "node": "n0", "victims": ["default/low-0"]}]
    items = _items(out_path)
    assert ("Pod", "default/low-0") not in items
    high_after = items[("Pod", "default/high-0")]
    placed = [p["pod"] for p in run.json()["placements"]]
    if "default/high-0" in placed:  # the victim's removal let it in within the run
        assert high_after["spec"]["nodeName"] == "n0"
        assert _condition(high_after)["status"] == "True"
    else:
        assert high_after["status"]["nominatedNodeName"] == "n0"


def _pvc(name: str, sc: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "resourceVersion": "5",
            "creationTimestamp": k.STAMP,
            "finalizers": ["kubernetes.io/pvc-protection"],
        },
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "5Gi"}},
            "storageClassName": sc,
            "volumeMode": "Filesystem",
        },
        "status": {"phase": "Pending"},
    }


def _sc(name: str, provisioner: str) -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": provisioner,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
    }


def _local_pv(name: str, node: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "capacity": {"storage": "10Gi"},
            "local": {"path": "/mnt/d"},
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]
                }
            },
            "persistentVolumeReclaimPolicy": "Retain",
            "storageClassName": "local",
            "volumeMode": "Filesystem",
        },
        "status": {"phase": "Available"},
    }


def test_written_snapshot_binds_claims_as_volume_binding_would(run_cli, tmp_path):
    objects = [
        *_nodes(2),
        _sc("local", "kubernetes.io/no-provisioner"),
        _sc("gp3", "ebs.csi.aws.com"),
        _local_pv("local-pv-1", "n1"),
        _pvc("data-db-0", "local"),
        _pvc("scratch-db-0", "gp3"),
        k.pod(make_pod("db-0").req(cpu="100m").pvc("data-db-0").pvc("scratch-db-0")),
    ]
    out_path = tmp_path / "after.yaml"
    run = run_cli("schedule", _write(tmp_path, *objects), "--seed", "1", "--write-snapshot", str(out_path), "-o", "json")
    assert [(p["pod"], p["node"]) for p in run.json()["placements"]] == [("default/db-0", "n1")]
    items = _items(out_path)
    pv = items[("PersistentVolume", "local-pv-1")]
    assert pv["spec"]["claimRef"]["name"] == "data-db-0" and pv["status"]["phase"] == "Bound"
    assert pv["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] == "yes"
    data = items[("PersistentVolumeClaim", "default/data-db-0")]
    assert data["spec"]["volumeName"] == "local-pv-1" and data["status"]["phase"] == "Bound"
    assert data["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] == "yes"
    scratch = items[("PersistentVolumeClaim", "default/scratch-db-0")]
    assert scratch["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == "n1"
    assert "volumeName" not in scratch["spec"]
    # the input is not modified, and the chained run has nothing left to schedule
    again = run_cli("schedule", str(out_path), "-o", "json", "--seed", "1")
    assert again.json()["summary"]["pending"] == 0


def test_explain_writes_nothing(run_cli, tmp_path):
    """A dry run (explain) makes no API writes: nothing of VolumeBinding's PreBind leaks."""
    objects = [*_nodes(1), _sc("gp3", "ebs.csi.aws.com"), _pvc("scratch", "gp3"), k.pod(make_pod("db-0").req(cpu="100m").pvc("scratch"))]
    out = run_cli("explain", "db-0", _write(tmp_path, *objects), "-o", "json")
    assert out.exit_code == 0 and out.json()["node"] == "n0"
