"""tools/traces/openb.py: the openb trace as a snapshot (arrival order, 130 % inflation, errors)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("openb_trace", ROOT / "tools" / "traces" / "openb.py")
assert _spec is not None and _spec.loader is not None
openb: Any = importlib.util.module_from_spec(_spec)
sys.modules["openb_trace"] = openb
_spec.loader.exec_module(openb)

NODES = "sn,cpu_milli,memory_mib,gpu,model\nn-0,96000,393216,8,G2\nn-1,32000,131072,2,T4\ncpu-0,64000,262144,0,\n"
PODS = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
    "p-0,4000,8192,1,500,,LS,Running,0,10,0\n"
    "p-1,8000,16384,2,1000,,LS,Running,0,10,0\n"
    "p-2,1000,2048,0,0,,BE,Running,0,10,0\n"
    "p-3,2000,4096,1,250,T4|A10,LS,Running,0,10,0\n"
)


def write(tmp_path: Path, nodes: str = NODES, pods: str = PODS) -> tuple[Path, Path]:
    n, p = tmp_path / "nodes.csv", tmp_path / "pods.csv"
    n.write_text(nodes)
    p.write_text(pods)
    return n, p


def test_snapshot_inflates_to_130_percent_in_a_seeded_order(tmp_path: Path) -> None:
    nodes, pods = write(tmp_path)
    snap, order, capacity = openb.build(nodes, pods, seed=42)
    assert capacity == 10_000  # the GPU nodes only: 8 + 2 GPUs
    names = [i["metadata"]["name"] for i in snap["items"] if i["kind"] == "Node"]
    assert names == ["n-0", "n-1"]
    requested = sum(p.gpu_request for p in order)
    assert requested >= 13_000 and requested - max(p.gpu_request for p in order) < 13_000
    pods_ = [i for i in snap["items"] if i["kind"] == "Pod"]
    assert sorted(p["metadata"]["name"] for p in pods_[:4]) == ["p-0", "p-1", "p-2", "p-3"]  # the trace, shuffled
    assert all("gpushare.kschedctl.io/resampled" in p["metadata"]["annotations"] for p in pods_[4:])
    stamps = [p["metadata"]["creationTimestamp"] for p in pods_]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)  # arrival order is queue order
    share = next(p for p in pods_ if p["metadata"]["name"] == "p-3")["metadata"]["annotations"]
    assert share["gpushare.kschedctl.io/gpu-milli"] == "250" and share["gpushare.kschedctl.io/gpu-model"] == "T4|A10"
    again, _, _ = openb.build(nodes, pods, seed=42)
    other, _, _ = openb.build(nodes, pods, seed=43)
    assert again == snap and other != snap


def test_a_heavier_trace_is_cut_down(tmp_path: Path) -> None:
    heavy = PODS.split("\n", 1)[0] + "\n" + "".join(f"q-{i},1000,1024,8,1000,,LS,Running,0,1,0\n" for i in range(5))
    nodes, pods = write(tmp_path, pods=heavy)
    _, order, _ = openb.build(nodes, pods, seed=1)
    assert sum(p.gpu_request for p in order) <= 13_000 and len(order) == 1


@pytest.mark.parametrize(
    "pods, message",
    [
        ("name,cpu_milli\np,1\n", "pods.csv: line 1: missing column(s) memory_mib, num_gpu, gpu_milli"),
        (PODS.replace("p-1,8000", "p-1,lots"), "pods.csv: line 3: column cpu_milli: 'lots' is not an integer"),
        (
            PODS.replace("p-1,8000,16384,2,1000", "p-1,8000,16384,2,500"),
            "pods.csv: line 3: column gpu_milli: 500 with num_gpu 2 (must be 1000)",
        ),
    ],
)
def test_bad_csv_is_one_error_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], pods: str, message: str) -> None:
    nodes, pods_path = write(tmp_path, pods=pods)
    assert openb.main([str(nodes), str(pods_path), "-o", str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {tmp_path / message}\n"


def test_writes_json_snapshot(tmp_path: Path) -> None:
    nodes, pods = write(tmp_path)
    assert openb.main([str(nodes), str(pods), "--seed", "7", "-o", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text())["kind"] == "List"


def test_pods_past_the_arrival_cut_are_gated(tmp_path: Path) -> None:
    nodes, pods = write(tmp_path)
    snap, order, capacity = openb.build(nodes, pods, seed=42, max_arrived=100)
    arrived = 0
    for pod, obj in zip(order, [i for i in snap["items"] if i["kind"] == "Pod"]):
        arrived += pod.gpu_request
        gated = bool(obj["spec"].get("schedulingGates"))
        assert gated == (arrived * 100 > 100 * capacity)
