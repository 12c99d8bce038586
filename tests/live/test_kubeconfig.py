"""Which kubeconfig, context and namespace: client-go's loading rules, as kubectl applies them
(k8s.io/client-go/tools/clientcmd/loader.go: --kubeconfig alone; else $KUBECONFIG's files merged,
the first to set a value winning, missing files skipped; else ~/.kube/config; else in-cluster)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from fake_apiserver import FakeApiServer

from kschedctl.cluster import kubeclient
from kschedctl.cluster.kubeclient import LiveClusterError, connect, resolve_kubeconfig


def _config(path: Path, current: str | None, contexts: dict[str, str | None]) -> Path:
    doc: dict = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [],
        "users": [],
        "contexts": [
            {"name": n, "context": {"cluster": "c", "user": "u", **({"namespace": ns} if ns else {})}} for n, ns in contexts.items()
        ],
    }
    if current:
        doc["current-context"] = current
    path.write_text(yaml.safe_dump(doc))
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    return {
        "a": _config(tmp_path / "a", "dev", {"dev": "team-a", "prod": "shop"}),
        "b": _config(tmp_path / "b", "prod", {"prod": "other", "staging": None}),
        "none": _config(tmp_path / "none", None, {"dev": "x"}),
    }


@pytest.mark.parametrize(
    "kubeconfig_env, flag, context, expected",
    [
        ("a:b", None, None, ("dev", "team-a")),  # first file's current-context wins
        ("b:a", None, None, ("prod", "other")),  # ... and its own definition of prod
        ("a:b", None, "staging", ("staging", "default")),  # a context only the second file has
        ("missing:b", None, None, ("prod", "other")),  # missing entries are skipped
        ("a:b", "b", None, ("prod", "other")),  # --kubeconfig replaces KUBECONFIG
        ("none:b", None, None, ("prod", "other")),  # the first file that SETS current-context
    ],
    ids=["first-current-context", "order-matters", "context-flag", "missing-skipped", "kubeconfig-flag", "unset-current-context-skipped"],
)
def test_kubeconfig_resolution(files, tmp_path, monkeypatch, kubeconfig_env, flag, context, expected):
    monkeypatch.setenv("KUBECONFIG", ":".join(str(tmp_path / f) for f in kubeconfig_env.split(":")))
    view = resolve_kubeconfig(str(files[flag]) if flag else None, context)
    assert (view.context, view.namespace) == expected


def test_home_kube_config_when_kubeconfig_unset(tmp_path, monkeypatch):
    (tmp_path / "home" / ".kube").mkdir(parents=True)
    _config(tmp_path / "home" / ".kube" / "config", "home-ctx", {"home-ctx": "mine"})
    view = resolve_kubeconfig(None, None)
    assert (view.context, view.namespace) == ("home-ctx", "mine")


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda p: None, "no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config"),
        (lambda p: _config(p / "k", None, {"x": None}), "no current-context set: pass --context"),
        (lambda p: _config(p / "k", "gone", {"x": None}), "context 'gone' not found"),
    ],
    ids=["nothing", "no-current-context", "unknown-context"],
)
def test_kubeconfig_errors(tmp_path, monkeypatch, setup, message):
    setup(tmp_path)
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "k"))
    with pytest.raises(LiveClusterError) as err:
        resolve_kubeconfig(None, None)
    assert str(err.value).endswith(message)


def test_explicit_kubeconfig_must_exist(tmp_path):
    with pytest.raises(LiveClusterError, match="no such kubeconfig file"):
        resolve_kubeconfig(str(tmp_path / "nope"), None)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="in-cluster config is TLS only; needs openssl")
def test_in_cluster_service_account_when_no_kubeconfig(tmp_path, monkeypatch):
    """In a pod: no kubeconfig anywhere, KUBERNETES_SERVICE_HOST/PORT and the mounted token and CA."""
    from conftest import demo_objects

    tls = tmp_path / "tls"
    tls.mkdir()
    server = FakeApiServer(demo_objects(), tls_dir=tls).start()
    try:
        sa = tmp_path / "serviceaccount"
        sa.mkdir()
        (sa / "token").write_text(server.token)
        (sa / "namespace").write_text("shop")
        (sa / "ca.crt").write_bytes(server.ca_pem or b"")
        monkeypatch.setattr(kubeclient, "SERVICE_ACCOUNT_DIR", sa)
        monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        monkeypatch.setenv("KUBERNETES_SERVICE_PORT", server.url.rsplit(":", 1)[1])
        conn = connect()
        try:
            assert (conn.context, conn.namespace, conn.server) == ("in-cluster", "shop", server.url)
            assert len(conn.get_json("/api/v1/nodes")["items"]) == 6
        finally:
            conn.close()
    finally:
        server.stop()
