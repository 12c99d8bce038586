"""`kschedctl watch`: the "why is it Pending" answer, kept up to date while one waits for a pod.

The cluster is kept live by list+watch (kschedctl/cluster/watch.py). After every round that
changed something, each pending pod that is watched is explained again against the cluster as it
is now (explain's reading: bound pods count, other pending pods do not), through the same path
as `explain --live`: the live objects are written to a private temporary snapshot and loaded.
What comes out are events: the cluster's changes, and each pod whose verdict changed (now fits
and where, unschedulable and why), that the scheduler bound, or that went away. Rendering is
kschedctl/output/watch_render.py.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kschedctl.cluster.loader import ClusterSnapshot, is_pending, load_snapshot
from kschedctl.cluster.watch import Change, LiveCluster
from kschedctl.explain.explain import explain_pod
from kschedctl.framework.config_types import KubeSchedulerConfiguration
from kschedctl.framework.registry import Registry
from kschedctl.versions import KubeVersion


@dataclass(frozen=True)
class Verdict:
    """A pending pod's answer: the node it would go to now, or the message it would get."""

    state: str  # pending, nominated, gated, no-profile
    node: str | None
    message: str | None
    summary: str  # explain's verdict line

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "node": self.node, "message": self.message, "verdict": self.summary}


@dataclass
class WatchEvent:
    """One thing worth a line: the cluster changed, or a pod's answer did."""

    time: float  # seconds since the watch started
    event: str  # ClusterChanged, Pending, Changed, Scheduled, Deleted
    pod: str | None = None
    verdict: Verdict | None = None
    previous: Verdict | None = None
    node: str | None = None  # Scheduled: the node kube-scheduler bound the pod to
    changes: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"time": round(self.time, 3), "event": self.event}
        if self.pod is not None:
            out["pod"] = self.pod
        if self.verdict is not None:
            out["verdict"] = self.verdict.to_dict()
        if self.previous is not None:
            out["previous"] = self.previous.to_dict()
        if self.node is not None:
            out["node"] = self.node
        if self.changes:
            out["changes"] = self.changes
        return out


@dataclass
class PendingWatch:
    """The watched pods' last verdicts, and how to compute them again."""

    live: LiveCluster
    config: KubeSchedulerConfiguration
    registry: Registry
    version: KubeVersion
    workdir: str  # a private directory for the snapshot each round is loaded from
    pods: tuple[str, ...] = ()  # namespace/name; empty: every pending pod (of ``namespace``)
    namespace: str | None = None
    seed: int | None = 1
    clock: Callable[[], float] = time.monotonic
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    warned: bool = False
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def _watched(self, key: str) -> bool:
        if self.pods:
            return key in self.pods
        return self.namespace is None or key.split("/", 1)[0] == self.namespace

    def snapshot(self) -> ClusterSnapshot:
        path = os.path.join(self.workdir, "live.json")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"apiVersion": "v1", "kind": "List", "items": self.live.items()}, fh, separators=(",", ":"))
        cluster = load_snapshot([path])
        if not self.warned:
            self.warnings.extend(cluster.warnings)
            self.warned = True
        return cluster

    def evaluate(self) -> tuple[dict[str, Verdict], dict[str, str]]:
        """Every watched pending pod's verdict now, and the watched pods now bound (to their node)."""
        cluster = self.snapshot()
        verdicts: dict[str, Verdict] = {}
        bound: dict[str, str] = {}
        for pod in cluster.pods:
            if not self._watched(pod.key):
                continue
            if pod.node_name:
                bound[pod.key] = pod.node_name
            elif is_pending(pod):
                result = explain_pod(cluster, pod.key, self.config, self.registry, self.version, seed=self.seed, evaluate=False)
                verdicts[pod.key] = Verdict(result.state, result.node, result.message, result.verdict or result.state_detail or "")
        return verdicts, bound

    def first(self) -> Iterator[WatchEvent]:
        """The pods pending when the watch starts, with their verdicts."""
        self.verdicts, _ = self.evaluate()
        for key in sorted(self.verdicts):
            yield WatchEvent(self.now(), "Pending", key, self.verdicts[key])

    def round(self) -> Iterator[WatchEvent]:
        """One watch round: the cluster's changes, then each pod whose answer changed."""
        changes = self.live.poll()
        if not changes:
            return
        yield WatchEvent(self.now(), "ClusterChanged", changes=[_change(c) for c in changes])
        verdicts, bound = self.evaluate()
        for key in sorted(set(self.verdicts) | set(verdicts)):
            old, new = self.verdicts.get(key), verdicts.get(key)
            if new is None:
                yield WatchEvent(self.now(), "Scheduled" if key in bound else "Deleted", key, previous=old, node=bound.get(key))
            elif old is None:
                yield WatchEvent(self.now(), "Pending", key, new)
            elif (old.state, old.node, old.message) != (new.state, new.node, new.message):
                yield WatchEvent(self.now(), "Changed", key, new, previous=old)
        self.verdicts = verdicts

    def now(self) -> float:
        return self.clock() - self.started


def _change(change: Change) -> dict[str, str]:
    out = {"type": change.type, "kind": change.kind, "name": change.key}
    if change.kind == "Pod" and change.type != "DELETED":
        node = (change.obj.get("spec") or {}).get("nodeName")
        if node:
            out["node"] = str(node)
    return out


__all__ = ["PendingWatch", "Verdict", "WatchEvent"]
