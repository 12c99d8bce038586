"""The command's frames in a roomy chunk of CPython's frame stack (kschedctl/runtime/frame_room.py).

CPython maps a chunk of its frame stack when a call does not fit in the current one and
unmaps it when that call returns (Python/pystate.c: push_chunk, _PyThreadState_PopFrame), so
a loop calling across a chunk's end costs a fresh mapping, and a page fault, per call. The
probe below finds that end: it runs the same loop of calls at every depth up to a bound and
counts the page faults of the worst depth."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable

import pytest

from kschedctl.runtime import frame_room
from kschedctl.runtime.frame_room import call_with_room

CALLS = 64


def _leaf() -> int:
    return 1


# a frame larger than at_depth's step, so some depth leaves less room after the loop's frame
# than the leaf needs (the chunk's end falls between them there)
leaf: Callable[[], int] = types.FunctionType(_leaf.__code__.replace(co_stacksize=64), {})


def at_depth(d: int, fn: Callable[[], int]) -> int:
    return at_depth(d - 1, fn) if d else fn()


def minor_faults() -> int:
    resource = pytest.importorskip("resource")  # Unix
    faults: int = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    return faults


def loop_faults() -> int:
    """Minor page faults of CALLS calls of leaf()."""
    before = minor_faults()
    for _ in range(CALLS):
        leaf()
    return minor_faults() - before


def worst_depth_faults(max_depth: int = 250) -> int:
    """The page faults of the loop at its worst depth, from 0 to max_depth frames above here
    (250 frames of at_depth: more than a 16 KiB chunk holds, less than the room's 40 KiB)."""
    return max(at_depth(d, loop_faults) for d in range(max_depth))


def test_the_command_gets_its_value_and_its_errors() -> None:
    assert call_with_room(lambda: "placed") == "placed"

    def fails() -> None:
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        call_with_room(fails)


@pytest.mark.skipif(sys.implementation.name != "cpython" or sys.version_info < (3, 11), reason="CPython's frame stack chunks")
def test_no_depth_inside_the_room_maps_a_chunk_per_call() -> None:
    plain = worst_depth_faults()
    if plain < CALLS:
        pytest.skip("this interpreter keeps a chunk after its last frame returns")
    # without the room some depth pays a page fault per call; inside it none does
    assert call_with_room(worst_depth_faults) <= 2


def test_the_roomy_call_asks_for_more_than_a_chunk_holds() -> None:
    """Its frame cannot fit in a 16 KiB chunk (2,048 words), so it always starts a new one."""
    code = frame_room._ROOMY_CALL.__code__
    assert code.co_stacksize == frame_room.STACK_WORDS > 2048
    assert code.co_code == frame_room._call.__code__.co_code
