"""tools/difftest's generators make the shapes their categories promise (no oracle needed)."""

from __future__ import annotations

import pytest

from tools.difftest.generate import GENERATORS, generate

SEEDS = range(1, 25)


def _kinds(case) -> set[str]:
    return {x["kind"] for x in case.objects}


def _pods(case, pending: bool | None = None) -> list[dict]:
    out = [x for x in case.objects if x["kind"] == "Pod"]
    if pending is None:
        return out
    return [p for p in out if bool(p["spec"].get("nodeName")) != pending]


def test_new_categories_are_registered():
    assert {"owners", "images", "sampling-large"} <= set(GENERATORS)


def test_owners_select_pods_through_services_and_controllers():
    cases = [generate("owners", s) for s in SEEDS]
    kinds = set().union(*(_kinds(c) for c in cases))
    assert {"Service", "ReplicaSet", "StatefulSet", "ReplicationController"} <= kinds
    owned = [p for c in cases for p in _pods(c) if p["metadata"].get("ownerReferences")]
    assert owned and all(r["controller"] for p in owned for r in p["metadata"]["ownerReferences"])
    # most pending pods carry no constraints of their own, so the profile's defaults apply
    pending = [p for c in cases for p in _pods(c, pending=True)]
    plain = [p for p in pending if "topologySpreadConstraints" not in p["spec"]]
    assert len(plain) > len(pending) // 2
    defaulting = {
        (e["args"].get("defaultingType"), bool(e["args"].get("defaultConstraints")))
        for c in cases
        for prof in c.config.get("profiles") or []
        for e in prof.get("pluginConfig") or []
        if e["name"] == "PodTopologySpread"
    }
    assert ("List", True) in defaulting and ("List", False) in defaulting
    assert any(not c.config.get("profiles") for c in cases)  # the system defaults


def test_images_are_named_by_tag_digest_short_name_and_no_tag():
    images = [
        ctr["image"]
        for s in SEEDS
        for p in _pods(generate("images", s))
        for ctr in p["spec"]["containers"] + p["spec"].get("initContainers", [])
    ]
    assert any("@sha256:" in i for i in images)
    assert any(i.startswith(("nginx", "redis")) for i in images)  # Docker Hub short names
    assert any(":" not in i.rsplit("/", 1)[-1] and "@" not in i for i in images)  # no tag: :latest
    assert any(i.startswith("registry.example.com:5000/") for i in images)
    case = generate("images", 1)
    assert any(nd["status"].get("images") for nd in case.objects if nd["kind"] == "Node")


@pytest.mark.parametrize("seed", [1, 2])
def test_sampling_large_has_2000_nodes_and_adaptive_sampling(seed):
    case = generate("sampling-large", seed)
    assert sum(1 for x in case.objects if x["kind"] == "Node") >= 2000
    assert case.config.get("percentageOfNodesToScore") in (None, 0)
    assert case.modes == ("sample",) and case.config["parallelism"] == 1


def test_resources_and_preemption_extras_add_hugepages_and_plugin_args():
    res = [generate("resources", s) for s in range(1, 21)]
    requests = [
        r for c in res for p in _pods(c) for ctr in p["spec"]["containers"] for r in (ctr.get("resources") or {}).get("requests", {})
    ]
    assert any(r.startswith("hugepages-") for r in requests)
    fit_args = [
        e["args"]
        for c in res
        for prof in c.config.get("profiles") or []
        for e in prof.get("pluginConfig") or []
        if e["name"] == "NodeResourcesFit"
    ]
    assert any("ignoredResources" in a or "ignoredResourceGroups" in a for a in fit_args)
    pre = [generate("preemption", s) for s in range(1, 21)]
    assert any(
        e["name"] == "DefaultPreemption" for c in pre for prof in c.config.get("profiles") or [] for e in prof.get("pluginConfig") or []
    )


def test_extras_leave_the_earlier_draws_alone():
    # the extras draw from generators of their own: the pods and nodes of a seed keep their names
    # and (apart from the added hugepages) their requests
    case = generate("resources", 5)
    names = [x["metadata"]["name"] for x in case.objects]
    assert names == [x["metadata"]["name"] for x in generate("resources", 5).objects]
    assert names[0].startswith("n")


def test_gangs_get_priorities_and_fillers_in_some_clusters_at_both_releases():
    for release in ("1.35", "1.36"):
        cases = [generate("gangs", s, release) for s in range(1, 21)]
        with_classes = [c for c in cases if "PriorityClass" in _kinds(c)]
        assert with_classes and len(with_classes) < len(cases)
        for c in with_classes:
            assert any(p["spec"].get("priority") == 1000 for p in _pods(c, pending=True))
            assert any(p["metadata"]["name"].startswith("fill") for p in _pods(c, pending=False))
