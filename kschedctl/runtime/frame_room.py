"""A command run at the base of a fresh, roomy chunk of the interpreter's frame stack.

CPython (3.11 and later) keeps the frames of Python calls in chunks of memory it maps from the
system (16 KiB each, Python/pystate.c: ``push_chunk``), and gives a chunk back (``munmap``) as
soon as the last frame in it returns (``_PyThreadState_PopFrame``). A call that crosses from
one chunk into the next therefore costs a ``mmap``, a page fault and a ``munmap`` each time it
is made. Where that boundary falls depends on how deep the stack already is when the command
starts: `python -m kschedctl` runs its command some frames deeper than the ``kschedctl``
console script (runpy's), a test runner deeper still. On a 500-node `schedule` the scheduling
loop crossed it at every pod under `python -m` (some 680 mappings and page faults, 3-10 ms of
a 200 ms run) and hardly at all from the script; other files crossed it from the script.

:func:`call_with_room` calls the command through a function whose frame cannot fit in a
16 KiB chunk (its code asks for a deep evaluation stack it never uses): CPython maps a 64 KiB
chunk for it, and everything the command calls stacks above that frame in the same chunk,
some 40 KiB of frames (a few hundred calls deep) before the next boundary, wherever the
command was started from. The unused evaluation stack is never written, so it costs no memory
but its address range. Elsewhere (another implementation, a code object without ``replace``)
the command is simply called.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TypeVar, cast

T = TypeVar("T")

# Words of evaluation stack asked for: above a 16 KiB chunk's 2,048 words, so the frame never
# fits in one and starts a new chunk, which with push_chunk's 1,000 words of overhead is 64 KiB
# (8,192 words), ~5,000 of them left for the command's own frames.
STACK_WORDS = 3100


def _call(fn: Callable[[], object]) -> object:
    return fn()


def _roomy(fn: Callable[[Callable[[], object]], object]) -> Callable[[Callable[[], object]], object]:
    """``fn`` with its code's evaluation stack raised to STACK_WORDS, or ``fn`` itself."""
    try:
        code = fn.__code__.replace(co_stacksize=max(fn.__code__.co_stacksize, STACK_WORDS))
    except (AttributeError, TypeError, ValueError):
        return fn
    roomy: Callable[[Callable[[], object]], object] = types.FunctionType(code, fn.__globals__, fn.__name__)
    return roomy


_ROOMY_CALL = _roomy(_call)


def call_with_room(fn: Callable[[], T]) -> T:
    """``fn()``, its frames (and all it calls) at the base of a chunk of their own."""
    return cast(T, _ROOMY_CALL(fn))
