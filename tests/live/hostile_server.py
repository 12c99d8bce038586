"""A hostile or broken API server for the live path's tests (and the `live` fuzz dimension).

It listens on 127.0.0.1 only, answers each GET with a behaviour (a function of the request),
records every request with its headers, and stops by itself: after ``lifetime`` seconds, and
every slow or endless answer gives up after a bounded number of bytes or seconds, or as soon as
the client hangs up. Normal answers come from a FakeApiServer's logic, so a behaviour only has
to say where it misbehaves.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from fake_apiserver import FakeApiServer, make_self_signed_cert

Behaviour = Callable[["Request"], bool]  # True: answered; False: let the fake cluster answer


class Request:
    """One GET as the behaviour sees it, with ways to answer (normally or not)."""

    def __init__(self, handler: BaseHTTPRequestHandler, server: "HostileServer") -> None:
        split = urlsplit(handler.path)
        self.handler, self.server = handler, server
        self.raw_path = handler.path  # as sent: an absolute URL when asked through a proxy
        self.path, self.query = split.path, dict(parse_qsl(split.query))
        self.headers = {k.lower(): v for k, v in handler.headers.items()}
        peer = handler.connection.getpeercert() if hasattr(handler.connection, "getpeercert") else None
        self.client_cn = next((v for rdn in (peer or {}).get("subject", ()) for k, v in rdn if k == "commonName"), "")

    def normal(self) -> tuple[int, dict[str, Any]]:
        """The fake cluster's answer; a verified client certificate counts as the right token."""
        auth = f"Bearer {self.server.api.token}" if self.client_cn else self.headers.get("authorization")
        return self.server.api.answer(self.path, self.query, auth)

    def send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> bool:
        h = self.handler
        h.send_response(status)
        for name, value in (headers or {"Content-Type": "application/json", "Content-Length": str(len(body))}).items():
            h.send_header(name, value)
        h.end_headers()
        h.wfile.write(body)
        return True

    def send_text(self, text: str, status: int = 200) -> bool:
        return self.send(status, text.encode())

    def send_json(self, doc: Any, status: int = 200) -> bool:
        return self.send_text(json.dumps(doc), status)

    def trickle(self, body: bytes, per_second: float = 1.0, max_seconds: float = 8.0) -> bool:
        """Headers at once, then the body a byte at a time (until the client leaves or time is up)."""
        h = self.handler
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        end = time.monotonic() + max_seconds
        for byte in body:
            if time.monotonic() > end or self.server.stopped.is_set():
                break
            try:
                h.wfile.write(bytes([byte]))
                h.wfile.flush()
            except OSError:
                break
            time.sleep(1.0 / per_second)
        h.close_connection = True
        return True

    def endless_chunked(self, max_bytes: int = 64 * 1024 * 1024) -> bool:
        """A chunked body that never ends (until max_bytes, the client leaving, or shutdown)."""
        h = self.handler
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        chunk = b'{"items": [' + b" " * 65000
        sent = 0
        while sent < max_bytes and not self.server.stopped.is_set():
            try:
                h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:
                break
            sent += len(chunk)
        h.close_connection = True
        return True


class HostileServer:
    def __init__(
        self,
        behave: Behaviour,
        *,
        api: FakeApiServer | None = None,
        tls_dir: Path | None = None,
        client_ca: bytes | None = None,
        lifetime: float = 30.0,
    ) -> None:
        from conftest import demo_objects

        self.behave = behave
        self.api = api or FakeApiServer(demo_objects())
        self.tls_dir = tls_dir
        self.client_ca = client_ca  # PEM: then a client certificate it signed is required
        self.ca_pem: bytes | None = None
        self.lifetime = lifetime
        self.requests: list[Request] = []
        self.stopped = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._timer: threading.Timer | None = None
        self._url = ""

    @property
    def url(self) -> str:
        assert self._url, "not started"
        return self._url

    def start(self) -> "HostileServer":
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = True
        if self.tls_dir is not None:
            cert, key = make_self_signed_cert(self.tls_dir)
            self.ca_pem = cert.read_bytes()
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(cert, key)
            if self.client_ca:
                ctx.verify_mode = ssl.CERT_REQUIRED
                ctx.load_verify_locations(cadata=self.client_ca.decode())
            server.socket = ctx.wrap_socket(server.socket, server_side=True)
        self._server = server
        self._url = f"{'https' if self.tls_dir else 'http'}://127.0.0.1:{server.server_address[1]}"
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self._timer = threading.Timer(self.lifetime, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        if self._timer is not None:
            self._timer.cancel()
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()

    def __enter__(self) -> "HostileServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def auth_headers(self) -> list[str]:
        return [r.headers.get("authorization", "") for r in self.requests]


def _handler_for(hostile: HostileServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            request = Request(self, hostile)
            hostile.requests.append(request)
            try:
                if not hostile.behave(request):
                    status, body = request.normal()
                    request.send_json(body, status)
            except OSError:
                self.close_connection = True

        def log_message(self, *args: Any) -> None:
            pass

        def log_error(self, *args: Any) -> None:
            pass

    return Handler
