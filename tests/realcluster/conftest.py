"""Fixtures for the real-cluster tests: a control plane from $KSCHEDCTL_TEST_ASSETS, and snapshots
loaded into fresh clusters of it. Without the variable every test here skips, saying why."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .realcluster_env import Cluster, ControlPlane, EnvError, assets_dir, skip_reason
from .realcluster_load import Loader, load_snapshot, snapshot_items


@pytest.fixture(scope="session")
def control_plane() -> Iterator[ControlPlane]:
    """etcd, started once a session (each test's cluster is a kube-apiserver of its own on it)."""
    assets = assets_dir()
    if assets is None:
        pytest.skip(skip_reason())
    try:
        plane = ControlPlane.start(assets)
    except EnvError as err:
        pytest.fail(str(err), pytrace=False)
    try:
        yield plane
    finally:
        plane.stop()


@pytest.fixture
def real_cluster(control_plane: ControlPlane) -> Iterator[Cluster]:
    """An empty cluster: a fresh kube-apiserver (own etcd prefix), stopped after the test."""
    try:
        cluster = control_plane.new_cluster()
    except EnvError as err:
        pytest.fail(str(err), pytrace=False)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def load(real_cluster: Cluster) -> Callable[[Path], Loader]:
    """Load a snapshot file into the empty cluster."""

    def run(path: Path) -> Loader:
        try:
            return load_snapshot(real_cluster, snapshot_items(path))
        except EnvError as err:
            pytest.fail(f"loading {path.name}: {err}", pytrace=False)

    return run


@pytest.fixture
def use_cluster(real_cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Make a user's kubeconfig for the cluster the current one (KUBECONFIG); returns its path."""

    def use(user: str = "kschedctl-admin") -> Path:
        path = real_cluster.kubeconfig(tmp_path / f"kubeconfig-{user}", user=user)
        monkeypatch.setenv("KUBECONFIG", str(path))
        return path

    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    os.makedirs(tmp_path / "home", exist_ok=True)
    return use
