"""A CEL parser following cel-go's grammar (parser/gen/CEL.g4) and macro expansion (parser/macro.go).

Errors are reported like cel-go's: ``ERROR: <input>:LINE:COL: Syntax error: ...`` followed by
the source line and a caret. Only what Kubernetes enables is accepted: the standard macros,
``cel.bind`` (ext.Bindings), two-variable comprehensions (ext.TwoVarComprehensions),
``sortBy`` (ext.Lists v3) and optional syntax (cel.OptionalTypes).
"""

from __future__ import annotations

import re
from typing import Any

from kschedctl.dra.cel.ast import (
    Call,
    Comprehension,
    Ident,
    Index,
    ListLit,
    Literal,
    MapLit,
    Node,
    Select,
)
from kschedctl.dra.cel.values import CelError, UInt, bytes_value

RESERVED = frozenset(
    {
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\n\r\f]+|//[^\n]*)
  | (?P<num>0[xX][0-9a-fA-F]+[uU]?|(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?)|[0-9]+[uU]?)
  | (?P<str>(?:[rR][bB]?|[bB][rR]?)?(?:\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
  | (?P<ident>[_a-zA-Z][_a-zA-Z0-9]*)
  | (?P<op>==|!=|<=|>=|&&|\|\||[-+*/%!<>?:.,()\[\]{}])
""",
    re.VERBOSE | re.DOTALL,
)


class CelSyntaxError(Exception):
    """A parse error, worded and located as cel-go reports it."""


def _error(src: str, pos: int, message: str) -> CelSyntaxError:
    line_no = src.count("\n", 0, pos) + 1
    line_start = src.rfind("\n", 0, pos) + 1
    line_end = src.find("\n", pos)
    line = src[line_start : None if line_end < 0 else line_end]
    col = pos - line_start
    caret = "." * col + "^"
    return CelSyntaxError(f"ERROR: <input>:{line_no}:{col + 1}: {message}\n | {line}\n | {caret}")


def _tokenize(src: str) -> list[tuple[str, str, int]]:
    tokens: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(src):
        m = _TOKEN_RE.match(src, pos)
        if m is None:
            ch = src[pos]
            raise _error(src, pos, f"Syntax error: token recognition error at: '{ch}'")
        kind = m.lastgroup
        assert kind is not None  # every alternative of _TOKEN_RE is a named group
        text = m.group()
        if kind != "ws":
            tokens.append((kind, text, pos))
        pos = m.end()
    tokens.append(("eof", "<EOF>", len(src)))
    return tokens


# what a primary expression may start with (ANTLR's "expecting {...}" in cel-go's messages)
_PRIMARY_TOKENS = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "`": "`", "?": "?"}


def _unescape(body: str, is_bytes: bool) -> str | bytes:
    """parser/unescape.go: CEL escapes, octal/hex/unicode escapes; bytes keep raw octets."""
    out: list[Any] = []  # str pieces, or bytes pieces when is_bytes
    i = 0
    n = len(body)
    while i < n:
        ch = body[i]
        if ch != "\\":
            out.append(ch.encode() if is_bytes else ch)
            i += 1
            continue
        if i + 1 >= n:
            raise ValueError("unable to unescape string")
        esc = body[i + 1]
        if esc in _ESCAPES:
            out.append(_ESCAPES[esc].encode() if is_bytes else _ESCAPES[esc])
            i += 2
        elif esc in "xX" or esc in "uU" or esc in "01234567":
            if esc in "xX":
                digits, base, i2 = body[i + 2 : i + 4], 16, i + 4
            elif esc == "u":
                digits, base, i2 = body[i + 2 : i + 6], 16, i + 6
            elif esc == "U":
                digits, base, i2 = body[i + 2 : i + 10], 16, i + 10
            else:
                digits, base, i2 = body[i + 1 : i + 4], 8, i + 4
            try:
                code = int(digits, base)
            except ValueError:
                raise ValueError("unable to unescape string") from None
            if is_bytes and (esc in "xX" or esc in "01234567"):
                out.append(bytes([code]))
            else:
                if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                    raise ValueError("unable to unescape string")
                out.append(chr(code).encode() if is_bytes else chr(code))
            i = i2
        else:
            raise ValueError("unable to unescape string")
    return b"".join(out) if is_bytes else "".join(out)


def _string_literal(text: str) -> str | bytes:
    prefix = ""
    while text[0] in "rRbB":
        prefix += text[0].lower()
        text = text[1:]
    quote = text[:3] if text[:3] in ('"""', "'''") else text[0]
    body = text[len(quote) : -len(quote)]
    is_bytes = "b" in prefix
    if "r" in prefix:
        return body.encode() if is_bytes else body
    return _unescape(body, is_bytes)


class Parser:
    def __init__(self, src: str) -> None:
        self.src = src
        self.tokens = _tokenize(src)
        self.i = 0

    # --- token helpers ---
    def peek(self, k: int = 0) -> tuple[str, str, int]:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def at(self, text: str) -> bool:
        kind, t, _ = self.tokens[self.i]
        return t == text and kind in ("op", "ident")

    def take(self) -> tuple[str, str, int]:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> int:
        kind, t, pos = self.peek()
        if t != text:
            raise _error(self.src, pos, f"Syntax error: mismatched input '{t}' expecting '{text}'")
        self.i += 1
        return pos

    # --- grammar ---
    def parse(self) -> Node:
        node = self.expr()
        kind, t, pos = self.peek()
        if kind != "eof":
            raise _error(self.src, pos, f"Syntax error: extraneous input '{t}' expecting <EOF>")
        return node

    def expr(self) -> Node:
        cond = self.conditional_or()
        if self.at("?"):
            pos = self.take()[2]
            truthy = self.conditional_or()
            self.expect(":")
            falsy = self.expr()
            return Call(function="_?_:_", args=[cond, truthy, falsy], pos=pos)
        return cond

    def conditional_or(self) -> Node:
        node = self.conditional_and()
        while self.at("||"):
            pos = self.take()[2]
            node = Call(function="_||_", args=[node, self.conditional_and()], pos=pos)
        return node

    def conditional_and(self) -> Node:
        node = self.relation()
        while self.at("&&"):
            pos = self.take()[2]
            node = Call(function="_&&_", args=[node, self.relation()], pos=pos)
        return node

    _RELOPS = {"<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "==": "_==_", "!=": "_!=_", "in": "@in"}

    def relation(self) -> Node:
        node = self.addition()
        while True:
            kind, t, pos = self.peek()
            if t in self._RELOPS and (kind == "op" or t == "in"):
                self.i += 1
                node = Call(function=self._RELOPS[t], args=[node, self.addition()], pos=pos)
            else:
                return node

    def addition(self) -> Node:
        node = self.multiplication()
        while True:
            kind, t, pos = self.peek()
            if kind == "op" and t in "+-" and t:
                self.i += 1
                node = Call(function="_+_" if t == "+" else "_-_", args=[node, self.multiplication()], pos=pos)
            else:
                return node

    def multiplication(self) -> Node:
        node = self.unary()
        while True:
            kind, t, pos = self.peek()
            if kind == "op" and t in ("*", "/", "%"):
                self.i += 1
                node = Call(function={"*": "_*_", "/": "_/_", "%": "_%_"}[t], args=[node, self.unary()], pos=pos)
            else:
                return node

    def unary(self) -> Node:
        kind, t, pos = self.peek()
        if kind == "op" and t == "!":
            count = 0
            while self.at("!"):
                self.take()
                count += 1
            node = self.member()
            if count % 2 == 0:
                return node
            return Call(function="!_", args=[node], pos=pos)
        if kind == "op" and t == "-":
            count = 0
            while self.at("-"):
                self.take()
                count += 1
            nkind, ntext, npos = self.peek()
            if nkind == "num" and count % 2 == 1 and not self._followed_by_member(1):
                self.i += 1
                node = self._number(ntext, npos, negative=True)
                return node
            node = self.member()
            if count % 2 == 0:
                return node
            return Call(function="-_", args=[node], pos=pos)
        return self.member()

    def _followed_by_member(self, k: int) -> bool:
        _, t, _ = self.peek(k)
        return t in (".", "[")

    def member(self) -> Node:
        node = self.primary()
        while True:
            kind, t, pos = self.peek()
            if t == "." and kind == "op":
                self.i += 1
                optional = False
                if self.at("?"):
                    self.take()
                    optional = True
                ikind, name, ipos = self.take()
                if ikind != "ident":
                    raise _error(self.src, ipos, f"Syntax error: no viable alternative at input '.{name}'")
                if not optional and self.at("("):
                    self.take()
                    args = self.arg_list(")")
                    node = self._member_call(node, name, args, ipos)
                else:
                    node = Select(operand=node, field=name, optional=optional, pos=ipos - 1)
            elif t == "[" and kind == "op":
                self.i += 1
                optional = False
                if self.at("?"):
                    self.take()
                    optional = True
                index = self.expr()
                self.expect("]")
                node = Index(operand=node, index=index, optional=optional, pos=pos)
            else:
                return node

    def arg_list(self, close: str) -> list[Node]:
        args: list[Node] = []
        if self.at(close):
            self.take()
            return args
        while True:
            args.append(self.expr())
            if self.at(","):
                self.take()
                if self.at(close):  # trailing comma
                    self.take()
                    return args
                continue
            self.expect(close)
            return args

    def primary(self) -> Node:
        kind, t, pos = self.take()
        if kind == "num":
            return self._number(t, pos)
        if kind == "str":
            try:
                value = _string_literal(t)
            except ValueError as exc:
                raise _error(self.src, pos, f"Syntax error: {exc}") from None
            return Literal(value=bytes_value(value) if isinstance(value, bytes) else value, pos=pos)
        if kind == "ident":
            if t == "true":
                return Literal(value=True, pos=pos)
            if t == "false":
                return Literal(value=False, pos=pos)
            if t == "null":
                return Literal(value=None, pos=pos)
            if t in RESERVED or t == "in":
                raise _error(self.src, pos, f"reserved identifier: {t}")
            if self.at("("):
                self.take()
                args = self.arg_list(")")
                return self._global_call(t, args, pos)
            return Ident(name=t, pos=pos)
        if t == "." and kind == "op":
            ikind, name, ipos = self.take()
            if ikind != "ident":
                raise _error(self.src, ipos, f"Syntax error: no viable alternative at input '.{name}'")
            if self.at("("):
                self.take()
                return self._global_call(name, self.arg_list(")"), ipos)
            return Ident(name=name, pos=ipos)
        if t == "(":
            node = self.expr()
            self.expect(")")
            return node
        if t == "[":
            return self._list(pos)
        if t == "{":
            return self._map(pos)
        if kind == "eof":
            raise _error(self.src, pos, f"Syntax error: mismatched input '<EOF>' expecting {_PRIMARY_TOKENS}")
        raise _error(self.src, pos, f"Syntax error: mismatched input '{t}' expecting {_PRIMARY_TOKENS}")

    def _list(self, pos: int) -> Node:
        elements: list[Node] = []
        optional: set[int] = set()
        while not self.at("]"):
            if self.at("?"):
                self.take()
                optional.add(len(elements))
            elements.append(self.expr())
            if self.at(","):
                self.take()
                continue
            break
        self.expect("]")
        return ListLit(elements=elements, optional_indices=frozenset(optional), pos=pos)

    def _map(self, pos: int) -> Node:
        entries: list[tuple[Node, Node, bool]] = []
        while not self.at("}"):
            opt = False
            if self.at("?"):
                self.take()
                opt = True
            key = self.expr()
            self.expect(":")
            value = self.expr()
            entries.append((key, value, opt))
            if self.at(","):
                self.take()
                continue
            break
        self.expect("}")
        return MapLit(entries=entries, pos=pos)

    def _number(self, text: str, pos: int, negative: bool = False) -> Node:
        sign = "-" if negative else ""
        try:
            if text[-1] in "uU":
                if negative:
                    raise ValueError
                value = int(text[:-1], 0)
                if value >= 2**64:
                    raise ValueError
                return Literal(value=UInt(value), pos=pos)
            if text.lower().startswith("0x"):
                value = int(sign + text, 16)
            elif any(c in text for c in ".eE"):
                return Literal(value=float(sign + text), pos=pos)
            else:
                value = int(sign + text, 10)
            if not -(2**63) <= value < 2**63:
                raise ValueError
            return Literal(value=value, pos=pos)
        except ValueError:
            is_double = any(c in text for c in ".eE") and not text.lower().startswith("0x")
            what = "uint" if text[-1] in "uU" else ("double" if is_double else "int")
            raise _error(self.src, pos, f"invalid {what} literal") from None

    # --- macros (parser/macro.go) ---
    def _simple_name(self, node: Node, macro_pos: int) -> str:
        if not isinstance(node, Ident):
            raise _error(self.src, node.pos, "argument must be a simple name")
        return node.name

    def _global_call(self, name: str, args: list[Node], pos: int) -> Node:
        if name == "has" and len(args) == 1:
            arg = args[0]
            if not isinstance(arg, Select) or arg.optional:
                raise _error(self.src, arg.pos, "invalid argument to has() macro")
            return Select(operand=arg.operand, field=arg.field, test_only=True, pos=pos)
        return Call(function=name, args=args, pos=pos)

    def _member_call(self, target: Node, name: str, args: list[Node], pos: int) -> Node:
        n = len(args)
        if name == "bind" and n == 3 and isinstance(target, Ident) and target.name == "cel":
            var = self._simple_name(args[0], pos)
            return Comprehension(kind="bind", var=var, iter_range=args[1], body=args[2], pos=pos)
        if name in ("all", "exists", "exists_one", "existsOne") and n in (2, 3):
            if name == "existsOne" and n == 2:
                return Call(function=name, target=target, args=args, pos=pos)
            kind = "exists_one" if name in ("exists_one", "existsOne") else name
            if n == 2:
                return Comprehension(kind=kind, iter_range=target, var=self._simple_name(args[0], pos), body=args[1], pos=pos)
            var, var2 = self._two_vars(args, pos)
            return Comprehension(kind=kind, iter_range=target, var=var, var2=var2, body=args[2], pos=pos)
        if name == "map" and n in (2, 3):
            var = self._simple_name(args[0], pos)
            if n == 2:
                return Comprehension(kind="map", iter_range=target, var=var, body=args[1], pos=pos)
            return Comprehension(kind="map", iter_range=target, var=var, body=args[2], extra=args[1], pos=pos)
        if name == "filter" and n == 2:
            return Comprehension(kind="filter", iter_range=target, var=self._simple_name(args[0], pos), body=args[1], pos=pos)
        if name in ("transformList", "transformMap") and n in (3, 4):
            var, var2 = self._two_vars(args, pos)
            if n == 3:
                return Comprehension(kind=name, iter_range=target, var=var, var2=var2, body=args[2], pos=pos)
            return Comprehension(kind=name, iter_range=target, var=var, var2=var2, body=args[3], extra=args[2], pos=pos)
        if name == "transformMapEntry" and n in (3, 4):
            var, var2 = self._two_vars(args, pos)
            if n == 3:
                return Comprehension(kind=name, iter_range=target, var=var, var2=var2, body=args[2], pos=pos)
            return Comprehension(kind=name, iter_range=target, var=var, var2=var2, body=args[3], extra=args[2], pos=pos)
        if name == "sortBy" and n == 2:
            return Comprehension(kind="sortBy", iter_range=target, var=self._simple_name(args[0], pos), body=args[1], pos=pos)
        if name in ("optMap", "optFlatMap") and n == 2:
            return Comprehension(kind=name, iter_range=target, var=self._simple_name(args[0], pos), body=args[1], pos=pos)
        return Call(function=name, target=target, args=args, pos=pos)

    def _two_vars(self, args: list[Node], pos: int) -> tuple[str, str]:
        var = self._simple_name(args[0], pos)
        var2 = self._simple_name(args[1], pos)
        if var == var2:
            raise _error(self.src, args[1].pos, f"duplicate variable name: {var}")
        return var, var2


def parse(src: str) -> Node:
    """Parse ``src`` or raise CelSyntaxError with cel-go's wording."""
    return Parser(src).parse()


__all__ = ["CelError", "CelSyntaxError", "parse"]
