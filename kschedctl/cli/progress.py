"""A progress bar on stderr for long runs (rich), off when stderr is not a terminal.

The scheduler never renders: ``Scheduler.run(progress=...)`` calls a callback
``progress(attempts_done, pods_pending)`` after every attempt, and this module draws it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

ProgressCallback = Callable[[int, int], None]

# Below this many pending pods a run takes well under a second: no bar.
MIN_PODS_FOR_BAR = 200


@contextmanager
def progress_bar(total: int, stream: TextIO | None = None, force: bool = False) -> Iterator[ProgressCallback | None]:
    """Yields a callback drawing a rich bar on ``stream`` (stderr), or None when the stream is
    not a terminal, the run is small or rich is missing."""
    stream = stream if stream is not None else sys.stderr
    if not force and (total < MIN_PODS_FOR_BAR or not getattr(stream, "isatty", lambda: False)()):
        yield None
        return
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )
    except ImportError:  # pragma: no cover - rich is a dependency, but stay quiet without it
        yield None
        return
    progress = Progress(
        TextColumn("scheduling"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=Console(file=stream), transient=True
    )
    task = progress.add_task("scheduling", total=total)
    last = [0]

    def update(done: int, pending: int) -> None:
        # attempts can exceed the pod count (retries): the bar tracks pods, capped at the total
        done = min(done, total)
        if done != last[0]:
            last[0] = done
            progress.update(task, completed=done)

    with progress:
        yield update
