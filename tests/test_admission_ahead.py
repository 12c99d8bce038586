"""A large file's objects admitted ahead on a second core (kschedctl/cluster/admission_ahead.py):
the snapshot, its warnings and its first error are the ones reading object by object gives, no
unadmitted object is built, and the child is always reaped."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

import kschedctl.cluster.admission_ahead as ahead
import kschedctl.cluster.loader as loader
from kschedctl.api.errors import InputError
from kschedctl.cluster.loader import load_snapshot
from kschedctl.testing import make_node, make_pod

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="admission ahead forks")


def _objects(pods: int = 1200) -> list[dict]:
    """Nodes and pods as a large file has them, with what each check reads: unknown fields
    (one miscased), a kind the scheduler skips, pods named from generateName."""
    out: list[dict] = [make_node(f"n{i}").capacity(cpu="8").dict() for i in range(300)]
    for i in range(pods):
        pod = make_pod(f"p{i}").req(cpu="100m").dict()
        if i % 97 == 0:
            pod["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
        if i % 211 == 0:
            pod["spec"]["NodeName"] = "n1"
        if i % 150 == 0:
            del pod["metadata"]["name"]
            pod["metadata"]["generateName"] = "gen-"
        out.append(pod)
    out.insert(700, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {}})
    return out


def _write(tmp_path, objects: list[dict], name: str = "big.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return str(path)


def _read(path: str, *, ahead_on: bool, monkeypatch: pytest.MonkeyPatch):
    """load_snapshot with the child forced on (any size, under the test runner's threads) or off."""
    with monkeypatch.context() as m:
        m.setattr(ahead, "MIN_TEXT", 1 if ahead_on else 10**12)
        m.setattr(ahead, "can_fork", lambda: True)
        try:
            snap = load_snapshot([path])
        except InputError as exc:
            return ("error", str(exc))
    return (
        [n.name for n in snap.nodes],
        [(p.key, p.node_name) for p in snap.pods],
        snap.warnings,
    )


def _started(monkeypatch: pytest.MonkeyPatch) -> list[ahead.Verdicts]:
    """The Verdicts each load starts (to look at their child afterwards)."""
    made: list[ahead.Verdicts] = []
    start = ahead.Verdicts.start.__func__

    def recording(cls, text, read):
        v = start(cls, text, read)
        if v is not None:
            made.append(v)
        return v

    monkeypatch.setattr(ahead.Verdicts, "start", classmethod(recording))
    return made


def _reaped(pid: int) -> bool:
    """No zombie of the child is left once the deferred reaping has run."""
    ahead._reap_finished(wait=True)
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_same_snapshot_and_warnings_as_one_core(tmp_path, monkeypatch):
    path = _write(tmp_path, _objects())
    made = _started(monkeypatch)
    one = _read(path, ahead_on=False, monkeypatch=monkeypatch)
    two = _read(path, ahead_on=True, monkeypatch=monkeypatch)
    assert len(made) == 1 and _reaped(made[0].pid)
    assert two == one
    nodes, pods, warnings = two
    assert len(pods) == 1200 and sum(key.startswith("default/gen-") for key, _ in pods) == 8
    assert any('unknown field "spec.containers[0].imagePullPolicyy"' in w for w in warnings)
    assert any('(did you mean "nodeName"?)' in w for w in warnings)
    assert any("skipping objects of kind 'ConfigMap'" in w for w in warnings)


@pytest.mark.parametrize("at", [0, 5, ahead.BATCH - 1, ahead.BATCH, 1100])
def test_first_admission_error_is_the_one_core_error(tmp_path, monkeypatch, at):
    objects = _objects()
    objects[at] = copy.deepcopy(objects[at])
    objects[at]["metadata"]["name"] = "Not_A_Name"  # a node or a pod: not a DNS subdomain
    path = _write(tmp_path, objects)
    made = _started(monkeypatch)
    one = _read(path, ahead_on=False, monkeypatch=monkeypatch)
    two = _read(path, ahead_on=True, monkeypatch=monkeypatch)
    assert one[0] == "error" and two == one
    assert len(made) == 1 and _reaped(made[0].pid)


def test_an_earlier_build_error_wins_and_a_later_one_loses(tmp_path, monkeypatch):
    """A duplicate name (found at build) before a bad object is the error; after it, the bad
    object's admission error is, as reading object by object finds them."""
    objects = _objects()
    bad = copy.deepcopy(objects[900])
    bad["metadata"]["name"] = "Not_A_Name"
    dup = copy.deepcopy(objects[400])
    for where, expect in ((600, "duplicate Pod"), (1000, "metadata.name")):
        items = list(objects)
        items[800] = bad
        items.insert(where, dup)
        path = _write(tmp_path, items, f"f{where}.json")
        one = _read(path, ahead_on=False, monkeypatch=monkeypatch)
        two = _read(path, ahead_on=True, monkeypatch=monkeypatch)
        assert two == one and expect in one[1]


def test_nothing_unadmitted_is_built(tmp_path, monkeypatch):
    objects = _objects()
    objects[640]["metadata"]["name"] = "Not_A_Name"
    built: list[str] = []
    real_build = loader._build
    monkeypatch.setattr(
        loader, "_build", lambda kind, raw, objs: (built.append(raw["metadata"].get("name")), real_build(kind, raw, objs))[1]
    )
    result = _read(_write(tmp_path, objects), ahead_on=True, monkeypatch=monkeypatch)
    assert result[0] == "error"
    assert len(built) == 640 and "Not_A_Name" not in built  # objects[0:640]: none from 640 on


def _dies() -> None:
    raise MemoryError


def _goes_silent() -> None:
    threading.Event().wait()  # forever: the loader's SILENCE ends it


@pytest.mark.parametrize("after_first_record", [_dies, _goes_silent], ids=["dies", "goes-silent"])
def test_a_child_that_stops_leaves_the_rest_to_the_loader(tmp_path, monkeypatch, after_first_record):
    """The child sends one record, then dies or sends nothing more: the loader admits and
    checks the rest itself (after SILENCE for a silent one), and the child is ended and reaped."""
    objects = _objects()
    objects[1300]["metadata"]["name"] = "Not_A_Name"
    path = _write(tmp_path, objects)
    one = _read(path, ahead_on=False, monkeypatch=monkeypatch)
    parent, calls, real_admit = os.getpid(), [0], ahead.admit

    def stopping_in_the_child(raw):
        calls[0] += 1
        if os.getpid() != parent and calls[0] > ahead.BATCH + 100:
            after_first_record()  # in the child only, after its first record
        return real_admit(raw)

    monkeypatch.setattr(ahead, "admit", stopping_in_the_child)
    monkeypatch.setattr(ahead, "SILENCE", 0.5)
    made = _started(monkeypatch)
    two = _read(path, ahead_on=True, monkeypatch=monkeypatch)
    assert two == one and "metadata.name" in one[1]
    assert made[0].gave_up and made[0].upto == ahead.BATCH and _reaped(made[0].pid)


def test_no_child_beside_a_busy_thread_or_for_a_small_or_huge_file(monkeypatch):
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, daemon=True)
    worker.start()
    try:
        assert not ahead.can_fork()
    finally:
        stop.set()
        worker.join()
    assert ahead.Verdicts.start("x" * (ahead.MIN_TEXT - 1), list) is None
    monkeypatch.setattr(ahead, "can_fork", lambda: True)
    monkeypatch.setattr(ahead, "MIN_TEXT", 1)
    monkeypatch.setattr(ahead, "MAX_TEXT", 10)
    assert ahead.Verdicts.start("x" * 11, list) is None


def test_the_plugin_watchdog_allows_a_child_only_between_calls():
    """The loader reads its files after the configuration, whose plugin arguments may have
    started the watchdog of sandboxed plugin calls: with no call in progress it holds nothing
    a child needs; during a call there is no child. (A fresh process: the test runner's own
    threads would forbid the fork.)"""
    code = textwrap.dedent(
        """
        import threading
        from kschedctl.cluster.admission_ahead import can_fork
        from kschedctl.runtime.sandbox import Sandbox
        Sandbox("p", timeout=5).call(sum, [1, 2])
        names = sorted(t.name for t in threading.enumerate())
        print(names, can_fork(), Sandbox("p", timeout=5).call(can_fork))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["['MainThread',", "'kschedctl", "plugin", "watchdog']", "True", "False"], out.stderr
