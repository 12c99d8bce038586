"""--write-snapshot: the input snapshot in the state the run left the cluster in.

Runs can then be chained: the output of one run is a valid snapshot for the next. What changes
(placed pods bound with their PodScheduled condition, unschedulable pods' conditions and
nominations, claims and volumes bound, DRA claims allocated or created, victims gone) is
kschedctl/cluster/after_run.py's to say; this module writes the objects out: every object of the
input, in input order, unknown kinds included and unchanged, then the objects the run created.

The file is written safely: into a temporary file in the target's directory, then renamed over
the target (the target is never truncated, and a failed write leaves no partial file). Its
format is the one its extension says: ``.json`` is JSON, anything else YAML.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import yaml

from kschedctl.api.decoding import SafeDumper
from kschedctl.api.errors import InputError
from kschedctl.cluster.after_run import changes, created
from kschedctl.cluster.loader import ClusterSnapshot, document_objects
from kschedctl.scheduler.result import RunResult

_Dumper: Any = SafeDumper  # quotes strings kubectl would read as numbers, booleans or times


def write_snapshot_file(cluster: ClusterSnapshot, result: RunResult, path: str) -> None:
    items = snapshot_items(cluster, result)
    text = render_snapshot({"apiVersion": "v1", "kind": "List", "items": items}, path)
    write_atomically(path, text)


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


def render_snapshot(document: dict, path: str) -> str:
    try:
        if path.endswith(".json"):
            return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
    except RecursionError:
        raise InputError("cannot write the snapshot: an object is nested too deeply", file=path) from None


def check_target(path: str) -> None:
    """The target can be written: its directory exists and it is not itself a directory."""
    if not path:
        raise InputError("cannot write: empty path", file='""')
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise InputError(f"cannot write: no such directory {directory!r}", file=path)
    if os.path.isdir(path):
        raise InputError("cannot write: is a directory", file=path)


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to a temporary file next to ``path`` and rename it over ``path``."""
    check_target(path)
    directory = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", file=path) from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
