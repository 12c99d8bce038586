"""Fixtures for the live-cluster tests: the example cluster served by a fake API server.

The cluster is examples/cluster.yaml plus what a real cluster also holds: namespaces, a priority
class, a PDB (forbidden to our user), a bound volume with zone affinity for a pending stateful
pod, storage and CSI objects, a Service and ReplicaSet (default spreading), a finished pod,
and things capture must never write: a Secret and ConfigMaps (one holds the scheduler's config).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_apiserver import FakeApiServer

ROOT = Path(__file__).resolve().parents[2]
SECRET_VALUE = "c3VwZXItc2VjcmV0LXBhc3N3b3Jk"  # what must never land in a snapshot
SCHEDULER_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - {name: cpu, weight: 1}
        - {name: memory, weight: 1}
"""


def _md(name: str, namespace: str | None = None, **extra: Any) -> dict[str, Any]:
    md: dict[str, Any] = {"name": name, **extra}
    if namespace:
        md["namespace"] = namespace
    return md


def demo_objects() -> list[dict[str, Any]]:
    """Every object the fake cluster holds, each with its kind and apiVersion."""
    example = yaml.safe_load((ROOT / "examples" / "cluster.yaml").read_text())["items"]
    objs: list[dict[str, Any]] = [copy.deepcopy(o) for o in example]
    objs += [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": _md(ns, labels={"kubernetes.io/metadata.name": ns})}
        for ns in ("batch", "data", "default", "kube-system", "ml", "shop")
    ]
    objs.append(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": _md("high"),
            "value": 1000,
            "preemptionPolicy": "PreemptLowerPriority",
            "globalDefault": False,
        }
    )
    objs.append(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": _md("web", "shop"),
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
        }
    )
    zone_b = {
        "required": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["eu-west-1b"]}]}
            ]
        }
    }
    objs.append(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": _md("pv-db-0"),
            "spec": {
                "capacity": {"storage": "10Gi"},
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "gp3",
                "claimRef": {"namespace": "shop", "name": "data-db-0"},
                "nodeAffinity": zone_b,
                "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-0db0"},
            },
            "status": {"phase": "Bound"},
        }
    )
    objs.append(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": _md("data-db-0", "shop", annotations={"pv.kubernetes.io/bind-completed": "yes"}),
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "gp3",
                "volumeName": "pv-db-0",
                "resources": {"requests": {"storage": "10Gi"}},
            },
            "status": {"phase": "Bound"},
        }
    )
    objs.append(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": _md("gp3"),
            "provisioner": "ebs.csi.aws.com",
            "volumeBindingMode": "WaitForFirstConsumer",
        }
    )
    objs.append(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIDriver",
            "metadata": _md("ebs.csi.aws.com"),
            "spec": {"attachRequired": True, "podInfoOnMount": False},
        }
    )
    objs += [
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": _md(node),
            "spec": {
                "drivers": [
                    {
                        "name": "ebs.csi.aws.com",
                        "nodeID": f"i-{node}",
                        "allocatable": {"count": 25},
                        "topologyKeys": ["topology.kubernetes.io/zone"],
                    }
                ]
            },
        }
        for node in ("ip-10-0-2-21", "ip-10-0-2-22")
    ]
    objs.append(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIStorageCapacity",
            "metadata": _md("cap-b", "kube-system"),
            "storageClassName": "gp3",
            "capacity": "100Gi",
        }
    )
    objs.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": _md("db-0", "shop", labels={"app": "db"}),
            "spec": {
                "schedulerName": "default-scheduler",
                "containers": [{"name": "db", "image": "postgres:16", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}],
                "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}],
            },
            "status": {"phase": "Pending"},
        }
    )
    objs.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": _md("migrate-42", "batch", labels={"app": "migrate"}),
            "spec": {
                "nodeName": "ip-10-0-2-22",
                "containers": [{"name": "m", "image": "migrate:1", "resources": {"requests": {"cpu": "3500m"}}}],
            },
            "status": {"phase": "Succeeded"},
        }
    )
    objs.append(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _md("web", "shop"),
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]},
        }
    )
    objs.append(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": _md("web-7d9f", "shop"),
            "spec": {
                "replicas": 4,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": []}},
            },
        }
    )
    objs.append(
        {"apiVersion": "v1", "kind": "Secret", "metadata": _md("db-password", "shop"), "type": "Opaque", "data": {"password": SECRET_VALUE}}
    )
    objs.append(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _md("kube-scheduler-config", "kube-system"),
            "data": {"config.yaml": SCHEDULER_CONFIG},
        }
    )
    objs.append(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _md("app-settings", "shop"),
            "data": {"DATABASE_URL": "postgres://app:hunter2@db/app"},
        }
    )
    return objs


@pytest.fixture
def api() -> Iterator[FakeApiServer]:
    server = FakeApiServer(demo_objects(), forbidden={"poddisruptionbudgets"}, not_found={"csistoragecapacities"}).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def kubeconfig(api: FakeApiServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A kubeconfig for the fake server, made the current one through KUBECONFIG."""
    path = api.write_kubeconfig(tmp_path / "kubeconfig", context="fake-prod", namespace="shop")
    monkeypatch.setenv("KUBECONFIG", str(path))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    return path


@pytest.fixture(autouse=True)
def _no_user_kubeconfig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read the developer's own ~/.kube/config, nor kubectl's discovery cache."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    os.makedirs(tmp_path / "home", exist_ok=True)
