"""`kschedctl explain -o json` with TaintToleration: filter reason and reversed normalized scores.

Upstream: tainttoleration/taint_toleration.go. n1 has a NoSchedule taint the pod does not tolerate;
n2 has one untolerated PreferNoSchedule taint, n3 two, n4 none: raw 1/2/0 -> 50/0/100.
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
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  spec: {taints: [{key: dedicated, value: user1, effect: NoSchedule}]}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2}
  spec: {taints: [{key: cpu-type, value: arm64, effect: PreferNoSchedule}]}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: n3}
  spec: {taints: [{key: cpu-type, value: arm64, effect: PreferNoSchedule}, {key: disk-type, value: ssd, effect: PreferNoSchedule}]}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: n4}
  spec: {taints: [{key: foo, value: bar, effect: PreferNoSchedule}]}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: pod1, namespace: default}
  spec:
    containers: [{name: c, image: x}]
    tolerations: [{key: foo, operator: Equal, value: bar, effect: PreferNoSchedule}]
"""

CONFIG = only_plugins("TaintToleration", weights={"TaintToleration": 3})


@pytest.mark.parametrize("version", ["1.35", "1.36", "1.37"])
def test_explain_taint_toleration(tmp_path: Path, version: str) -> None:
    snap = tmp_path / "snap.yaml"
    snap.write_text(SNAPSHOT)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(CONFIG)
    result = typer.testing.CliRunner().invoke(
        kschedctl.cli.app.app, ["explain", "default/pod1", str(snap), "--config", str(cfg), "-o", "json", "--kube-version", version]
    )
    assert result.exit_code == 0, result.output
    nodes = json.loads(result.stdout)["nodes"]
    assert nodes["n1"]["filter"] == {
        "code": "UnschedulableAndUnresolvable",
        "plugin": "TaintToleration",
        "reasons": ["node(s) had untolerated taint(s)"],
    }
    assert nodes["n2"]["scores"]["TaintToleration"] == {"score": 50, "weight": 3}
    assert nodes["n3"]["scores"]["TaintToleration"] == {"score": 0, "weight": 3}
    assert nodes["n4"]["scores"]["TaintToleration"] == {"score": 100, "weight": 3}
    assert nodes["n4"]["total"] == 300
