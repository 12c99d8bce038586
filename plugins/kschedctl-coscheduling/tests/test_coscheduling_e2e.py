"""Coscheduling end to end through `kschedctl schedule`: a scheduler-plugins PodGroup that can never
fit. The run must end (the scheduler stops runs whose pods only reject each other, with a warning)
and every member must be reported unschedulable with Coscheduling's own reason, not the stop notice.

upstream: kubernetes-sigs/scheduler-plugins pkg/coscheduling/coscheduling.go PostFilter
("PodGroup %v gets rejected due to Pod %v is unschedulable even after PostFilter") and the waiting
siblings rejected with "optimistic rejection in PostFilter"."""

from __future__ import annotations

import json

import yaml
from typer.testing import CliRunner

from kschedctl.cli.app import app
from kschedctl.testing import make_node, make_pod

CONFIG = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {
                "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                "queueSort": {"disabled": [{"name": "*"}], "enabled": [{"name": "Coscheduling"}]},
            },
        }
    ],
}


def test_group_that_cannot_fit_ends_and_reports_every_member(tmp_path):
    # upstream: coscheduling_test.go TestPostFilter "pod failed, podGroup rejected" (4 nodes hold 4 of 5)
    group = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "mpi", "namespace": "default"},
        "spec": {"minMember": 5, "scheduleTimeoutSeconds": 10},
    }
    pods = [make_pod(f"mpi-{i}").req(cpu="1500m").label("scheduling.x-k8s.io/pod-group", "mpi").dict() for i in range(5)]
    nodes = [make_node(f"n{i}").capacity(cpu="2", memory="8Gi").dict() for i in range(4)]
    snapshot = tmp_path / "cluster.yaml"
    snapshot.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": nodes + [group] + pods}))
    config = tmp_path / "cosched.yaml"
    config.write_text(yaml.safe_dump(CONFIG))

    result = CliRunner().invoke(app, ["schedule", str(snapshot), "--config", str(config), "-o", "json", "--seed", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["placements"] == []
    messages = {u["pod"]: u["message"] for u in data["unschedulable"]}
    assert sorted(messages) == [f"default/mpi-{i}" for i in range(5)]
    rejected = "PodGroup default/mpi gets rejected due to Pod {} is unschedulable even after PostFilter"
    optimistic = "0/1 nodes are available: 1 optimistic rejection in PostFilter."
    for pod, message in messages.items():
        assert "simulation stopped" not in message and "stopped after" not in message
        assert message == optimistic or (
            message.startswith("0/4 nodes are available: 4 Insufficient cpu.") and message.endswith(rejected.format(pod.split("/")[1]))
        ), message
    assert sum(m == optimistic for m in messages.values()) == 4
    assert "stopped after" in result.stderr and "keep rejecting each other" in result.stderr
