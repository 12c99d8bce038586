"""A scheduler extender the tests start on 127.0.0.1: each verb answers with a Python function of
the request's JSON (or a raw (status, body) pair), and every request is recorded."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[dict[str, Any]], Any]


class ExtenderServer:
    """``answers[verb](request) -> JSON-able value | (status, bytes)``; ``requests`` lists
    (verb, request JSON) in arrival order; ``delay`` (seconds) stalls every answer."""

    def __init__(self, **answers: Answer) -> None:
        self.answers: dict[str, Answer] = dict(answers)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.delay = 0.0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                verb = self.path.rsplit("/", 1)[-1]
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = json.loads(body or b"null")
                server.requests.append((verb, request))
                if server.delay:
                    time.sleep(server.delay)
                answer = server.answers.get(verb)
                if answer is None:
                    status, payload = 404, b"no such verb"
                else:
                    got = answer(request)
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
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/scheduler"

    def verbs(self) -> list[str]:
        return [verb for verb, _ in self.requests]

    def __enter__(self) -> "ExtenderServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def node_names(request: dict[str, Any]) -> list[str]:
    """The candidate nodes of an ExtenderArgs, by name (NodeNames, or the NodeList's items)."""
    if request.get("NodeNames") is not None:
        return list(request["NodeNames"])
    return [n["metadata"]["name"] for n in (request.get("Nodes") or {}).get("items") or []]


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
