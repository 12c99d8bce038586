"""A live copy of a cluster, kept by list+watch (client-go's Reflector, tools/cache/reflector.go).

`kschedctl watch` needs the cluster as it is now, again and again, without capturing it whole each
time. The kinds that change while one waits for a pod — Pods and Nodes — are each listed once
(paged, as capture lists them) and then watched from the list's resourceVersion; every other kind
capture reads is taken from one capture at the start, and again whenever a watch has to start
over (a relist).

Each watch request is bounded: ``timeoutSeconds`` makes the API server end it (``watch_seconds``,
5 s by default), and the transport's deadline (KSCHEDCTL_REQUEST_TIMEOUT) ends it should the
server not. The next request goes on from the last resourceVersion seen (an event's object, or a
BOOKMARK); an answer of 410 Gone (the HTTP status, or an ERROR event carrying a Status with code
410: "too old resource version") means the server no longer has the history: the kind is listed
again and the differences with what was known become the changes (as the Reflector's Replace).
A request that fails to reach the server, or is answered 429 or 5xx, is retried after a backoff
(0.5 s doubling to 8 s); after MAX_FAILURES failures in a row the watch gives up with the last
error. Other statuses (401, 403, 404) end it at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from kschedctl.cluster.capture import (
    CAPTURED_KINDS,
    Capture,
    KindSpec,
    ListLimits,
    _checked_item,
    _continue_token,
    _page_items,
    as_listed_object,
    capture_cluster,
)
from kschedctl.cluster.kubeclient import DEFAULT_CHUNK_SIZE
from kschedctl.cluster.live_errors import ApiStatusError, LiveClusterError

WATCHED_KINDS = ("Pod", "Node")
DEFAULT_WATCH_SECONDS = 5
MAX_FAILURES = 5
BACKOFF_START, BACKOFF_MAX = 0.5, 8.0
MAX_EVENTS_PER_REQUEST = 100_000


class WatchReader(Protocol):
    """What a watch needs of a connection (kschedctl.cluster.kubeclient.Connection)."""

    def get_json(self, path: str, query: Iterable[tuple[str, str]] = ()) -> dict[str, Any]: ...

    def get_watch_events(self, path: str, query: Iterable[tuple[str, str]] = ()) -> list[dict[str, Any]]: ...


class Gone(LiveClusterError):
    """410: the resourceVersion a watch started from is older than the server's history."""


@dataclass(frozen=True)
class Change:
    """One object added, modified or deleted, as the watch (or a relist) saw it."""

    type: str  # ADDED, MODIFIED, DELETED
    kind: str
    key: str  # namespace/name, or name
    obj: dict[str, Any]


def object_key(obj: dict[str, Any]) -> str:
    md = obj.get("metadata") or {}
    return f"{md['namespace']}/{md['name']}" if md.get("namespace") else str(md.get("name"))


@dataclass
class Reflector:
    """One kind: its objects by key and the resourceVersion to watch from."""

    reader: WatchReader
    spec: KindSpec
    version: str
    chunk_size: int = DEFAULT_CHUNK_SIZE
    watch_seconds: int = DEFAULT_WATCH_SECONDS
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    resource_version: str = ""
    relists: int = 0

    @property
    def path(self) -> str:
        return self.spec.path(self.version)

    def list_all(self) -> list[Change]:
        """List the kind (paged); returns what differs from the objects known before (none the
        first time). The list's resourceVersion is where the watch goes on from."""
        api_version = self.spec.api_version(self.version)
        listed: dict[str, dict[str, Any]] = {}
        token: str | None = None
        limits = ListLimits.from_env()
        rv = ""
        for _ in range(limits.max_pages):
            query = list(self.spec.query)
            if self.chunk_size > 0:
                query.append(("limit", str(self.chunk_size)))
            if token:
                query.append(("continue", token))
            page = self.reader.get_json(self.path, query)
            for i, raw in enumerate(_page_items(page, self.path)):
                obj = as_listed_object(_checked_item(raw, self.path, i, self.spec.kind), self.spec.kind, api_version)
                listed[object_key(obj)] = obj
            if len(listed) > limits.max_objects:
                raise LiveClusterError(f"GET {self.path}: the server listed more than {limits.max_objects} {self.spec.kind} objects")
            rv = str((page.get("metadata") or {}).get("resourceVersion") or rv)
            token = _continue_token(page, self.path)
            if token is None:
                break
        else:
            raise LiveClusterError(f"GET {self.path}: the list did not end after {limits.max_pages} pages")
        first = not self.resource_version and not self.items
        changes = [] if first else self._differences(listed)
        self.items, self.resource_version = listed, rv
        return changes

    def _differences(self, listed: dict[str, dict[str, Any]]) -> list[Change]:
        kind = self.spec.kind
        changes = [Change("DELETED", kind, k, o) for k, o in self.items.items() if k not in listed]
        for k, o in listed.items():
            old = self.items.get(k)
            if old is None:
                changes.append(Change("ADDED", kind, k, o))
            elif _rv(old) != _rv(o):
                changes.append(Change("MODIFIED", kind, k, o))
        return changes

    def watch_once(self) -> list[Change]:
        """One bounded watch request from the current resourceVersion; the changes it brought."""
        query = [
            *self.spec.query,
            ("watch", "1"),
            ("allowWatchBookmarks", "true"),
            ("resourceVersion", self.resource_version),
            ("timeoutSeconds", str(self.watch_seconds)),
        ]
        try:
            events = self.reader.get_watch_events(self.path, query)
        except ApiStatusError as exc:
            if exc.status == 410:
                raise Gone(exc.message, file=exc.file) from None
            raise
        api_version = self.spec.api_version(self.version)
        changes: list[Change] = []
        for event in events[:MAX_EVENTS_PER_REQUEST]:
            kind, obj = event.get("type"), event.get("object")
            if not isinstance(obj, dict):
                raise LiveClusterError(f"GET {self.path} (watch): an event without an object")
            if kind == "ERROR":
                self._raise_error(obj)
            metadata = obj.get("metadata")
            if not isinstance(metadata, dict):
                raise LiveClusterError(f"GET {self.path} (watch): a {kind} event's object has no metadata object")
            rv = metadata.get("resourceVersion")
            if rv is not None and not isinstance(rv, str):
                raise LiveClusterError(f"GET {self.path} (watch): a {kind} event's resourceVersion is not a string")
            if kind == "BOOKMARK":
                self.resource_version = rv or self.resource_version
                continue
            if kind not in ("ADDED", "MODIFIED", "DELETED"):
                continue
            item = as_listed_object(_checked_item(obj, self.path, 0, self.spec.kind), self.spec.kind, api_version)
            key = object_key(item)
            if kind == "DELETED":
                self.items.pop(key, None)
            else:
                self.items[key] = item
            self.resource_version = rv or self.resource_version
            changes.append(Change(str(kind), self.spec.kind, key, item))
        return changes

    def _raise_error(self, status: dict[str, Any]) -> None:
        """An ERROR event: its Status says why the watch ended (410: relist)."""
        code = status.get("code")
        message = status.get("message")
        text = message if isinstance(message, str) else "the watch ended with an error"
        if code == 410:
            raise Gone(f"GET {self.path} (watch): {text}")
        raise ApiStatusError(
            code if isinstance(code, int) and not isinstance(code, bool) else 500, f"GET {self.path} (watch): {text}", detail=text
        )

    def step(self) -> list[Change]:
        """watch_once, or a relist when the server answered 410 Gone."""
        try:
            return self.watch_once()
        except Gone:
            self.relists += 1
            return self.list_all()


def _rv(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion") or "")


@dataclass
class LiveCluster:
    """The cluster kept live: a capture of every kind, Pods and Nodes kept by their reflectors."""

    reader: WatchReader
    context: str
    server: str
    chunk_size: int = DEFAULT_CHUNK_SIZE
    watch_seconds: int = DEFAULT_WATCH_SECONDS
    sleep: Callable[[float], None] = time.sleep
    capture: Capture | None = None
    reflectors: list[Reflector] = field(default_factory=list)
    failures: int = 0

    def start(self) -> None:
        """Capture every kind, then list the watched ones (their lists give the resourceVersions)."""
        self.capture = capture_cluster(self.reader, context=self.context, server=self.server, chunk_size=self.chunk_size)
        served = {r.spec.kind: r for r in self.capture.kinds if r.api_version and r.problem is None}
        self.reflectors = []
        for spec in CAPTURED_KINDS:
            result = served.get(spec.kind)
            if spec.kind in WATCHED_KINDS and result is not None and result.spec == spec:
                version = str(result.api_version).rsplit("/", 1)[-1]
                reflector = Reflector(self.reader, spec, version, self.chunk_size)
                reflector.list_all()
                self.reflectors.append(reflector)
        # the watch requests of one round go one after the other (one connection): they share
        # the round's length, so that a change of any kind shows within it
        for reflector in self.reflectors:
            reflector.watch_seconds = max(1, self.watch_seconds // max(1, len(self.reflectors)))

    @property
    def warnings(self) -> list[str]:
        return list(self.capture.warnings) if self.capture else []

    def items(self) -> list[dict[str, Any]]:
        """The snapshot now: the captured objects of unwatched kinds, then the watched ones."""
        assert self.capture is not None
        watched = {r.spec.kind for r in self.reflectors}
        out = [o for o in self.capture.items if o.get("kind") not in watched]
        for r in self.reflectors:
            out.extend(r.items[k] for k in sorted(r.items))
        return out

    def poll(self) -> list[Change]:
        """One round: a bounded watch request per watched kind (a relist on 410 Gone, which also
        re-captures the unwatched kinds). Network failures are retried with backoff; after
        MAX_FAILURES in a row the last one is raised."""
        changes: list[Change] = []
        for reflector in self.reflectors:
            while True:
                try:
                    relists = reflector.relists
                    changes.extend(reflector.step())
                    if reflector.relists != relists:
                        self._recapture()
                    self.failures = 0
                    break
                except ApiStatusError as exc:
                    if exc.status != 429 and exc.status < 500:  # 401, 403, 404...: asking again will not help
                        raise
                    self._failed()
                except LiveClusterError:
                    self._failed()
        return changes

    def _failed(self) -> None:
        """One more failure in a row: back off, or, at MAX_FAILURES, raise the error being handled."""
        self.failures += 1
        if self.failures >= MAX_FAILURES:
            raise
        self.sleep(min(BACKOFF_MAX, BACKOFF_START * 2 ** (self.failures - 1)))

    def _recapture(self) -> None:
        watched = {r.spec.kind for r in self.reflectors}
        fresh = capture_cluster(self.reader, context=self.context, server=self.server, chunk_size=self.chunk_size)
        assert self.capture is not None
        self.capture.items = [o for o in fresh.items if o.get("kind") not in watched] + [
            o for o in self.capture.items if o.get("kind") in watched
        ]


__all__ = ["Change", "Gone", "LiveCluster", "Reflector", "WATCHED_KINDS", "object_key"]
