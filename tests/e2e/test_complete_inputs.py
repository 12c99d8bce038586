"""Complete inputs: every object a pod refers to and the snapshot lacks is one warning on stderr per
kind, naming the objects (the first few and how many) and the kubectl command that captures the
kind; stdout stays the normal result. Through the CLI, on kubectl-shaped snapshots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubectl_shape as k
import pytest
import yaml

from kschedctl.cluster.loader import load_snapshot
from kschedctl.cluster.references import CAPTURE_COMMANDS, missing_references
from kschedctl.testing import make_node, make_pod
from kschedctl.versions import parse_version


def _write(tmp_path: Path, *objects: dict[str, Any], name: str = "snap.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(k.listed(*objects), sort_keys=False))
    return str(path)


def _nodes(n: int = 2) -> list[dict[str, Any]]:
    return [k.node(make_node(f"n{i}").capacity(cpu="4", memory="8Gi").zone("z1")) for i in range(1, n + 1)]


def _pvc(name: str, ns: str = "default", *, volume: str | None = None, sc: str | None = "gp3") -> dict[str, Any]:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}, "volumeMode": "Filesystem"}
    if sc is not None:
        spec["storageClassName"] = sc
    md: dict[str, Any] = {
        "name": name,
        "namespace": ns,
        "uid": f"uid-{ns}-{name}",
        "resourceVersion": "77",
        "creationTimestamp": k.STAMP,
        "finalizers": ["kubernetes.io/pvc-protection"],
    }
    status: dict[str, Any] = {"phase": "Pending"}
    if volume:
        spec["volumeName"] = volume
        md["annotations"] = {"pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes"}
        status = {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"}}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": md, "spec": spec, "status": status}


def _pv_csi(name: str, claim: str, ns: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "uid": f"uid-{name}"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "capacity": {"storage": "10Gi"},
            "claimRef": {"kind": "PersistentVolumeClaim", "name": claim, "namespace": ns},
            "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": f"vol-{name}"},
            "persistentVolumeReclaimPolicy": "Delete",
            "storageClassName": "gp3",
        },
        "status": {"phase": "Bound"},
    }


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: the snapshot has no ")]


def test_missing_pvcs_are_one_warning_naming_the_first_three_and_the_count(run_cli, tmp_path):
    pods = [k.pod(make_pod(f"db-{i}", "shop").req(cpu="100m").pvc(f"data-db-{i}")) for i in range(5)]
    path = _write(tmp_path, *_nodes(), *pods)
    out = run_cli("schedule", path, "-o", "json", "--seed", "1")
    assert out.exit_code == 0
    out.json()  # stdout is the normal, valid result
    [warning] = _warnings(out.stderr)
    assert warning == (
        "warning: the snapshot has no PersistentVolumeClaim shop/data-db-0, shop/data-db-1, shop/data-db-2 and 2 more "
        "(used by pods shop/db-0, shop/db-1, shop/db-2 and 2 more): a pod to schedule is unschedulable without its "
        "claims (persistentvolumeclaim ... not found); capture them with `kubectl get pvc -A -o yaml`"
    )


def test_every_kind_is_warned_once_with_its_capture_command(run_cli, tmp_path):
    """PVC, PV (a bound claim's volumeName), StorageClass (an unbound claim's class), PriorityClass,
    Namespace (a namespaceSelector is used), ResourceClaim, PodGroup and CSINode at once."""
    anti = {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {
                "labelSelector": {"matchLabels": {"app": "web"}},
                "topologyKey": "kubernetes.io/hostname",
                "namespaceSelector": {"matchLabels": {"team": "shop"}},
            }
        ]
    }
    pods = [
        k.pod(make_pod("a-0", "shop").req(cpu="100m").pvc("missing-claim")),
        k.pod(make_pod("b-0", "shop").req(cpu="100m").pvc("bound-claim")),
        k.pod(make_pod("c-0", "shop").req(cpu="100m").pvc("unbound-claim")),
        k.pod(make_pod("d-0", "shop").req(cpu="100m").priority_class("batch-low").priority(100)),
        k.pod(make_pod("e-0", "web").req(cpu="100m").label("app", "web").affinity({"podAntiAffinity": anti})),
        k.pod(make_pod("f-0", "ml").req(cpu="100m").set("spec.resourceClaims", [{"name": "gpu", "resourceClaimName": "gpu-claim"}])),
        k.pod(make_pod("g-0", "ml").req(cpu="100m").set("spec.schedulingGroup", {"podGroupName": "trainers"})),
        k.pod(make_pod("h-0", "shop").req(cpu="100m").pvc("csi-claim")),
    ]
    objects = [
        _pvc("bound-claim", "shop", volume="pv-gone"),
        _pvc("unbound-claim", "shop", sc="fast-ssd"),
        _pvc("csi-claim", "shop", volume="pv-csi"),
        _pv_csi("pv-csi", "csi-claim", "shop"),
    ]
    path = _write(tmp_path, *_nodes(), *pods, *objects)
    out = run_cli("schedule", path, "--seed", "1", "--feature-gates", "GenericWorkload=true,GangScheduling=true")
    assert out.exit_code == 0, out.stderr
    warnings = _warnings(out.stderr)
    kinds = [w.split("the snapshot has no ")[1].split(" ")[0] for w in warnings]
    assert kinds == [
        "PersistentVolumeClaim",
        "PersistentVolume",
        "StorageClass",
        "PriorityClass",
        "Namespace",
        "ResourceClaim",
        "PodGroup",
        "CSINode",
    ]
    by_kind = dict(zip(kinds, warnings))
    for kind, warning in by_kind.items():
        assert warning.endswith(f"with `{CAPTURE_COMMANDS[kind]}`")
    assert "PersistentVolumeClaim shop/missing-claim (used by pod shop/a-0)" in by_kind["PersistentVolumeClaim"]
    assert "PersistentVolume pv-gone (used by pod shop/b-0)" in by_kind["PersistentVolume"]
    assert "StorageClass fast-ssd (used by pod shop/c-0)" in by_kind["StorageClass"]
    assert "PriorityClass batch-low (used by pod shop/d-0)" in by_kind["PriorityClass"]
    assert "Namespace ml, shop, web (used by pod web/e-0)" in by_kind["Namespace"]
    assert "ResourceClaim ml/gpu-claim (used by pod ml/f-0)" in by_kind["ResourceClaim"]
    assert "PodGroup ml/trainers (used by pod ml/g-0)" in by_kind["PodGroup"]
    assert "CSINode n1, n2 (for nodes n1, n2)" in by_kind["CSINode"]


def test_workload_reference_in_135(run_cli, tmp_path):
    pod = k.pod(make_pod("w-0", "ml").req(cpu="100m").workload_ref("train", "workers"))
    path = _write(tmp_path, *_nodes(), pod)
    out = run_cli("schedule", path, "--kube-version", "1.35", "--feature-gates", "GenericWorkload=true,GangScheduling=true")
    [warning] = _warnings(out.stderr)
    assert warning.startswith("warning: the snapshot has no Workload ml/train (used by pod ml/w-0)")
    assert warning.endswith("`kubectl get workloads -A -o yaml`")
    plain = run_cli("schedule", path, "--kube-version", "1.35")  # gates off: kube does not read it
    assert _warnings(plain.stderr) == []


def test_complete_snapshot_has_no_warning(run_cli, tmp_path):
    pod = k.pod(make_pod("db-0", "shop").req(cpu="100m").pvc("csi-claim").priority_class("high").priority(1000))
    objects = [
        _pvc("csi-claim", "shop", volume="pv-csi"),
        _pv_csi("pv-csi", "csi-claim", "shop"),
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "gp3"},
            "provisioner": "ebs.csi.aws.com",
            "volumeBindingMode": "WaitForFirstConsumer",
        },
    ]
    csinodes = [
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": {"name": f"n{i}"},
            "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": f"i-{i}", "allocatable": {"count": 25}}]},
        }
        for i in (1, 2)
    ]
    path = _write(tmp_path, *_nodes(), pod, *objects, *csinodes)
    out = run_cli("schedule", path, "-o", "json", "--seed", "1")
    assert out.exit_code == 0
    assert _warnings(out.stderr) == []
    assert [p["pod"] for p in out.json()["placements"]] == ["shop/db-0"]


def test_explain_and_simulate_warn_too(run_cli, tmp_path):
    path = _write(tmp_path, *_nodes(), k.pod(make_pod("db-0", "shop").req(cpu="100m").pvc("data")))
    explained = run_cli("explain", "db-0", path, "-n", "shop")
    assert len(_warnings(explained.stderr)) == 1
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kschedctl.io/v1alpha1",
                "kind": "Scenario",
                "metadata": {"name": "s"},
                "snapshot": [Path(path).name],
                "events": [],
            }
        )
    )
    simulated = run_cli("simulate", str(scenario))
    assert simulated.exit_code == 0, simulated.stderr
    assert len(_warnings(simulated.stderr)) == 1


@pytest.mark.parametrize(
    "volume, expect_csinode",
    [
        ({"name": "cache", "emptyDir": {}}, False),
        ({"name": "vol", "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "h"}}, True),
        ({"name": "ebs", "awsElasticBlockStore": {"volumeID": "vol-1"}}, True),
        ({"name": "cfg", "configMap": {"name": "cfg"}}, False),
    ],
    ids=["emptyDir", "inline-csi", "migratable-in-tree", "configMap"],
)
def test_csinode_matters_only_for_attachable_volumes(tmp_path, volume, expect_csinode):
    path = _write(tmp_path, *_nodes(1), k.pod(make_pod("p-0").req(cpu="100m").volume(volume)))
    found = missing_references(load_snapshot([path]), parse_version("1.37"))
    assert [m.kind for m in found] == (["CSINode"] if expect_csinode else [])


def test_ephemeral_claim_not_yet_created_is_no_gap(tmp_path):
    """A generic ephemeral volume's claim is created by a controller after the pod: its absence
    is the cluster's state (VolumeBinding waits), not a gap of the snapshot."""
    vol = {
        "name": "scratch",
        "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}},
    }
    path = _write(tmp_path, *_nodes(1), k.pod(make_pod("p-0").req(cpu="100m").volume(vol)))
    assert missing_references(load_snapshot([path]), parse_version("1.37")) == []


def test_to_dict_is_plain_data(tmp_path):
    path = _write(tmp_path, *_nodes(1), k.pod(make_pod("p-0", "shop").req(cpu="100m").pvc("data")))
    [missing] = missing_references(load_snapshot([path]), parse_version("1.37"))
    assert missing.to_dict() == {
        "kind": "PersistentVolumeClaim",
        "names": ["shop/data"],
        "referrers": ["shop/p-0"],
        "command": "kubectl get pvc -A -o yaml",
    }
