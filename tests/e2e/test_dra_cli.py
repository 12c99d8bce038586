"""DRA end to end through the CLI, on kubectl-shaped snapshots: where pods with ResourceClaims go
and why not, the claims written back with --write-snapshot, a preemption that frees a victim's
devices, a pod waiting in `simulate` for a ResourceSlice, explain's per-node device view, and
how snapshot input is read (versions, admission errors)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

GPU = "gpu.example.com"


def node(name: str, cpu: str = "8") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": "32Gi", "pods": "110"}},
    }


def gpu_slice(node_name: str, *models: str) -> dict:
    mem = {"a100": "40Gi", "h100": "80Gi"}
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-gpus"},
        "spec": {
            "driver": GPU,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {"name": f"gpu-{i}", "attributes": {"model": {"string": m}}, "capacity": {"memory": {"value": mem[m]}}}
                for i, m in enumerate(models)
            ],
        },
    }


CLASS = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "DeviceClass",
    "metadata": {"name": "gpu"},
    "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{GPU}"'}}]},
}


def template(name: str = "one-gpu", count: int = 1, selector: str | None = None) -> dict:
    exact: dict[str, Any] = {"deviceClassName": "gpu", "count": count}
    if selector:
        exact["selectors"] = [{"cel": {"expression": selector}}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": exact}]}}},
    }


def pod(
    name: str, template_name: str | None = "one-gpu", cpu: str = "1", node_name: str | None = None, priority: int | None = None
) -> dict:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}
    if template_name:
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": template_name}]
    if node_name:
        spec["nodeName"] = node_name
    if priority is not None:
        spec["priority"] = priority
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": f"{name}-uid"}, "spec": spec}


def test_pods_get_devices_and_kubes_reasons(run_cli, write_snapshot) -> None:
    path = write_snapshot(
        node("n1"),
        node("n2"),
        gpu_slice("n1", "a100", "a100"),
        gpu_slice("n2", "h100"),
        CLASS,
        template("big", selector=f'device.capacity["{GPU}"].memory.compareTo(quantity("64Gi")) >= 0'),
        pod("train-1", "big"),
        pod("train-2", "big"),
    )
    out = run_cli("schedule", path, "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert [(p["pod"], p["node"]) for p in data["placements"]] == [("default/train-1", "n2")]
    [u] = data["unschedulable"]
    assert u["message"] == (
        "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )
    assert "created 2 ResourceClaim(s) from ResourceClaimTemplates" in out.stderr


def test_write_snapshot_writes_the_allocated_claim(run_cli, write_snapshot, tmp_path: Path) -> None:
    path = write_snapshot(node("n1"), gpu_slice("n1", "a100", "h100"), CLASS, template(), pod("a"))
    target = tmp_path / "after.yaml"
    out = run_cli("schedule", path, "--write-snapshot", str(target), "--seed", "1")
    assert out.exit_code == 0, out.stderr
    items = yaml.safe_load(target.read_text())["items"]
    [claim] = [i for i in items if i["kind"] == "ResourceClaim"]
    assert claim["metadata"]["finalizers"] == ["resource.kubernetes.io/delete-protection"]
    assert claim["metadata"]["ownerReferences"][0]["uid"] == "a-uid"
    assert claim["status"]["allocation"]["devices"]["results"] == [{"request": "gpu", "driver": GPU, "pool": "n1", "device": "gpu-0"}]
    assert claim["status"]["allocation"]["nodeSelector"] == {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]
    }
    assert claim["status"]["reservedFor"] == [{"resource": "pods", "name": "a", "uid": "a-uid"}]
    [placed] = [i for i in items if i["kind"] == "Pod"]
    assert placed["status"]["resourceClaimStatuses"] == [{"name": "gpu", "resourceClaimName": claim["metadata"]["name"]}]
    # The output is a snapshot: a new pod sees gpu-0 taken and gets gpu-1.
    items.append(pod("b"))
    again = tmp_path / "again.yaml"
    again.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    target2 = tmp_path / "after2.yaml"
    assert run_cli("schedule", str(again), "--write-snapshot", str(target2)).exit_code == 0
    claims = {
        c["metadata"]["ownerReferences"][0]["name"]: c for c in yaml.safe_load(target2.read_text())["items"] if c["kind"] == "ResourceClaim"
    }
    assert claims["b"]["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-1"


def test_preemption_frees_the_victims_devices(run_cli, write_snapshot, tmp_path: Path) -> None:
    # "low" holds n1's only GPU and most of its cpu. "high" needs cpu only and preempts "low";
    # the resourceclaim controller then deallocates low's claim, which requeues "gpu-pod".
    allocated = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": "low-gpu",
            "namespace": "default",
            "uid": "low-gpu-uid",
            "finalizers": ["resource.kubernetes.io/delete-protection"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "low", "uid": "low-uid", "controller": True}],
        },
        "spec": template()["spec"]["spec"],
        "status": {
            "allocation": {"devices": {"results": [{"request": "gpu", "driver": GPU, "pool": "n1", "device": "gpu-0"}]}},
            "reservedFor": [{"resource": "pods", "name": "low", "uid": "low-uid"}],
        },
    }
    low = pod("low", cpu="3", node_name="n1", priority=0)
    low["status"] = {"phase": "Running", "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "low-gpu"}]}
    path = write_snapshot(
        node("n1", cpu="4"),
        gpu_slice("n1", "a100"),
        CLASS,
        template(),
        allocated,
        low,
        pod("gpu-pod", cpu="1", priority=0),
        pod("high", None, cpu="3", priority=1000),
    )
    target = tmp_path / "after.yaml"
    out = run_cli("schedule", path, "-o", "json", "--seed", "1", "--write-snapshot", str(target))
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["preemptions"][0]["victims"] == ["default/low"]
    assert sorted((p["pod"], p["node"]) for p in data["placements"]) == [("default/gpu-pod", "n1"), ("default/high", "n1")]
    claims = {c["metadata"]["name"]: c for c in yaml.safe_load(target.read_text())["items"] if c["kind"] == "ResourceClaim"}
    assert "low-gpu" not in claims  # generated for the deleted pod: deleted
    [gpu_claim] = claims.values()
    assert gpu_claim["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-0"


def test_simulate_pod_waits_for_a_resource_slice(run_cli, tmp_path: Path) -> None:
    scenario = {
        "apiVersion": "kschedctl.io/v1alpha1",
        "kind": "Scenario",
        "objects": [node("n1"), CLASS, template(), pod("p")],
        "events": [{"at": "45s", "action": "addResourceSlice", "object": gpu_slice("n1", "a100")}],
    }
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario))
    out = run_cli("simulate", str(path), "-o", "json")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    kinds = [(e["time"], e["event"]) for e in data["events"]]
    assert kinds == [(0, "FailedScheduling"), (45, "ResourceSliceAdded"), (45, "Scheduled")]
    assert data["events"][0]["message"].startswith("0/1 nodes are available: 1 cannot allocate all claims.")
    assert data["placements"][0]["node"] == "n1" and data["placements"][0]["time"] == 45


def test_simulate_add_and_delete_objects(run_cli, tmp_path: Path) -> None:
    # The class arrives late (DeviceClass/Add requeues the pod), then the pod's claim is deleted.
    scenario = {
        "apiVersion": "kschedctl.io/v1alpha1",
        "kind": "Scenario",
        "objects": [node("n1"), gpu_slice("n1", "a100"), template(), pod("p")],
        "events": [
            {"at": "10s", "action": "addObject", "object": CLASS},
            {"at": "20s", "action": "deleteObject", "kind": "DeviceClass", "name": "gpu"},
        ],
    }
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario))
    data = run_cli("simulate", str(path), "-o", "json").json()
    events = [(e["time"], e["event"]) for e in data["events"]]
    assert events[:3] == [(0, "FailedScheduling"), (10, "DeviceClassAdded"), (10, "Scheduled")]
    assert data["events"][0]["message"].startswith("0/1 nodes are available: request gpu: device class gpu does not exist.")


def test_explain_shows_devices_per_node(run_cli, write_snapshot) -> None:
    path = write_snapshot(
        node("n1"), node("n2"), gpu_slice("n1", "a100"), gpu_slice("n2", "h100", "h100"), CLASS, template("two", count=2), pod("p", "two")
    )
    out = run_cli("explain", "default/p", path, "-o", "json")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["node"] == "n2"
    n1 = data["nodes"]["n1"]
    assert n1["filter"] == {"code": "UnschedulableAndUnresolvable", "plugin": "DynamicResources", "reasons": ["cannot allocate all claims"]}
    [claim] = n1["dra"]["claims"]
    assert claim["requests"] == [{"request": "gpu", "deviceClass": "gpu", "count": 2, "devicesOnNode": 1, "candidates": 1}]
    assert n1["dra"]["why"].endswith("request gpu: 1 of the 2 devices it needs are available")
    assert [d["device"] for d in data["nodes"]["n2"]["dra"]["claims"][0]["devices"]] == ["gpu-0", "gpu-1"]
    table = run_cli("explain", "default/p", path).stdout
    assert "devices (DynamicResources):" in table and "gpu=gpu.example.com/n2/gpu-0" in table


def test_explain_devices_only_where_the_filters_ran(run_cli, write_snapshot) -> None:
    # explain's table is schedulePod with a recorder: the dra view is read from the state the
    # attempt's own Filter calls left, so a node PreFilter ruled out (NodeAffinity's
    # metadata.name field) shows its PreFilter status and no devices, as no filter ran there.
    p = pod("p", "two")
    p["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]
            }
        }
    }
    path = write_snapshot(
        node("n1"), node("n2"), gpu_slice("n1", "h100", "h100"), gpu_slice("n2", "h100", "h100"), CLASS, template("two", count=2), p
    )
    out = run_cli("explain", "default/p", path, "-o", "json")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["node"] == "n2"
    assert data["nodes"]["n1"]["filter"] == {
        "code": "UnschedulableAndUnresolvable",
        "reasons": ["node(s) didn't satisfy plugin(s) [NodeAffinity]"],
    }
    assert "dra" not in data["nodes"]["n1"]
    assert [d["device"] for d in data["nodes"]["n2"]["dra"]["claims"][0]["devices"]] == ["gpu-0", "gpu-1"]


def test_older_api_versions_are_read_as_served(run_cli, write_snapshot) -> None:
    # v1beta1: device fields under "basic", request fields on the request itself.
    beta_slice = copy.deepcopy(gpu_slice("n1", "a100"))
    beta_slice["apiVersion"] = "resource.k8s.io/v1beta1"
    beta_slice["spec"]["devices"] = [
        {"name": d["name"], "basic": {k: v for k, v in d.items() if k != "name"}} for d in beta_slice["spec"]["devices"]
    ]
    beta_template = template()
    beta_template["apiVersion"] = "resource.k8s.io/v1beta1"
    req = beta_template["spec"]["spec"]["devices"]["requests"][0]
    req.update(req.pop("exactly"))
    beta2_class = {**CLASS, "apiVersion": "resource.k8s.io/v1beta2"}
    path = write_snapshot(node("n1"), beta_slice, beta2_class, beta_template, pod("p"))
    out = run_cli("schedule", path, "-o", "json")
    assert out.exit_code == 0, out.stderr
    assert out.json()["placements"][0]["node"] == "n1"
    assert (
        "warning: read 1 ResourceSlice object(s) written in resource.k8s.io/v1beta1 as the API server serves "
        "them in resource.k8s.io/v1 (converted)"
    ) in out.stderr


def test_unreadable_api_version_is_refused(run_cli, write_snapshot) -> None:
    path = write_snapshot(node("n1"), {**CLASS, "apiVersion": "resource.k8s.io/v1alpha3"})
    out = run_cli("schedule", path)
    assert out.exit_code == 2
    assert 'DeviceClass gpu: apiVersion: Unsupported value: "resource.k8s.io/v1alpha3"' in out.stderr
    assert out.stderr.count("\n") == 1


def test_invalid_claim_is_an_input_error(run_cli, write_snapshot) -> None:
    bad = template()
    bad["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = 0
    path = write_snapshot(node("n1"), bad)
    out = run_cli("schedule", path)
    assert out.exit_code == 2
    assert (
        "ResourceClaimTemplate default/one-gpu: spec.spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than zero"
    ) in out.stderr


def test_claim_json_keys_are_stable(run_cli, write_snapshot, tmp_path: Path) -> None:
    # the same input and seed give byte-identical snapshots (generated names derive from pod uids)
    path = write_snapshot(node("n1"), gpu_slice("n1", "a100"), CLASS, template(), pod("a"))
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    run_cli("schedule", path, "--write-snapshot", str(a), "--seed", "3")
    run_cli("schedule", path, "--write-snapshot", str(b), "--seed", "3")
    assert a.read_text() == b.read_text()
    assert json.dumps(yaml.safe_load(a.read_text()))  # plain data, no YAML aliases
    assert "&id" not in a.read_text()


def _allocated_claim(name: str, device: str, holder: str) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default", "uid": f"{name}-uid"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
        "status": {
            "allocation": {
                "devices": {"results": [{"request": "gpu", "driver": GPU, "pool": "n1", "device": device}]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]},
            },
            "reservedFor": [{"resource": "pods", "name": holder, "uid": f"{holder}-uid"}],
        },
    }


def _holder(name: str, claim: str) -> dict:
    p = pod(name, None, node_name="n1")
    p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim}]
    return p


def test_explain_says_every_reason_a_device_cannot_serve_and_who_holds_the_taken_ones(run_cli, write_snapshot):
    """n1's a100 and h100 are both allocated; the pod asks for an h100. The a100 would not match
    even if it were free (its selector is the blocker, not its claim); the h100 is held by
    default/holds-h100. Before, both counted as "allocated" and the "most" reason hid the rest."""
    path = write_snapshot(
        node("n1"),
        gpu_slice("n1", "a100", "h100"),
        CLASS,
        _allocated_claim("holds-a100", "gpu-0", "a"),
        _allocated_claim("holds-h100", "gpu-1", "b"),
        _holder("a", "holds-a100"),
        _holder("b", "holds-h100"),
        template("h100", selector='device.attributes["gpu.example.com"].model == "h100"'),
        pod("p", "h100"),
    )
    out = run_cli("explain", "default/p", path, "-o", "json")
    assert out.exit_code == 0, out.stderr
    dra = out.json()["nodes"]["n1"]["dra"]
    [request] = dra["claims"][0]["requests"]
    assert request["excluded"] == {"allocated to another claim": 1, "request selector false": 1}
    assert request["heldBy"] == {f"{GPU}/n1/gpu-1": "default/holds-h100"}
    assert dra["why"].endswith(
        "request gpu: none of the 2 devices on the node can serve it: 1 allocated to another "
        f"claim ({GPU}/n1/gpu-1 by default/holds-h100), 1 request selector false"
    )
