"""Line look-ups for error messages, never by re-parsing a whole file in pure Python.

A YAML object's span (its lines, recorded by kschedctl.api.decoding while the document was
built) is composed again alone with the C parser and its field path walked; a JSON path is
walked over the text with the standard library's C scanner (json.decoder.scanstring and
raw_decode skip what is not on the path).
"""

from __future__ import annotations

import json
import re

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from kschedctl.api.decoding import MERGE, Span, compose_single

_PATH_TOKEN = re.compile(r"\[([^\]]*)\]|([^.\[\]]+)")


def split_field_path(path: str | None) -> list[str | int]:
    """'spec.containers[0].resources.limits[example.com/gpu]' -> ['spec', 'containers', 0, ...]."""
    if not path:
        return []
    parts: list[str | int] = []
    for match in _PATH_TOKEN.finditer(path):
        bracket, name = match.group(1), match.group(2)
        if bracket is not None:
            parts.append(int(bracket) if bracket.isdigit() else bracket)
        else:
            parts.append(name)
    return parts


def _yaml_child(node: Node, key: str | int) -> Node | None:
    if isinstance(key, int):
        if isinstance(node, SequenceNode) and key < len(node.value):
            item: Node = node.value[key]
            return item
        return None
    if isinstance(node, MappingNode):
        merged = None
        pair: tuple[Node, Node]
        for pair in node.value:
            k, v = pair
            if isinstance(k, ScalarNode):
                if k.value == key and k.tag != MERGE:
                    return v
                if k.tag == MERGE and merged is None:
                    merged = v
        if merged is not None:
            for source in merged.value if isinstance(merged, SequenceNode) else [merged]:
                found = _yaml_child(source, key)
                if found is not None:
                    return found
    return None


def _walk_yaml(node: Node, parts: list[str | int]) -> Node:
    for part in parts:
        child = _yaml_child(node, part)
        if child is None:
            break
        node = child
    return node


def locate_in_yaml(text: str, span: Span | None, in_sequence: bool, field_path: str | None) -> int | None:
    """The 1-based line of a field of the object at ``span``: its lines alone are composed again
    with the C parser (a few dozen lines, not the file); None when that cannot be done."""
    if span is None:
        return None
    parts = split_field_path(field_path)
    if not parts:
        return span.start + 1
    lines = text.splitlines(keepends=True)[span.start : span.end]
    try:
        node = compose_single("".join(lines))
    except (yaml.YAMLError, RecursionError):
        return span.start + 1
    if in_sequence and isinstance(node, SequenceNode):
        if len(node.value) != 1:
            return span.start + 1
        node = node.value[0]
    if not isinstance(node, MappingNode):
        return span.start + 1
    return span.start + _walk_yaml(node, parts).start_mark.line + 1


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def locate_in_json(text: str, parts: list[str | int]) -> int | None:
    """The 1-based line of a path in a JSON text, walked with json's C scanner (values that are
    skipped are decoded by it, never by Python code)."""
    try:
        pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
        for part in parts:
            found = _json_child(text, pos, part)
            if found is None:
                break
            pos = found
        return text.count("\n", 0, pos) + 1
    except (ValueError, IndexError, RecursionError):
        return None


def _json_child(text: str, pos: int, part: str | int) -> int | None:
    opener = text[pos]
    if opener == "{" and isinstance(part, str):
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        while text[pos] != "}":
            key, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr] # past ':'
            if key == part:
                return pos
            _, pos = _DECODER.raw_decode(text, pos)
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if text[pos] == ",":
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        return None
    if opener == "[" and isinstance(part, int):
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        index = 0
        while text[pos] != "]":
            if index == part:
                return pos
            _, pos = _DECODER.raw_decode(text, pos)
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if text[pos] == ",":
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
            index += 1
    return None


__all__ = ["locate_in_json", "locate_in_yaml", "split_field_path"]
