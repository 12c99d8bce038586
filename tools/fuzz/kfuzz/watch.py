"""The `watch` dimension: list+watch fed hostile answers, and preemption on the virtual clock.

Half the inputs drive kschedctl/cluster/watch.py's LiveCluster through a scripted reader (no
sockets: each input is a few milliseconds): a seed list of Nodes and Pods, then rounds of watch
answers drawn from valid events (ADDED, MODIFIED, DELETED, BOOKMARK), mutated ones (wrong types,
no object, no metadata or name, unknown types, odd resourceVersions), ERROR events with 410 or
other codes, HTTP 410/500/403 statuses and unreachable servers. The contract: start() and poll()
end or raise LiveClusterError (never another exception), a 410 relists (the next watch starts from
the new list's resourceVersion), the copy equals a model of the valid events applied in order,
and a run of failures ends within MAX_FAILURES with backoff sleeps that never exceed 8 s.

The other half runs `schedule` on a small random cluster where preemption happens (victims with
random terminationGracePeriodSeconds), with and without --instant-preemption, under the usual
schedule invariants (every pending pod once, no node over-committed, same seed same output), and
checks that a victim is never also placed nor evicted twice.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from kfuzz.contract import Checker
from kfuzz.mutate import mutate_structure


def watch_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    if rng.random() < 0.5:
        return _reflector_input(rng, checker)
    return _preemption_input(rng, workdir, checker)


# --- list+watch against a scripted reader ----------------------------------------------------


class _Script:
    """Answers discovery, lists and watches from a model cluster and a script of abuses."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rv = 100
        self.objects: dict[str, dict[str, dict[str, Any]]] = {"nodes": {}, "pods": {}}
        for i in range(rng.randint(0, 4)):
            self._put("nodes", {"metadata": {"name": f"n{i}"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
        for i in range(rng.randint(0, 4)):
            self._put("pods", {"metadata": {"name": f"p{i}", "namespace": "default"}, "spec": {"containers": [{"name": "c"}]}})
        self.model: dict[str, dict[str, dict[str, Any]]] = {}  # what the client should hold
        self.next_answer: list[Any] = []
        self.sleeps: list[float] = []
        self.tainted = False  # a mutated answer was served: the copy may hold what it named

    def _put(self, resource: str, obj: dict[str, Any]) -> dict[str, Any]:
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        key = f"{obj['metadata'].get('namespace', '')}/{obj['metadata']['name']}".lstrip("/")
        self.objects[resource][key] = obj
        return obj

    def get_json(self, path: str, query: Iterable[tuple[str, str]] = ()) -> dict[str, Any]:
        from kschedctl.cluster.live_errors import ApiStatusError

        parts = [p for p in path.split("/") if p]
        if parts == ["api"]:
            return {"kind": "APIVersions", "versions": ["v1"]}
        if parts == ["apis"]:
            return {"kind": "APIGroupList", "groups": []}
        if parts == ["api", "v1"]:
            return {
                "kind": "APIResourceList",
                "groupVersion": "v1",
                "resources": [
                    {"name": r, "namespaced": r == "pods", "kind": k, "verbs": ["list", "watch"]}
                    for r, k in (("nodes", "Node"), ("pods", "Pod"))
                ],
            }
        resource = parts[-1]
        if resource not in self.objects:
            raise ApiStatusError(404, f"GET {path}: 404", detail="NotFound")
        return {
            "kind": "List",
            "metadata": {"resourceVersion": str(self.rv)},
            "items": copy.deepcopy(list(self.objects[resource].values())),
        }

    def get_watch_events(self, path: str, query: Iterable[tuple[str, str]] = ()) -> list[dict[str, Any]]:
        resource = path.rsplit("/", 1)[-1]
        since = dict(query).get("resourceVersion")
        if not isinstance(since, str) or not since:  # opaque to clients, but always the server's own
            raise AssertionError(f"watch from resourceVersion {since!r}")
        answer = self.rng.choice(("events", "events", "events", "gone-event", "gone-status", "status", "unreachable", "mutated"))
        return self._answer(answer, resource)

    def _answer(self, answer: str, resource: str) -> list[dict[str, Any]]:
        from kschedctl.cluster.live_errors import ApiStatusError, LiveClusterError

        if answer == "gone-event":
            return [{"type": "ERROR", "object": {"kind": "Status", "code": 410, "message": "too old resource version"}}]
        if answer == "gone-status":
            raise ApiStatusError(410, "GET (watch): 410 Gone", detail="Expired")
        if answer == "status":
            raise ApiStatusError(self.rng.choice((403, 500, 429)), "GET (watch): error", detail="error")
        if answer == "unreachable":
            raise LiveClusterError("cannot reach the API server: connection refused")
        events = []
        for _ in range(self.rng.randint(0, 4)):
            kind = self.rng.choice(("ADDED", "MODIFIED", "DELETED", "BOOKMARK"))
            name = f"{'n' if resource == 'nodes' else 'p'}{self.rng.randint(0, 6)}"
            md: dict[str, Any] = {"name": name} if resource == "nodes" else {"name": name, "namespace": "default"}
            key = name if resource == "nodes" else f"default/{name}"
            if kind == "DELETED":
                obj = self.objects[resource].pop(key, None) or {"metadata": md}
                self.rv += 1
                obj = {**obj, "metadata": {**obj["metadata"], "resourceVersion": str(self.rv)}}
            elif kind == "BOOKMARK":
                obj = {"metadata": {"resourceVersion": str(self.rv)}}
            else:
                obj = self._put(resource, {"metadata": md, "spec": {}})
            events.append({"type": kind, "object": copy.deepcopy(obj)})  # the server's own stays intact
        if answer == "mutated" and events:
            self.tainted = True
            mutate_structure(events, self.rng)  # in place
            if not all(isinstance(e, dict) for e in events):  # what Connection.get_watch_events refuses
                raise LiveClusterError("GET (watch): an event is not a JSON object")
        return events


def _reflector_input(rng: random.Random, checker: Checker) -> str:
    from kschedctl.cluster.live_errors import LiveClusterError
    from kschedctl.cluster.watch import BACKOFF_MAX, MAX_FAILURES, LiveCluster

    script = _Script(rng)
    live = LiveCluster(script, "fuzz", "https://127.0.0.1:1", sleep=script.sleeps.append)  # type: ignore[arg-type]
    rounds = rng.randint(1, 8)
    try:
        live.start()
        for _ in range(rounds):
            live.poll()
            _check_copy(live, script, checker)
    except LiveClusterError:
        pass
    except Exception as exc:  # noqa: BLE001 - the break itself
        checker.fail("watch-raises", f"{type(exc).__name__}: {exc}")
    if any(s > BACKOFF_MAX for s in script.sleeps):
        checker.fail("watch-backoff", f"a backoff of more than {BACKOFF_MAX} s: {script.sleeps}")
    if live.failures > MAX_FAILURES:
        checker.fail("watch-bounded", f"{live.failures} failures in a row without giving up")
    return f"watch: {rounds} round(s) of scripted answers"


def _check_copy(live: Any, script: _Script, checker: Checker) -> None:
    """After a round the copy holds exactly the server's objects, every event seen having been
    valid or a relist having read them again (not checked once a mutated answer was served: the
    copy may then hold the objects it named)."""
    for reflector in live.reflectors:
        resource = reflector.spec.resource
        if not script.tainted and set(reflector.items) != set(script.objects[resource]):
            checker.fail("watch-copy", f"{resource}: holds {sorted(reflector.items)}, the server {sorted(script.objects[resource])}")
        if not isinstance(reflector.resource_version, str) or not reflector.resource_version:
            checker.fail("watch-rv", f"{resource}: resourceVersion {reflector.resource_version!r} after a round")


# --- preemption on the virtual clock -----------------------------------------------------------


def _preemption_input(rng: random.Random, workdir: Path, checker: Checker) -> str:
    items: list[dict[str, Any]] = []
    nodes = rng.randint(1, 4)
    for i in range(nodes):
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"n{i}"},
                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
            }
        )
        spec: dict[str, Any] = {
            "nodeName": f"n{i}",
            "priority": 0,
            "containers": [{"name": "c", "resources": {"requests": {"cpu": str(rng.randint(2, 4))}}}],
        }
        grace = rng.choice((None, 0, 1, 30, 600, -5))
        if grace is not None:
            spec["terminationGracePeriodSeconds"] = grace
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"low-{i}", "namespace": "default"},
                "spec": spec,
                "status": {"phase": "Running"},
            }
        )
    for j in range(rng.randint(1, 6)):
        priority = rng.choice((0, 100, 1000))
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"p-{j}", "namespace": "default"},
                "spec": {"priority": priority, "containers": [{"name": "c", "resources": {"requests": {"cpu": str(rng.randint(1, 3))}}}]},
            }
        )
    path = workdir / "preemption.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sort_keys=False))
    extra = ["--instant-preemption"] if rng.random() < 0.3 else []
    args = ["schedule", str(path), "-o", "json", "--seed", str(rng.randint(0, 9)), *extra]
    run = checker.run(args)
    if checker.basic(run, "schedule", str(path)) and run.exit_code == 0:
        checker.schedule_invariants(run, str(path), lambda: checker.run(args))
        import json

        data = json.loads(run.stdout)
        victims = {v for p in data["preemptions"] for v in p["victims"]}
        placed = {p["pod"] for p in data["placements"]}
        if victims & placed:
            checker.fail("victim-placed", f"preemption victims also placed: {sorted(victims & placed)}", run)
        listed = [v for p in data["preemptions"] for v in p["victims"]]
        if len(listed) != len(set(listed)):
            checker.fail("victim-twice", f"a victim evicted twice: {listed}", run)
    return f"preemption: {nodes} node(s), {' '.join(extra) or 'victims in time'}"
