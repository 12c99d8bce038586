"""kschedctl's predictions against a real kube-scheduler on seeded clusters of many shapes
(realcluster_shapes.py): affinity, topology spread, taints, several profiles, volumes, a mix.

The pending pods are loaded, then kube-scheduler starts and takes them in its queue's order. Then
its decisions are walked in the order it bound them (the pods' resourceVersions): a pod bound where
kschedctl's run predicted is a match; a pod bound elsewhere must be among kschedctl's best-scored
nodes for the cluster as it was then (a tie, broken at random by both), and kschedctl's run is then
redone from that state, with the real bindings so far. A pod kube-scheduler leaves Pending must be
unschedulable for kschedctl too, with the same message in its PodScheduled condition.
"""

from __future__ import annotations

import copy
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from .realcluster_env import ApiError, Cluster, EnvError
from .realcluster_load import load_snapshot
from .realcluster_shapes import SHAPES, generate
from .test_real_scheduler import kschedctl_args, outcome

WAIT = 60.0
SETTLE = 3.0  # seconds without a change before kube-scheduler's decisions are read as final
Outcome = tuple[str, str]


def _key(obj: dict[str, Any]) -> str:
    return f"{obj['metadata'].get('namespace') or 'default'}/{obj['metadata']['name']}"


def pending_keys(items: list[dict[str, Any]]) -> list[str]:
    return [_key(o) for o in items if o.get("kind") == "Pod" and not o["spec"].get("nodeName")]


def settle(cluster: Cluster, pods: list[str]) -> dict[str, tuple[Outcome, int]]:
    """Every pod's outcome and resourceVersion once all are decided and nothing changed for SETTLE
    seconds (a pod left unschedulable may still be retried and bound)."""
    end = time.monotonic() + WAIT
    last: dict[str, tuple[Outcome, int]] = {}
    stable_since = time.monotonic()
    while time.monotonic() < end:
        now: dict[str, tuple[Outcome, int]] = {}
        for key in pods:
            ns, name = key.split("/")
            obj = cluster.request("GET", f"/api/v1/namespaces/{ns}/pods/{name}")
            got = outcome(cluster, key)
            if got is not None:
                now[key] = (got, int(obj["metadata"]["resourceVersion"]))
        if now != last:
            last, stable_since = now, time.monotonic()
        elif len(now) == len(pods) and time.monotonic() - stable_since >= SETTLE:
            return now
        time.sleep(0.4)
    raise EnvError(f"kube-scheduler decided {len(last)} of {len(pods)} pods within {WAIT:.0f}s; undecided: {sorted(set(pods) - set(last))}")


class PVController:
    """What kube's PV controller does for a claim kube-scheduler's VolumeBinding PreBind bound to a
    static PV (the PV's claimRef set): the claim gets the PV's name and the bind-completed
    annotation, so that PreBind, which waits for that, lets the pod bind. Polls, bounded."""

    def __init__(self, cluster: Cluster, deadline: float = WAIT + 30) -> None:
        self.cluster = cluster
        self.stop = threading.Event()
        self.end = time.monotonic() + deadline
        self.thread = threading.Thread(target=self.run, daemon=True)

    def __enter__(self) -> "PVController":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=10)

    def run(self) -> None:
        while not self.stop.is_set() and time.monotonic() < self.end:
            try:
                self.bind_claimed()
            except (ApiError, OSError):
                pass  # a conflict or a slow answer: the next round does it
            self.stop.wait(0.2)

    def bind_claimed(self) -> None:
        for pv in self.cluster.request("GET", "/api/v1/persistentvolumes")["items"]:
            ref = pv["spec"].get("claimRef") or {}
            if not ref.get("uid"):
                continue
            path = f"/api/v1/namespaces/{ref['namespace']}/persistentvolumeclaims/{ref['name']}"
            pvc = self.cluster.request("GET", path)
            if pvc["spec"].get("volumeName"):
                continue
            pvc["spec"]["volumeName"] = pv["metadata"]["name"]
            pvc["metadata"].setdefault("annotations", {})["pv.kubernetes.io/bind-completed"] = "yes"
            pvc = self.cluster.request("PUT", path, pvc)
            pvc["status"] = {"phase": "Bound", "accessModes": pv["spec"]["accessModes"], "capacity": pv["spec"]["capacity"]}
            self.cluster.request("PUT", f"{path}/status", pvc)


def kschedctl_run(
    run_cli: Callable[..., Any], items: list[dict[str, Any]], config: Path | None, path: Path, *extra: str
) -> dict[str, Outcome]:
    doc = kschedctl_json(run_cli, items, config, path, *extra)
    got: dict[str, Outcome] = {p["pod"]: ("bound", p["node"]) for p in doc["placements"]}
    got.update({u["pod"]: ("unschedulable", u["message"]) for u in doc["unschedulable"]})
    got.update({s["pod"]: ("gated", "") for s in doc["skipped"]})
    return got


def kschedctl_json(run_cli: Callable[..., Any], items: list[dict[str, Any]], config: Path | None, path: Path, *extra: str) -> Any:
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sort_keys=False))
    result = run_cli("schedule", str(path), "-o", "json", "--seed", "1", *kschedctl_args(config), *extra)
    assert result.exit_code == 0, result.stderr
    return result.json()


def best_nodes(run_cli: Callable[..., Any], items: list[dict[str, Any]], pod: str, config: Path | None, path: Path) -> tuple[set[str], Any]:
    """The nodes of the best total score for the pod against the cluster as given."""
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sort_keys=False))
    result = run_cli("explain", pod, str(path), "-o", "json", *kschedctl_args(config))
    assert result.exit_code == 0, result.stderr
    ranking = result.json()["ranking"]
    return {r["node"] for r in ranking if r["total"] == ranking[0]["total"]}, ranking


def bind_as_real(state: list[dict[str, Any]], pod_key: str, node_name: str, real: dict[str, dict[str, Any]]) -> None:
    """The pod bound to its node in the state, and the claims kube bound for it with their PVs."""
    by_key = {(o["kind"], _key(o) if o["kind"] != "PersistentVolume" else o["metadata"]["name"]): o for o in state}
    pod = by_key[("Pod", pod_key)]
    pod["spec"]["nodeName"] = node_name
    pod["status"] = {"phase": "Running"}
    for vol in pod["spec"].get("volumes") or []:
        claim = (vol.get("persistentVolumeClaim") or {}).get("claimName")
        live = real.get(f"pvc:default/{claim}") if claim else None
        if not live or not live["spec"].get("volumeName"):
            continue
        mine = by_key[("PersistentVolumeClaim", f"default/{claim}")]
        mine["spec"]["volumeName"] = live["spec"]["volumeName"]
        mine["metadata"].setdefault("annotations", {})["pv.kubernetes.io/bind-completed"] = "yes"
        mine["status"] = {"phase": "Bound"}
        pv = by_key[("PersistentVolume", live["spec"]["volumeName"])]
        pv["spec"]["claimRef"] = {"namespace": "default", "name": claim}
        pv["status"] = {"phase": "Bound"}


def compare(
    run_cli: Callable[..., Any],
    items: list[dict[str, Any]],
    real: dict[str, tuple[Outcome, int]],
    live_objects: dict[str, dict[str, Any]],
    attempts: list[str],
    config: Path | None,
    tmp_path: Path,
    *extra: str,
    victims_gone_before: tuple[set[str], set[str], dict[str, str]] = (set(), set(), {}),
) -> tuple[list[str], dict[str, int]]:
    """Walk kube-scheduler's bindings in order against kschedctl (its run with ``extra`` flags);
    returns the problems and counts. A pod bound elsewhere than predicted is a tie when both nodes
    are among kschedctl's best-scored for the cluster as it was then; else kschedctl's run saw
    another cluster than kube-scheduler did. ``victims_gone_before``: (pods bound after the
    preemption victims were deleted, those victims, the preemptors' nominated nodes): the
    preemptors are nominated from the start (they come first), the victims leave the state before
    the first pod bound after them."""
    state = copy.deepcopy(items)
    predicted = kschedctl_run(run_cli, state, config, tmp_path / "run-0.yaml", *extra)
    counts = {"pods": len(real), "same node": 0, "tie": 0, "unschedulable": 0, "reruns": 0}
    problems: list[str] = []
    # the order of kube-scheduler's scheduling cycles (its bindings complete in parallel): a bound
    # pod's last attempt is the one that bound it
    last = {key: i for i, key in enumerate(attempts)}
    order = sorted((k for k in pending_keys(items) if real[k][0][0] == "bound"), key=lambda k: last.get(k, -1))
    after, victims, nominated = victims_gone_before
    for o in state:
        if o.get("kind") == "Pod" and _key(o) in nominated:
            o.setdefault("status", {})["nominatedNodeName"] = nominated[_key(o)]
    for i, key in enumerate(order):
        if key in after and victims:
            state = [o for o in state if not (o.get("kind") == "Pod" and _key(o) in victims)]
            victims = set()
        node_name = real[key][0][1]
        guess = predicted.get(key)
        if guess == ("bound", node_name):
            counts["same node"] += 1
        else:
            best, ranking = best_nodes(run_cli, state, key, config, tmp_path / f"before-{i}.yaml")
            if node_name not in best or (guess is not None and guess[0] == "bound" and guess[1] not in best):
                problems.append(
                    f"{key}: kube-scheduler bound it to {node_name}; kschedctl predicted {guess}, best {sorted(best)} ({ranking[:4]})"
                )
            else:
                counts["tie"] += 1
        bind_as_real(state, key, node_name, live_objects)
        if guess != ("bound", node_name):
            predicted = kschedctl_run(run_cli, state, config, tmp_path / f"run-{i + 1}.yaml", *extra)
            counts["reruns"] += 1
    for key, ((what, detail), _) in sorted(real.items()):
        if what == "bound":
            continue
        counts["unschedulable"] += 1
        if predicted.get(key) != (what, detail):
            problems.append(f"{key}: kube-scheduler: {what} {detail!r}; kschedctl: {predicted.get(key)}")
    return problems, counts


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_real_scheduler_agrees_on_shape(shape: str, real_cluster: Cluster, tmp_path: Path, run_cli: Callable[..., Any]) -> None:
    if not os.access(real_cluster.plane.assets / "kube-scheduler", os.X_OK):
        pytest.skip("no kube-scheduler among the assets")
    items, config_yaml = generate(shape)
    config = None
    if config_yaml:
        config = tmp_path / "scheduler-config.yaml"
        config.write_text(config_yaml)
    pods = pending_keys(items)
    try:
        with PVController(real_cluster):
            load_snapshot(
                real_cluster, copy.deepcopy(items), lambda: real_cluster.start_scheduler(config_yaml, verbosity=3), one_second_apart=False
            )
            real = settle(real_cluster, pods)
        live = {f"pvc:{_key(o)}": o for o in real_cluster.request("GET", "/api/v1/persistentvolumeclaims")["items"]}
        attempts = real_cluster.scheduling_order()
    except EnvError as err:
        pytest.fail(str(err), pytrace=False)
    problems, counts = compare(run_cli, items, real, live, attempts, config, tmp_path)
    print(f"{shape}: {counts}")
    assert not problems, "\n".join(problems)
