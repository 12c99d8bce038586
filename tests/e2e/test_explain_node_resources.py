"""`kschedctl explain -o json` with NodeResourcesFit and NodeResourcesBalancedAllocation.

Scenario (upstream semantics: noderesources/fit.go, least_allocated.go, balanced_allocation.go): the
pod asks for 1 cpu and 1Gi. `small` has 500m in all, so even an empty node is too small
(UnschedulableAndUnresolvable); `full` takes one pod and has it; `busy` and `idle` fit.
LeastAllocated: busy (1000/4000 cpu, 5Gi/8Gi memory free) -> (25 + 62) / 2 = 43; idle -> (75 + 87) / 2 = 81.
BalancedAllocation <= 1.35: busy fractions (.75, .375) -> 81, idle (.25, .125) -> 93;
1.36+: busy 50 + (50 + 81 - 87) / 2 = 72, idle 50 + (50 + 93 - 100) / 2 = 71.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer.testing

import kschedctl.cli.app
from kschedctl.testing import only_plugins

SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: busy}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: idle}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: small}, status: {allocatable: {cpu: 500m, memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: full}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "1"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: existing, namespace: default}
  spec: {nodeName: busy, containers: [{name: c, image: x, resources: {requests: {cpu: "2", memory: 2Gi}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: tenant, namespace: default}
  spec: {nodeName: full, containers: [{name: c, image: x}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: pod, namespace: default}
  spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
"""

CONFIG = only_plugins("NodeResourcesFit", "NodeResourcesBalancedAllocation")


@pytest.mark.parametrize("version,balanced", [("1.35", {"busy": 81, "idle": 93}), ("1.37", {"busy": 72, "idle": 71})])
def test_explain_node_resources(tmp_path: Path, version: str, balanced: dict) -> None:
    snap = tmp_path / "snap.yaml"
    snap.write_text(SNAPSHOT)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(CONFIG)
    result = typer.testing.CliRunner().invoke(
        kschedctl.cli.app.app, ["explain", "default/pod", str(snap), "--config", str(cfg), "--kube-version", version, "-o", "json"]
    )
    assert result.exit_code == 0, result.output
    nodes = json.loads(result.stdout)["nodes"]
    assert nodes["small"]["filter"] == {
        "code": "UnschedulableAndUnresolvable",
        "plugin": "NodeResourcesFit",
        "reasons": ["Insufficient cpu"],
    }
    assert nodes["full"]["filter"] == {"code": "Unschedulable", "plugin": "NodeResourcesFit", "reasons": ["Too many pods"]}
    for name, fit_score in (("busy", 43), ("idle", 81)):
        assert nodes[name]["filter"]["code"] == "Success"
        assert nodes[name]["scores"]["NodeResourcesFit"] == {"score": fit_score, "weight": 1}
        assert nodes[name]["scores"]["NodeResourcesBalancedAllocation"] == {"score": balanced[name], "weight": 1}
        assert nodes[name]["total"] == fit_score + balanced[name]
