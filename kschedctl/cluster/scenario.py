"""The scenario format of `kschedctl simulate`: a snapshot plus a timeline of cluster events.

A scenario (schema: schemas/scenario-v1.json) names the initial cluster (snapshot files and/or
inline objects) and events at simulated times. This module reads and validates it; running it is
kschedctl.scheduler.simulate's job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kschedctl.api.admission import admit
from kschedctl.api.decoding import DecodeError, load_yaml
from kschedctl.api.errors import InputError, ObjectError
from kschedctl.api.inputs import STDIN
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.objects import dra_types
from kschedctl.api.resource_admission import DRA_KINDS, served_as_v1, validate_dra_object
from kschedctl.cluster.loader import (
    ClusterSnapshot,
    add_object,
    load_snapshot,
    locate_line,
    read_text,
    resolve_priorities,
)
from kschedctl.cluster.sources import Source, remember_text
from kschedctl.config.schema import dotted_path, iter_schema_errors, load_schema

SCENARIO_SCHEMA = "scenario-v1.json"
# The kinds an event's object may be, per action (default: a Pod).
_EVENT_KINDS: dict[str, tuple[str, ...]] = {
    "addNode": ("Node",),
    "createPod": ("Pod",),
    "addResourceSlice": ("ResourceSlice",),
    "addObject": DRA_KINDS,
}
_DURATION_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


# time.Duration is int64 nanoseconds: the latest time a scenario event can name.
MAX_EVENT_SECONDS = (2**63 - 1) / 1e9


def parse_duration(value: Any) -> float:
    """Seconds from a number or a Go duration string ("90s", "1m30s", "500ms")."""
    if isinstance(value, (int, float)):
        return float(value)
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in _DURATION_PART.findall(str(value)))


@dataclass
class ScenarioEvent:
    index: int
    at: float
    action: str
    spec: dict[str, Any]


@dataclass
class Scenario:
    path: str
    cluster: ClusterSnapshot
    events: list[ScenarioEvent] = field(default_factory=list)


# --- loading -------------------------------------------------------------------------------


def load_scenario(path: str) -> Scenario:
    """Read, validate against the schema (errors name the field and line) and build."""
    if not path:
        raise InputError("empty path: name a scenario file", file='""')
    if path != STDIN and Path(path).is_dir():
        raise InputError("is a directory, not a scenario file", file=path)
    text = read_text(path)  # "-": standard input (snapshot files are then relative to the working directory)
    if path == STDIN:
        remember_text(path, text)  # for line look-ups in error messages
    try:
        doc = load_yaml(text)
    except DecodeError as exc:
        raise InputError(exc.message, file=path, line=exc.line) from None
    problems = iter_schema_errors(doc, load_schema(SCENARIO_SCHEMA))
    if problems:
        where, message = problems[0]
        dotted = dotted_path(where)
        raise InputError(message, file=path, obj="Scenario", field=dotted or None, line=locate_line(path, 0, None, dotted or None))
    return Scenario(path, _initial_cluster(path, doc), _events(path, doc))


def _initial_cluster(path: str, doc: JSONObject) -> ClusterSnapshot:
    base = Path(path).parent
    files = doc.get("snapshot") or []
    files = [files] if isinstance(files, str) else files
    for i, name in enumerate(files):
        try:
            problem = None if (base / name).exists() else "no such file or directory"
        except OSError as exc:  # a name too long for the file system, ...
            problem = exc.strerror or str(exc)
        if problem is not None:
            where = "snapshot" if isinstance(doc.get("snapshot"), str) else f"snapshot[{i}]"
            shown = str(base / name)
            shown = shown if len(shown) <= 200 else shown[:200] + "..."
            raise InputError(f"{problem}: {shown!r}", file=path, obj="Scenario", field=where, line=locate_line(path, 0, None, where))
    cluster = load_snapshot([str(base / f) for f in files]) if files else ClusterSnapshot()
    for i, raw in enumerate(doc.get("objects") or []):
        add_object(cluster, raw, Source(path, 0, None, fmt="embedded", embedded=f"objects[{i}]"))
    resolve_priorities(cluster)
    return cluster


def _events(path: str, doc: JSONObject) -> list[ScenarioEvent]:
    out = []
    for i, spec in enumerate(doc.get("events") or []):
        at = parse_duration(spec["at"])
        if not at <= MAX_EVENT_SECONDS:
            raise InputError(
                f"Invalid value: {spec['at']!r}: must be at most {MAX_EVENT_SECONDS:.0f} seconds (the longest Go duration)",
                file=path,
                obj="Scenario",
                field=f"events[{i}].at",
                line=locate_line(path, 0, None, f"events[{i}].at"),
            )
        event = ScenarioEvent(i, at, spec["action"], spec)
        if "object" in spec:
            wants = _EVENT_KINDS.get(event.action, ("Pod",))
            kind = spec["object"].get("kind")
            if kind not in wants:
                raise InputError(
                    f"must be a {' or '.join(wants)} for {event.action}",
                    file=path,
                    field=f"events[{i}].object.kind",
                    line=locate_line(path, 0, None, f"events[{i}].object.kind"),
                )
            if kind in DRA_KINDS:
                try:
                    raw, _ = served_as_v1(spec["object"])
                    validate_dra_object(raw)
                    dra_types()[kind].from_dict(raw)
                except ObjectError as exc:
                    raise _object_error(path, f"events[{i}].object", exc) from None
            else:
                error = admit(spec["object"])
                if error is not None:
                    dotted = f"events[{i}].object.{error.field}" if error.field else f"events[{i}].object"
                    raise InputError(
                        error.body, file=path, obj=f"{kind} {_name(spec['object'])}", field=dotted, line=locate_line(path, 0, None, dotted)
                    )
        out.append(event)
    return sorted(out, key=lambda e: (e.at, e.index))


def _object_error(path: str, where: str, exc: ObjectError) -> InputError:
    dotted = f"{where}.{exc.field}" if exc.field else where
    return InputError(exc.message, file=path, field=dotted, line=locate_line(path, 0, None, dotted))


def _name(raw: JSONObject) -> str:
    md = raw.get("metadata")
    name = md.get("name") if isinstance(md, dict) else None
    return name if isinstance(name, str) else "?"
