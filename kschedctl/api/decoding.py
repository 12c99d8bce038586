"""Files into JSON-shaped documents, as strictly and as boundedly as the API server decodes them.

Every input file (snapshot, scenario, configuration, sweep matrix) goes through here. YAML is
read the way kubectl turns it into the JSON the API server reads (sigs.k8s.io/yaml YAMLToJSON
over go-yaml v2), strictly:
- plain scalars resolve as go-yaml v2's resolve.go resolves them, not as PyYAML's YAML 1.1
  resolver: ``1:30`` is text (no base 60), ``y``/``n``/``yes``/``off`` are booleans, integers
  are Go's base-0 integers with ``_`` removed (``0o17``, ``017``, ``0x1F``, ``0b101``), ``09``,
  ``+.5`` and ``1e3`` are floats, an integral float arrives as an integer (encoding/json writes
  no fraction), and an unquoted date or time becomes the RFC 3339 text Time.MarshalJSON writes
  (``2001-12-14`` -> "2001-12-14T00:00:00Z"); an explicit tag must resolve to itself;
- only JSON types: int, bool and float keys become strings as YAMLToJSON writes them, null and
  time keys are refused. Tags such as ``!!set``, ``!!binary``, ``!!omap`` or ``!custom`` are
  refused; ``.nan`` and ``.inf`` are refused (JSON has no such numbers);
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

import functools
import math
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.scanner import Scanner

from kschedctl.api.gotime import marshal_json_text, yaml_timestamp
from kschedctl.api.json_decoding import MAX_DEPTH, DecodeError, load_json
from kschedctl.api.jsontypes import JSONObject


class _PyParser(Reader, Scanner, Parser, Composer):
    """PyYAML's pure-Python composer (its error messages are the ones kube users know from
    configuration files; small files only)."""

    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)


try:  # libyaml's C parser when present: an order of magnitude faster
    from yaml._yaml import CParser as _Parser  # what yaml.cyaml re-exports

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

TIMESTAMP = "tag:yaml.org,2002:timestamp"
# Tags of scalars resolved implicitly (plain, untagged): go-yaml's answer, built as go-yaml and
# sigs.k8s.io/yaml's YAMLToJSON build it.
G_INT, G_FLOAT, G_BOOL, G_NULL, G_TIMESTAMP = "go:int", "go:float", "go:bool", "go:null", "go:timestamp"
_EXPLICIT = {INT: G_INT, FLOAT: G_FLOAT, BOOL: G_BOOL, NULL: G_NULL, TIMESTAMP: G_TIMESTAMP}
_STANDARD = {G_INT: INT, G_FLOAT: FLOAT, G_BOOL: BOOL, G_NULL: NULL, G_TIMESTAMP: TIMESTAMP}

# --- go-yaml v2 resolve.go (sigs.k8s.io/yaml/goyaml.v2), the YAML 1.1 subset kubectl sends ---------
# PyYAML's YAML 1.1 resolver differs from it in what matters here: base-60 numbers (``1:30``)
# are strings in go-yaml, ``y``/``n`` are booleans, ``0o17``, ``09``, ``+.5``, ``1e3`` are numbers,
# ``2001-12-14`` is a time.Time that YAMLToJSON writes as "2001-12-14T00:00:00Z".
_RESOLVE_MAP: dict[str, tuple[str, Any]] = {}
for _tag, _value, _words in (
    (G_BOOL, True, "y Y yes Yes YES true True TRUE on On ON"),
    (G_BOOL, False, "n N no No NO false False FALSE off Off OFF"),
    (G_NULL, None, "~ null Null NULL"),
    (G_FLOAT, float("nan"), ".nan .NaN .NAN"),
    (G_FLOAT, float("inf"), ".inf .Inf .INF +.inf +.Inf +.INF"),
    (G_FLOAT, float("-inf"), "-.inf -.Inf -.INF"),
    (MERGE, "<<", "<<"),
):
    for _word in _words.split():
        _RESOLVE_MAP[_word] = (_tag, _value)
_RESOLVE_MAP[""] = (G_NULL, None)
_HINTED = frozenset("+-0123456789yYnNtTfFoO~.<")  # resolveTable's hinted first bytes ('<': the merge key)
_DIGIT_HINT = frozenset("+-0123456789")
_NUMERIC_HINT = frozenset(["+", "-", ".", *"0123456789"])
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_UINT64_MAX = 2**64 - 1
_TOO_LARGE = object()  # an integer over MAX_INT_DIGITS digits: refused when built


def _go_uint(text: str, base: int) -> tuple[int | None, str]:
    """strconv.ParseUint(text, base, 64): (value, "") or (None, "syntax" | "range"); base 0
    reads the 0b/0o/0x prefixes and a leading 0 as octal, as Go does."""
    if not text:
        return None, "syntax"
    if base == 0:
        base = 10
        if text[0] == "0":
            prefix = text[1:2].lower()
            if len(text) >= 3 and prefix in ("b", "o", "x"):
                base, text = {"b": 2, "o": 8, "x": 16}[prefix], text[2:]
            else:
                base, text = 8, text[1:]
    value = 0
    for ch in text:
        if "0" <= ch <= "9":
            digit = ord(ch) - 48
        elif "a" <= ch.lower() <= "z":
            digit = ord(ch.lower()) - 87
        else:
            return None, "syntax"
        if digit >= base:
            return None, "syntax"
        value = value * base + digit
        if value > _UINT64_MAX:
            return None, "range"
    return value, ""


def _go_int(text: str, base: int) -> tuple[int | None, str]:
    """strconv.ParseInt(text, base, 64)."""
    negative = text[:1] == "-"
    body = text[1:] if text[:1] in ("+", "-") else text
    value, err = _go_uint(body, base)
    if value is None:
        return None, err
    if value > 2**63 - (0 if negative else 1):
        return None, "range"
    return (-value if negative else value), ""


def _go_float(text: str) -> float | None:
    """strconv.ParseFloat for the decimal forms resolve.go lets through (None: out of range)."""
    number = float(text)
    return None if number in (float("inf"), float("-inf")) else number


def _big_int(text: str) -> Any:
    """big.Int.SetString(text, 0) after ParseUint said "out of range" (None: not an integer)."""
    negative = text[:1] == "-"
    body = text[1:] if text[:1] in ("+", "-") else text
    if len(body) > MAX_INT_DIGITS:
        return _TOO_LARGE if body.isascii() and body.isalnum() else None
    base = 10
    if body[:1] == "0" and len(body) > 1:
        prefix = body[1].lower()
        base, body = ({"b": 2, "o": 8, "x": 16}[prefix], body[2:]) if prefix in "box" else (8, body[1:])
    try:
        value = int(body, base) if body and body.isascii() and body.isalnum() else None
    except ValueError:
        return None
    return None if value is None else (-value if negative else value)


@functools.lru_cache(maxsize=4096)
def go_resolve(value: str, timestamps: bool = True) -> tuple[str, Any]:
    """resolve.go resolve() of a plain scalar: (tag, Go value). ``timestamps``: whether a
    timestamp may be recognised (untagged or ``!!timestamp``)."""
    found = _RESOLVE_MAP.get(value)
    if found is not None:
        return found
    first = value[:1]
    if first == ".":
        if _DOT_FLOAT.fullmatch(value):
            number = _go_float(value)
            if number is not None:
                return G_FLOAT, number
        return STR, value
    if first not in _DIGIT_HINT:
        return STR, value
    if timestamps:
        stamp = yaml_timestamp(value)
        if stamp is not None:
            return G_TIMESTAMP, stamp
    plain = value.replace("_", "")
    integer, _ = _go_int(plain, 0)
    if integer is not None:
        return G_INT, integer
    integer, err = _go_uint(plain, 0)
    if integer is not None:
        return G_INT, integer
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        number = _go_float(plain)
        if number is not None:
            return G_FLOAT, number
    if plain.startswith("0b"):
        integer, _ = _go_int(plain[2:], 2)
        if integer is None:
            integer, _ = _go_uint(plain[2:], 2)
        if integer is not None:
            return G_INT, integer
    elif plain.startswith("-0b"):
        integer, _ = _go_int("-" + plain[3:], 2)
        if integer is not None:
            return G_INT, integer
    if err == "range":
        big = _big_int(plain)
        if big is not None:
            return G_INT, big
    return STR, value


def _json_number(number: float) -> int | float:
    """A float as the API server reads it back from YAMLToJSON's JSON: encoding/json writes an
    integral float64 under 1e21 without a fraction ("2", not "2.0"), so it arrives as an integer."""
    if number.is_integer() and abs(number) < 1e21:
        return int(number)
    return number


def _format_float32_key(number: float) -> str:
    """strconv.FormatFloat(key, 'g', -1, 32), as sigs.k8s.io/yaml turns a float map key into a
    string (shortest float32 digits; an exponent below -4 or from 6 up)."""
    if number != number:
        return ".nan"
    try:
        single = struct.unpack("f", struct.pack("f", number))[0]
    except OverflowError:
        single = math.copysign(math.inf, number)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    if single == 0:
        return "-0" if math.copysign(1.0, single) < 0 else "0"
    for precision in range(1, 10):
        text = f"{single:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            break
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text)
    sign = "-" if mantissa.startswith("-") else ""
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    if exponent < -4 or exponent >= 6:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    whole = digits[: exponent + 1].ljust(exponent + 1, "0")
    fraction = digits[exponent + 1 :]
    return f"{sign}{whole}{'.' + fraction if fraction else ''}"


def _line(node: Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None and node.start_mark is not None else None


class _JsonResolver:
    """go-yaml v2's resolution of plain scalars, without path resolvers (mixed into both
    composers). Scalars resolved here get the internal G_* tags, so that an explicit tag
    (``!!int``) is told from an implicit one when the value is built."""

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is ScalarNode:
            if implicit[0]:
                if value[:1] in _NUMERIC_HINT:  # numbers, timestamps, .inf: parsed (memoised)
                    return go_resolve(value, True)[0]
                found = _RESOLVE_MAP.get(value)  # booleans, nulls, "<<"; most names miss here
                if found is not None:
                    return found[0]
            return STR
        return MAP if kind is MappingNode else SEQ

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


class _Composer(_JsonResolver, _Parser):
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
        if self.alias_decodes > 100 and self.decodes > 1000 and self.alias_decodes / self.decodes > _allowed_alias_ratio(self.decodes):
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

    def _mapping(self, node: MappingNode, depth: int) -> JSONObject:
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
            if isinstance(key_node, ScalarNode):
                key = key_node.value if key_node.tag == STR else _key(key_node, _scalar_key(key_node))
            else:
                key = _key(key_node, self.build(key_node, depth + 1))
            if key in out and not self.allow_duplicates:
                raise DecodeError(f'key "{key}" already set in map', _line(key_node))
            out[key] = self.build(value_node, depth + 1)
        for merged in merges:
            self._merge(out, merged, depth)
        return out

    def _merge(self, out: JSONObject, value_node: Node, depth: int) -> None:
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


def _short(tag: str) -> str:
    return _SHORT_TAG.sub("!!", _STANDARD.get(tag, tag))


def _resolved(node: ScalarNode) -> tuple[str, Any]:
    """(go tag, Go value) of a scalar: implicit tags as resolved; an explicit ``!!int``,
    ``!!float``, ``!!bool``, ``!!null`` or ``!!timestamp`` must resolve to itself (a ``!!float``
    may hold an integer), else go-yaml's "cannot decode !!str `x` as a !!int"."""
    tag, value = node.tag, node.value
    if tag in _STANDARD:
        return go_resolve(value, True)
    wanted = _EXPLICIT[tag]
    rtag, out = go_resolve(value, wanted == G_TIMESTAMP)
    if rtag == wanted:
        return rtag, out
    if wanted == G_FLOAT and rtag == G_INT and out is not _TOO_LARGE:
        return G_FLOAT, float(out)
    raise DecodeError(f"cannot decode {_short(rtag)} `{_show_text(value)}` as a {_short(wanted)}", _line(node))


def _show_text(value: str) -> str:
    return value if len(value) <= 40 else value[:40] + "..."


def _scalar(node: ScalarNode) -> Any:
    """A scalar as YAMLToJSON hands it to the API server (a JSON value)."""
    tag = node.tag
    if tag == STR:
        return node.value
    if tag == MERGE:  # "<<" used as a value: go-yaml gives the string
        return node.value
    if tag not in _STANDARD and tag not in _EXPLICIT:
        raise _tag_error(node)
    rtag, value = _resolved(node)
    if rtag == G_INT:
        if value is _TOO_LARGE:
            raise DecodeError(f"integer of {len(node.value.lstrip('+-'))} digits is too large", _line(node))
        return value
    if rtag == G_FLOAT:
        if value != value or value in (math.inf, -math.inf):
            raise DecodeError(f"{node.value} is not a JSON number (NaN and infinities are not accepted)", _line(node))
        return _json_number(value)
    if rtag == G_TIMESTAMP:
        try:
            return marshal_json_text(value)
        except ValueError as exc:
            raise DecodeError(str(exc), _line(node)) from None
    return value  # bool, null, str


def _scalar_key(node: ScalarNode) -> Any:
    """A scalar key's Go value (a timestamp key stays text here; _key refuses it)."""
    if node.tag in (G_TIMESTAMP, TIMESTAMP):
        return node.value
    return _scalar(node)


def _key(node: Node, value: Any) -> str:
    """A mapping key as sigs.k8s.io/yaml's convertToJSONableObject turns it into a JSON key:
    strings stay, int and bool keys are written out, float keys with FormatFloat(k, 'g', -1, 32);
    other keys (null, timestamps, uint64, big integers, collections) are refused as there."""
    if type(value) is str:
        if isinstance(node, ScalarNode) and node.tag in (G_TIMESTAMP, TIMESTAMP):
            return _unsupported_key("time.Time", node)
        return value
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is int:
        if isinstance(node, ScalarNode) and node.tag in (G_FLOAT, FLOAT):
            return _format_float32_key(float(value))
        if -(2**63) <= value < 2**63:
            return str(value)
        return _unsupported_key("uint64" if 0 <= value <= _UINT64_MAX else "*big.Int", node)
    if type(value) is float:
        return _format_float32_key(value)
    if value is None:
        return _unsupported_key("<nil>", node)
    raise DecodeError(f"mapping key {_show(value)} is not a string (JSON object keys are strings)", _line(node))


def _unsupported_key(go_type: str, node: Node) -> str:
    text = node.value if isinstance(node, ScalarNode) else "?"
    raise DecodeError(f"unsupported map key of type: {go_type}, key: {_show_text(text)!r}", _line(node))


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
    nested_spans: dict[tuple[int, ...], Span] | None = None  # items of Lists inside its items, by index path


def _items_node(node: Node) -> SequenceNode | None:
    if isinstance(node, MappingNode):
        for key, value in node.value:
            if isinstance(key, ScalarNode) and key.value == "items" and isinstance(value, SequenceNode):
                return value
    return None


def _nested_spans(node: Node, data: Any) -> dict[tuple[int, ...], Span] | None:
    """The spans of the items of Lists nested in a List's items (keyed by their index path), so
    that an error in a flattened item finds its line; None when no item holds items (the
    common case costs one look-up per item)."""
    items = data if isinstance(data, list) else data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list) or not any(type(item) is dict and "items" in item for item in items):
        return None
    top = node if isinstance(node, SequenceNode) else _items_node(node)
    if top is None:
        return None
    spans: dict[tuple[int, ...], Span] = {}
    queue: list[tuple[tuple[int, ...], Node]] = [((i,), item) for i, item in enumerate(top.value)]
    while queue and len(spans) < 1_000_000:
        path, item = queue.pop()
        inner = _items_node(item)
        if inner is None or len(path) > 64:
            continue
        for j, sub in enumerate(inner.value):
            spans[path + (j,)] = _span(sub)
            queue.append((path + (j,), sub))
    return spans


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
            yield YamlDocument(data, _span(node), _item_spans(node), _nested_spans(node, data))
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


# --- writing YAML that reads back the same ---------------------------------------------------------
_BaseDumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class SafeDumper(_BaseDumper):  # type: ignore[misc]
    """PyYAML's safe dumper, quoting every string that kubectl's go-yaml (``y``, ``0o17``,
    ``2001-12-14``) or a YAML 1.1 reader (``1:30``) would read as something else, so that a
    written snapshot reads back, here and with kubectl, as the data it was written from."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode and implicit[0] and (not value or value[0] in _HINTED):
            tag = go_resolve(value, True)[0]
            if tag != STR:
                return _STANDARD.get(tag, tag)
        return super().resolve(kind, value, implicit)


__all__ = [
    "DecodeError",
    "MAX_DEPTH",
    "SafeDumper",
    "Span",
    "YamlDocument",
    "build_document",
    "compose_single",
    "go_resolve",
    "load_json",
    "load_yaml",
    "yaml_documents",
]
