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
from kschedctl.api.resource_admission import DRA_KINDS as _DRA_KINDS
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


def _records(objects: list[dict], clock) -> list[tuple[int, bool]]:
    """(objects checked, last record) of each record the child's checks send for ``objects``."""
    import io
    import pickle

    out = io.BytesIO()
    ahead._check_all(objects, out, clock)
    data, records, head = out.getvalue(), [], ahead._HEADER.size
    while data:
        size = ahead._HEADER.unpack(data[:head])[0]
        upto, _error, _unknown, _own, done = pickle.loads(data[head : head + size])
        records.append((upto, done))
        data = data[head + size :]
    return records


def test_a_record_per_millisecond_or_per_batch(monkeypatch):
    """The loader waits whenever it has caught up with the child: a record goes once
    RECORD_SECONDS have passed since the last one (a slow stretch of objects), or after BATCH
    objects (a fast one), and never an empty one at the end."""
    objects = _objects()  # 1,501 objects
    frozen = lambda: 0.0  # noqa: E731 - time stands still: BATCH objects a record
    assert _records(objects, frozen) == [(512, False), (1024, False), (1501, True)]
    assert _records(objects[:1024], frozen) == [(512, False), (1024, True)]
    monkeypatch.setattr(ahead, "RECORD_SECONDS", 2)  # whole numbers: no rounding in the sums
    ticks = iter(range(10**6))
    slow = lambda: next(ticks)  # noqa: E731 - each read half the period after the last one
    # a read when the record is written and one per object after it: every second object is due
    assert _records(objects[:9], slow) == [(2, False), (4, False), (6, False), (8, False), (9, True)]
    bad = copy.deepcopy(objects[:900])
    bad[650]["metadata"]["name"] = "Not_A_Name"
    assert _records(bad, frozen) == [(512, False), (651, True)]  # the error ends the list


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
    """The child sends its records for the first BATCH objects or more, then dies or sends
    nothing more: the loader admits and checks the rest itself (after SILENCE for a silent one),
    and the child is ended and reaped."""
    objects = _objects()
    objects[1300]["metadata"]["name"] = "Not_A_Name"
    path = _write(tmp_path, objects)
    one = _read(path, ahead_on=False, monkeypatch=monkeypatch)
    parent, calls, real_admit = os.getpid(), [0], ahead.admit

    def stopping_in_the_child(raw):
        calls[0] += 1
        if os.getpid() != parent and calls[0] > ahead.BATCH + 100:
            after_first_record()  # in the child only, after a record of the first BATCH objects at least
        return real_admit(raw)

    monkeypatch.setattr(ahead, "admit", stopping_in_the_child)
    monkeypatch.setattr(ahead, "SILENCE", 0.5)
    made = _started(monkeypatch)
    two = _read(path, ahead_on=True, monkeypatch=monkeypatch)
    assert two == one and "metadata.name" in one[1]
    # its records stopped short of the bad object, which the loader's own check found
    assert made[0].gave_up and 0 < made[0].upto < 1300 and _reaped(made[0].pid)


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


def _dra_objects() -> list[dict]:
    """The large file with DRA objects among its pods: a class, a slice per tenth node, a
    claim template and allocated claims, one of them written in v1beta1 (converted as served)."""
    out = _objects(600)
    claim_spec = {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}
    dra: list[dict] = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "one", "namespace": "default"},
            "spec": {"spec": claim_spec},
        },
    ]
    for i in range(0, 300, 10):
        dra.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"n{i}-gpus"},
                "spec": {
                    "driver": "gpu.example.com",
                    "nodeName": f"n{i}",
                    "pool": {"name": f"n{i}", "resourceSliceCount": 1},
                    "devices": [{"name": "gpu-0"}],
                },
            }
        )
        dra.append(
            {
                "apiVersion": "resource.k8s.io/v1" if i else "resource.k8s.io/v1beta1",
                "kind": "ResourceClaim",
                "metadata": {"name": f"held-{i}", "namespace": "default"},
                "spec": copy.deepcopy(claim_spec) if i else {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu"}]}},
            }
        )
    return out[:650] + dra + out[650:]


def test_dra_objects_are_validated_ahead_as_one_core_validates_them(tmp_path, monkeypatch):
    """DRA objects are converted and validated as admission (kschedctl.api.admission.admit_dra),
    so the child runs their validation too: the same snapshot and warnings, and for each bad
    object (a version never served, an invalid spec, a bad name) the same first error, word
    for word as building them reported it before validation moved into admission."""
    import kschedctl.api.admission as admission

    objects = _dra_objects()
    path = _write(tmp_path, objects)
    validated: list[str] = []  # DRA objects this process validated (a forked child counts its own)
    real = admission.ADMITTERS["ResourceClaim"]

    def counting(raw: dict) -> None:
        validated.append(raw["kind"])
        real(raw)

    monkeypatch.setattr(admission, "ADMITTERS", {**admission.ADMITTERS, **dict.fromkeys(_DRA_KINDS, counting)})
    one = _read(path, ahead_on=False, monkeypatch=monkeypatch)
    assert len(validated) == 62  # the class, the template, 30 slices and 30 claims, once each
    validated.clear()
    assert _read(path, ahead_on=True, monkeypatch=monkeypatch) == one
    assert validated == []  # all of them validated by the child, beside the loader
    assert any("read 1 ResourceClaim object(s) written in resource.k8s.io/v1beta1" in w for w in one[2])
    claim = next(i for i, o in enumerate(objects) if o["kind"] == "ResourceClaim" and o["metadata"]["name"] == "held-150")
    slice_ = next(i for i, o in enumerate(objects) if o["kind"] == "ResourceSlice" and o["metadata"]["name"] == "n200-gpus")
    cases = [
        (
            claim,
            lambda o: o.update(apiVersion="resource.k8s.io/v2"),
            'ResourceClaim default/held-150: apiVersion: Unsupported value: "resource.k8s.io/v2"',
        ),
        (claim, lambda o: o["spec"]["devices"]["requests"][0].update(name="Not_A_Name"), "spec.devices.requests[0].name"),
        (slice_, lambda o: o["spec"]["pool"].update(resourceSliceCount=0), "spec.pool.resourceSliceCount"),
        (slice_, lambda o: o["metadata"].update(name="Not_A_Name"), "ResourceSlice Not_A_Name"),
    ]
    for at, edit, expect in cases:
        items = copy.deepcopy(objects)
        edit(items[at])
        bad = _write(tmp_path, items, f"bad{at}-{len(expect)}.json")
        one = _read(bad, ahead_on=False, monkeypatch=monkeypatch)
        two = _read(bad, ahead_on=True, monkeypatch=monkeypatch)
        assert one[0] == "error" and expect in one[1], one
        assert two == one
