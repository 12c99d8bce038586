"""The KubeSchedulerConfiguration inside the files people have: a ConfigMap (how clusters and
scheduler-plugins' manifests ship it: ``data`` holds the configuration's text), a multi-document
manifest (the ConfigMap beside a Deployment, or the configuration beside other objects), or
kube-scheduler-simulator's export (``schedulerConfig``).

The configuration is handed on as text with the lines before it kept as empty lines, so that
every line number the checker reports is the line of the original file. A plain single-document
file is handed on untouched, without being parsed here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from kschedctl.api.json_decoding import DecodeError, load_json
from kschedctl.api.jsontypes import JSONObject
from kschedctl.config.defaults import ConfigError

KIND = "KubeSchedulerConfiguration"
API_VERSION = "kubescheduler.config.k8s.io/v1"
_MENTIONS_CONFIG = re.compile(r"""["']?kind["']?\s*:\s*["']?KubeSchedulerConfiguration\b""")


@dataclass
class Unwrapped:
    text: str
    notes: list[str] = field(default_factory=list)


def unwrap_config_text(text: str, source: str) -> Unwrapped:
    """The configuration's text (line numbers kept) and what was done to find it."""
    if not _needs_unwrapping(text):
        return Unwrapped(text)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return _from_json(text, source)
    from kschedctl.api.decoding import yaml_documents  # PyYAML: only for a file that needs it

    try:
        docs = list(yaml_documents(text))
    except (DecodeError, RecursionError):
        return Unwrapped(text)  # the checker reports the malformed YAML with its line
    lines = text.splitlines(keepends=True)
    found: list[tuple[int, Unwrapped]] = []
    for index, doc in enumerate(docs):
        candidate = _candidate(doc.data, doc.span, lines, index, len(docs))
        if candidate is not None:
            found.append((index, candidate))
    if not found:
        if len(docs) > 1:
            raise ConfigError(f"none of the {len(docs)} YAML documents is a {KIND} (or a ConfigMap holding one)", file=source)
        return Unwrapped(text)
    if len(found) > 1:
        which = ", ".join(str(i + 1) for i, _ in found)
        raise ConfigError(f"{len(found)} documents hold a {KIND} (documents {which}): give one per file", file=source)
    return found[0][1]


def _needs_unwrapping(text: str) -> bool:
    """Cheap screen: several documents, a ConfigMap, or a simulator export."""
    return "\n---" in text or text.startswith("---") and text.count("---") > 1 or "ConfigMap" in text or "schedulerConfig" in text


def _candidate(data: Any, span: Any, lines: list[str], index: int, count: int) -> Unwrapped | None:
    if not isinstance(data, dict):
        return None
    kind = data.get("kind")
    if kind == KIND:
        if count == 1:
            return None  # the file is the configuration itself: untouched
        start, end = (span.start, span.end) if span is not None else (0, len(lines))
        return Unwrapped("\n" * start + "".join(lines[start:end]), [f"using the {KIND} of YAML document {index + 1} of {count}"])
    if kind == "ConfigMap":
        return _from_config_map(data, span, lines)
    if "kind" not in data and isinstance(data.get("schedulerConfig"), dict):
        return _from_export(data["schedulerConfig"])
    return None


def _from_config_map(data: JSONObject, span: Any, lines: list[str]) -> Unwrapped | None:
    values = data.get("data")
    if not isinstance(values, dict):
        return None
    keys = [k for k, v in values.items() if isinstance(v, str) and _MENTIONS_CONFIG.search(v)]
    if not keys:
        return None
    metadata = data.get("metadata")
    md = metadata if isinstance(metadata, dict) else {}
    name = f"{md.get('namespace') or 'default'}/{md.get('name') or '?'}"
    if len(keys) > 1:
        raise ConfigError(f"ConfigMap {name} holds {len(keys)} {KIND}s (data keys {', '.join(keys)}): give one per file")
    key = keys[0]
    first = _block_start(key, span, lines)
    return Unwrapped("\n" * first + values[key], [f"using the {KIND} in ConfigMap {name} (data key {key})"])


def _block_start(key: str, span: Any, lines: list[str]) -> int:
    """The 0-based line where a block scalar ``key: |`` starts its text (0 when not found: the
    line numbers then count from the value's first line)."""
    start, end = (span.start, span.end) if span is not None else (0, len(lines))
    pattern = re.compile(rf"""^\s*["']?{re.escape(key)}["']?\s*:\s*[|>][-+0-9]*\s*(#.*)?$""")
    for i in range(start, min(end, len(lines))):
        if pattern.match(lines[i].rstrip("\r\n")):
            return i + 1
    return 0


def _from_export(config: JSONObject) -> Unwrapped:
    """kube-scheduler-simulator's ``schedulerConfig`` (its Go type carries kind and apiVersion
    only when set: they are filled in)."""
    config = {
        "apiVersion": config.get("apiVersion") or API_VERSION,
        "kind": config.get("kind") or KIND,
        **{k: v for k, v in config.items() if k not in ("apiVersion", "kind")},
    }
    return Unwrapped(json.dumps(config), [f"using the {KIND} of a kube-scheduler-simulator export (schedulerConfig)"])


def _from_json(text: str, source: str) -> Unwrapped:
    """A JSON file is one document: a ConfigMap or an export is unwrapped as in YAML."""
    try:
        data = load_json(text)
    except DecodeError:
        return Unwrapped(text)
    return _candidate(data, None, [], 0, 1) or Unwrapped(text)
