"""`simulate` on bad scenarios: every problem is exit 2, one line naming the scenario file, the
field and the line; nothing hangs. Ids name the failure classes of issue 12.
"""

from __future__ import annotations

import time

import pytest
import yaml

from kschedctl.testing import make_node, make_pod

NODE = make_node("n1").capacity(cpu="4", memory="4Gi", pods=10).dict()


def _scenario(tmp_path, events, objects=None, text_events: str | None = None) -> str:
    doc = {"apiVersion": "kschedctl.io/v1alpha1", "kind": "Scenario", "objects": objects or [NODE], "events": events}
    text = yaml.safe_dump(doc, sort_keys=False)
    if text_events is not None:
        text = text.replace("events: []\n", "events:\n" + text_events)
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    "at,message",
    [
        (".nan", ".nan is not a JSON number"),
        (".inf", ".inf is not a JSON number"),
        ("'99999999999999h'", "must be at most 9223372037 seconds"),
    ],
    ids=["at-nan-hangs", "at-inf", "at-beyond-go-duration"],
)
def test_event_times_that_cannot_happen(run_cli, tmp_path, at, message):
    path = _scenario(tmp_path, [], text_events=f"- at: {at}\n  action: cordonNode\n  node: n1\n")
    start = time.perf_counter()
    out = run_cli("simulate", path)
    assert time.perf_counter() - start < 5
    assert out.exit_code == 2
    [line] = out.stderr.strip().splitlines()
    assert line.startswith(f"error: {path}:") and message in line


def test_create_pod_error_names_the_scenario_not_input(run_cli, tmp_path):
    pod = make_pod("p").req(cpu="1").priority_class("missing").dict()
    out = run_cli("simulate", _scenario(tmp_path, [{"at": 1, "action": "createPod", "object": pod}]))
    assert out.exit_code == 2
    [line] = out.stderr.strip().splitlines()
    assert "<input>" not in line and "scenario.yaml" in line
    assert "events[0].object.spec.priorityClassName" in line and "no PriorityClass with name missing" in line


def test_create_pod_with_a_uid_collision(run_cli, tmp_path):
    first = make_pod("a").uid("same").req(cpu="1").dict()
    second = make_pod("b").uid("same").req(cpu="1").dict()
    out = run_cli("simulate", _scenario(tmp_path, [{"at": 1, "action": "createPod", "object": second}], objects=[NODE, first]))
    assert out.exit_code == 2 and 'events[0].object.metadata.uid: Duplicate value: "same"' in out.stderr


def test_inline_objects_with_a_uid_collision(run_cli, tmp_path):
    objects = [NODE, make_pod("a").uid("same").dict(), make_pod("b").uid("same").dict()]
    out = run_cli("simulate", _scenario(tmp_path, [], objects=objects))
    assert out.exit_code == 2 and "Pod default/b: metadata.uid: Duplicate value" in out.stderr


@pytest.mark.parametrize(
    "allocatable,field",
    [
        ({"cpu": "lots"}, "events[0].allocatable"),
        ({"cpu": "-1"}, "events[0].allocatable"),
        ({"memory": "1e400"}, "events[0].allocatable"),
    ],
    ids=["update-node-bad-quantity", "update-node-negative", "update-node-out-of-range"],
)
def test_update_node_with_bad_quantities(run_cli, tmp_path, allocatable, field):
    out = run_cli("simulate", _scenario(tmp_path, [{"at": 1, "action": "updateNode", "node": "n1", "allocatable": allocatable}]))
    assert out.exit_code == 2
    [line] = out.stderr.strip().splitlines()
    assert f"{field}: node n1: status.allocatable." in line and "Traceback" not in out.stderr


def test_update_node_with_an_invalid_label(run_cli, tmp_path):
    out = run_cli("simulate", _scenario(tmp_path, [{"at": 1, "action": "updateNode", "node": "n1", "labels": {"bad key!": "x"}}]))
    assert out.exit_code == 2 and "events[0].labels: node n1: metadata.labels: Invalid value" in out.stderr


@pytest.mark.parametrize(
    "event",
    [
        {
            "at": 1,
            "action": "createPod",
            "object": {"kind": "Pod", "metadata": {"name": "p", "labels": None}, "spec": None, "status": None},
        },
        {
            "at": 1,
            "action": "addNode",
            "object": {"kind": "Node", "metadata": {"name": "n2", "annotations": None}, "spec": None, "status": {"allocatable": None}},
        },
    ],
    ids=["create-pod-null-fields", "add-node-null-fields"],
)
def test_objects_with_null_fields(run_cli, tmp_path, event):
    out = run_cli("simulate", _scenario(tmp_path, [event]), "-o", "json")
    assert out.exit_code == 0, out.stderr


def test_missing_snapshot_file_is_named_in_the_scenario(run_cli, tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text("apiVersion: kschedctl.io/v1alpha1\nkind: Scenario\nsnapshot: nope.yaml\nevents: []\n")
    out = run_cli("simulate", str(path))
    assert out.exit_code == 2 and f"error: {path}:3: Scenario: snapshot: no such file or directory" in out.stderr


def test_event_object_is_admitted(run_cli, tmp_path):
    pod = make_pod("Bad_Name").req(cpu="1").dict()
    out = run_cli("simulate", _scenario(tmp_path, [{"at": 1, "action": "createPod", "object": pod}]))
    assert out.exit_code == 2 and 'events[0].object.metadata.name: Invalid value: "Bad_Name"' in out.stderr


def test_a_pod_created_bound_and_gated_is_refused(run_cli, tmp_path):
    """ValidatePodCreate's rule: then ungating it later cannot end the run with an internal error."""
    pod = make_pod("p").gates("example.com/hold").node("n1").req(cpu="1").dict()
    events = [{"at": 1, "action": "createPod", "object": pod}, {"at": 2, "action": "ungatePod", "pod": "default/p"}]
    out = run_cli("simulate", _scenario(tmp_path, events))
    assert out.exit_code == 2
    [line] = out.stderr.strip().splitlines()
    assert "events[0].object.spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared" in line


def test_scenario_snapshot_path_too_long(run_cli, tmp_path):
    """Found by the long fuzz run (seed 12, input 4449): an OSError from the file system."""
    path = tmp_path / "scenario.yaml"
    path.write_text(f"apiVersion: kschedctl.io/v1alpha1\nkind: Scenario\nsnapshot: {'a' * 300}\nevents: []\n")
    out = run_cli("simulate", str(path))
    assert out.exit_code == 2
    [line] = out.stderr.strip().splitlines()
    assert line.startswith(f"error: {path}:3: Scenario: snapshot: File name too long") and "internal" not in line


def test_snapshot_path_too_long(run_cli, tmp_path):
    out = run_cli("schedule", str(tmp_path / ("a" * 300)))
    assert out.exit_code == 2 and "File name too long" in out.stderr and "internal" not in out.stderr
