"""End-to-end `kschedctl capacity`: counts checked by hand on small clusters (bound by
resources, by a spread constraint, by anti-affinity among the copies, by a host port), the
FitError of the first copy that does not fit, hypothetical nodes, and `--nodes-for` as
cluster-autoscaler's binpacking estimator on a case with a known answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.testing import make_node, make_pod

ANTI_AFFINITY_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}],
                "affinity": {
                    "podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [
                            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
                        ]
                    }
                },
            },
        },
    },
}


@pytest.fixture
def write_yaml(tmp_path: Path):
    def write(name: str, obj: Any) -> str:
        path = tmp_path / name
        path.write_text(yaml.safe_dump(obj.dict() if hasattr(obj, "dict") else obj, sort_keys=False))
        return str(path)

    return write


def _capacity(run_cli, *args: str) -> dict[str, Any]:
    out = run_cli("capacity", *args, "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    return out.json()


def test_resource_bound(run_cli, write_snapshot, write_yaml) -> None:
    """500m copies: n1 (2 cpu) takes 4, n2 (4 cpu) 8, n3 (1 cpu, 500m used) 1: 13."""
    snap = write_snapshot(
        make_node("n1").capacity(cpu="2", memory="8Gi"),
        make_node("n2").capacity(cpu="4", memory="8Gi"),
        make_node("n3").capacity(cpu="1", memory="8Gi"),
        make_pod("busy").req(cpu="500m").node("n3"),
    )
    data = _capacity(run_cli, snap, "--pod", write_yaml("pod.yaml", make_pod("web").req(cpu="500m")))
    assert data["count"] == 13
    assert data["perNode"] == {"n1": 4, "n2": 8, "n3": 1}
    assert data["stoppedBy"] == "fitError"
    assert data["stopMessage"].startswith("0/3 nodes are available: 3 Insufficient cpu.")
    assert "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod." in data["stopMessage"]


def test_spread_bound(run_cli, write_snapshot, write_yaml) -> None:
    """maxSkew 1 across three zones; z3's node holds two 500m copies, so z1 and z2 stop at 3."""
    snap = write_snapshot(
        make_node("a").capacity(cpu="8", memory="16Gi").zone("z1"),
        make_node("b").capacity(cpu="8", memory="16Gi").zone("z2"),
        make_node("c").capacity(cpu="1", memory="16Gi").zone("z3"),
    )
    pod = (
        make_pod("web")
        .req(cpu="500m")
        .label("app", "web")
        .spread(1, "topology.kubernetes.io/zone", selector={"matchLabels": {"app": "web"}})
    )
    data = _capacity(run_cli, snap, "--pod", write_yaml("pod.yaml", pod))
    assert data["count"] == 8
    assert data["perZone"] == {"z1": 3, "z2": 3, "z3": 2}
    assert data["stopMessage"].startswith(
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match pod topology spread constraints."
    )


def test_anti_affinity_bound(run_cli, write_snapshot, write_yaml) -> None:
    """A Deployment whose copies repel each other per hostname: one per untainted node."""
    snap = write_snapshot(
        *[make_node(f"n{i}").capacity(cpu="8", memory="16Gi") for i in (1, 2, 3)],
        make_node("n4").capacity(cpu="8", memory="16Gi").taint("dedicated", "db"),
    )
    data = _capacity(run_cli, snap, "--pod", write_yaml("deploy.yaml", ANTI_AFFINITY_DEPLOYMENT))
    assert data["pod"] == "Deployment default/web"
    assert data["count"] == 3 and data["perNode"] == {"n1": 1, "n2": 1, "n3": 1}
    assert data["stopMessage"].startswith(
        "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 node(s) didn't match pod anti-affinity rules."
    )


def test_port_bound(run_cli, write_snapshot, write_yaml) -> None:
    """hostPort 8080: one copy per node whose port is free (n4's is taken)."""
    snap = write_snapshot(
        *[make_node(f"n{i}").capacity(cpu="8", memory="16Gi") for i in (1, 2, 3, 4)],
        make_pod("other").req(cpu="100m").host_port(8080).node("n4"),
    )
    data = _capacity(run_cli, snap, "--pod", write_yaml("pod.yaml", make_pod("agent").req(cpu="100m").host_port(8080)))
    assert data["count"] == 3 and "n4" not in data["perNode"]
    assert data["stopMessage"].startswith("0/4 nodes are available: 4 node(s) didn't have free ports for the requested pod ports.")


def test_max_and_snapshot_pod_and_added_nodes(run_cli, write_snapshot, write_yaml) -> None:
    snap = write_snapshot(
        make_node("n1").capacity(cpu="2", memory="8Gi").zone("z1"), make_pod("web").req(cpu="500m")
    )  # a pending pod of the snapshot, as the template
    data = _capacity(run_cli, snap, "--pod", "default/web", "--max", "3")
    assert (data["count"], data["stoppedBy"], data["stopMessage"]) == (3, "max", None)
    assert data["notes"] == ["the snapshot's 1 pending pods were left out: they hold no resources until scheduled"]
    node = write_yaml("node.yaml", make_node("extra").capacity(cpu="1", memory="8Gi").zone("z9"))
    data = _capacity(run_cli, snap, "--pod", "default/web", "--add-nodes", f"{node}:2")
    assert data["addedNodes"] == ["extra-1", "extra-2"]
    assert data["count"] == 4 + 2 + 2 and data["perZone"] == {"z1": 4, "z9": 4}


def test_statefulset_copies_and_table(run_cli, write_snapshot, write_yaml) -> None:
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {
            "selector": {"matchLabels": {"app": "db"}},
            "template": {
                "metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "c", "image": "pg", "resources": {"requests": {"cpu": "1"}}}]},
            },
        },
    }
    snap = write_snapshot(make_node("n1").capacity(cpu="2", memory="8Gi"))
    out = run_cli("capacity", snap, "--pod", write_yaml("sts.yaml", sts))
    assert out.exit_code == 0, out.stderr
    assert out.stdout.startswith("2 copies of StatefulSet default/db fit\n")
    assert "the next copy does not fit: 0/1 nodes are available: 1 Insufficient cpu." in out.stdout


def test_bad_usage_is_exit_2(run_cli, write_snapshot, tmp_path) -> None:
    snap = write_snapshot(make_node("n1").capacity(cpu="2", memory="8Gi"))
    assert run_cli("capacity", snap).exit_code == 2
    missing = run_cli("capacity", snap, "--pod", "default/nope")
    assert missing.exit_code == 2 and "no pod default/nope" in missing.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: ConfigMap\nmetadata: {name: x}\n")
    out = run_cli("capacity", snap, "--pod", str(bad))
    assert out.exit_code == 2 and "no object of kind Pod" in out.stderr and "Traceback" not in out.stderr


def test_nodes_for_known_answer(run_cli, write_snapshot, write_yaml) -> None:
    """Existing n1 (2 cpu) takes two of the ten 1-cpu replicas; the other eight go four to a
    4-cpu template node: 2 nodes. The 8-cpu pod fits no node of that shape."""
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "rs-1", "controller": True}
    pods = [make_pod(f"web-{i}").req(cpu="1", memory="1Gi").set("metadata.ownerReferences", [owner]) for i in range(10)]
    snap = write_snapshot(make_node("n1").capacity(cpu="2", memory="16Gi"), *pods, make_pod("huge").req(cpu="8"))
    node = write_yaml("node.yaml", make_node("m5").capacity(cpu="4", memory="16Gi"))
    data = _capacity(run_cli, snap, "--nodes-for", node)
    assert data["nodesNeeded"] == 2
    assert (data["pods"], data["fitExisting"]) == (11, 2)
    assert [len(p) for p in data["newNodes"].values()] == [4, 4]
    assert list(data["newNodes"]) == ["m5-e-0", "m5-e-1"]
    assert data["cannotHelp"] == [{"pod": "default/huge", "message": "NodeResourcesFit: Insufficient cpu"}]
    assert "binpacking_estimator.go" in data["method"]


def test_nodes_for_copies_of_a_pod(run_cli, write_snapshot, write_yaml) -> None:
    """--pod with --max N: N copies; 10 x 1.5 cpu on 4-cpu nodes is two per node: 5 nodes."""
    snap = write_snapshot(make_node("full").capacity(cpu="1", memory="8Gi"))
    node = write_yaml("node.yaml", make_node("m5").capacity(cpu="4", memory="16Gi"))
    pod = write_yaml("pod.yaml", make_pod("job").req(cpu="1500m"))
    data = _capacity(run_cli, snap, "--nodes-for", node, "--pod", pod, "--max", "10")
    assert (data["nodesNeeded"], data["pods"], data["fitExisting"]) == (5, 10, 0)
    assert run_cli("capacity", snap, "--nodes-for", node, "--pod", pod).exit_code == 2  # N is needed


def test_nodes_for_says_when_no_node_of_the_shape_can_hold_the_pods(run_cli):
    """Three identical 64-cpu pods and a 4-cpu shape: the same reason for each (the Filter's
    message on an empty node of the shape), and a headline that says no such node helps instead
    of "0 nodes ... are needed"."""
    snap = str(Path(__file__).parent / "fixtures" / "inputs" / "too-big-for-shape.yaml")
    shape = str(Path(__file__).resolve().parents[2] / "examples" / "whatif-node-m5-xlarge.yaml")
    out = run_cli("capacity", snap, "--nodes-for", shape)
    assert out.exit_code == 0, out.stderr
    assert out.stdout.startswith(
        "no node like m5-xlarge can hold 3 of the 3 pods (0 fit on the existing nodes): adding nodes of this shape does not help them\n"
    )
    data = run_cli("capacity", snap, "--nodes-for", shape, "-o", "json").json()
    assert [c["message"] for c in data["cannotHelp"]] == ["NodeResourcesFit: Insufficient cpu"] * 3
    assert data["nodesNeeded"] == 0
