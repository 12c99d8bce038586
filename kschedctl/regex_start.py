"""Compiled regular expressions, kept between runs as Python keeps a module's bytecode.

``re.compile`` parses a pattern and writes its matcher's code in Python (``re._parser``,
``re._compiler``) in every process that compiles it, and most patterns are compiled when a
module is imported: a `kschedctl schedule` compiles about 75 (kschedctl's own names, quantities
and durations; PyYAML's resolver; json, platform, gettext, fractions...), some 9-12 ms of a
160 ms run. What it writes for a given pattern, flags and interpreter never changes, and
``_sre.compile`` makes the pattern object from it directly (checking the code as it does for
any compile).

:func:`install` reads the kept entries and puts each pattern object in ``re``'s own cache under
the key ``re.compile`` looks up before compiling (type, pattern, flags), so those compiles are
look-ups. It also watches ``re._compiler.compile``: a pattern compiled anyway (new, changed, or
evicted) is recorded with the exact arguments the compiler handed ``_sre.compile``, and written
back at exit. The file follows kschedctl/startup.py's: the user's cache directory, keyed by the
interpreter (cache tag in the name; bytecode magic, ``_sre.MAGIC`` and code size in the header),
written atomically and never when bytecode is not (PYTHONDONTWRITEBYTECODE); a file that cannot
be read, or an entry ``_sre`` refuses, is ignored. Only CPython 3.11 to 3.13, whose ``re`` works
this way, use it; elsewhere nothing changes. Only the command line installs it
(``kschedctl.cli``), before the modules whose patterns it keeps are imported.
"""

from __future__ import annotations

import atexit
import importlib.util
import re
import sys
import threading
import types
from typing import Any

from kschedctl.startup import StrPath, cache_path, read_marshalled, write_marshalled

_sre: Any = sys.modules["_sre"]  # re's matching engine, loaded with re (no type stubs)

HEADER = b"kschedctl-regex-code-2\n" + importlib.util.MAGIC_NUMBER + f"{_sre.MAGIC}:{_sre.CODESIZE}:{sys.byteorder}\n".encode()
MAX_ENTRIES = 256  # half of re's own cache (_MAXCACHE, 512): past this the file starts again
_SKIP = re.DEBUG | re.TEMPLATE  # compiles re never caches, or warns about each time

Key = tuple[type, Any, int]  # re's cache key: (type(pattern), pattern, flags)
Entry = tuple[Any, int, int, list[int], int, dict[Any, int], tuple[Any, ...]]


def supported() -> bool:
    """Whether this interpreter's ``re`` is the one described above."""
    return (
        sys.implementation.name == "cpython"
        and (3, 11) <= sys.version_info[:2] <= (3, 13)
        and _sre.CODESIZE == 4  # a matcher's code kept as 32-bit words (see _entry)
        and isinstance(getattr(re, "_cache", None), dict)
        and callable(getattr(getattr(re, "_compiler", None), "compile", None))
    )


class PatternCache:
    """The kept entries, seeded into ``re``'s cache; compiles seen since, to write back."""

    def __init__(self, path: StrPath, write: bool) -> None:
        self.path = path
        self.write = write
        self.kept = read(path)
        self.new: dict[Key, Entry] = {}
        self._last = threading.local()  # the arguments of this thread's latest _sre.compile

    def seed(self) -> int:
        """Puts each kept pattern object in ``re._cache`` (not over a key already there);
        how many were put."""
        cache: dict[Any, Any] = re._cache  # type: ignore[attr-defined]
        put = 0
        for key, entry in self.kept.items():
            if key in cache:
                continue
            try:
                cache[key] = _sre.compile(*entry[0:1], *entry[2:])
            except Exception:  # noqa: BLE001 - an entry _sre refuses is left to re itself
                continue
            put += 1
        return put

    def record_compile(self, *args: Any) -> Any:
        """``_sre.compile`` as ``re._compiler`` calls it: its arguments noted, then the real call."""
        self._last.args = args
        return _sre.compile(*args)

    def watch(self, compile_: Any) -> Any:
        """``re._compiler.compile`` wrapped: a string pattern's compile is recorded under re's key."""

        def compile(p: Any, flags: int = 0) -> Any:
            self._last.args = None
            result = compile_(p, flags)
            args, flags = self._last.args, int(flags)
            if args is not None and isinstance(p, (str, bytes)) and args[0] is p and not flags & _SKIP:
                pattern, final, code, groups, groupindex, indexgroup = args
                # the compiler's opcodes are int subclasses (named constants): kept as plain ints
                self.new[(type(p), p, flags)] = (pattern, flags, final, [int(c) for c in code], groups, dict(groupindex), tuple(indexgroup))
            return result

        compile.__wrapped__ = compile_  # type: ignore[attr-defined]
        return compile

    def save(self) -> None:
        """Writes the entries back when this run compiled patterns the file lacked, merged with
        what another run wrote meanwhile; any failure leaves the file as it was."""
        if not self.write or not self.new:
            return
        merged = {**read(self.path), **self.new}
        if len(merged) > MAX_ENTRIES:  # the first compiles are the imports' own
            merged = dict(list(self.new.items())[:MAX_ENTRIES])
        try:
            kept = [_stored(entry) for entry in merged.values()]
        except (OverflowError, TypeError):  # a code word _sre would refuse: nothing to keep
            return
        write_marshalled(self.path, HEADER, kept)


def _stored(entry: Entry) -> tuple[Any, ...]:
    """An entry as the file holds it: the matcher's code as the bytes of its 32-bit words
    (native order, named in HEADER), which unmarshal as one string; as a list of ints each word
    was an object to read and to check, half the cost of reading the file."""
    import array  # only where a run writes the file (an extension module: not at every start)

    pattern, flags, final, code, groups, groupindex, indexgroup = entry
    return (pattern, flags, final, array.array("I", code).tobytes(), groups, groupindex, indexgroup)


def _entry(raw: Any) -> tuple[Key, Entry] | None:
    """A kept entry and its key, or None for anything but the shape save() writes."""
    if not (isinstance(raw, tuple) and len(raw) == 7):
        return None
    pattern, flags, final, code, groups, groupindex, indexgroup = raw
    shapes = (
        isinstance(pattern, (str, bytes)),
        type(flags) is int and type(final) is int and type(groups) is int,
        type(code) is bytes and len(code) % 4 == 0,
        isinstance(groupindex, dict) and isinstance(indexgroup, tuple),
    )
    if not all(shapes) or flags & _SKIP:
        return None
    words = memoryview(code).cast("I").tolist()  # 32-bit words (supported())
    return (type(pattern), pattern, flags), (pattern, flags, final, words, groups, groupindex, indexgroup)


def read(path: StrPath) -> dict[Key, Entry]:
    """The entries of a file; empty when it is missing, unreadable or not one of ours."""
    raw = read_marshalled(path, HEADER)
    if not isinstance(raw, list):
        return {}
    return dict(e for e in map(_entry, raw) if e is not None)


_installed: list[tuple[PatternCache, Any, Any]] = []  # the cache, re._compiler's compile and _sre


def install(path: StrPath | None = None) -> PatternCache | None:
    """Seeds ``re``'s cache from the file and records further compiles, for the rest of the
    process (once); None where this ``re`` is not one it knows, or there is no cache place."""
    if _installed:
        return _installed[0][0]
    where = path if path is not None else cache_path("regex-code")
    if where is None or not supported():
        return None
    cache = PatternCache(where, write=not sys.dont_write_bytecode)
    cache.seed()
    compiler: Any = re._compiler  # type: ignore[attr-defined]
    watched = types.ModuleType(_sre.__name__)
    watched.__dict__.update(_sre.__dict__)
    watched.compile = cache.record_compile  # type: ignore[attr-defined]
    _installed.append((cache, compiler.compile, compiler._sre))
    compiler._sre = watched
    compiler.compile = cache.watch(compiler.compile)
    atexit.register(cache.save)
    return cache


def uninstall() -> None:
    """Gives ``re._compiler`` its own compile back and forgets the cache (tests); what was
    seeded stays in ``re``'s cache, as any compile would."""
    if _installed:
        cache, compile_, sre = _installed.pop()
        compiler: Any = re._compiler  # type: ignore[attr-defined]
        compiler.compile, compiler._sre = compile_, sre
        atexit.unregister(cache.save)
