"""`kschedctl capture` against a fake API server: the snapshot kubectl would print, paging, what is
never read, 403/404 as warnings, kubeconfig resolution as kubectl does it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import SCHEDULER_CONFIG, SECRET_VALUE
from fake_apiserver import FakeApiServer

from kschedctl.cluster.capture import CAPTURED_KINDS, POD_FIELD_SELECTOR
from kschedctl.cluster.loader import load_snapshot

# what `kubectl get` lists for the kinds the fake cluster lets us read, in capture's order
READABLE_KINDS = [
    "Namespace",
    "PriorityClass",
    "Node",
    "Pod",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "StorageClass",
    "CSINode",
    "CSIDriver",
    "Service",
    "ReplicaSet",
]


def kubectl_get_yaml(api: FakeApiServer) -> dict[str, Any]:
    """By hand, what `kubectl get <those kinds> -A -o yaml` prints for the fake cluster: a List
    whose items have kind and apiVersion set and no managedFields; finished pods are not listed
    (kube-scheduler's informer field selector, which capture uses as well)."""
    items = []
    for kind in READABLE_KINDS:
        res = api.by_kind[kind]
        for stored in api.store[res]:
            if kind == "Pod" and stored["status"].get("phase") in ("Succeeded", "Failed"):
                continue
            md = {k: v for k, v in stored["metadata"].items() if k != "managedFields"}
            items.append({"apiVersion": res.group_version, "kind": kind, **stored, "metadata": md})
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


@pytest.fixture(params=["http", "https"])
def any_api(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The fake cluster over plain HTTP and over TLS with its own CA in the kubeconfig."""
    from conftest import demo_objects

    if request.param == "https" and shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make the test certificate")
    tls = tmp_path / "tls" if request.param == "https" else None
    if tls:
        tls.mkdir()
    server = FakeApiServer(demo_objects(), forbidden={"poddisruptionbudgets"}, not_found={"csistoragecapacities"}, tls_dir=tls).start()
    monkeypatch.setenv("KUBECONFIG", str(server.write_kubeconfig(tmp_path / "kubeconfig", context="fake-prod")))
    yield server
    server.stop()


def test_capture_writes_what_kubectl_get_would(any_api, tmp_path, run_cli):
    out = tmp_path / "snap.yaml"
    result = run_cli("capture", "-o", str(out), "--chunk-size", "2")
    assert result.exit_code == 0, result.stderr
    text = out.read_text()
    assert yaml.safe_load(text) == kubectl_get_yaml(any_api)
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert header[0].startswith("# kschedctl ") and " capture at 20" in header[0]
    assert "# context: fake-prod" in header and f"# server: {any_api.url}" in header
    assert "# not captured: PodDisruptionBudget (Forbidden (403)), CSIStorageCapacity (NotFound (404))" in header


def test_capture_pages_with_limit_and_continue_and_filters_finished_pods(api, kubeconfig, tmp_path, run_cli):
    assert run_cli("capture", "-o", str(tmp_path / "s.yaml"), "--chunk-size", "5").exit_code == 0
    pod_pages = api.list_requests("pods")
    assert len(pod_pages) == 3  # 12 live pods of 13, 5 a page
    assert [q.get("limit") for q in pod_pages] == ["5", "5", "5"]
    assert "continue" not in pod_pages[0] and all(q.get("continue") for q in pod_pages[1:])
    assert all(q["fieldSelector"] == POD_FIELD_SELECTOR for q in pod_pages)


def test_chunk_size_zero_lists_everything_at_once(api, kubeconfig, tmp_path, run_cli):
    assert run_cli("capture", "-o", str(tmp_path / "s.yaml"), "--chunk-size", "0").exit_code == 0
    assert [("limit" in q, "continue" in q) for q in api.list_requests("pods")] == [(False, False)]


def test_nothing_secret_lands_in_the_snapshot(api, kubeconfig, tmp_path, run_cli):
    out = tmp_path / "snap.yaml"
    assert run_cli("capture", "-o", str(out)).exit_code == 0
    text = out.read_text()
    for secret in (SECRET_VALUE, api.token, "hunter2", "managedFields", "kind: Secret", "kind: ConfigMap"):
        assert secret not in text
    kinds = {o["kind"] for o in yaml.safe_load(text)["items"]}
    assert not kinds & {"Secret", "ConfigMap"}
    assert not [p for p in api.paths_requested() if "/secrets" in p or "/configmaps" in p]


def test_forbidden_and_unserved_kinds_are_warnings_naming_the_kind(api, kubeconfig, tmp_path, run_cli):
    result = run_cli("capture", "-o", str(tmp_path / "snap.yaml"))
    assert result.exit_code == 0
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2
    assert warnings[0].startswith(
        "warning: PodDisruptionBudget not captured (policy/v1 poddisruptionbudgets): "
        "Forbidden (403): poddisruptionbudgets.policy is forbidden"
    )
    assert warnings[1].startswith("warning: CSIStorageCapacity not captured (storage.k8s.io/v1 csistoragecapacities): NotFound (404)")


def test_unserved_optional_apis_are_not_requested(api, kubeconfig, tmp_path, run_cli):
    """resource.k8s.io and the pod-group APIs are not served here: discovery says so, nothing is listed."""
    assert run_cli("capture", "-o", str(tmp_path / "snap.yaml")).exit_code == 0
    assert not [p for p in api.paths_requested() if "resource.k8s.io" in p or "podgroups" in p or "workloads" in p]
    assert {"/api", "/apis"} <= set(api.paths_requested())


def test_dra_objects_are_captured_where_served(tmp_path, monkeypatch, run_cli):
    from conftest import demo_objects

    objs = demo_objects() + [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "gpu.example.com"},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "gpu", "namespace": "ml"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
        },
    ]
    server = FakeApiServer(objs, serve_dra=True).start()
    try:
        monkeypatch.setenv("KUBECONFIG", str(server.write_kubeconfig(tmp_path / "kc")))
        assert run_cli("capture", "-o", str(tmp_path / "snap.yaml")).exit_code == 0
    finally:
        server.stop()
    items = yaml.safe_load((tmp_path / "snap.yaml").read_text())["items"]
    dra = [(o["apiVersion"], o["kind"], o["metadata"]["name"]) for o in items if "resource.k8s.io" in o["apiVersion"]]
    assert dra == [("resource.k8s.io/v1", "DeviceClass", "gpu.example.com"), ("resource.k8s.io/v1", "ResourceClaim", "gpu")]


def test_captured_file_is_a_valid_snapshot(api, kubeconfig, tmp_path, run_cli):
    out = tmp_path / "snap.json"
    assert run_cli("capture", "-o", str(out)).exit_code == 0
    doc = json.loads(out.read_text())  # JSON by extension
    assert doc["kind"] == "List"
    snap = load_snapshot([str(out)])
    assert len(snap.nodes) == 6 and len(snap.pods) == 12
    assert "shop/data-db-0" in snap.objects.persistent_volume_claims
    assert set(snap.objects.namespaces) == {"batch", "data", "default", "kube-system", "ml", "shop"}


def test_dash_writes_yaml_to_stdout(api, kubeconfig, run_cli):
    result = run_cli("capture", "-o", "-")
    assert result.exit_code == 0
    assert result.stdout.startswith("# kschedctl ")
    assert yaml.safe_load(result.stdout)["kind"] == "List"


def test_the_file_is_replaced_atomically_and_kept_on_failure(api, kubeconfig, tmp_path, run_cli):
    out = tmp_path / "snap.yaml"
    out.write_text("previous snapshot\n")
    api.write_kubeconfig(kubeconfig, context="fake-prod", token="wrong-token")
    result = run_cli("capture", "-o", str(out))
    assert result.exit_code == 2
    assert out.read_text() == "previous snapshot\n"
    api.write_kubeconfig(kubeconfig, context="fake-prod")
    assert run_cli("capture", "-o", str(out)).exit_code == 0
    assert yaml.safe_load(out.read_text())["kind"] == "List"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".snap")) == []  # no temp left


def test_wrong_token_is_one_clear_line(api, kubeconfig, run_cli):
    api.write_kubeconfig(kubeconfig, context="fake-prod", token="wrong-token")
    result = run_cli("capture")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [f"error: context fake-prod ({api.url}): GET /api: Unauthorized (401): Unauthorized"]


def test_unreachable_server_is_one_clear_line(tmp_path, monkeypatch, run_cli):
    server = FakeApiServer([]).start()
    path = server.write_kubeconfig(tmp_path / "kc")
    server.stop()  # nothing listens there any more
    monkeypatch.setenv("KUBECONFIG", str(path))
    result = run_cli("capture")
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: context fake (http://127.0.0.1:") and "cannot reach the API server" in line


def test_scheduler_config_is_read_from_the_named_configmap_only(api, kubeconfig, tmp_path, run_cli):
    out = tmp_path / "snap.yaml"
    result = run_cli("capture", "-o", str(out), "--scheduler-config", "configmap/kube-system/kube-scheduler-config")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "snap-scheduler-config.yaml").read_text() == SCHEDULER_CONFIG
    assert [p for p in api.paths_requested() if "configmaps" in p] == ["/api/v1/namespaces/kube-system/configmaps/kube-scheduler-config"]
    assert "# scheduler configuration: configmap/kube-system/kube-scheduler-config/config.yaml -> " in out.read_text()


@pytest.mark.parametrize(
    "ref, message",
    [
        (
            "configmap/kube-system/missing",
            'error: --scheduler-config configmap/kube-system/missing: NotFound (404): configmaps "missing" not found',
        ),
        (
            "configmap/kube-system/kube-scheduler-config/nope",
            "error: --scheduler-config configmap/kube-system/kube-scheduler-config/nope: no key 'nope' (keys: config.yaml)",
        ),
        ("secret/kube-system/x", "error: --scheduler-config: expected configmap/NAMESPACE/NAME[/KEY], got 'secret/kube-system/x'"),
    ],
    ids=["no-such-configmap", "no-such-key", "not-a-configmap"],
)
def test_scheduler_config_errors(api, kubeconfig, tmp_path, run_cli, ref, message):
    result = run_cli("capture", "-o", str(tmp_path / "s.yaml"), "--scheduler-config", ref)
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()[-1:]
    assert line.startswith(message)


def test_capture_needs_no_kubernetes_client(api, kubeconfig, monkeypatch, run_cli):
    """kschedctl talks to the API server itself: the `kubernetes` package is not needed (nor imported)."""
    monkeypatch.setitem(sys.modules, "kubernetes", None)  # as if not installed
    result = run_cli("capture")
    assert result.exit_code == 0, result.stderr
    assert yaml.safe_load(result.stdout)["kind"] == "List"


def test_every_kind_the_loader_reads_is_captured():
    """The loader's kinds (cluster/loader.py) all have a place in CAPTURED_KINDS."""
    from kschedctl.cluster import loader

    loader_kinds = (
        {"Node", "Pod", "Namespace", "PriorityClass", "PodDisruptionBudget"}
        | loader._NAMESPACED_GENERIC
        | loader._CLUSTER_GENERIC
        | loader._OTHER_NAMESPACED
        | loader._DRA_KINDS
    )
    assert loader_kinds <= {k.kind for k in CAPTURED_KINDS}


# --- the real kubectl, where one is installed ------------------------------------------------


@pytest.mark.skipif(
    shutil.which("kubectl") is None or shutil.which("openssl") is None,
    reason="needs kubectl (kubectl sends tokens over TLS only) and openssl",
)
def test_capture_equals_real_kubectl_get(tmp_path, run_cli):
    """The same cluster read by kubectl itself and by capture: the same objects, field for field."""
    from conftest import demo_objects

    tls = tmp_path / "tls"
    tls.mkdir()
    server = FakeApiServer(demo_objects(), tls_dir=tls).start()
    try:
        kc = server.write_kubeconfig(tmp_path / "kc")
        env = {**os.environ, "KUBECONFIG": str(kc), "HOME": str(tmp_path)}
        kinds = (
            "namespaces,priorityclasses,nodes,persistentvolumeclaims,persistentvolumes,storageclasses,"
            "csinodes,csidrivers,csistoragecapacities,services,replicasets,poddisruptionbudgets"
        )
        got = []
        for extra in ([kinds], ["pods", f"--field-selector={POD_FIELD_SELECTOR}"]):
            proc = subprocess.run(
                ["kubectl", "get", *extra, "-A", "-o", "json", "--chunk-size", "3"], env=env, capture_output=True, text=True, timeout=60
            )
            assert proc.returncode == 0, proc.stderr
            got += json.loads(proc.stdout)["items"]
        os.environ["KUBECONFIG"] = str(kc)
        try:
            result = run_cli("capture", "-o", str(tmp_path / "snap.json"))
        finally:
            del os.environ["KUBECONFIG"]
        assert result.exit_code == 0, result.stderr
    finally:
        server.stop()
    captured = json.loads((tmp_path / "snap.json").read_text())["items"]

    def key(o: dict[str, Any]) -> tuple[str, str, str]:
        return o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]

    assert sorted(captured, key=key) == sorted(got, key=key)


# --- the paging and discovery logic, on the fake server's answers without HTTP ---------------


class DirectReader:
    """An ApiReader answering from the fake server's logic in-process, with a hook to alter it."""

    def __init__(self, api: FakeApiServer, alter=None) -> None:
        self.api, self.alter = api, alter

    def get_json(self, path, query=()):
        from kschedctl.cluster.kubeclient import ApiStatusError

        query = dict(query)

        def real():
            return self.api.answer(path, query, f"Bearer {self.api.token}")

        status, body = self.alter(path, query, real) if self.alter else real()
        if status >= 400:
            raise ApiStatusError(status, f"GET {path}: {body['reason']} ({status})", detail=f"{body['reason']} ({status})")
        return body


def _capture(api: FakeApiServer, alter=None, chunk_size: int = 500):
    from kschedctl.cluster.capture import capture_cluster

    return capture_cluster(DirectReader(api, alter), context="c", server="s", chunk_size=chunk_size)


def test_forbidden_discovery_falls_back_to_listing_every_kind():
    from conftest import demo_objects

    api = FakeApiServer(demo_objects())

    def forbid_discovery(path, query, real):
        if path == "/apis" or path.count("/") == 3 and path.startswith("/apis/") or path == "/api/v1":
            return 403, {"reason": "Forbidden"}
        return real()

    capture = _capture(api, forbid_discovery)
    assert capture.warnings[0] == ("cannot discover the served APIs (Forbidden (403)); trying every kind at its preferred version")
    assert len(capture.items) == 35  # everything readable is still read
    # the unserved DRA and pod-group APIs were tried and answered 404: warnings, not failures
    assert any(w.startswith("DeviceClass not captured (resource.k8s.io/v1 deviceclasses): NotFound (404)") for w in capture.warnings)


def test_a_server_repeating_its_continue_token_is_an_error_not_a_hang():
    from conftest import demo_objects

    from kschedctl.cluster.kubeclient import LiveClusterError

    def stuck(path, query, real):
        status, body = real() if not query.get("continue") else (200, {"items": []})
        if path == "/api/v1/nodes":
            body = {**body, "metadata": {"continue": "same"}}
        return status, body

    with pytest.raises(LiveClusterError, match="repeated continue token 'same'"):
        _capture(FakeApiServer(demo_objects()), stuck, chunk_size=2)


def test_an_expired_continue_token_fails_the_capture():
    """410 Gone (the list changed too much between pages) is not a kind the user may skip."""
    from conftest import demo_objects

    from kschedctl.cluster.kubeclient import ApiStatusError

    def expired(path, query, real):
        return (410, {"reason": "Expired"}) if query.get("continue") else real()

    with pytest.raises(ApiStatusError) as err:
        _capture(FakeApiServer(demo_objects()), expired, chunk_size=2)
    assert err.value.status == 410


def test_capture_takes_the_daemonsets(tmp_path, monkeypatch, run_cli):
    """DaemonSets are captured (apps/v1) and read back: the pods a new node gets in `capacity
    --add-nodes`, `--nodes-for` and `simulate` addNode."""
    from conftest import demo_objects

    ds = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "fluentd", "namespace": "kube-system", "uid": "ds-fluentd"},
        "spec": {
            "selector": {"matchLabels": {"app": "fluentd"}},
            "template": {
                "metadata": {"labels": {"app": "fluentd"}},
                "spec": {"containers": [{"name": "c", "image": "fluentd", "resources": {"requests": {"cpu": "100m"}}}]},
            },
        },
    }
    server = FakeApiServer([*demo_objects(), ds]).start()
    try:
        monkeypatch.setenv("KUBECONFIG", str(server.write_kubeconfig(tmp_path / "kubeconfig")))
        out = tmp_path / "snap.json"
        result = run_cli("capture", "-o", str(out))
        assert result.exit_code == 0, result.stderr
    finally:
        server.stop()
    captured = [o for o in json.loads(out.read_text())["items"] if o["kind"] == "DaemonSet"]
    assert [(o["apiVersion"], o["metadata"]["name"]) for o in captured] == [("apps/v1", "fluentd")]
    snap = load_snapshot([str(out)])
    assert [d.name for d in snap.objects.daemon_sets] == ["fluentd"]
    assert not any("DaemonSet" in w for w in snap.warnings)
