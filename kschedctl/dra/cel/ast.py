"""The parsed form of a CEL expression (github.com/google/cel-go/common/ast, simplified).

Macros are expanded by the parser the way cel-go's parser/macro.go expands them, but into
dedicated nodes (``Comprehension`` with a ``kind``) rather than the generic fold, so that the
interpreter can run them directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True, eq=False)
class Node:
    pos: int = field(default=0, kw_only=True)  # offset in the source, for error messages


@dataclass(slots=True, eq=False)
class Literal(Node):
    value: Any = None


@dataclass(slots=True, eq=False)
class Ident(Node):
    name: str = ""


# The operands the parser always sets are required (keyword-only: they follow defaults).
@dataclass(slots=True, eq=False, kw_only=True)
class Select(Node):
    operand: Node
    field: str = ""
    test_only: bool = False  # has(a.b)
    optional: bool = False  # a.?b


@dataclass(slots=True, eq=False, kw_only=True)
class Index(Node):
    operand: Node
    index: Node
    optional: bool = False  # a[?b]


@dataclass(slots=True, eq=False)
class Call(Node):
    function: str = ""
    target: Node | None = None  # receiver of a member call
    args: list[Node] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class ListLit(Node):
    elements: list[Node] = field(default_factory=list)
    optional_indices: frozenset[int] = frozenset()


@dataclass(slots=True, eq=False)
class MapLit(Node):
    entries: list[tuple[Node, Node, bool]] = field(default_factory=list)  # key, value, optional


@dataclass(slots=True, eq=False, kw_only=True)
class Comprehension(Node):
    """A macro: ``kind`` is all, exists, exists_one, map, filter, bind, transformList,
    transformMap, transformMapEntry or sortBy. ``var2`` is set for two-variable forms."""

    kind: str = ""
    iter_range: Node
    var: str = ""
    var2: str | None = None
    body: Node  # predicate or transform
    extra: Node | None = None  # filter of map(x, f, t) / transformList(i, v, f, t); bind's result
