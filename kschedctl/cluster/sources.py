"""Where each object of a snapshot came from, and the line of any of its fields on demand.

Lines are looked up only when an error is reported. A YAML object carries its own span (first
and last line, recorded while the document was built); the look-up composes just those lines
again with the C parser and walks the field path. A JSON object is found by walking its path
over the text with the JSON C scanner. Neither re-parses a whole file in Python, so reporting
one bad field of a 20,000-node file costs milliseconds, not minutes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kschedctl.api.decoding import Span

_TEXTS: dict[str, str] = {}  # the text of stdin: it cannot be read twice

# --- files served from memory ------------------------------------------------------------------
# A sweep cell may run on a machine that does not have the snapshot files: the sweep ships
# their texts, and the worker reads them through this overlay, under the names they have on
# the machine that started the sweep (so errors name the user's files and lines).
_OVERLAY = threading.local()


@contextmanager
def files_overlay(files: Mapping[str, str]) -> Iterator[None]:
    """Within the block (in this thread), the loaders read these paths' texts, and only them."""
    previous = getattr(_OVERLAY, "files", None)
    _OVERLAY.files = files
    try:
        yield
    finally:
        _OVERLAY.files = previous


def overlay_files() -> Mapping[str, str] | None:
    return getattr(_OVERLAY, "files", None)


def remember_text(path: str, text: str) -> None:
    """Keep the text of stdin for line look-ups (files are read again, only on error)."""
    if path == "-":
        _TEXTS[path] = text


def _text(path: str) -> str | None:
    if path in _TEXTS:
        return _TEXTS[path]
    files = overlay_files()
    if files is not None:
        return files.get(path)
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError, ValueError):
        return None


class Source:
    """An object's file, document, item (in a List) and, for YAML, its lines. (A plain slotted
    class: one is made per object of the snapshot, so it must be cheap.)"""

    __slots__ = ("file", "document", "item", "span", "fmt", "embedded", "outer")

    def __init__(
        self, file: str, document: int, item: int | None, span: Span | None = None, fmt: str = "yaml", embedded: str | None = None
    ) -> None:
        self.file = file
        self.document = document
        self.item = item
        self.span = span
        self.fmt = fmt  # "yaml", "json", or "embedded": an object inside a scenario at path ``embedded``
        self.embedded = embedded
        self.outer: tuple[int, ...] = ()  # the indices of the Lists' items holding a nested List's item

    def __repr__(self) -> str:
        return f"Source({self.file!r}, {self.document}, {self.item}, {self.span}, {self.fmt!r})"

    def item_source(self, index: int, item_spans: list[Span] | None) -> "Source":
        span = item_spans[index] if item_spans is not None and index < len(item_spans) else None
        return Source(self.file, self.document, index, span, self.fmt)

    def nested_source(self, path: tuple[int, ...], span: Span | None) -> "Source":
        """The source of an item of a List nested in this document's List (path: the index of
        each enclosing item, then the item's own)."""
        source = Source(self.file, self.document, path[-1], span, self.fmt)
        source.outer = path[:-1]
        return source

    @property
    def where(self) -> str | None:
        if self.embedded is not None:
            return self.embedded
        if self.item is None:
            return None
        return "".join(f"items[{i}]." for i in self.outer) + f"items[{self.item}]"


def locate(source: Source | None, field_path: str | None = None) -> int | None:
    """The 1-based line of an object, or of one of its fields (or of its nearest ancestor
    present in the file, for defaulted fields)."""
    if source is None:
        return None
    if source.fmt == "embedded":
        return locate_line(source.file, source.document, None, f"{source.embedded}.{field_path}" if field_path else source.embedded)
    text = _text(source.file)
    if text is None:
        return None
    from kschedctl.api.locate import locate_in_json, locate_in_yaml, split_field_path  # error paths only

    if source.fmt == "json":
        prefix: list[str | int] = []
        if source.item is not None:
            indices = [*source.outer, source.item]
            prefix = [indices[0]] if text.lstrip().startswith("[") else ["items", indices[0]]
            for index in indices[1:]:
                prefix += ["items", index]
        return locate_in_json(text, prefix + split_field_path(field_path))
    return locate_in_yaml(text, source.span, source.item is not None, field_path)


def locate_line(path: str, doc_index: int, item_index: int | None, field_path: str | None = None) -> int | None:
    """The line of a field in a small YAML file (a scenario): its documents are composed again
    with the C parser (bounded: the file was read once already)."""
    text = _text(path)
    if text is None:
        return None
    from kschedctl.api.decoding import DecodeError, yaml_documents
    from kschedctl.api.locate import locate_in_yaml

    try:
        for index, doc in enumerate(yaml_documents(text)):
            if index != doc_index:
                continue
            if item_index is not None:
                spans = doc.item_spans or []
                if item_index >= len(spans):
                    return None
                return locate_in_yaml(text, spans[item_index], True, field_path)
            return locate_in_yaml(text, doc.span, False, field_path)
    except DecodeError:
        return None
    return None


__all__ = ["Source", "files_overlay", "locate", "locate_line", "overlay_files", "remember_text"]
