"""The hostile-extender dimension: a scheduler extender on 127.0.0.1 whose answers are mutated
or abusive, called by `schedule` through a configuration that names it.

Each input draws one or two extenders (verbs among filter, prioritize, preempt and bind; node
names or Node objects; ignorable or not; sometimes a password in the URL) and, for each verb,
one way to misbehave and the pods it misbehaves for (decided from the pod's name, so a second
run with the same seed hears the same answers): a mutated JSON answer (wrong types, NaN,
Infinity, huge or fractional numbers, deep nesting, unknown nodes, case-changed keys, nulls), a
broken text (truncated, garbage, empty, invalid UTF-8, trailing bytes), a status code,
redirects (a loop, to another verb, to GET, to another scheme, to a closed port), an answer
dripped one byte at a time past the timeout (1 s: far from what a working answer takes, so
that the outcome does not depend on the machine's load), an endless or 10 GiB body, a close mid-body, or
bytes that are not HTTP.

`schedule` must keep the contract whatever the extender does: exit 0 with valid JSON (an
extender's failure fails the pod's attempt or is skipped, never the run), every pending pod
once, the same output twice (not checked when an answer is dripped past the timeout: on a
loaded machine that race may go either way for the answers around it), no "internal error",
no run past the time limit, and the URL's password never printed. Pods may land on nodes the filters refused when a Node-object
extender answers other nodes (kube-scheduler trusts that answer too), so the fit check is
left out for those.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

from kfuzz import seeds
from kfuzz.contract import Checker

SECRET = "kfuzz-Secret-7"
_WAYS = ("ok", "json", "json", "json", "text", "status", "redirect", "slow", "huge", "close", "not-http")
_MOST_BYTES = 20 << 20  # what an endless answer sends at most (the client stops at 16 MiB)


# --- the answers ---------------------------------------------------------------------------------


def _names(request: Any) -> list[str]:
    if not isinstance(request, dict):
        return []
    if isinstance(request.get("NodeNames"), list):
        return [str(n) for n in request["NodeNames"]]
    items = ((request.get("Nodes") or {}).get("items") or []) if isinstance(request.get("Nodes"), dict) else []
    return [str((n.get("metadata") or {}).get("name")) for n in items if isinstance(n, dict)]


def _normal(verb: str, request: Any, rng: random.Random) -> Any:
    """A well-formed answer for the verb (what a working extender would say)."""
    names = _names(request)
    if verb == "filter":
        kept = [n for n in names if rng.random() < 0.7]
        failed = {n: "kfuzz says no" for n in names if n not in kept}
        if isinstance(request, dict) and request.get("NodeNames") is None:
            items = [n for n in (request.get("Nodes") or {}).get("items") or [] if n["metadata"]["name"] in kept]
            return {"Nodes": {"items": items}, "FailedNodes": failed}
        return {"NodeNames": kept, "FailedNodes": failed}
    if verb == "prioritize":
        return [{"Host": n, "Score": rng.randint(0, 10)} for n in names]
    if verb == "preempt":
        meta = (request or {}).get("NodeNameToMetaVictims") or {}
        full = (request or {}).get("NodeNameToVictims") or {}
        out = {n: v for n, v in meta.items() if rng.random() < 0.6}
        out.update(
            {
                n: {
                    "Pods": [{"UID": p["metadata"].get("uid", "")} for p in v.get("Pods") or []],
                    "NumPDBViolations": v.get("NumPDBViolations", 0),
                }
                for n, v in full.items()
                if rng.random() < 0.6
            }
        )
        return {"NodeNameToMetaVictims": out}
    return {"Error": "" if rng.random() < 0.7 else "kfuzz refuses to bind"}


_ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    1.5,
    1e300,
    2**63,
    -(2**63) - 1,
    "",
    "x" * 5000,
    [],
    {},
    [None],
    {"": None},
    "\u202e\x00\x1b[31m",
    10**30,
]


def _mutate(value: Any, rng: random.Random) -> Any:
    """The answer with one value replaced somewhere, or a key's case changed, or an unknown node."""
    paths: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in list(node):
                paths.append((node, key))
                walk(node[key])
        elif isinstance(node, list):
            for i in range(len(node)):
                paths.append((node, i))
                walk(node[i])

    walk(value)
    if not paths or rng.random() < 0.1:
        return rng.choice(_ODD_VALUES)
    parent, key = rng.choice(paths)
    roll = rng.random()
    if roll < 0.15 and isinstance(parent, dict):
        parent[key.swapcase() if isinstance(key, str) else key] = parent.pop(key)
    elif roll < 0.3 and isinstance(parent[key], list):
        parent[key].append(rng.choice(["nowhere", {"Host": "nowhere", "Score": 5}, {"UID": "no-such-uid"}]))
    else:
        parent[key] = rng.choice(_ODD_VALUES)
    return value


def _json_text(value: Any, rng: random.Random) -> bytes:
    text = json.dumps(value)
    roll = rng.random()
    if roll < 0.15:  # NaN / Infinity where a number was
        text = text.replace("0", rng.choice(["NaN", "Infinity", "-Infinity"]), 1)
    elif roll < 0.25:
        depth = rng.choice([100, 511, 513, 5000])
        text = text.replace("[]", "[" * depth + "]" * depth, 1) if "[]" in text else "[" * depth + "]" * depth
    elif roll < 0.3:
        text = text.replace("{", '{"NodeNames": "dup", ', 1)  # a duplicate key, the last one winning
    return text.encode()


def _broken_text(body: bytes, rng: random.Random) -> bytes:
    return rng.choice(
        [
            body[: rng.randrange(len(body) + 1)],
            b"",
            b"   ",
            b"<html>oops</html>",
            body + b" trailing junk",
            b"\xff\xfe" + body,
            b'{"Error": "\xc3\x28"}',
            b"\xef\xbb\xbf" + body,
            body + body,
            b"null",
            b"9" * 5000,
        ]
    )


# --- the server ------------------------------------------------------------------------------------


class _Plan:
    """For each verb: the way it misbehaves, and which pods it misbehaves for."""

    def __init__(self, rng: random.Random, verbs: list[str]) -> None:
        self.salt = rng.randrange(1 << 30)
        self.closed_port = _closed_port()  # one for the input: the same answers on the second run
        self.ways = {v: rng.choice(_WAYS) for v in verbs}
        # a slow answer costs the whole timeout on each attempt: for few pods only
        self.share = {v: 8 if self.ways[v] == "slow" else rng.choice([1, 2, 3]) for v in verbs}

    def rng_for(self, verb: str, request: Any) -> tuple[str, random.Random]:
        pod = ""
        if isinstance(request, dict):
            pod = str(request.get("PodName") or ((request.get("Pod") or {}).get("metadata") or {}).get("name") or "")
        key = f"{self.salt}:{verb}:{pod}"
        way = self.ways.get(verb, "ok") if zlib.crc32(key.encode()) % self.share.get(verb, 1) == 0 else "ok"
        return way, random.Random(key)


def _answer(handler: BaseHTTPRequestHandler, plan: _Plan, verb: str, request: Any, stopped: threading.Event) -> None:
    way, rng = plan.rng_for(verb, request)
    base = verb.split("-")[0]
    body = json.dumps(_normal(base, request, rng)).encode()
    out = handler.wfile

    def head(status: int, *headers: str) -> None:
        out.write(("\r\n".join([f"HTTP/1.1 {status} X", *headers, "", ""])).encode())

    if way == "json":
        body = _json_text(_mutate(json.loads(body), rng), rng)
    elif way == "text":
        body = _broken_text(body, rng)
    if way == "status":
        head(rng.choice([500, 503, 404, 201, 204, 302, 400, 999]), "Content-Length: 0")
    elif way == "redirect":
        target = rng.choice(
            [
                verb,
                f"{base}-2",
                "/elsewhere/" + base,
                "ftp://127.0.0.1/x",
                f"http://127.0.0.1:{plan.closed_port}/x",
                "http://[::1",
                "//127.0.0.1:1/x",
            ]
        )
        head(rng.choice([301, 302, 303, 307, 308]), f"Location: {target}", "Content-Length: 0")
    elif way == "slow":
        before = rng.random() < 0.5
        data = (f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode() if before else b"") + body
        if not before:
            head(200, f"Content-Length: {len(body)}")
        for i in range(min(len(data), 20)):  # 6 s at most, the client gives up after 1 s
            if stopped.wait(0.3):
                return
            out.write(data[i : i + 1])
    elif way == "huge":
        chunked = rng.random() < 0.5
        head(200, "Transfer-Encoding: chunked" if chunked else f"Content-Length: {10 << 30}")
        piece = b"[" + b"1," * 30000
        sent = 0
        while sent < _MOST_BYTES and not stopped.is_set():
            out.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            sent += len(piece)
            piece = b"1," * 30000
    elif way == "close":
        head(200, f"Content-Length: {len(body) + 10}")
        out.write(body[: rng.randrange(len(body) + 1)])
    elif way == "not-http":
        out.write(
            rng.choice(
                [
                    b"",
                    b"SSH-2.0-x\r\n\r\n",
                    b"HTTP/1.1 abc\r\n\r\n",
                    b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70000,
                    b"HTTP/1.1 100 Continue\r\n\r\n" * 50,
                    bytes(rng.randrange(256) for _ in range(64)),
                ]
            )
        )
    else:
        head(200, f"Content-Length: {len(body)}", "Content-Type: application/json")
        out.write(body)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def hostile_server(plan: _Plan, lifetime: float = 60.0, max_requests: int = 2000) -> Iterator[str]:
    """The extender for the input, on 127.0.0.1, bounded in time and requests; yields its URL."""
    stopped = threading.Event()
    count = [0]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self.do_POST()

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            count[0] += 1
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(min(length, 64 << 20))
            try:
                request = json.loads(raw or b"null")
            except ValueError:
                request = None
            verb = self.path.split("?")[0].rsplit("/", 1)[-1]
            try:
                if count[0] > max_requests:
                    self.wfile.write(b"HTTP/1.1 503 X\r\nContent-Length: 0\r\n\r\n")
                else:
                    _answer(self, plan, verb, request, stopped)
            except OSError:
                pass  # the client gave up: the point of most hostile answers

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    timer = threading.Timer(lifetime, lambda: (stopped.set(), httpd.shutdown()))
    timer.daemon = True
    thread.start()
    timer.start()
    try:
        host, port = httpd.server_address[:2]
        yield f"http://{host}:{port}"
    finally:
        timer.cancel()
        stopped.set()
        if thread.is_alive():
            httpd.shutdown()
        httpd.server_close()


# --- the dimension ---------------------------------------------------------------------------------


def _extenders(rng: random.Random, url: str) -> tuple[list[dict[str, Any]], list[str], bool]:
    """One or two extenders on the server; the verbs they use; whether a Node-object filter is among them."""
    out: list[dict[str, Any]] = []
    verbs: list[str] = []
    objects = False
    binder = False
    for i in range(rng.choice([1, 1, 2])):
        prefix = url.replace("http://", f"http://kfuzz:{SECRET}@") if rng.random() < 0.3 else url
        ext: dict[str, Any] = {
            "urlPrefix": f"{prefix}/ext{i}/",
            "httpTimeout": "1s",
            "nodeCacheCapable": rng.random() < 0.6,
            "ignorable": rng.random() < 0.3,
        }
        for verb in rng.sample(["filter", "prioritize", "preempt", "bind"], rng.randint(1, 3)):
            if verb == "bind" and binder:
                continue
            binder = binder or verb == "bind"
            ext[f"{verb}Verb"] = verb
            verbs.append(verb)
        if "prioritizeVerb" in ext:
            ext["weight"] = rng.randint(1, 5)
        objects = objects or ("filterVerb" in ext and not ext["nodeCacheCapable"])
        out.append(ext)
    return out, verbs, objects


def extender_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    snap = workdir / "seed.yaml"
    snap.write_text(yaml.safe_dump(seeds.snapshot(), sort_keys=False))
    cfg = workdir / "extender-config.yaml"
    plan_rng = random.Random(rng.random())
    with_plan: list[_Plan] = []
    with hostile_server(_LazyPlan(with_plan)) as url:
        extenders, verbs, objects = _extenders(rng, url)
        plan = _Plan(plan_rng, verbs + [f"{v}-2" for v in verbs])
        with_plan.append(plan)
        for ext in extenders:  # an error pod is retried tens of times: a dripping extender's calls kept short
            if any(plan.ways.get(ext.get(f"{v}Verb", "")) == "slow" for v in ("filter", "prioritize", "preempt", "bind")):
                ext["httpTimeout"] = "250ms"
        cfg.write_text(
            yaml.safe_dump(
                {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "extenders": extenders},
                sort_keys=False,
            )
        )
        args = ["schedule", str(snap), "--config", str(cfg), "-o", "json", "--seed", "4"]
        run = checker.run(args)
        if checker.basic(run, "schedule", str(snap)):
            shown = [line for line in (run.stdout + run.stderr).splitlines() if SECRET in line]
            if shown:
                checker.fail("secret-shown", f"the extender URL's password was printed: {shown[0][:300]}", run)
            if run.exit_code != 0:
                checker.fail("extender-isolation", "a misbehaving extender failed the run", run)
            else:
                # a dripped answer races the timeout on a loaded machine: no second run to compare then
                slow = "slow" in plan.ways.values()
                rerun = (lambda: run) if slow else (lambda: checker.run(args))
                checker.schedule_invariants(run, str(snap), rerun, check_fit=not objects)
    return "extender " + ", ".join(f"{v}:{w}/{plan.share[v]}" for v, w in plan.ways.items() if "-" not in v)


class _LazyPlan(_Plan):
    """The plan, known once the configuration (and so the verbs) is drawn after the server's URL."""

    def __init__(self, holder: list[_Plan]) -> None:
        self._holder = holder

    @property
    def closed_port(self) -> int:  # type: ignore[override]
        return self._holder[0].closed_port

    def rng_for(self, verb: str, request: Any) -> tuple[str, random.Random]:
        return self._holder[0].rng_for(verb, request)


__all__ = ["SECRET", "extender_dimension", "hostile_server"]
