"""`kschedctl schedule -o json` with SchedulingGates: a gated pod is skipped with the PreEnqueue reason.

Upstream: schedulinggates/scheduling_gates.go ("waiting for scheduling gates: [foo bar]").
(`explain` evaluates filters and scores only, so the gate shows through `schedule`.)
"""

from __future__ import annotations

import json
from pathlib import Path

import typer.testing

import kschedctl.cli.app
from kschedctl.testing import only_plugins

SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: gated, namespace: default}
  spec: {schedulingGates: [{name: foo}, {name: bar}], containers: [{name: c, image: x}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: free, namespace: default}
  spec: {containers: [{name: c, image: x}]}
"""

CONFIG = only_plugins("SchedulingGates")


def test_schedule_scheduling_gates(tmp_path: Path) -> None:
    snap = tmp_path / "snap.yaml"
    snap.write_text(SNAPSHOT)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(CONFIG)
    result = typer.testing.CliRunner().invoke(kschedctl.cli.app.app, ["schedule", str(snap), "--config", str(cfg), "-o", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["skipped"] == [{"pod": "default/gated", "reason": "waiting for scheduling gates: [foo bar]"}]
    assert [p["pod"] for p in out["placements"]] == ["default/free"]
