"""Admission and the unknown-field check of a large file's objects, run ahead on a second core.

Reading SchedulingDaemonset's 15,000 nodes and 30,000 pods spends about two fifths of its time
admitting each object (kschedctl.api.admission) and looking for fields its schema lacks
(kschedctl.api.known_fields): both are pure functions of the object as read, and building an
object only needs to know that it was admitted. kube-apiserver admits every object before the
scheduler ever sees it; here the loader is both, on one core, while kube-scheduler's own loop
runs on two.

So, on Linux, once a large file's text is read, the loader forks a child that reads the same
objects from it, admits them and checks their fields in file order, and sends what it found
back through a pipe, a record per batch of objects. The loader builds object i only after the
child has admitted it: nothing unadmitted is ever built, and the first error is the one the
one-core order reports (object i's admission after object i - 1's build). Objects named from a
``generateName`` are admitted by the loader itself, after it names them. If the child cannot go
on (it raised, it was killed, it went silent), the loader admits and checks the rest itself, as
it does for a small or a huge file (a second parsed copy of it would cost gigabytes), in a
process with other threads at work (forking there is not safe), and where there is no ``fork``.
"""

from __future__ import annotations

import atexit
import os
import select
import signal
import struct
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

from kschedctl.api.admission import admit
from kschedctl.api.gosemantics import FieldError
from kschedctl.api.known_fields import unknown_fields
from kschedctl.api.names import needs_generated_name
from kschedctl.runtime.sandbox import idle_watchdog

# A smaller file's objects are admitted in the loader's own process: forking, and the pages
# the loader writes afterwards being copied once, cost about as much as admitting a thousand
# objects (some 400 KB of JSON). A larger one's too: the child's own parsed copy would be
# several gigabytes more.
MIN_TEXT = 1_000_000
MAX_TEXT = 200_000_000
# Seconds without a record after which the loader stops waiting and checks the rest itself.
SILENCE = 30.0
# The child sends a record once RECORD_SECONDS have passed since its last one, or BATCH
# objects, whichever comes first. The loader parses the text as the child does, then builds
# in file order and waits whenever the next object's verdict is not in yet: with records of a
# fixed 512 objects it waited for the child to finish each record it had caught up with (some
# 9 ms of a 4,990-claim file's load: at the first record, and at the ResourceSlices, which the
# child checks more slowly than anything else). A record per millisecond keeps such a wait
# under a millisecond at any mix of objects; reading a record costs the loader some 8 us.
RECORD_SECONDS = 0.001
BATCH = 512

UnknownFields = list[tuple[str, str | None]]
_HEADER = struct.Struct("<Q")


def can_fork() -> bool:
    """Whether forking is both possible and safe here: Linux, and no other thread running but
    the plugin watchdog with no plugin call to watch (a child of a busy threaded process may
    inherit a lock some other thread held; the child here runs admission only, no plugin)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    me = threading.current_thread()
    return all(t is me or idle_watchdog(t) for t in threading.enumerate())


class Verdicts:
    """The child's answers for one list of objects, read as the loader comes to them."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd: int | None = fd  # the pipe's reading end
        self.done = False  # the child sent its last record
        self.upto = 0  # answers are known for objects [0, upto)
        self.error: tuple[int, FieldError] | None = None  # the first admission error
        self.unknown: dict[int, UnknownFields] = {}
        self.own: set[int] = set()  # objects the child left to the loader (generateName)
        self.gave_up = False  # the child stopped early: the loader checks from upto on
        self.reaped = False

    @classmethod
    def start(cls, text: str, read: Callable[[], Sequence[Any]]) -> Verdicts | None:
        """A child checking the objects ``read()`` makes of a file's ``text``, in the order the
        loader's own reading of it gives them; None for a small file or when no child can be
        forked (the loader then checks each object itself).

        The child reads the text itself, beside the loader: forked before the loader's objects
        exist, it shares none of their pages, so neither process copies them when it writes."""
        _reap_finished()
        if not MIN_TEXT <= len(text) <= MAX_TEXT or not can_fork():
            return None
        # pickle (~2 ms) only once a child is to be started, before the fork so that both ends
        # of the pipe have it (_read_record here, _send in the child)
        import pickle  # noqa: F401

        read_fd, write_fd = os.pipe()
        try:
            with warnings.catch_warnings():
                # Python 3.12+ warns of any fork beside another thread; can_fork allowed only
                # the idle watchdog, and under -W error the warning would come after the fork
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            return None
        if pid == 0:  # the child: never returns
            os.close(read_fd)
            _child(read, write_fd)
        os.close(write_fd)
        return cls(pid, read_fd)

    def admit(self, index: int, raw: Any) -> FieldError | None:
        """admit(raw) for the object at ``index``, as the child found it (waiting for it if
        it has not got that far), or worked out here."""
        self._wait_for(index)
        if index >= self.upto or index in self.own:
            return admit(raw)
        if self.error is not None and self.error[0] == index:
            return self.error[1]
        return None

    def unknown_fields(self, index: int, raw: Any) -> UnknownFields:
        """unknown_fields(raw) for the object at ``index`` (whose admission was asked first)."""
        self._wait_for(index)
        if index >= self.upto:
            return unknown_fields(raw)
        return self.unknown.pop(index, [])

    def _wait_for(self, index: int) -> None:
        while index >= self.upto and not (self.done or self.gave_up or self.error is not None):
            self._read_record()

    def _read_record(self) -> None:
        record = self._read_exactly(_HEADER.size)
        body = self._read_exactly(_HEADER.unpack(record)[0]) if record is not None else None
        if body is None:
            self.gave_up = True
            return
        import pickle  # loaded by start(): a look-up in sys.modules

        upto, error, unknown, own, done = pickle.loads(body)
        self.upto, self.error, self.done = upto, error, done
        self.unknown.update(unknown)
        self.own.update(own)

    def _read_exactly(self, size: int) -> bytes | None:
        """``size`` bytes from the pipe; None at its end or after SILENCE seconds without any."""
        data = b""
        while self.fd is not None and len(data) < size:
            ready, _, _ = select.select([self.fd], [], [], SILENCE)
            chunk = os.read(self.fd, size - len(data)) if ready else b""
            if not chunk:
                return None
            data += chunk
        return data if len(data) == size else None

    def close(self) -> None:
        """End the child if it is still checking (the loader stopped at an error, or it went
        silent) and reap it; one that has sent its last record may still be giving its memory
        back, and is reaped once it has (_reap_finished), not waited for here."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.reaped:
            return
        self.reaped = True
        try:
            if not self.done:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            elif os.waitpid(self.pid, os.WNOHANG)[0] == 0:
                _UNREAPED.append(self.pid)
        except OSError:
            pass


# Children that had sent their last record but not yet exited when their loader finished.
_UNREAPED: list[int] = []


def _reap_finished(wait: bool = False) -> None:
    """Reap the children of _UNREAPED that have exited (all of them, waiting, with ``wait``)."""
    for pid in list(_UNREAPED):
        try:
            if os.waitpid(pid, 0 if wait else os.WNOHANG)[0] == 0:
                continue
        except OSError:
            pass
        _UNREAPED.remove(pid)


atexit.register(_reap_finished, True)


def _child(read: Callable[[], Sequence[Any]], write_fd: int) -> None:
    """Read the objects, admit and check them in order, a record per millisecond or per BATCH
    objects (_check_all), the first error ending the list; then leave at once (os._exit: none
    of the parent's exit handlers, buffers or profiler output is the child's to run or write)."""
    code = 0
    try:
        with os.fdopen(write_fd, "wb") as out:
            _check_all(read(), out)
    except BaseException:  # noqa: BLE001 - the loader takes over from the last record sent
        code = 1
    finally:
        os._exit(code)


def _check_all(objects: Sequence[Any], out: BinaryIO, clock: Callable[[], float] = time.perf_counter) -> None:
    """The child's checks, written to ``out``: a record once ``clock`` has moved RECORD_SECONDS
    past the last one, or BATCH objects after it, and the last record (done) at the end or at
    the first error. Where the records fall changes only when the loader learns a verdict."""
    unknown: dict[int, UnknownFields] = {}
    own: list[int] = []
    last = len(objects)
    sent, due = 0, clock() + RECORD_SECONDS
    for index, raw in enumerate(objects):
        if type(raw) is dict and isinstance(raw.get("kind"), str) and raw["kind"]:
            if needs_generated_name(raw) is not None:
                own.append(index)  # admitted once the loader has named it
            else:
                error = admit(raw)
                if error is not None:
                    _send(out, index + 1, (index, error), unknown, own, True)
                    return
            found = unknown_fields(raw)
            if found:
                unknown[index] = found
        upto = index + 1
        if (upto - sent >= BATCH or clock() >= due) and upto < last:
            _send(out, upto, None, unknown, own, False)
            unknown, own = {}, []
            sent, due = upto, clock() + RECORD_SECONDS
    _send(out, last, None, unknown, own, True)


def _send(
    out: BinaryIO, upto: int, error: tuple[int, FieldError] | None, unknown: dict[int, UnknownFields], own: list[int], done: bool
) -> None:
    import pickle  # loaded before the fork (Verdicts.start): a look-up in sys.modules

    body = pickle.dumps((upto, error, unknown, own, done), pickle.HIGHEST_PROTOCOL)
    out.write(_HEADER.pack(len(body)) + body)
    out.flush()


__all__ = ["BATCH", "MIN_TEXT", "RECORD_SECONDS", "Verdicts", "can_fork"]
