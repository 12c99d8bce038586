"""The dry-run shortcuts of DefaultPreemption decide exactly as the plain SelectVictimsOnNode.

No upstream table: upstream's dry run (default_preemption.go SelectVictimsOnNode) always runs
AddPod/RemovePod and every Filter; kschedctl skips work that cannot change the outcome (no
PreFilter extensions active, a NodeResourcesFit rejection decides a reprieve, resource-only
reprieves when the other active filters read only the Node). These cases schedule whole
clusters with and without the shortcuts (``DefaultPreemption.dry_run_shortcuts``) and compare
placements, unschedulable messages and preemptions.
"""

from __future__ import annotations

import json
import random

import pytest

from kschedctl.cluster.loader import load_snapshot
from kschedctl.config.loader import load_config_file
from kschedctl.framework.runtime.plugin_manager import default_registry
from kschedctl.plugins.default_preemption.plugin import DefaultPreemption
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.versions import KubeVersion

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _node(i: int, rng: random.Random) -> dict:
    alloc = {"cpu": rng.choice(["2", "4"]), "memory": rng.choice(["4Gi", "8Gi"]), "pods": str(rng.choice([4, 110]))}
    spec = {"taints": [{"key": "t", "value": "x", "effect": "NoSchedule"}]} if i % 7 == 0 else {}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"n{i}", "labels": {HOST: f"n{i}", ZONE: f"z{i % 3}"}},
            "spec": spec, "status": {"capacity": dict(alloc), "allocatable": alloc}}


def _pod(name: str, rng: random.Random, node: str | None, prios: list[int], rich: bool) -> dict:
    app = f"a{rng.randrange(4)}"
    spec: dict = {"containers": [{"name": "c", "image": "pause",
                                  "resources": {"requests": {"cpu": rng.choice(["300m", "900m", "1500m"]),
                                                             "memory": rng.choice(["512Mi", "2Gi"])}}}],
                  "priorityClassName": f"p{rng.choice(prios)}"}
    if node:
        spec["nodeName"] = node
    r = rng.random()
    if rich and r < 0.15:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": HOST}]}}
    elif rich and r < 0.3:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": app}}}]
    elif rich and r < 0.4:
        spec["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 80}]
    if rng.random() < 0.1:
        spec["nodeSelector"] = {ZONE: f"z{rng.randrange(3)}"}
    status = {"phase": "Running", "startTime": f"2024-01-01T00:00:{rng.randrange(60):02d}Z"} if node else {"phase": "Pending"}
    return {"apiVersion": "v1", "kind": "Pod", "spec": spec, "status": status,
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": {"app": app}}}


def _cluster(tmp_path, seed: int, rich: bool) -> object:
    rng = random.Random(seed)
    items: list[dict] = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": f"p{v}"},
                          "value": v} for v in (0, 10, 100, 1000)]
    nodes = 12
    items += [_node(i, rng) for i in range(nodes)]
    items += [_pod(f"low-{i}", rng, f"n{rng.randrange(nodes)}", [0, 10, 100], rich) for i in range(nodes * 3)]
    items += [_pod(f"high-{i}", rng, None, [10, 100, 1000], rich) for i in range(30)]
    items.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb", "namespace": "default"},
                  "spec": {"selector": {"matchLabels": {"app": "a0"}}}, "status": {"disruptionsAllowed": 1}})
    path = tmp_path / f"c{seed}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return load_snapshot([str(path)])


def _run(tmp_path, seed: int, rich: bool) -> list:
    v = KubeVersion()
    reg = default_registry().registry
    d = Scheduler(_cluster(tmp_path, seed, rich), load_config_file(None, v, reg), reg, v, seed=1).run().to_dict()
    return [d["placements"], d["unschedulable"], d["preemptions"]]


@pytest.mark.parametrize("seed,rich", [
    pytest.param(1, False, id="resources-only-filters-seed1"),
    pytest.param(2, False, id="resources-only-filters-seed2"),
    pytest.param(3, True, id="affinity-spread-ports-seed3"),
    pytest.param(4, True, id="affinity-spread-ports-seed4"),
])
def test_shortcuts_decide_as_the_full_dry_run(tmp_path, monkeypatch, seed, rich):
    fast = _run(tmp_path, seed, rich)
    monkeypatch.setattr(DefaultPreemption, "dry_run_shortcuts", False)
    slow = _run(tmp_path, seed, rich)
    assert fast[2], "the case must preempt"
    assert fast == slow
