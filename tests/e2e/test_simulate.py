"""End-to-end `kschedctl simulate SCENARIO.yaml`: the drain example, node/pod events, bad scenarios."""

from __future__ import annotations

from pathlib import Path

import yaml

from kschedctl.api.quantity import parse_quantity
from kschedctl.testing import make_node, make_pod

ROOT = Path(__file__).resolve().parents[2]
DRAIN = str(ROOT / "examples" / "scenario-drain.yaml")


def _events(data: dict, kind: str, **match) -> list[dict]:
    return [e for e in data["events"] if e["event"] == kind and all(e.get(k) == v for k, v in match.items())]


def test_drain_example_reschedules_the_evicted_pods(run_cli):
    out = run_cli("simulate", DRAIN, "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert _events(data, "NodeDrained", node="node-a")[0]["time"] == 60
    assert sorted(e["pod"] for e in _events(data, "PodEvicted", node="node-a")) == [f"default/web-{i}" for i in (1, 2, 3, 4)]
    # three replicas land at once on node-b/node-c; the fourth fits nowhere until node-d joins
    at_drain = [p for p in data["placements"] if p["time"] == 60]
    assert len(at_drain) == 3 and {p["node"] for p in at_drain} <= {"node-b", "node-c"}
    [late] = [p for p in data["placements"] if p["time"] == 120]
    assert (late["node"], late["attempts"]) == ("node-d", 2)
    # not retried in between: one failure, at the drain
    assert [e["time"] for e in _events(data, "FailedScheduling", pod=late["pod"])] == [60]
    assert data["final"]["node-a"] == []
    placed = [p for pods in data["final"].values() for p in pods]
    assert sorted(placed) == ["default/api-1"] + [f"default/web-{i}" for i in (1, 2, 3, 4)]
    assert data["summary"] == {"pending": 4, "scheduled": 4, "unschedulable": 0, "skipped": 0, "preempted": 0}
    # no node over-committed (every pod requests 1 cpu)
    scenario = yaml.safe_load(open(DRAIN))
    nodes = [o for o in scenario["objects"] if o["kind"] == "Node"] + [e["object"] for e in scenario["events"] if e["action"] == "addNode"]
    for node in nodes:
        assert len(data["final"][node["metadata"]["name"]]) <= parse_quantity(node["status"]["allocatable"]["cpu"])


def test_drain_example_is_deterministic_and_renders_a_table(run_cli):
    a = run_cli("simulate", DRAIN, "-o", "json", "--seed", "3").stdout
    assert a == run_cli("simulate", DRAIN, "-o", "json", "--seed", "3").stdout
    table = run_cli("simulate", DRAIN, "--seed", "3")
    assert table.exit_code == 0
    assert "NodeDrained" in table.stdout and "2m0s" in table.stdout and "FINAL" in table.stdout
    assert yaml.safe_load(run_cli("simulate", DRAIN, "-o", "yaml", "--seed", "3").stdout)["final"]


def _scenario(tmp_path: Path, events: list[dict], snapshot: str | None = None, objects: list | None = None) -> str:
    doc = {"apiVersion": "kschedctl.io/v1alpha1", "kind": "Scenario", "events": events}
    if snapshot:
        doc["snapshot"] = Path(snapshot).name
    if objects:
        doc["objects"] = objects
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return str(path)


def test_taint_removal_ungating_and_pod_events(run_cli, write_snapshot, tmp_path):
    snap = write_snapshot(
        make_node("n1").capacity(cpu="4", memory="8Gi").taint("maintenance", "", "NoSchedule"), make_pod("waits-for-taint").req(cpu="1")
    )
    path = _scenario(
        tmp_path,
        [
            {"at": "10s", "action": "createPod", "object": make_pod("gated").gates("example.com/hold").req(cpu="1").dict()},
            {"at": "30s", "action": "updateNode", "node": "n1", "taints": []},
            {"at": 40, "action": "ungatePod", "pod": "default/gated"},
            {"at": "1m", "action": "createPod", "object": make_pod("late").req(cpu="1").dict()},
            {"at": "1m30s", "action": "deletePod", "pod": "default/late"},
        ],
        snapshot=snap,
    )
    data = run_cli("simulate", path, "-o", "json").json()
    placed = {p["pod"]: (p["time"], p["attempts"]) for p in data["placements"]}
    assert placed == {"default/waits-for-taint": (30, 2), "default/gated": (40, 1), "default/late": (60, 1)}
    assert _events(data, "PodDeleted", pod="default/late")[0]["time"] == 90
    assert data["final"] == {"n1": ["default/gated", "default/waits-for-taint"]}


def test_node_removal_and_allocatable_growth(run_cli, tmp_path):
    objects = [
        make_node("a").capacity(cpu="2", memory="4Gi").dict(),
        make_node("b").capacity(cpu="1", memory="4Gi").dict(),
        make_pod("x").req(cpu="2").node("a").dict(),
        make_pod("y").req(cpu="2").dict(),
    ]
    path = _scenario(
        tmp_path,
        [
            {"at": 5, "action": "removeNode", "node": "a", "recreate": False},
            {"at": 20, "action": "updateNode", "node": "b", "allocatable": {"cpu": "4"}},
        ],
        objects=objects,
    )
    data = run_cli("simulate", path, "-o", "json").json()
    assert [(p["pod"], p["node"], p["time"]) for p in data["placements"]] == [("default/y", "b", 20)]
    assert data["final"] == {"b": ["default/y"]}


def test_invalid_scenario_is_exit_2_with_path_and_message(run_cli, tmp_path):
    path = _scenario(tmp_path, [{"at": "1m", "action": "explodeNode", "node": "n1"}])
    out = run_cli("simulate", path)
    assert out.exit_code == 2
    line = out.stderr.strip()
    assert path in line and "events[0].action" in line and "explodeNode" in line and "Traceback" not in line
    out = run_cli("simulate", _scenario(tmp_path, [{"at": "soon", "action": "drainNode"}]))
    assert out.exit_code == 2 and "events[0]" in out.stderr


def test_event_on_a_missing_node_is_exit_2(run_cli, tmp_path):
    out = run_cli("simulate", _scenario(tmp_path, [{"at": 1, "action": "cordonNode", "node": "ghost"}]))
    assert out.exit_code == 2
    assert "events[0].node" in out.stderr and "no node named 'ghost'" in out.stderr


def test_drain_recreates_only_pods_a_controller_owns_and_prints_no_python_none(run_cli, write_snapshot, tmp_path):
    """kubectl drain --force deletes a bare pod and nothing creates it again; a ReplicaSet's pod
    comes back pending (its controller's ownerReference, metav1.GetControllerOf). The table's
    details leave out a score that is null (the only feasible node is not scored)."""
    owned = make_pod("web-1").node("n1").req(cpu="1").dict()
    owned["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs-1", "controller": True}
    ]
    snap = write_snapshot(
        make_node("n1").capacity(cpu="4", memory="8Gi"),
        make_node("n2").capacity(cpu="4", memory="8Gi"),
        owned,
        make_pod("bare").node("n1").req(cpu="1"),
    )
    path = _scenario(tmp_path, [{"at": "1m", "action": "drainNode", "node": "n1"}], snapshot=snap)
    data = run_cli("simulate", path, "-o", "json", "--seed", "1").json()
    evicted = {e["pod"]: e for e in _events(data, "PodEvicted", node="n1")}
    assert set(evicted) == {"default/web-1", "default/bare"}
    assert evicted["default/bare"]["recreated"] == "no (no controller owns it)"
    assert "recreated" not in evicted["default/web-1"]
    assert [p["pod"] for p in data["placements"]] == ["default/web-1"]
    assert data["final"]["n2"] == ["default/web-1"] and data["final"]["n1"] == []
    table = run_cli("simulate", path, "--seed", "1").stdout
    assert "None" not in table and "pod=default/web-1 node=n2 attempts=1" in table
