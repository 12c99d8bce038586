"""The shortcuts of reading a cluster's DRA objects give what the full reading gives.

A cluster with DRA has thousands of allocated claims of a few specs and hundreds of slices of
devices in one plain form; kschedctl reads those through shortcuts (kschedctl/api/resource.py
_plain_device, resourceclaim.py _plain_result and the spec memo, resource_admission.py
_plain_device_ok and the admitted-spec memo, known_fields.py's leaf types, loader.py
_flat_list_items). Each is checked here against the reading it stands for, on random objects
in every shape the shortcut takes and the shapes it must leave alone: the same objects, the
same first error word for word, the same unknown fields.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from typing import Any

import pytest

import kschedctl.api.resource as resource
import kschedctl.api.resource_admission as admission
import kschedctl.api.resourceclaim as resourceclaim
import kschedctl.cluster.loader as loader
from kschedctl.api import content_memo, known_fields
from kschedctl.api.errors import ObjectError
from kschedctl.api.resource import Device, ResourceSlice
from kschedctl.api.resourceclaim import ResourceClaim, ResourceClaimTemplate

NAMES = ["gpu-0", "gpu-1", "", None, 5, "Bad_Name", "x" * 64, "a" * 63, "gpu-0\n"]
ATTRIBUTES = [
    {"string": "A100"},
    {"string": "H100"},
    {"int": 0},
    {"int": 3},
    {"bool": True},
    {"version": "1.2.3"},
    {"int": True},
    {"int": 1.5},
    {"bool": 1},
    {"string": None},
    {"string": 7},
    {"int": 1, "string": "x"},
    {"list": ["a"]},
    {},
    "A100",
    None,
]
CAPACITIES = [
    {"value": "1Gi"},
    {"value": "80Gi"},
    {"value": 4},
    {"value": "1Gi", "requestPolicy": {"default": "1Mi"}},
    {"value": "bogus"},
    {"value": None},
    {},
    "1Gi",
]
EXTRA = [
    {},
    {},
    {},
    {"nodeName": "n1"},
    {"nodeName": ""},
    {"allNodes": False},
    {"allNodes": True},
    {"taints": [{"key": "k", "effect": "NoSchedule"}]},
    {"bindingConditions": ["ready"]},
]


def _random_device(rng: random.Random) -> Any:
    if rng.random() < 0.03:
        return rng.choice(["gpu", None, 3, ["gpu"]])
    device: dict[Any, Any] = {"name": rng.choice(NAMES) if rng.random() < 0.3 else f"dev-{rng.randrange(40)}"}
    if rng.random() < 0.9:
        n = rng.choice([0, 1, 2, 4, 20, 33])
        keys = [f"attr{i}" for i in range(n)] + ([5] if rng.random() < 0.05 else [])
        plain = ATTRIBUTES[:6]
        device["attributes"] = {k: copy.deepcopy(rng.choice(plain if rng.random() < 0.8 else ATTRIBUTES)) for k in keys}
        if rng.random() < 0.03:
            device["attributes"] = rng.choice([[], "attrs", 7])
    if rng.random() < 0.8:
        n = rng.choice([0, 1, 2])
        device["capacity"] = {f"cap{i}": copy.deepcopy(rng.choice(CAPACITIES[:3] if rng.random() < 0.8 else CAPACITIES)) for i in range(n)}
    device.update(copy.deepcopy(rng.choice(EXTRA)))
    return device


def _fields(obj: Any) -> Any:
    """A dataclass's fields, compared by value (Device compares by identity)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return tuple(_fields(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    if isinstance(obj, dict):
        return {k: _fields(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return tuple(_fields(v) for v in obj)
    return obj


def _outcome(fn: Any, *args: Any) -> Any:
    try:
        return ("ok", _fields(fn(*args)))
    except ObjectError as exc:
        return ("error", exc.message, exc.field)


@pytest.mark.parametrize("seed", range(4))
def test_plain_devices_read_as_device_from_dict_reads_them(seed: int) -> None:
    rng = random.Random(seed)
    taken = 0
    for i in range(600):
        raw = _random_device(rng)
        before = copy.deepcopy(raw)
        full = _outcome(Device.from_dict, raw, f"spec.devices[{i}]")
        if resource._plain_device(raw) is not None:
            taken += 1
        assert _outcome(resource._device, raw, i) == full, raw
        assert raw == before  # neither reading writes to the object
    assert taken > 40  # the shortcut was taken, and not only left alone


def test_shared_attribute_and_capacity_maps_stay_out_of_reach() -> None:
    """Devices of equal attributes share one map (a Device is never written to); a map read
    with an error is not kept, and the memos are bounded."""
    one = {"name": "a", "attributes": {"model": {"string": "A100"}}, "capacity": {"memory": {"value": "1Gi"}}}
    Device.from_dict(one, "d")  # a first sight of "1Gi" goes the long way and teaches the capacity
    two = {**one, "name": "b"}
    a, b = resource._device(one, 0), resource._device(two, 1)
    assert a.attributes is b.attributes and a.capacity is b.capacity
    assert a.attributes == {"model": resource.DeviceAttribute("string", "A100")}
    bad = {"name": "c", "attributes": {"model": {"int": True}}}
    for _ in range(2):
        with pytest.raises(ObjectError) as err:
            resource._device(bad, 3)
        assert (err.value.message, err.value.field) == ("expected an integer, got True", "spec.devices[3].attributes.model.int")
    for i in range(content_memo.LIMIT + 10):
        resource._device({"name": "d", "attributes": {"n": {"int": i}}}, 0)
    assert len(resource._ATTRIBUTE_MAPS) <= content_memo.LIMIT and len(resource._ATTRIBUTES) <= content_memo.LIMIT


def _slice(devices: list[Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {"driver": "gpu.example.com", "pool": {"name": "p", "resourceSliceCount": 1}, "nodeName": "n1", "devices": devices, **spec},
    }


@pytest.mark.parametrize("seed", range(4))
def test_slices_are_admitted_and_read_as_without_the_shortcuts(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(100 + seed)
    outcomes = []
    for _ in range(150):
        devices = [_random_device(rng) if rng.random() < 0.2 else _plain(rng) for _ in range(rng.choice([1, 3, 10]))]
        placement = rng.choice([{}, {}, {"nodeName": None, "perDeviceNodeSelection": True}])
        raw = _slice(devices, **placement)
        fast = (_outcome(admission.validate_dra_object, raw), _outcome(ResourceSlice.from_dict, raw))
        with monkeypatch.context() as m:
            m.setattr(admission, "_plain_device_ok", lambda device: False)
            m.setattr(resource, "_plain_device", lambda raw: None)
            full = (_outcome(admission.validate_dra_object, raw), _outcome(ResourceSlice.from_dict, raw))
        assert fast == full, raw
        outcomes.append(fast[0][0])
    assert {"ok", "error"} <= set(outcomes)


def _plain(rng: random.Random) -> dict[str, Any]:
    return {
        "name": f"dev-{rng.randrange(12)}",
        "attributes": {"model": {"string": "A100"}, "numa": {"int": rng.randrange(4)}, "v": {"version": "1.2.3"}},
        "capacity": {"memory": {"value": "1Gi"}},
    }


RESULTS = [
    {"request": "req-0", "driver": "gpu.example.com", "pool": "p", "device": "d0"},
    {"request": "req-0", "driver": "gpu.example.com", "pool": "p", "device": ""},
    {"request": "req-0", "pool": "p"},
    {"request": 5, "driver": "d", "pool": "p", "device": "x"},
    {"request": "r", "driver": "d", "pool": "p", "device": "x", "adminAccess": True},
    {"request": "r", "driver": "d", "pool": "p", "device": "x", "shareID": "abc"},
    {"request": "r", "driver": "d", "pool": "p", "device": "x", "tolerations": [{"key": "k", "operator": "Exists"}]},
    {"request": "r", "driver": "d", "pool": "p", "device": "x", "consumedCapacity": {"memory": "1Gi"}},
    {"request": "r", "driver": "d", "pool": "p", "device": "x", "bindingConditions": "ready"},
    {},
    "r",
]


def _claim(name: str, spec: Any, results: list[Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "ns"},
        "spec": spec,
        "status": {"allocation": {"devices": {"results": results}, "nodeSelector": {"nodeSelectorTerms": []}}},
    }


def _spec(request: str = "req-0", cls: str = "gpu") -> dict[str, Any]:
    return {"devices": {"requests": [{"name": request, "exactly": {"deviceClassName": cls}}]}}


@pytest.mark.parametrize("seed", range(3))
def test_claims_are_admitted_and_read_as_without_the_shortcuts(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(200 + seed)
    specs = [_spec(), _spec(cls="tpu"), _spec(request="Bad_Name"), _spec(cls=""), {"devices": {"requests": [{"name": "r"}]}}, None, "spec"]
    for i in range(300):
        results = [copy.deepcopy(rng.choice(RESULTS[:2] if rng.random() < 0.7 else RESULTS)) for _ in range(rng.choice([1, 2]))]
        raw = _claim(f"c{i}", copy.deepcopy(rng.choice(specs)), results)
        fast = (_outcome(admission.validate_dra_object, raw), _outcome(ResourceClaim.from_dict, raw))
        with monkeypatch.context() as m:
            m.setattr(admission, "by_content", lambda kept, fn, doc, where: fn(doc, where))
            m.setattr(resourceclaim, "by_content", lambda kept, fn, doc, where: fn(doc, where))
            m.setattr(resourceclaim, "_plain_result", lambda r: None)
            full = (_outcome(admission.validate_dra_object, raw), _outcome(ResourceClaim.from_dict, raw))
        assert fast == full, raw


def test_claims_of_one_spec_share_it_and_a_bad_spec_fails_every_time() -> None:
    a = ResourceClaim.from_dict(_claim("a", _spec(), [RESULTS[0]]))
    b = ResourceClaim.from_dict(_claim("b", _spec(), [RESULTS[1]]))
    c = ResourceClaim.from_dict(_claim("c", _spec(cls="tpu"), [RESULTS[0]]))
    assert a.spec is b.spec and a.spec is not c.spec and c.spec.requests[0].exactly.device_class_name == "tpu"
    assert a.allocation.results[0] != b.allocation.results[0]  # results are each claim's own
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "t", "namespace": "ns"}}
    t = ResourceClaimTemplate.from_dict({**template, "spec": {"spec": _spec()}})
    assert t.spec == a.spec  # read at its own path ("spec.spec"): equal, not the claim's
    bad = _claim("d", {"devices": {"requests": [{"name": ""}]}}, [])
    for _ in range(2):
        with pytest.raises(ObjectError, match="required value"):
            ResourceClaim.from_dict(bad)
        with pytest.raises(ObjectError) as err:
            admission.validate_dra_object(_claim("e", _spec(request="Bad_Name"), []))
        assert err.value.field == "spec.devices.requests[0].name"


def _walked(raw: dict[str, Any]) -> list[tuple[str, str | None]]:
    kinds, types = known_fields._schema()
    out: list[tuple[str, str | None]] = []
    known_fields._walk(raw, types[kinds[raw["kind"]]["type"]], "", types, out)
    return out


def test_unknown_fields_of_leaf_types_in_lists_and_maps() -> None:
    """Attribute values (a map of a leaf type) and selector requirements (a list of one) are
    checked by a set comparison: a miscased key there is still found, with its path."""
    kinds, types = known_fields._schema()
    assert types[kinds["ResourceSlice"]["type"]].leaf is False
    raw = _slice([_plain(random.Random(1))])
    assert known_fields.unknown_fields(raw) == [] == _walked(raw)
    odd = copy.deepcopy(raw)
    odd["spec"]["devices"][0]["attributes"]["model"] = {"String": "A100"}
    assert known_fields.unknown_fields(odd) == _walked(odd) == [("spec.devices[0].attributes[model].String", "string")]
    claim = _claim("c", _spec(), [RESULTS[0]])
    claim["status"]["allocation"]["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "Operator": "In"}]}]}
    expected = [("status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].Operator", "operator")]
    assert known_fields.unknown_fields(claim) == _walked(claim) == expected


@pytest.mark.parametrize(
    "doc,flat",
    [
        ({"apiVersion": "v1", "kind": "List", "items": [_slice([]), _claim("c", _spec(), []), {"metadata": {"name": "x"}}, 5]}, True),
        (
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimList", "items": [{"metadata": {"name": "c", "namespace": "ns"}}]},
            True,
        ),
        ({"apiVersion": "v1", "kind": "List", "items": [{"kind": "List", "items": [_slice([])]}, _claim("c", _spec(), [])]}, False),
        ([_slice([]), _claim("c", _spec(), [])], False),
        (_slice([]), False),
        ({"apiVersion": "v1", "kind": "List", "items": {"a": 1}}, False),
    ],
)
def test_the_childs_flat_reading_of_a_list_is_the_loaders(doc: Any, flat: bool, tmp_path) -> None:
    """The child's objects (admission_ahead.py) are the loader's, one for one: the items of a
    List, their kind filled in from the List's; any other file is read as the loader reads it."""
    text = json.dumps(doc)
    path = str(tmp_path / "f.json")
    full = [raw for raw, _ in loader._file_objects(loader.ClusterSnapshot(), text, path)[0]]
    items = loader._flat_list_items(text, path)
    assert (items is not None) == flat
    assert loader._raw_objects(text, path) == full
    if items is not None:
        assert items == full
