"""Tables and text lines that fit the terminal.

The width is ``$COLUMNS`` when set, else the terminal's when standard output is one; when the
output goes to a pipe or a file (and ``COLUMNS`` is not set) nothing is wrapped, so ``grep`` and
scripts see one line per row, as with kubectl. A table too wide for the width first gets short
headers for the columns that allow it (score plugins: initials, explained in a legend line), then
its long free-text cells (filter reasons, messages, victims) are wrapped over several lines of
the same row. Nothing is ever dropped: ``-o wide`` prints everything on one line per row.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

SEPARATOR = 2  # tabulate's "plain" format puts two spaces between columns
HEADER_PADDING = 2  # and makes each column at least its header plus two wide (tabulate.MIN_PADDING)
MIN_WRAP_WIDTH = 16  # a wrapped column never gets narrower than this


def terminal_width() -> int | None:
    """The width to fit, or None: no limit (standard output is not a terminal)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.strip().isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if sys.stdout.isatty():
            return os.get_terminal_size(sys.stdout.fileno()).columns
    except (AttributeError, OSError, ValueError):
        pass
    return None


@dataclass
class Column:
    """A table column: its header, whether its cells may wrap, and whether its header may be
    shortened (then ``legend`` says what the short header stands for)."""

    header: str
    wrap: bool = False
    abbreviate: bool = False
    compact: Callable[[str], str] | None = None  # a shorter wording of a cell, used when the table must wrap
    common_suffix: bool = False  # may drop a dotted suffix every cell shares (node names' domain)


@dataclass
class FittedTable:
    """A table as fit_table made it: its text, and the legend lines for what it shortened (headers, a shared suffix)."""

    text: str
    legend: list[str] = field(default_factory=list)  # "NRF=NodeResourcesFit", for shortened headers


def fit_table(columns: Sequence[Column], rows: Sequence[Sequence[Any]], width: int | None) -> FittedTable:
    """The table as tabulate's plain format prints it, made to fit ``width`` where it can."""
    headers = [c.header for c in columns]
    cells = [["" if v is None else str(v) for v in row] for row in rows]
    if width is None or _table_width(headers, cells) <= width:
        return FittedTable(_tabulate(rows, headers))
    legend: list[str] = []
    for i, column in enumerate(columns):
        suffix = _common_suffix([row[i] for row in cells]) if column.common_suffix else ""
        if suffix:
            for row in cells:
                row[i] = row[i][: -len(suffix)] if row[i].endswith(suffix) else row[i]
            rows = [[_restore(orig, new) for orig, new in zip(row, cell_row)] for row, cell_row in zip(rows, cells)]
            legend.append(f"{column.header.lower()} names end in {suffix}")
    if _table_width(headers, cells) <= width:
        return FittedTable(_tabulate(rows, headers), legend)
    short = abbreviations([c.header for c in columns if c.abbreviate])
    if short:
        headers = [short.get(c.header, c.header) if c.abbreviate else c.header for c in columns]
        legend += [f"{short[c.header]}={c.header}" for c in columns if c.abbreviate and short[c.header] != c.header]
    wrapped = [i for i, c in enumerate(columns) if c.wrap]
    if wrapped and _table_width(headers, cells) > width:
        for i, column in enumerate(columns):
            if column.compact is not None:
                for row in cells:
                    row[i] = column.compact(row[i])
        budget = _wrap_budget(headers, cells, wrapped, width)
        for i, limit in budget.items():
            for row in cells:
                row[i] = wrap_cell(row[i], limit)
        rows = [[_restore(orig, new) for orig, new in zip(row, cell_row)] for row, cell_row in zip(rows, cells)]
    return FittedTable(_tabulate(rows, headers), legend)


MIN_SUFFIX = 8  # a shared suffix shorter than this is not worth a legend entry


def _common_suffix(values: list[str]) -> str:
    """The longest suffix starting at a dot that every non-empty value has, keeping a name
    in front of it ("ip-10-0-1-11.eu-west-1.compute.internal" -> ".eu-west-1.compute.internal")."""
    names = [v for v in values if v]
    if len(names) < 2:
        return ""
    shortest = min(names, key=len)
    for start in range(len(shortest)):
        if shortest[start] != ".":
            continue
        suffix = shortest[start:]
        if len(suffix) >= MIN_SUFFIX and all(
            n.endswith(suffix) and len(n) > len(suffix) and not n[: -len(suffix)].endswith(" ") for n in names
        ):
            return suffix
    return ""


def _restore(original: Any, cell: str) -> Any:
    """Keep numbers as numbers (tabulate right-aligns them); wrapped text becomes the cell."""
    return original if original is None or str(original) == cell else cell


def _tabulate(rows: Sequence[Sequence[Any]], headers: list[str]) -> str:
    from tabulate import tabulate  # on first use: `-o json` prints no table

    return tabulate(rows, headers=headers, tablefmt="plain")


def _column_widths(headers: list[str], cells: list[list[str]]) -> list[int]:
    widths = [len(h) + HEADER_PADDING for h in headers]
    for row in cells:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], max((len(line) for line in cell.split("\n")), default=0))
    return widths


def _table_width(headers: list[str], cells: list[list[str]]) -> int:
    widths = _column_widths(headers, cells)
    return sum(widths) + SEPARATOR * (len(widths) - 1)


def _wrap_budget(headers: list[str], cells: list[list[str]], wrapped: list[int], width: int) -> dict[int, int]:
    """How wide each wrapping column may be: what the fixed columns leave, shared evenly, and
    never less than MIN_WRAP_WIDTH (or the header); a narrow column keeps its natural width."""
    widths = _column_widths(headers, cells)
    fixed = sum(w for i, w in enumerate(widths) if i not in wrapped) + SEPARATOR * (len(widths) - 1)
    left = max(width - fixed, 0)
    budget: dict[int, int] = {}
    pending = sorted(wrapped, key=lambda i: widths[i])
    while pending:
        share = left // len(pending)
        i = pending.pop(0)
        limit = max(min(widths[i], share), MIN_WRAP_WIDTH, len(headers[i]) + HEADER_PADDING)
        budget[i] = limit
        left -= min(limit, left)
    return budget


def wrap_cell(text: str, width: int) -> str:
    """A cell's text over lines of at most ``width`` characters, broken after spaces and commas
    (a list like ``PreFilter,Filter,Score`` wraps too); a longer word is cut."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        lines += _greedy(paragraph, width)
    return "\n".join(lines)


def _greedy(text: str, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for chunk in _BREAK_AFTER.split(text):
        if not chunk:
            continue
        if line and len(line + chunk.rstrip()) > width:
            lines.append(line.rstrip())
            line = chunk.lstrip()
        else:
            line += chunk
        while len(line.rstrip()) > width:  # one word longer than the column
            lines.append(line[:width])
            line = line[width:]
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return lines


_BREAK_AFTER = re.compile(r"(?<=[ ,])(?! )")


def wrap_line(text: str, width: int | None, indent: str = "  ") -> str:
    """One free-text line (a pod's message) wrapped to ``width``, continuation lines indented."""
    if width is None or len(text) <= width:
        return text
    return "\n".join(textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False)) or text


_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def abbreviations(names: Sequence[str]) -> dict[str, str]:
    """A short, unique header per name: the initials of a CamelCase plugin name
    (NodeResourcesFit -> NRF); other names (an extender's URL) become E1, E2, ..."""
    out: dict[str, str] = {}
    used: set[str] = set()
    others = 0
    for name in names:
        if name in out:
            continue
        words = _WORD.findall(name) if re.fullmatch(r"[A-Za-z0-9]+", name) else []
        if words:
            # a CamelCase word gives its initial; an acronym or a number stays whole
            short = "".join(w if w.isdigit() or w.isupper() else w[0].upper() for w in words)
        else:
            others += 1
            short = f"E{others}"
        base, n = short, 2
        while short in used:
            short = f"{base}{n}"
            n += 1
        used.add(short)
        out[name] = short if len(short) < len(name) else name
    return out


__all__ = ["Column", "FittedTable", "abbreviations", "fit_table", "terminal_width", "wrap_cell", "wrap_line"]
