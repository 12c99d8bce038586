"""Output files: where a command writes, settled before it does anything, so that nothing the
user had is destroyed.

Every command that writes a file (``--report``, ``--write-snapshot``, ``capture -o``,
``sweep --results`` and its journal) follows the same rules:

- The path is resolved when the command starts (absolute, symlinks followed): code that runs
  later (a plugin may ``os.chdir()``) cannot move it, and a symlink is written through to its
  target (the link itself stays).
- It may not be one of the command's inputs (the same resolved path, or the same file by
  ``st_dev``/``st_ino``: a hard link or a bind mount), nor another output of the same command.
- Only regular files are written. An existing directory, FIFO, character or block device or
  socket is refused with one line (a FIFO would block until a reader comes; a rename over a
  device node would replace the node with a file, as root even ``/dev/full``). For a pipe, use
  standard output (``-o json | ...``).
- The file is written whole to a temporary file in the target's directory and renamed over it:
  the target is never truncated, a failed write leaves it as it was and no temporary file
  behind. An existing target keeps its permission bits; a new one gets ``0666 & ~umask``. A hard
  link to the target elsewhere keeps the old content (the rename gives the name a new file).

Each rule is one :class:`~kschedctl.api.errors.InputError` (exit 2) naming the path as given.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from kschedctl.api.errors import InputError

STDIN = "-"


@dataclass(frozen=True)
class OutputPath:
    """One output of a command: the flag that named it, the path as given, the resolved path."""

    flag: str  # "--report", "--write-snapshot", "-o", "--results", ... (how errors name it)
    given: str  # as the user wrote it
    path: str  # absolute, symlinks followed: where the bytes go

    def error(self, message: str) -> InputError:
        return InputError(f"{self.flag}: {message}", file=self.given or '""')


def kind_of(mode: int) -> str | None:
    """What a non-regular file is, in words (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def resolve_output(given: str, flag: str, create_directory: bool = False) -> OutputPath:
    """The output's resolved path, after the checks that need no input: it names something, its
    directory exists (unless the command creates it: ``create_directory``), and it is a regular
    file or does not exist yet."""
    if not given:
        raise InputError(f"{flag}: empty path: name a file to write", file='""')
    try:
        path = os.path.realpath(os.path.abspath(given))
    except (OSError, ValueError) as exc:  # a NUL byte, a symlink loop on some platforms
        raise InputError(f"{flag}: cannot resolve the path: {exc}", file=given) from None
    target = OutputPath(flag, given, path)
    _check_target(target, create_directory)
    return target


def _check_target(target: OutputPath, create_directory: bool = False) -> None:
    directory = os.path.dirname(target.path)
    try:
        st = os.stat(target.path)
    except FileNotFoundError:
        st = None
    except OSError as exc:  # ELOOP (a symlink loop), EACCES on a parent, ENAMETOOLONG
        raise target.error(f"cannot write: {exc.strerror or exc}") from None
    if st is not None:
        kind = kind_of(st.st_mode)
        if kind is not None:
            raise target.error(
                f"cannot write: {kind}, not a regular file (kschedctl writes regular files only; for a pipe use standard output)"
            )
        return
    if not create_directory and not os.path.isdir(directory):
        raise target.error(f"cannot write: no such directory {directory!r}")


def input_identities(files: Iterable[str]) -> dict[tuple[int, int], str]:
    """(st_dev, st_ino) -> the input as given, for every input that exists (``-`` and missing
    files left out: reading them fails later, with its own message)."""
    out: dict[tuple[int, int], str] = {}
    for f in files:
        if not f or f == STDIN:
            continue
        try:
            st = os.stat(f)
        except (OSError, ValueError):
            continue
        out.setdefault((st.st_dev, st.st_ino), f)
    return out


def check_outputs(outputs: Sequence[OutputPath], inputs: Iterable[str]) -> None:
    """No output is an input (resolved path or same file), and no two outputs are one file."""
    inputs = list(inputs)
    identities = input_identities(inputs)
    resolved: dict[str, str] = {}
    for f in inputs:
        if f and f != STDIN:
            try:
                resolved.setdefault(os.path.realpath(os.path.abspath(f)), f)
            except (OSError, ValueError):
                continue
    seen: dict[str, OutputPath] = {}
    for out in outputs:
        source = resolved.get(out.path)
        if source is None:
            try:
                st = os.stat(out.path)
                source = identities.get((st.st_dev, st.st_ino))
            except (OSError, ValueError):
                source = None
        if source is not None:
            same = "" if source == out.given else f" ({source}, the same file)"
            raise out.error(f"is one of this command's inputs{same}: writing it would destroy it; choose another file")
        other = seen.get(out.path)
        if other is not None:
            raise out.error(f"is also given to {other.flag}: give each output its own file")
        seen[out.path] = out


@contextmanager
def atomic_path(target: OutputPath) -> Iterator[str]:
    """A temporary file's path beside the target: fill it, and on leaving it is renamed over
    the target (or removed, if the block raised). OSError becomes InputError naming the target."""
    import tempfile  # ~1 ms of imports: only a run that writes an output file pays it

    directory = os.path.dirname(target.path)
    tmp: str | None = None
    try:
        _check_target(target, create_directory=True)  # again: the file may have changed since the command started
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target.path)}.", suffix=".tmp", dir=directory)
        os.close(fd)
        yield tmp
        _keep_mode(target.path, tmp)
        os.replace(tmp, target.path)
        tmp = None
    except OSError as exc:
        raise target.error(f"cannot write: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _keep_mode(path: str, tmp: str) -> None:
    """An existing target's permission bits; else those a plain `>` redirect would give."""
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)


def as_output(target: OutputPath | str, flag: str) -> OutputPath:
    """A library caller may pass a plain path: it is resolved and checked now."""
    return target if isinstance(target, OutputPath) else resolve_output(target, flag)


def beside(target: OutputPath, suffix: str, flag: str) -> OutputPath:
    """A file written next to an output (sweep's journal and lock beside its results): beside
    the resolved target, named for messages as the user would find it."""
    side = resolve_output(target.path + suffix, flag, create_directory=True)
    shown = target.given + suffix
    try:
        if os.path.realpath(os.path.abspath(shown)) != side.path:
            shown = side.path  # the results were a symlink: the journal is beside its target
    except (OSError, ValueError):
        shown = side.path
    return OutputPath(flag, shown, side.path)


def write_output(target: OutputPath, text: str | Callable[[], str]) -> None:
    """Write ``text`` (or what the callable renders) to the target, atomically."""
    with atomic_path(target) as tmp:
        body = text() if callable(text) else text
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(body)
            fh.flush()
            os.fsync(fh.fileno())


__all__ = [
    "OutputPath",
    "as_output",
    "atomic_path",
    "beside",
    "check_outputs",
    "input_identities",
    "kind_of",
    "resolve_output",
    "write_output",
]
