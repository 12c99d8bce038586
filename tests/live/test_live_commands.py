"""--live / --context / --kubeconfig / --scheduler-config on schedule and explain: the same answers
as on a captured file, in one step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SCHEDULER_CONFIG

PODS = ["shop/api-5c8b-xk2p9", "shop/db-0", "batch/analytics-big", "ml/trainer-0"]


@pytest.fixture
def captured(api, kubeconfig, tmp_path, run_cli) -> str:
    path = tmp_path / "captured.yaml"
    assert run_cli("capture", "-o", str(path)).exit_code == 0
    return str(path)


@pytest.mark.parametrize("pod", PODS)
def test_explain_live_answers_as_explain_on_the_captured_file(captured, run_cli, pod):
    from_file = run_cli("explain", pod, captured, "-o", "json", "--seed", "3")
    live = run_cli("explain", pod, "--live", "-o", "json", "--seed", "3")
    assert live.exit_code == from_file.exit_code == 0, live.stderr
    assert live.stdout == from_file.stdout


def test_the_bound_volume_keeps_the_stateful_pod_in_its_zone(api, kubeconfig, run_cli):
    """What the README's old export recipe lost: without PVCs and PVs db-0 was misdiagnosed."""
    data = run_cli("explain", "shop/db-0", "--live", "-o", "json").json()
    assert data["node"] == "ip-10-0-2-21"
    assert data["nodes"]["ip-10-0-1-11"]["filter"] == {
        "code": "UnschedulableAndUnresolvable",
        "plugin": "VolumeBinding",
        "reasons": ["node(s) didn't match PersistentVolume's node affinity"],
    }


def test_schedule_live_answers_as_schedule_on_the_captured_file(captured, run_cli):
    from_file = run_cli("schedule", captured, "-o", "json", "--seed", "1")
    live = run_cli("schedule", "--context", "fake-prod", "-o", "json", "--seed", "1")
    assert live.exit_code == 0, live.stderr
    assert live.stdout == from_file.stdout
    assert live.json()["summary"]["pending"] == 7


def test_scheduler_config_from_the_clusters_configmap(captured, tmp_path, run_cli):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(SCHEDULER_CONFIG)
    pod = "shop/api-5c8b-xk2p9"
    live = run_cli("explain", pod, "--live", "--scheduler-config", "configmap/kube-system/kube-scheduler-config", "-o", "json")
    assert live.exit_code == 0, live.stderr
    assert live.stdout == run_cli("explain", pod, captured, "--config", str(cfg), "-o", "json").stdout
    assert live.stdout != run_cli("explain", pod, captured, "-o", "json").stdout  # MostAllocated scores differ


def test_kubeconfig_flag_implies_live(api, tmp_path, run_cli):
    path = api.write_kubeconfig(tmp_path / "other-kubeconfig", context="elsewhere")
    result = run_cli("explain", "shop/db-0", "--kubeconfig", str(path), "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["pod"] == "shop/db-0"


@pytest.mark.parametrize(
    "args, message",
    [
        (["explain", "shop/db-0"], "error: no snapshot: give snapshot files, or --live to read the cluster of the current kubectl context"),
        (["explain", "shop/db-0", "snap.yaml", "--live"], "error: give snapshot files or --live/--context/--kubeconfig, not both"),
        (
            ["schedule", "--live", "--config", "c.yaml", "--scheduler-config", "configmap/a/b"],
            "error: give --config or --scheduler-config, not both",
        ),
        (["schedule", "--context", "nope"], "error: {kubeconfig}: context 'nope' not found"),
    ],
    ids=["no-snapshot", "files-and-live", "two-configs", "unknown-context"],
)
def test_usage_errors_are_one_line(api, kubeconfig, run_cli, args, message):
    result = run_cli(*args)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [message.format(kubeconfig=kubeconfig)]


def test_schedule_namespace_shows_that_namespace_only(api, kubeconfig, run_cli):
    everything = run_cli("schedule", "--live", "-o", "json", "--seed", "1").json()
    shop = run_cli("schedule", "--live", "-o", "json", "--seed", "1", "-n", "shop").json()
    expected = [p for p in everything["placements"] if p["pod"].startswith("shop/")]
    assert shop["placements"] == expected and expected
    assert [u["pod"] for u in shop["unschedulable"]] == []  # db-0 fits in zone b; analytics-big is batch's
    assert shop["skipped"] == []
    assert shop["summary"] == {"pending": len(expected), "scheduled": len(expected), "unschedulable": 0, "skipped": 0, "preempted": 0}


def test_write_snapshot_works_live(api, kubeconfig, tmp_path: Path, run_cli):
    out = tmp_path / "after.yaml"
    assert run_cli("schedule", "--live", "--write-snapshot", str(out), "--seed", "1").exit_code == 0
    again = run_cli("schedule", str(out), "-o", "json").json()
    assert again["summary"]["pending"] == 2  # the pod that fits nowhere and the gated one
    assert json.dumps(again).count("analytics-big") == 1
