"""Reaching a live API server: kubeconfig resolution as kubectl does it, and raw JSON GETs.

kschedctl's own small client does the talking, as client-go would: the kubeconfig typed as
client-go types it (cluster/kubeconfig.py), TLS and a bounded GET (cluster/transport.py), bearer
tokens, token files, basic auth, client certificates (loaded from memory), impersonation and
exec credential plugins (cluster/execcred.py). It sends GET requests only. Objects are read as
raw JSON, so every field the server sends is kept; the JSON is decoded as strictly as a snapshot
file (no NaN, bounded nesting).

Which kubeconfig and context (client-go's ClientConfigLoadingRules, as kubectl applies them):
``--kubeconfig FILE`` alone when given (it must exist); else every existing file of
``$KUBECONFIG`` (path-separator list), merged with the first file to set a value winning; else
``~/.kube/config``; and when none of those exists, the in-cluster service account of the pod
we run in. ``--context`` picks a context, else the first ``current-context`` set in the files.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlencode, urlsplit

from kschedctl.cluster.live_errors import ApiStatusError, LiveClusterError, register_secret

# kept for callers of earlier releases: the kubernetes client is no longer needed on this path
CLUSTER_EXTRA_HINT = "reading a live cluster needs the kubernetes Python client: pip install 'kschedctl[cluster]'"
SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")
DEFAULT_CHUNK_SIZE = 500  # kubectl's --chunk-size default
INSECURE_WARNING = (
    "the server's certificate will not be checked for validity. This will make your HTTPS "
    "connections insecure"
)  # kubectl's --insecure-skip-tls-verify help


class ApiReader(Protocol):
    """What capture needs from a connection: one JSON GET."""

    def get_json(self, path: str, query: Iterable[tuple[str, str]] = ()) -> dict[str, Any]: ...


# --- kubeconfig resolution (no client needed) -----------------------------------------------


@dataclass
class KubeconfigView:
    """The resolved kubeconfig: which files, which context, the context's namespace."""

    paths: list[str] = field(default_factory=list)
    context: str | None = None
    namespace: str = "default"
    in_cluster: bool = False


def kubeconfig_paths(explicit: str | None, environ: Mapping[str, str] | None = None) -> list[str]:
    """The kubeconfig files kubectl would read, in precedence order."""
    env = os.environ if environ is None else environ
    if explicit:
        path = os.path.expanduser(explicit)
        if not os.path.exists(path):
            raise LiveClusterError(f"{explicit}: no such kubeconfig file")
        return [path]
    listed = env.get("KUBECONFIG", "")
    if listed:  # a set KUBECONFIG replaces ~/.kube/config; missing entries are skipped
        expanded = (os.path.expanduser(p) for p in listed.split(os.pathsep) if p)
        return list(dict.fromkeys(p for p in expanded if os.path.exists(p)))
    default = os.path.expanduser("~/.kube/config")
    return [default] if os.path.exists(default) else []


def in_cluster_available(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return bool(env.get("KUBERNETES_SERVICE_HOST")) and (SERVICE_ACCOUNT_DIR / "token").exists()


def resolve_kubeconfig(explicit: str | None, context: str | None, environ: Mapping[str, str] | None = None) -> KubeconfigView:
    """Files, context and namespace as kubectl resolves them; raises LiveClusterError."""
    paths = kubeconfig_paths(explicit, environ)
    if not paths:
        if context is None and in_cluster_available(environ):
            return KubeconfigView(namespace=_in_cluster_namespace(), in_cluster=True)
        raise LiveClusterError("no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config")
    from kschedctl.cluster.kubeconfig import merge

    merged = merge(paths)
    chosen = context or merged.current_context
    if not chosen:
        raise LiveClusterError(f"{':'.join(paths)}: no current-context set: pass --context")
    if chosen not in merged.contexts:
        raise LiveClusterError(f"{':'.join(paths)}: context {chosen!r} not found")
    namespace = merged.contexts[chosen][1].get("namespace") or "default"
    return KubeconfigView(paths=paths, context=chosen, namespace=str(namespace))


def _in_cluster_namespace() -> str:
    try:
        return (SERVICE_ACCOUNT_DIR / "namespace").read_text(encoding="utf-8").strip() or "default"
    except OSError:
        return "default"


# --- the connection -------------------------------------------------------------------------

_HEADER_SAFE = re.compile(r"[\x21-\x7e]+")  # what a bearer token may hold (RFC 6750 b64token and more)


@dataclass
class Credentials:
    """How requests authenticate: at most one of token / basic / exec, plus a client certificate."""

    user: str = ""
    token: str = ""
    token_file: str = ""
    basic: tuple[str, str] | None = None
    cert_data: bytes = b""
    key_data: bytes = b""
    impersonation: list[tuple[str, str]] = field(default_factory=list)
    exec: Any = None  # an ExecAuthenticator


class Connection:
    """One context's API server: strict JSON GETs over kschedctl's bounded transport."""

    def __init__(self, server: str, context: str, namespace: str, credentials: Credentials, *, tls: Any, proxy_url: str = "") -> None:
        from kschedctl import __version__
        from kschedctl.cluster.transport import Limits

        self.server = server
        self.context = context
        self.namespace = namespace
        self.credentials = credentials
        self.tls = tls
        self.proxy_url = proxy_url
        self.limits = Limits.from_env()
        self.user_agent = f"kschedctl/{__version__}"
        self._http: Any = None
        self._cert: tuple[bytes, bytes] | None = None

    @property
    def where(self) -> str:
        return f"context {self.context} ({self.server})"

    def get_json(self, path: str, query: Iterable[tuple[str, str]] = ()) -> dict[str, Any]:
        """GET the path; an error status raises ApiStatusError, anything but a JSON object fails."""
        from kschedctl.api.json_decoding import DecodeError, load_json

        status, body = self._get(path, list(query))
        if status >= 400:
            detail = _status_text(status, body)
            raise ApiStatusError(status, f"GET {path}: {detail}", detail=detail, file=self.where)
        try:
            data = load_json(body.decode("utf-8"))
        except UnicodeDecodeError:
            raise LiveClusterError(f"GET {path}: the server's answer is not UTF-8 JSON", file=self.where) from None
        except DecodeError as exc:
            raise LiveClusterError(f"GET {path}: the server's answer is not valid JSON: {exc.message[:200]}", file=self.where) from None
        if not isinstance(data, dict):
            raise LiveClusterError(f"GET {path}: expected a JSON object", file=self.where)
        return data

    def get_watch_events(self, path: str, query: Iterable[tuple[str, str]] = ()) -> list[dict[str, Any]]:
        """A bounded watch request (``timeoutSeconds`` in the query ends it): its events, one JSON
        object a line (kschedctl/cluster/watch.py). An error status raises ApiStatusError."""
        from kschedctl.api.json_decoding import DecodeError, load_json

        status, body = self._get(path, list(query))
        if status >= 400:
            detail = _status_text(status, body)
            raise ApiStatusError(status, f"GET {path} (watch): {detail}", detail=detail, file=self.where)
        events: list[dict[str, Any]] = []
        for number, line in enumerate(body.splitlines(), 1):
            if not line.strip():
                continue
            try:
                event = load_json(line.decode("utf-8"))
            except (UnicodeDecodeError, DecodeError):
                raise LiveClusterError(f"GET {path} (watch): event {number} is not valid JSON", file=self.where) from None
            if not isinstance(event, dict):
                raise LiveClusterError(f"GET {path} (watch): event {number} is not a JSON object", file=self.where)
            events.append(event)
        return events

    def _get(self, path: str, query: list[tuple[str, str]]) -> tuple[int, bytes]:
        headers = {"Accept": "application/json", "User-Agent": self.user_agent, **self._auth_headers()}
        url = self.server.rstrip("/") + path + (f"?{urlencode(query)}" if query else "")
        response = self._client().get(url, headers)
        return response.status, response.body

    def _auth_headers(self) -> dict[str, str]:
        creds = self.credentials
        headers: dict[str, str] = {}
        token = _read_token_file(creds) if creds.token_file else creds.token
        if creds.basic is not None:
            import base64

            value = "Basic " + base64.b64encode(f"{creds.basic[0]}:{creds.basic[1]}".encode()).decode()
            register_secret(value)
            headers["Authorization"] = value
        elif not token and creds.exec is not None:  # client-go: a set Authorization skips the plugin
            credential = creds.exec.credential()
            token = credential.token
            if credential.cert_data:
                self._use_cert(credential.cert_data, credential.key_data)
        if token:
            if not _HEADER_SAFE.fullmatch(token):
                raise LiveClusterError(
                    f"user {creds.user}: the bearer token holds characters an HTTP header "
                    "cannot carry (spaces, control characters or non-ASCII)",
                    file=self.where,
                )
            headers["Authorization"] = f"Bearer {token}"
            register_secret(headers["Authorization"])
        for name, value in creds.impersonation:
            headers[name] = value
        return headers

    def _use_cert(self, cert: bytes, key: bytes) -> None:
        if self._cert != (cert, key):
            self._cert = (cert, key)
            self.tls.cert_data, self.tls.key_data = cert, key
            self.close()  # a new TLS context for the new certificate

    def _client(self) -> Any:
        from kschedctl.cluster.transport import HttpClient, ssl_context

        if self._http is None:
            https = self.server.startswith("https:")
            context = ssl_context(self.tls, self.where) if https else None
            self._http = HttpClient(
                context=context, server_name=self.tls.server_name, proxy_url=self.proxy_url, limits=self.limits, where=self.where
            )
        return self._http

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None


def _read_token_file(creds: Credentials) -> str:
    """The token file's content, trimmed (client-go's CachedFileTokenSource); the token as fallback."""
    try:
        with open(creds.token_file, "rb") as fh:
            data = fh.read(1024 * 1024)
    except OSError as exc:
        if creds.token:
            return creds.token
        raise LiveClusterError(f"user {creds.user}: cannot read tokenFile {creds.token_file}: {exc.strerror or exc}") from None
    register_secret(data)
    token = data.decode("utf-8", "replace").strip()
    register_secret(token)
    if not token:
        raise LiveClusterError(f"user {creds.user}: read empty token from file {creds.token_file}")
    return token


def connect(kubeconfig: str | None = None, context: str | None = None) -> Connection:
    """A connection to the cluster kubectl would talk to with these flags (nothing is sent yet)."""
    view = resolve_kubeconfig(kubeconfig, context)
    conn = _in_cluster(view) if view.in_cluster else _from_kubeconfig(view)
    if conn.tls.insecure and conn.server.startswith("https:"):
        print(f"warning: {conn.where}: insecure-skip-tls-verify is set: {INSECURE_WARNING}", file=sys.stderr)
    return conn


def _from_kubeconfig(view: KubeconfigView) -> Connection:
    from kschedctl.cluster.execcred import ExecAuthenticator
    from kschedctl.cluster.kubeconfig import auth_entry, cluster_entry, merge
    from kschedctl.cluster.transport import TLSSettings

    merged = merge(view.paths)
    assert view.context is not None
    context = merged.contexts[view.context][1]
    cluster = cluster_entry(merged, context.get("cluster", ""), view.context)
    user = auth_entry(merged, context.get("user", ""), view.context)
    origin = merged.clusters[cluster.name][0]
    ca = cluster.ca_data or (
        _read_file(cluster.ca_file, f"cluster {cluster.name}: certificate-authority", origin) if cluster.ca_file else b""
    )
    cert = user.client_certificate_data or (
        _read_file(user.client_certificate, f"user {user.name}: client-certificate", user.source) if user.client_certificate else b""
    )
    key = user.client_key_data or (
        _read_file(user.client_key, f"user {user.name}: client-key", user.source, secret=True) if user.client_key else b""
    )
    tls = TLSSettings(insecure=cluster.insecure, ca_data=ca, cert_data=cert, key_data=key, server_name=cluster.tls_server_name)
    server = _server_url(cluster.server, bool(ca or cert or cluster.insecure), origin)
    where = f"context {view.context} ({server})"
    if tls.ca_data and tls.insecure:  # refused before anything is sent, in client-go's words
        from kschedctl.cluster.transport import INSECURE_WITH_CA

        raise LiveClusterError(f"cluster {cluster.name}: {INSECURE_WITH_CA}", file=origin)
    creds = Credentials(
        user=user.name,
        token=user.token,
        token_file=user.token_file,
        basic=(user.username, user.password) if user.username or user.password else None,
        cert_data=cert,
        key_data=key,
        impersonation=_impersonation(user),
    )
    if user.exec is not None:
        creds.exec = ExecAuthenticator(user.exec, cluster, user.name, where)
    return Connection(server, view.context, view.namespace, creds, tls=tls, proxy_url=cluster.proxy_url)


def _in_cluster(view: KubeconfigView) -> Connection:
    """rest.InClusterConfig: KUBERNETES_SERVICE_HOST/PORT, the mounted token (re-read) and CA."""
    from kschedctl.cluster.transport import TLSSettings

    host, port = os.environ.get("KUBERNETES_SERVICE_HOST", ""), os.environ.get("KUBERNETES_SERVICE_PORT", "")
    if not host or not port:
        raise LiveClusterError(
            "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined"
        )
    server = f"https://[{host}]:{port}" if ":" in host else f"https://{host}:{port}"
    ca_path = str(SERVICE_ACCOUNT_DIR / "ca.crt")
    ca = _read_file(ca_path, "in-cluster certificate authority", ca_path) if os.path.exists(ca_path) else b""
    creds = Credentials(user="in-cluster", token_file=str(SERVICE_ACCOUNT_DIR / "token"))
    return Connection(server, "in-cluster", view.namespace, creds, tls=TLSSettings(ca_data=ca))


def _impersonation(user: Any) -> list[tuple[str, str]]:
    """client-go's impersonating round tripper: Impersonate-User/-Uid/-Group/-Extra-KEY."""
    headers: list[tuple[str, str]] = []
    if user.impersonate:
        headers.append(("Impersonate-User", user.impersonate))
    if user.impersonate_uid:
        headers.append(("Impersonate-Uid", user.impersonate_uid))
    headers += [("Impersonate-Group", g) for g in user.impersonate_groups]
    from urllib.parse import quote

    for key, values in sorted(user.impersonate_extra.items()):
        headers += [(f"Impersonate-Extra-{quote(key, safe='')}", v) for v in values]
    for name, value in headers:
        if not _HEADER_SAFE.fullmatch(value.replace(" ", "!")):
            raise LiveClusterError(f"user {user.name}: {name} holds characters an HTTP header cannot carry", file=user.source)
    return headers


def _server_url(server: str, tls: bool, origin: str) -> str:
    """client-go's DefaultServerURL: a bare host:port is https when TLS is configured, else http."""
    url = server if "://" in server else ("https://" if tls else "http://") + server
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:  # it would be shown in every message
        register_secret(parts.password)
        raise LiveClusterError(
            "server: a URL holding credentials (user:password@) is refused; give them as the user's username and password", file=origin
        )
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        raise LiveClusterError(f"server {server!r}: not a valid URL (bad port)", file=origin) from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise LiveClusterError(f"server {server!r}: expected http(s)://HOST[:PORT][/PATH]", file=origin)
    return url


def _read_file(path: str, what: str, origin: str, *, secret: bool = False) -> bytes:
    try:
        with open(path, "rb") as fh:
            data = fh.read(16 * 1024 * 1024)
    except OSError as exc:
        raise LiveClusterError(f"{what}: cannot read {path}: {exc.strerror or exc}", file=origin) from None
    if secret:
        register_secret(data)
    return data


def _status_text(status: int, body: bytes) -> str:
    """'Forbidden (403): <the server's Status message>' when the body is a Status."""
    import json

    reason = {401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 410: "Gone"}.get(status, "error")
    try:
        message = json.loads(body[:65536]).get("message")
    except (ValueError, AttributeError):
        message = None
    if not isinstance(message, str):
        message = None
    from kschedctl.api.field import escape_control  # the server's words go on one stderr line

    return f"{reason} ({status})" + (f": {escape_control(message[:500])}" if message else "")


__all__ = [
    "ApiReader",
    "ApiStatusError",
    "CLUSTER_EXTRA_HINT",
    "Connection",
    "KubeconfigView",
    "LiveClusterError",
    "connect",
    "kubeconfig_paths",
    "resolve_kubeconfig",
]
