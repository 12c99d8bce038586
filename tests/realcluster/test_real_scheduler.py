"""kschedctl's predictions against a real kube-scheduler: the pending pods of a snapshot are loaded,
kschedctl predicts from the live cluster, then kube-scheduler (with the same
KubeSchedulerConfiguration) schedules them; each pod must land where kschedctl said (or on a node
kschedctl picks under another tie-breaking seed), and a pod left unschedulable must report the
same message. Skipped without $KSCHEDCTL_TEST_ASSETS (and kube-scheduler in it)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from realcluster_env import Cluster, EnvError
from realcluster_load import EXAMPLES, SCHEDULER_CONFIG, Loader, snapshot_items

KUBE_VERSION = "1.36"  # the release the assets are expected to be; KSCHEDCTL_TEST_KUBE_VERSION overrides
WAIT = 90.0
SEEDS = range(1, 9)


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


def predictions(run_cli: Callable[..., Any], seed: int, config: Path | None) -> dict[str, tuple[str, str]]:
    version = os.environ.get("KSCHEDCTL_TEST_KUBE_VERSION", KUBE_VERSION)
    args = ["schedule", "--live", "-o", "json", "--seed", str(seed), "--kube-version", version]
    if config is not None:
        args += ["--config", str(config)]
    result = run_cli(*args)
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    got: dict[str, tuple[str, str]] = {p["pod"]: ("bound", p["node"]) for p in doc["placements"]}
    got.update({u["pod"]: ("unschedulable", u["message"]) for u in doc["unschedulable"]})
    got.update({s["pod"]: ("gated", "") for s in doc["skipped"]})
    return got


@pytest.mark.parametrize(
    ("example", "config_yaml"),
    [("cluster.yaml", None), ("whatif-cluster.yaml", None), ("cluster.yaml", SCHEDULER_CONFIG)],
    ids=["cluster-defaults", "whatif-defaults", "cluster-mostallocated"],
)
def test_real_scheduler_agrees_with_the_predictions(
    example: str,
    config_yaml: str | None,
    real_cluster: Cluster,
    load: Callable[[Path], Loader],
    use_cluster: Callable[..., Path],
    tmp_path: Path,
    run_cli: Callable[..., Any],
) -> None:
    if not os.access(real_cluster.plane.assets / "kube-scheduler", os.X_OK):
        pytest.skip("no kube-scheduler among the assets")
    load(EXAMPLES / example)
    use_cluster()
    config = None
    if config_yaml:
        config = tmp_path / "scheduler-config.yaml"
        config.write_text(config_yaml)
    predicted = {seed: predictions(run_cli, seed, config) for seed in SEEDS}
    try:
        real_cluster.start_scheduler(config_yaml)
        pods = pending_pods(EXAMPLES / example)
        real = wait_for(real_cluster, pods)
    except EnvError as err:
        pytest.fail(str(err), pytrace=False)
    first = predicted[SEEDS[0]]
    for pod, (what, detail) in sorted(real.items()):
        kind, expected = first[pod]
        assert what == kind, f"{pod}: kube-scheduler: {what} {detail!r}; kschedctl: {kind} {expected!r}"
        if what == "bound":
            among = {predicted[s][pod][1] for s in SEEDS if predicted[s][pod][0] == "bound"}
            assert detail in among, f"{pod}: kube-scheduler bound it to {detail}; kschedctl to one of {sorted(among)}"
        elif what == "unschedulable":
            assert detail == expected, f"{pod}: kube-scheduler says {detail!r}; kschedctl {expected!r}"
