"""kschedctl's predictions against a real kube-scheduler: the pending pods of a snapshot are loaded,
kschedctl predicts from the snapshot, then kube-scheduler (with the same
KubeSchedulerConfiguration) schedules them. A pod kube-scheduler binds kschedctl must bind too, and
replayed in the queue's order (the pods bound after it unbound again), its node must be among
kschedctl's best-scored (ties are broken at random by both, so runs diverge after a tie); a pod left
unschedulable must report the same message. Skipped without $KSCHEDCTL_TEST_ASSETS (and kube-scheduler in it)."""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from .realcluster_env import Cluster, EnvError
from .realcluster_load import EXAMPLES, SCHEDULER_CONFIG, load_snapshot, snapshot_items

KUBE_VERSION = "1.36"  # the release the assets are expected to be; KSCHEDCTL_TEST_KUBE_VERSION overrides
WAIT = 90.0


def pending_pods(path: Path) -> list[str]:
    return [
        f"{p['metadata'].get('namespace') or 'default'}/{p['metadata']['name']}"
        for p in snapshot_items(path)
        if p.get("kind") == "Pod" and not p.get("spec", {}).get("nodeName") and p.get("status", {}).get("phase", "Pending") == "Pending"
    ]


def outcome(cluster: Cluster, pod: str) -> tuple[str, str] | None:
    """("bound", node), ("unschedulable"/"gated", message), or None while undecided."""
    ns, name = pod.split("/")
    obj = cluster.request("GET", f"/api/v1/namespaces/{ns}/pods/{name}")
    if obj["spec"].get("nodeName"):
        return ("bound", obj["spec"]["nodeName"])
    if obj["spec"].get("schedulingGates"):
        return ("gated", "")
    for cond in obj.get("status", {}).get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
            reason = cond.get("reason")
            if reason == "SchedulingGated":
                return ("gated", cond.get("message", ""))
            if reason == "Unschedulable":
                return ("unschedulable", cond.get("message", ""))
    return None


def wait_for(cluster: Cluster, pods: list[str]) -> dict[str, tuple[str, str]]:
    end = time.monotonic() + WAIT
    seen: dict[str, tuple[str, str]] = {}
    while time.monotonic() < end:
        for pod in pods:
            if pod not in seen:
                got = outcome(cluster, pod)
                if got is not None:
                    seen[pod] = got
        if len(seen) == len(pods):
            return seen
        time.sleep(0.5)
    raise EnvError(f"kube-scheduler decided {len(seen)} of {len(pods)} pods within {WAIT:.0f}s; undecided: {sorted(set(pods) - set(seen))}")


def kschedctl_args(config: Path | None) -> list[str]:
    version = os.environ.get("KSCHEDCTL_TEST_KUBE_VERSION", KUBE_VERSION)
    return ["--kube-version", version] + (["--config", str(config)] if config is not None else [])


def predictions(run_cli: Callable[..., Any], snapshot: Path, config: Path | None) -> dict[str, tuple[str, str]]:
    """kschedctl's run over the snapshot (which capture reads back the same, test_capture_fidelity)."""
    result = run_cli("schedule", str(snapshot), "-o", "json", "--seed", "1", *kschedctl_args(config))
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    got: dict[str, tuple[str, str]] = {p["pod"]: ("bound", p["node"]) for p in doc["placements"]}
    got.update({u["pod"]: ("unschedulable", u["message"]) for u in doc["unschedulable"]})
    got.update({s["pod"]: ("gated", "") for s in doc["skipped"]})
    return got


def _key(obj: dict[str, Any]) -> str:
    return f"{obj['metadata']['namespace']}/{obj['metadata']['name']}"


def _unbound(pod: dict[str, Any]) -> dict[str, Any]:
    """The pod as it was before kube-scheduler bound it."""
    pod = copy.deepcopy(pod)
    pod["spec"].pop("nodeName", None)
    status = pod.setdefault("status", {})
    status["phase"] = "Pending"
    status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
    return pod


def replay(run_cli: Callable[..., Any], after: Path, real: dict[str, tuple[str, str]], config: Path | None, tmp_path: Path) -> list[str]:
    """Walk kube-scheduler's decisions in its queue's order: for each pod
    it bound, explain the pod on the cluster as it was then (the pods bound after it unbound again)
    and check that its node is among kschedctl's best; returns the disagreements. kube-scheduler
    runs before the pending pods are created, one a second, so it takes them in creation order
    (started after, it would take them in its informer's list order)."""
    items = snapshot_items(after)
    pods = {_key(o): o for o in items if o.get("kind") == "Pod"}
    order = sorted(
        (k for k, (what, _) in real.items() if what == "bound"),
        key=lambda k: pods[k]["metadata"]["creationTimestamp"],
    )
    problems = []
    for i, key in enumerate(order):
        later = set(order[i:])
        state = [_unbound(o) if o.get("kind") == "Pod" and _key(o) in later else o for o in items]
        snap = tmp_path / f"before-{i}.yaml"
        snap.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": state}, sort_keys=False))
        result = run_cli("explain", key, str(snap), "-o", "json", *kschedctl_args(config))
        assert result.exit_code == 0, result.stderr
        ranking = result.json()["ranking"]
        best = {r["node"] for r in ranking if ranking and r["total"] == ranking[0]["total"]}
        if real[key][1] not in best:
            problems.append(f"{key}: kube-scheduler bound it to {real[key][1]}; kschedctl's best: {sorted(best)} ({ranking})")
    return problems


@pytest.mark.parametrize(
    ("example", "config_yaml"),
    [("cluster.yaml", None), ("whatif-cluster.yaml", None), ("cluster.yaml", SCHEDULER_CONFIG)],
    ids=["cluster-defaults", "whatif-defaults", "cluster-mostallocated"],
)
def test_real_scheduler_agrees_with_the_predictions(
    example: str,
    config_yaml: str | None,
    real_cluster: Cluster,
    use_cluster: Callable[..., Path],
    tmp_path: Path,
    run_cli: Callable[..., Any],
) -> None:
    if not os.access(real_cluster.plane.assets / "kube-scheduler", os.X_OK):
        pytest.skip("no kube-scheduler among the assets")
    config = None
    if config_yaml:
        config = tmp_path / "scheduler-config.yaml"
        config.write_text(config_yaml)
    predicted = predictions(run_cli, EXAMPLES / example, config)
    try:
        load_snapshot(real_cluster, snapshot_items(EXAMPLES / example), before_pending=lambda: real_cluster.start_scheduler(config_yaml))
        use_cluster()
        real = wait_for(real_cluster, pending_pods(EXAMPLES / example))
    except EnvError as err:
        pytest.fail(str(err), pytrace=False)
    for pod, (what, detail) in sorted(real.items()):
        kind, expected = predicted[pod]
        assert what == kind, f"{pod}: kube-scheduler: {what} {detail!r}; kschedctl: {kind} {expected!r}"
        if what == "unschedulable":
            assert detail == expected, f"{pod}: kube-scheduler says {detail!r}; kschedctl {expected!r}"
    after = tmp_path / "after.yaml"
    assert run_cli("capture", "-o", str(after)).exit_code == 0
    problems = replay(run_cli, after, real, config, tmp_path)
    assert not problems, "\n".join(problems)
