"""Validation and decoding asked once per distinct subdocument (kschedctl/api/content_memo.py).

Pinned: an equal document (same types, same values) gets the kept answer and a different one
(1 against 1.0, True or "1") does not; a document that fails fails every time, with its own
path and words (ValidatePodCreate's, pkg/apis/core/validation/validation.go); a snapshot of
replicas decodes to pods that share their frozen Affinity and schedule as before.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from kschedctl.api import content_memo
from kschedctl.api.content_memo import by_content
from kschedctl.cluster.loader import load_snapshot


def test_an_equal_document_gets_the_kept_answer_and_a_different_type_does_not() -> None:
    kept: dict[Any, Any] = {}
    calls: list[Any] = []

    def fn(doc: Any, where: str) -> list[Any]:
        calls.append(doc)
        return [where, doc]

    first = by_content(kept, fn, {"a": 1}, "p")
    assert by_content(kept, fn, {"a": 1}, "p") is first
    for other in ({"a": 1.0}, {"a": True}, {"a": "1"}, {"a": None}, {"a": float("nan")}):
        assert by_content(kept, fn, other, "p") is not first
    assert by_content(kept, fn, {"a": 1}, "q") is not first  # another path
    assert len(calls) == 7
    assert by_content(kept, fn, [1], "p") == ["p", [1]] and by_content(kept, fn, [1], "p") == ["p", [1]]
    assert len(calls) == 9  # only dicts are kept


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (1, 1.0),
        (1, True),
        (1, "1"),
        (0.0, -0.0),
        (None, float("nan")),
        (float("inf"), None),
        ("null", None),
        (datetime.date(2026, 1, 2), "2026-01-02"),
        (2**64, float(2**64)),
        ({"x": 1, "y": 2}, {"y": 2, "x": 1}),
        ({1: "a"}, {"1": "a"}),
    ],
    ids=lambda v: type(v).__name__,
)
def test_the_content_key_tells_values_and_types_apart(a: Any, b: Any) -> None:
    """The key names every value and type of a decoded document apart, whether it comes from
    the JSON text (orjson, when installed) or from repr; equal documents get equal keys."""
    key_a, key_b = content_memo.content_key({"v": a}), content_memo.content_key({"v": b})
    assert key_a != key_b
    if not isinstance(a, dict):  # a dict's two orders are two contents, as for repr
        assert content_memo.content_key({"v": a}) == key_a
    assert content_memo.content_key(json.loads(json.dumps({"k": [1, "x", True, 2.5]}))) == content_memo.content_key(
        {"k": [1, "x", True, 2.5]}
    )


def test_the_content_key_is_the_json_text_only_when_it_is_exact() -> None:
    """With orjson a document without null, dates or other help is named by its JSON text;
    anything else by repr (a str, never equal to the bytes of a text)."""
    pytest.importorskip("orjson")
    assert content_memo.content_key({"a": [1, 2.5, "s", False]}) == b'{"a":[1,2.5,"s",false]}'
    for doc in ({"a": None}, {"a": float("nan")}, {"a": datetime.date(2026, 1, 2)}, {"a": 2**64}, {1: "a"}, {"a": _Text("s")}):
        assert content_memo.content_key(doc) == repr(doc)


class _Text(str):
    """A str subclass: printed by orjson only with help, which it is not given."""


def test_a_full_memo_starts_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(content_memo, "LIMIT", 3)
    kept: dict[Any, Any] = {}
    for i in range(7):
        by_content(kept, lambda d, w: d["i"], {"i": i}, "p")
        assert len(kept) <= 3


def _pods(affinities: list[Any], requests: list[Any]) -> dict[str, Any]:
    items: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n1", "labels": {"zone": "a"}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}},
        }
    ]
    for i, (affinity, resources) in enumerate(zip(affinities, requests)):
        spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i", "resources": resources}]}
        if affinity is not None:
            spec["affinity"] = affinity
        items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"}, "spec": spec})
    return {"apiVersion": "v1", "kind": "List", "items": items}


ZONE_A = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]
        }
    }
}
OK = {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"}}


def test_replicas_share_their_affinity(tmp_path: Path) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(_pods([ZONE_A, json.loads(json.dumps(ZONE_A)), None], [OK, OK, OK])))
    cluster = load_snapshot([str(path)])
    pods = {p.meta.name: p for p in cluster.pods}
    assert pods["p0"].affinity is not None and pods["p0"].affinity is pods["p1"].affinity
    assert pods["p2"].affinity is None


@pytest.mark.parametrize(
    ("affinity", "resources", "words"),
    [
        (
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Sideways", "values": ["a"]}]}]
                    }
                }
            },
            OK,
            'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Sideways"',
        ),
        (ZONE_A, {"requests": {"cpu": "300m"}, "limits": {"cpu": "200m"}}, "spec.containers[0].resources.requests: Invalid value"),
    ],
    ids=["affinity", "resources"],
)
def test_a_bad_document_fails_every_time(tmp_path: Path, affinity: Any, resources: Any, words: str) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_pods([ZONE_A], [OK])))
    load_snapshot([str(good)])  # the good documents are kept first
    for attempt in range(2):
        bad = tmp_path / f"bad{attempt}.json"
        bad.write_text(json.dumps(_pods([ZONE_A, affinity], [OK, resources])))
        with pytest.raises(Exception) as err:
            load_snapshot([str(bad)])
        assert words in str(err.value), str(err.value)
        assert "p1" in str(err.value)


def test_replicas_share_the_parts_built_from_their_spec_but_not_their_node(tmp_path: Path) -> None:
    """Pod.from_dict keeps what it builds from a spec by the spec's content without nodeName
    (kschedctl/api/types.py _SPEC_PARTS): replicas bound to different nodes share containers,
    requests and tolerations; a pod with volumes or claims gets its own; each keeps its node."""
    doc = _pods([ZONE_A, ZONE_A, ZONE_A, None, None], [OK, OK, OK, OK, OK])  # node n1, then p0..p4
    items = doc["items"][1:]
    for item in items[:3]:
        item["spec"]["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    items[1]["spec"]["nodeName"], items[2]["spec"]["nodeName"] = "n1", "n2"
    for item in items[3:]:
        item["spec"]["volumes"] = [{"name": "scratch", "emptyDir": {}}]
    doc["items"].append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}, "status": {"allocatable": {"cpu": "4"}}})
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(doc))
    pods = {p.meta.name: p for p in load_snapshot([str(path)]).pods}
    assert [pods[n].node_name for n in ("p0", "p1", "p2")] == ["", "n1", "n2"]
    assert pods["p0"].containers is pods["p1"].containers is pods["p2"].containers
    assert pods["p0"].tolerations is pods["p2"].tolerations and pods["p0"].containers[0].requests == {
        "cpu": pods["p0"].containers[0].requests["cpu"]
    }
    assert pods["p3"].volumes == pods["p4"].volumes and pods["p3"].volumes[0] is not pods["p4"].volumes[0]
    assert pods["p3"].containers is not pods["p4"].containers  # built per pod, volumes and all


def test_a_spec_that_fails_to_build_fails_every_time() -> None:
    from kschedctl.api.errors import ObjectError
    from kschedctl.api.types import Pod

    good = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": [{"name": "c", "resources": OK}]}}
    first = Pod.from_dict(good)
    assert Pod.from_dict(json.loads(json.dumps(good))).containers is first.containers
    bad = json.loads(json.dumps(good))
    bad["spec"]["priority"] = "high"  # not an integer: building says so, at its path
    for _ in range(2):
        with pytest.raises(ObjectError) as err:
            Pod.from_dict(bad)
        assert err.value.field == "spec.priority"
    assert Pod.from_dict(good).containers is first.containers
