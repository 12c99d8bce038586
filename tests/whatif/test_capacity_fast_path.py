"""The identical-copy fast path of `capacity` (kschedctl/whatif/fastpath.py) gives the plain
path's answer: every copy on the same node in the same order, the same count and the same stop
message, on small clusters with several seeds, profiles, releases and pod shapes — including
clusters above 100 nodes, where percentageOfNodesToScore makes each cycle look at a rotating
window of nodes, and pods the fast path only partly covers (spread constraints, default
spreading from a controller). The small clusters run both as they do (no columnar view: the
batch forms have no rows) and with the columnar view (``either_view``)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.cluster.loader import load_snapshot
from kschedctl.config.loader import load_config_file
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.testing import make_node, make_pod, only_plugins
from kschedctl.versions import KubeVersion
from kschedctl.whatif.capacity import capacity
from kschedctl.whatif.templates import load_pod_template

MOST_ALLOCATED = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
  plugins:
    score:
      enabled: [{name: TaintToleration, weight: 5}, {name: NodeAffinity, weight: 4}]
"""


def _cluster(n: int, seed: int) -> list[dict]:
    """Mixed nodes: sizes, zones, PreferNoSchedule and NoSchedule taints, a cordoned node,
    images, a preferred label; some already carry pods."""
    rng = random.Random(seed)
    objs: list[dict] = []
    for i in range(n):
        cpu, mem = rng.choice([("2", "4Gi"), ("4", "8Gi"), ("8", "16Gi")])
        b = make_node(f"n{i:03d}").capacity(cpu=cpu, memory=mem, pods=rng.choice([6, 12, 30])).zone(f"z{i % 3}")
        if rng.random() < 0.2:
            b.taint("soft", effect="PreferNoSchedule")
        if rng.random() < 0.1:
            b.taint("dedicated", "x")
        if rng.random() < 0.3:
            b.label("disk", "ssd")
        if rng.random() < 0.2:
            b.images([(["registry.example/app:1"], 300 * 1024 * 1024)])
        if i == 3:
            b.unschedulable()
        objs.append(b.dict())
        for j in range(rng.randrange(3)):
            objs.append(make_pod(f"bound-{i}-{j}").req(cpu=rng.choice(["100m", "700m", "1"]), memory="512Mi").node(f"n{i:03d}").dict())
    return objs


def _pods() -> dict[str, dict]:
    base = make_pod("app").container({"cpu": "300m", "memory": "256Mi"}, image="registry.example/app:1")
    return {
        "plain": base.dict(),
        "preferred-affinity": make_pod("app")
        .req(cpu="300m", memory="256Mi")
        .affinity(
            {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 10, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}
                    ]
                }
            }
        )
        .dict(),
        "tolerating": make_pod("app").req(cpu="500m").toleration("dedicated", "x", "NoSchedule").dict(),
        "host-port": make_pod("app").req(cpu="100m").host_port(8080).dict(),
        "best-effort": make_pod("app").dict(),
        "zone-spread": make_pod("app")
        .req(cpu="200m")
        .label("app", "web")
        .spread(1, "topology.kubernetes.io/zone", selector={"matchLabels": {"app": "web"}})
        .dict(),
    }


DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "250m"}}}]},
        },
    },
}


def _run(
    tmp_path: Path, objs: list[dict], template: dict, config: str | None, version: str, seed: int, fast: bool, max_copies: int | None = None
) -> Any:
    snap = tmp_path / "snap.yaml"
    snap.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}))
    pod_file = tmp_path / "pod.yaml"
    pod_file.write_text(yaml.safe_dump(template))
    cfg_path = None
    if config:
        cfg_path = tmp_path / "config.yaml"
        cfg_path.write_text(config)
    kv = KubeVersion(version)
    registry = default_registry().registry
    cfg = load_config_file(str(cfg_path) if cfg_path else None, kv, registry)
    cluster = load_snapshot([str(snap)])
    return capacity(cluster, cfg, registry, kv, load_pod_template(str(pod_file), cluster), max_copies=max_copies, seed=seed, fast=fast)


def _same(fast: Any, plain: Any) -> None:
    assert fast.placements == plain.placements
    assert (fast.count, fast.stop_message, fast.per_node, fast.per_zone) == (
        plain.count,
        plain.stop_message,
        plain.per_node,
        plain.per_zone,
    )


@pytest.mark.parametrize("pod", list(_pods()))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fast_path_equals_plain_path_default_profile(tmp_path: Path, pod: str, seed: int, either_view: str) -> None:
    objs = _cluster(12, seed)
    fast = _run(tmp_path, objs, _pods()[pod], None, "1.37", seed, True)
    plain = _run(tmp_path, objs, _pods()[pod], None, "1.37", seed, False)
    assert fast.fast_path and not plain.fast_path
    assert fast.count > 0
    if pod != "zone-spread":  # a hard spread constraint is not node-local: every attempt goes plain
        assert fast.fast_attempts >= fast.count - 1
    _same(fast, plain)


@pytest.mark.parametrize("version", ["1.35", "1.37"])
@pytest.mark.parametrize(
    "config",
    [MOST_ALLOCATED, only_plugins("NodeResourcesFit", "TaintToleration", "NodeUnschedulable")],
    ids=["most-allocated-weights", "three-plugins"],
)
def test_fast_path_equals_plain_path_profiles_and_releases(tmp_path: Path, config: str, version: str, either_view: str) -> None:
    objs = _cluster(15, 7)
    for pod in ("plain", "preferred-affinity"):
        fast = _run(tmp_path, objs, _pods()[pod], config, version, 5, True)
        plain = _run(tmp_path, objs, _pods()[pod], config, version, 5, False)
        _same(fast, plain)


@pytest.mark.parametrize("seed", [2])
def test_fast_path_equals_plain_path_with_node_sampling(tmp_path: Path, seed: int) -> None:
    """130 nodes: numFeasibleNodesToFind is 100, so each cycle scores a rotating window."""
    objs = _cluster(130, seed)
    fast = _run(tmp_path, objs, _pods()["preferred-affinity"], None, "1.37", seed, True, max_copies=150)
    plain = _run(tmp_path, objs, _pods()["preferred-affinity"], None, "1.37", seed, False, max_copies=150)
    assert fast.count == 150 and fast.fast_attempts == 150
    _same(fast, plain)


def test_fast_path_equals_plain_path_for_a_deployment_with_default_spreading(tmp_path: Path, either_view: str) -> None:
    """The Deployment's ReplicaSet gives the copies PodTopologySpread's default constraints:
    that score is not node-local and is computed afresh every cycle."""
    objs = _cluster(12, 4)
    fast = _run(tmp_path, objs, DEPLOYMENT, None, "1.37", 3, True)
    plain = _run(tmp_path, objs, DEPLOYMENT, None, "1.37", 3, False)
    assert fast.count > 0
    _same(fast, plain)
