"""Preemption in time, against a real kube-scheduler: a victim keeps its room until it is gone.

kube 1.36 preempts asynchronously: the victim is deleted by an API call while the queue goes on,
and stays in the scheduler's cache until the informer sees it go. A victim with a grace period
(30 s, the default) gets a deletionTimestamp and stays until its kubelet has stopped it; here no
kubelet runs, so the test plays the kubelet: once every other pod is decided it deletes the
terminating victims. kschedctl's default model (the victim leaves its grace period later, on the
virtual clock) must then agree with every binding; the old instant reading must not (on this
cluster the small pods it sends to the victim's node, empty to the scores once the victim is
gone, land elsewhere for real).
"""

from __future__ import annotations

import copy
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .realcluster_env import Cluster, EnvError
from .realcluster_load import load_snapshot
from .realcluster_shapes import preemption
from .test_real_shapes import _key, compare, kschedctl_json, pending_keys, settle

SEED = 17


def terminating(cluster: Cluster) -> list[dict[str, Any]]:
    return [p for p in cluster.request("GET", "/api/v1/namespaces/default/pods")["items"] if p["metadata"].get("deletionTimestamp")]


def play_kubelet(cluster: Cluster, pods: list[dict[str, Any]]) -> None:
    """What a kubelet ends with once a terminating pod's containers are stopped: delete it, grace 0."""
    for pod in pods:
        path = f"/api/v1/namespaces/{pod['metadata']['namespace']}/pods/{pod['metadata']['name']}"
        cluster.request("DELETE", path, {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})


def test_victims_keep_their_room_until_gone(real_cluster: Cluster, tmp_path: Path, run_cli: Callable[..., Any]) -> None:
    if not os.access(real_cluster.plane.assets / "kube-scheduler", os.X_OK):
        pytest.skip("no kube-scheduler among the assets")
    items, config_yaml = preemption(random.Random(SEED))
    pods = pending_keys(items)
    try:
        load_snapshot(
            real_cluster, copy.deepcopy(items), lambda: real_cluster.start_scheduler(config_yaml, verbosity=3), one_second_apart=False
        )
        before = settle(real_cluster, pods)
        victims = terminating(real_cluster)
        nominated = {
            _key(p): p["status"]["nominatedNodeName"]
            for p in real_cluster.request("GET", "/api/v1/namespaces/default/pods")["items"]
            if (p.get("status") or {}).get("nominatedNodeName")
        }
        play_kubelet(real_cluster, victims)
        real = settle(real_cluster, pods)
        attempts = real_cluster.scheduling_order()
    except EnvError as err:
        pytest.fail(str(err), pytrace=False)
    # the preemption itself: kube-scheduler's preemptor, node and victims are kschedctl's
    doc = kschedctl_json(run_cli, items, None, tmp_path / "predicted.yaml")
    gone = {_key(v) for v in victims}
    assert [(p["preemptor"], sorted(p["victims"])) for p in doc["preemptions"]] == [("default/p-000", sorted(gone))]
    assert before["default/p-000"][0][0] == "unschedulable" and real["default/p-000"][0] == ("bound", doc["preemptions"][0]["node"])
    after = {k for k, (o, _) in real.items() if o[0] == "bound" and before.get(k, (("",),))[0][0] != "bound"}
    problems, counts = compare(run_cli, items, real, {}, attempts, None, tmp_path, victims_gone_before=(after, gone, nominated))
    print(f"preemption, victims leaving in time: {counts}")
    assert not problems, "\n".join(problems)
    (tmp_path / "instant").mkdir()
    instant, counts = compare(
        run_cli, items, real, {}, attempts, None, tmp_path / "instant", "--instant-preemption", victims_gone_before=(after, gone, nominated)
    )
    print(f"preemption, victims removed at once: {counts}, {len(instant)} pods kube-scheduler placed otherwise")
    print("\n".join(instant))
    assert instant, "the instant reading was expected to disagree with kube-scheduler on this cluster"
