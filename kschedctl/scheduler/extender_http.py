"""An extender call over HTTP/1.1, bounded as Go's http.Client bounds kube-scheduler's.

Upstream: pkg/scheduler/extender.go (NewHTTPExtender: ``http.Client{Timeout: httpTimeout}``)
and net/http's client.go (the deadline, redirects, url.Error's wording).

- One deadline bounds the whole call: connecting, the TLS handshake, sending, the status line
  and headers, every redirect and the full body, as http.Client.Timeout does. Each blocking
  read or write gets only the time left, so a server that sends one byte a second cannot
  stretch it. Errors are worded as Go's: ``Post "URL": context deadline exceeded
  (Client.Timeout exceeded while awaiting headers)`` before the headers are in, and (not
  prefixed, as json.Decoder returns the body's error) ``context deadline exceeded
  (Client.Timeout or context cancellation while reading body)`` after.
- Redirects are followed as Go's client follows them: at most 10 requests, 301/302/303 turn
  the POST into a GET without a body, 307/308 send the POST again; a 3xx without Location is
  the answer; errors name the URL that failed, still as ``Post``. Credentials of a URL
  (``user:password@``) become an ``Authorization: Basic`` header of that request only, as in
  Go, and appear in no error (``***`` in their place, as Go's url.Error strips them).
- The body is read up to a limit (MAX_RESPONSE_BYTES, or twice the request when that is more:
  an extender may echo the NodeList it was sent); Go has none, but a 10 GiB Content-Length or an
  endless chunked body must not take the process's memory. What stops a body short (the
  deadline, the server closing mid-body) is handed to the JSON decoder with the bytes that
  came: like json.Decoder, it returns a value that ended before the cut, and the cut's error
  otherwise. An answer over the limit fails the call, whatever it holds (Go would decode a
  first value that ended within it and never read the rest: a difference only for an extender
  sending megabytes of junk after its answer).
"""

from __future__ import annotations

import base64
import io
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import SplitResult, quote, unquote, urljoin, urlsplit

from kschedctl.framework.gosemantics import go_quote

if TYPE_CHECKING:
    import http.client
    import socket
    import ssl

MAX_RESPONSE_BYTES = 16 << 20  # 16 MiB: far above any answer but an echoed NodeList (see response_limit)
MAX_REQUESTS = 10  # defaultCheckRedirect: "stopped after 10 redirects"
_REDIRECTS = (301, 302, 303, 307, 308)
_READ_SIZE = 1 << 16
_SHOWN_LINE = 200  # how much of a malformed status line an error quotes

AWAITING_HEADERS = "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
READING_BODY = "context deadline exceeded (Client.Timeout or context cancellation while reading body)"


class ExtenderError(Exception):
    """A failed extender call, with the text kube-scheduler's error would have."""


@dataclass
class Response:
    """An answer: its status, the body's bytes, and what cut the body short (None: it ended)."""

    status: int
    body: bytes = b""
    cut: ExtenderError | None = None


def response_limit(request_size: int) -> int:
    """The most bytes read of an answer to a request of that size."""
    return max(MAX_RESPONSE_BYTES, 2 * request_size)


def display_url(url: str) -> str:
    """stripPassword: the URL with its password, if any, as ``***`` (even a URL that does not parse)."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return _USERINFO.sub(r"//\1:***@", url)
    if password is None:
        return url
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return parts._replace(netloc=f"{user}:***@{hostport}").geturl()


_USERINFO = re.compile(r"//([^/@:]*):[^/@]*@")


def url_secrets(url: str) -> list[str]:
    """What of a URL must never be shown: its password (as written and decoded) and the Basic
    credentials made of it."""
    try:
        parts = urlsplit(url)
        user, password = parts.username or "", parts.password
    except ValueError:
        found = _USERINFO.search(url)
        user, password = (found.group(1), url[found.end(1) + 1 : found.end() - 1]) if found else ("", None)
    if not password:
        return []
    token = _basic_token(user, password)
    return sorted({password, unquote(password), token}, key=len, reverse=True)


def _basic_token(user: str, password: str) -> str:
    return base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()


class HTTPClient:
    """One extender's client for the run: its TLS context, built once (None: Go's default
    transport, whose TLS settings are made on the first https URL)."""

    def __init__(self, context: "ssl.SSLContext | None", server_name: str = "") -> None:
        self._context = context
        self._server_name = server_name

    def post(self, url: str, body: bytes, timeout: float, limit: int | None = None) -> Response:
        """Client.Do of a POST of JSON, redirects followed, all within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        limit = limit if limit is not None else response_limit(len(body))
        method, current = "POST", url
        data: bytes | None = body
        for sent in range(1, MAX_REQUESTS + 1):
            sock, response = self._round_trip(method, current, data, deadline)
            try:
                location = response.getheader("Location")
                if response.status in _REDIRECTS and location:
                    if sent == MAX_REQUESTS:
                        raise ExtenderError(f"Post {go_quote(display_url(current))}: stopped after 10 redirects")
                    if response.status in (301, 302, 303):
                        method, data = "GET", None
                    current = _location(current, location)
                    continue
                if response.status != 200:
                    return Response(response.status)
                return _read_body(response, limit, current)
            finally:
                response.close()
                sock.close()
        raise AssertionError("unreachable")

    def _round_trip(self, method: str, url: str, data: bytes | None, deadline: float) -> tuple[socket.socket, "http.client.HTTPResponse"]:
        """One request on a new connection, up to the response's headers."""
        import http.client
        import socket  # with http.client, imported by the first request (not by a run without extenders)

        where = f"Post {go_quote(display_url(url))}"
        try:
            parts = urlsplit(url)
        except ValueError as exc:
            raise ExtenderError(f"{where}: {exc}") from None
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise ExtenderError(f"{where}: unsupported protocol scheme {go_quote(parts.scheme)}")
        try:
            host, port = parts.hostname or "", parts.port or (443 if scheme == "https" else 80)
        except ValueError:
            raise ExtenderError(f"{where}: invalid port in the URL") from None
        if not host:
            raise ExtenderError(f"{where}: http: no Host in request URL")
        sock: socket.socket | None = None
        try:
            sock = socket.create_connection((host, port), timeout=_left(deadline))
            if scheme == "https":
                sock.settimeout(_left(deadline))
                sock = self._tls().wrap_socket(sock, server_hostname=self._server_name or host)
            _send_all(sock, _request_head(method, parts, data), deadline)
            if data:
                _send_all(sock, data, deadline)
            response = http.client.HTTPResponse(_DeadlineSocket(sock, deadline), method=method)  # type: ignore[arg-type]
            response.begin()
            return sock, response
        except BaseException as exc:
            if sock is not None:
                sock.close()
            if isinstance(exc, ExtenderError):
                raise
            if isinstance(exc, Exception):
                raise ExtenderError(f"{where}: {_transport_error(exc, host, port)}") from None
            raise

    def _tls(self) -> "ssl.SSLContext":
        """The context for an https URL (the default one, made now, when the extender has none)."""
        if self._context is None:
            import ssl

            self._context = ssl.create_default_context()
        return self._context


def _location(current: str, location: str) -> str:
    """The redirect's target, resolved against the URL that answered it."""
    try:
        target = urljoin(current, location.strip())
        urlsplit(target).port  # noqa: B018 - a port that is no number raises here, as url.Parse refuses it
    except ValueError as exc:
        raise ExtenderError(
            f"Post {go_quote(display_url(current))}: failed to parse Location header {go_quote(display_url(location)[:_SHOWN_LINE])}: {exc}"
        ) from None
    return target


def _left(deadline: float) -> float:
    """The time left before the deadline (TimeoutError when none is)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError()
    return left


def _send_all(sock: socket.socket, data: bytes, deadline: float) -> None:
    view = memoryview(data)
    while view:
        sock.settimeout(_left(deadline))
        view = view[sock.send(view[:_READ_SIZE]) :]


_SAFE_PATH = "/%:@!$&'()*+,;=-._~"


def _request_head(method: str, parts: SplitResult, data: bytes | None) -> bytes:
    """The request line and headers Go's transport writes (Host, User-Agent, Content-Length,
    Content-Type, Authorization from the URL's credentials); the path escaped as EscapedPath."""
    target = quote(parts.path or "/", safe=_SAFE_PATH)
    if parts.query:
        target += "?" + quote(parts.query, safe=_SAFE_PATH + "?")
    hostport = parts.netloc.rpartition("@")[2]
    lines = [f"{method} {target} HTTP/1.1", f"Host: {hostport}", "User-Agent: Go-http-client/1.1"]
    if data is not None:
        lines += [f"Content-Length: {len(data)}", "Content-Type: application/json"]
    if parts.username is not None:
        lines.append(f"Authorization: Basic {_basic_token(parts.username, parts.password or '')}")
    lines.append("Connection: close")
    if any(ch in line for line in lines for ch in "\r\n\0") or not all(line.isascii() for line in lines):
        raise ValueError("invalid character in the URL's host")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")


class _DeadlineReader(io.RawIOBase):
    """The socket as a raw stream whose every read gets only the time left."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: "bytearray | memoryview") -> int:  # type: ignore[override]
        self._sock.settimeout(_left(self._deadline))
        return self._sock.recv_into(buffer)


class _DeadlineSocket:
    """What http.client.HTTPResponse needs of a socket: makefile, over a _DeadlineReader."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock = sock
        self._deadline = deadline

    def makefile(self, mode: str, *args: object, **kwargs: object) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, self._deadline))


def _read_body(response: "http.client.HTTPResponse", limit: int, url: str) -> Response:
    """The body, up to ``limit`` bytes; what cut it short, if anything, beside it."""
    import http.client

    chunks: list[bytes] = []
    size = 0
    cut: ExtenderError | None = None
    try:
        while size <= limit:
            piece = response.read1(min(_READ_SIZE, limit + 1 - size))  # read1: a cut keeps what came
            if not piece:
                break
            chunks.append(piece)
            size += len(piece)
    except TimeoutError:
        cut = ExtenderError(READING_BODY)
    except http.client.IncompleteRead as exc:
        chunks.append(exc.partial)
        cut = ExtenderError("unexpected EOF")
    except (OSError, http.client.HTTPException) as exc:
        cut = ExtenderError(_read_error(exc))
    else:
        if size > limit:  # no value is looked for in it: the answer is refused whole
            raise ExtenderError(
                f"Post {go_quote(display_url(url))}: the extender's answer is larger than {limit} "
                f"bytes, kschedctl's limit (the larger of {MAX_RESPONSE_BYTES >> 20} MiB and twice "
                "the request)"
            )
        if response.length:  # the server closed before Content-Length bytes came
            cut = ExtenderError("unexpected EOF")
    body = b"".join(chunks)
    return Response(200, body[:limit], cut)


def _read_error(exc: BaseException) -> str:
    if isinstance(exc, ConnectionResetError):
        return "read: connection reset by peer"
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return text[:_SHOWN_LINE]


def _transport_error(exc: Exception, host: str, port: int) -> str:
    """Go's wording of an error before the response's headers are in."""
    import http.client
    import socket
    import ssl as ssl_module

    if isinstance(exc, TimeoutError):
        return AWAITING_HEADERS
    if isinstance(exc, ConnectionRefusedError):
        return f"dial tcp {_address(host, port)}: connect: connection refused"
    if isinstance(exc, socket.gaierror):
        return f"dial tcp: lookup {host}: no such host"
    if isinstance(exc, ssl_module.SSLCertVerificationError):
        why = (
            "x509: certificate signed by unknown authority" if "self" in str(exc) or "issuer" in str(exc) else f"x509: {exc.verify_message}"
        )
        return f"tls: failed to verify certificate: {why}"
    if isinstance(exc, http.client.RemoteDisconnected):
        return "EOF"
    if isinstance(exc, http.client.BadStatusLine):
        line = str(exc.line if hasattr(exc, "line") else exc).rstrip("\r\n")
        return f"net/http: HTTP/1.x transport connection broken: malformed HTTP response {go_quote(line[:_SHOWN_LINE])}"
    if isinstance(exc, http.client.HTTPException):
        return f"net/http: HTTP/1.x transport connection broken: {str(exc)[:_SHOWN_LINE]}"
    if isinstance(exc, (OSError, ValueError, UnicodeError)):
        return (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__)[:_SHOWN_LINE]
    return type(exc).__name__


def _address(host: str, port: int) -> str:
    import socket

    try:
        ip = str(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][4][0])
    except OSError:
        ip = host
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


__all__ = [
    "AWAITING_HEADERS",
    "MAX_RESPONSE_BYTES",
    "READING_BODY",
    "ExtenderError",
    "HTTPClient",
    "Response",
    "display_url",
    "response_limit",
    "url_secrets",
]
