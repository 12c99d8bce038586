"""The command as a process: the ``kschedctl`` console script and ``python -m kschedctl``.

Importing the command line creates some 100,000 objects that live as long as the process
(modules, classes, functions, typer's and the plugins' tables) and no garbage. With the cyclic
collector running, those imports trigger some fifty young collections, and every full
collection of the run after them walks all of those objects again. So the collector is paused
while they are imported and what they made is frozen out of its sight (``gc.freeze``), as
``runtime.process.loading()`` does for the input read; what the run itself creates is collected
as before. Only this entry does it: a program importing kschedctl, or the test runner, keeps
its collector as it is.

A command line the fast path reads in full (kschedctl/cli/fast.py: `schedule`, `explain`,
`simulate` or `validate` with plain options) runs without importing typer; any other goes to
the typer app.

The command runs at the base of a roomy chunk of the interpreter's frame stack of its own
(kschedctl/runtime/frame_room.py), the same however the process was started (`python -m
kschedctl` or the console script), so its loops do not map and unmap a chunk at every call.
"""

from __future__ import annotations

import functools
import gc
import sys


def main() -> None:
    """Imports the command line with the collector paused, then runs it: the fast path's call
    when it reads the whole command line, else cli/app.py's main."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        from kschedctl.cli import fast
        from kschedctl.runtime.frame_room import call_with_room

        call = fast.parse(sys.argv[1:])
        if call is None:
            from kschedctl.cli.app import main as run_command
        else:
            from kschedctl.cli.stdout import run_process
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
    # the command's frames in a stack chunk of their own (kschedctl/runtime/frame_room.py)
    if call is None:
        call_with_room(run_command)
    else:
        call_with_room(lambda: run_process(lambda: functools.partial(fast.invoke, call.load(), call.kwargs)))
