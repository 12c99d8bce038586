"""A failed attempt leaves nothing for the cyclic collector (scheduler/schedule_one.py
schedule_pod): the FitError is kept with the attempt's outcome, and its traceback would keep the
frames of the cycle, whose callers hold that outcome; the cycle would hold the attempt's
CycleState (a preemption dry run's state for every node it visited) until a collection found it.
A run of preemptors, each failing once before its victims go, must free every attempt's state
by reference counting alone."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

from kschedctl.cluster.loader import load_snapshot
from kschedctl.config.loader import load_config_file
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import FitError
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.versions import parse_version

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import perf_config  # noqa: E402


def test_failed_attempts_leave_no_cycle(tmp_path: Path) -> None:
    path = perf_config.write(perf_config.Case("PreemptionPVs", 20, 80, 20, "test"), tmp_path)
    version = parse_version("1.35")
    registry = default_registry().registry
    sched = Scheduler(load_snapshot([str(path)]), load_config_file(None, version, registry), registry, version, seed=1)
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result = sched.run()
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, (CycleState, FitError))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert len(result.preemptions) == 20  # every preemptor failed once, then preempted
    assert left == []
