"""A small fake kube-apiserver for capture tests: http.server on 127.0.0.1, HTTP or HTTPS.

It answers what kubectl and the kubernetes client ask of a real one, shaped as the real one
shapes it: discovery (/api, /apis, /api/v1, /apis/GROUP/VERSION), list responses (``<Kind>List``
whose items carry no kind/apiVersion, ``metadata.continue`` paging driven by ``limit``), field
selectors on pods, single-object GETs, Status bodies for 401/403/404. It checks the bearer token
on every request and records every request, so tests can assert what was (not) read.
"""

from __future__ import annotations

import base64
import copy
import json
import shutil
import ssl
import subprocess
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import yaml


@dataclass(frozen=True)
class Resource:
    group: str
    version: str
    name: str
    kind: str
    namespaced: bool

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


RESOURCES = [
    Resource("", "v1", "namespaces", "Namespace", False),
    Resource("", "v1", "nodes", "Node", False),
    Resource("", "v1", "pods", "Pod", True),
    Resource("", "v1", "persistentvolumes", "PersistentVolume", False),
    Resource("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True),
    Resource("", "v1", "services", "Service", True),
    Resource("", "v1", "replicationcontrollers", "ReplicationController", True),
    Resource("", "v1", "secrets", "Secret", True),
    Resource("", "v1", "configmaps", "ConfigMap", True),
    Resource("apps", "v1", "replicasets", "ReplicaSet", True),
    Resource("apps", "v1", "statefulsets", "StatefulSet", True),
    Resource("apps", "v1", "daemonsets", "DaemonSet", True),
    Resource("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False),
    Resource("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True),
    Resource("storage.k8s.io", "v1", "storageclasses", "StorageClass", False),
    Resource("storage.k8s.io", "v1", "csinodes", "CSINode", False),
    Resource("storage.k8s.io", "v1", "csidrivers", "CSIDriver", False),
    Resource("storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity", True),
]
DRA_RESOURCES = [
    Resource("resource.k8s.io", "v1", "deviceclasses", "DeviceClass", False),
    Resource("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", False),
    Resource("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", True),
    Resource("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", True),
]


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "reason": reason, "code": code}


def _field(obj: dict[str, Any], path: str) -> str:
    value: Any = obj
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return "" if value is None else str(value)


def _matches(obj: dict[str, Any], selector: str) -> bool:
    """Field selectors as the API server reads them: `a.b=v`, `a.b==v`, `a.b!=v`, comma-joined."""
    for term in filter(None, selector.split(",")):
        if "!=" in term:
            path, value = term.split("!=", 1)
            if _field(obj, path) == value:
                return False
        else:
            path, value = term.replace("==", "=").split("=", 1)
            if _field(obj, path) != value:
                return False
    return True


class FakeApiServer:
    """Holds objects by resource and serves them; start() returns self, stop() shuts down."""

    def __init__(
        self,
        objects: list[dict[str, Any]],
        *,
        token: str = "s3cr3t-t0ken",
        forbidden: set[str] = frozenset(),
        not_found: set[str] = frozenset(),
        serve_dra: bool = False,
        tls_dir: Path | None = None,
    ) -> None:
        self.token = token
        self.forbidden = set(forbidden)
        self.not_found = set(not_found)
        self.resources = RESOURCES + (DRA_RESOURCES if serve_dra else [])
        self.by_kind = {r.kind: r for r in self.resources}
        self.store: dict[Resource, list[dict[str, Any]]] = {r: [] for r in self.resources}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.tls_dir = tls_dir
        self.ca_pem: bytes | None = None
        for i, obj in enumerate(objects):
            self.add(obj, i)
        self._server: ThreadingHTTPServer | None = None

    def add(self, obj: dict[str, Any], serial: int = 0) -> None:
        """Store an object as the API server would: no kind/apiVersion, server-set metadata."""
        res = self.by_kind[obj["kind"]]
        stored = {k: copy.deepcopy(v) for k, v in obj.items() if k not in ("kind", "apiVersion")}
        md = stored.setdefault("metadata", {})
        md.setdefault("uid", f"00000000-0000-0000-0000-{serial:012d}")
        md.setdefault("resourceVersion", str(1000 + serial))
        md.setdefault("creationTimestamp", "2026-11-01T08:00:00Z")
        md["managedFields"] = [
            {
                "apiVersion": obj["apiVersion"],
                "fieldsType": "FieldsV1",
                "manager": "kubectl",
                "operation": "Update",
                "time": "2026-11-01T08:00:00Z",
                "fieldsV1": {"f:metadata": {}},
            }
        ]
        self.store[res].append(stored)

    # --- lifecycle ---

    @property
    def url(self) -> str:
        assert self._server is not None
        scheme = "https" if self.tls_dir else "http"
        return f"{scheme}://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> "FakeApiServer":
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = True
        if self.tls_dir is not None:
            cert, key = make_self_signed_cert(self.tls_dir)
            self.ca_pem = cert.read_bytes()
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(cert, key)
            server.socket = ctx.wrap_socket(server.socket, server_side=True)
        self._server = server
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def write_kubeconfig(
        self,
        path: Path,
        *,
        context: str = "fake",
        namespace: str | None = None,
        token: str | None = None,
        extra_contexts: tuple[str, ...] = (),
    ) -> Path:
        cluster: dict[str, Any] = {"server": self.url}
        if self.ca_pem is not None:
            cluster["certificate-authority-data"] = base64.b64encode(self.ca_pem).decode()
        ctx: dict[str, Any] = {"cluster": "fake-cluster", "user": "fake-user"}
        if namespace:
            ctx["namespace"] = namespace
        doc = {
            "apiVersion": "v1",
            "kind": "Config",
            "preferences": {},
            "clusters": [{"name": "fake-cluster", "cluster": cluster}],
            "users": [{"name": "fake-user", "user": {"token": token or self.token}}],
            "contexts": [{"name": name, "context": ctx} for name in (context, *extra_contexts)],
            "current-context": context,
        }
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
        return path

    # --- what was asked ---

    def paths_requested(self) -> list[str]:
        return [p for p, _ in self.requests]

    def list_requests(self, resource: str) -> list[dict[str, str]]:
        return [q for p, q in self.requests if p.rstrip("/").endswith("/" + resource)]

    # --- answering ---

    def answer(self, path: str, query: dict[str, str], auth: str | None) -> tuple[int, dict[str, Any]]:
        self.requests.append((path, query))
        scheme, _, credentials = (auth or "").partition(" ")
        if scheme.lower() != "bearer" or credentials != self.token:  # schemes are case-insensitive (RFC 9110)
            return 401, _status(401, "Unauthorized", "Unauthorized")
        parts = [p for p in path.split("/") if p]
        if parts == ["api"]:
            return 200, {
                "kind": "APIVersions",
                "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}],
            }
        if parts == ["apis"]:
            return 200, self._group_list()
        if parts[:1] == ["api"] and len(parts) >= 2:
            return self._resource_path("", parts[1], parts[2:], query)
        if parts[:1] == ["apis"] and len(parts) >= 3:
            return self._resource_path(parts[1], parts[2], parts[3:], query)
        return 404, _status(404, "NotFound", "the server could not find the requested resource")

    def _group_list(self) -> dict[str, Any]:
        groups: dict[str, list[str]] = {}
        for r in self.resources:
            if r.group and r.version not in groups.setdefault(r.group, []):
                groups[r.group].append(r.version)
        return {
            "kind": "APIGroupList",
            "apiVersion": "v1",
            "groups": [
                {
                    "name": g,
                    "versions": [{"groupVersion": f"{g}/{v}", "version": v} for v in vs],
                    "preferredVersion": {"groupVersion": f"{g}/{vs[0]}", "version": vs[0]},
                }
                for g, vs in groups.items()
            ],
        }

    def _resource_path(self, group: str, version: str, rest: list[str], query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        served = [r for r in self.resources if r.group == group and r.version == version]
        if not served:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        gv = served[0].group_version
        if not rest:
            return 200, {
                "kind": "APIResourceList",
                "apiVersion": "v1",
                "groupVersion": gv,
                "resources": [
                    {
                        "name": r.name,
                        "singularName": r.kind.lower(),
                        "namespaced": r.namespaced,
                        "kind": r.kind,
                        "verbs": ["get", "list", "watch"],
                    }
                    for r in served
                ],
            }
        namespace = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            namespace, rest = rest[1], rest[2:]
        res = next((r for r in served if r.name == rest[0]), None)
        if res is None:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        verb = "get" if len(rest) > 1 else "list"
        if res.name in self.forbidden:
            scope = f' in the namespace "{namespace}"' if namespace else " at the cluster scope"
            return 403, _status(
                403,
                "Forbidden",
                f"{res.name}{'.' + group if group else ''} is forbidden: User "
                f'"system:serviceaccount:ci:reader" cannot {verb} resource "{res.name}" in API '
                f'group "{group}"{scope}',
            )
        if res.name in self.not_found:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        objects = [o for o in self.store[res] if namespace is None or o["metadata"].get("namespace") == namespace]
        if verb == "get":
            found = [o for o in objects if o["metadata"]["name"] == rest[1]]
            if not found:
                return 404, _status(404, "NotFound", f'{res.name} "{rest[1]}" not found')
            return 200, {"kind": res.kind, "apiVersion": gv, **found[0]}
        return 200, self._list(res, objects, query)

    def _list(self, res: Resource, objects: list[dict[str, Any]], query: dict[str, str]) -> dict[str, Any]:
        objects = [o for o in objects if _matches(o, query.get("fieldSelector", ""))]
        start = int(base64.b64decode(query["continue"]).decode().split(":")[1]) if query.get("continue") else 0
        limit = int(query.get("limit") or 0)
        end = start + limit if limit > 0 else len(objects)
        metadata: dict[str, Any] = {"resourceVersion": "99999"}
        if end < len(objects):
            metadata["continue"] = base64.b64encode(f"{res.name}:{end}".encode()).decode()
            metadata["remainingItemCount"] = len(objects) - end
        return {"kind": f"{res.kind}List", "apiVersion": res.group_version, "metadata": metadata, "items": objects[start:end]}


def _handler_for(api: FakeApiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # one small answer per request: no 40 ms delayed-ACK stalls

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            split = urlsplit(self.path)
            status, body = api.answer(split.path, dict(parse_qsl(split.query)), self.headers.get("Authorization"))
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def make_self_signed_cert(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 made by the openssl command (tests skip HTTPS without it)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RuntimeError("openssl not found")
    cert, key = directory / "server.crt", directory / "server.key"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key
