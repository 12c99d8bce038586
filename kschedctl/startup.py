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
- It is an indexed file (:class:`IndexedFile`) of one entry per module (the namespace
  dataclasses compiles a class's methods in): a run reads the index, and a module's code when
  it defines the module's first dataclass. Read whole, the file cost a run in proportion to
  its history (what every command and every release run with this interpreter compiled: 6-8
  ms at 1,200 texts, of which a 500-node `schedule` uses 680), not to what the run uses. A
  save writes each module the run defined dataclasses of as the run found them, so a
  module's entry never keeps its earlier releases' texts.
- It is written as Python writes bytecode: not when ``sys.dont_write_bytecode`` is set
  (PYTHONDONTWRITEBYTECODE), atomically, and not at all when the place is not writable. A file
  that cannot be read, or an entry that holds anything but a code object, is ignored.
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
from collections.abc import Callable, Mapping
from typing import Any

HEADER = b"kschedctl-dataclass-code-2\n" + importlib.util.MAGIC_NUMBER

# A file's path as the caches take it. (No pathlib at start-up: it imports urllib.parse and
# ipaddress, ~4 ms of a small run that reads no path but these.)
StrPath = str | os.PathLike[str]
MAX_MODULES = 5000  # past this the file starts again from the current run's modules


class CodeCache:
    """Source text -> code object, read from and saved to ``path`` a module at a time."""

    def __init__(self, path: StrPath, write: bool) -> None:
        self.path = path
        self.write = write
        self.file = IndexedFile(path, HEADER, _is_group_entry)
        self.groups: dict[str | None, dict[str, types.CodeType]] = {}  # the modules' entries read so far
        self.used: dict[str | None, dict[str, types.CodeType]] = {}  # what this run asked for, by module
        self.compiled = 0  # texts this run compiled (not found in the file)

    @property
    def kept(self) -> dict[Any, Item]:
        """The file's index: the modules it holds code for."""
        return self.file.index

    def code(self, text: str, module: str | None = None) -> types.CodeType:
        """The code of ``text`` compiled as ``exec`` compiles a string, for a dataclass of
        ``module``."""
        group = self.groups.get(module)
        if group is None:
            group = self.groups[module] = self._group(module)
        found = group.get(text)
        if found is None:
            found = group[text] = compile(text, "<string>", "exec")
            self.compiled += 1
        self.used.setdefault(module, {})[text] = found
        return found

    def _group(self, module: str | None) -> dict[str, types.CodeType]:
        """The file's entries for ``module``: none when it has none, or none it can read."""
        data = self.file.data(module)
        if data is None:
            return {}
        try:
            value = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            return {}
        if not isinstance(value, dict):
            return {}
        return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, types.CodeType)}

    def exec(self, source: Any, globals_: Any = None, locals_: Any = None) -> None:
        """``exec`` as dataclasses calls it (``globals_`` the class's module's namespace), with
        the kept code for a string."""
        if isinstance(source, str):
            module = globals_.get("__name__") if isinstance(globals_, dict) else None
            source = self.code(source, module if isinstance(module, str) else None)
        builtins.exec(source, globals_, locals_)

    def save(self) -> None:
        """Writes the file again when this run compiled texts it lacked: each module this run
        defined dataclasses of holds what this run asked for (its classes as they are now, so
        a module's entry never keeps the texts of its earlier releases), the others what the
        file holds now (read again, not unmarshalled: another run may have written it); any
        failure leaves the file as it was."""
        if not self.write or not self.compiled:
            return
        fresh = {module: ((), marshal.dumps(texts)) for module, texts in self.used.items()}
        merged = {**read_entries(self.path, HEADER, _is_group_entry), **fresh}
        if len(merged) > MAX_MODULES:
            merged = fresh
        write_indexed(self.path, HEADER, merged)


def _is_group_entry(key: Any, facts: tuple[Any, ...]) -> bool:
    return (key is None or isinstance(key, str)) and facts == ()


# An indexed file: a header, the index's length (8 bytes, little-endian), the index (marshalled:
# key -> (*facts, offset, length), the place of the entry's bytes in what follows), then the
# entries' bytes. Only the index is read at start; an entry is read (one os.pread) when asked
# for, so a run holds no copy of the file and reads only the entries it uses.
Item = tuple[tuple[Any, ...], int, int]  # (facts, offset, length)
Keep = Callable[[Any, tuple[Any, ...]], bool]  # whether an index entry is one the reader takes


class IndexedFile:
    """An indexed file opened for reading: its index, and each entry's bytes on demand (the
    dataclass code here, kschedctl's modules in kschedctl/module_start.py)."""

    def __init__(self, path: StrPath, header: bytes, keep: Keep) -> None:
        self.index: dict[Any, Item] = {}
        self.fd: int | None = None
        self.base = 0
        try:
            self.fd = os.open(path, os.O_RDONLY)
        except OSError:
            return
        try:
            self.index, self.base = _read_index(self.fd, header, keep)
        except (OSError, EOFError, ValueError, TypeError):
            self.index = {}
        if not self.index:
            self.close()

    def data(self, key: Any) -> bytes | None:
        """The bytes of ``key``'s entry as the file holds them; None when it has none, or
        they cannot be read."""
        found = self.index.get(key)
        if found is None or self.fd is None:
            return None
        _, offset, length = found
        try:
            data = os.pread(self.fd, length, self.base + offset)
        except OSError:
            return None
        return data if len(data) == length else None

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _read_index(fd: int, header: bytes, keep: Keep) -> tuple[dict[Any, Item], int]:
    """The index of the file open at ``fd`` (the entries ``keep`` takes) and where the entries
    after it begin; every length is checked against the file's size before anything is read
    for it."""
    total = os.fstat(fd).st_size
    head = os.pread(fd, len(header) + 8, 0)
    if len(head) != len(header) + 8 or not head.startswith(header):
        return {}, 0
    size = int.from_bytes(head[len(header) :], "little")
    base = len(header) + 8 + size
    if base > total:
        return {}, 0
    raw = os.pread(fd, size, len(header) + 8)
    if len(raw) != size:
        return {}, 0
    value = marshal.loads(raw)
    index = {}
    if isinstance(value, dict):
        for key, item in value.items():
            found = _index_item(item, total - base)
            if found is not None and keep(key, found[0]):
                index[key] = found
    return index, base


def _index_item(value: Any, room: int) -> Item | None:
    """An index entry, when well formed and its bytes lie within the ``room`` after the index."""
    if not (isinstance(value, tuple) and len(value) >= 2):
        return None
    offset, length = value[-2:]
    if type(offset) is int and type(length) is int and offset >= 0 and length > 0 and offset + length <= room:
        return value[:-2], offset, length
    return None


def read_entries(path: StrPath, header: bytes, keep: Keep) -> dict[Any, tuple[tuple[Any, ...], bytes]]:
    """Every entry of an indexed file, its bytes included; empty when it is missing,
    unreadable or not one of ours (an entry whose bytes cannot be read is left out)."""
    file = IndexedFile(path, header, keep)
    try:
        out = {}
        for key, (facts, _, _) in file.index.items():
            data = file.data(key)
            if data is not None:
                out[key] = (facts, data)
        return out
    finally:
        file.close()


def write_indexed(path: StrPath, header: bytes, entries: Mapping[Any, tuple[tuple[Any, ...], bytes]]) -> None:
    """The indexed file of ``entries`` (key -> (facts, bytes)), written atomically as the
    other caches are; any failure leaves the file as it was."""
    index = {}
    blobs = []
    offset = 0
    for key, (facts, data) in entries.items():
        index[key] = (*facts, offset, len(data))
        blobs.append(data)
        offset += len(data)
    head = marshal.dumps(index)
    try:
        write_atomic(path, b"".join([header, len(head).to_bytes(8, "little"), head, *blobs]))
    except (OSError, ValueError):
        return


def write_marshalled(path: StrPath, header: bytes, value: Any) -> None:
    """``header`` and ``value`` marshalled, written atomically (its directory made first);
    any failure leaves the file as it was (kschedctl/regex_start.py's file)."""
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


def read(path: StrPath) -> dict[str | None, dict[str, types.CodeType]]:
    """The entries of a cache file, unmarshalled, by module; empty when it is missing,
    unreadable or not one of ours."""
    cache = CodeCache(path, write=False)
    try:
        out = {module: cache._group(module) for module in cache.kept}
    finally:
        cache.file.close()
    return {module: group for module, group in out.items() if group}


def write(path: StrPath, entries: Mapping[str | None, Mapping[str, types.CodeType]]) -> None:
    """A cache file of ``entries`` (module -> text -> code), as save() writes it."""
    write_indexed(path, HEADER, {module: ((), marshal.dumps(dict(texts))) for module, texts in entries.items()})


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
