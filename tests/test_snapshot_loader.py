"""Snapshot loading as ../shared/contract.md describes it: files, directories, stdin, YAML with many
documents, JSON, List and *List kinds, defaults the API server applies, and one clear error for bad input."""

import json
import textwrap

import pytest

from kschedctl.api.errors import InputError
from kschedctl.cluster.loader import load_snapshot
from kschedctl.testing import make_node, make_pod


def _yaml_docs(*objs):
    import yaml

    return "---\n".join(yaml.safe_dump(o) for o in objs)


def test_multi_document_yaml_and_lists(tmp_path):
    f = tmp_path / "a.yaml"
    node_list = {"apiVersion": "v1", "kind": "NodeList", "items": [make_node("n1").dict(), make_node("n2").dict()]}
    f.write_text(_yaml_docs(node_list, make_pod("p").dict(), {"apiVersion": "v1", "kind": "List", "items": []}))
    snap = load_snapshot([str(f)])
    assert [n.name for n in snap.nodes] == ["n1", "n2"]
    assert [p.key for p in snap.pods] == ["default/p"]


def test_directories_are_read_recursively_in_path_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.yml").write_text(_yaml_docs(make_node("n2").dict()))
    (tmp_path / "a.json").write_text(json.dumps(make_node("n1").dict()))
    (tmp_path / "notes.txt").write_text("ignored")
    snap = load_snapshot([str(tmp_path)])
    assert [n.name for n in snap.nodes] == ["n1", "n2"]


def test_stdin(monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(_yaml_docs(make_node("n1").dict())))
    assert [n.name for n in load_snapshot(["-"]).nodes] == ["n1"]


def test_api_server_defaults_are_applied(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text(
        textwrap.dedent("""\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          hostNetwork: true
          containers: [{name: c, image: nginx, ports: [{containerPort: 8080}]}]
        """)
    )
    pod = load_snapshot([str(f)]).pods[0]
    assert pod.namespace == "default" and pod.scheduler_name == "default-scheduler"
    assert pod.priority == 0 and pod.preemption_policy == "PreemptLowerPriority"
    assert pod.containers[0].ports[0].host_port == 8080  # hostNetwork: hostPort defaults to containerPort


def test_priority_from_priority_class_and_global_default(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(
        _yaml_docs(
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": "def"},
                "value": 7,
                "globalDefault": True,
                "preemptionPolicy": "Never",
            },
            make_pod("a").priority_class("high").dict(),
            make_pod("b").dict(),
            make_pod("c").priority(5).dict(),
        )
    )
    pods = {p.name: p for p in load_snapshot([str(f)]).pods}
    assert (pods["a"].priority, pods["b"].priority, pods["c"].priority) == (1000, 7, 5)
    assert pods["b"].preemption_policy == "Never"


def test_unknown_kinds_are_skipped_with_one_warning_per_kind(tmp_path):
    f = tmp_path / "s.yaml"
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    f.write_text(_yaml_docs(cm, cm, make_node("n1").dict()))
    snap = load_snapshot([str(f)])
    assert snap.warnings == ["warning: skipping objects of kind 'ConfigMap' (not used for scheduling)"]


def test_device_taint_rules_are_read_not_skipped(tmp_path):
    """DeviceTaintRules are modelled (issue 23): read as objects, no skipping warning at load."""
    f = tmp_path / "s.yaml"
    obj = {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "x"},
        "spec": {"taint": {"key": "k", "effect": "NoSchedule"}},
    }
    f.write_text(_yaml_docs(obj, make_node("n1").dict()))
    snap = load_snapshot([str(f)])
    assert snap.warnings == [] and list(snap.objects.device_taint_rules) == ["x"]


@pytest.mark.parametrize(
    "content,expected",
    [
        ("kind: Pod\nmetadata: {name: x\n", "malformed YAML"),
        ("apiVersion: v1\nkind: Pod\nmetadata: {}\n", "metadata.name: Required value: name or generateName is required"),
        ("apiVersion: v1\nkind: Node\nmetadata: {name: nd}\nstatus:\n  allocatable:\n    cpu: lots\n", "status.allocatable.cpu"),
        ("- just\n- a list\n", "expected a Kubernetes object"),
        ("apiVersion: v1\nmetadata: {name: x}\n", "object has no kind"),
    ],
)
def test_bad_input_is_one_error_naming_file_object_and_field(tmp_path, content, expected):
    f = tmp_path / "bad.yaml"
    f.write_text(content)
    with pytest.raises(InputError) as info:
        load_snapshot([str(f)])
    text = str(info.value)
    assert str(f) in text and expected in text


def test_field_errors_carry_the_line_of_the_field(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: nd}\n"
        "  status:\n    allocatable:\n      cpu: lots\n"
    )
    with pytest.raises(InputError) as info:
        load_snapshot([str(f)])
    assert info.value.line == 9
    assert str(info.value).startswith(f"{f}:9: Node nd: status.allocatable.cpu:")


def test_duplicate_pods_are_rejected(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(_yaml_docs(make_pod("p").dict(), make_pod("p").dict()))
    with pytest.raises(InputError, match="duplicate Pod"):
        load_snapshot([str(f)])


def test_a_plainly_named_file_is_found_as_pathlib_finds_it(tmp_path, monkeypatch):
    """cluster/loader.py answers a plainly spelled, existing non-directory path itself (no
    pathlib at start-up); whatever it answers must be what pathlib would, and every other path
    is pathlib's to judge."""
    import os
    import random
    from pathlib import Path

    from kschedctl.cluster import loader

    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "f.json").write_text("{}")
    (tmp_path / "g.yaml").write_text("")
    os.symlink(tmp_path / "d", tmp_path / "link")
    monkeypatch.chdir(tmp_path)
    parts = ["d", "e", "f.json", "g.yaml", "link", ".", "..", "", "missing"]
    rng = random.Random(7)
    spellings = {"d/f.json", "g.yaml", "link/f.json", str(tmp_path / "g.yaml"), "d/e/../f.json", "d\x00x"}
    for _ in range(400):
        words = [rng.choice(parts) for _ in range(rng.randint(1, 4))]
        spellings.add(("/" if rng.random() < 0.2 else "") + "/".join(words) + ("/" if rng.random() < 0.2 else ""))
    plain = 0
    for p in sorted(spellings):
        if loader._plain_file(p):
            plain += 1
            assert not Path(p).is_dir() and Path(p).exists() and str(Path(p)) == p, p
        try:
            expected: object = Path(p).is_dir()
        except (OSError, ValueError) as exc:
            expected = type(exc)
        try:
            got: object = loader._is_dir(p)
        except (OSError, ValueError) as exc:
            got = type(exc)
        assert got == expected, p
    assert plain >= 4  # the plain spellings are answered without pathlib
    assert loader._plain_file("d/f.json") and loader._plain_file(str(tmp_path / "g.yaml"))
    assert not any(loader._plain_file(p) for p in ("./g.yaml", "d//f.json", "d/./f.json", "d/f.json/", "d", "missing"))
