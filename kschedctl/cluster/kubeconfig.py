"""kubeconfig files read as client-go reads them, every field typed as its loader types it.

client-go decodes a kubeconfig into the v1 types of k8s.io/client-go/tools/clientcmd/api/v1
(types.go: Config, NamedCluster/Cluster, NamedAuthInfo/AuthInfo, NamedContext/Context,
ExecConfig, ...): unknown fields are ignored, ``null`` is the zero value, and a value of the
wrong type is an error. So ``insecure-skip-tls-verify: "false"`` (a string) is refused here as
kubectl refuses it, instead of being read as a true value. []byte fields
(``certificate-authority-data``, ``client-key-data``, ...) are standard base64.

Merging (clientcmd/loader.go): for each name, the first file that defines it wins; relative
paths are resolved against the directory of the file that defined the entry (ResolveLocalPaths);
an exec ``command`` only when it holds a path separator (else it is looked up on PATH).
"""

from __future__ import annotations

import base64
import binascii
import os
from dataclasses import dataclass, field
from typing import Any

from kschedctl.cluster.live_errors import LiveClusterError, register_secret

# --- the v1 types, as (field -> type) tables -----------------------------------------------------

STRING, BOOL, BYTES, ANY, STRINGS = "string", "boolean", "bytes", "any", "strings"
Spec = Any  # a type name above, a struct table (dict), ("list", Spec) or ("map", Spec)

NAMED_EXTENSIONS = ("list", {"name": STRING, "extension": ANY})
CLUSTER = {
    "server": STRING,
    "tls-server-name": STRING,
    "insecure-skip-tls-verify": BOOL,
    "certificate-authority": STRING,
    "certificate-authority-data": BYTES,
    "proxy-url": STRING,
    "disable-compression": BOOL,
    "extensions": NAMED_EXTENSIONS,
}
EXEC_CONFIG = {
    "command": STRING,
    "args": STRINGS,
    "env": ("list", {"name": STRING, "value": STRING}),
    "apiVersion": STRING,
    "installHint": STRING,
    "provideClusterInfo": BOOL,
    "interactiveMode": STRING,
}
AUTH_INFO = {
    "client-certificate": STRING,
    "client-certificate-data": BYTES,
    "client-key": STRING,
    "client-key-data": BYTES,
    "token": STRING,
    "tokenFile": STRING,
    "as": STRING,
    "as-uid": STRING,
    "as-groups": STRINGS,
    "as-user-extra": ("map", STRINGS),
    "username": STRING,
    "password": STRING,
    "auth-provider": {"name": STRING, "config": ("map", STRING)},
    "exec": EXEC_CONFIG,
    "extensions": NAMED_EXTENSIONS,
}
CONTEXT = {"cluster": STRING, "user": STRING, "namespace": STRING, "extensions": NAMED_EXTENSIONS}
CONFIG = {
    "kind": STRING,
    "apiVersion": STRING,
    "preferences": {"colors": BOOL, "extensions": NAMED_EXTENSIONS},
    "clusters": ("list", {"name": STRING, "cluster": CLUSTER}),
    "users": ("list", {"name": STRING, "user": AUTH_INFO}),
    "contexts": ("list", {"name": STRING, "context": CONTEXT}),
    "current-context": STRING,
    "extensions": NAMED_EXTENSIONS,
}
SECRET_FIELDS = {"token", "password", "client-key-data"}
_ZERO: dict[str, Any] = {STRING: "", BOOL: False, BYTES: b"", ANY: None}


def _zero(spec: Spec) -> Any:
    if isinstance(spec, str):
        return [] if spec == STRINGS else _ZERO[spec]
    return [] if isinstance(spec, tuple) and spec[0] == "list" else {}


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict) else type(value).__name__


def _bad(path: str, where: str, expected: str, value: Any, secret: bool = False) -> LiveClusterError:
    shown = "" if secret or isinstance(value, (dict, list)) else f" {str(value)[:60]!r}"
    return LiveClusterError(f"{where}: expected {expected}, got {_kind_of(value)}{shown} (kubectl refuses this kubeconfig too)", file=path)


def typed(value: Any, spec: Spec, path: str, where: str) -> Any:
    """The value checked against its client-go type: zero values for null, unknown keys dropped."""
    secret = where.rsplit(".", 1)[-1] in SECRET_FIELDS
    if value is None:  # Go's decoder leaves the zero value
        return _zero(spec)
    if spec == ANY:
        return value
    if spec == STRING:
        if not isinstance(value, str):
            raise _bad(path, where, "a string", value, secret)
        return value
    if spec == BOOL:
        if not isinstance(value, bool):
            raise _bad(path, where, "a boolean (true or false)", value)
        return value
    if spec == BYTES:
        return _base64(value, path, where, secret)
    if spec == STRINGS:
        if not isinstance(value, list):
            raise _bad(path, where, "a list of strings", value)
        return [typed(v, STRING, path, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            raise _bad(path, where, "a mapping", value)
        return {key: typed(value[key], sub, path, f"{where}.{key}" if where else key) for key, sub in spec.items() if key in value}
    kind, item = spec
    if kind == "list":
        if not isinstance(value, list):
            raise _bad(path, where, "a list", value)
        return [typed(v, item, path, f"{where}[{i}]") for i, v in enumerate(value)]
    if not isinstance(value, dict):
        raise _bad(path, where, "a mapping", value)
    return {str(k): typed(v, item, path, f"{where}.{k}") for k, v in value.items()}


def _base64(value: Any, path: str, where: str, secret: bool) -> bytes:
    """Go's []byte in JSON: standard base64 (line breaks ignored, as Go's decoder ignores them)."""
    if not isinstance(value, str):
        raise _bad(path, where, "a base64 string", value, secret)
    try:
        data = base64.b64decode("".join(value.split()), validate=True)
    except (binascii.Error, ValueError):
        raise LiveClusterError(f"{where}: illegal base64 data", file=path) from None
    if secret:
        register_secret(value)
        register_secret(data)
    return data


# --- the resolved entries -----------------------------------------------------------------------


@dataclass
class ExecConfig:
    command: str
    args: list[str]
    env: list[tuple[str, str]]
    api_version: str
    install_hint: str
    provide_cluster_info: bool
    interactive_mode: str


@dataclass
class Cluster:
    name: str
    server: str = ""
    tls_server_name: str = ""
    insecure: bool = False
    ca_file: str = ""
    ca_data: bytes = b""
    proxy_url: str = ""
    disable_compression: bool = False
    exec_extension: Any = None  # extensions["client.authentication.k8s.io/exec"], for provideClusterInfo


@dataclass
class AuthInfo:
    name: str
    source: str = ""
    client_certificate: str = ""
    client_certificate_data: bytes = b""
    client_key: str = ""
    client_key_data: bytes = b""
    token: str = ""
    token_file: str = ""
    impersonate: str = ""
    impersonate_uid: str = ""
    impersonate_groups: list[str] = field(default_factory=list)
    impersonate_extra: dict[str, list[str]] = field(default_factory=dict)
    username: str = ""
    password: str = ""
    auth_provider: str = ""
    exec: ExecConfig | None = None


@dataclass
class Kubeconfig:
    """The merged files: first definition of each name wins, as client-go merges them."""

    paths: list[str]
    current_context: str = ""
    contexts: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # name -> (file, context)
    clusters: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    users: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)


def read_kubeconfig_file(path: str) -> dict[str, Any]:
    """One file, decoded as sigs.k8s.io/yaml does (kschedctl's API-server YAML reader) and typed."""
    from kschedctl.api.decoding import DecodeError, load_yaml

    try:
        with open(path, "rb") as fh:
            raw = fh.read(16 * 1024 * 1024 + 1)
        if len(raw) > 16 * 1024 * 1024:
            raise LiveClusterError("kubeconfig larger than 16 MiB", file=path)
        doc = load_yaml(raw.decode("utf-8"))
    except OSError as exc:
        raise LiveClusterError(f"cannot read kubeconfig: {exc.strerror or exc}", file=path) from None
    except UnicodeDecodeError:
        raise LiveClusterError("cannot read kubeconfig: not UTF-8 text", file=path) from None
    except DecodeError as exc:
        line = f"line {exc.line}: " if exc.line else ""
        raise LiveClusterError(f"cannot read kubeconfig: {line}{exc.message}", file=path) from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise LiveClusterError("not a kubeconfig (expected a mapping)", file=path)
    checked: dict[str, Any] = typed(doc, CONFIG, path, "")
    return checked


def merge(paths: list[str]) -> Kubeconfig:
    """Every file read and typed (all of them, as client-go's loader fails on any bad one), merged."""
    merged = Kubeconfig(paths=paths)
    for path in paths:
        doc = read_kubeconfig_file(path)
        if not merged.current_context and doc.get("current-context"):
            merged.current_context = doc["current-context"]
        for section, key, target in (
            ("contexts", "context", merged.contexts),
            ("clusters", "cluster", merged.clusters),
            ("users", "user", merged.users),
        ):
            seen: set[str] = set()
            for i, entry in enumerate(doc.get(section) or []):
                name = entry.get("name", "")
                if name in seen:  # clientcmd/api/v1/conversion.go refuses a name twice in one list
                    raise LiveClusterError(f"{section}[{i}]: duplicate name {name!r} in list", file=path)
                seen.add(name)
                target.setdefault(name, (path, entry.get(key) or {}))
    return merged


def _resolve(path: str, origin: str) -> str:
    """A path relative to the kubeconfig file that names it (clientcmd ResolveLocalPaths)."""
    if not path:
        return path
    path = os.path.expanduser(path)
    return path if os.path.isabs(path) else os.path.join(os.path.dirname(os.path.abspath(origin)), path)


def cluster_entry(config: Kubeconfig, name: str, context: str) -> Cluster:
    if not name:
        raise LiveClusterError(f"cluster was not specified for context {context!r}", file=":".join(config.paths))
    if name not in config.clusters:
        raise LiveClusterError(f"cluster {name!r} was not found for context {context!r}", file=":".join(config.paths))
    origin, raw = config.clusters[name]
    ext = {e.get("name"): e.get("extension") for e in raw.get("extensions") or []}
    cluster = Cluster(
        name=name,
        server=raw.get("server", ""),
        tls_server_name=raw.get("tls-server-name", ""),
        insecure=raw.get("insecure-skip-tls-verify", False),
        ca_file=_resolve(raw.get("certificate-authority", ""), origin),
        ca_data=raw.get("certificate-authority-data", b""),
        proxy_url=raw.get("proxy-url", ""),
        disable_compression=raw.get("disable-compression", False),
        exec_extension=ext.get("client.authentication.k8s.io/exec"),
    )
    if not cluster.server:
        raise LiveClusterError(f"no server found for cluster {name!r}", file=origin)
    if cluster.ca_file and cluster.ca_data:  # clientcmd/validation.go validateClusterInfo
        raise LiveClusterError(
            f"certificate-authority-data and certificate-authority are both specified for "
            f"{name}. certificate-authority-data will override.",
            file=origin,
        )
    return cluster


def auth_entry(config: Kubeconfig, name: str, context: str) -> AuthInfo:
    if not name:
        raise LiveClusterError(f"user was not specified for context {context!r}", file=":".join(config.paths))
    if name not in config.users:
        raise LiveClusterError(f"user {name!r} was not found for context {context!r}", file=":".join(config.paths))
    origin, raw = config.users[name]
    for key in ("token", "password"):
        register_secret(raw.get(key))
    user = AuthInfo(
        name=name,
        source=origin,
        client_certificate=_resolve(raw.get("client-certificate", ""), origin),
        client_certificate_data=raw.get("client-certificate-data", b""),
        client_key=_resolve(raw.get("client-key", ""), origin),
        client_key_data=raw.get("client-key-data", b""),
        token=raw.get("token", ""),
        token_file=_resolve(raw.get("tokenFile", ""), origin),
        impersonate=raw.get("as", ""),
        impersonate_uid=raw.get("as-uid", ""),
        impersonate_groups=raw.get("as-groups", []),
        impersonate_extra=raw.get("as-user-extra", {}),
        username=raw.get("username", ""),
        password=raw.get("password", ""),
        auth_provider=(raw.get("auth-provider") or {}).get("name", "") if "auth-provider" in raw else "",
        exec=_exec_config(raw.get("exec"), origin, name),
    )
    _validate_auth(user, origin)
    return user


def _exec_config(raw: dict[str, Any] | None, origin: str, user: str) -> ExecConfig | None:
    """clientcmd's defaulting (v1beta1: interactiveMode IfAvailable) and validation of exec."""
    if not raw:
        return None
    command, api_version = raw.get("command", ""), raw.get("apiVersion", "")
    mode = raw.get("interactiveMode", "")
    if not command:
        raise LiveClusterError(f"command must be specified for {user} to use exec authentication plugin", file=origin)
    if not api_version:
        raise LiveClusterError(f"apiVersion must be specified for {user} to use exec authentication plugin", file=origin)
    if not mode and api_version == "client.authentication.k8s.io/v1beta1":
        mode = "IfAvailable"  # clientcmd/api/v1/defaults.go
    if not mode:
        raise LiveClusterError(f"interactiveMode must be specified for {user} to use exec authentication plugin", file=origin)
    if mode not in ("Never", "IfAvailable", "Always"):
        raise LiveClusterError(f"invalid interactiveMode for {user}: {mode!r}", file=origin)
    if os.sep in command:
        command = _resolve(command, origin)
    env = [(e.get("name", ""), e.get("value", "")) for e in raw.get("env") or []]
    for _, value in env:
        register_secret(value)  # plugins are often handed credentials through env
    return ExecConfig(
        command, raw.get("args", []), env, api_version, raw.get("installHint", ""), raw.get("provideClusterInfo", False), mode
    )


def _validate_auth(user: AuthInfo, origin: str) -> None:
    """clientcmd/validation.go validateAuthInfo: one method, cert with key, no legacy provider."""
    methods = [m for m, on in (("token", user.token or user.token_file), ("basicAuth", user.username or user.password)) if on]
    if len(methods) > 1:
        raise LiveClusterError(
            f"more than one authentication method found for {user.name}; found {methods}, only one is allowed", file=origin
        )
    has_cert = bool(user.client_certificate or user.client_certificate_data)
    has_key = bool(user.client_key or user.client_key_data)
    if has_cert and not has_key:
        raise LiveClusterError(
            f"client-key-data or client-key must be specified for {user.name} to use the clientCert authentication method.", file=origin
        )
    if has_key and not has_cert:
        raise LiveClusterError(
            f"client-cert-data or client-cert must be specified for {user.name} to use the clientCert authentication method.", file=origin
        )
    if user.client_certificate and user.client_certificate_data:
        raise LiveClusterError(
            f"client-cert-data and client-cert are both specified for {user.name}. client-cert-data will override.", file=origin
        )
    if user.client_key and user.client_key_data:
        raise LiveClusterError(
            f"client-key-data and client-key are both specified for {user.name}; client-key-data will override.", file=origin
        )
    if user.auth_provider and user.exec is not None:
        raise LiveClusterError(f"authProvider cannot be provided in combination with an exec plugin for {user.name}", file=origin)
    if user.auth_provider:
        raise LiveClusterError(
            f"user {user.name}: auth-provider {user.auth_provider!r} is not supported by kschedctl: use an exec credential plugin",
            file=origin,
        )


__all__ = ["AuthInfo", "Cluster", "ExecConfig", "Kubeconfig", "auth_entry", "cluster_entry", "merge", "read_kubeconfig_file", "typed"]
