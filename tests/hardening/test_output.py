"""Safe output: --write-snapshot never truncates or half-writes its target, writes the format its
extension says and keeps every input object; names and messages cannot break a line or forge a
table row; every error is one line. Ids name the failure classes of issue 12.
"""

from __future__ import annotations

import json

import pytest
import yaml

from kschedctl.api.field import escape_control, go_quote
from kschedctl.testing import make_node, make_pod

CAPACITY = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "CSIStorageCapacity",
    "metadata": {"name": "cap", "namespace": "default"},
    "storageClassName": "fast",
    "capacity": "1Gi",
}
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"}, "data": {"k": "v"}}


def _objects():
    return [
        make_node("n1").capacity(cpu="4", memory="4Gi", pods=10).dict(),
        CONFIGMAP,
        make_pod("a").req(cpu="1").dict(),
        CAPACITY,
        make_pod("b").req(cpu="1").node("n1").dict(),
    ]


@pytest.mark.parametrize("suffix", [".json", ".yaml"], ids=["write-snapshot-json-format", "write-snapshot-yaml-format"])
def test_write_snapshot_format_follows_the_extension_and_keeps_every_object(run_cli, write_snapshot, tmp_path, suffix):
    path = write_snapshot(*_objects())
    out = tmp_path / f"next{suffix}"
    assert run_cli("schedule", path, "--write-snapshot", str(out), "--seed", "1").exit_code == 0
    text = out.read_text()
    doc = json.loads(text) if suffix == ".json" else yaml.safe_load(text)
    kinds = [(o["kind"], o["metadata"]["name"]) for o in doc["items"]]
    assert kinds == [("Node", "n1"), ("ConfigMap", "cm"), ("Pod", "a"), ("CSIStorageCapacity", "cap"), ("Pod", "b")]
    assert doc["items"][3] == CAPACITY and doc["items"][1] == CONFIGMAP  # unknown kinds unchanged
    assert doc["items"][2]["spec"]["nodeName"] == "n1"
    assert run_cli("schedule", str(out), "-o", "json").json()["summary"]["pending"] == 0


def test_write_snapshot_failure_never_truncates_the_target(run_cli, write_snapshot, tmp_path, monkeypatch):
    path = write_snapshot(*_objects())
    target = tmp_path / "target.yaml"
    target.write_text("precious: data\n")

    def broken_dump(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("kschedctl.output.writer.yaml.dump", broken_dump)
    out = run_cli("schedule", path, "--write-snapshot", str(target))
    assert out.exit_code == 2
    assert target.read_text() == "precious: data\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, "snapshot-1.yaml"])  # no temp file left


def test_write_snapshot_into_a_missing_directory_is_a_clear_error(run_cli, write_snapshot, tmp_path):
    out = run_cli("schedule", write_snapshot(*_objects()), "--write-snapshot", str(tmp_path / "nope" / "x.yaml"))
    assert out.exit_code == 2
    [line] = [x for x in out.stderr.splitlines() if x.startswith("error: ")]
    assert "cannot write: no such directory" in line and "Traceback" not in out.stderr


def test_write_snapshot_over_its_own_input_is_refused(run_cli, write_snapshot):
    # issue 21: an output is never one of the command's inputs (it was replaced before)
    path = write_snapshot(*_objects())
    before = open(path).read()
    out = run_cli("schedule", path, "--write-snapshot", path)
    assert out.exit_code == 2 and "--write-snapshot: is one of this command's inputs" in out.stderr
    assert open(path).read() == before


@pytest.mark.parametrize(
    "text,escaped",
    [
        ("a\nb", "a\\nb"),
        ("x\x1b[31my", "x\\x1b[31my"),
        ("cr\rlf", "cr\\rlf"),
        ("\x85c1", "\\u0085c1"),
        ("line\u2028sep", "line\\u2028sep"),
        ("é ok", "é ok"),
        ("tab\there", "tab\\there"),
    ],
)
def test_escape_control(text, escaped):
    assert escape_control(text) == escaped


def test_go_quote_is_strconv_quote():
    assert go_quote('a"b\\c\n\x00é\U0001f600') == '"a\\"b\\\\c\\n\\x00é\U0001f600"'


def test_control_characters_in_messages_cannot_forge_table_rows(run_cli, write_snapshot):
    # A node label value cannot hold a newline (admission), but a message may quote what a user
    # wrote: the pod's scheduler name is free text the skip reason repeats.
    pod = make_pod("p").req(cpu="1").dict()
    pod["spec"]["schedulerName"] = "evil\ndefault/fake   Scheduled   n1"
    out = run_cli("schedule", write_snapshot(make_node("n1").capacity(cpu="4", memory="1Gi", pods=10), pod))
    assert out.exit_code == 0
    assert "\ndefault/fake" not in out.stdout and "evil\\ndefault/fake" in out.stdout


def test_an_error_quoting_a_newline_is_one_line(run_cli, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text('apiVersion: v1\nkind: Node\nmetadata:\n  name: "a\\nb"\n')
    out = run_cli("schedule", str(path))
    assert out.exit_code == 2
    [line] = out.stderr.strip().splitlines()
    assert line.startswith(f'error: {path}:4: Node a\\nb: metadata.name: Invalid value: "a\\nb"')


def test_validate_directory_says_why_on_stderr(run_cli, tmp_path):
    out = run_cli("validate", str(tmp_path))
    assert out.exit_code == 2 and out.stderr.strip() == f"error: {tmp_path}: cannot read: Is a directory"


def test_empty_kube_version_is_refused(run_cli, write_snapshot):
    out = run_cli("schedule", write_snapshot(make_node("n1")), "--kube-version", "")
    assert out.exit_code == 2 and "supported releases are 1.35, 1.36, 1.37" in out.stderr
