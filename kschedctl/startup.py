"""The compiled methods of dataclasses, kept between runs as Python keeps a module's bytecode.

``@dataclass`` writes the source of each method it adds (``__init__``, ``__repr__``,
``__eq__``...) and compiles it with ``exec`` when the class is defined, on every start of the
process: a `kschedctl schedule` defines about 170 dataclasses and makes about 780 such compiles,
some 35 ms, a fifth of a small run. The source text is the same from one run to the next, so
its code object is too: :func:`install` keeps them in one file of the user's cache directory
and hands dataclasses the kept code instead of compiling the text again.

- The file is ``$XDG_CACHE_HOME/kschedctl/`` (``~/.cache/kschedctl/`` without it), not the
  package's ``__pycache__``: pip removes only the files it installed, and a file left there
  after an uninstall keeps the package's directory, which then shadows the next (editable)
  install as a namespace package.
- It is keyed by the interpreter (``sys.implementation.cache_tag`` in its name, the bytecode
  magic number in its header), and an entry by the whole source text, so a kept code object
  is always the compile of exactly the text asked for; it holds no data of the user's.
- It is written as Python writes bytecode: not when ``sys.dont_write_bytecode`` is set
  (PYTHONDONTWRITEBYTECODE), atomically, and not at all when the place is not writable. A file
  that cannot be read, or holds anything but text and code objects, is ignored.
- Only the command line installs it (``kschedctl.cli``), never an import of the library.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import importlib.util
import marshal
import os
import sys
import types
from typing import Any

HEADER = b"kschedctl-dataclass-code\n" + importlib.util.MAGIC_NUMBER

# A file's path as the caches take it. (No pathlib at start-up: it imports urllib.parse and
# ipaddress, ~4 ms of a small run that reads no path but these.)
StrPath = str | os.PathLike[str]
MAX_ENTRIES = 20000  # past this the file starts again from the current run's entries


class CodeCache:
    """Source text -> code object, loaded from and saved to ``path``."""

    def __init__(self, path: StrPath, write: bool) -> None:
        self.path = path
        self.write = write
        self.kept: dict[str, types.CodeType] = read(path)
        self.used: dict[str, types.CodeType] = {}
        self.compiled = 0  # texts this run compiled (not found in the file)

    def code(self, text: str) -> types.CodeType:
        """The code of ``text`` compiled as ``exec`` compiles a string."""
        found = self.kept.get(text)
        if found is None:
            found = compile(text, "<string>", "exec")
            self.kept[text] = found
            self.compiled += 1
        self.used[text] = found
        return found

    def exec(self, source: Any, globals_: Any = None, locals_: Any = None) -> None:
        """``exec`` as dataclasses calls it, with the kept code for a string."""
        if isinstance(source, str):
            source = self.code(source)
        builtins.exec(source, globals_, locals_)

    def save(self) -> None:
        """Writes the entries back when this run compiled new ones, merged with what another
        run wrote meanwhile; any failure leaves the file as it was."""
        if not self.write or not self.compiled:
            return
        merged = {**read(self.path), **self.used}
        if len(merged) > MAX_ENTRIES:
            merged = dict(self.used)
        write_marshalled(self.path, HEADER, merged)


def write_marshalled(path: StrPath, header: bytes, value: Any) -> None:
    """``header`` and ``value`` marshalled, written atomically (its directory made first);
    any failure leaves the file as it was. A cache's write (kschedctl/regex_start.py's too)."""
    try:
        write_atomic(path, header + marshal.dumps(value))
    except (OSError, ValueError):
        return


def write_atomic(path: StrPath, data: bytes) -> None:
    """Writes a new file beside ``path`` (its directory made first) and renames it over it,
    with the permissions Python gives a bytecode file (0o666 less the umask), so no reader ever
    sees half a file."""
    path = os.fspath(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_EXCL | os.O_CREAT | os.O_WRONLY, 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_marshalled(path: StrPath, header: bytes) -> Any:
    """What a cache file written by write_marshalled holds after ``header``; None when it is
    missing, unreadable, or not one of ours (another header, bytes that do not unmarshal)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if not data.startswith(header):
        return None
    try:  # through a view: a slice would copy the file (page faults are a run's cost too)
        return marshal.loads(memoryview(data)[len(header) :])
    except (EOFError, ValueError, TypeError):
        return None


def read(path: StrPath) -> dict[str, types.CodeType]:
    """The entries of a cache file; empty when it is missing, unreadable or not one of ours."""
    entries = read_marshalled(path, HEADER)
    if not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items() if isinstance(k, str) and isinstance(v, types.CodeType)}


def cache_path(name: str = "dataclass-code") -> str | None:
    """Where the file ``name`` lives: ``$XDG_CACHE_HOME/kschedctl`` (an absolute path, as the
    XDG base directory specification wants it), else ``~/.cache/kschedctl``; None without a
    cache tag or a home directory. (kschedctl/regex_start.py keeps its file beside this one.)"""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        base = xdg
    else:
        home = os.path.expanduser("~")  # $HOME, else the password entry's directory
        if home == "~" or not os.path.isabs(home):  # neither
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "kschedctl", f"{name}.{tag}.bin")


_installed: list[CodeCache] = []  # the process's cache, once installed


def install(path: StrPath | None = None) -> CodeCache | None:
    """Serves dataclasses' compiles from the cache for the rest of the process (once)."""
    if _installed:
        return _installed[0]
    where = path if path is not None else cache_path()
    if where is None:
        return None
    cache = CodeCache(where, write=not sys.dont_write_bytecode)
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]  # read before the builtin
    atexit.register(cache.save)
    _installed.append(cache)
    return cache


def uninstall() -> None:
    """Gives dataclasses the builtin ``exec`` back and forgets the cache (tests)."""
    if _installed:
        atexit.unregister(_installed.pop().save)
        if hasattr(dataclasses, "exec"):
            delattr(dataclasses, "exec")
