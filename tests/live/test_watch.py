"""`kschedctl watch`: Pending pods re-explained as the cluster changes, read by list+watch from the
fake API server (127.0.0.1, each watch request bounded by the server's short wait). Run as a
subprocess: the command streams lines and ends by itself (--duration, --until-scheduled)."""

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
from fake_apiserver import FakeApiServer

ROOT = Path(__file__).resolve().parents[2]
BIG = "batch/analytics-big"  # unschedulable in the demo cluster: too big for every node
BIG_NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "big-node", "labels": {"kubernetes.io/hostname": "big-node"}},
    "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}},
}


class Watch:
    """The command in a subprocess; its stdout lines arrive on a queue as they are printed."""

    def __init__(self, kubeconfig: Path, *args: str) -> None:
        env = {**os.environ, "KUBECONFIG": str(kubeconfig), "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kschedctl", "watch", "-o", "json", "--interval", "1", *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def until(self, want: Callable[[dict[str, Any]], bool], timeout: float = 20.0) -> list[dict[str, Any]]:
        """Events up to and including the first one ``want`` accepts."""
        seen: list[dict[str, Any]] = []
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                event = json.loads(self.lines.get(timeout=0.2))
            except queue.Empty:
                if self.proc.poll() is not None and self.lines.empty():
                    break
                continue
            seen.append(event)
            if want(event):
                return seen
        self.proc.kill()
        raise AssertionError(f"no such event within {timeout}s; seen {seen}; stderr {self.stderr()}")

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        if self.proc.poll() is None:
            return ""
        return self.proc.stderr.read()

    def finish(self, timeout: float = 20.0) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


@pytest.fixture
def watch(kubeconfig: Path) -> Callable[..., Watch]:
    started: list[Watch] = []

    def start(*args: str) -> Watch:
        w = Watch(kubeconfig, *args)
        started.append(w)
        return w

    yield start  # type: ignore[misc]
    for w in started:
        if w.proc.poll() is None:
            w.proc.kill()
            w.proc.wait()


def _is(kind: str, pod: str | None = None) -> Callable[[dict[str, Any]], bool]:
    return lambda e: e["event"] == kind and (pod is None or e.get("pod") == pod)


def bound(api: FakeApiServer, key: str, node: str) -> dict[str, Any]:
    ns, name = key.split("/")
    pod = next(o for o in api.store[api.by_kind["Pod"]] if o["metadata"]["name"] == name and o["metadata"].get("namespace") == ns)
    return {"apiVersion": "v1", "kind": "Pod", **pod, "spec": {**pod["spec"], "nodeName": node}, "status": {"phase": "Running"}}


def test_a_pending_pod_is_re_explained_when_a_node_comes_then_reported_scheduled(api: FakeApiServer, watch: Callable[..., Watch]) -> None:
    w = watch(BIG, "--until-scheduled", "--duration", "30")
    first = w.until(_is("Pending", BIG))
    assert first[-1]["verdict"]["node"] is None and "Insufficient cpu" in first[-1]["verdict"]["message"]
    api.apply("ADDED", BIG_NODE)
    changed = w.until(_is("Changed", BIG))
    assert {"type": "ADDED", "kind": "Node", "name": "big-node"} in next(e for e in changed if e["event"] == "ClusterChanged")["changes"]
    assert changed[-1]["verdict"]["node"] == "big-node" and changed[-1]["previous"]["message"] == first[-1]["verdict"]["message"]
    api.apply("MODIFIED", bound(api, BIG, "big-node"))
    assert w.until(_is("Scheduled", BIG))[-1]["node"] == "big-node"
    assert w.finish() == 0  # --until-scheduled: nothing watched is pending any more


def test_410_gone_relists_and_the_change_is_still_seen(api: FakeApiServer, watch: Callable[..., Watch]) -> None:
    w = watch(BIG, "--duration", "30", "--until-scheduled")
    w.until(_is("Pending", BIG))
    lists_before = sum(1 for q in api.list_requests("nodes") if "watch" not in q)
    api.compact()  # the history the watch would go on from is gone: 410, then a relist
    api.apply("ADDED", BIG_NODE)
    events = w.until(_is("Changed", BIG))
    assert any(c["name"] == "big-node" for e in events if e["event"] == "ClusterChanged" for c in e["changes"])
    assert sum(1 for q in api.list_requests("nodes") if "watch" not in q) > lists_before
    api.apply("MODIFIED", bound(api, BIG, "big-node"))
    w.until(_is("Scheduled", BIG))
    assert w.finish() == 0
    # after the relist, the watches went on from the new list's resourceVersion, not the old one
    watched_from = [int(q["resourceVersion"]) for q in api.list_requests("nodes") if q.get("watch")]
    assert watched_from[-1] >= api.compacted


def test_a_dropped_watch_connection_is_reopened(api: FakeApiServer, watch: Callable[..., Watch]) -> None:
    w = watch(BIG, "--duration", "30", "--until-scheduled")
    w.until(_is("Pending", BIG))
    api.drop_watches = 2
    api.apply("ADDED", BIG_NODE)
    assert w.until(_is("Changed", BIG))[-1]["verdict"]["node"] == "big-node"
    assert api.drop_watches == 0
    api.apply("DELETED", bound(api, BIG, "big-node"))
    assert w.until(_is("Deleted", BIG))
    assert w.finish() == 0


def test_text_lines_and_a_bounded_run(api: FakeApiServer, kubeconfig: Path) -> None:
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "kschedctl", "watch", "-n", "batch", "--duration", "0"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("watching 2 pending pod(s) in context fake-prod (http://127.0.0.1:")
    assert lines[1].startswith(f"+0s  {BIG}  pending, unschedulable: 0/6 nodes are available:")
    assert "batch/nightly-export  pending, gated" in lines[2]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["shop/nope", "--duration", "0"], "error: context fake-prod (http://127.0.0.1:"),
        (
            ["--config", "x.yaml", "--scheduler-config", "configmap/kube-system/s", "--duration", "0"],
            "error: give --config or --scheduler-config, not both",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str, kubeconfig: Path) -> None:
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "kschedctl", "watch", *args], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].startswith(message), done.stderr
    assert "Traceback" not in done.stderr


def test_the_scheduler_config_comes_from_the_clusters_configmap(api: FakeApiServer, kubeconfig: Path, run_cli: Any) -> None:
    """--scheduler-config reads the ConfigMap once, and the answers are explain --live's with it."""
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "PYTHONPATH": str(ROOT)}
    ref = "configmap/kube-system/kube-scheduler-config"
    done = subprocess.run(
        [sys.executable, "-m", "kschedctl", "watch", "-n", "shop", "--scheduler-config", ref, "-o", "json", "--duration", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert [p for p, _ in api.requests if "configmaps" in p] == ["/api/v1/namespaces/kube-system/configmaps/kube-scheduler-config"]
    for line in done.stdout.splitlines():
        event = json.loads(line)
        explained = run_cli("explain", event["pod"], "--live", "--scheduler-config", ref, "-o", "json", "--seed", "1").json()
        assert (event["verdict"]["node"], event["verdict"]["message"]) == (explained["node"], explained["message"])
