"""`kschedctl watch`'s lines: one per event (kschedctl/explain/watch.py), as text or JSON lines.

Text reads as a log one can keep an eye on: the time since the watch started, the pod, what
its answer is now and, for a change, what it was. ``-o json`` prints one JSON object a line, for
scripts (the same dicts as WatchEvent.to_dict).
"""

from __future__ import annotations

import json

from kschedctl.api.field import escape_control
from kschedctl.explain.watch import Verdict, WatchEvent

MAX_NAMES = 3


def answer(verdict: Verdict) -> str:
    """What a pending pod's verdict says, in a few words."""
    if verdict.state == "gated":
        return f"gated: {verdict.summary}" if verdict.summary else "gated"
    if verdict.node:
        return f"fits: would go to {verdict.node}" + (f" ({verdict.summary})" if verdict.summary else "")
    if verdict.message:
        return f"unschedulable: {verdict.message}"
    return verdict.state + (f": {verdict.summary}" if verdict.summary else "")


def render_event(event: WatchEvent, fmt: str) -> str:
    """One event as one line (text or JSON), newline-terminated."""
    if fmt == "json":
        return json.dumps(event.to_dict(), sort_keys=False) + "\n"
    stamp = f"+{event.time:.0f}s"
    if event.event == "ClusterChanged":
        return f"{stamp}  cluster: {_changes(event)}\n"
    pod = event.pod or ""
    if event.event == "Pending":
        assert event.verdict is not None
        return escape_control(f"{stamp}  {pod}  pending, {answer(event.verdict)}") + "\n"
    if event.event == "Changed":
        assert event.verdict is not None and event.previous is not None
        return escape_control(f"{stamp}  {pod}  now {answer(event.verdict)} (was {answer(event.previous)})") + "\n"
    if event.event == "Scheduled":
        return escape_control(f"{stamp}  {pod}  scheduled on {event.node}") + "\n"
    return escape_control(f"{stamp}  {pod}  deleted (no longer pending)") + "\n"


def _changes(event: WatchEvent) -> str:
    """'Node node-d added; 2 Pods modified (web-1, web-2)' from the change list."""
    words = {"ADDED": "added", "MODIFIED": "modified", "DELETED": "deleted"}
    groups: dict[tuple[str, str], list[str]] = {}
    for change in event.changes:
        groups.setdefault((change["kind"], change["type"]), []).append(change["name"])
    parts = []
    for (kind, kind_type), names in groups.items():
        shown = ", ".join(names[:MAX_NAMES]) + (f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else "")
        noun = kind if len(names) == 1 else f"{len(names)} {kind}s"
        parts.append(f"{noun} {words.get(kind_type, kind_type.lower())} ({shown})")
    return escape_control("; ".join(parts))


def render_header(pods: int, where: str, seconds: int) -> str:
    return f"watching {pods} pending pod(s) in {where}; the cluster is read again every {seconds}s; Ctrl-C to stop\n"


__all__ = ["answer", "render_event", "render_header"]
