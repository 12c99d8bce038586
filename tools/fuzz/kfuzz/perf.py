"""The `perf` dimension (`--dimension perf`): the speed-ups of issue 25 give the answers of the
code they short-cut, and the scheduler_perf workloads of benchmarks/perf_config.py are input
kschedctl places as the side-by-side harness expects.

Each input is one of:

- layouts: objects of the seed snapshot, some with a key renamed (miscased or unknown) at a
  random depth, some with their keys reordered, checked in a random order through
  ``known_fields.unknown_fields`` (whose memo of key layouts carries over from object to object)
  against the full walk ``known_fields._walk``;
- queue: random priorities, queue times and input orders added, deleted, re-added and popped in
  a random interleaving through the active heap keyed by PrioritySort.sort_key and through one
  calling PrioritySort.less: the same pods must come out in the same order;
- workload: a small random instance of a perf_config shape through `schedule` (twice: the same
  output), every pod placed but the Unschedulable shape's churn pods; the gang shape with its
  feature gates and a random gang size, the DRA shapes with random devices per node (no node
  given more claims than devices), the mixed-churn shape also through `simulate` with its churn
  timeline (every measured pod placed, only churn pods left pending).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import sys
from pathlib import Path
from typing import Any

from kfuzz import seeds
from kfuzz.contract import Checker
from kschedctl.api import known_fields
from kschedctl.backend.queue.heap import Heap
from kschedctl.framework.types import PodInfo, QueuedPodInfo
from kschedctl.plugins.priority_sort.plugin import PrioritySort
from kschedctl.runtime.framework import _sort_key
from kschedctl.testing import make_pod

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def _walked(raw: dict[str, Any]) -> list[tuple[str, str | None]]:
    kinds, types = known_fields._schema()
    spec = kinds.get(raw.get("kind"))  # type: ignore[arg-type]
    if spec is None or raw.get("apiVersion") != spec["apiVersion"]:
        return []
    out: list[tuple[str, str | None]] = []
    known_fields._walk(raw, types[spec["type"]], "", types, out)
    return out


def _dicts(value: Any) -> list[dict[str, Any]]:
    """Every dict inside value (value included)."""
    out: list[dict[str, Any]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            out.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def _mutate_layout(obj: dict[str, Any], rng: random.Random) -> str:
    inner = rng.choice(_dicts(obj))
    if not inner:
        return "empty"
    key = rng.choice(list(inner))
    how = rng.random()
    if how < 0.4:
        value = inner.pop(key)
        new = key.capitalize() if key[:1].islower() else key.lower()
        inner[new] = value
        return f"renamed {key} -> {new}"
    if how < 0.6:
        inner[f"x{rng.randrange(1000)}"] = rng.choice([1, "s", {}, [], None])
        return "unknown key"
    items = list(inner.items())
    rng.shuffle(items)
    inner.clear()
    inner.update(items)
    return "reordered"


def layouts(rng: random.Random, checker: Checker) -> str:
    objects = [o for o in seeds.snapshot()["items"] if isinstance(o, dict)]
    batch = []
    for _ in range(rng.randint(5, 30)):
        obj = copy.deepcopy(rng.choice(objects))
        if rng.random() < 0.5:
            _mutate_layout(obj, rng)
        batch.append(obj)
    for obj in batch:
        got, want = known_fields.unknown_fields(obj), _walked(obj)
        if got != want:
            checker.fail("known-fields-memo", f"{obj.get('kind')}: memoised check {got!r}, full walk {want!r}")
    return f"perf layouts of {len(batch)} objects"


def queue(rng: random.Random, checker: Checker) -> str:
    plugin = PrioritySort()
    keyed, plain = Heap(plugin.less, _sort_key(plugin)), Heap(plugin.less)
    pods = [
        QueuedPodInfo(
            PodInfo.of(make_pod(f"p{i}").priority(rng.choice([0, 1, 10, -5])).obj()),
            timestamp=float(rng.choice([0, 1, 2.5])),
            seq=rng.randrange(20),
        )
        for i in range(rng.randint(2, 60))
    ]
    out: list[list[str]] = [[], []]
    for _ in range(rng.randint(10, 200)):
        op, qpi = rng.random(), rng.choice(pods)
        for k, heap in enumerate((keyed, plain)):
            if op < 0.6:
                heap.add(qpi)
            elif op < 0.75:
                heap.delete(qpi.pod.uid)
            else:
                popped = heap.pop()
                out[k].append(popped.pod.uid if popped is not None else "-")
    while len(plain):
        out[0].append(keyed.pop().pod.uid)  # type: ignore[union-attr]
        out[1].append(plain.pop().pod.uid)  # type: ignore[union-attr]
    if out[0] != out[1] or len(keyed):
        checker.fail("queue-sort-key", f"keyed heap popped {out[0]}, less heap {out[1]}")
    return f"perf queue of {len(pods)} pods"


def workload(rng: random.Random, workdir: Path, checker: Checker) -> str:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import perf_config
    finally:
        sys.path.remove(str(BENCHMARKS))
    shape = rng.choice(sorted(perf_config.SHAPES))
    spec = perf_config.SHAPES[shape]
    nodes = rng.randint(4, 12)
    namespaces = rng.randint(1, 3) if spec.ns_selector else 0
    init = rng.randint(0, 2) * max(namespaces, 1) * (len(spec.init_mix) or 1)
    if spec.init_bound:
        init = 4 * nodes  # PreemptionBasic's shape: four low-priority pods fill each node
    devices = rng.randint(1, 4)
    if spec.family in ("gang", "churn"):
        init = 0  # upstream's gang and mixed-churn workloads have no init pods
    if spec.init_claims:
        init = rng.randint(0, nodes * devices - 1)  # allocated claims; at least one device stays free
    case = perf_config.Case(
        shape,
        nodes,
        init,
        rng.randint(1, nodes),
        "fuzz",
        namespaces=namespaces,
        churn=rng.randint(1, 3) if spec.churn_template or spec.family == "churn" else 0,
        claims_per_node=devices,
        pods_per_group=rng.randint(1, 4) if spec.family == "gang" else 0,
    )
    if spec.family == "dra":  # every pending pod needs a device
        case = dataclasses.replace(case, measure=min(case.measure, nodes * devices - case.init))
    path = perf_config.write(case, workdir / "perf", seed=rng.randrange(1 << 30))
    args = ["schedule", str(path), "--config", str(workdir / "perf" / "config.yaml"), "-o", "json", "--kube-version", "1.35", "--seed", "1"]
    args += ["--feature-gates", case.feature_gates] if case.feature_gates else []
    run = checker.run(args)
    if checker.basic(run, "schedule", str(path)) and run.exit_code == 0:
        summary = json.loads(run.stdout)["summary"]
        # required anti-affinity on the hostname: one such pod per node
        expected = (
            min(case.schedulable, nodes) if spec.measure_template in ("anti-affinity", "anti-affinity-ns-selector") else case.schedulable
        )
        if summary["scheduled"] != expected:
            checker.fail("perf-workload", f"{case.name}: placed {summary['scheduled']} of {expected} schedulable pods", run)
        again = checker.run(args)
        if again.stdout != run.stdout:
            checker.fail("deterministic", f"{case.name}: the same file and seed gave different output", again)
        if spec.family == "dra":
            sys.path.insert(0, str(BENCHMARKS))
            try:
                import side_by_side
            finally:
                sys.path.remove(str(BENCHMARKS))
            placements = {p["pod"]: p["node"] for p in json.loads(run.stdout)["placements"]}
            over = side_by_side.device_overruns(path, placements, case.claims_per_node)
            if over:
                checker.fail("perf-workload", f"{case.name}: {over} nodes given more claims than devices", run)
    if spec.family == "churn":
        _churn_timeline(case, path, checker)
    return f"perf workload {case.name}"


def _churn_timeline(case: Any, path: Path, checker: Checker) -> None:
    """SchedulingWithMixedChurn through `simulate`: the measured pods all placed, the churn pods
    (9 cpu, never schedulable) the only ones left."""
    scenario = path.with_name(f"{case.name}.scenario.json")
    run = checker.run(["simulate", str(scenario), "-o", "json", "--kube-version", "1.35", "--seed", "1"])
    if checker.basic(run, "simulate", str(scenario)) and run.exit_code == 0:
        doc = json.loads(run.stdout)
        if len(doc["placements"]) != case.measure or any(not u["pod"].startswith("namespace-1/churn-pod-") for u in doc["unschedulable"]):
            checker.fail("perf-workload", f"{case.name}: simulate placed {len(doc['placements'])} of {case.measure}", run)


def perf_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    pick = rng.random()
    if pick < 0.4:
        return layouts(rng, checker)
    if pick < 0.7:
        return queue(rng, checker)
    return workload(rng, workdir, checker)
