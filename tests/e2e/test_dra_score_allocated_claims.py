"""DynamicResources' Score with a pod holding an allocated claim and a claim to allocate.

From the source of v1.35.x pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go
(computeScore as kubernetes/kubernetes#134711 added it, in 1.35): it pairs the i-th claim of
the pod with the i-th allocation Filter made on the node, and Filter allocates only the claims
not yet allocated; so a pod with one allocated claim (here a shared device on an allNodes slice)
and one to allocate gets "number of allocations 1 is smaller than number of claims" on every
node with an allocation, and the cycle fails with that error (runtime/framework.go
RunScorePlugins wraps it; schedule_one.go handleSchedulingFailure puts the pod in backoff with
the error as its condition message). From the source of v1.36.2 (vendored in
openshift/kubernetes-autoscaler) and the 1.37 tree: computeScore reads an allocated claim's own
status.allocation, and the pod schedules. Established by reading the source; no kube-scheduler
binary was run for these cases.
"""

from __future__ import annotations

import pytest

ALL_RELEASES = ("1.35", "1.36", "1.37")
SCORE_ERROR = 'running Score plugins: plugin "DynamicResources" failed with: number of allocations 1 is smaller than number of claims'


def _node(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}},
    }


def _slice(name: str, driver: str, node_name: str | None) -> dict:
    spec: dict = {"driver": driver, "pool": {"name": name, "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "dev-0"}]}
    if node_name is None:
        spec["allNodes"] = True
    else:
        spec["nodeName"] = node_name
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def _class(name: str) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{name}'"}}]},
    }


def _claim(name: str, device_class: str, allocated: bool) -> dict:
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default", "uid": f"{name}-uid"},
        "spec": {"devices": {"requests": [{"name": name, "exactly": {"deviceClassName": device_class}}]}},
    }
    if allocated:
        claim["status"] = {
            "allocation": {"devices": {"results": [{"request": name, "driver": device_class, "pool": "shared", "device": "dev-0"}]}},
            "reservedFor": [{"resource": "pods", "name": "holder", "uid": "holder-uid"}],
        }
    return claim


def _pod(name: str, claims: list[str], node_name: str | None = None) -> dict:
    spec: dict = {
        "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": c} for c in claims]}}],
        "resourceClaims": [{"name": c, "resourceClaimName": c} for c in claims],
    }
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": f"{name}-uid"}, "spec": spec}


def _cluster(nodes: int) -> list[dict]:
    """``nodes`` nodes with a GPU each; a shared device on every node, allocated to 'holder'."""
    names = [f"n{i:02d}" for i in range(nodes)]
    return [
        _class("gpu.example.com"),
        _class("shared.example.com"),
        *map(_node, names),
        _slice("shared", "shared.example.com", None),
        *(_slice(f"{n}-gpu", "gpu.example.com", n) for n in names),
        _claim("shared", "shared.example.com", allocated=True),
        _claim("gpu", "gpu.example.com", allocated=False),
        _pod("holder", ["shared"], node_name=names[0]),
        _pod("web", ["shared", "gpu"]),
    ]


@pytest.mark.parametrize("release", ALL_RELEASES)
@pytest.mark.parametrize("nodes", [2, 30], ids=["per-node", "batch"])
def test_allocated_claim_next_to_one_to_allocate(run_cli, write_snapshot, release, nodes):
    path = write_snapshot(*_cluster(nodes))
    data = run_cli("schedule", path, "--kube-version", release, "-o", "json").json()
    if release == "1.35":
        assert data["placements"] == []
        [entry] = data["unschedulable"]
        assert (entry["pod"], entry["message"], entry["error"]) == ("default/web", SCORE_ERROR, True)
    else:
        assert [p["pod"] for p in data["placements"]] == ["default/web"]
        assert data["unschedulable"] == []


def test_explain_reports_the_score_error_in_1_35(run_cli, write_snapshot):
    path = write_snapshot(*_cluster(2))
    data = run_cli("explain", "default/web", path, "--kube-version", "1.35", "-o", "json").json()
    assert data["message"] == SCORE_ERROR
    assert data["node"] in (None, "")


def test_one_claim_to_allocate_alone_scores_in_1_35(run_cli, write_snapshot):
    # no allocated claim: the one allocation pairs with the one claim, no error
    cluster = [o for o in _cluster(2) if o["metadata"]["name"] not in ("web",)]
    path = write_snapshot(*cluster, _pod("web", ["gpu"]))
    data = run_cli("schedule", path, "--kube-version", "1.35", "-o", "json").json()
    assert [p["pod"] for p in data["placements"]] == ["default/web"]


@pytest.mark.parametrize("release", ["1.35", "1.36"])
def test_prioritized_list_off(run_cli, write_snapshot, release):
    # 1.35's Score checks only that DRA is on, so the error stays; 1.36's also returns 0 while
    # DRAPrioritizedList is off (dynamicresources.go of v1.36.2, Score's first line); 1.37 locks it.
    path = write_snapshot(*_cluster(2))
    data = run_cli("schedule", path, "--kube-version", release, "--feature-gates", "DRAPrioritizedList=false", "-o", "json").json()
    placed = [p["pod"] for p in data["placements"]]
    assert placed == ([] if release == "1.35" else ["default/web"])
