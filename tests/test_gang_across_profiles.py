"""A gang whose members are in two profiles is let go together (1.35, GangScheduling at Permit).

upstream: pkg/scheduler/scheduler.go New() makes one waitingPodsMap and hands it to every
profile's framework (frameworkruntime.WithWaitingPods), so GangScheduling's Permit, when the
quorum is reached, allows through IterateOverWaitingPods the members another profile holds.

Recorded fact (kschedoracle 1.35.4 ``-mode sequential``, GenericWorkload and GangScheduling on,
SchedulerAsyncPreemption off, on the cluster below): a-other (profile "other") Scheduled on n0 at
attempt 1, b and c (default-scheduler) Scheduled on n1 at attempt 1. Found by the podgroups fuzz
dimension (seed 97, inputs 430 and 577): with a map per profile, a-other waited out its Permit
timeout (5 minutes) and was tried again, by which time its node could be full.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kschedctl.cluster.loader import load_snapshot
from kschedctl.config.loader import load_config_file
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import GANG_GATES, TWO_PROFILES_CONFIG
from kschedctl.versions import parse_version


def _cluster() -> dict[str, Any]:
    items: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}},
        }
        for name in ("n0", "n1")
    ]
    items.append(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha1",
            "kind": "Workload",
            "metadata": {"name": "job", "namespace": "default"},
            "spec": {"podGroups": [{"name": "g", "policy": {"gang": {"minCount": 3}}}]},
        }
    )
    for i, (name, profile, cpu) in enumerate([("a-other", "other", "3"), ("b", "default-scheduler", "2"), ("c", "default-scheduler", "2")]):
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "creationTimestamp": f"2026-01-01T00:00:0{i}Z"},
                "spec": {
                    "schedulerName": profile,
                    "workloadRef": {"name": "job", "podGroup": "g"},
                    "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}],
                },
            }
        )
    return {"apiVersion": "v1", "kind": "List", "items": items}


def test_the_quorum_lets_go_the_member_another_profile_holds(tmp_path: Path) -> None:
    cluster, config = tmp_path / "cluster.json", tmp_path / "config.yaml"
    cluster.write_text(json.dumps(_cluster()))
    config.write_text(TWO_PROFILES_CONFIG)
    version = parse_version("1.35", GANG_GATES)
    registry = default_registry().registry
    sched = Scheduler(load_snapshot([str(cluster)]), load_config_file(str(config), version, registry), registry, version, seed=1)
    result = sched.run()
    placed = {p.pod: (p.node, p.profile, p.attempts) for p in result.placements}
    assert placed == {
        "default/a-other": ("n0", "other", 1),
        "default/b": ("n1", "default-scheduler", 1),
        "default/c": ("n1", "default-scheduler", 1),
    }
    # one map: both profiles' frameworks see the same waiting pods
    assert sched.profiles["other"].waiting_pods is sched.profiles["default-scheduler"].waiting_pods
