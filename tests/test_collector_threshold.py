"""The command as a process raises the cyclic collector's first-generation threshold
(kschedctl/runtime/process.py tune_collector, called by contain() from main()); in-process use
(the CLI runner, a program importing kschedctl) keeps the interpreter's own setting."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

from kschedctl.runtime import process

ROOT = Path(__file__).resolve().parents[1]


def test_tune_collector_raises_only_the_first_generation_and_never_lowers_it() -> None:
    saved = gc.get_threshold()
    try:
        gc.set_threshold(700, 7, 9)
        process.tune_collector()
        assert gc.get_threshold() == (process.GC_GEN0_THRESHOLD, 7, 9)
        gc.set_threshold(process.GC_GEN0_THRESHOLD * 2, 10, 10)
        process.tune_collector()
        assert gc.get_threshold() == (process.GC_GEN0_THRESHOLD * 2, 10, 10)
    finally:
        gc.set_threshold(*saved)


def test_main_sets_it_for_the_process() -> None:
    code = "import gc, kschedctl.runtime.process as p; p.contain(); import sys; sys.stderr.write(repr(gc.get_threshold()))"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip().startswith(f"({process.GC_GEN0_THRESHOLD},")
