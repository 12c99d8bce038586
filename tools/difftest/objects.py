"""Kubernetes objects as the API server would store them (defaults applied, timestamps set), as
plain dicts, for the generated clusters. Everything is explicit so that neither side has to
guess: creation timestamps one second apart in input order, start times on bound pods, uids.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

BASE = _dt.datetime(2024, 1, 1, tzinfo=_dt.UTC)
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
HOSTNAME = "kubernetes.io/hostname"


def stamp(seconds: int) -> str:
    return (BASE + _dt.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def quantity_m(milli: int) -> str:
    return f"{milli}m" if milli % 1000 else str(milli // 1000)


def node(
    name: str,
    cpu_m: int,
    mem_mi: int,
    pods: int = 110,
    labels: dict | None = None,
    taints: list | None = None,
    unschedulable: bool = False,
    extra: dict | None = None,
    images: list | None = None,
) -> dict:
    alloc = {"cpu": quantity_m(cpu_m), "memory": f"{mem_mi}Mi", "pods": str(pods), "ephemeral-storage": "100Gi"}
    alloc.update(extra or {})
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    status: dict[str, Any] = {"allocatable": alloc, "capacity": dict(alloc)}
    if images:
        status["images"] = images
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "uid": f"node-{name}", "creationTimestamp": stamp(0), "labels": {HOSTNAME: name, **(labels or {})}},
        "spec": spec,
        "status": status,
    }


def container(
    name: str = "c",
    cpu_m: int | None = None,
    mem_mi: int | None = None,
    image: str = "app:1",
    ports: list | None = None,
    extra: dict | None = None,
    restart_policy: str | None = None,
) -> dict:
    req: dict[str, str] = {}
    if cpu_m is not None:
        req["cpu"] = quantity_m(cpu_m)
    if mem_mi is not None:
        req["memory"] = f"{mem_mi}Mi"
    req.update(extra or {})
    resources: dict[str, Any] = {"requests": req} if req else {}
    # extended resources cannot be overcommitted: validation wants a limit equal to the request
    limits = {k: v for k, v in (extra or {}).items() if "/" in k and not k.startswith("kubernetes.io/")}
    if limits:
        resources["limits"] = limits
    c: dict[str, Any] = {"name": name, "image": image, "resources": resources}
    if ports:
        c["ports"] = ports
    if restart_policy:
        c["restartPolicy"] = restart_policy
    return c


class PodSeq:
    """Hands out creation times in input order (one second apart)."""

    def __init__(self) -> None:
        self.n = 0

    def pod(
        self,
        name: str,
        containers: list,
        ns: str = "default",
        node_name: str | None = None,
        labels: dict | None = None,
        priority: int | None = None,
        **spec: Any,
    ) -> dict:
        self.n += 1
        created = stamp(self.n)
        meta: dict[str, Any] = {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}", "creationTimestamp": created}
        if labels:
            meta["labels"] = labels
        body: dict[str, Any] = {"containers": containers, "schedulerName": spec.pop("schedulerName", "default-scheduler")}
        if node_name:
            body["nodeName"] = node_name
        if priority is not None:
            body["priority"] = priority
        body.update({k: v for k, v in spec.items() if v is not None})
        status: dict[str, Any] = {"phase": "Running" if node_name else "Pending"}
        if node_name:
            status["startTime"] = created
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body, "status": status}


def namespace(name: str, labels: dict | None = None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name, **(labels or {})}},
    }


def priority_class(name: str, value: int, never: bool = False) -> dict:
    pc = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "preemptionPolicy": "Never" if never else "PreemptLowerPriority",
    }
    return pc


def config(profiles: list | None = None, percentage: int | None = None, parallelism: int | None = None) -> dict:
    cfg: dict[str, Any] = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
    if percentage is not None:
        cfg["percentageOfNodesToScore"] = percentage
    if parallelism is not None:
        cfg["parallelism"] = parallelism
    if profiles:
        cfg["profiles"] = profiles
    return cfg
