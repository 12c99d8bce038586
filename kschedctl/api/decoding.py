"""Files into JSON-shaped documents, as strictly and as boundedly as the API server decodes them.

Every input file (snapshot, scenario, configuration) goes through here. YAML is read the way
kube-apiserver's YAML decoder (sigs.k8s.io/yaml over go-yaml v2, strict) accepts it:
- only JSON types: mappings with string keys, sequences, strings, integers, finite floats,
  booleans and null. Tags such as ``!!set``, ``!!binary``, ``!!omap`` or ``!custom`` are refused;
  plain scalars that look like timestamps stay strings (go-yaml resolves them only into
  time.Time fields); ``.nan`` and ``.inf`` are refused (JSON has no such numbers);
- a key given twice in one mapping is an error (go-yaml's strict mode: ``key "x" already set in map``);
- alias expansion is bounded exactly as go-yaml v2 bounds it (decode.go allowedAliasRatio:
  "document contains excessive aliasing"), and an anchor that contains itself is refused, so a
  "billion laughs" document fails in milliseconds instead of expanding;
- nesting deeper than MAX_DEPTH levels is refused, and so is an integer of more than 4300 digits.
JSON goes through orjson (or the standard library) and gets the same refusals where they apply
(NaN/Infinity, huge integers, depth): kschedctl.api.json_decoding, whose names this module
re-exports (it imports no YAML code, so that reading JSON files alone never loads PyYAML).

While a YAML document is built, the first and last line of each object are recorded (``Span``)
so that kschedctl.api.locate can find an error's line from the object's own lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from kschedctl.api.json_decoding import MAX_DEPTH, DecodeError, load_json


class _PyParser(Reader, Scanner, Parser, Composer):
    """PyYAML's pure-Python composer (its error messages are the ones kube users know from
    configuration files; small files only)."""

    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)


try:  # libyaml's C parser when present: an order of magnitude faster
    from yaml.cyaml import CParser as _Parser

    HAVE_LIBYAML = True
except ImportError:  # pragma: no cover - depends on the PyYAML build
    _Parser = _PyParser  # type: ignore[misc, assignment]
    HAVE_LIBYAML = False

MAX_INT_DIGITS = 4300  # Python's int(str) limit (sys.int_max_str_digits)
# go-yaml v2 decode.go: the share of decode operations that may come from alias expansion.
_ALIAS_RATIO_RANGE_LOW = 400_000
_ALIAS_RATIO_RANGE_HIGH = 4_000_000

STR = "tag:yaml.org,2002:str"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"
MERGE = "tag:yaml.org,2002:merge"
_SHORT_TAG = re.compile(r"^tag:yaml\.org,2002:")

# YAML 1.1 implicit resolution as PyYAML has it, minus timestamps (strings here, as in go-yaml
# for untyped values) and the "=" value tag (a plain string).
_IMPLICIT: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
for _first, _resolvers in Resolver.yaml_implicit_resolvers.items():
    _kept = [(tag, rx) for tag, rx in _resolvers if tag in (BOOL, INT, FLOAT, NULL, MERGE)]
    if _kept:
        _IMPLICIT[_first or ""] = _kept


def _line(node: Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None and node.start_mark is not None else None


class _JsonResolver:
    """A fast, JSON-minded resolver without path resolvers (mixed into both composers)."""

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is ScalarNode:
            if implicit[0]:
                for tag, regexp in _IMPLICIT.get(value[:1], ()):
                    if regexp.match(value):
                        return tag
            return STR
        return MAP if kind is MappingNode else SEQ

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


class _Composer(_JsonResolver, _Parser):  # type: ignore[misc, valid-type]
    """The C YAML composer (pure Python when libyaml is missing)."""

    def __init__(self, text: str) -> None:
        _Parser.__init__(self, text)


class _PyComposer(_JsonResolver, _PyParser):
    def __init__(self, text: str) -> None:
        _PyParser.__init__(self, text)


def compose_single(text: str, pure: bool = False) -> Node | None:
    """The node tree of a single-document YAML text (raises yaml.YAMLError, RecursionError)."""
    composer = (_PyComposer if pure else _Composer)(text)
    try:
        return composer.get_single_node()
    finally:
        dispose = getattr(composer, "dispose", None)
        if dispose is not None:
            dispose()


def build_document(node: Node, text: str, allow_duplicates: bool = False) -> Any:
    """Python data of a composed document, with every refusal of this module (DecodeError);
    ``allow_duplicates``: a repeated key keeps its last value (the caller reports duplicates)."""
    tracked = "&" in text and "*" in text
    try:
        return _Builder(tracked, allow_duplicates).build(node)
    except RecursionError:
        raise DecodeError(f"document nested deeper than {MAX_DEPTH} levels", _line(node)) from None


def _allowed_alias_ratio(decodes: int) -> float:
    if decodes <= _ALIAS_RATIO_RANGE_LOW:
        return 0.99
    if decodes >= _ALIAS_RATIO_RANGE_HIGH:
        return 0.10
    span = _ALIAS_RATIO_RANGE_HIGH - _ALIAS_RATIO_RANGE_LOW
    return 0.99 - 0.89 * ((decodes - _ALIAS_RATIO_RANGE_LOW) / span)


_BOOL_VALUES = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}
_SAFE = yaml.constructor.SafeConstructor()


class _Builder:
    """Builds Python data from a composed node tree, refusing what JSON cannot hold.

    With aliases in the text (``tracked``), every node is remembered so that a node met again
    is known to come through an alias: its decodes count as alias decodes, as go-yaml counts
    them, and a node met again while it is being built is an anchor that contains itself.
    """

    def __init__(self, tracked: bool, allow_duplicates: bool = False) -> None:
        self.tracked = tracked
        self.allow_duplicates = allow_duplicates
        self.decodes = 0
        self.alias_decodes = 0
        self.alias_depth = 0
        self.seen: set[int] = set()
        self.active: set[int] = set()

    def build(self, node: Node, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise DecodeError(f"document nested deeper than {MAX_DEPTH} levels", _line(node))
        if not self.tracked:
            return self._value(node, depth)
        key = id(node)
        via_alias = key in self.seen
        if via_alias:
            if key in self.active:
                raise DecodeError("anchor value contains itself", _line(node))
            self.alias_depth += 1
        else:
            self.seen.add(key)
        self.active.add(key)
        self.decodes += 1
        if self.alias_depth:
            self.alias_decodes += 1
        if (self.alias_decodes > 100 and self.decodes > 1000
                and self.alias_decodes / self.decodes > _allowed_alias_ratio(self.decodes)):
            raise DecodeError("document contains excessive aliasing", _line(node))
        try:
            return self._value(node, depth)
        finally:
            self.active.discard(key)
            if via_alias:
                self.alias_depth -= 1

    def _value(self, node: Node, depth: int) -> Any:
        if isinstance(node, ScalarNode):
            return _scalar(node)
        if isinstance(node, MappingNode):
            if node.tag != MAP:
                raise _tag_error(node)
            return self._mapping(node, depth)
        if node.tag != SEQ:
            raise _tag_error(node)
        return [self.build(item, depth + 1) for item in node.value]

    def _mapping(self, node: MappingNode, depth: int) -> dict:
        out: dict[str, Any] = {}
        merges: list[Node] = []
        for key_node, value_node in node.value:
            if self.tracked:
                self.decodes += 1
                if self.alias_depth:
                    self.alias_decodes += 1
            if key_node.tag == MERGE and isinstance(key_node, ScalarNode):
                merges.append(value_node)
                continue
            key = self.build(key_node, depth + 1) if not isinstance(key_node, ScalarNode) else _scalar(key_node)
            if not isinstance(key, str):
                raise DecodeError(f"mapping key {_show(key)} is not a string (JSON object keys are strings)",
                                  _line(key_node))
            if key in out and not self.allow_duplicates:
                raise DecodeError(f'key "{key}" already set in map', _line(key_node))
            out[key] = self.build(value_node, depth + 1)
        for merged in merges:
            self._merge(out, merged, depth)
        return out

    def _merge(self, out: dict, value_node: Node, depth: int) -> None:
        """``<<: *anchor`` or ``<<: [*a, *b]``: keys not set explicitly come from the merged maps."""
        sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
        for source in sources:
            if not isinstance(source, MappingNode):
                raise DecodeError("map merge requires map or sequence of maps as the value", _line(source))
            merged = self.build(source, depth + 1)
            for key, value in merged.items():
                out.setdefault(key, value)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _tag_error(node: Node) -> DecodeError:
    tag = _SHORT_TAG.sub("!!", str(node.tag))
    return DecodeError(f"unsupported YAML tag {tag} (only JSON types are accepted)", _line(node))


def _scalar(node: ScalarNode) -> Any:
    tag, value = node.tag, node.value
    if tag == STR:
        return value
    if tag == INT:
        if len(value) > MAX_INT_DIGITS:
            raise DecodeError(f"integer of {len(value)} digits is too large", _line(node))
        try:
            return _SAFE.construct_yaml_int(node)
        except ValueError:
            raise DecodeError(f"invalid integer {_show(value)}", _line(node)) from None
    if tag == FLOAT:
        try:
            number = _SAFE.construct_yaml_float(node)
        except ValueError:
            raise DecodeError(f"invalid float {_show(value)}", _line(node)) from None
        if number != number or number in (float("inf"), float("-inf")):
            raise DecodeError(f"{value} is not a JSON number (NaN and infinities are not accepted)", _line(node))
        return number
    if tag == BOOL:
        return _BOOL_VALUES.get(value.lower(), bool(value))
    if tag == NULL:
        return None
    raise _tag_error(node)


# --- YAML documents -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Span:
    """The 0-based first line and the end line (exclusive) of an object in a YAML file."""

    start: int
    end: int


def _span(node: Node) -> Span:
    end = node.end_mark.line + (1 if node.end_mark.column > 0 else 0)
    return Span(node.start_mark.line, max(end, node.start_mark.line + 1))


@dataclass
class YamlDocument:
    data: Any
    span: Span | None
    item_spans: list[Span] | None  # one per item of a List document (or of a bare sequence)


def _item_spans(node: Node) -> list[Span] | None:
    if isinstance(node, SequenceNode):
        return [_span(item) for item in node.value]
    if isinstance(node, MappingNode):
        for key, value in node.value:
            if isinstance(key, ScalarNode) and key.value == "items" and isinstance(value, SequenceNode):
                return [_span(item) for item in value.value]
    return None


def _marked_error(exc: yaml.YAMLError) -> DecodeError:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
    return DecodeError(f"malformed YAML: {problem}", mark.line + 1 if mark is not None else None)


def yaml_documents(text: str) -> Iterator[YamlDocument]:
    """Every document of a YAML text, built one at a time (the node tree of one document is
    dropped before the next is composed)."""
    tracked = "&" in text and "*" in text  # without both, no alias can occur
    composer = _Composer(text)
    try:
        while True:
            try:
                if not composer.check_node():
                    return
                node = composer.get_node()
            except yaml.YAMLError as exc:
                raise _marked_error(exc) from None
            except RecursionError:
                raise DecodeError(f"document nested deeper than {MAX_DEPTH} levels") from None
            if node is None:
                continue
            try:
                data = _Builder(tracked).build(node)
            except RecursionError:
                raise DecodeError(f"document nested deeper than {MAX_DEPTH} levels", _line(node)) from None
            yield YamlDocument(data, _span(node), _item_spans(node))
    finally:
        dispose = getattr(composer, "dispose", None)
        if dispose is not None:
            dispose()


def load_yaml(text: str) -> Any:
    """The single document of a YAML text (None when empty); more than one is an error."""
    docs = list(yaml_documents(text))
    if len(docs) > 1:
        raise DecodeError("expected a single YAML document, found several", docs[1].span.start + 1 if docs[1].span else None)
    return docs[0].data if docs else None


__all__ = [
    "DecodeError", "MAX_DEPTH", "Span", "YamlDocument", "build_document", "compose_single", "load_json", "load_yaml",
    "yaml_documents",
]
