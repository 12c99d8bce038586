"""Alibaba's openb GPU trace (cluster-trace-gpu-v2023) as a kschedctl snapshot.

    python tools/traces/openb.py NODES.csv PODS.csv --seed 42 [--tune 1.3] -o snap.json

The experiment of Weng et al., *Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
Fragmentation Gradient Descent* (USENIX ATC '23), as the trace's notes describe it: the GPU
nodes, and the pods pending in an arrival order that is

1. the pods sorted by name, then shuffled with the seed (the trace's timestamps are not used);
2. tuned to ``tune`` (1.3) x the cluster's GPU capacity in GPU request: when the trace asks
   less, pods drawn at random with replacement are appended (annotated
   ``gpushare.kschedctl.io/resampled``, so FGD's typical pods stay the trace's); when it asks
   more, random pods are removed;
3. pods never leave.

kschedctl's queue orders pending pods by priority, then creationTimestamp: every pod has
priority 0 and a creationTimestamp one second after the previous one in arrival order, so
`kschedctl schedule` tries them in that order. Each pod carries its arrival index
(``openb.kschedctl.io/arrival``) for the analysis.

Data: research use only; cite the paper (see /work/shared/traces/openb/README.md). The random
draws are Python's (``random.Random(seed)``), not Go's ``math/rand``: the same seed gives a
different, equally random, order from the paper's.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

DOMAIN = "gpushare.kschedctl.io"
ARRIVAL = "openb.kschedctl.io/arrival"
NAMESPACE = "openb"
MILLI = 1000
EPOCH = datetime(2023, 1, 1, tzinfo=UTC)


class TraceError(ValueError):
    """A CSV that cannot be read as the trace (the message names the file, line and column)."""


@dataclass(frozen=True)
class TraceNode:
    name: str
    cpu_milli: int
    memory_mib: int
    gpus: int
    model: str


@dataclass(frozen=True)
class TracePod:
    name: str
    cpu_milli: int
    memory_mib: int
    num_gpu: int
    gpu_milli: int
    gpu_spec: str

    @property
    def gpu_request(self) -> int:
        """GPU milli asked in total (num_gpu x gpu_milli)."""
        return self.num_gpu * self.gpu_milli


def _rows(path: Path, required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    try:
        with path.open(newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in required if c not in (reader.fieldnames or [])]
            if missing:
                raise TraceError(f"{path}: line 1: missing column(s) {', '.join(missing)}")
            return [(i + 2, row) for i, row in enumerate(reader)]
    except OSError as exc:
        raise TraceError(f"{path}: {exc.strerror or exc}") from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise TraceError(f"{path}: not a CSV file: {exc}") from None


def _int(path: Path, line: int, row: dict[str, str], column: str, low: int = 0) -> int:
    raw = (row.get(column) or "").strip()
    try:
        value = int(raw or "0")
    except ValueError:
        raise TraceError(f"{path}: line {line}: column {column}: {raw!r} is not an integer") from None
    if value < low:
        raise TraceError(f"{path}: line {line}: column {column}: {value} is negative")
    return value


def read_nodes(path: Path) -> list[TraceNode]:
    out = []
    for line, row in _rows(path, ("sn", "cpu_milli", "memory_mib", "gpu", "model")):
        out.append(
            TraceNode(
                row["sn"].strip(),
                _int(path, line, row, "cpu_milli"),
                _int(path, line, row, "memory_mib"),
                _int(path, line, row, "gpu"),
                (row.get("model") or "").strip(),
            )
        )
    if not out:
        raise TraceError(f"{path}: no nodes")
    return out


def read_pods(path: Path) -> list[TracePod]:
    out = []
    for line, row in _rows(path, ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")):
        num, milli = _int(path, line, row, "num_gpu"), _int(path, line, row, "gpu_milli")
        if milli > MILLI:
            raise TraceError(f"{path}: line {line}: column gpu_milli: {milli} is above {MILLI}")
        if num > 1 and milli != MILLI:
            raise TraceError(f"{path}: line {line}: column gpu_milli: {milli} with num_gpu {num} (must be {MILLI})")
        out.append(
            TracePod(
                row["name"].strip(),
                _int(path, line, row, "cpu_milli"),
                _int(path, line, row, "memory_mib"),
                num,
                milli,
                (row.get("gpu_spec") or "").strip(),
            )
        )
    if not out:
        raise TraceError(f"{path}: no pods")
    return out


def arrival_order(pods: list[TracePod], capacity_milli: int, seed: int, tune: float) -> list[tuple[TracePod, bool]]:
    """The pods in arrival order, each with whether it is a resampled copy (see the module doc)."""
    rng = random.Random(seed)
    order = sorted(pods, key=lambda p: p.name)
    rng.shuffle(order)
    target = tune * capacity_milli
    total = sum(p.gpu_request for p in order)
    out = [(p, False) for p in order]
    if tune <= 0:
        return out
    if total < target:
        if not any(p.gpu_request for p in order):
            return out  # nothing to inflate with
        while total < target:
            pick = order[rng.randrange(len(order))]
            out.append((pick, True))
            total += pick.gpu_request
    else:
        while total > target and out:
            victim = out.pop(rng.randrange(len(out)))
            total -= victim[0].gpu_request
    return out


def node_object(node: TraceNode) -> dict[str, Any]:
    resources = {
        "cpu": f"{node.cpu_milli}m",
        "memory": f"{node.memory_mib}Mi",
        "pods": "100000",
        f"{DOMAIN}/gpu-milli": str(node.gpus * MILLI),
    }
    labels = {"kubernetes.io/hostname": node.name, f"{DOMAIN}/gpu-count": str(node.gpus)}
    if node.model:
        labels[f"{DOMAIN}/gpu-model"] = node.model
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node.name, "labels": labels},
        "spec": {},
        "status": {"capacity": dict(resources), "allocatable": resources},
    }


def pod_name(pod: TracePod, index: int, resampled: bool) -> str:
    """The trace's name; a resampled copy gets its arrival index as a suffix."""
    return f"{pod.name}-r{index}" if resampled else pod.name


def pod_object(pod: TracePod, index: int, resampled: bool) -> dict[str, Any]:
    name = pod_name(pod, index, resampled)
    requests = {"cpu": f"{pod.cpu_milli}m", "memory": f"{pod.memory_mib}Mi"}
    annotations = {ARRIVAL: str(index)}
    if pod.gpu_request:
        annotations[f"{DOMAIN}/gpu-count"] = str(pod.num_gpu)
        annotations[f"{DOMAIN}/gpu-milli"] = str(pod.gpu_milli)
        if pod.gpu_spec:
            annotations[f"{DOMAIN}/gpu-model"] = pod.gpu_spec
    if resampled:
        annotations[f"{DOMAIN}/resampled"] = "true"
    created = (EPOCH + timedelta(seconds=index)).strftime("%Y-%m-%dT%H:%M:%SZ")
    resources: dict[str, Any] = {"requests": requests}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "uid": f"{NAMESPACE}-{name}",
            "creationTimestamp": created,
            "annotations": annotations,
        },
        "spec": {"containers": [{"name": "main", "image": "trace", "resources": resources}]},
        "status": {"phase": "Pending"},
    }


CUT_GATE = "openb.kschedctl.io/beyond-arrival-cut"


def snapshot(nodes: list[TraceNode], arrivals: list[tuple[TracePod, bool]], max_arrived: float | None = None) -> dict[str, Any]:
    """Nodes and pods. With ``max_arrived`` (% of GPU capacity), the pods arriving after that
    point carry a scheduling gate: they stay in the snapshot (FGD's typical pods are the whole
    trace's) but are never scheduled, which saves the tail of a run when only the curve up to
    that point is wanted."""
    items = [node_object(n) for n in nodes]
    items.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    capacity = sum(n.gpus for n in nodes) * MILLI
    arrived = 0
    for i, (p, r) in enumerate(arrivals):
        obj = pod_object(p, i, r)
        arrived += p.gpu_request
        if max_arrived is not None and arrived * 100 > max_arrived * capacity:
            obj["spec"]["schedulingGates"] = [{"name": CUT_GATE}]
        items.append(obj)
    return {"apiVersion": "v1", "kind": "List", "items": items}


def build(
    nodes_csv: Path, pods_csv: Path, seed: int, tune: float = 1.3, max_arrived: float | None = None
) -> tuple[dict[str, Any], list[TracePod], int]:
    """(the snapshot, the pods in arrival order, the cluster's GPU capacity in milli)."""
    nodes = [n for n in read_nodes(nodes_csv) if n.gpus > 0]
    capacity = sum(n.gpus for n in nodes) * MILLI
    arrivals = arrival_order(read_pods(pods_csv), capacity, seed, tune)
    return snapshot(nodes, arrivals, max_arrived), [p for p, _ in arrivals], capacity


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("nodes", type=Path, help="openb_node_list_gpu_node.csv")
    parser.add_argument("pods", type=Path, help="openb_pod_list_<workload>.csv")
    parser.add_argument("--seed", type=int, default=42, help="arrival order and resampling seed (default 42)")
    parser.add_argument("--tune", type=float, default=1.3, help="GPU request to reach, x capacity (default 1.3; 0: as is)")
    parser.add_argument(
        "--max-arrived", type=float, default=None, help="gate the pods arriving after this %% of GPU capacity (default: none)"
    )
    parser.add_argument("-o", "--output", default="-", help="snapshot file (JSON; default stdout)")
    args = parser.parse_args(argv)
    try:
        snap, _, _ = build(args.nodes, args.pods, args.seed, args.tune, args.max_arrived)
    except TraceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(snap, separators=(",", ":"))
    if args.output == "-":
        sys.stdout.write(text + "\n")
    else:
        Path(args.output).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
