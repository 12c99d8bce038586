"""How a kschedctl process ends (runtime/process.py finish): its result flushed, the exit
handlers run, the status kept, and no time spent freeing the objects of the run one by one."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def test_finish_runs_the_exit_handlers_keeps_the_status_and_skips_the_teardown(tmp_path: Path) -> None:
    marker = tmp_path / "handlers-ran"
    code = textwrap.dedent(
        f"""
        import atexit, os, sys
        from kschedctl.runtime import process

        process.contain()

        class Held:
            # freed only by the interpreter's shutdown, which finish no longer waits for
            def __del__(self):
                os.write(2, b"freed at shutdown")

        held = Held()
        atexit.register(lambda: open({str(marker)!r}, "w", encoding="utf-8").write("yes"))
        sys.stdout.write("the result\\n")
        process.finish(3)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3
    assert done.stdout == "the result\n"
    assert marker.read_text(encoding="utf-8") == "yes"
    assert "freed at shutdown" not in done.stderr


def test_under_a_profiler_the_interpreter_unwinds_as_usual(tmp_path: Path) -> None:
    # `python -m cProfile -o FILE -m kschedctl ...` writes FILE after the command returns
    out = tmp_path / "run.prof"
    code = "from kschedctl.runtime import process\nprocess.contain()\nprocess.finish(0)\n"
    script = tmp_path / "probe.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 0
