"""From 1.37 a scheduling-gated pod's nomination holds its node (kubernetes/kubernetes#139057).

Read in pkg/scheduler/backend/queue/scheduling_queue.go of the 1.37 development tree (commit
4e67a75321bb7fd191a83b6a5425e5e79305d82c): PriorityQueue.addPod calls
``nominator.addNominatedPod`` for every added pod "even if gated, and thus not entering
activeQ", before moveToActiveQ runs the PreEnqueue plugins; Update of a pod in no queue goes
through addPod too. In 1.35 and 1.36 only moveToActiveQ nominates, after PreEnqueue, so a gated
pod's status.nominatedNodeName is not in the nominator. The Filter counts the pods nominated to a
node with priority >= the pod's (addGENominatedPods), so from 1.37 a gated higher-priority pod
nominated to a node keeps a lower-priority pod off it. Established by reading the source; no
1.37 kube-scheduler binary was run.
"""

from __future__ import annotations

import pytest


def _node() -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }


def _pod(name: str, priority: int, cpu: str, second: int, gated: bool = False) -> dict:
    spec: dict = {"priority": priority, "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}
    status: dict = {"phase": "Pending"}
    if gated:
        spec["schedulingGates"] = [{"name": "example.com/wait"}]
        status["nominatedNodeName"] = "n1"
    meta = {"name": name, "namespace": "default", "uid": f"{name}-uid", "creationTimestamp": f"2026-01-01T00:00:0{second}Z"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def _cluster(other_priority: int) -> list[dict]:
    """A gated pod of priority 100 nominated to n1 asks 3 of its 4 cpu; another pod asks 2."""
    return [_node(), _pod("gated", 100, "3", 0, gated=True), _pod("other", other_priority, "2", 1)]


def _outcome(run_cli, path: str, release: str) -> tuple[list[tuple[str, str]], list[str]]:
    result = run_cli("schedule", path, "--kube-version", release, "-o", "json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    return [(p["pod"], p["node"]) for p in data["placements"]], [u["pod"] for u in data["unschedulable"]]


@pytest.mark.parametrize("release", ["1.35", "1.36"])
def test_gated_nomination_ignored_before_1_37(run_cli, write_snapshot, release):
    path = write_snapshot(*_cluster(0))
    assert _outcome(run_cli, path, release) == ([("default/other", "n1")], [])


@pytest.mark.parametrize("priority", [0, 100], ids=["lower", "equal"])
def test_gated_nomination_blocks_lower_and_equal_priority_in_1_37(run_cli, write_snapshot, priority):
    path = write_snapshot(*_cluster(priority))
    assert _outcome(run_cli, path, "1.37") == ([], ["default/other"])


def test_higher_priority_pod_ignores_the_gated_nomination(run_cli, write_snapshot):
    path = write_snapshot(*_cluster(200))
    assert _outcome(run_cli, path, "1.37") == ([("default/other", "n1")], [])


def test_explain_names_the_gated_pod_holding_the_room(run_cli, write_snapshot):
    path = write_snapshot(*_cluster(0))
    result = run_cli("explain", "default/other", path, "-o", "json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["node"] in (None, "")
    assert "Insufficient cpu" in data["message"]
    nominated = data["nodes"]["n1"]["details"]["NominatedPods"]
    assert "default/gated" in str(nominated)
