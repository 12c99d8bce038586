"""A plugin acting on the process, through the CLI as a real process (`python -m kschedctl`).

An installed package (a dist-info directory on PYTHONPATH, as pip leaves one) registers the
Filter plugin "Odd", which misbehaves for the pod labelled odd=yes in the way KPX_MODE names:
writes to fd 1 or sys.__stdout__, prints from a thread, leaves a thread running, forks, calls
os._exit(0), changes directory, changes what it was handed, returns a Status with non-string
reasons, or will not stop when its time is up. Whatever it does, stdout holds exactly one
result, the exit status is the command's (never 0 without the result), and a plugin that
cannot be stopped ends the run with one error line naming it and exit 2
(framework/runtime/process.py, sandbox.py, handed.py; docs/writing-plugins.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.testing import make_node, make_pod

ROOT = Path(__file__).resolve().parent.parent

PLUGIN = """
import os, re, signal, sys, threading, time
from kschedctl.framework import Code, PluginSpec, Status, hookimpl
KSCHEDCTL_PLUGIN_API = 1
MODE = os.environ["KPX_MODE"]


def stubborn(step):
    # step() forever, every exception swallowed. The timeout can be raised at the inner loop's
    # jump back, outside its try: the outer loop catches that one, so the plugin never gives
    # way (two alarms would have to land within a few instructions of each other).
    while True:
        try:
            while True:
                try:
                    step()
                except BaseException:
                    pass
        except BaseException:
            pass


def act(pod, node_info):
    if MODE == "write1":
        os.write(1, b"garbage on fd 1\\n")
    elif MODE == "dunder":
        print("garbage on sys.__stdout__", file=sys.__stdout__, flush=True)
    elif MODE == "thread":
        said = threading.Event()

        def chatter():
            for _ in range(20):
                print("garbage from a plugin thread", flush=True)
                said.set()
                time.sleep(0.005)
        threading.Thread(target=chatter).start()
        said.wait(10)  # it has printed once; it goes on printing while kschedctl writes its result
    elif MODE == "linger":
        threading.Thread(target=time.sleep, args=(60,)).start()
    elif MODE == "fork":
        os.fork()  # the child comes back here too: it must print nothing and end
    elif MODE == "exit0":
        os._exit(0)
    elif MODE == "thread-exit0":
        t = threading.Thread(target=os._exit, args=(0,))
        t.start()
        t.join()
    elif MODE == "chdir":
        os.chdir(os.environ["KPX_ELSEWHERE"])
    elif MODE == "allocatable":
        node_info.allocatable.milli_cpu = 10 ** 9
    elif MODE == "labels":
        pod.labels["odd"] = "changed"
        pod.labels["extra"] = "yes"
    elif MODE == "reasons":
        return Status(Code.Unschedulable, 3, None)
    elif MODE == "catch-all":
        stubborn(lambda: time.sleep(0.05))
    elif MODE == "sigalrm-ignored":
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(60)
    elif MODE == "regex":
        re.match(r"(a+)+$", "a" * 64 + "b")
    elif MODE == "regex-loop":
        stubborn(lambda: re.match(r"(a+)+$", "a" * 64 + "b"))
    elif MODE == "c-loop":
        sum(range(10 ** 13))  # C code holding the GIL, checking no signal
    return None


class Odd:
    def __init__(self, args, handle):
        pass

    def name(self):
        return "Odd"

    def filter(self, state, pod, node_info):
        if pod.labels.get("odd") == "yes":
            return act(pod, node_info)
        return None


@hookimpl
def kschedctl_register_plugins():
    return [PluginSpec("Odd", Odd, Odd)]
"""

CONFIG = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {"enabled": [{"name": "Odd"}]}}}],
}
ODD = "default/odd"
ODD_FIRST = 1000  # the odd pod's priority: scheduled first


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """The installed package: kpx.py and its dist-info (entry point group kschedctl)."""
    site = tmp_path / "site"
    (site / "kpx-0.1.dist-info").mkdir(parents=True)
    (site / "kpx-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: kpx\nVersion: 0.1\n")
    (site / "kpx-0.1.dist-info" / "entry_points.txt").write_text("[kschedctl]\nkpx = kpx\n")
    (site / "kpx.py").write_text(textwrap.dedent(PLUGIN))
    return site


@pytest.fixture
def files(tmp_path: Path, write_snapshot: Callable[..., str]) -> dict[str, str]:
    """One 2-CPU node; the odd pod first, then three 900m pods: two fit."""
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(CONFIG))
    snap = write_snapshot(
        make_node("n1").capacity(cpu="2", memory="8Gi"),
        make_pod("odd").label("odd", "yes").priority(ODD_FIRST).req(cpu="100m"),
        *[make_pod(f"p{i}").req(cpu="900m") for i in range(3)],
    )
    return {"snapshot": snap, "config": str(tmp_path / "config.yaml")}


class Ran:
    def __init__(self, proc: subprocess.CompletedProcess[str], wall: float) -> None:
        self.code = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.wall = wall

    def json(self) -> Any:
        return json.loads(self.stdout)  # exactly one JSON document, nothing else


def run(package: Path, mode: str, *args: str, cwd: Path | None = None, timeout: float = 30, env: dict[str, str] | None = None) -> Ran:
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(package)]), "KPX_MODE": mode, **(env or {})}
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "kschedctl", *args],
        capture_output=True,
        text=True,
        env=environ,
        cwd=cwd,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return Ran(proc, time.monotonic() - start)


def schedule(package: Path, files: dict[str, str], mode: str, *extra: str, **kw: Any) -> Ran:
    return run(package, mode, "schedule", files["snapshot"], "--config", files["config"], "-o", "json", "--seed", "1", *extra, **kw)


def outcome(data: dict) -> dict[str, str]:
    """pod -> "placed" or its unschedulable message; every pending pod exactly once."""
    seen: dict[str, str] = {}
    for p in data["placements"]:
        seen[p["pod"]] = "placed"
    for u in data["unschedulable"]:
        assert u["pod"] not in seen
        seen[u["pod"]] = u["message"]
    assert len(seen) == len(data["placements"]) + len(data["unschedulable"]) == 4
    return seen


def placed(data: dict) -> list[str]:
    return sorted(p["pod"] for p in data["placements"])


@pytest.mark.parametrize(
    "mode, said",
    [
        ("write1", "garbage on fd 1"),
        ("dunder", "garbage on sys.__stdout__"),
        ("thread", "garbage from a plugin thread"),
    ],
)
def test_plugin_output_never_reaches_stdout(mode, said, package, files):
    out = schedule(package, files, mode)
    assert out.code == 0, out.stderr
    assert outcome(out.json())[ODD] == "placed"
    assert said in out.stderr and said not in out.stdout


def test_a_lingering_thread_does_not_keep_the_process(package, files):
    out = schedule(package, files, "linger", timeout=20)
    assert out.code == 0, out.stderr
    assert outcome(out.json())[ODD] == "placed"
    assert out.wall < 15


def test_a_forked_child_prints_no_second_result(package, files):
    out = schedule(package, files, "fork")
    assert out.code == 0, out.stderr
    assert out.stdout.count('"placements"') == 1
    assert outcome(out.json())[ODD] == "placed"


@pytest.mark.parametrize("mode", ["exit0", "thread-exit0"])
def test_os_exit_never_ends_the_run_without_its_result(mode, package, files):
    out = schedule(package, files, mode)
    assert out.code == 0, out.stderr
    seen = outcome(out.json())
    if mode == "exit0":  # on the main thread, in the plugin call: that attempt fails, naming the plugin
        assert 'plugin "Odd" raised in Filter: ExitRefused: os._exit(0) called in the kschedctl process' in seen[ODD]
    else:  # a plugin thread: it ends, the call goes on
        assert seen[ODD] == "placed"
    assert "Traceback" not in out.stderr


def test_chdir_does_not_move_relative_output_paths(package, files, tmp_path):
    work = tmp_path / "work"
    elsewhere = tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    out = schedule(
        package,
        files,
        "chdir",
        "--write-snapshot",
        "after.yaml",
        "--report",
        "report.html",
        cwd=work,
        env={"KPX_ELSEWHERE": str(elsewhere)},
    )
    assert out.code == 0, out.stderr
    assert (work / "after.yaml").is_file() and (work / "report.html").is_file()
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize(
    "mode, changed",
    [
        ("allocatable", 'the NodeInfo of node "n1"'),
        ("labels", f'pod "{ODD}"'),
    ],
)
def test_changing_what_it_was_handed_fails_the_call_and_is_undone(mode, changed, package, files):
    out = schedule(package, files, mode)
    assert out.code == 0, out.stderr
    data = out.json()
    seen = outcome(data)
    assert seen[ODD] == (
        f'running "Odd" filter plugin: plugin "Odd" changed {changed}, which it was handed in Filter to read; the change was undone'
    )
    assert len(data["placements"]) == 2  # 2 CPUs: two 900m pods, not three (no over-commit)
    if mode == "labels":
        [entry] = [u for u in data["unschedulable"] if u["pod"] == ODD]
        assert entry.get("labels", {}).get("extra") is None


def test_a_status_with_reasons_that_are_not_strings(package, files):
    out = schedule(package, files, "reasons")
    assert out.code == 0, out.stderr
    assert outcome(out.json())[ODD] == (
        'running "Odd" filter plugin: plugin "Odd" returned a Status with a reason of type int from Filter, expected a list of strings'
    )
    assert "internal error" not in out.stderr


END = (
    'error: plugin "Odd" did not return within 1s (the plugin time limit, --plugin-timeout) and could not be interrupted; the run was ended'
)


@pytest.mark.parametrize(
    "mode",
    [
        "catch-all",
        "sigalrm-ignored",
        "regex-loop",
        pytest.param("c-loop", marks=pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the native timer is Linux's")),
    ],
)
def test_a_plugin_that_will_not_stop_ends_the_run(mode, package, files):
    """Past the limit and its grace (1 s each here) the run ends: one error line, exit 2 (the
    handler, the watchdog thread, or for C code holding the GIL the native timer)."""
    out = schedule(package, files, mode, "--plugin-timeout", "1", timeout=20)
    assert out.code == 2, (out.code, out.stderr)
    assert out.stdout == ""
    assert [line for line in out.stderr.splitlines() if line.startswith("error:")] == [END]
    assert out.wall < 12


def test_a_catastrophic_regex_is_interrupted(package, files):
    """The regex engine checks signals: the interval alarm's timeout reaches it; the pod fails,
    the run goes on."""
    out = schedule(package, files, "regex", "--plugin-timeout", "1", timeout=20)
    assert out.code == 0, out.stderr
    assert "did not return within 1s" in outcome(out.json())[ODD]
    assert out.wall < 12
