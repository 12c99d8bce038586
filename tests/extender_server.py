"""A scheduler extender the tests start on 127.0.0.1: each verb answers with a Python function of
the request's JSON (or a raw (status, body) pair, or a ``Raw`` writer that speaks to the socket
itself, for hostile answers), and every request is recorded.

The server is bounded: it answers at most ``max_requests`` requests (then 503), stops by itself
after ``lifetime`` seconds, and every slow or endless answer (``delay``, drip, endless bodies)
ends when the server stops, when the client goes away, or after a bounded number of bytes.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[dict[str, Any]], Any]


@dataclass
class Raw:
    """An answer written by ``write(handler, stopped)`` on the connection (status line included)."""

    write: Callable[[BaseHTTPRequestHandler, threading.Event], None]


class ExtenderServer:
    """``answers[verb](request) -> JSON-able value | (status, bytes) | Raw``; ``requests`` lists
    (verb, request JSON) in arrival order; ``delay`` (seconds) stalls every answer;
    ``headers`` lists each request's headers."""

    def __init__(self, lifetime: float = 30.0, max_requests: int = 500, **answers: Answer) -> None:
        self.answers: dict[str, Answer] = dict(answers)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.headers: list[dict[str, str]] = []
        self.delay = 0.0
        self.lifetime = lifetime
        self.max_requests = max_requests
        self.stopped = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name (a 301/302/303 redirect turns POST into GET)
                self.do_POST()

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                verb = self.path.split("?", 1)[0].rsplit("/", 1)[-1]
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    request = json.loads(body or b"null")
                except ValueError:
                    request = None
                server.requests.append((verb, request))
                server.headers.append(dict(self.headers.items()))
                if server.delay:
                    server.stopped.wait(server.delay)
                answer = server.answers.get(verb)
                if len(server.requests) > server.max_requests:
                    status, payload = 503, b"too many requests for a test server"
                elif answer is None:
                    status, payload = 404, b"no such verb"
                else:
                    got = answer(request)
                    if isinstance(got, Raw):
                        try:
                            got.write(self, server.stopped)
                        except OSError:
                            pass  # the client went away: what the hostile answer hoped for
                        return
                    if isinstance(got, tuple):
                        status, payload = got
                    else:
                        status, payload = 200, json.dumps(got).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:  # quiet
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.scheme = "http"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._timer = threading.Timer(lifetime, self._stop)
        self._timer.daemon = True

    def use_tls(self, cert: str, key: str, client_ca: str | None = None) -> None:
        """Speak TLS with this certificate; with ``client_ca``, require a client certificate."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        if client_ca:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(client_ca)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.scheme = "https"

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"{self.scheme}://{host}:{port}/scheduler"

    def verbs(self) -> list[str]:
        return [verb for verb, _ in self.requests]

    def _stop(self) -> None:
        self.stopped.set()
        self.httpd.shutdown()

    def __enter__(self) -> "ExtenderServer":
        self.thread.start()
        self._timer.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._timer.cancel()
        self.stopped.set()
        if self.thread.is_alive():
            self.httpd.shutdown()
        self.httpd.server_close()


# --- hostile answers -------------------------------------------------------------------------------


def _head(handler: BaseHTTPRequestHandler, status: int, **headers: str) -> None:
    handler.wfile.write(f"HTTP/1.1 {status} X\r\n".encode())
    for name, value in headers.items():
        handler.wfile.write(f"{name.replace('_', '-')}: {value}\r\n".encode())
    handler.wfile.write(b"\r\n")
    handler.wfile.flush()


def drip(payload: bytes, every: float = 0.2, before_headers: bool = False) -> Raw:
    """The answer one byte at a time, ``every`` seconds apart (the headers too, if asked)."""

    def write(handler: BaseHTTPRequestHandler, stopped: threading.Event) -> None:
        head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(payload)}\r\n\r\n".encode()
        if not before_headers:
            handler.wfile.write(head)
            head = b""
        for i in range(len(head + payload)):
            if stopped.wait(every):
                return
            handler.wfile.write((head + payload)[i : i + 1])
            handler.wfile.flush()

    return Raw(write)


def endless(chunked: bool, piece: bytes = b"1," * 30000, most: int = 256 << 20) -> Raw:
    """A body that never ends (an array that never closes): chunked, or with a 10 GiB
    Content-Length; ``most`` bytes at most."""

    def write(handler: BaseHTTPRequestHandler, stopped: threading.Event) -> None:
        if chunked:
            _head(handler, 200, Transfer_Encoding="chunked")
        else:
            _head(handler, 200, Content_Length=str(10 << 30))
        handler.wfile.write(b"1\r\n[\r\n" if chunked else b"[")
        sent = 0
        while sent < most and not stopped.is_set():
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            sent += len(piece)

    return Raw(write)


def close_mid_body(payload: bytes, keep: int, chunked: bool = False) -> Raw:
    """Announce the whole payload, send ``keep`` bytes of it, close the connection."""

    def write(handler: BaseHTTPRequestHandler, stopped: threading.Event) -> None:
        if chunked:
            _head(handler, 200, Transfer_Encoding="chunked")
            handler.wfile.write(b"%x\r\n%s" % (len(payload), payload[:keep]))
        else:
            _head(handler, 200, Content_Length=str(len(payload)))
            handler.wfile.write(payload[:keep])
        handler.wfile.flush()
        handler.connection.shutdown(socket.SHUT_RDWR)

    return Raw(write)


def redirect(status: int, location: str) -> Raw:
    def write(handler: BaseHTTPRequestHandler, stopped: threading.Event) -> None:
        _head(handler, status, Location=location, Content_Length="0")

    return Raw(write)


def raw_bytes(data: bytes) -> Raw:
    """Exactly these bytes on the connection, then close."""

    def write(handler: BaseHTTPRequestHandler, stopped: threading.Event) -> None:
        handler.wfile.write(data)
        handler.wfile.flush()

    return Raw(write)


def node_names(request: dict[str, Any]) -> list[str]:
    """The candidate nodes of an ExtenderArgs, by name (NodeNames, or the NodeList's items)."""
    if request.get("NodeNames") is not None:
        return list(request["NodeNames"])
    return [n["metadata"]["name"] for n in (request.get("Nodes") or {}).get("items") or []]


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
