"""The command as a process: the ``kschedctl`` console script and ``python -m kschedctl``.

Importing the command line creates some 100,000 objects that live as long as the process
(modules, classes, functions, typer's and the plugins' tables) and no garbage. With the cyclic
collector running, those imports trigger some fifty young collections, and every full
collection of the run after them walks all of those objects again. So the collector is paused
while they are imported and what they made is frozen out of its sight (``gc.freeze``), as
``runtime.process.loading()`` does for the input read; what the run itself creates is collected
as before. Only this entry does it: a program importing kschedctl, or the test runner, keeps
its collector as it is.
"""

from __future__ import annotations

import gc


def main() -> None:
    """Imports the command line with the collector paused, then runs it (cli/app.py's main)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        from kschedctl.cli.app import main as run_command
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
    run_command()
