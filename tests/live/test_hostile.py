"""Credentials, TLS and a hostile or broken API server: what `kschedctl capture` and --live do.

Every run here also checks that no secret (token, password, client key, exec credential) is in
anything kschedctl printed, with or without --debug.
"""

from __future__ import annotations

import base64
import json
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_apiserver import FakeApiServer
from hostile_server import HostileServer, Request

TOKEN = "s3cr3t-t0ken"  # the fake server's token
needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl for certificates")


def write_kubeconfig(path: Path, server: str, *, cluster: dict[str, Any] | None = None, user: dict[str, Any] | None = None) -> Path:
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server, **(cluster or {})}}],
        "users": [{"name": "u", "user": {"token": TOKEN} if user is None else user}],
        "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "ctx",
    }
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def no_secret(result: Any, *secrets: str | bytes) -> None:
    """Nothing kschedctl printed holds any of the secrets."""
    for secret in (TOKEN, *secrets):
        text = secret.decode() if isinstance(secret, bytes) else secret
        for part in [text, *(line for line in text.splitlines() if len(line) > 12 and not line.startswith("-----"))]:
            assert part not in result.stdout and part not in result.stderr, f"secret {part[:8]}... printed"


def one_error(result: Any) -> str:
    assert result.exit_code == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("error: ") and not any(line.startswith("error: ") for line in lines[:-1])
    return lines[-1]


@pytest.fixture
def tls_api(tmp_path: Path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed for the TLS server")
    from conftest import demo_objects

    (tmp_path / "tls").mkdir()
    server = FakeApiServer(demo_objects(), tls_dir=tmp_path / "tls").start()
    yield server
    server.stop()


# --- the kubeconfig, typed as client-go types it ------------------------------------------------


@pytest.mark.parametrize(
    "cluster, user, message",
    [
        (
            {"insecure-skip-tls-verify": "false"},
            None,
            "clusters[0].cluster.insecure-skip-tls-verify: expected a boolean (true or false), got a string 'false'",
        ),
        ({"certificate-authority-data": "not base64!"}, None, "clusters[0].cluster.certificate-authority-data: illegal base64 data"),
        ({}, {"token": 12345}, "users[0].user.token: expected a string, got a number"),
        ({}, {"tokenFile": ["a"]}, "users[0].user.tokenFile: expected a string, got a list"),
        ({}, {"as-groups": "admins"}, "users[0].user.as-groups: expected a list of strings, got a string 'admins'"),
        (
            {},
            {"exec": {"command": "x", "args": "--flag", "apiVersion": "client.authentication.k8s.io/v1"}},
            "users[0].user.exec.args: expected a list of strings, got a string '--flag'",
        ),
        ({}, {"client-key-data": 7}, "users[0].user.client-key-data: expected a base64 string, got a number"),
    ],
    ids=["quoted-bool", "bad-base64", "token-number", "tokenfile-list", "groups-string", "exec-args-string", "key-number"],
)
def test_a_field_of_the_wrong_type_is_refused_before_anything_is_sent(tls_api, tmp_path, monkeypatch, run_cli, cluster, user, message):
    kc = write_kubeconfig(tmp_path / "kc", tls_api.url, cluster=cluster, user=user)
    monkeypatch.setenv("KUBECONFIG", str(kc))
    for debug in ([], ["--debug"]):
        result = run_cli("capture", *debug)
        line = one_error(result)
        assert line.startswith(f"error: {kc}: {message}"), line
        no_secret(result)
    assert tls_api.requests == []


@pytest.mark.parametrize("ca_field", ["certificate-authority-data", "certificate-authority"])
def test_a_certificate_authority_with_insecure_is_refused_in_client_gos_words(tls_api, tmp_path, monkeypatch, run_cli, ca_field):
    ca = tls_api.ca_pem or b""
    value = base64.b64encode(ca).decode() if ca_field.endswith("-data") else str(tmp_path / "tls" / "server.crt")
    kc = write_kubeconfig(tmp_path / "kc", tls_api.url, cluster={ca_field: value, "insecure-skip-tls-verify": True})
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli("capture")
    assert one_error(result) == (f"error: {kc}: cluster c: specifying a root certificates file with the insecure flag is not allowed")
    assert tls_api.requests == []
    no_secret(result)


def test_insecure_is_said_once_in_kubectls_words(tls_api, tmp_path, monkeypatch, run_cli):
    kc = write_kubeconfig(tmp_path / "kc", tls_api.url, cluster={"insecure-skip-tls-verify": True})
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli("capture")
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "insecure" in line.lower()]
    assert warnings == [
        f"warning: context ctx ({tls_api.url}): insecure-skip-tls-verify is set: the server's "
        "certificate will not be checked for validity. This will make your HTTPS connections insecure"
    ]
    assert "InsecureRequestWarning" not in result.stderr
    no_secret(result)


def test_an_unknown_certificate_authority_fails_before_the_token_is_sent(tls_api, tmp_path, monkeypatch, run_cli):
    kc = write_kubeconfig(tmp_path / "kc", tls_api.url)  # no CA: the system roots do not know the test CA
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli("capture")
    assert "certificate verify failed" in one_error(result)
    assert tls_api.requests == []
    no_secret(result)


def test_a_token_file_ending_in_a_newline_is_trimmed_as_kubectl_does(api, tmp_path, monkeypatch, run_cli):
    (tmp_path / "token").write_text(TOKEN + "\n")
    kc = write_kubeconfig(tmp_path / "kc", api.url, user={"tokenFile": "token"})  # relative to the kubeconfig
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli("capture")
    assert result.exit_code == 0, result.stderr
    no_secret(result)


@pytest.mark.parametrize(
    "token", [TOKEN[:6] + "\n" + TOKEN[6:], TOKEN + " extra", TOKEN + "\u00e9"], ids=["inner-newline", "space", "non-ascii"]
)
def test_a_token_no_header_can_carry_is_an_error_that_does_not_print_it(api, tmp_path, monkeypatch, run_cli, token):
    (tmp_path / "token").write_text(token, encoding="utf-8")
    kc = write_kubeconfig(tmp_path / "kc", api.url, user={"tokenFile": str(tmp_path / "token")})
    monkeypatch.setenv("KUBECONFIG", str(kc))
    for debug in ([], ["--debug"]):
        result = run_cli("capture", *debug)
        assert "the bearer token holds characters an HTTP header cannot carry" in one_error(result)
        no_secret(result, token, TOKEN[:6], TOKEN[6:])
    assert api.requests == []


def test_basic_auth_password_is_never_printed(tmp_path, monkeypatch, run_cli):
    password = "pa55-w0rd-very-secret"

    def refuse(req: Request) -> bool:
        return req.send_json({"kind": "Status", "message": f"Unauthorized {req.headers.get('authorization')}"}, 401)

    with HostileServer(refuse) as server:
        kc = write_kubeconfig(tmp_path / "kc", server.url, user={"username": "admin", "password": password})
        monkeypatch.setenv("KUBECONFIG", str(kc))
        result = run_cli("capture", "--debug")
        assert "Unauthorized (401)" in one_error(result)
        assert server.auth_headers()[0] == "Basic " + base64.b64encode(f"admin:{password}".encode()).decode()
    no_secret(result, password, base64.b64encode(f"admin:{password}".encode()).decode())


def test_a_redirect_to_another_origin_drops_the_token(tmp_path, monkeypatch, run_cli):
    with HostileServer(lambda req: False) as elsewhere:

        def redirect(req: Request) -> bool:
            return req.send(302, b"", {"Location": elsewhere.url + req.path, "Content-Length": "0"})

        with HostileServer(redirect) as server:
            monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kc", server.url)))
            result = run_cli("capture")
            assert "Unauthorized (401)" in one_error(result)
            assert server.auth_headers() == [f"Bearer {TOKEN}"]
            assert elsewhere.auth_headers() == [""]
    no_secret(result)


def test_impersonation_headers_and_same_origin_redirects_keep_the_token(tmp_path, monkeypatch, run_cli):
    def redirect_api(req: Request) -> bool:
        return req.path == "/api" and "moved" not in req.query and req.send(307, b"", {"Location": "/api?moved=1", "Content-Length": "0"})

    user = {"token": TOKEN, "as": "jane", "as-groups": ["devs", "ops"], "as-user-extra": {"scopes": ["view"]}}
    with HostileServer(redirect_api) as server:
        monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kc", server.url, user=user)))
        result = run_cli("capture")
    assert result.exit_code == 0, result.stderr
    assert set(server.auth_headers()) == {f"Bearer {TOKEN}"}
    first = server.requests[0].headers
    assert (first["impersonate-user"], first["impersonate-extra-scopes"]) == ("jane", "view")
    assert first["user-agent"].startswith("kschedctl/") and first["accept-encoding"] == "identity"
    no_secret(result)


def test_the_kubectl_plugin_refuses_a_mistyped_kubeconfig_too(tls_api, tmp_path, monkeypatch, capsys):
    from kschedctl.cli.kubectl_plugin import main

    kc = write_kubeconfig(tmp_path / "kc", tls_api.url, cluster={"insecure-skip-tls-verify": "false"})
    monkeypatch.setenv("KUBECONFIG", str(kc))
    with pytest.raises(SystemExit) as exit_:
        main(["schedule", "-n", "shop"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1].startswith(f"error: {kc}: clusters[0].cluster.insecure-skip-tls-verify: ")
    assert TOKEN not in err and tls_api.requests == []


# --- exec credential plugins ----------------------------------------------------------------------


def plugin(tmp_path: Path, body: str) -> Path:
    """An executable Python script (the test's interpreter) as an exec plugin."""
    import sys

    path = tmp_path / f"plugin-{uuid.uuid4().hex[:6]}"
    path.write_text(f"#!{sys.executable}\nimport json, os, sys, time\n{body}\n")
    path.chmod(0o755)
    return path


def exec_user(command: Path, api_version: str = "client.authentication.k8s.io/v1", **extra: Any) -> dict[str, Any]:
    return {"exec": {"command": str(command), "apiVersion": api_version, "interactiveMode": "Never", **extra}}


CREDENTIAL = """
count = os.path.join(os.path.dirname(sys.argv[0]), "runs")
with open(count, "a") as fh:
    fh.write(os.environ["KUBERNETES_EXEC_INFO"] + "\\n")
print(json.dumps({"apiVersion": API, "kind": "ExecCredential",
                  "status": {"token": "s3cr3t-t0ken", "expirationTimestamp": EXPIRES}}))
"""


def test_an_exec_plugin_runs_once_per_run_with_the_cluster_info(api, tmp_path, monkeypatch, run_cli):
    cmd = plugin(tmp_path, 'API = "client.authentication.k8s.io/v1"\nEXPIRES = "2999-01-01T00:00:00Z"' + CREDENTIAL)
    kc = write_kubeconfig(tmp_path / "kc", api.url, user=exec_user(cmd, provideClusterInfo=True, env=[{"name": "HINT", "value": "x"}]))
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli("capture")
    assert result.exit_code == 0, result.stderr
    runs = [json.loads(line) for line in (tmp_path / "runs").read_text().splitlines()]
    assert runs == [
        {
            "kind": "ExecCredential",
            "apiVersion": "client.authentication.k8s.io/v1",
            "spec": {"interactive": False, "cluster": {"server": api.url}},
        }
    ]
    assert len(api.requests) > 20
    no_secret(result)


def test_an_expired_exec_credential_is_asked_for_again(api, tmp_path, monkeypatch, run_cli):
    cmd = tmp_path / "plugin.sh"  # a shell script: it runs once per request here
    cmd.write_text(
        '#!/bin/sh\nprintf \'%s\\n\' "$KUBERNETES_EXEC_INFO" >> "$(dirname "$0")/runs"\n'
        'echo \'{"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential", '
        '"status": {"token": "s3cr3t-t0ken", "expirationTimestamp": "2001-01-01T00:00:00Z"}}\'\n'
    )
    cmd.chmod(0o755)
    kc = write_kubeconfig(tmp_path / "kc", api.url, user=exec_user(cmd, "client.authentication.k8s.io/v1beta1"))
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli("capture")
    assert result.exit_code == 0, result.stderr
    runs = (tmp_path / "runs").read_text().splitlines()
    assert len(runs) == len(api.requests)
    assert json.loads(runs[0])["spec"] == {"interactive": False}  # v1beta1 defaults to IfAvailable: no terminal
    no_secret(result)


def test_a_failing_exec_plugin_fails_the_run_with_its_stderr(api, tmp_path, monkeypatch, run_cli):
    cmd = plugin(tmp_path, 'print("plugin: please run `login` first", file=sys.stderr)\nsys.exit(3)')
    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kc", api.url, user=exec_user(cmd))))
    result = run_cli("capture")
    assert one_error(result) == (f"error: context ctx ({api.url}): user u: exec plugin: executable {cmd} failed with exit code 3")
    assert "plugin: please run `login` first" in result.stderr
    assert "ERROR:root" not in result.stderr and api.requests == []


def test_a_hanging_exec_plugin_is_killed_after_the_timeout(api, tmp_path, monkeypatch, run_cli):
    import os

    pid_file = tmp_path / "pid"
    cmd = plugin(tmp_path, f'open({str(pid_file)!r}, "w").write(str(os.getpid()))\ntime.sleep(60)')
    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kc", api.url, user=exec_user(cmd))))
    monkeypatch.setenv("KSCHEDCTL_EXEC_TIMEOUT", "1")
    started = time.monotonic()
    result = run_cli("capture")
    assert time.monotonic() - started < 5
    assert one_error(result).endswith(f"user u: exec plugin: {cmd} did not finish within 1s and was killed (KSCHEDCTL_EXEC_TIMEOUT)")
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


@pytest.mark.parametrize(
    "api_version, output, mode, message",
    [
        (
            "client.authentication.k8s.io/v1",
            {"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential", "status": {"token": "plugin-t0ken-zzz"}},
            "Never",
            "exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned version "
            "'client.authentication.k8s.io/v1beta1'",
        ),
        (
            "client.authentication.k8s.io/v1",
            {"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential"},
            "Never",
            "exec plugin didn't return a status field",
        ),
        (
            "client.authentication.k8s.io/v1",
            {"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {"clientKeyData": "plugin-t0ken-zzz"}},
            "Never",
            "exec plugin returned only certificate or key, not both",
        ),
        ("client.authentication.k8s.io/v1alpha1", {}, "Never", "invalid apiVersion 'client.authentication.k8s.io/v1alpha1'"),
        ("client.authentication.k8s.io/v1", {}, "Always", "cannot support interactive mode: standard input not a terminal"),
        ("client.authentication.k8s.io/v1", {}, "", "interactiveMode must be specified for u to use exec authentication plugin"),
    ],
    ids=["version-mismatch", "no-status", "key-without-cert", "old-version", "always-without-terminal", "no-mode"],
)
def test_exec_contract_violations(api, tmp_path, monkeypatch, run_cli, api_version, output, mode, message):
    cmd = plugin(tmp_path, f"print(json.dumps({output!r}))")
    user = exec_user(cmd, api_version)
    if not mode:
        del user["exec"]["interactiveMode"]
    else:
        user["exec"]["interactiveMode"] = mode
    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kc", api.url, user=user)))
    result = run_cli("capture", "--debug")
    assert message in one_error(result)
    no_secret(result, "plugin-t0ken-zzz")


# --- client keys never left on disk ---------------------------------------------------------------


def _client_cert(tmp_path: Path) -> tuple[bytes, bytes]:
    import subprocess

    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=me",
            "-keyout",
            str(tmp_path / "me.key"),
            "-out",
            str(tmp_path / "me.crt"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    cert, key = (tmp_path / "me.crt").read_bytes(), (tmp_path / "me.key").read_bytes()
    (tmp_path / "me.key").unlink()
    return cert, key


def _key_body(key: bytes) -> bytes:
    return b"".join(key.splitlines()[1:-1])[:64]  # a piece of the base64 key itself


def _files_holding(directory: Path, key: bytes) -> list[Path]:
    needles = [key, _key_body(key), key.splitlines()[1]]
    return [p for p in directory.rglob("*") if p.is_file() and any(n in p.read_bytes() for n in needles)]


@needs_openssl
@pytest.mark.parametrize("memfd", [True, False], ids=["memfd", "no-memfd"])
def test_client_key_data_never_stays_in_tmpdir(tls_api, tmp_path, monkeypatch, run_cli, memfd):
    """In memory (a memfd); where there is none, a 0600 file removed as soon as it is loaded."""
    import tempfile

    from kschedctl.cluster import transport

    if not memfd:
        monkeypatch.setattr(transport, "_memfd", lambda: -1)

    cert, key = _client_cert(tmp_path)
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    kc = write_kubeconfig(
        tmp_path / "kc",
        tls_api.url,
        cluster={"certificate-authority-data": base64.b64encode(tls_api.ca_pem or b"").decode()},
        user={
            "token": TOKEN,
            "client-certificate-data": base64.b64encode(cert).decode(),
            "client-key-data": base64.b64encode(key).decode(),
        },
    )
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli("capture", "--debug")
    assert result.exit_code == 0, result.stderr
    assert _files_holding(tmpdir, key) == []
    no_secret(result, key, base64.b64encode(key).decode())


@needs_openssl
def test_sigterm_mid_capture_leaves_no_key_in_tmpdir(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    cert, key = _client_cert(tmp_path)
    (tmp_path / "tls").mkdir()

    def slow_nodes(req: Request) -> bool:
        return req.path == "/api/v1/nodes" and req.trickle(b"{" + b" " * 50 + b"}", per_second=20, max_seconds=10)

    with HostileServer(slow_nodes, tls_dir=tmp_path / "tls") as server:
        kc = write_kubeconfig(
            tmp_path / "kc",
            server.url,
            cluster={"certificate-authority-data": base64.b64encode(server.ca_pem or b"").decode()},
            user={
                "token": TOKEN,
                "client-certificate-data": base64.b64encode(cert).decode(),
                "client-key-data": base64.b64encode(key).decode(),
            },
        )
        tmpdir = tmp_path / "tmpdir"
        tmpdir.mkdir()
        env = {
            **os.environ,
            "KUBECONFIG": str(kc),
            "TMPDIR": str(tmpdir),
            "HOME": str(tmp_path),
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        }
        proc = subprocess.Popen(
            [sys.executable, "-m", "kschedctl", "capture", "-o", str(tmp_path / "s.yaml")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            end = time.monotonic() + 20
            while not any(r.path == "/api/v1/nodes" for r in server.requests) and time.monotonic() < end:
                time.sleep(0.05)
            assert any(r.path == "/api/v1/nodes" for r in server.requests)
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode != 0
    assert _files_holding(tmpdir, key) == []
    assert _key_body(key) not in out + err and TOKEN.encode() not in out + err


# --- a hostile server ------------------------------------------------------------------------------


def hostile_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any, behave: Any, *args: str, **env: str
) -> tuple[Any, HostileServer]:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with HostileServer(behave) as server:
        monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kc", server.url)))
        result = run_cli(*(args or ("capture", "-o", str(tmp_path / "snap.yaml"))))
    no_secret(result)
    return result, server


def test_a_continue_token_new_on_every_page_is_bounded(tmp_path, monkeypatch, run_cli):
    def endless(req: Request) -> bool:
        return req.path == "/api/v1/nodes" and req.send_json({"kind": "NodeList", "metadata": {"continue": uuid.uuid4().hex}, "items": []})

    result, server = hostile_run(tmp_path, monkeypatch, run_cli, endless, KSCHEDCTL_MAX_LIST_PAGES="25")
    assert one_error(result) == (
        f"error: context ctx ({server.url}): GET /api/v1/nodes: the list did not end after "
        "25 pages of --chunk-size 500 (the server keeps sending continue tokens; "
        "KSCHEDCTL_MAX_LIST_PAGES)"
    )
    assert sum(r.path == "/api/v1/nodes" for r in server.requests) == 25
    assert not (tmp_path / "snap.yaml").exists()


def test_too_many_objects_in_one_list_are_bounded(tmp_path, monkeypatch, run_cli):
    def many(req: Request) -> bool:
        return req.path == "/api/v1/nodes" and req.send_json(
            {"kind": "NodeList", "metadata": {"continue": uuid.uuid4().hex}, "items": [{"metadata": {"name": f"n{i}"}} for i in range(100)]}
        )

    result, _ = hostile_run(tmp_path, monkeypatch, run_cli, many, KSCHEDCTL_MAX_LIST_OBJECTS="250")
    assert one_error(result).endswith(
        "GET /api/v1/nodes: the server listed more than 250 Node objects, more than a cluster holds (KSCHEDCTL_MAX_LIST_OBJECTS)"
    )


@pytest.mark.parametrize("how", ["trickled-body", "silent"])
def test_a_slow_server_is_cut_off_at_the_whole_request_deadline(tmp_path, monkeypatch, run_cli, how):
    def slow(req: Request) -> bool:
        if req.path != "/api/v1/nodes":
            return False
        if how == "silent":
            req.server.stopped.wait(6)
            return True
        return req.trickle(b'{"items": []}' + b" " * 100, per_second=5)  # one byte every 0.2 s: never idle

    started = time.monotonic()
    result, server = hostile_run(tmp_path, monkeypatch, run_cli, slow, KSCHEDCTL_REQUEST_TIMEOUT="1")
    assert time.monotonic() - started < 5
    assert one_error(result) == (
        f"error: context ctx ({server.url}): GET /api/v1/nodes: no complete answer within 1s "
        "(the whole request's deadline; KSCHEDCTL_REQUEST_TIMEOUT)"
    )


def test_a_huge_announced_body_is_refused_without_reading_it(tmp_path, monkeypatch, run_cli):
    def huge(req: Request) -> bool:
        return req.path == "/api/v1/nodes" and req.send(200, b"{", {"Content-Length": str(10 * 1024**3)})

    result, server = hostile_run(tmp_path, monkeypatch, run_cli, huge)
    assert one_error(result) == (
        f"error: context ctx ({server.url}): GET /api/v1/nodes: the answer announces "
        "10737418240 bytes, more than the 536870912 bytes a response may have "
        "(KSCHEDCTL_MAX_RESPONSE_BYTES; a smaller --chunk-size makes list pages smaller)"
    )


def test_an_endless_chunked_body_is_cut_at_the_bound(tmp_path, monkeypatch, run_cli):
    def endless(req: Request) -> bool:
        return req.path == "/api/v1/nodes" and req.endless_chunked()

    result, _ = hostile_run(tmp_path, monkeypatch, run_cli, endless, KSCHEDCTL_MAX_RESPONSE_BYTES="2000000")
    assert "GET /api/v1/nodes: the answer goes on past the 2000000 bytes a response may have" in one_error(result)


@pytest.mark.parametrize(
    "body, message",
    [
        ('{"kind": "NodeList", "metadata": "oops", "items": []}', "GET /api/v1/nodes: the list's metadata is a string, expected an object"),
        ('{"kind": "NodeList", "metadata": {}, "items": {"a": 1}}', "GET /api/v1/nodes: the list's items is an object, expected a list"),
        (
            '{"kind": "NodeList", "metadata": {"continue": 7}, "items": []}',
            "GET /api/v1/nodes: metadata.continue is a number, expected a string",
        ),
        ('{"items": ["node-a"]}', "GET /api/v1/nodes: items[0] is a string, expected a Node object"),
        ('{"items": [{"metadata": {"name": 5}}]}', "GET /api/v1/nodes: items[0].metadata.name is a number, expected a non-empty string"),
        (
            '{"items": [{"metadata": {"name": "n", "labels": {}}, "status": {"capacity": {"cpu": NaN}}}]}',
            "GET /api/v1/nodes: the server's answer is not valid JSON",
        ),
        ('{"items": [', "GET /api/v1/nodes: the server's answer is not valid JSON"),
        ('["not", "an", "object"]', "GET /api/v1/nodes: expected a JSON object"),
        ('{"versions": "v1"}', None),
    ],
    ids=[
        "metadata-string",
        "items-object",
        "continue-number",
        "item-string",
        "name-number",
        "nan",
        "truncated",
        "array",
        "discovery-string",
    ],
)
def test_what_the_server_sends_is_checked_as_strictly_as_a_file(tmp_path, monkeypatch, run_cli, body, message):
    def broken(req: Request) -> bool:
        if message is None:
            return req.path == "/api" and req.send_text(body)
        return req.path == "/api/v1/nodes" and req.send_text(body)

    result, server = hostile_run(tmp_path, monkeypatch, run_cli, broken)
    expected = message or "GET /api: versions is a string, expected a list"
    assert one_error(result).startswith(f"error: context ctx ({server.url}): {expected}")
    assert "internal error" not in result.stderr and not (tmp_path / "snap.yaml").exists()


def test_live_errors_name_the_cluster_not_a_temporary_file(tmp_path, monkeypatch, run_cli):
    def bad_node(req: Request) -> bool:
        return req.path == "/api/v1/nodes" and req.send_json(
            {"kind": "NodeList", "items": [{"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "lots"}}}]}
        )

    result, server = hostile_run(tmp_path, monkeypatch, run_cli, bad_node, *("schedule", "--live"))
    line = one_error(result)
    assert line.startswith(f"error: context ctx ({server.url}), as captured") and "n1" in line, line
    assert "kschedctl-live-" not in result.stderr


def test_an_http_proxy_url_carries_the_requests(tmp_path, monkeypatch, run_cli):
    """proxy-url: plain-HTTP targets are asked of the proxy by absolute URL (and the loopback
    server of the other tests is never proxied through HTTP(S)_PROXY, as Go's client does)."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing there: must not be used below
    with HostileServer(lambda req: False) as proxy:
        kc = write_kubeconfig(tmp_path / "kc", "http://kube.invalid:6443", cluster={"proxy-url": proxy.url})
        monkeypatch.setenv("KUBECONFIG", str(kc))
        result = run_cli("capture")
        assert result.exit_code == 0, result.stderr
        assert proxy.requests[0].raw_path == "http://kube.invalid:6443/api"
        kc = write_kubeconfig(tmp_path / "kc", "http://kube.invalid:6443", cluster={"proxy-url": "socks5://127.0.0.1:1"})
        result = run_cli("capture")
        assert one_error(result) == (
            "error: context ctx (http://kube.invalid:6443): proxy socks5://127.0.0.1: only http proxies are supported"
        )
    no_secret(result)


def test_a_servers_words_stay_on_one_line(tmp_path, monkeypatch, run_cli):
    def forbid(req: Request) -> bool:
        return req.path == "/api/v1/services" and req.send_json(
            {"kind": "Status", "code": 403, "message": "no\nerror: fake line\x1b[31m"}, 403
        )

    result, _ = hostile_run(tmp_path, monkeypatch, run_cli, forbid)
    assert result.exit_code == 0, result.stderr
    assert "warning: Service not captured (v1 services): Forbidden (403): no\\nerror: fake line\\x1b[31m;" in result.stderr
    assert all(line.startswith(("warning: ", "captured ")) for line in result.stderr.splitlines())


def test_a_context_name_cannot_break_the_snapshot_header(api, tmp_path, monkeypatch, run_cli):
    kc = write_kubeconfig(tmp_path / "kc", api.url)
    doc = yaml.safe_load(kc.read_text())
    doc["contexts"][0]["name"] = doc["current-context"] = "ctx\nitems: []"
    kc.write_text(yaml.safe_dump(doc))
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli("capture", "-o", str(tmp_path / "s.yaml"))
    assert result.exit_code == 0, result.stderr
    text = (tmp_path / "s.yaml").read_text()
    assert "# context: ctx\\nitems: []\n" in text and len(yaml.safe_load(text)["items"]) > 20


@needs_openssl
@pytest.mark.parametrize("source", ["kubeconfig", "exec"])
def test_a_client_certificate_authenticates_from_memory(tmp_path, monkeypatch, run_cli, source):
    """Mutual TLS with client-key-data or an exec plugin's clientKeyData: the server sees the
    certificate, no file of TMPDIR ever holds the key, no output shows it."""
    import tempfile

    cert, key = _client_cert(tmp_path)
    if source == "exec":
        status = {"clientCertificateData": cert.decode(), "clientKeyData": key.decode()}
        cmd = plugin(
            tmp_path,
            f"print(json.dumps({{'apiVersion': 'client.authentication.k8s.io/v1', 'kind': 'ExecCredential', 'status': {status!r}}}))",
        )
        user = exec_user(cmd)
    else:
        user = {"client-certificate-data": base64.b64encode(cert).decode(), "client-key-data": base64.b64encode(key).decode()}
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    (tmp_path / "tls").mkdir()
    with HostileServer(lambda req: False, tls_dir=tmp_path / "tls", client_ca=cert) as server:
        ca = base64.b64encode(server.ca_pem or b"").decode()
        kc = write_kubeconfig(tmp_path / "kc", server.url, cluster={"certificate-authority-data": ca}, user=user)
        monkeypatch.setenv("KUBECONFIG", str(kc))
        result = run_cli("capture", "--debug")
    assert result.exit_code == 0, result.stderr
    assert {r.client_cn for r in server.requests} == {"me"} and set(server.auth_headers()) == {""}
    assert _files_holding(tmpdir, key) == []
    no_secret(result, key)


def test_tls_server_name_is_the_name_verified(tls_api, tmp_path, monkeypatch, run_cli):
    ca = base64.b64encode(tls_api.ca_pem or b"").decode()
    kc = write_kubeconfig(tmp_path / "kc", tls_api.url, cluster={"certificate-authority-data": ca, "tls-server-name": "other.example"})
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli("capture")
    assert "certificate verify failed: Hostname mismatch" in one_error(result)
    assert tls_api.requests == []
    write_kubeconfig(kc, tls_api.url, cluster={"certificate-authority-data": ca, "tls-server-name": "127.0.0.1"})
    assert run_cli("capture").exit_code == 0


def test_a_kept_alive_connection_the_server_closed_is_opened_again(tmp_path, monkeypatch, run_cli):
    def answer_then_hang_up(req: Request) -> bool:
        status, body = req.normal()
        req.send_json(body, status)  # no "Connection: close" said, yet closed
        req.handler.close_connection = True
        return True

    result, server = hostile_run(tmp_path, monkeypatch, run_cli, answer_then_hang_up)
    assert result.exit_code == 0, result.stderr
    assert len(server.requests) > 20


def test_a_missing_exec_plugin_names_the_install_hint(api, tmp_path, monkeypatch, run_cli):
    user = exec_user(tmp_path / "nope", installHint="install it with:\n  brew install nope")
    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kc", api.url, user=user)))
    assert one_error(run_cli("capture")).endswith(
        f"user u: exec plugin: executable {tmp_path / 'nope'} not found: install it with: brew install nope"
    )


def test_a_server_url_holding_credentials_is_refused_without_showing_them(tmp_path, monkeypatch, run_cli):
    kc = write_kubeconfig(tmp_path / "kc", "https://admin:hunter2-secret@127.0.0.1:1")
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli("capture", "--debug")
    assert one_error(result) == (
        f"error: {kc}: server: a URL holding credentials (user:password@) is refused; give them as the user's username and password"
    )
    no_secret(result, "hunter2-secret")


def test_a_pod_spec_of_the_wrong_type_is_captured_as_sent_and_refused_by_schedule(tmp_path, monkeypatch, run_cli):
    """Found by the live fuzz dimension: capture keeps what the server sent (as kubectl get
    would); reading the file is where the object is refused, naming it."""

    def odd_pod(req: Request) -> bool:
        return req.path == "/api/v1/pods" and req.send_json(
            {"kind": "PodList", "items": [{"metadata": {"name": "p", "namespace": "a"}, "spec": "oops"}]}
        )

    result, _ = hostile_run(tmp_path, monkeypatch, run_cli, odd_pod)
    assert result.exit_code == 0, result.stderr
    line = one_error(run_cli("schedule", str(tmp_path / "snap.yaml")))
    assert str(tmp_path / "snap.yaml") in line and "a/p" in line, line
