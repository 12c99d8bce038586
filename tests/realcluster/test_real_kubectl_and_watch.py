"""Against a real kube-apiserver: the real kubectl calling the plugin (`kubectl ksched explain POD`,
kubectl-ksched found on PATH), and `kschedctl watch` following a pending pod through list+watch
while the cluster changes (a node joins, the pod is bound). Skipped without $KSCHEDCTL_TEST_ASSETS;
the kubectl test also without a kubectl binary in it (built from the same release's sources)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .realcluster_env import Cluster
from .realcluster_load import EXAMPLES, ROOT, Loader

BIG = "batch/analytics-big"  # too big for every node of examples/cluster.yaml


def _env(kubeconfig: Path, path: str | None = None) -> dict[str, str]:
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "PYTHONPATH": str(ROOT)}
    if path is not None:
        env["PATH"] = path
    return env


def test_real_kubectl_runs_the_plugin(
    load: Callable[[Path], Loader], use_cluster: Callable[..., Path], real_cluster: Cluster, tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    kubectl = real_cluster.plane.assets / "kubectl"
    if not os.access(kubectl, os.X_OK):
        pytest.skip(f"no kubectl in {real_cluster.plane.assets}")
    load(EXAMPLES / "cluster.yaml")
    kubeconfig = use_cluster()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    plugin = bin_dir / "kubectl-ksched"
    plugin.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m kschedctl.cli.kubectl_plugin "$@"\n')
    plugin.chmod(0o755)
    env = _env(kubeconfig, f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(kubectl), *args], env=env, capture_output=True, text=True, timeout=120)

    assert "kubectl-ksched" in run("plugin", "list").stdout
    assert run("get", "pods", "-n", "shop", "api-5c8b-xk2p9", "-o", "name").stdout.strip() == "pod/api-5c8b-xk2p9"
    explained = run("ksched", "explain", "api-5c8b-xk2p9", "-n", "shop", "-o", "json")
    assert explained.returncode == 0, explained.stderr
    expected = run_cli("explain", "shop/api-5c8b-xk2p9", str(EXAMPLES / "cluster.yaml"), "-o", "json")
    got, want = json.loads(explained.stdout), expected.json()
    assert (got["node"], got["message"], got["nodes"]) == (want["node"], want["message"], want["nodes"])
    missing = run("ksched", "explain", "nope", "-n", "shop")
    assert missing.returncode == 2 and missing.stderr.startswith("error: ") and "Traceback" not in missing.stderr


class _Lines:
    """A subprocess's stdout lines, as they come."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.q: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.q.put(line)

    def until(self, event: str, pod: str, timeout: float = 60.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        seen = []
        while time.monotonic() < end:
            try:
                got = json.loads(self.q.get(timeout=0.3))
            except queue.Empty:
                if self.proc.poll() is not None and self.q.empty():
                    break
                continue
            seen.append(got)
            if got["event"] == event and got.get("pod") == pod:
                return dict(got)
        raise AssertionError(f"no {event} for {pod} within {timeout}s: {seen}")


def test_watch_follows_a_pending_pod_on_a_real_apiserver(
    load: Callable[[Path], Loader], use_cluster: Callable[..., Path], real_cluster: Cluster
) -> None:
    load(EXAMPLES / "cluster.yaml")
    kubeconfig = use_cluster()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kschedctl", "watch", BIG, "-o", "json", "--interval", "2", "--until-scheduled", "--duration", "90"],
        env=_env(kubeconfig),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = _Lines(proc)
        first = lines.until("Pending", BIG)
        assert first["verdict"]["node"] is None and "Insufficient cpu" in first["verdict"]["message"]
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "big-node", "labels": {"kubernetes.io/hostname": "big-node", "kubernetes.io/os": "linux"}},
        }
        created = real_cluster.request("POST", "/api/v1/nodes", node)
        created["status"] = {
            "allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"},
            "capacity": {"cpu": "64", "memory": "256Gi", "pods": "110"},
        }
        created = real_cluster.request("PUT", "/api/v1/nodes/big-node/status", created)
        if created["spec"].get("taints"):  # what TaintNodesByCondition would add, were it enabled
            created["spec"]["taints"] = []
            real_cluster.request("PUT", "/api/v1/nodes/big-node", created)
        assert lines.until("Changed", BIG)["verdict"]["node"] == "big-node"
        binding = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": "analytics-big"},
            "target": {"apiVersion": "v1", "kind": "Node", "name": "big-node"},
        }
        real_cluster.request("POST", "/api/v1/namespaces/batch/pods/analytics-big/binding", binding)
        assert lines.until("Scheduled", BIG)["node"] == "big-node"
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
