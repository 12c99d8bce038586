"""A small fake kube-apiserver for capture tests: http.server on 127.0.0.1, HTTP or HTTPS.

It answers what kubectl and the kubernetes client ask of a real one, shaped as the real one
shapes it: discovery (/api, /apis, /api/v1, /apis/GROUP/VERSION), list responses (``<Kind>List``
whose items carry no kind/apiVersion, ``metadata.continue`` paging driven by ``limit``), field
selectors on pods, single-object GETs, Status bodies for 401/403/404. It checks the bearer token
on every request and records every request, so tests can assert what was (not) read.

Watches (``?watch=1``) are served as the real server serves them: the events after the
request's resourceVersion, one JSON object a line, until ``timeoutSeconds`` (capped at
``watch_wait`` to keep tests fast) or the first events; a BOOKMARK when asked for; an ERROR event
with a 410 Status when the resourceVersion is older than the last ``compact()``. Tests change the
cluster with ``apply`` (resourceVersions go up) and can drop the next watch connections.
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
        self.resource_version = 1000 + len(objects)
        self.compacted = 0  # watches from a resourceVersion below this get 410 Gone
        self.events: list[tuple[int, Resource, str, dict[str, Any]]] = []
        self.changed = threading.Condition()
        self.watch_wait = 0.3  # seconds a watch request waits for events at most
        self.drop_watches = 0  # the next N watch requests are cut without an answer

    # --- changes, as a controller or the scheduler would make them ---

    def apply(self, event_type: str, obj: dict[str, Any]) -> None:
        """ADDED, MODIFIED or DELETED: the store changes, the resourceVersion goes up, watches see it."""
        res = self.by_kind[obj["kind"]]
        with self.changed:
            self.resource_version += 1
            stored = {k: copy.deepcopy(v) for k, v in obj.items() if k not in ("kind", "apiVersion")}
            md = stored.setdefault("metadata", {})
            md["resourceVersion"] = str(self.resource_version)
            md.setdefault("uid", f"uid-{md['name']}")
            md.setdefault("creationTimestamp", "2026-11-01T09:00:00Z")
            key = (md.get("namespace"), md["name"])
            kept = [o for o in self.store[res] if (o["metadata"].get("namespace"), o["metadata"]["name"]) != key]
            self.store[res] = kept if event_type == "DELETED" else [*kept, stored]
            self.events.append((self.resource_version, res, event_type, stored))
            self.changed.notify_all()

    def compact(self) -> None:
        """Forget the history: a watch from an older resourceVersion now gets 410 Gone."""
        with self.changed:
            self.compacted = self.resource_version + 1
            self.events.clear()

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
        server = _QuietServer(("127.0.0.1", 0), _handler_for(self))
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
        if verb == "list" and query.get("watch") in ("1", "true"):
            return 200, self._watch(res, namespace, query)
        if verb == "get":
            found = [o for o in objects if o["metadata"]["name"] == rest[1]]
            if not found:
                return 404, _status(404, "NotFound", f'{res.name} "{rest[1]}" not found')
            return 200, {"kind": res.kind, "apiVersion": gv, **found[0]}
        return 200, self._list(res, objects, query)

    def _watch(self, res: Resource, namespace: str | None, query: dict[str, str]) -> Any:
        """The events after the request's resourceVersion, as newline-delimited JSON (a str)."""
        since = int(query.get("resourceVersion") or 0)
        wait = min(float(query.get("timeoutSeconds") or 1), self.watch_wait)
        if since and since < self.compacted:
            status = _status(410, "Expired", f"too old resource version: {since} ({self.compacted})")
            return json.dumps({"type": "ERROR", "object": status}) + "\n"

        def found() -> list[tuple[int, Resource, str, dict[str, Any]]]:
            return [
                e
                for e in self.events
                if e[0] > since
                and e[1] == res
                and (namespace is None or e[3]["metadata"].get("namespace") == namespace)
                and _matches(e[3], query.get("fieldSelector", ""))
            ]

        with self.changed:
            self.changed.wait_for(lambda: bool(found()), timeout=wait)
            events = found()
            current = self.resource_version
        lines = [
            json.dumps({"type": kind, "object": {"kind": res.kind, "apiVersion": res.group_version, **obj}}) for _, _, kind, obj in events
        ]
        if query.get("allowWatchBookmarks") == "true":
            bookmark = {"kind": res.kind, "apiVersion": res.group_version, "metadata": {"resourceVersion": str(current)}}
            lines.append(json.dumps({"type": "BOOKMARK", "object": bookmark}))
        return "".join(line + "\n" for line in lines)

    def _list(self, res: Resource, objects: list[dict[str, Any]], query: dict[str, str]) -> dict[str, Any]:
        objects = [o for o in objects if _matches(o, query.get("fieldSelector", ""))]
        start = int(base64.b64decode(query["continue"]).decode().split(":")[1]) if query.get("continue") else 0
        limit = int(query.get("limit") or 0)
        end = start + limit if limit > 0 else len(objects)
        metadata: dict[str, Any] = {"resourceVersion": str(self.resource_version)}
        if end < len(objects):
            metadata["continue"] = base64.b64encode(f"{res.name}:{end}".encode()).decode()
            metadata["remainingItemCount"] = len(objects) - end
        return {"kind": f"{res.kind}List", "apiVersion": res.group_version, "metadata": metadata, "items": objects[start:end]}


class _QuietServer(ThreadingHTTPServer):
    """A client that went away mid-answer (a watch ended by its command) is no error here."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def _handler_for(api: FakeApiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # one small answer per request: no 40 ms delayed-ACK stalls

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            split = urlsplit(self.path)
            query = dict(parse_qsl(split.query))
            if query.get("watch") and api.drop_watches > 0:
                api.drop_watches -= 1
                self.close_connection = True
                self.connection.shutdown(2)  # cut: no answer at all, as a dropped connection
                return
            status, body = api.answer(split.path, query, self.headers.get("Authorization"))
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json;stream=watch" if isinstance(body, str) else "application/json")
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
