"""--write-snapshot: the input snapshot in the state the run left the cluster in.

Runs can then be chained: the output of one run is a valid snapshot for the next. What changes
(placed pods bound with their PodScheduled condition, unschedulable pods' conditions and
nominations, claims and volumes bound, DRA claims allocated or created, victims gone) is
kschedctl/output/after_run.py's to say; this module writes the objects out: every object of the
input, in input order, unknown kinds included and unchanged, then the objects the run created.

The file is written safely (kschedctl/api/outputs.py): into a temporary file in the target's
directory, then renamed over the target (the target is never truncated, and a failed write
leaves no partial file); only a regular file (or a new one) is written, never an input of the
run. Its format is the one its extension says: ``.json`` is JSON, anything else YAML.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from kschedctl.api.decoding import SafeDumper
from kschedctl.api.errors import InputError
from kschedctl.api.json_encoding import dumps_indented
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.outputs import OutputPath, as_output, write_output
from kschedctl.cluster.loader import ClusterSnapshot, document_objects
from kschedctl.output.after_run import changes, created
from kschedctl.scheduler.result import RunResult

_Dumper: Any = SafeDumper  # quotes strings kubectl would read as numbers, booleans or times


def write_snapshot_file(cluster: ClusterSnapshot, result: RunResult, path: OutputPath | str) -> None:
    """``path``: resolved by the CLI when the command started (a plain path is resolved now);
    the format follows the name the user gave."""
    target = as_output(path, "--write-snapshot")
    items = snapshot_items(cluster, result)
    text = render_snapshot({"apiVersion": "v1", "kind": "List", "items": items}, target.given)
    write_output(target, text)


def snapshot_items(cluster: ClusterSnapshot, result: RunResult) -> list[Any]:
    """Every object of the input in order, as the run left it (after_run.changes), the removed
    ones (preemption victims) left out."""
    changed = changes(cluster, result)
    items: list[Any] = []
    for raw in _objects(cluster.documents):
        raw = cluster.replaced.get(id(raw), raw)  # a DRA object read from an older version: as served in v1
        new = changed.get(id(raw), raw) if isinstance(raw, dict) else raw
        if new is not None:
            items.append(new)
    items.extend(created(cluster, result))  # claims the resourceclaim controller created, ...
    return items


def _objects(documents: list[Any]) -> Iterator[Any]:
    """The objects of the input documents, as the loader read them (Lists flattened, nested
    ones included, in the loader's order)."""
    for doc in documents:
        yield from document_objects(doc)


def render_snapshot(document: JSONObject, path: str) -> str:
    try:
        if path.endswith(".json"):
            return dumps_indented(document)
        return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
    except RecursionError:
        raise InputError("cannot write the snapshot: an object is nested too deeply", file=path) from None
