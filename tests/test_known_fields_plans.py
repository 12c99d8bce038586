"""The unknown-field check's memoised layouts (kschedctl/api/known_fields.py) find exactly what the
full walk finds: objects sharing a layout at the top can still differ below it, a remembered
layout is never taken for a clean one it is not, and the memo stays bounded."""

from __future__ import annotations

import copy
from typing import Any

from kschedctl.api import known_fields


def _walked(raw: dict[str, Any]) -> list[tuple[str, str | None]]:
    kinds, types = known_fields._schema()
    out: list[tuple[str, str | None]] = []
    known_fields._walk(raw, types[kinds[raw["kind"]]["type"]], "", types, out)
    return out


POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "namespace": "ns", "labels": {"a": "b"}},
    "spec": {
        "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}],
        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
        "overhead": {"cpu": "1"},
    },
}


def test_clean_objects_of_one_layout_and_a_deep_miscased_field() -> None:
    assert known_fields.unknown_fields(POD) == [] == _walked(POD)
    again = copy.deepcopy(POD)  # same layout everywhere: the memo answers
    assert known_fields.unknown_fields(again) == []
    deep = copy.deepcopy(POD)
    deep["spec"]["topologySpreadConstraints"].append({"maxSkew": 1, "NodeAffinityPolicy": "Honor"})
    deep["spec"]["containers"][0]["resources"]["Limits"] = {}
    expected = [
        ("spec.containers[0].resources.Limits", "limits"),
        ("spec.topologySpreadConstraints[1].NodeAffinityPolicy", "nodeAffinityPolicy"),
    ]
    assert sorted(known_fields.unknown_fields(deep)) == expected == sorted(_walked(deep))
    assert known_fields.unknown_fields(POD) == []  # a bad layout seen does not taint a good one


def test_map_values_and_key_order() -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "1"}}}
    reordered = {"kind": "Node", "status": node["status"], "metadata": node["metadata"], "apiVersion": "v1"}
    assert known_fields.unknown_fields(node) == known_fields.unknown_fields(reordered) == []
    odd = copy.deepcopy(node)
    odd["metadata"]["Annotations"] = {}
    assert known_fields.unknown_fields(odd) == _walked(odd) == [("metadata.Annotations", "annotations")]


def test_the_memo_is_bounded() -> None:
    _, types = known_fields._schema()
    for i in range(known_fields._PLANS_MAX + 50):
        pod = copy.deepcopy(POD)
        pod["metadata"]["labels"] = {}
        pod["metadata"][f"x{i}"] = 1  # a new layout each time
        assert known_fields.unknown_fields(pod) == [(f"metadata.x{i}", None)]
    assert all(len(t.plans) <= known_fields._PLANS_MAX for t in types.values())
