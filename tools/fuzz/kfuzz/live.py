"""The `live` dimension: a hostile API server on 127.0.0.1 answering kschedctl's live path.

The server holds the seed snapshot (kfuzz/seeds.py) and answers discovery and paged lists as a
kube-apiserver does; each input picks one abuse and the request it hits (a discovery document,
or one kind's list, or every request): a huge Content-Length, an endless chunked body, a body
trickled a byte at a time, silence, a new continue token on every page, a repeated one, a
structural mutation of the JSON (wrong types, NaN, ...), a text mutation (bad JSON), an error
status with a strange body, a redirect loop, a body cut short, bytes that are not HTTP. Then
`capture`, `schedule --live` or `explain --live` runs in-process with small bounds
(KSCHEDCTL_REQUEST_TIMEOUT and friends) and must keep the contract: exit 0 or 2, one error line
naming the server, no traceback, no hang, and the bearer token in no output. A capture that
succeeds must write a snapshot `schedule` reads under the same contract.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import os
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import yaml

from kfuzz import seeds
from kfuzz.contract import Checker
from kfuzz.mutate import mutate_structure, mutate_text

TOKEN = "kfuzz-l1ve-t0ken-do-not-print"
ABUSES = (
    "huge-length",
    "endless-chunked",
    "trickle",
    "silent",
    "changing-continue",
    "repeated-continue",
    "structure",
    "structure",
    "structure",
    "text",
    "text",
    "nan",
    "status",
    "redirect-loop",
    "short-body",
    "not-http",
    "none",
)
LIMITS = {
    "KSCHEDCTL_REQUEST_TIMEOUT": "0.6",
    "KSCHEDCTL_MAX_RESPONSE_BYTES": "300000",
    "KSCHEDCTL_MAX_LIST_PAGES": "40",
    "KSCHEDCTL_MAX_LIST_OBJECTS": "5000",
}
LIFETIME = 15.0  # seconds one input's server may live


class Cluster:
    """The seed snapshot served as an API server serves it (items without kind/apiVersion)."""

    def __init__(self) -> None:
        from kschedctl.cluster.capture import CAPTURED_KINDS

        self.specs = {(s.group, s.versions[0], s.resource): s for s in CAPTURED_KINDS}
        self.store: dict[tuple[str, str, str], list[dict[str, Any]]] = {k: [] for k in self.specs}
        by_kind = {(s.kind, s.api_version(s.versions[0])): k for k, s in self.specs.items()}
        for obj in seeds.snapshot()["items"]:
            key = by_kind.get((obj.get("kind"), obj.get("apiVersion")))
            if key is not None:
                self.store[key].append({k: v for k, v in obj.items() if k not in ("kind", "apiVersion")})

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, Any]:
        parts = [p for p in path.split("/") if p]
        if parts == ["api"]:
            return 200, {"kind": "APIVersions", "versions": ["v1"]}
        if parts == ["apis"]:
            groups: dict[str, list[str]] = {}
            for group, version, _ in self.specs:
                if group and version not in groups.setdefault(group, []):
                    groups[group].append(version)
            return 200, {
                "kind": "APIGroupList",
                "groups": [{"name": g, "versions": [{"groupVersion": f"{g}/{v}", "version": v} for v in vs]} for g, vs in groups.items()],
            }
        group, rest = ("", parts[1:]) if parts[:1] == ["api"] else (parts[1] if len(parts) > 1 else "", parts[2:])
        if not rest:
            return 404, {"kind": "Status", "code": 404, "message": "not found"}
        version, rest = rest[0], rest[1:]
        if not rest:
            return 200, {
                "kind": "APIResourceList",
                "groupVersion": f"{group}/{version}".lstrip("/"),
                "resources": [{"name": r, "kind": s.kind} for (g, v, r), s in self.specs.items() if (g, v) == (group, version)],
            }
        key = (group, version, rest[-1])
        if key not in self.store:
            return 404, {"kind": "Status", "code": 404, "message": "not found"}
        objects = self.store[key]
        start = int(query.get("continue") or 0) if (query.get("continue") or "0").isdigit() else 0
        limit = int(query.get("limit") or 0) or len(objects)
        page: dict[str, Any] = {
            "kind": f"{self.specs[key].kind}List",
            "apiVersion": "v1",
            "metadata": {"resourceVersion": "1"},
            "items": objects[start : start + limit],
        }
        if start + limit < len(objects):
            page["metadata"]["continue"] = str(start + limit)
        return 200, page


class HostileServer:
    """One input's server: a thread per connection, stopped after the run or after LIFETIME."""

    def __init__(self, cluster: Cluster, abuse: str, target: Callable[[str], bool], rng: random.Random) -> None:
        self.cluster, self.abuse, self.target = cluster, abuse, target
        self.seed = rng.random()
        self.stopped = threading.Event()
        self.requests = 0
        self.notes: list[str] = []  # every mutation served, for the report
        self._lock = threading.Lock()
        handler = _handler(self)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @contextmanager
    def running(self) -> Iterator[HostileServer]:
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        timer = threading.Timer(LIFETIME, self.stop)
        timer.daemon = True
        timer.start()
        try:
            yield self
        finally:
            timer.cancel()
            self.stop()

    def stop(self) -> None:
        if not self.stopped.is_set():
            self.stopped.set()
            self.server.shutdown()
            self.server.server_close()

    def rng(self, path: str, query: dict[str, str]) -> random.Random:
        """The same request gets the same mutation (a second run sees the same server)."""
        return random.Random(f"{self.seed}:{path}:{sorted(query.items())}")


def _handler(hostile: HostileServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            split = urlsplit(self.path)
            query = dict(parse_qsl(split.query))
            with hostile._lock:
                hostile.requests += 1
                if hostile.requests > 400:  # bounded whatever the client does
                    self.close_connection = True
                    return
            try:
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    self._json(401, {"kind": "Status", "code": 401, "message": "Unauthorized"})
                elif hostile.abuse != "none" and hostile.target(split.path):
                    _abuse(self, hostile, split.path, query)
                else:
                    self._json(*hostile.cluster.answer(split.path, query))
            except OSError:
                self.close_connection = True

        def _json(self, status: int, doc: Any) -> None:
            self._raw(status, json.dumps(doc).encode())

        def _raw(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            for name, value in (headers or {"Content-Type": "application/json", "Content-Length": str(len(body))}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

        def log_error(self, *args: Any) -> None:
            pass

    return Handler


def _abuse(h: Any, hostile: HostileServer, path: str, query: dict[str, str]) -> None:
    rng = hostile.rng(path, query)
    abuse = hostile.abuse
    status, doc = hostile.cluster.answer(path, query)
    doc = copy.deepcopy(doc)  # the mutations below must not reach the stored cluster
    if abuse == "huge-length":
        h._raw(200, b"{", {"Content-Length": str(rng.choice([10 * 2**30, 2**62, 300001]))})
    elif abuse == "endless-chunked":
        h.send_response(200)
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        chunk = b'{"items": [' + b" " * 30000
        for _ in range(200):
            if hostile.stopped.is_set():
                break
            h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        h.close_connection = True
    elif abuse == "trickle":
        body = json.dumps(doc).encode()
        h._raw(status, b"", {"Content-Type": "application/json", "Content-Length": str(len(body))})
        for byte in body[:60]:
            if hostile.stopped.is_set():
                break
            h.wfile.write(bytes([byte]))
            h.wfile.flush()
            time.sleep(0.05)
        h.close_connection = True
    elif abuse == "silent":
        hostile.stopped.wait(3)
        h.close_connection = True
    elif abuse in ("changing-continue", "repeated-continue") and isinstance(doc, dict) and "items" in doc:
        doc["metadata"]["continue"] = uuid.uuid4().hex if abuse == "changing-continue" else "again"
        h._json(status, doc)
    elif abuse == "structure" and isinstance(doc, dict):
        mutation = mutate_structure(doc, rng)
        hostile.notes.append(mutation.describe())
        h._raw(status, json.dumps(doc, default=str).encode())
    elif abuse == "text":
        text, mutation = mutate_text(json.dumps(doc), rng)
        hostile.notes.append(mutation.describe())
        h._raw(status, text.encode("utf-8", "surrogateescape"))
    elif abuse == "nan" and isinstance(doc, dict):
        doc.setdefault("metadata", {})["weird"] = rng.choice([math.nan, math.inf, -math.inf])
        h._raw(status, json.dumps(doc, allow_nan=True).encode())
    elif abuse == "status":
        code = rng.choice([400, 401, 403, 404, 410, 429, 500, 503])
        body = rng.choice([b"", b"not json", b'{"message": 5}', b'{"message": "line\\nbreak\\u001b[31m"}', b"[]"])
        h._raw(code, body)
    elif abuse == "redirect-loop":
        h._raw(302, b"", {"Location": path, "Content-Length": "0"})
    elif abuse == "short-body":
        body = json.dumps(doc).encode()
        h._raw(status, body[: len(body) // 2], {"Content-Type": "application/json", "Content-Length": str(len(body))})
        h.close_connection = True
    elif abuse == "not-http":
        h.wfile.write(
            rng.choice([b"HELLO\r\n\r\n", b"HTTP/1.1 abc\r\n\r\n", b"\x00\xff" * 50, b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 200 + b"\r\n"])
        )
        h.close_connection = True
    else:
        h._json(status, doc)


def _targets(rng: random.Random) -> tuple[str, Callable[[str], bool]]:
    choice = rng.choice(
        [
            "/api",
            "/apis",
            "/api/v1",
            "/apis/storage.k8s.io/v1",
            "/api/v1/nodes",
            "/api/v1/pods",
            "/api/v1/namespaces",
            "/apis/scheduling.k8s.io/v1/priorityclasses",
            "every",
        ]
    )
    if choice == "every":
        return choice, lambda path: True
    return choice, lambda path: path == choice


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


_CLUSTER: Cluster | None = None


def live_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    """One hostile server, one live command; the contract checked, the token looked for."""
    global _CLUSTER
    if _CLUSTER is None:
        _CLUSTER = Cluster()
    abuse = rng.choice(ABUSES)
    where, target = _targets(rng)
    hostile = HostileServer(_CLUSTER, abuse, target, rng)
    kubeconfig = workdir / "kubeconfig"
    kubeconfig.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "fuzz",
                "clusters": [{"name": "c", "cluster": {"server": hostile.url}}],
                "users": [{"name": "u", "user": {"token": TOKEN}}],
                "contexts": [{"name": "fuzz", "context": {"cluster": "c", "user": "u"}}],
            }
        )
    )
    out = workdir / rng.choice(["snap.json", "snap.yaml"])
    out.unlink(missing_ok=True)
    command = rng.choice(["capture", "capture", "schedule", "explain"])
    args = {
        "capture": ["capture", "-o", str(out), "--chunk-size", rng.choice(["0", "2", "500"])],
        "schedule": ["schedule", "--live", "-o", "json", "--seed", "1"],
        "explain": ["explain", "default/web-1", "--live", "-o", "json"],
    }[command]
    with _environment({**LIMITS, "KUBECONFIG": str(kubeconfig)}), hostile.running():
        run = checker.run([*args, "--kubeconfig", str(kubeconfig)] if command != "capture" else args)
    progress = [line for line in run.stderr.splitlines() if line.startswith("captured ")]  # capture's last word
    seen = dataclasses.replace(run, stderr="".join(f"{line}\n" for line in run.stderr.splitlines() if line not in progress))
    ok = checker.basic(seen, command, hostile.url)
    for text in (run.stdout, run.stderr):
        if TOKEN in text:
            checker.fail("secret", "the bearer token was printed", run)
    if ok and command == "capture" and run.exit_code == 0:
        again = checker.run(["schedule", str(out), "-o", "json", "--seed", "1"])
        checker.basic(again, "schedule", str(out))
    leftovers = [p.name for p in workdir.iterdir() if p.name.startswith(".snap")]
    if leftovers:
        checker.fail("temp-file", f"capture left {leftovers}", run)
    return f"live {abuse} on {where} via {command}" + (f" ({'; '.join(dict.fromkeys(hostile.notes))[:600]})" if hostile.notes else "")


__all__ = ["live_dimension"]
