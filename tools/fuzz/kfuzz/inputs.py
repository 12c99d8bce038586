"""The `inputs` dimension: input read wrongly (issue 21). Three families, each with an oracle
written from the upstream source, not from kschedctl's code:

- timestamps: a metav1.Time field of a pod (creationTimestamp, deletionTimestamp, startTime, a
  condition's lastTransitionTime) set to a text whose verdict under Go's time.Parse(RFC3339) is
  known (offsets, fractions, comma, one-digit hour, ranges, lowercase t/z, five-digit years...),
  quoted or not. A refused text must be one error naming that field; an accepted one must
  schedule. Two pods whose order depends on an offset must be queued by instant.
- YAML 1.1 forms (sexagesimal, y/n, 0o17, 09, +.5, 1e3, 1_000, .inf, dates, "=", "<<") written
  unquoted in any scalar position of the seed snapshot, keys included: the contract holds, and
  where the position is an annotation value, the verdict is the one go-yaml's resolve.go gives
  (a string is accepted, anything else refused).
- nested Lists: the seed's items regrouped into Lists inside Lists (List, or PodList/NodeList
  whose items lose kind and apiVersion), up to 18 levels: up to 16 the run reports exactly the
  pending pods of the flat seed; deeper, one error.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import yaml

from kfuzz import seeds
from kfuzz.contract import Checker
from kfuzz.mutate import field_paths, format_path, get

# (text, accepted by time.Parse(time.RFC3339, text)); from Go's time/format.go parse().
TIMESTAMPS: list[tuple[str, bool]] = [
    ("2024-01-01T10:00:00Z", True),
    ("2024-01-01T10:00:00+05:00", True),
    ("2024-01-01T10:00:00-11:30", True),
    ("2024-01-01T10:00:00.5Z", True),
    ("2024-01-01T10:00:00,25+01:00", True),
    ("2024-01-01T1:00:00Z", True),
    ("2024-02-29T23:59:59Z", True),
    ("0000-01-01T00:00:00+05:00", True),
    ("9999-12-31T23:59:59-05:00", True),
    ("2024-01-01T10:00:00+24:00", True),
    ("2024-01-01T10:00:00.1234567891234Z", True),
    ("2024-13-01T00:00:00Z", False),
    ("2024-00-01T00:00:00Z", False),
    ("2023-02-29T00:00:00Z", False),
    ("2024-04-31T00:00:00Z", False),
    ("10000-01-01T00:00:00Z", False),
    ("2024-01-01T24:00:00Z", False),
    ("2024-01-01T10:60:00Z", False),
    ("2024-01-01T10:00:60Z", False),
    ("2024-01-01t10:00:00Z", False),
    ("2024-01-01T10:00:00z", False),
    ("2024-01-01T10:00:00", False),
    ("2024-01-01 10:00:00Z", False),
    ("2024-01-01T10:00:00+0500", False),
    ("2024-01-01T10:00:00+25:00", False),
    ("24-01-01T10:00:00Z", False),
    ("2024-1-01T10:00:00Z", False),
    ("+2024-01-01T10:00:00Z", False),
    ("", False),
    ("now", False),
]
# Unquoted, go-yaml resolves these texts to another type or text (verdict as an annotation value:
# True = still a string, so accepted; False = a number/bool, refused). resolve.go by hand.
YAML_FORMS: list[tuple[str, bool]] = [
    ("1:30", True),
    ("12:30", True),
    ("190:20:30.15", True),
    ("-1:30", True),
    ("y", False),
    ("n", False),
    ("Y", False),
    ("N", False),
    ("yes", False),
    ("No", False),
    ("on", False),
    ("OFF", False),
    ("0o17", False),
    ("017", False),
    ("0b101", False),
    ("0x1F", False),
    ("09", False),
    ("+.5", False),
    ("1e3", False),
    ("1_000", False),
    ("1e400", True),
    ("=", True),
    ("2001-12-14", True),
    ("2001-12-14 21:59:43.10", True),
    ("2001-13-14", True),
    ("_1", True),
    ("0x", True),
    ("1__0", False),
    ("-0b11", False),
    (".5", False),
]
# Unquoted, go-yaml's parseTimestamp reads these with its own layouts first and YAMLToJSON writes
# the time back: one-digit month and lowercase "t" become valid RFC 3339, a 24-hour offset fails
# in Time.MarshalJSON.
UNQUOTED_VERDICT = {"2024-01-01t10:00:00Z": True, "2024-1-01T10:00:00Z": True, "2024-01-01T10:00:00+24:00": False}
NONFINITE = [".inf", "-.Inf", ".NaN"]  # refused by json.Marshal
PLACEHOLDER = "kfuzz-raw-{}"
TIME_FIELDS = ("metadata.creationTimestamp", "metadata.deletionTimestamp", "status.startTime", "status.conditions[0].lastTransitionTime")


def _raw_yaml(doc: Any, raws: dict[str, str]) -> str:
    """The document as YAML with each placeholder string replaced by its raw (unquoted) text."""
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=4096)
    for key, raw in raws.items():
        text = text.replace(key, raw)
    return text


def _pods(doc: dict) -> list[dict]:
    return [item for item in doc["items"] if item.get("kind") == "Pod"]


def timestamps(rng: random.Random, workdir: Path, checker: Checker) -> str:
    doc = seeds.snapshot()
    pending = [p for p in _pods(doc) if not p["spec"].get("nodeName") and p["status"].get("phase") != "Succeeded"]
    pod = rng.choice(pending)
    value, accepted = rng.choice(TIMESTAMPS)
    where = rng.choice(TIME_FIELDS)
    quoted = rng.random() < 0.7 or not value
    raws: dict[str, str] = {}
    shown: Any = value
    if not quoted:  # go-yaml parses an unquoted timestamp itself: only the RFC 3339 texts stay exact
        shown = PLACEHOLDER.format(0)
        raws[shown] = value
    if where == "metadata.creationTimestamp":
        pod["metadata"]["creationTimestamp"] = shown
    elif where == "metadata.deletionTimestamp":
        pod["metadata"]["deletionTimestamp"] = shown
    elif where == "status.startTime":
        pod["status"]["startTime"] = shown
    else:
        pod["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "lastTransitionTime": shown}]
    path = str(workdir / "snapshot.yaml")
    Path(path).write_text(_raw_yaml(doc, raws))
    run = checker.run(["schedule", path, "-o", "json", "--seed", "1"])
    label = f"timestamps {where}={value!r} quoted={quoted}"
    if not checker.basic(run, "schedule", path):
        return label
    if not quoted:
        accepted = UNQUOTED_VERDICT.get(value, accepted)
    if accepted and run.exit_code != 0:
        checker.fail("timestamp-accepted", f"{value!r} is accepted by time.Parse but refused", run)
    if not accepted and run.exit_code != 2:
        checker.fail("timestamp-refused", f"{value!r} is refused by time.Parse but accepted", run)
    if not accepted and run.exit_code == 2 and quoted and where not in run.stderr:
        checker.fail("timestamp-field", f"the error does not name {where}", run)
    if run.exit_code == 0:
        checker.schedule_invariants(run, path, lambda: checker.run(run.args))
    return label


def queue_order(rng: random.Random, workdir: Path, checker: Checker) -> str:
    """Two pods on a one-CPU node, created at instants written with random offsets: the one
    created first (as an instant) is placed."""
    base = 1_700_000_000 + rng.randrange(10**6)
    offsets = [rng.choice([-12, -5, -1, 0, 1, 5, 9, 14]) * 3600 + rng.choice([0, 1800]) for _ in range(2)]
    instants = [base, base + rng.choice([-1, 1]) * rng.randrange(60, 7200)]

    def text(seconds: int, offset: int) -> str:
        from datetime import UTC, datetime, timedelta, timezone

        local = datetime.fromtimestamp(seconds, UTC).astimezone(timezone(timedelta(seconds=offset)))
        return local.isoformat().replace("+00:00", "Z")

    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}},
    }
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "default", "creationTimestamp": text(instants[i], offsets[i])},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]},
        }
        for i in range(2)
    ]
    if rng.random() < 0.5:
        pods.reverse()
    path = str(workdir / "queue.yaml")
    Path(path).write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [node, *pods]}))
    run = checker.run(["schedule", path, "-o", "json"])
    first = "default/p0" if instants[0] < instants[1] else "default/p1"
    if checker.basic(run, "schedule", path) and run.exit_code == 0:
        placed = [p["pod"] for p in json.loads(run.stdout)["placements"]]
        if placed != [first]:
            checker.fail("queue-order", f"placed {placed}, the earlier instant is {first}", run)
    return f"queue-order {[p['metadata']['creationTimestamp'] for p in pods]}"


def yaml_forms(rng: random.Random, workdir: Path, checker: Checker) -> str:
    doc = seeds.snapshot()
    forms = YAML_FORMS + [(v, False) for v in NONFINITE]
    raws: dict[str, str] = {}
    described = []
    annotated = rng.random() < 0.4
    verdict = True
    if annotated:  # an annotation value: the verdict is known
        value, ok = rng.choice(forms)
        pod = rng.choice(_pods(doc))
        key = PLACEHOLDER.format(len(raws))
        raws[key] = value
        pod["metadata"].setdefault("annotations", {})["kfuzz"] = key
        described.append(f"annotation={value!r}")
        verdict = ok
    for _ in range(rng.choice([0, 1, 1, 2, 3]) if annotated else rng.choice([1, 1, 2, 3])):
        paths = [p for p in field_paths(doc) if not isinstance(get(doc, p), (dict, list))]
        path = rng.choice(paths)
        value = rng.choice(forms)[0]
        key = PLACEHOLDER.format(len(raws))
        raws[key] = value
        if rng.random() < 0.2 and isinstance(path[-1], str):  # a key instead of a value
            parent = get(doc, path[:-1])
            parent[key] = parent.pop(path[-1])
            described.append(f"key {format_path(path)}={value!r}")
        else:
            parent = get(doc, path[:-1])
            parent[path[-1]] = key
            described.append(f"{format_path(path)}={value!r}")
    path = str(workdir / "snapshot.yaml")
    Path(path).write_text(_raw_yaml(doc, raws))
    run = checker.run(["schedule", path, "-o", "json", "--seed", "2"])
    if checker.basic(run, "schedule", path):
        if annotated and len(described) == 1:
            if verdict and run.exit_code != 0:
                checker.fail("yaml-form", f"{described[0]} is a string for go-yaml but was refused", run)
            if not verdict and run.exit_code != 2:
                checker.fail("yaml-form", f"{described[0]} is not a string for go-yaml but was accepted", run)
        if run.exit_code == 0:
            checker.schedule_invariants(run, path, lambda: checker.run(run.args))
            out = str(workdir / "written.yaml")
            written = checker.run(["schedule", path, "--seed", "2", "--write-snapshot", out])
            if checker.basic(written, "schedule", path) and written.exit_code == 0:
                again = checker.run(["schedule", out, "-o", "json", "--seed", "2"])
                if checker.basic(again, "schedule", out) and again.exit_code != 0:
                    checker.fail("write-snapshot", "the written snapshot is not accepted", again)
    return "yaml-forms " + ", ".join(described)


def nested_lists(rng: random.Random, workdir: Path, checker: Checker) -> str:
    flat = seeds.snapshot()
    items = flat["items"]
    depth_wanted = rng.choice([2, 3, 4, 8, 16, 17, 18])
    groups: list[Any] = []
    rest = list(json.loads(json.dumps(items)))
    rng.shuffle(rest)
    while rest:
        n = rng.randint(1, 6)
        take, rest = rest[:n], rest[n:]
        kinds = {t["kind"] for t in take}
        if len(kinds) == 1 and rng.random() < 0.5 and kinds <= {"Pod", "Node"}:
            kind = next(iter(kinds))
            for t in take:
                t.pop("kind")
                t.pop("apiVersion")
            groups.append({"apiVersion": "v1", "kind": f"{kind}List", "items": take})
        else:
            groups.append({"apiVersion": "v1", "kind": "List", "items": take} if rng.random() < 0.7 else take)
    flattened: list[Any] = []
    for group in groups:
        flattened.extend(group if isinstance(group, list) else [group])
    deepest = max(range(len(flattened)), key=lambda i: rng.random())
    holder = flattened[deepest]
    for _ in range(depth_wanted - 2):
        holder = {"apiVersion": "v1", "kind": "List", "items": [holder]}
    flattened[deepest] = holder
    doc = {"apiVersion": "v1", "kind": "List", "items": flattened}
    fmt = rng.choice(["yaml", "json"])
    path = str(workdir / f"nested.{fmt}")
    Path(path).write_text(json.dumps(doc) if fmt == "json" else yaml.safe_dump(doc, sort_keys=False))
    run = checker.run(["schedule", path, "-o", "json", "--seed", "4"])
    levels = _depth(doc)
    if checker.basic(run, "schedule", path):
        if levels > 16 and run.exit_code != 2:
            checker.fail("nested-depth", f"Lists {levels} levels deep were accepted", run)
        if levels <= 16:
            if run.exit_code != 0:
                checker.fail("nested-flatten", f"Lists {levels} levels deep were refused", run)
            else:
                flat_path = str(workdir / "flat.yaml")
                Path(flat_path).write_text(yaml.safe_dump(flat, sort_keys=False))
                flat_run = checker.run(["schedule", flat_path, "-o", "json", "--seed", "4"])
                if flat_run.exit_code == 0:
                    keys = _reported(run.stdout)
                    if keys != _reported(flat_run.stdout):
                        checker.fail("nested-flatten", "the nested Lists report other pods than the flat List", run)
                checker.schedule_invariants(run, path, lambda: checker.run(run.args))
    return f"nested-lists depth={levels} {fmt}"


def _depth(doc: Any) -> int:
    if isinstance(doc, dict) and isinstance(doc.get("items"), list) and str(doc.get("kind", "")).endswith("List"):
        return 1 + max((_depth(i) for i in doc["items"]), default=0)
    if isinstance(doc, list):
        return max((_depth(i) for i in doc), default=0)
    return 0


def _reported(stdout: str) -> list[str]:
    data = json.loads(stdout)
    return sorted([p["pod"] for p in data["placements"]] + [u["pod"] for u in data["unschedulable"]] + [s["pod"] for s in data["skipped"]])


def inputs_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    """One input of the `inputs` dimension (issue 21): timestamps, queue order, YAML forms or
    nested Lists."""
    family = rng.choices([timestamps, queue_order, yaml_forms, nested_lists], [0.35, 0.15, 0.3, 0.2])[0]
    return family(rng, workdir, checker)


__all__ = ["inputs_dimension"]
