"""Reaching a live API server: kubeconfig resolution as kubectl does it, and raw JSON GETs.

The official ``kubernetes`` Python client (extra ``kschedctl[cluster]``) does the talking:
authentication (tokens, client certificates, exec credential plugins), TLS and proxies. Objects
are read as raw JSON rather than through the client's models, so every field the server sends
is kept, whatever API versions the installed client knows (DRA v1, PodGroups, ...).

Which kubeconfig and context (client-go's ClientConfigLoadingRules, as kubectl applies them):
``--kubeconfig FILE`` alone when given (it must exist); else every existing file of
``$KUBECONFIG`` (path-separator list), merged with the first file to set a value winning; else
``~/.kube/config``; and when none of those exists, the in-cluster service account of the pod
we run in. ``--context`` picks a context, else the first ``current-context`` set in the files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from kschedctl.api.errors import InputError

CLUSTER_EXTRA_HINT = "reading a live cluster needs the kubernetes Python client: pip install 'kschedctl[cluster]'"
SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")
# (connect, read) seconds: a dead or silent server is an error, never a hang
REQUEST_TIMEOUT = (10.0, 120.0)
DEFAULT_CHUNK_SIZE = 500  # kubectl's --chunk-size default


class LiveClusterError(InputError):
    """The cluster could not be read: one line on stderr and exit 2, like any bad input."""

    def __str__(self) -> str:
        return f"{self.file}: {self.message}" if self.file else self.message


class ApiStatusError(LiveClusterError):
    """The API server answered a GET with an error status (403, 404, ...)."""

    def __init__(self, status: int, message: str, *, detail: str = "", file: str | None = None) -> None:
        super().__init__(message, file=file)
        self.status = status
        self.detail = detail or message  # the status and the server's own words, without the request


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


def resolve_kubeconfig(explicit: str | None, context: str | None,
                       environ: Mapping[str, str] | None = None) -> KubeconfigView:
    """Files, context and namespace as kubectl resolves them; raises LiveClusterError."""
    paths = kubeconfig_paths(explicit, environ)
    if not paths:
        if context is None and in_cluster_available(environ):
            return KubeconfigView(namespace=_in_cluster_namespace(), in_cluster=True)
        raise LiveClusterError("no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config")
    docs = [_read_kubeconfig(p) for p in paths]
    chosen = context or next((d.get("current-context") for d in docs if d.get("current-context")), None)
    if not chosen:
        raise LiveClusterError(f"{':'.join(paths)}: no current-context set: pass --context")
    entry = _first_named(docs, "contexts", chosen)
    if entry is None:
        raise LiveClusterError(f"{':'.join(paths)}: context {chosen!r} not found")
    namespace = (entry.get("context") or {}).get("namespace") or "default"
    return KubeconfigView(paths=paths, context=chosen, namespace=str(namespace))


def _read_kubeconfig(path: str) -> dict[str, Any]:
    import yaml  # --live only: the commands that take snapshot files never need it

    try:
        with open(path, encoding="utf-8") as fh:
            doc = yaml.safe_load(fh)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise LiveClusterError(f"{path}: cannot read kubeconfig: {exc}") from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise LiveClusterError(f"{path}: not a kubeconfig (expected a mapping)")
    return doc


def _first_named(docs: list[dict[str, Any]], section: str, name: str) -> dict[str, Any] | None:
    """client-go's merge: the first file that defines a name wins."""
    for doc in docs:
        for entry in doc.get(section) or []:
            if isinstance(entry, dict) and entry.get("name") == name:
                return entry
    return None


def _in_cluster_namespace() -> str:
    try:
        return (SERVICE_ACCOUNT_DIR / "namespace").read_text(encoding="utf-8").strip() or "default"
    except OSError:
        return "default"


# --- the connection -------------------------------------------------------------------------


def _client_modules() -> tuple[Any, Any]:
    """(kubernetes.client, kubernetes.config), or the one-line error naming the extra."""
    try:
        from kubernetes import client, config
    except ImportError:
        raise LiveClusterError(CLUSTER_EXTRA_HINT) from None
    return client, config


class Connection:
    """An ApiClient for one context, with a raw GET that works across client releases."""

    def __init__(self, api: Any, context: str, server: str, namespace: str) -> None:
        self.api = api
        self.context = context
        self.server = server
        self.namespace = namespace

    @property
    def where(self) -> str:
        return f"context {self.context} ({self.server})"

    def get_json(self, path: str, query: Iterable[tuple[str, str]] = ()) -> dict[str, Any]:
        status, body = self._get(path, list(query))
        if status >= 400:
            detail = _status_text(status, body)
            raise ApiStatusError(status, f"GET {path}: {detail}", detail=detail, file=self.where)
        try:
            data = json.loads(body)
        except ValueError:
            raise LiveClusterError(f"GET {path}: the server's answer is not JSON", file=self.where) from None
        if not isinstance(data, dict):
            raise LiveClusterError(f"GET {path}: expected a JSON object", file=self.where)
        return data

    def _get(self, path: str, query: list[tuple[str, str]]) -> tuple[int, bytes]:
        client, _ = _client_modules()
        headers = {"Accept": "application/json"}
        try:
            if hasattr(self.api, "param_serialize"):  # clients generated since release 35
                method, url, hdrs, _, _ = self.api.param_serialize(
                    "GET", path, query_params=query, header_params=headers, auth_settings=["BearerToken"])
                resp = self.api.call_api(method, url, header_params=hdrs, _request_timeout=REQUEST_TIMEOUT)
                return int(resp.status), resp.read() or b""
            try:  # the older generator: raises on error statuses
                resp = self.api.call_api(path, "GET", query_params=query, header_params=headers,
                                         auth_settings=["BearerToken"], _preload_content=False,
                                         _return_http_data_only=True, _request_timeout=REQUEST_TIMEOUT)
                return int(resp.status), resp.data or b""
            except client.ApiException as exc:
                if not exc.status:  # a transport failure wrapped by the client
                    raise LiveClusterError(f"cannot reach the API server: {exc.reason}", file=self.where) from None
                return int(exc.status), (exc.body or b"") if isinstance(exc.body, bytes) else str(exc.body or "").encode()
        except LiveClusterError:
            raise
        except Exception as exc:  # noqa: BLE001 - urllib3/ssl/socket errors all mean "unreachable"
            raise LiveClusterError(f"cannot reach the API server: {_short(exc)}", file=self.where) from None

    def close(self) -> None:
        close = getattr(self.api, "close", None)
        if close is not None:
            close()


def connect(kubeconfig: str | None = None, context: str | None = None) -> Connection:
    """An authenticated connection to the cluster kubectl would talk to with these flags."""
    view = resolve_kubeconfig(kubeconfig, context)
    client, config = _client_modules()
    configuration = client.Configuration()
    try:
        if view.in_cluster:
            config.load_incluster_config(client_configuration=configuration)
        else:
            # persist_config=False: never write refreshed credentials back into the user's files
            config.load_kube_config(config_file=os.pathsep.join(view.paths), context=view.context,
                                    client_configuration=configuration, persist_config=False)
    except Exception as exc:  # noqa: BLE001 - ConfigException and malformed-file errors alike
        raise LiveClusterError(f"cannot use context {view.context or 'in-cluster'}: {_short(exc)}") from None
    return Connection(client.ApiClient(configuration), view.context or "in-cluster",
                      str(configuration.host), view.namespace)


def _status_text(status: int, body: bytes) -> str:
    """'Forbidden (403): <the server's Status message>' when the body is a Status."""
    reason = {401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 410: "Gone"}.get(status, "error")
    try:
        message = json.loads(body).get("message")
    except (ValueError, AttributeError):
        message = None
    return f"{reason} ({status})" + (f": {message}" if message else "")


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


__all__ = ["ApiReader", "ApiStatusError", "CLUSTER_EXTRA_HINT", "Connection", "KubeconfigView",
           "LiveClusterError", "connect", "kubeconfig_paths", "resolve_kubeconfig"]
