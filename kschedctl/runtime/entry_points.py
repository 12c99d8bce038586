"""Installed distributions' entry points of one group, read without importing importlib.metadata.

Importing importlib.metadata (and the email parser it brings) costs about 15 ms, every command's
start-up, to find the `kschedctl` plugin packages. For the usual layout, directories on sys.path
holding ``NAME-VERSION.dist-info`` (or ``.egg-info``) directories, this module reads the same
files as importlib.metadata.entry_points(group=...) does (Python 3.11's FastPath, Lookup,
Prepared.normalize, Sectioned and Pair, EntryPoint.load):

* the distributions of each sys.path directory in listing order, the first one of each
  normalized name along sys.path winning (an entry that does not exist holds none);
* each one's entry_points.txt: stripped lines, blank ones and ``#`` comments skipped, ``[group]``
  headers, ``name = value`` pairs;
* a distribution's Name and Version from its METADATA (else PKG-INFO) headers, read when asked.

Anything else on the way (a zip file or an .egg on sys.path, a distribution finder on
sys.meta_path other than the path finder, or none, a pair without ``=``, headers it cannot
read) sends the whole question to importlib.metadata itself. tests/test_entry_points.py holds the two equal.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from importlib import import_module
from typing import Any

_METADATA_SUFFIXES = (".dist-info", ".egg-info")
# EntryPoint.pattern (importlib.metadata): module, optional :attr, optional [extras]
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


class _Unsupported(Exception):
    """A layout this reader does not cover: importlib.metadata answers instead."""


class Distribution:
    """The ``name`` and ``version`` of an installed distribution, read from its metadata file."""

    __slots__ = ("path", "_headers")

    def __init__(self, path: str) -> None:
        self.path = path
        self._headers: dict[str, str] | None = None

    @property
    def name(self) -> Any:
        return self._header("Name")

    @property
    def version(self) -> Any:
        return self._header("Version")

    def _header(self, key: str) -> Any:
        if self._headers is None:
            self._headers = _read_headers(self.path)
        value = self._headers.get(key.lower())
        if value is None:  # a header it did not read: importlib.metadata's own answer (None if absent)
            import importlib.metadata
            from pathlib import Path

            return getattr(importlib.metadata.PathDistribution(Path(self.path)), key.lower())
        return value


class EntryPoint:
    """One entry point: ``name = value`` of ``group``, from ``dist``."""

    __slots__ = ("name", "value", "group", "dist")

    def __init__(self, name: str, value: str, group: str, dist: Distribution) -> None:
        self.name, self.value, self.group, self.dist = name, value, group, dist

    def load(self) -> Any:
        """The object the value names (EntryPoint.load): the module, then its attributes."""
        match = _VALUE.match(self.value)
        module = import_module(match.group("module"))  # type: ignore[union-attr]
        attrs = filter(None, (match.group("attr") or "").split("."))  # type: ignore[union-attr]
        return functools.reduce(getattr, attrs, module)

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def entry_points(group: str) -> list[Any]:
    """The entry points of ``group``, as importlib.metadata.entry_points(group=group) lists them."""
    try:
        return _scan(group)
    except _Unsupported:
        import importlib.metadata

        return list(importlib.metadata.entry_points(group=group))


def _normalize(name: str) -> str:
    """Prepared.normalize: PEP 503 normalization, dashes as underscores."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _scan(group: str) -> list[EntryPoint]:
    from importlib.machinery import PathFinder

    if not hasattr(PathFinder, "find_distributions") or any(
        finder is not PathFinder and hasattr(finder, "find_distributions") for finder in sys.meta_path
    ):
        raise _Unsupported  # e.g. the importlib_metadata backport's finder, which replaces the path finder's
    seen: set[str] = set()
    out: list[EntryPoint] = []
    for entry in sys.path:
        for path in _distributions(entry, seen):
            out.extend(_group_entry_points(path, group))
    return out


def _distributions(entry: str, seen: set[str]) -> list[str]:
    """The metadata directories of one sys.path entry not shadowed by an earlier one (Lookup:
    grouped by normalized name in listing order)."""
    if not isinstance(entry, str):
        raise _Unsupported
    root = entry or "."
    if root.lower().endswith(".egg"):
        raise _Unsupported
    try:
        children = os.listdir(root)
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise _Unsupported from None  # a zip file on sys.path
    except OSError:
        if os.path.isfile(root):
            raise _Unsupported from None
        return []
    by_name: dict[str, list[str]] = {}
    for child in children:
        low = child.lower()
        if low.endswith(_METADATA_SUFFIXES):
            if not child.endswith(_METADATA_SUFFIXES):
                raise _Unsupported  # importlib.metadata would name it from its metadata, not its stem
            by_name.setdefault(_normalize(low.rpartition(".")[0].partition("-")[0]), []).append(child)
    out: list[str] = []
    for name, found in by_name.items():
        for child in found:
            if name not in seen:
                seen.add(name)
                out.append(os.path.join(root, child))
    return out


def _read(path: str, filename: str) -> str | None:
    """PathDistribution.read_text: None when the file cannot be read."""
    try:
        with open(os.path.join(path, filename), encoding="utf-8") as fh:
            return fh.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return None


def _group_entry_points(path: str, group: str) -> list[EntryPoint]:
    """Sectioned.section_pairs over entry_points.txt, kept for ``group``."""
    text = _read(path, "entry_points.txt")
    if not text:
        return []
    dist = Distribution(path)
    out: list[EntryPoint] = []
    section: str | None = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section is None:
            continue
        if "=" not in line:
            raise _Unsupported  # importlib.metadata fails on it: let it say how
        name, value = (part.strip() for part in line.split("=", 1))
        if section == group:
            out.append(EntryPoint(name, value, group, dist))
    return out


def _read_headers(path: str) -> dict[str, str]:
    """The first value of each header of METADATA (else PKG-INFO), as the email parser gives
    it for a single line; {} when there is no such file or a header spans several lines."""
    text = _read(path, "METADATA") or _read(path, "PKG-INFO") or ""
    headers: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            break
        if line[0] in " \t" or ":" not in line:
            return {}  # a folded or odd header: importlib.metadata reads the file itself
        key, value = line.split(":", 1)
        headers.setdefault(key.strip().lower(), value.lstrip(" \t").rstrip("\r\n"))
    return headers


__all__ = ["Distribution", "EntryPoint", "entry_points"]
