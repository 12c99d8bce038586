"""Hostile HTTP extenders, through the CLI (issue 21's attacker review), one class of failure a
section: key material left on disk, a call not bounded by its timeout, an answer not bounded in
size, redirects, malformed and abusive JSON, early closes, and credentials shown in errors.

Every extender here is tests/extender_server.py on 127.0.0.1, bounded in time and requests.
"""

from __future__ import annotations

import base64
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.testing import make_node, make_pod

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from extender_server import (  # noqa: E402
    ExtenderServer,
    close_mid_body,
    drip,
    endless,
    free_port,
    node_names,
    raw_bytes,
    redirect,
)

REPO = Path(__file__).resolve().parents[2]
AWAITING = "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
READING = "context deadline exceeded (Client.Timeout or context cancellation while reading body)"


def _snapshot(tmp_path: Path, pods: int = 1, nodes: int = 2) -> str:
    items = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi").dict() for i in range(nodes)]
    items += [make_pod(f"web-{i}").req(cpu="1").dict() for i in range(pods)]
    path = tmp_path / "snap.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sort_keys=False))
    return str(path)


def _config(tmp_path: Path, *extenders: dict[str, Any]) -> str:
    path = tmp_path / "config.yaml"
    path.write_text(
        yaml.safe_dump(
            {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "extenders": list(extenders)},
            sort_keys=False,
        )
    )
    return str(path)


def _filter(url: str, **more: Any) -> dict[str, Any]:
    return {"urlPrefix": url, "filterVerb": "filter", "nodeCacheCapable": True, **more}


def _all_nodes(request: dict[str, Any]) -> dict[str, Any]:
    return {"NodeNames": node_names(request)}


def _unschedulable(run_cli, tmp_path: Path, ext: dict[str, Any]) -> dict[str, Any]:
    """The one pod's unschedulable entry (the run itself must succeed)."""
    out = run_cli("schedule", _snapshot(tmp_path), "--config", _config(tmp_path, ext), "-o", "json")
    assert out.exit_code == 0, out.stderr
    [u] = out.json()["unschedulable"]
    return u


def _message(run_cli, tmp_path: Path, ext: dict[str, Any]) -> str:
    return _unschedulable(run_cli, tmp_path, ext)["message"]


# --- key material: never on disk ----------------------------------------------------------------


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> dict[str, Path]:
    """A server certificate for extender.test and a client certificate and key (EC, fast)."""
    if shutil.which("openssl") is None:
        pytest.skip("needs openssl to make certificates")
    d = tmp_path_factory.mktemp("pki")
    for name, cn in (("server", "extender.test"), ("client", "kschedctl-client")):
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                str(d / f"{name}-key.pem"),
                "-out",
                str(d / f"{name}.pem"),
                "-days",
                "1",
                "-subj",
                f"/CN={cn}",
                "-addext",
                f"subjectAltName=DNS:{cn}",
            ],
            check=True,
            capture_output=True,
        )
    return {p.stem: p for p in d.iterdir()}


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def _mtls(srv: ExtenderServer, pki: dict[str, Path]) -> dict[str, Any]:
    """The server requires the client certificate; the extender gives everything as data."""
    srv.use_tls(str(pki["server"]), str(pki["server-key"]), client_ca=str(pki["client"]))
    return _filter(
        srv.url,
        tlsConfig={
            "caData": _b64(pki["server"]),
            "serverName": "extender.test",
            "certData": _b64(pki["client"]),
            "keyData": _b64(pki["client-key"]),
        },
    )


def _key_files(directory: Path, pki: dict[str, Path]) -> list[Path]:
    """Files under ``directory`` holding the client key (its PEM or the key's base64 body)."""
    key = pki["client-key"].read_bytes()
    body = b"".join(line for line in key.splitlines() if not line.startswith(b"-----"))
    return [p for p in directory.rglob("*") if p.is_file() and (key in p.read_bytes() or body in p.read_bytes())]


@pytest.mark.parametrize("memfd", [True, False], ids=["memfd", "private-file-fallback"])
def test_key_data_leaves_nothing_in_tmpdir_and_loads_once(run_cli, tmp_path, pki, monkeypatch, memfd):
    import tempfile

    from kschedctl.scheduler import extender as module

    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    if not memfd:
        monkeypatch.delattr(os, "memfd_create", raising=False)
    built: list[int] = []
    real = module.new_ssl_context
    monkeypatch.setattr(module, "new_ssl_context", lambda *a: (built.append(1), real(*a))[1])
    with ExtenderServer(filter=_all_nodes) as srv:
        ext = _mtls(srv, pki)
        for _ in range(2):
            out = run_cli("schedule", _snapshot(tmp_path, pods=3), "--config", _config(tmp_path, ext), "-o", "json")
            assert out.exit_code == 0, out.stderr
            assert len(out.json()["placements"]) == 3  # the server took the client certificate
    assert len(srv.requests) == 6
    assert built == [1, 1]  # one SSL context per extender per run, not per call
    assert _key_files(tmpdir, pki) == [] and list(tmpdir.iterdir()) == []


@pytest.mark.parametrize("memfd", [True, False], ids=["memfd", "private-file-fallback"])
def test_sigterm_mid_run_leaves_no_key_on_disk(tmp_path, pki, memfd):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    with ExtenderServer(filter=_all_nodes, lifetime=15) as srv:
        srv.delay = 10.0  # the call hangs until the server stops
        cfg = _config(tmp_path, _mtls(srv, pki))
        prelude = "" if memfd else "import os; del os.memfd_create; "
        code = prelude + "import runpy, sys; sys.argv[0] = 'kschedctl'; runpy.run_module('kschedctl', run_name='__main__')"
        env = dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(tmpdir))
        proc = subprocess.Popen(
            [sys.executable, "-c", code, "schedule", _snapshot(tmp_path), "--config", cfg],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 10
            while not srv.requests and time.monotonic() < deadline:
                time.sleep(0.02)
            assert srv.requests, "the run never called the extender"
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)
        finally:
            proc.kill()
            proc.communicate()
    assert proc.returncode == -signal.SIGTERM
    assert _key_files(tmpdir, pki) == [] and list(tmpdir.iterdir()) == []


@pytest.mark.parametrize(
    "tls, field, message",
    [
        (
            {"certData": base64.b64encode(b"x").decode(), "keyData": base64.b64encode(b"not a key").decode()},
            "extenders[0].tlsConfig.certData",
            "tls: failed to find any PEM data in certificate input",
        ),
        ({"caData": "%%%"}, "extenders[0].tlsConfig.caData", "illegal base64 data"),
        (
            {"caFile": "/nonexistent/ca.pem", "insecure": True},
            "extenders[0].tlsConfig.insecure",
            "specifying a root certificates file with the insecure flag is not allowed",
        ),
    ],
    ids=["garbage-key", "bad-base64", "ca-and-insecure"],
)
def test_a_tls_config_that_cannot_load_stops_the_run(run_cli, tmp_path, tls, field, message):
    """NewHTTPExtender fails, kube-scheduler does not start: exit 2, one line, the field."""
    cfg = _config(tmp_path, _filter(f"https://127.0.0.1:{free_port()}/x", tlsConfig=tls))
    out = run_cli("schedule", _snapshot(tmp_path), "--config", cfg)
    assert out.exit_code == 2
    [line] = out.stderr.splitlines()
    assert line.startswith(f"error: {cfg}: KubeSchedulerConfiguration: {field}: ") and message in line


def test_a_garbage_key_is_refused_without_showing_it(run_cli, tmp_path, pki):
    key = b"-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END PRIVATE KEY-----\n"
    tls = {"certData": _b64(pki["client"]), "keyData": base64.b64encode(key).decode()}
    out = run_cli(
        "schedule", _snapshot(tmp_path), "--config", _config(tmp_path, _filter(f"https://127.0.0.1:{free_port()}/x", tlsConfig=tls))
    )
    assert out.exit_code == 2 and "extenders[0].tlsConfig.keyData: tls: failed to load" in out.stderr
    assert "c2VjcmV0" not in out.stderr + out.stdout


# --- one deadline for the whole call -------------------------------------------------------------


@pytest.mark.parametrize("before_headers, text", [(False, READING), (True, AWAITING)], ids=["body", "headers"])
def test_a_drip_fed_answer_is_cut_at_the_timeout(run_cli, tmp_path, before_headers, text):
    """1 byte every 0.25 s: each read is quick, the call is not (http.Client.Timeout's rule).
    The timeout (600 ms) leaves a loaded machine room to send the headers in the body case."""
    payload = b'{"NodeNames": ["n0", "n1"]}'
    with ExtenderServer(filter=lambda r: drip(payload, 0.25, before_headers)) as srv:
        start = time.monotonic()
        u = _unschedulable(run_cli, tmp_path, _filter(srv.url, httpTimeout="600ms"))
        elapsed = time.monotonic() - start
    expected = text if not before_headers else f'Post "{srv.url}/filter": {text}'
    assert u["message"] == expected
    assert len(srv.requests) == u["attempts"]  # the pod is retried after an error; each call stops at 600 ms
    assert elapsed < u["attempts"] * 0.6 + 3  # the whole payload would take 6.75 s


def test_a_drip_fed_ignorable_extender_is_skipped_in_time(run_cli, tmp_path):
    with ExtenderServer(filter=lambda r: drip(b'{"NodeNames": []}', 0.1)) as srv:
        start = time.monotonic()
        out = run_cli(
            "schedule",
            _snapshot(tmp_path),
            "--config",
            _config(tmp_path, _filter(srv.url, httpTimeout="300ms", ignorable=True)),
            "-o",
            "json",
        )
        assert time.monotonic() - start < 1.8 and len(srv.requests) == 1
    assert out.exit_code == 0 and len(out.json()["placements"]) == 1
    assert f"warning: extender {srv.url}: filter failed (ignorable extender skipped): {READING}" in out.stderr


# --- a bounded answer --------------------------------------------------------------------------------


@pytest.mark.parametrize("chunked", [False, True], ids=["10GiB-content-length", "endless-chunked"])
def test_an_endless_answer_stops_at_the_limit(run_cli, tmp_path, chunked):
    with ExtenderServer(filter=lambda r: endless(chunked)) as srv:
        message = _message(run_cli, tmp_path, _filter(srv.url))
    assert message.startswith(f"Post \"{srv.url}/filter\": the extender's answer is larger than 16777216 bytes, kschedctl's limit")


def test_an_answer_over_the_limit_is_refused_whole(run_cli, tmp_path):
    """Even when a first value ended within the limit (json.Decoder would stop there): the
    documented difference, for an extender sending megabytes of junk after its answer."""
    junk = b'{"NodeNames": ["n1"]}' + b" " * 100 + b"x" * (17 << 20)
    with ExtenderServer(filter=lambda r: (200, junk)) as srv:
        assert "the extender's answer is larger than 16777216 bytes" in _message(run_cli, tmp_path, _filter(srv.url))


def test_trailing_bytes_after_the_value_are_ignored(run_cli, tmp_path):
    """json.Decoder.Decode reads the first value only."""
    with ExtenderServer(filter=lambda r: (200, b'{"NodeNames": ["n1"]} {"NodeNames": []} <html>')) as srv:
        out = run_cli("schedule", _snapshot(tmp_path), "--config", _config(tmp_path, _filter(srv.url)), "-o", "json")
    assert [p["node"] for p in out.json()["placements"]] == ["n1"]


# --- the server closes mid-body -------------------------------------------------------------------


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("keep, placed", [(14, None), (29, "n1")], ids=["value-incomplete", "value-complete"])
def test_a_close_mid_body(run_cli, tmp_path, chunked, keep, placed):
    payload = b'{"NodeNames": ["n1"]}        ' + b" " * 40
    with ExtenderServer(filter=lambda r: close_mid_body(payload, keep, chunked)) as srv:
        out = run_cli("schedule", _snapshot(tmp_path), "--config", _config(tmp_path, _filter(srv.url)), "-o", "json")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    if placed is None:
        assert data["unschedulable"][0]["message"] == "unexpected EOF"
    else:
        assert [p["node"] for p in data["placements"]] == [placed]


@pytest.mark.parametrize(
    "data, text",
    [
        (b"", 'Post "{url}/filter": EOF'),
        (
            b"SSH-2.0-OpenSSH\r\n\r\n",
            'Post "{url}/filter": net/http: HTTP/1.x transport connection broken: malformed HTTP response "SSH-2.0-OpenSSH"',
        ),
    ],
    ids=["closed-before-answering", "not-http"],
)
def test_a_broken_http_answer(run_cli, tmp_path, data, text):
    with ExtenderServer(filter=lambda r: raw_bytes(data)) as srv:
        assert _message(run_cli, tmp_path, _filter(srv.url)) == text.format(url=srv.url)


# --- redirects, as Go's client follows them --------------------------------------------------------


def test_redirects_are_followed_as_go_follows_them(run_cli, tmp_path):
    with ExtenderServer(
        filter=lambda r: redirect(307, "filter2"),
        filter2=_all_nodes,
        prioritize=lambda r: redirect(302, "/scheduler/score"),
        score=lambda r: [{"Host": "n1", "Score": 10}],
    ) as srv:
        ext = _filter(srv.url, prioritizeVerb="prioritize", weight=1)
        out = run_cli("schedule", _snapshot(tmp_path), "--config", _config(tmp_path, ext), "-o", "json")
    assert out.exit_code == 0, out.stderr
    assert [p["node"] for p in out.json()["placements"]] == ["n1"]
    requests = dict(srv.requests)
    assert node_names(requests["filter2"]) == ["n0", "n1"]  # 307: the POST again, with its body
    assert requests["score"] is None  # 302: a GET without a body


@pytest.mark.parametrize(
    "answer, text, calls",
    [
        (lambda r: redirect(308, "filter"), 'Post "{url}/filter": stopped after 10 redirects', 10),
        (lambda r: redirect(301, "ftp://127.0.0.1/x"), 'Post "ftp://127.0.0.1/x": unsupported protocol scheme "ftp"', 1),
        (
            lambda r: redirect(302, "http://[::1"),
            'Post "{url}/filter": failed to parse Location header "http://[::1": Invalid IPv6 URL',
            1,
        ),
        (
            lambda r: raw_bytes(b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n"),
            "failed filter with extender at URL {url}/filter, code 302",
            1,
        ),
    ],
    ids=["loop", "other-scheme", "unparsable-location", "no-location"],
)
def test_redirects_that_go_nowhere(run_cli, tmp_path, answer, text, calls):
    with ExtenderServer(filter=answer) as srv:
        u = _unschedulable(run_cli, tmp_path, _filter(srv.url))
    assert u["message"] == text.format(url=srv.url)
    assert len(srv.requests) == calls * u["attempts"]


# --- abusive JSON, decoded strictly, worded as Go's decoder --------------------------------------

DEEP = b'{"NodeNames": ' + b"[" * 600 + b"]" * 600 + b"}"
JSON_TEXTS = [
    ("nan", b'{"NodeNames": NaN}', "invalid character 'N' looking for beginning of value"),
    ("infinity", b'{"FailedNodes": {"n0": -Infinity}}', "invalid character 'I' in numeric literal"),
    ("deep", DEEP, "json: nested deeper than 512 levels (kschedctl's limit)"),
    (
        "node-names-object",
        b'{"NodeNames": {"n0": 1}}',
        "json: cannot unmarshal object into Go struct field ExtenderFilterResult.NodeNames of type []string",
    ),
    (
        "failed-nodes-array",
        b'{"FailedNodes": ["n0"]}',
        "json: cannot unmarshal array into Go struct field ExtenderFilterResult.FailedNodes of type v1.FailedNodesMap",
    ),
    ("huge-number-in-string-field", b'{"Error": ' + b"9" * 5000 + b"}", "json: a number literal too long to read (over 4300 digits)"),
    ("cut-in-a-string", b'{"NodeNames": ["n', "unexpected EOF"),
    ("trailing-comma", b'{"NodeNames": ["n0",]}', "invalid character ']' looking for beginning of value"),
]


@pytest.mark.parametrize("body, text", [c[1:] for c in JSON_TEXTS], ids=[c[0] for c in JSON_TEXTS])
def test_abusive_json_fails_the_call_with_gos_words(run_cli, tmp_path, body, text):
    with ExtenderServer(filter=lambda r: (200, body)) as srv:
        assert _message(run_cli, tmp_path, _filter(srv.url)) == text


@pytest.mark.parametrize(
    "score, shown",
    [("1.5", "1.5"), ("1e2", "100.0"), ("9223372036854775808", "9223372036854775808")],
    ids=["fraction", "exponent", "over-int64"],
)
def test_a_score_that_is_no_int64_gives_no_score(run_cli, tmp_path, score, shown):
    body = b'[{"Host": "n0", "Score": %s}]' % score.encode()
    with ExtenderServer(prioritize=lambda r: (200, body)) as srv:
        ext = {"urlPrefix": srv.url, "prioritizeVerb": "prioritize", "weight": 1}
        out = run_cli("schedule", _snapshot(tmp_path), "--config", _config(tmp_path, ext), "-o", "json")
    assert out.exit_code == 0 and len(out.json()["placements"]) == 1
    assert (
        f"prioritize failed (no score given by it): json: cannot unmarshal number {shown} into Go struct field "
        "HostPriority.Score of type int64"
    ) in out.stderr


# --- credentials appear nowhere ------------------------------------------------------------------

SECRET = "s3cr3t-Pa55"


def test_url_credentials_are_sent_as_basic_auth_and_shown_nowhere(run_cli, tmp_path):
    token = base64.b64encode(f"sched:{SECRET}".encode()).decode()

    def echo(request):  # a hostile extender echoing what it was sent
        return {"Error": f"who are you, {srv.headers[-1].get('Authorization')} / {SECRET}?"}

    with ExtenderServer(filter=echo, prioritize=lambda r: (500, b"")) as srv:
        url = srv.url.replace("http://", f"http://sched:{SECRET}@")
        shown = srv.url.replace("http://", "http://sched:***@")
        runs = [
            run_cli("schedule", _snapshot(tmp_path), "--config", _config(tmp_path, _filter(url)), "-o", "json"),
            run_cli(
                "explain",
                "web-0",
                _snapshot(tmp_path),
                "--config",
                _config(tmp_path, {"urlPrefix": url, "prioritizeVerb": "prioritize", "weight": 1}),
                "-o",
                "json",
            ),
            run_cli("schedule", _snapshot(tmp_path), "--config", _config(tmp_path, _filter(url, ignorable=True))),
            run_cli("schedule", _snapshot(tmp_path), "--config", _config(tmp_path, _filter(url)), "--no-extenders"),
        ]
        srv.delay = 1.0
        runs.append(
            run_cli("schedule", _snapshot(tmp_path), "--config", _config(tmp_path, _filter(url, httpTimeout="100ms")), "-o", "json")
        )
    assert srv.headers[0]["Authorization"] == f"Basic {token}"
    unreachable = url.replace(f":{srv.httpd.server_address[1]}/", f":{free_port()}/")
    runs.append(run_cli("schedule", _snapshot(tmp_path), "--config", _config(tmp_path, _filter(unreachable)), "-o", "json"))
    for out in runs:
        assert out.exit_code == 0, out.stderr
        assert SECRET not in out.stdout + out.stderr and token not in out.stdout + out.stderr
    assert runs[0].json()["unschedulable"][0]["message"] == "who are you, Basic *** / ***?"
    assert f"extender {shown}: prioritize failed" in runs[1].stderr
    assert runs[4].json()["unschedulable"][0]["message"] == f'Post "{shown}/filter": {AWAITING}'


def test_a_given_ca_is_the_only_one_trusted(run_cli, tmp_path, pki):
    """client-go's RootCAs replace the system pool: with caData, nothing else is trusted."""
    from kschedctl.scheduler.extender_tls import new_ssl_context

    context = new_ssl_context({"caData": _b64(pki["server"])}, enable_https=False)
    assert context.cert_store_stats()["x509_ca"] == 1
    with ExtenderServer(filter=_all_nodes) as srv:
        srv.use_tls(str(pki["server"]), str(pki["server-key"]))
        ext = _filter(srv.url, tlsConfig={"caData": _b64(pki["client"]), "serverName": "extender.test"})
        message = _message(run_cli, tmp_path, ext)
    assert message == f'Post "{srv.url}/filter": tls: failed to verify certificate: x509: certificate signed by unknown authority'
