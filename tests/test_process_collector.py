"""The command as a process and the cyclic collector (kschedctl/cli/entry.py): the imports are
frozen out of the collector's sight, the run is collected as usual, the exit handlers still run,
and the command's result and status are those of cli/app.py's main."""

from __future__ import annotations

import ast
import gc
import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from kschedctl.cli.entry import main as entry_main
from kschedctl.runtime import process

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _run(probe: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, env=env, timeout=120)


def test_the_console_script_and_python_m_start_at_the_entry() -> None:
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts") if ep.name == "kschedctl"}
    assert scripts == {"kschedctl": "kschedctl.cli.entry:main"}
    main_py = (Path(entry_main.__code__.co_filename).parent.parent / "__main__.py").read_text()
    assert "from kschedctl.cli.entry import main" in main_py


def test_the_imports_are_frozen_before_the_input_and_the_run_is_collected(tmp_path: Path) -> None:
    """A module watching the collector, with an exit handler reporting its state: the result
    is the command's, the handler runs after it, the entry and the app froze what the imports
    made before the input was read, and the collector was on for the run."""
    (tmp_path / "observer.py").write_text(
        "import atexit, gc, sys\n"
        "frozen = []\n"
        "real_freeze = gc.freeze\n"
        "def freeze():\n"
        "    real_freeze()\n"
        "    frozen.append((gc.get_freeze_count(), 'kschedctl.app.inputs' in sys.modules))\n"
        "gc.freeze = freeze\n"
        "def report():\n"
        "    gc.freeze = real_freeze  # the gc module would otherwise keep this module alive\n"
        "    sys.stderr.write(f'exit-handler {gc.isenabled()} {frozen}\\n')\n"
        "atexit.register(report)\n"
        "import kschedctl.output.render as render\n"
        "real_render_run = render.render_run\n"
        "def render_run(*args, **kwargs):\n"
        "    frozen.append(('rendering with the collector on', gc.isenabled()))\n"
        "    return real_render_run(*args, **kwargs)\n"
        "render.render_run = render_run\n"
    )
    probe = (
        "import sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "import observer\n"
        "from kschedctl.cli.entry import main\n"
        "sys.argv = ['kschedctl'] + sys.argv[1:]\n"
        "main()\n"
    )
    done = _run(probe, "schedule", str(EXAMPLES / "cluster.yaml"), "-o", "json", "--seed", "1")
    assert done.returncode == 0, done.stderr
    plain = subprocess.run(
        [sys.executable, "-m", "kschedctl", "schedule", str(EXAMPLES / "cluster.yaml"), "-o", "json", "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(done.stdout) == json.loads(plain.stdout)
    assert json.loads(done.stdout)["placements"]
    handler = [line for line in done.stderr.splitlines() if line.startswith("exit-handler")]
    assert len(handler) == 1
    enabled, freezes = handler[0].split(" ", 2)[1:]
    assert enabled == "True"
    calls = ast.literal_eval(freezes)
    # the entry froze what importing the command line made, then the app froze what importing
    # the command's module made, both before the input was read (the commands import
    # kschedctl.app.inputs when they run); then the loading froze the registry, the
    # configuration and the input (some 19,500 objects with the command line's imports here;
    # a bare interpreter holds 4,000-11,000, with what its site imports)
    assert calls[0][0] > 15_000 and calls[0][1] is False
    assert calls[1][0] > calls[0][0] and calls[1][1] is False
    assert calls[2][0] > calls[1][0] and calls[2][1] is True
    # the result was turned into text with the collector paused, and it was on again after
    assert calls[3:] == [("rendering with the collector on", False)]


def test_a_program_importing_kschedctl_keeps_its_collector() -> None:
    """Only the contained process pauses the collector: the test runner is such a program."""
    assert not process.STATE.contained
    with process.collector_paused() as paused:
        assert paused is False and gc.isenabled()
    with process.loading():
        assert gc.isenabled()
    assert gc.isenabled()


def test_a_failing_command_still_exits_with_its_status_through_the_entry(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: List\nitems: [1, 2\n")
    probe = "import sys\nfrom kschedctl.cli.entry import main\nsys.argv = ['kschedctl'] + sys.argv[1:]\nmain()\n"
    done = _run(probe, "schedule", str(bad))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "bad.yaml" in done.stderr
