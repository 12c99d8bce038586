"""End-to-end: what a new node brings. Nodes added by `capacity --add-nodes`, `--nodes-for` and a
scenario's addNode first run the pods of the DaemonSets that select them, as the DaemonSet
controller places them (daemon_controller.go NodeShouldRunDaemonPod; its automatic tolerations,
util.AddOrUpdateDaemonPodTolerations) and as cluster-autoscaler puts them on a template node.

The fixture (fixtures/daemonsets/cluster.yaml, kubectl-shaped) has four DaemonSets:
kube-proxy (hostNetwork, tolerates everything, 100m/128Mi), fluentd (no selector, 400m/256Mi),
gpu-plugin (nodeSelector accelerator=nvidia, 500m), node-exporter (required node affinity
kubernetes.io/os In [linux], 100m); its one node is full and eight 1-cpu replicas are pending.
The template nodes have 4 cpu; the copies of web-pod.yaml ask 950m (and tolerate dedicated=batch).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

FIXTURES = Path(__file__).parent / "fixtures" / "daemonsets"
CLUSTER = str(FIXTURES / "cluster.yaml")
WEB = str(FIXTURES / "web-pod.yaml")
LINUX_DAEMONS = ["kube-system/fluentd", "kube-system/kube-proxy", "monitoring/node-exporter"]


def _node(name: str) -> str:
    return str(FIXTURES / f"node-{name}.yaml")


def _capacity(run_cli, *args: str) -> dict[str, Any]:
    out = run_cli("capacity", CLUSTER, *args, "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    return out.json()


def _daemon_sets(data: dict[str, Any], node: str) -> list[str]:
    return [p["daemonSet"] for p in data["daemonSetPods"][node]]


def test_added_node_gets_the_daemonsets_that_select_it(run_cli) -> None:
    """No nodeSelector (fluentd), required affinity that matches (node-exporter), a toleration of
    everything (kube-proxy): 600m taken first, so 3 copies of 950m fit in 4 cpu instead of 4.
    gpu-plugin's nodeSelector does not match the template."""
    data = _capacity(run_cli, "--pod", WEB, "--add-nodes", _node("general"))
    assert data["count"] == 3 and data["perNode"] == {"general": 3}
    assert _daemon_sets(data, "general") == LINUX_DAEMONS
    assert data["daemonSetPods"]["general"][0] == {
        "pod": "kube-system/fluentd-general",
        "daemonSet": "kube-system/fluentd",
        "requests": {"cpu": 400, "memory": 256 * 2**20},
    }


def test_node_selector_that_matches_the_template_adds_its_pod(run_cli) -> None:
    """The gpu template has accelerator=nvidia: gpu-plugin (500m) runs there too; 1100m taken."""
    data = _capacity(run_cli, "--pod", WEB, "--add-nodes", f"{_node('gpu')}:2")
    assert data["addedNodes"] == ["gpu-1", "gpu-2"]
    for node in ("gpu-1", "gpu-2"):
        assert _daemon_sets(data, node) == ["kube-system/fluentd", "kube-system/gpu-plugin", *LINUX_DAEMONS[1:]]
    assert data["count"] == 6 and data["perNode"] == {"gpu-1": 3, "gpu-2": 3}  # 2900m each: 3 copies


def test_taint_on_the_template_keeps_out_daemonsets_that_do_not_tolerate_it(run_cli) -> None:
    """dedicated=batch:NoSchedule: only kube-proxy (tolerates everything) runs; 3900m left: 4 copies."""
    data = _capacity(run_cli, "--pod", WEB, "--add-nodes", _node("dedicated"))
    assert _daemon_sets(data, "dedicated") == ["kube-system/kube-proxy"]
    assert data["daemonSetPods"]["dedicated"][0]["requests"] == {"cpu": 100, "memory": 128 * 2**20}
    assert data["count"] == 4


def test_the_daemonset_controllers_own_tolerations(run_cli) -> None:
    """Every DaemonSet pod tolerates memory-pressure and unschedulable (NoSchedule), whatever its
    template says; network-unavailable only a hostNetwork pod (kube-proxy) tolerates."""
    data = _capacity(run_cli, "--pod", WEB, "--add-nodes", _node("pressure"), "--add-nodes", _node("no-network"))
    assert _daemon_sets(data, "pressure") == LINUX_DAEMONS
    assert _daemon_sets(data, "no-network") == ["kube-system/kube-proxy"]
    assert data["count"] == 0  # the copies tolerate neither node's taints


def test_table_says_what_each_added_node_got(run_cli) -> None:
    out = run_cli(
        "capacity", CLUSTER, "--pod", WEB, "--add-nodes", f"{_node('general')}:2", "--add-nodes", _node("dedicated"), "--seed", "1"
    )
    assert out.exit_code == 0, out.stderr
    assert (
        "DaemonSet pods on the added nodes (counted against their allocatable):\n"
        "  general-1, general-2: 3 DaemonSet pod(s) (kube-system/fluentd, kube-system/kube-proxy, "
        "monitoring/node-exporter) requesting cpu 600m, memory 384Mi\n"
        "  dedicated: 1 DaemonSet pod(s) (kube-system/kube-proxy) requesting cpu 100m, memory 128Mi\n"
    ) in out.stdout


def test_nodes_for_counts_the_daemonset_pods_of_each_new_node(run_cli) -> None:
    """Eight 1-cpu replicas on 4-cpu nodes: 4 a node would be 2 nodes; with 600m of DaemonSet pods
    on each, 3 a node: 3 nodes."""
    data = _capacity(run_cli, "--nodes-for", _node("general"))
    assert data["nodesNeeded"] == 3
    assert [len(p) for p in data["newNodes"].values()] == [3, 3, 2]
    assert {n: _daemon_sets(data, n) for n in data["daemonSetPods"]} == {
        n: LINUX_DAEMONS for n in ("general-e-0", "general-e-1", "general-e-2")
    }
    table = run_cli("capacity", CLUSTER, "--nodes-for", _node("general"), "--seed", "1").stdout
    assert "general-e-0, general-e-1, general-e-2: 3 DaemonSet pod(s)" in table


def test_nodes_for_a_shape_whose_daemonsets_leave_no_room(run_cli, tmp_path) -> None:
    """A 1-cpu shape holds a 1-cpu replica when empty, not once 600m of DaemonSet pods run on it:
    no node of this shape helps, and the reason is the Filter's on that node."""
    shape = yaml.safe_load(Path(_node("general")).read_text())
    shape["status"]["allocatable"]["cpu"] = shape["status"]["capacity"]["cpu"] = "1"
    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump(shape))
    data = _capacity(run_cli, "--nodes-for", str(path))
    assert data["nodesNeeded"] == 0
    assert {c["message"] for c in data["cannotHelp"]} == {"NodeResourcesFit: Insufficient cpu"}


def test_snapshot_without_daemonsets_says_so(run_cli, tmp_path) -> None:
    """Pods owned by DaemonSets but no DaemonSet object: the added node is given none, and a note
    says the estimate is too generous and how to capture them."""
    doc = yaml.safe_load(Path(CLUSTER).read_text())
    doc["items"] = [o for o in doc["items"] if o["kind"] != "DaemonSet"]
    path = tmp_path / "no-ds.yaml"
    path.write_text(yaml.safe_dump(doc))
    out = run_cli("capacity", str(path), "--pod", WEB, "--add-nodes", _node("general"), "-o", "json")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["count"] == 4 and data["daemonSetPods"] == {"general": []}
    assert any("kubectl get daemonsets -A -o yaml" in n and "3 DaemonSet(s)" in n for n in data["notes"])


def test_simulate_add_node_creates_the_daemonset_pods(run_cli) -> None:
    """The DaemonSet controller creates kube-proxy, fluentd and node-exporter pods for the new
    node, pinned to it; the scheduler places them with the pending replicas: kube-proxy first
    (system-node-critical), then three replicas (the older pods of equal priority), then the
    other two; the fourth replica no longer fits."""
    out = run_cli("simulate", str(FIXTURES / "scenario-add-node.yaml"), "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    created = [(e["pod"], e["daemonSet"]) for e in data["events"] if e["event"] == "PodCreated"]
    assert created == [
        ("kube-system/fluentd-general-1", "kube-system/fluentd"),
        ("kube-system/kube-proxy-general-1", "kube-system/kube-proxy"),
        ("monitoring/node-exporter-general-1", "monitoring/node-exporter"),
    ]
    assert data["final"]["general-1"] == [f"default/web-6f7d9-{i}" for i in range(3)] + [
        "kube-system/fluentd-general-1",
        "kube-system/kube-proxy-general-1",
        "monitoring/node-exporter-general-1",
    ]
    scheduled = [e["pod"] for e in data["events"] if e["event"] == "Scheduled"]
    assert scheduled[0] == "kube-system/kube-proxy-general-1"


def test_bad_daemonset_is_one_error_line(run_cli, tmp_path) -> None:
    """A selector that does not match the template's labels, and a bad request in the template:
    exit 2, one line naming file, DaemonSet and field."""
    doc = yaml.safe_load(Path(CLUSTER).read_text())
    ds = next(o for o in doc["items"] if o["kind"] == "DaemonSet" and o["metadata"]["name"] == "fluentd")
    ds["spec"]["selector"] = {"matchLabels": {"app": "other"}}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(doc))
    out = run_cli("capacity", str(path), "--pod", WEB)
    assert out.exit_code == 2 and "Traceback" not in out.stderr
    [line] = out.stderr.strip().splitlines()
    assert line.startswith("error: ") and "bad.yaml" in line and "DaemonSet kube-system/fluentd" in line
    assert "spec.template.metadata.labels" in line and "`selector` does not match template `labels`" in line
    ds["spec"]["selector"] = {"matchLabels": {"app": "fluentd"}}
    ds["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots"
    path.write_text(yaml.safe_dump(doc))
    out = run_cli("capacity", str(path), "--pod", WEB)
    assert out.exit_code == 2 and "Traceback" not in out.stderr
    [line] = out.stderr.strip().splitlines()
    assert "DaemonSet kube-system/fluentd" in line and "spec.template.spec.containers[0].resources.requests" in line


def test_daemonset_whose_priority_class_is_missing_places_no_pod(run_cli, tmp_path) -> None:
    """The API server refuses a pod naming a PriorityClass that does not exist, so the DaemonSet
    controller's create fails: capacity leaves that DaemonSet's pod out and says why; simulate
    records the controller's FailedCreate instead of a PodCreated."""
    doc = yaml.safe_load(Path(CLUSTER).read_text())
    ds = next(o for o in doc["items"] if o["kind"] == "DaemonSet" and o["metadata"]["name"] == "fluentd")
    ds["spec"]["template"]["spec"]["priorityClassName"] = "daemons"
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump(doc))
    out = run_cli("capacity", str(tmp_path / "cluster.yaml"), "--pod", WEB, "--add-nodes", _node("general"), "-o", "json")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert _daemon_sets(data, "general") == ["kube-system/kube-proxy", "monitoring/node-exporter"]
    assert (
        "DaemonSet kube-system/fluentd: no PriorityClass with name daemons was found: the API server refuses "
        "its pods, so no added node runs one"
    ) in data["notes"]
    (tmp_path / "scenario.yaml").write_text((FIXTURES / "scenario-add-node.yaml").read_text())
    out = run_cli("simulate", str(tmp_path / "scenario.yaml"), "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    [failed] = [e for e in out.json()["events"] if e["event"] == "FailedCreate"]
    assert failed == {
        "time": 30,
        "event": "FailedCreate",
        "daemonSet": "kube-system/fluentd",
        "node": "general-1",
        "message": "no PriorityClass with name daemons was found",
    }


def test_daemonsets_bigger_than_the_node_are_said(run_cli, tmp_path) -> None:
    """The controller does not check room: on a 500m gpu node the DaemonSet pods (1100m) are all
    there, nothing else fits, and a note says which resource is over."""
    shape = yaml.safe_load(Path(_node("gpu")).read_text())
    shape["status"]["allocatable"]["cpu"] = shape["status"]["capacity"]["cpu"] = "500m"
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(shape))
    data = _capacity(run_cli, "--pod", WEB, "--add-nodes", str(path))
    assert len(data["daemonSetPods"]["gpu"]) == 4 and data["count"] == 0
    assert (
        "the DaemonSet pods of gpu ask for more than it has (cpu 1100m of 500m): the DaemonSet controller does "
        "not check room, so nothing else fits there"
    ) in data["notes"]
    data = _capacity(run_cli, "--nodes-for", str(path))
    assert data["nodesNeeded"] == 0 and any(n.startswith("the DaemonSet pods of a node like gpu ask for more") for n in data["notes"])


def test_required_affinity_on_the_node_name(run_cli, tmp_path) -> None:
    """A template pinned by a matchFields metadata.name term runs on that node only."""
    doc = yaml.safe_load(Path(CLUSTER).read_text())
    ds = next(o for o in doc["items"] if o["kind"] == "DaemonSet" and o["metadata"]["name"] == "fluentd")
    ds["spec"]["template"]["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["general-2"]}]}]
            }
        }
    }
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump(doc))
    out = run_cli("capacity", str(tmp_path / "cluster.yaml"), "--pod", WEB, "--add-nodes", f"{_node('general')}:2", "-o", "json")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert _daemon_sets(data, "general-1") == ["kube-system/kube-proxy", "monitoring/node-exporter"]
    assert _daemon_sets(data, "general-2") == LINUX_DAEMONS


def test_simulate_node_update_syncs_the_daemonsets_it_changes(run_cli, tmp_path) -> None:
    """The controller's updateNode: labelling the node accelerator=nvidia makes gpu-plugin select
    it (a pod is created); a NoSchedule taint keeps the pods there; a NoExecute one deletes the
    pods that do not tolerate it (all but kube-proxy)."""
    scenario = yaml.safe_load((FIXTURES / "scenario-add-node.yaml").read_text())
    scenario["snapshot"] = str(FIXTURES / "cluster.yaml")
    taint = {"key": "dedicated", "value": "batch"}
    scenario["events"] += [
        {"at": "60s", "action": "updateNode", "node": "general-1", "labels": {"accelerator": "nvidia"}},
        {"at": "90s", "action": "updateNode", "node": "general-1", "taints": [{**taint, "effect": "NoSchedule"}]},
        {"at": "120s", "action": "updateNode", "node": "general-1", "taints": [{**taint, "effect": "NoExecute"}]},
    ]
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario))
    out = run_cli("simulate", str(path), "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    events = out.json()["events"]

    def at(t: int, kind: str) -> list[tuple[str, str]]:
        return [(e["pod"], e["daemonSet"]) for e in events if e["time"] == t and e["event"] == kind and "daemonSet" in e]

    assert at(60, "PodCreated") == [("kube-system/gpu-plugin-general-1", "kube-system/gpu-plugin")]
    assert at(90, "PodCreated") == [] and at(90, "PodDeleted") == []
    assert at(120, "PodDeleted") == [
        ("kube-system/fluentd-general-1", "kube-system/fluentd"),
        ("kube-system/gpu-plugin-general-1", "kube-system/gpu-plugin"),
        ("monitoring/node-exporter-general-1", "monitoring/node-exporter"),
    ]
    assert "kube-system/kube-proxy-general-1" in out.json()["final"]["general-1"]
