"""kschedctl's own modules imported from one file of their code, kept between runs.

Importing a module from its bytecode file runs ~45 us of the import system's own Python code
(the path finder, the file finder's checks, the bytecode file's header and timestamp, the
module's attributes) besides the module itself: ~10 ms of a 150 ms `kschedctl schedule`, which
imports some 210 of kschedctl's modules. :func:`install` puts a finder first on
``sys.meta_path`` that serves them from one file in the user's cache directory (beside the
dataclasses' methods and the patterns, kschedctl/startup.py): each entry is a module's code, as
the source loader read it from the bytecode file, with the source file's path, size and
modification time and its directory's modification time. A run reads the file's index, and a
module's code only when it imports it (one ``os.pread``: no copy of the file is held, which
would cost more in page faults than the import system's work it saves). An entry is served
only while all of the recorded facts are what they were:

- only kschedctl's submodules, and only when the entry's directory is where the import system
  would look (the parent package's ``__path__``): another installation of kschedctl (a
  checkout on PYTHONPATH, an editable install, another environment) is never served this one's
  code;
- the source file's size and modification time (in nanoseconds) as recorded: an edited module
  is imported the usual way (and recorded again at the end of the run);
- its directory's modification time as recorded: a file added or removed beside it (a package
  or an extension module of the same name, which the file finder would prefer) changes it, and
  every entry of that directory is then imported the usual way.

A served module's loader is a source loader of its file whose ``get_code`` returns the kept
code, so the module has what the usual import gives it (``__file__``, ``__cached__``,
``__path__``, its loader's data, source and resources), and tracebacks, ``inspect`` and the
schemas read beside the modules are unchanged. The dependencies' submodules are left to the
usual import: serving them too saved no more time on a 500-node run (a file twice as large to
read) and would change how other projects' modules are loaded.

The file is written as the other caches are (kschedctl/startup.py): at the end of a run that
imported some kschedctl module the usual way, by the process that installed it, not under
PYTHONDONTWRITEBYTECODE, atomically; one entry per module name, so it never outgrows the
package. A file or an entry that is not what this module writes is ignored. Only the command
line installs it (``kschedctl.cli``), never an import of the library.
"""

from __future__ import annotations

import atexit
import importlib.util
import marshal
import os
import sys
from importlib.machinery import ModuleSpec, SourceFileLoader
from types import CodeType, ModuleType
from typing import Any

from kschedctl.startup import IndexedFile, StrPath, cache_path, read_entries, write_indexed

HEADER = b"kschedctl-module-code-2\n" + importlib.util.MAGIC_NUMBER
PREFIX = "kschedctl."

# The file is an indexed file (kschedctl/startup.py's IndexedFile, HEADER first): module name
# -> Meta and the place of its marshalled code. Only the index is read at start; a module's code
# is read (os.pread) when it is imported, so a run holds no copy of the file and reads none of
# the modules it does not import.

# (source path, its size, its mtime_ns, is a package, its directory's mtime_ns)
Meta = tuple[str, int, int, bool, int]


class ServedLoader(SourceFileLoader):
    """The source loader of one module, its code taken from the cache instead of the bytecode
    file: everything else a loader answers (the file's name and data, the source, the package's
    resources) is the source loader's own."""

    def __init__(self, fullname: str, path: str, code: CodeType) -> None:
        super().__init__(fullname, path)
        self.code = code

    def get_code(self, fullname: str) -> Any:
        return self.code if fullname == self.name else super().get_code(fullname)


def _is_module_entry(name: Any, meta: tuple[Any, ...]) -> bool:
    """An index entry of a kschedctl module, with the facts Meta holds."""
    if not (isinstance(name, str) and name.startswith(PREFIX) and len(meta) == 5):
        return False
    origin, size, mtime, is_package, dir_mtime = meta
    return isinstance(origin, str) and isinstance(is_package, bool) and all(type(v) is int for v in (size, mtime, dir_mtime))


def _home(origin: str, is_package: bool) -> str:
    """The directory the import system looks in for a module: its file's, or for a package
    (``origin`` its ``__init__.py``) the one holding the package's directory."""
    return os.path.dirname(os.path.dirname(origin) if is_package else origin)


class ModuleCache:
    """The finder of kschedctl's modules kept in ``path``."""

    def __init__(self, path: StrPath, write: bool) -> None:
        self.path = path
        self.write = write
        self.pid = os.getpid()
        self.store = IndexedFile(path, HEADER, _is_module_entry)
        self.dirs: dict[str, int | None] = {}  # directory -> its mtime_ns now (once a process)
        self.missed: list[str] = []  # kschedctl modules left to the usual finders

    @property
    def entries(self) -> dict[Any, tuple[tuple[Any, ...], int, int]]:
        return self.store.index

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        """A spec for a kschedctl submodule whose entry is current, else None (the usual finders
        look for it)."""
        if path is None or not name.startswith(PREFIX):
            return None
        found = self.store.index.get(name)
        code = self._code(name) if found is not None and self._current(found[0], path) else None
        if found is None or code is None:
            self.missed.append(name)
            return None
        origin, _, _, is_package, _ = found[0]
        spec = ModuleSpec(name, ServedLoader(name, origin, code), origin=origin, is_package=is_package)
        spec.has_location = True
        if is_package:
            spec.submodule_search_locations = [os.path.dirname(origin)]
        return spec

    def _code(self, name: str) -> CodeType | None:
        data = self.store.data(name)
        if data is None:
            return None
        try:
            code = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            return None
        return code if isinstance(code, CodeType) else None

    def _current(self, meta: Meta, path: Any) -> bool:
        origin, size, mtime, is_package, dir_mtime = meta
        where = _home(origin, is_package)
        if where not in path or self._dir_mtime(where) != dir_mtime:
            return False
        try:
            stat = os.stat(origin)
        except OSError:
            return False
        return stat.st_size == size and stat.st_mtime_ns == mtime

    def _dir_mtime(self, where: str) -> int | None:
        if where not in self.dirs:
            try:
                self.dirs[where] = os.stat(where).st_mtime_ns
            except OSError:
                self.dirs[where] = None
        return self.dirs[where]

    def save(self) -> None:
        """Records the kschedctl modules this run imported the usual way, beside the entries
        the file holds now (another run may have written it meanwhile); nothing when there were
        none, in a forked child, or when not writing."""
        if not self.write or not self.missed or os.getpid() != self.pid:
            return
        fresh = {}
        for name in self.missed:
            entry = record(name, sys.modules.get(name))
            if entry is not None:
                fresh[name] = entry
        if fresh:
            write(self.path, {**read(self.path), **fresh})


# name -> (Meta, marshalled code): a file's whole content
Entries = dict[str, tuple[Meta, bytes]]


def record(name: str, module: ModuleType | None) -> tuple[Meta, bytes] | None:
    """The entry of a module the plain source loader imported under ``name``, or None (no
    such module, any other kind, or a file that changed since, which the next run imports the
    usual way)."""
    spec = getattr(module, "__spec__", None)
    loader = getattr(spec, "loader", None)
    origin = getattr(spec, "origin", None)
    if type(loader) is not SourceFileLoader or not isinstance(origin, str) or spec is None or spec.name != name:
        return None
    is_package = spec.submodule_search_locations is not None
    try:
        stat = os.stat(origin)
        code = loader.get_code(name)
        where = _home(origin, is_package)
        dir_mtime = os.stat(where).st_mtime_ns
    except (OSError, ImportError):
        return None
    if code is None:
        return None
    return (origin, stat.st_size, stat.st_mtime_ns, is_package, dir_mtime), marshal.dumps(code)


def read(path: StrPath) -> Entries:
    """Every entry of a cache file, code included; empty when it is missing, unreadable or not
    one of ours (an entry whose code cannot be read is left out)."""
    return read_entries(path, HEADER, _is_module_entry)


def write(path: StrPath, entries: Entries) -> None:
    """The file of ``entries``, written atomically as the other caches are; any failure leaves
    the file as it was."""
    write_indexed(path, HEADER, entries)


_installed: list[ModuleCache] = []  # the process's cache, once installed


def install(path: StrPath | None = None) -> ModuleCache | None:
    """Serves kschedctl's modules from the cache for the rest of the process (once)."""
    if _installed:
        return _installed[0]
    where = path if path is not None else cache_path("module-code")
    if where is None:
        return None
    cache = ModuleCache(where, write=not sys.dont_write_bytecode)
    sys.meta_path.insert(0, cache)
    atexit.register(cache.save)
    _installed.append(cache)
    return cache


def uninstall() -> None:
    """Takes the finder off ``sys.meta_path`` and forgets the cache (tests)."""
    if _installed:
        cache = _installed.pop()
        atexit.unregister(cache.save)
        if cache in sys.meta_path:
            sys.meta_path.remove(cache)
