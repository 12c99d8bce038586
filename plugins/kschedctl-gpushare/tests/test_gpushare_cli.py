"""End to end through the CLI: `kschedctl schedule` with GpuShare and each policy on a tiny
GPU cluster (the package is registered for the test when it is not installed)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedctl.cli.app import app

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
CONFIG = Path(__file__).resolve().parents[3] / "examples" / "openb" / "gpushare-config.yaml"
DOMAIN = "gpushare.kschedctl.io"
POLICIES = ["GpuShareRandom", "GpuShareDotProduct", "GpuShareClustering", "GpuSharePacking", "GpuShareBestFit", "GpuShareFGD"]


@pytest.fixture(autouse=True)
def registered(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The package and its entry point on sys.path, unless it is installed already (the
    process's plugin registry, built once per process, is rebuilt for these tests)."""
    from importlib.metadata import PackageNotFoundError, distribution

    from kschedctl.plugins import plugin_manager

    try:
        distribution("kschedctl-gpushare")
        yield
        return
    except PackageNotFoundError:
        pass
    monkeypatch.setattr(plugin_manager, "_DEFAULT", None)
    site = tmp_path_factory.mktemp("site")
    info = site / "kschedctl_gpushare-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kschedctl-gpushare\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[kschedctl]\ngpushare = kschedctl_gpushare.hooks\n")
    added = [str(PACKAGE_ROOT), str(site)]
    sys.path.extend(added)
    try:
        yield
    finally:
        for entry in added:
            sys.path.remove(entry)


def node(name: str, gpus: int, model: str, cpu: str = "32") -> dict[str, Any]:
    res = {"cpu": cpu, "memory": "128Gi", "pods": "110", f"{DOMAIN}/gpu-milli": str(gpus * 1000)}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {f"{DOMAIN}/gpu-count": str(gpus), f"{DOMAIN}/gpu-model": model}},
        "status": {"capacity": res, "allocatable": res},
    }


def pod(name: str, second: int, count: int = 0, milli: int = 1000, model: str = "") -> dict[str, Any]:
    annotations = {f"{DOMAIN}/gpu-count": str(count), f"{DOMAIN}/gpu-milli": str(milli)} if count else {}
    if model:
        annotations[f"{DOMAIN}/gpu-model"] = model
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": name,
            "annotations": annotations,
            "creationTimestamp": f"2023-01-01T00:00:{second:02d}Z",
        },
        "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
    }


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    items = [
        node("a-2gpu", 2, "G2"),
        node("b-8gpu", 8, "G2"),
        node("c-t4", 1, "T4"),
        pod("eight", 1, 8),
        pod("share-1", 2, 1, 600, "G2"),
        pod("share-2", 3, 1, 600, "G2"),
        pod("share-3", 4, 1, 300, "G2"),
        pod("t4-only", 5, 1, 1000, "T4"),
        pod("eight-again", 6, 8),
        pod("share-4", 7, 1, 500, "G2"),
        pod("cpu-only", 8),
    ]
    path = tmp_path / "snap.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def schedule(snapshot: Path, tmp_path: Path, policy: str, seed: str = "1") -> dict[str, Any]:
    config = CONFIG.read_text().replace("GpuShareFGD", policy)
    path = tmp_path / f"{policy}.yaml"
    path.write_text(config)
    result = CliRunner().invoke(app, ["schedule", str(snapshot), "--config", str(path), "-o", "json", "--seed", seed])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


@pytest.mark.parametrize("policy", POLICIES)
def test_schedule_places_gpu_pods_where_they_fit(snapshot: Path, tmp_path: Path, policy: str) -> None:
    out = schedule(snapshot, tmp_path, policy)
    where = {p["pod"].split("/")[1]: p["node"] for p in out["placements"]}
    assert where["t4-only"] == "c-t4"  # the only T4
    assert "eight" in where and where["eight"] == "b-8gpu"  # 8 free GPUs on one node: only b, still empty
    unschedulable = {u["pod"].split("/")[1]: u for u in out["unschedulable"]}
    # b is full after "eight", c is a T4: the G2 sharing pods go to a (600 and 600 on its two
    # GPUs, 300 beside one of them); 500 more fits no GPU (400 and 100 free)
    assert where["share-1"] == where["share-2"] == where["share-3"] == "a-2gpu"
    assert set(unschedulable) == {"eight-again", "share-4"}
    assert unschedulable["eight-again"]["reasons"] == {"Insufficient GPU": 3}
    assert unschedulable["share-4"]["reasons"] == {"Insufficient GPU": 2, "node(s) had no GPU of the requested model": 1}
    assert schedule(snapshot, tmp_path, policy) == out  # same --seed, same run


def test_plugins_are_listed(snapshot: Path) -> None:
    result = CliRunner().invoke(app, ["plugins", "-o", "json"])
    assert result.exit_code == 0
    names = {p["name"] for p in json.loads(result.stdout)["plugins"]}
    assert {"GpuShare", *POLICIES} <= names


def test_a_finished_schedulers_ledger_is_let_go(snapshot: Path, tmp_path: Path) -> None:
    """The ledger registry is keyed weakly by the Handle: runs one after another in one process
    (a sweep's Dask worker runs hundreds) leave nothing behind, where every finished scheduler
    was kept (with its snapshot and pods) while the Handle took no weak references."""
    import gc

    from kschedctl_gpushare import gpu

    for seed in ("1", "2", "3"):
        schedule(snapshot, tmp_path, "GpuShareFGD", seed)
    gc.collect()
    assert len(gpu._LEDGERS) == 0
    assert gpu._UNKEYED == {}
