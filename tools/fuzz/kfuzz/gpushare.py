"""The gpushare dimension: random GPU clusters through the GPU-sharing plugin package.

Each input draws 24-40 nodes (the columnar view, so the plugins' batch forms run) with 0-8 GPUs
of a few models, some pods already bound (with or without a ``gpu-index``, some indices out of
range), and 5-30 pending pods: CPU-only, GPU-sharing (milli < 1000), whole-GPU (1-8), some with
accepted models, some with annotations that cannot be read. One of the six policies scores.

Checked through ``schedule -o json`` (the contract's basic rules, every pending pod once, the
same seed twice byte-identical) and against the input: a GPU pod is never placed on a node
without GPUs or of a model it does not accept, a pod whose annotations cannot be read is never
placed, and no node gets more whole GPUs or more GPU milli than it has. In process, on the same
nodes and pods: each batch form (Filter, Score, NormalizeScore) equals its per-node form (FGD's
Score within 1: see ``_batch_equals_per_node``).

Needs the package (``pip install ./plugins/kschedctl-gpushare`` or it on PYTHONPATH); without
it the input is skipped.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import yaml

from kfuzz.contract import Checker

DOMAIN = "gpushare.kschedctl.io"
MODELS = ["V100M16", "V100M32", "P100", "T4", "A10"]
POLICIES = ["GpuShareRandom", "GpuShareDotProduct", "GpuShareClustering", "GpuSharePacking", "GpuShareBestFit", "GpuShareFGD"]
CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 100
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: GpuShare
      - name: {policy}
    score:
      disabled:
      - name: "*"
      enabled:
      - name: {policy}
    postFilter:
      disabled:
      - name: "*"
"""


def _request(rng: random.Random) -> dict[str, str]:
    """A pod's GPU annotations: none, sharing, whole, with models, or unreadable."""
    roll = rng.random()
    if roll < 0.15:
        return {}
    if roll < 0.2:
        return rng.choice(
            [
                {f"{DOMAIN}/gpu-count": "two"},
                {f"{DOMAIN}/gpu-count": "2", f"{DOMAIN}/gpu-milli": "500"},
                {f"{DOMAIN}/gpu-count": "1", f"{DOMAIN}/gpu-milli": "1001"},
                {f"{DOMAIN}/gpu-count": "-1"},
            ]
        )
    if roll < 0.65:
        out = {f"{DOMAIN}/gpu-count": "1", f"{DOMAIN}/gpu-milli": str(rng.choice([100, 250, 300, 500, 700, 999]))}
    else:
        out = {f"{DOMAIN}/gpu-count": str(rng.choice([1, 1, 2, 4, 8])), f"{DOMAIN}/gpu-milli": "1000"}
    if rng.random() < 0.25:
        out[f"{DOMAIN}/gpu-model"] = "|".join(rng.sample(MODELS, rng.randint(1, 2)))
    return out


def _pod(name: str, rng: random.Random, node: str | None, gpus: int) -> dict[str, Any]:
    annotations = _request(rng)
    if node is not None and annotations and rng.random() < 0.6:
        annotations[f"{DOMAIN}/gpu-index"] = ",".join(str(rng.randrange(max(1, gpus + 1))) for _ in range(rng.randint(1, 2)))
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": f"{rng.choice([0, 1, 2, 4, 8])}"}}}]
    }
    if node is not None:
        spec["nodeName"] = node
    meta = {"name": name, "namespace": "default", "uid": f"uid-{name}", "annotations": annotations}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": "Running" if node else "Pending"}}


def _cluster(rng: random.Random) -> tuple[dict[str, Any], dict[str, tuple[int, str]]]:
    nodes: dict[str, tuple[int, str]] = {}
    items: list[dict[str, Any]] = []
    for i in range(rng.randint(24, 40)):
        name = f"n{i:02d}"
        gpus = rng.choice([0, 1, 2, 4, 8, 8])
        model = rng.choice(MODELS)
        nodes[name] = (gpus, model)
        labels = {"kubernetes.io/hostname": name, f"{DOMAIN}/gpu-count": str(gpus), f"{DOMAIN}/gpu-model": model}
        allocatable = {"cpu": str(rng.choice([16, 32, 64, 96])), "memory": "256Gi", "pods": "110", f"{DOMAIN}/gpu-milli": str(gpus * 1000)}
        items.append(
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "status": {"allocatable": allocatable}}
        )
    names = sorted(nodes)
    for i in range(rng.randint(0, 15)):
        node = rng.choice(names)
        items.append(_pod(f"bound-{i}", rng, node, nodes[node][0]))
    for i in range(rng.randint(5, 30)):
        items.append(_pod(f"p{i:02d}", rng, None, 0))
    return {"apiVersion": "v1", "kind": "List", "items": items}, nodes


def _parse(annotations: dict[str, str]) -> tuple[int, int, set[str] | None] | None:
    """(count, milli, models) as the package reads them; None when it cannot."""
    try:
        count = int(annotations.get(f"{DOMAIN}/gpu-count", "0"))
        milli = int(annotations.get(f"{DOMAIN}/gpu-milli", "1000" if count else "0"))
    except ValueError:
        return None
    if not (0 <= count <= 64 and 0 <= milli <= 1000) or (count > 1 and milli != 1000):
        return None
    raw = annotations.get(f"{DOMAIN}/gpu-model")
    models = {m for m in raw.split("|") if m} if raw else None
    return (count, milli, models) if count and milli else (0, 0, None)


def gpushare_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    try:
        import kschedctl_gpushare  # noqa: F401
    except ImportError:
        return "gpushare skipped (the package is not installed)"
    doc, nodes = _cluster(rng)
    policy = rng.choice(POLICIES)
    path = workdir / "gpushare-snapshot.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    config = workdir / "gpushare-config.yaml"
    config.write_text(CONFIG.format(policy=policy))
    args = ["schedule", str(path), "--config", str(config), "-o", "json", "--seed", str(rng.randrange(1000))]
    run = checker.run(args)
    what = f"gpushare {policy} {len(nodes)} nodes"
    if not (checker.basic(run, "schedule", str(path)) and run.exit_code == 0):
        return what
    checker.schedule_invariants(run, str(path), lambda: checker.run(args), check_fit=False)
    pods = {p["metadata"]["name"]: p for p in doc["items"] if p["kind"] == "Pod"}
    placed = {p["pod"].split("/", 1)[1]: p["node"] for p in json.loads(run.stdout)["placements"]}
    whole: dict[str, int] = {}
    for name, node in placed.items():
        request = _parse(pods[name]["metadata"]["annotations"])
        if request is None:
            checker.fail("gpushare-unreadable-placed", f"pod {name} with unreadable GPU annotations was placed on {node}", run)
            continue
        count, milli, models = request
        gpus, model = nodes[node]
        if count and gpus == 0:
            checker.fail("gpushare-no-gpu", f"GPU pod {name} placed on {node}, which has no GPU", run)
        if count and models is not None and model not in models:
            checker.fail("gpushare-model", f"pod {name} accepts {sorted(models)}, placed on {node} ({model})", run)
        if milli == 1000:
            whole[node] = whole.get(node, 0) + count
    for node, used in whole.items():
        if used > nodes[node][0]:
            checker.fail("gpushare-whole", f"{node}: {used} whole GPUs placed on {nodes[node][0]}", run)
    _batch_equals_per_node(rng, doc, policy, checker)
    return what


def _batch_equals_per_node(rng: random.Random, doc: dict[str, Any], policy: str, checker: Checker) -> None:
    """Each plugin's batch form equals its per-node form on these nodes (bound pods on them)."""
    import kschedctl_gpushare as pkg

    from kschedctl.framework import CycleState, NodeInfo, NodeScore, PodInfo
    from kschedctl.testing import make_node, make_pod

    class _Handle:
        """What the plugins ask of a Handle: a seeded source and, for FGD's typical pods, the pods."""

        def __init__(self, pods: list[Any]) -> None:
            self.rng = random.Random(7)
            self.pods = pods

        def pod_lister(self) -> Any:
            return self

        def list(self) -> list[Any]:
            return self.pods

    def pod_of(item: dict[str, Any]) -> Any:
        cpu = item["spec"]["containers"][0]["resources"]["requests"]["cpu"]
        pod = make_pod(item["metadata"]["name"]).req(cpu=cpu).obj()
        pod.meta.uid = item["metadata"]["uid"]
        pod.meta.annotations = dict(item["metadata"]["annotations"])
        return pod

    infos: dict[str, NodeInfo] = {}
    for item in doc["items"]:
        if item["kind"] == "Node":
            labels = item["metadata"]["labels"]
            node = make_node(item["metadata"]["name"]).capacity(cpu=item["status"]["allocatable"]["cpu"], memory="256Gi")
            for k, v in labels.items():
                node = node.label(k, v)
            infos[item["metadata"]["name"]] = NodeInfo(node.obj())
    for item in doc["items"]:
        if item["kind"] == "Pod" and item["spec"].get("nodeName"):
            infos[item["spec"]["nodeName"]].add_pod_info(PodInfo(pod_of(item)))
    pending = [pod_of(i) for i in doc["items"] if i["kind"] == "Pod" and not i["spec"].get("nodeName")]
    node_list = list(infos.values())
    share = pkg.GpuShare(None, _Handle(pending))
    scorer = getattr(pkg, policy)(None, _Handle(pending))
    for pod in rng.sample(pending, min(5, len(pending))):
        state = CycleState()
        per_node = [share.filter(state, pod, ni) for ni in node_list]
        try:
            batch = share.filter_batch(state, pod, node_list)
        except Exception:  # noqa: BLE001 - the runtime then calls filter per node
            continue
        if batch is not None and [(s.code, s.reasons) if s else None for s in batch] != [
            (s.code, s.reasons) if s else None for s in per_node
        ]:
            checker.fail("gpushare-batch-filter", f"filter_batch differs from filter for {pod.meta.name}")
            return
        feasible = [ni for ni, s in zip(node_list, per_node) if s is None]
        if len(feasible) < 2 or policy == "GpuShareRandom":
            continue
        scores = [NodeScore(ni.node.name, scorer.score(state, pod, ni)[0]) for ni in feasible]
        values = scorer.score_batch(state, pod, feasible)
        # FGD's expected fragmentation is a BLAS matrix-vector product whose last bits depend on
        # how many nodes it covers, so one node's score may differ by one where floor(100 x
        # sigmoid) crosses an integer (known, also before the vectorisation): within 1 there.
        slack = 1 if policy == "GpuShareFGD" else 0
        if any(abs(int(v) - s.score) > slack for v, s in zip(values, scores)):
            checker.fail("gpushare-batch-score", f"{policy}: score_batch differs from score for {pod.meta.name}")
            return
        if slack:
            continue
        normalized = scorer.score_extensions().normalize_score_batch(state, pod, feasible, values.copy())
        scorer.score_extensions().normalize_score(state, pod, scores)
        if list(normalized) != [s.score for s in scores]:
            checker.fail("gpushare-batch-normalize", f"{policy}: normalize_score_batch differs for {pod.meta.name}")
            return


__all__ = ["gpushare_dimension"]
