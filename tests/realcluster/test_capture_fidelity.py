"""`kschedctl capture` against a real kube-apiserver: what it captures schedules as the snapshot that
was loaded does (same decisions, same messages), an RBAC denial on one kind warns and goes on, and
--scheduler-config reads a real ConfigMap. Skipped without $KSCHEDCTL_TEST_ASSETS."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from .realcluster_env import LIMITED, Cluster
from .realcluster_load import EXAMPLES, SCHEDULER_CONFIG, Loader


def schedule_json(run_cli: Callable[..., Any], *args: str) -> Any:
    result = run_cli("schedule", *args, "-o", "json", "--seed", "1")
    assert result.exit_code == 0, result.stderr
    return result.json()


def capture(run_cli: Callable[..., Any], out: Path, *extra: str) -> Any:
    result = run_cli("capture", "-o", str(out), *extra)
    assert result.exit_code == 0, result.stderr
    return result


@pytest.mark.parametrize("example", ["cluster.yaml", "whatif-cluster.yaml", "dra-gpu-cluster.yaml"])
def test_capture_then_schedule_matches_the_loaded_snapshot(
    example: str, load: Callable[[Path], Loader], use_cluster: Callable[..., Path], tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    loader = load(EXAMPLES / example)
    assert loader.skipped == []
    use_cluster()
    out = tmp_path / "captured.yaml"
    result = capture(run_cli, out)
    assert "not captured" not in result.stderr
    assert schedule_json(run_cli, str(out)) == schedule_json(run_cli, str(EXAMPLES / example))


def test_live_schedule_matches_the_loaded_snapshot(
    load: Callable[[Path], Loader], use_cluster: Callable[..., Path], run_cli: Callable[..., Any]
) -> None:
    load(EXAMPLES / "cluster.yaml")
    use_cluster()
    assert schedule_json(run_cli, "--live") == schedule_json(run_cli, str(EXAMPLES / "cluster.yaml"))


def _grant_all_but_pdbs(cluster: Cluster) -> None:
    """A ClusterRole reading every kind capture lists except PodDisruptionBudgets, bound to LIMITED."""
    groups = ["", "apps", "storage.k8s.io", "scheduling.k8s.io", "resource.k8s.io"]
    cluster.request(
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "capture-no-pdbs"},
            "rules": [{"apiGroups": groups, "resources": ["*"], "verbs": ["get", "list", "watch"]}],
        },
    )
    cluster.request(
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "capture-no-pdbs"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "capture-no-pdbs"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": LIMITED}],
        },
    )


def test_rbac_denial_on_one_kind_warns_and_goes_on(
    real_cluster: Cluster, load: Callable[[Path], Loader], use_cluster: Callable[..., Path], tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    load(EXAMPLES / "cluster.yaml")
    _grant_all_but_pdbs(real_cluster)
    use_cluster(LIMITED)
    out = tmp_path / "captured.yaml"
    result = capture(run_cli, out)
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert any(
        w.startswith("warning: PodDisruptionBudget not captured (policy/v1 poddisruptionbudgets): Forbidden (403)") for w in warnings
    ), result.stderr
    assert all("PodDisruptionBudget" in w for w in warnings if "not captured" in w), result.stderr
    assert "# not captured: PodDisruptionBudget (Forbidden (403))" in out.read_text()
    assert schedule_json(run_cli, str(out)) == schedule_json(run_cli, str(EXAMPLES / "cluster.yaml"))


def test_scheduler_config_is_read_from_a_real_configmap(
    real_cluster: Cluster, load: Callable[[Path], Loader], use_cluster: Callable[..., Path], tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    load(EXAMPLES / "cluster.yaml")
    real_cluster.request(
        "POST",
        "/api/v1/namespaces/kube-system/configmaps",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kube-scheduler-config"}, "data": {"config.yaml": SCHEDULER_CONFIG}},
    )
    use_cluster()
    out = tmp_path / "snap.yaml"
    capture(run_cli, out, "--scheduler-config", "configmap/kube-system/kube-scheduler-config")
    config = tmp_path / "snap-scheduler-config.yaml"
    assert config.read_text() == SCHEDULER_CONFIG
    expected = schedule_json(run_cli, str(EXAMPLES / "cluster.yaml"), "--config", str(config))
    assert expected != schedule_json(run_cli, str(EXAMPLES / "cluster.yaml"))  # the config matters here
    assert schedule_json(run_cli, str(out), "--config", str(config)) == expected
    assert schedule_json(run_cli, "--live", "--scheduler-config", "configmap/kube-system/kube-scheduler-config") == expected
    assert yaml.safe_load(config.read_text())["kind"] == "KubeSchedulerConfiguration"
    assert json.dumps(expected)  # plain data
