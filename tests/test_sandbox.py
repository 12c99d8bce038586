"""The sandbox out-of-tree plugin code runs in (framework/runtime/sandbox.py): contained
BaseExceptions, a per-call time limit (nested calls included, off the main thread too),
stdout sent to stderr, and a plugin that hung never called again."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

import pytest

from kschedctl.runtime.sandbox import PluginFailure, Sandbox, SandboxedPlugin


class Stop(BaseException):
    pass


@pytest.mark.parametrize(
    "exc, text",
    [
        (SystemExit(3), "SystemExit: 3"),
        (Stop("no"), "Stop: no"),
        (GeneratorExit(), "GeneratorExit"),
        (type("Interrupt", (KeyboardInterrupt,), {})(), "Interrupt"),
    ],
)
def test_base_exceptions_become_plugin_failures(exc, text):
    def plugin_code():
        raise exc

    with pytest.raises(PluginFailure, match=text):
        Sandbox("p").call(plugin_code)


def test_exceptions_pass_through_and_a_real_ctrl_c_is_not_swallowed():
    with pytest.raises(ValueError):
        Sandbox("p").call(int, "x")

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Sandbox("p").call(interrupted)


def test_stdout_goes_to_stderr(capsys):
    Sandbox("p").call(print, "from the plugin")
    out, err = capsys.readouterr()
    assert out == "" and err == "from the plugin\n"
    assert sys.stdout is not sys.stderr


def test_a_call_past_the_limit_fails_and_the_plugin_is_not_called_again():
    box = Sandbox("p", timeout=0.1)
    start = time.monotonic()
    with pytest.raises(PluginFailure, match="did not return within 100ms") as exc:
        box.call(time.sleep, 5)
    assert exc.value.timed_out and time.monotonic() - start < 2
    calls = []
    with pytest.raises(PluginFailure, match="not called again"):
        box.call(calls.append, 1)
    assert calls == []


def test_a_plugin_that_catches_the_timeout_still_timed_out():
    def stubborn():
        try:
            time.sleep(5)
        except BaseException:  # noqa: BLE001 - what a careless plugin does
            pass
        return "done"

    with pytest.raises(PluginFailure, match="did not return within"):
        Sandbox("p", timeout=0.1).call(stubborn)


def test_nested_calls_each_keep_their_limit():
    """A sandboxed plugin calling into the runtime, which calls another sandboxed plugin (e.g. a
    PostFilter running Filter plugins): whichever call is past its own limit fails."""
    outer, inner = Sandbox("outer", timeout=0.3), Sandbox("inner", timeout=5)
    start = time.monotonic()
    with pytest.raises(PluginFailure, match="within 300ms"):
        outer.call(inner.call, time.sleep, 5)  # the outer call's time runs out while the inner one sleeps
    assert time.monotonic() - start < 2
    assert outer.broken is not None and inner.broken is None

    outer, inner = Sandbox("outer", timeout=5), Sandbox("inner", timeout=0.1)

    def outer_code():
        with pytest.raises(PluginFailure, match="within 100ms"):
            inner.call(time.sleep, 5)
        return "outer went on"

    assert outer.call(outer_code) == "outer went on"
    assert inner.broken is not None and outer.broken is None


def test_off_the_main_thread_the_call_runs_in_a_worker():
    result: dict = {}

    def run():
        box = Sandbox("p", timeout=0.1)
        try:
            box.call(time.sleep, 5)
        except PluginFailure as exc:
            result["failure"] = str(exc)
        result["value"] = Sandbox("q", timeout=1).call(sum, [1, 2])

    t = threading.Thread(target=run)
    t.start()
    t.join(5)
    assert "did not return within 100ms" in result["failure"] and result["value"] == 3


def test_sandboxed_plugin_wraps_methods_and_extension_objects():
    class Ext:
        def normalize_score(self, *args):
            raise SystemExit(1)

    class Plugin:
        flag = 7

        def name(self):
            return "P"

        def score_extensions(self):
            return Ext()

    proxy = SandboxedPlugin(Plugin(), Sandbox("P"))
    assert proxy.name() == "P" and proxy.flag == 7
    assert not hasattr(proxy, "filter")  # a missing optional method stays missing
    ext = proxy.score_extensions()
    assert isinstance(ext, SandboxedPlugin)
    with pytest.raises(PluginFailure, match="SystemExit: 1"):
        ext.normalize_score()


def test_what_a_plugin_was_handed_is_put_back_and_its_call_fails():
    """handed.py: assignments, resource amounts, the pod list and the maps, each undone."""
    from kschedctl.framework.types import NodeInfo, PodInfo
    from kschedctl.testing import make_node, make_pod

    pod = make_pod("p").label("app", "web").req(cpu="1").obj()
    other = make_pod("q").req(cpu="1").obj()
    ni = NodeInfo(make_node("n1").capacity(cpu="4", memory="8Gi").label("zone", "a").obj(), [PodInfo(other)])
    before = (ni.allocatable.milli_cpu, ni.requested.milli_cpu, list(ni.pods), dict(ni.node.labels), dict(pod.labels))

    class Plugin:
        def filter(self, state, pod, node_info):
            node_info.allocatable.milli_cpu = 10**9
            node_info.requested = type(node_info.requested)()
            node_info.pods.clear()
            node_info.node.labels["zone"] = "b"
            pod.labels["app"] = "db"
            pod.node_name = "n1"
            return None

    proxy = SandboxedPlugin(Plugin(), Sandbox("P"))
    with pytest.raises(
        PluginFailure,
        match=r'changed pod "default/p", the NodeInfo of node "n1", which it was '
        r"handed in \{point\} to read; the change was undone",
    ) as exc:
        proxy.filter(None, pod, ni)
    assert exc.value.worded
    assert (ni.allocatable.milli_cpu, ni.requested.milli_cpu, list(ni.pods), dict(ni.node.labels), dict(pod.labels)) == before
    assert pod.node_name == ""


def test_a_status_with_reasons_that_are_not_strings_fails_the_call():
    from kschedctl.framework import Code, Status

    class Plugin:
        def filter(self, state, pod, node_info):
            return Status(Code.Unschedulable, "fine", 3)

        def score(self, state, pod, node_info):
            st = Status(Code.Error)
            st.reasons = "not a list"
            return 0, st

    proxy = SandboxedPlugin(Plugin(), Sandbox("P"))
    with pytest.raises(PluginFailure, match="a reason of type int"):
        proxy.filter(None, None, None)
    with pytest.raises(PluginFailure, match="reasons of type str"):
        proxy.score(None, None, None)


def test_the_working_directory_is_put_back(tmp_path, monkeypatch):
    import os

    monkeypatch.chdir(tmp_path)
    Sandbox("p").call(os.chdir, "/")
    assert os.getcwd() == str(tmp_path)


def _wait_until(predicate, seconds=3.0):
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.005)
    return predicate()


def test_the_watchdog_parks_while_no_call_is_made_and_the_next_call_wakes_it():
    """Each look of the watchdog thread takes the GIL from the main thread; while no sandboxed
    call is made (an installed package's import is done and no profile uses it), it waits
    instead of looking. A call made then is still bounded."""
    from kschedctl.runtime.sandbox import _WATCHDOG

    Sandbox("p", timeout=1).call(sum, [1, 2])  # the watchdog runs from the first call on
    assert _wait_until(lambda: _WATCHDOG.parked)
    begun = _WATCHDOG.begun
    start = time.monotonic()
    with pytest.raises(PluginFailure, match="did not return within 100ms"):
        Sandbox("p", timeout=0.1).call(time.sleep, 5)
    assert time.monotonic() - start < 2 and _WATCHDOG.begun == begun + 1
    assert _wait_until(lambda: _WATCHDOG.parked)  # and it parks again


def test_the_watchdog_does_not_park_after_a_call_begun_since_its_look():
    """A call that began after the look, even one already over, may have set the timers after
    that look: the thread looks again rather than park. With nothing begun it parks until a
    call wakes it. (A watchdog of its own: the process's keeps running.)"""
    from kschedctl.runtime.sandbox import _Watchdog

    dog = _Watchdog()
    dog.begun = 5
    gave_up = threading.Thread(target=dog._park, args=(4,), daemon=True)  # one call began and ended
    gave_up.start()
    gave_up.join(2)
    assert not gave_up.is_alive() and not dog.parked

    waiting = threading.Thread(target=dog._park, args=(5,), daemon=True)
    waiting.start()
    assert _wait_until(lambda: dog.parked)
    waiting.join(0.2)
    assert waiting.is_alive()
    dog.unpark()
    waiting.join(2)
    assert not waiting.is_alive() and not dog.parked


def test_a_parked_watchdog_leaves_no_timer_of_a_call_that_has_ended():
    """In a contained process a call arms the interval timer and the native timer (which ends
    the process past the call's grace); the watchdog moves them at its looks. A call in
    progress at a look that ends before the next check is followed by parking, not by another
    look: the timers must be disarmed then, or the native timer ends a run that did nothing
    wrong. The look here waits for the call to end, so that order is certain."""
    code = textwrap.dedent(
        """
        import os, signal, threading, time
        from kschedctl.runtime import process
        from kschedctl.runtime.sandbox import Sandbox, _WATCHDOG
        process.contain()
        real, ended, held = _WATCHDOG.keep_armed, threading.Event(), []

        def keep_armed(calls=None):
            real(calls)
            if threading.current_thread() is not threading.main_thread() and _WATCHDOG.calls and not held:
                held.append(True)
                ended.wait(5)  # the look that saw the call in progress resumes once it has ended

        def parked():
            deadline = time.monotonic() + 3
            while not _WATCHDOG.parked and time.monotonic() < deadline:
                time.sleep(0.005)

        Sandbox("p", timeout=0.3).call(sum, [1, 2])  # the watchdog started, then parked
        parked()
        _WATCHDOG.keep_armed = keep_armed
        Sandbox("p", timeout=0.3).call(time.sleep, 0.1)
        ended.set()
        parked()
        time.sleep(2.0)  # past the call's deadline, its grace and the native timer's margin
        state = f"held={held} parked={_WATCHDOG.parked} timer={signal.getitimer(signal.ITIMER_REAL)} armed={_WATCHDOG.armed}"
        os.write(2, state.encode())
        process.finish(0)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith("held=[True] parked=True timer=(0.0, 0.0) armed=None")
