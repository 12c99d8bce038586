"""TLS and one bounded HTTP GET: what kschedctl's live path sends and how long it waits.

TLS follows client-go's transport (k8s.io/client-go/transport/transport.go TLSConfigFor): a CA
(file or data) and ``insecure-skip-tls-verify`` together are refused, in client-go's words;
without a CA the system roots verify the server; TLS 1.2 at least. A client key is loaded from
memory (a memfd, never a file on disk); only where memfd is missing does it go through a 0600
file in a private directory, removed as soon as it is loaded (see _load_cert_chain).

Every GET is bounded: a deadline for the whole request (connect, TLS handshake, headers and
body; a watchdog shuts the socket down when it passes, so a server sending one byte a second is
cut off), and a bound on the body (Content-Length or the bytes actually read, chunked or not).
No compression is asked for, so the bound is on what is parsed. Redirects are followed (10 at
most, as Go's client), and the Authorization header is dropped when one leaves the server's
origin (scheme, host, port).
"""

from __future__ import annotations

import http.client
import ipaddress
import os
import signal
import socket
import ssl
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from kschedctl.cluster.live_errors import LiveClusterError

INSECURE_WITH_CA = "specifying a root certificates file with the insecure flag is not allowed"
MAX_REDIRECTS = 10
READ_CHUNK = 1 << 16


@dataclass(frozen=True)
class Limits:
    """How long a request may take and how much it may bring back; env vars override for tests."""

    request_timeout: float = 300.0  # seconds for one whole request (a 500-object page takes < 1 s)
    connect_timeout: float = 30.0
    max_body: int = 512 * 1024 * 1024  # bytes of one response (a --chunk-size 0 list of a big cluster)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "Limits":
        env = os.environ if environ is None else environ
        base = cls()
        return cls(
            _env_number(env, "KSCHEDCTL_REQUEST_TIMEOUT", base.request_timeout),
            min(base.connect_timeout, _env_number(env, "KSCHEDCTL_REQUEST_TIMEOUT", base.connect_timeout)),
            int(_env_number(env, "KSCHEDCTL_MAX_RESPONSE_BYTES", base.max_body)),
        )


def _env_number(env: Mapping[str, str], name: str, default: float) -> float:
    text = env.get(name, "")
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise LiveClusterError(f"{name}={text!r}: expected a positive number") from None
    if not value > 0:
        raise LiveClusterError(f"{name}={text!r}: expected a positive number")
    return value


# --- TLS -----------------------------------------------------------------------------------------


@dataclass
class TLSSettings:
    insecure: bool = False
    ca_data: bytes = b""  # PEM (a file's contents, or certificate-authority-data)
    cert_data: bytes = b""
    key_data: bytes = b""
    server_name: str = ""


def ssl_context(tls: TLSSettings, where: str) -> ssl.SSLContext:
    """client-go's TLSConfigFor, as an SSLContext; key material stays in memory."""
    if tls.ca_data and tls.insecure:
        raise LiveClusterError(INSECURE_WITH_CA, file=where)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    if tls.insecure:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    elif tls.ca_data:
        try:
            ctx.load_verify_locations(cadata=tls.ca_data.decode("ascii", "replace"))
        except (ssl.SSLError, ValueError):
            raise LiveClusterError(
                "unable to load root certificates: no PEM certificate in the certificate authority", file=where
            ) from None
    else:
        ctx.load_default_certs()
    if tls.cert_data:
        _load_cert_chain(ctx, tls.cert_data, tls.key_data, where)
    return ctx


def _load_cert_chain(ctx: ssl.SSLContext, cert: bytes, key: bytes, where: str) -> None:
    """The client certificate and key into the context without the key touching a disk.

    OpenSSL's Python binding loads a chain only from a path: a memfd (anonymous memory, Linux)
    is given as /proc/self/fd/N. Elsewhere, a 0600 file in a 0700 directory, removed right after
    loading, with SIGTERM, SIGINT and SIGHUP held back meanwhile (they arrive once it is gone)."""
    pem = cert.rstrip(b"\n") + b"\n" + key
    fd = _memfd()
    if fd >= 0:
        try:
            os.write(fd, pem)
            _load_pem(ctx, f"/proc/self/fd/{fd}", where)
        finally:
            os.close(fd)
        return
    with _signals_held():
        directory = tempfile.mkdtemp(prefix="kschedctl-")
        path = os.path.join(directory, "client.pem")
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(handle, pem)
            finally:
                os.close(handle)
            _load_pem(ctx, path, where)
        finally:
            with suppress(OSError):
                os.unlink(path)
            with suppress(OSError):
                os.rmdir(directory)


def _memfd() -> int:
    """An anonymous in-memory file readable through /proc/self/fd, or -1 where there is none."""
    create = getattr(os, "memfd_create", None)
    if create is None:
        return -1
    try:
        fd = int(create("kschedctl-client-cert", getattr(os, "MFD_CLOEXEC", 0)))
    except OSError:
        return -1
    if not os.path.exists(f"/proc/self/fd/{fd}"):
        os.close(fd)
        return -1
    return fd


@contextmanager
def _signals_held() -> Iterator[None]:
    held = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _load_pem(ctx: ssl.SSLContext, path: str, where: str) -> None:
    try:
        ctx.load_cert_chain(path)
    except ssl.SSLError:
        raise LiveClusterError("the client certificate and key do not load (not PEM, or not a pair)", file=where) from None


# --- the GET -------------------------------------------------------------------------------------


@dataclass
class Response:
    status: int
    body: bytes
    url: str


class _HTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection verifying against ``server_name`` (tls-server-name) when one is set."""

    def __init__(self, host: str, port: int | None, *, context: ssl.SSLContext, server_name: str, timeout: float) -> None:
        super().__init__(host, port, context=context, timeout=timeout)
        self._server_name = server_name

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)
        name = self._server_name or getattr(self, "_tunnel_host", None) or self.host
        context: ssl.SSLContext = getattr(self, "_context")  # noqa: B009 - http.client keeps it there
        self.sock = context.wrap_socket(self.sock, server_hostname=name)


@dataclass(frozen=True)
class Proxy:
    host: str
    port: int
    authorization: str = ""


def proxy_for(url: str, proxy_url: str, where: str) -> Proxy | None:
    """kubeconfig's proxy-url, else HTTPS_PROXY/HTTP_PROXY/NO_PROXY as Go's ProxyFromEnvironment
    reads them (loopback addresses are never proxied). http(s) proxies only."""
    target = urlsplit(url)
    if not proxy_url:
        host = target.hostname or ""
        if host == "localhost" or _is_loopback(host):
            return None
        proxies = urllib.request.getproxies_environment()
        bypass = getattr(urllib.request, "proxy_bypass_environment")  # noqa: B009 - not in the stubs
        if bypass(host, proxies):
            return None
        proxy_url = proxies.get(target.scheme, "")
        if not proxy_url:
            return None
    parts = urlsplit(proxy_url if "://" in proxy_url else f"http://{proxy_url}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LiveClusterError(f"proxy {parts.scheme}://{parts.hostname or ''}: only http proxies are supported", file=where)
    auth = ""
    if parts.username is not None:
        import base64

        from kschedctl.cluster.live_errors import register_secret

        register_secret(parts.password)
        auth = "Basic " + base64.b64encode(f"{parts.username}:{parts.password or ''}".encode()).decode()
        register_secret(auth)
    return Proxy(parts.hostname, parts.port or 80, auth)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class HttpClient:
    """One keep-alive connection per origin, sequential GETs, each bounded by Limits."""

    def __init__(self, *, context: ssl.SSLContext | None, server_name: str, proxy_url: str, limits: Limits, where: str) -> None:
        self.context = context
        self.server_name = server_name
        self.proxy_url = proxy_url
        self.limits = limits
        self.where = where
        self._conns: dict[tuple[str, str, int], http.client.HTTPConnection] = {}

    def get(self, url: str, headers: Mapping[str, str]) -> Response:
        """GET with redirects; Authorization kept only while on the first URL's origin."""
        origin = _origin(url)
        for _ in range(MAX_REDIRECTS + 1):
            sent = dict(headers) if _origin(url) == origin else {k: v for k, v in headers.items() if k.lower() != "authorization"}
            try:
                status, location, body = self._once(url, sent)
            except _StaleConnection:  # as Go's transport: an idempotent GET is sent again on a new connection
                status, location, body = self._once(url, sent)
            if status not in (301, 302, 303, 307, 308) or not location:
                return Response(status, body, url)
            url = urljoin(url, location)
            if urlsplit(url).scheme not in ("http", "https"):
                raise LiveClusterError(f"redirected to a {urlsplit(url).scheme!r} URL", file=self.where)
        raise LiveClusterError(f"stopped after {MAX_REDIRECTS} redirects", file=self.where)

    def _connection(self, url: str) -> http.client.HTTPConnection:
        scheme, host, port = key = _origin(url)
        conn = self._conns.get(key)
        if conn is not None:
            return conn
        proxy = proxy_for(url, self.proxy_url, self.where)
        timeout = self.limits.connect_timeout
        if scheme == "https":
            if self.context is None:
                self.context = ssl_context(TLSSettings(), self.where)
            conn = _HTTPSConnection(
                proxy.host if proxy else host,
                proxy.port if proxy else port,
                context=self.context,
                server_name=self.server_name,
                timeout=timeout,
            )
            if proxy:
                conn.set_tunnel(host, port, {"Proxy-Authorization": proxy.authorization} if proxy.authorization else None)
        else:
            conn = http.client.HTTPConnection(proxy.host if proxy else host, proxy.port if proxy else port, timeout=timeout)
            conn._kschedctl_proxy = proxy  # type: ignore[attr-defined]
        self._conns[key] = conn
        return conn

    def _once(self, url: str, headers: Mapping[str, str]) -> tuple[int, str, bytes]:
        """One request/response under the deadline; the connection is dropped on any failure."""
        conn = self._connection(url)
        reused = conn.sock is not None  # kept alive from an earlier request: the server may have closed it
        parts = urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        proxy = getattr(conn, "_kschedctl_proxy", None)
        sent = dict(headers)
        if proxy is not None:
            target = url  # a plain-HTTP proxy takes the absolute URL
            if proxy.authorization:
                sent["Proxy-Authorization"] = proxy.authorization
        deadline = time.monotonic() + self.limits.request_timeout
        expired = threading.Event()
        watchdog = threading.Timer(self.limits.request_timeout, _cut, (conn, expired))
        watchdog.daemon = True
        watchdog.start()
        try:
            conn.request("GET", target, headers=sent)
            resp = conn.getresponse()
            body = self._read_body(resp, deadline, parts.path)
            if expired.is_set():
                raise OSError("deadline passed")
            if resp.will_close:
                self._drop(url)
            return resp.status, resp.getheader("Location") or "", body
        except LiveClusterError:
            self._drop(url)
            raise
        except (OSError, http.client.HTTPException, ValueError) as exc:
            self._drop(url)
            if reused and not expired.is_set() and isinstance(exc, _STALE):
                raise _StaleConnection() from None
            if expired.is_set() or time.monotonic() >= deadline - 0.05:  # the watchdog or the socket's timeout
                raise LiveClusterError(
                    f"GET {parts.path}: no complete answer within {self.limits.request_timeout:g}s "
                    "(the whole request's deadline; KSCHEDCTL_REQUEST_TIMEOUT)",
                    file=self.where,
                ) from None
            raise LiveClusterError(f"cannot reach the API server: {_describe(exc)}", file=self.where) from None
        finally:
            watchdog.cancel()

    def _read_body(self, resp: http.client.HTTPResponse, deadline: float, path: str) -> bytes:
        limit = self.limits.max_body
        length = resp.getheader("Content-Length")
        if length is not None and length.strip().isdigit() and int(length) > limit:
            raise self._too_big(path, f"announces {int(length)} bytes, more than the {limit}")
        chunks: list[bytes] = []
        size = 0
        while True:
            if time.monotonic() > deadline:
                raise OSError("deadline passed")
            chunk = resp.read1(READ_CHUNK) if not resp.isclosed() else b""
            if not chunk:
                if resp.length:  # the connection ended before the announced length: not an answer
                    raise http.client.IncompleteRead(b"", resp.length)
                resp.read()  # marks the response done, so the connection can carry the next request
                return b"".join(chunks)
            size += len(chunk)
            if size > limit:
                raise self._too_big(path, f"goes on past the {limit}")
            chunks.append(chunk)

    def _too_big(self, path: str, what: str) -> LiveClusterError:
        return LiveClusterError(
            f"GET {path}: the answer {what} bytes a response may have "
            "(KSCHEDCTL_MAX_RESPONSE_BYTES; a smaller --chunk-size makes list pages smaller)",
            file=self.where,
        )

    def _drop(self, url: str) -> None:
        conn = self._conns.pop(_origin(url), None)
        if conn is not None:
            conn.close()

    def close(self) -> None:
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()


_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)


class _StaleConnection(Exception):
    """A kept-alive connection the server had closed: nothing of the answer was read."""


def _cut(conn: http.client.HTTPConnection, expired: threading.Event) -> None:
    """The deadline passed: shut the socket down under whatever read is blocked on it."""
    expired.set()
    sock = conn.sock
    if sock is not None:
        with suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the fd itself, not the TLS layer


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    return parts.scheme, parts.hostname or "", port or (443 if parts.scheme == "https" else 80)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return "TLS: certificate verify failed" + (f": {exc.verify_message}" if exc.verify_message else "")
    if isinstance(exc, ssl.SSLError):
        return f"TLS: {exc.reason or type(exc).__name__}"
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(exc, http.client.HTTPException):
        return f"bad HTTP answer ({type(exc).__name__})"
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


__all__ = ["INSECURE_WITH_CA", "HttpClient", "Limits", "Response", "TLSSettings", "proxy_for", "ssl_context"]
