"""Preemption victims leave on the virtual clock, as kube 1.36 lives it (kschedctl/scheduler/victims.py):
a victim keeps its room — and counts in every filter and score — until the scheduler would see it
deleted (its terminationGracePeriodSeconds, 30 when unset, plus the API round trip), while the
queue goes on; --instant-preemption keeps the old reading (gone the moment it is chosen).
Held against a real kube-scheduler by tests/realcluster/test_real_preemption.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1"},
    "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
}


def pod(name: str, cpu: str, priority: int, node: str | None = None, grace: int | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"priority": priority, "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if node:
        spec["nodeName"] = node
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
        "status": {"phase": "Running" if node else "Pending"},
    }


def cluster(grace: int | None = None) -> list[dict[str, Any]]:
    """n1 (4 cpu) holds a 3-cpu low-priority pod; "high" (2 cpu) preempts it; "small" (2 cpu, low
    priority) comes after: it fits n1 only once the victim is gone (the nominated high takes 2)."""
    return [NODE, pod("low", "3", 0, node="n1", grace=grace), pod("high", "2", 100), pod("small", "2", 0)]


@pytest.fixture
def snapshot(tmp_path: Any) -> Callable[..., str]:
    def write(items: list[dict[str, Any]]) -> str:
        path = tmp_path / "cluster.yaml"
        path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
        return str(path)

    return write


def placements(run_cli: Callable[..., Any], path: str, *extra: str) -> list[tuple[str, str, int]]:
    result = run_cli("schedule", path, "-o", "json", "--seed", "1", *extra)
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    assert doc["preemptions"] == [{"preemptor": "default/high", "node": "n1", "victims": ["default/low"]}]
    return [(p["pod"], p["node"], p["attempts"]) for p in doc["placements"]]


def test_the_victim_keeps_its_room_until_it_is_gone(run_cli: Callable[..., Any], snapshot: Callable[..., str]) -> None:
    # small is tried while low still holds n1: it fails, and is moved back by low's deletion,
    # together with high; high goes first (priority), then small
    assert placements(run_cli, snapshot(cluster())) == [("default/high", "n1", 2), ("default/small", "n1", 2)]


def test_instant_preemption_keeps_the_old_reading(run_cli: Callable[..., Any], snapshot: Callable[..., str]) -> None:
    # gone at once: small fits beside the nominated high straight away and binds first
    assert placements(run_cli, snapshot(cluster()), "--instant-preemption") == [("default/small", "n1", 1), ("default/high", "n1", 2)]


@pytest.mark.parametrize(("grace", "gone_at"), [(None, 30.05), (0, 0.05), (5, 5.05)])
def test_simulate_shows_when_the_victim_leaves(grace: int | None, gone_at: float, run_cli: Callable[..., Any], tmp_path: Any) -> None:
    scenario = {
        "apiVersion": "kschedctl.io/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "s"},
        "objects": cluster(grace),
        "events": [],
    }
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario))
    result = run_cli("simulate", str(path), "-o", "json")
    assert result.exit_code == 0, result.stderr
    gone = [e for e in result.json()["events"] if e["event"] == "PodDeleted" and e.get("reason") == "preempted"]
    assert [(e["pod"], round(e["time"], 2)) for e in gone] == [("default/low", gone_at)]
    instant = run_cli("simulate", str(path), "-o", "json", "--instant-preemption")
    assert not [e for e in instant.json()["events"] if e.get("reason") == "preempted"]


def test_explain_in_run_shows_the_wait(run_cli: Callable[..., Any], snapshot: Callable[..., str]) -> None:
    path = snapshot(cluster())
    result = run_cli("explain", "small", path, "--in-run", "-o", "json")
    assert result.exit_code == 0, result.stderr
    attempts = result.json()["attempts"]
    assert [round(a["time"], 2) for a in attempts] == [0, 30.05]
    instant = run_cli("explain", "small", path, "--in-run", "-o", "json", "--instant-preemption").json()["attempts"]
    assert len(instant) == 1


def test_a_terminating_victim_is_not_evicted_twice(run_cli: Callable[..., Any], snapshot: Callable[..., str]) -> None:
    # high-2 comes while low is terminating: its preemption picks low again but sends no delete
    # (prepareCandidateAsync skips a victim with a deletionTimestamp); both wait nominated to n1,
    # and once low is gone both fit there and small does not
    items = cluster() + [pod("high-2", "2", 100)]
    result = run_cli("schedule", snapshot(items), "-o", "json", "--seed", "1")
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    assert [(p["preemptor"], p["victims"]) for p in doc["preemptions"]] == [("default/high", ["default/low"]), ("default/high-2", [])]
    assert [(p["pod"], p["node"]) for p in doc["placements"]] == [("default/high", "n1"), ("default/high-2", "n1")]
    assert [u["pod"] for u in doc["unschedulable"]] == ["default/small"]
