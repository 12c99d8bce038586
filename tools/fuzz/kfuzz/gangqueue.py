"""The gangqueue dimension (`--dimension gangqueue`): a gang's gated members requeued together.

The scheduling queue shares one requeue per event between the gated members of a gang
(PriorityQueue._move_pods with Framework.pre_enqueue_share_key), and the scheduler's pod map keeps
each group's pod and scheduled counts as pods change (PodsByUID.counts_by, scheduled_counts_by)
instead of walking every pod at each PreEnqueue and Permit. Each input is a random gang workload
at 1.35 (Workload) or 1.36 (PodGroup): gangs of random sizes and minCounts, members arriving at
random times (a `simulate` timeline) or all at once (`schedule`), some held by scheduling gates
(ungated later), naming a claim that is missing, in a second profile, already bound, terminal,
deleted while pending, or of a group that does not exist. It runs twice: as shipped, and with
every gated pod asked on its own and the counts walked (the code the fast paths short-cut). Both
outputs must be byte-identical, and the first obeys the contract (kfuzz/contract.py).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kfuzz.contract import Checker, Run
from kschedctl.testing import GANG_GATES, TWO_PROFILES_CONFIG


@contextmanager
def _asking_each_pod() -> Iterator[None]:
    """The queue and the pod group manager as they were before the fast paths."""
    from kschedctl.framework.podgroup import PodGroupManager
    from kschedctl.runtime.framework import Framework

    saved = (Framework.pre_enqueue_share_key, PodGroupManager.all_pods_count, PodGroupManager.scheduled_pods_count)

    def no_key(self: Any, pod: Any, plugin: str) -> None:
        return None

    def walk_count(self: Any, key: str) -> int:
        return len(self._members(key))

    def walk_scheduled(self: Any, key: str) -> int:
        count: int = self.state(key).scheduled_pods_count()
        return count

    Framework.pre_enqueue_share_key = no_key  # type: ignore[method-assign,assignment]
    PodGroupManager.all_pods_count = walk_count  # type: ignore[method-assign]
    PodGroupManager.scheduled_pods_count = walk_scheduled  # type: ignore[method-assign]
    try:
        yield
    finally:
        Framework.pre_enqueue_share_key, PodGroupManager.all_pods_count, PodGroupManager.scheduled_pods_count = saved  # type: ignore[method-assign]


def _node(i: int, cpu: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}"}},
        "status": {"allocatable": {"cpu": str(cpu), "memory": "16Gi", "pods": "110"}},
    }


def _groups(rng: random.Random, release: str, names: list[str]) -> list[dict[str, Any]]:
    policies = {g: ({"gang": {"minCount": rng.randint(1, 7)}} if rng.random() < 0.85 else {"basic": {}}) for g in names}
    if release == "1.35":
        spec = {"podGroups": [{"name": g, "policy": p} for g, p in policies.items()]}
        return [
            {
                "apiVersion": "scheduling.k8s.io/v1alpha1",
                "kind": "Workload",
                "metadata": {"name": "job", "namespace": "default"},
                "spec": spec,
            }
        ]
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": g, "namespace": "default", "uid": f"pg-{g}"},
            "spec": {"schedulingPolicy": p},
        }
        for g, p in policies.items()
    ]


def _pod(rng: random.Random, i: int, release: str, groups: list[str], nodes: int) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": rng.choice(["200m", "500m", "1"])}}}]
    }
    group = rng.choice([*groups, *groups, "missing", None])
    if group is not None:
        if release == "1.35":
            spec["workloadRef"] = {"name": "job", "podGroup": group}
        else:
            spec["schedulingGroup"] = {"podGroupName": group}
    if rng.random() < 0.12:
        spec["schedulingGates"] = [{"name": "example.com/hold"}]
    if rng.random() < 0.08:
        spec["resourceClaims"] = [{"name": "c", "resourceClaimName": "absent"}]
    if rng.random() < 0.15:
        spec["schedulerName"] = "other"  # TWO_PROFILES_CONFIG's second profile
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"p{i}", "namespace": "default", "uid": f"uid-p{i}", "creationTimestamp": "2025-01-01T00:00:00Z"},
        "spec": spec,
    }
    roll = rng.random()
    if roll < 0.08:
        spec["nodeName"] = f"n{rng.randrange(nodes)}"
        pod["status"] = {"phase": "Running"}
    elif roll < 0.11:
        pod["status"] = {"phase": rng.choice(["Succeeded", "Failed"])}
    return pod


def _same(checker: Checker, args: list[str], first: Run, what: str) -> None:
    with _asking_each_pod():
        alone = checker.run(args)
    if alone.stdout != first.stdout or alone.exit_code != first.exit_code:
        checker.fail("shared-requeue", f"{what}: the output differs when every gated pod is asked on its own", alone)


def gangqueue_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    release = rng.choice(["1.35", "1.36"])
    groups = [f"g{i}" for i in range(rng.randint(1, 4))]
    nodes = rng.randint(2, 8)
    objects = [_node(i, rng.choice([2, 4, 8])) for i in range(nodes)] + _groups(rng, release, groups)
    pods = [_pod(rng, i, release, groups, nodes) for i in range(rng.randint(3, 40))]
    cfg = workdir / "gangqueue-config.yaml"
    cfg.write_text(TWO_PROFILES_CONFIG)
    common = [
        "--kube-version",
        release,
        "--feature-gates",
        GANG_GATES,
        "--config",
        str(cfg),
        "-o",
        "json",
        "--seed",
        str(rng.randrange(100)),
    ]
    if rng.random() < 0.5:
        snap = workdir / "gangqueue.json"
        snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects + pods}))
        args = ["schedule", str(snap), *common]
        run = checker.run(args)
        if checker.basic(run, "schedule", str(snap)) and run.exit_code == 0:
            checker.schedule_invariants(run, str(snap), lambda: checker.run(args))
            _same(checker, args, run, "schedule")
        return f"gangqueue schedule {release} {len(groups)} groups {len(pods)} pods"
    events: list[dict[str, Any]] = []
    t = 0
    for pod in pods:
        t += rng.choice([0, 0, 1, 2, 5])
        events.append({"at": f"{t}s", "action": "createPod", "object": pod})
        name = f"default/{pod['metadata']['name']}"
        # (ungating a bound pod is refused by no check and crashes simulate: not this dimension's)
        if pod["spec"].get("schedulingGates") and not pod["spec"].get("nodeName") and rng.random() < 0.7:
            events.append({"at": f"{t + rng.randint(1, 40)}s", "action": "ungatePod", "pod": name})
        elif not pod["spec"].get("nodeName") and not pod.get("status") and rng.random() < 0.08:
            events.append({"at": f"{t}s", "action": "deletePod", "pod": name})
    events.sort(key=lambda e: int(e["at"][:-1]))  # stable: a pod's creation before its own events
    scenario = workdir / "gangqueue-scenario.json"
    doc = {"apiVersion": "kschedctl.io/v1alpha1", "kind": "Scenario", "metadata": {"name": "gangs"}, "objects": objects, "events": events}
    scenario.write_text(json.dumps(doc))
    args = ["simulate", str(scenario), *common]
    run = checker.run(args)
    if checker.basic(run, "simulate", str(scenario)) and run.exit_code == 0:
        again = checker.run(args)
        if again.stdout != run.stdout:
            checker.fail("deterministic", "the same scenario and seed gave different output", again)
        _same(checker, args, run, "simulate")
    return f"gangqueue simulate {release} {len(groups)} groups {len(pods)} pods {len(events)} events"
