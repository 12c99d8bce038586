"""Copies as their controllers make them (kschedctl/whatif/templates.py): labels, owner
references, names; the owner objects PodTopologySpread's default constraints read."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kschedctl.api.errors import InputError
from kschedctl.cluster.loader import ClusterSnapshot, load_snapshot
from kschedctl.plugins.pod_topology_spread.common import default_selector
from kschedctl.testing import make_node, make_pod
from kschedctl.whatif.templates import hypothetical_nodes, load_pod_template, parse_add_nodes

TEMPLATE = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]},
}


def _template(tmp_path: Path, kind: str, spec_extra: dict | None = None):
    obj = {
        "apiVersion": "batch/v1" if kind in ("Job", "CronJob") else "apps/v1",
        "kind": kind,
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": TEMPLATE, **(spec_extra or {})},
    }
    if kind == "CronJob":
        obj["spec"] = {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": TEMPLATE}}}
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(obj))
    cluster = ClusterSnapshot()
    template = load_pod_template(str(path), cluster)
    template.install(cluster)
    return template, cluster


def test_deployment_copies_belong_to_a_replica_set_with_the_pod_template_hash(tmp_path: Path) -> None:
    template, cluster = _template(tmp_path, "Deployment")
    first, second = template.copy(1), template.copy(2)
    assert first.namespace == "shop" and first.name != second.name and first.uid != second.uid
    pod_hash = first.labels["pod-template-hash"]
    assert first.labels == {"app": "web", "pod-template-hash": pod_hash}
    [owner] = first.meta.owner_references
    assert (owner["kind"], owner["name"], owner["controller"]) == ("ReplicaSet", f"web-{pod_hash}", True)
    [rs] = cluster.objects.replica_sets
    assert rs.name == f"web-{pod_hash}"
    # PodTopologySpread's default constraints select the copies through that ReplicaSet
    selector = default_selector(first, cluster.objects)
    assert selector.matches(second.labels) and not selector.matches({"app": "web"})
    assert first.node_name == "" and first.scheduler_name == "default-scheduler"


def test_statefulset_copies_are_numbered_from_0_with_identity_labels(tmp_path: Path) -> None:
    template, cluster = _template(tmp_path, "StatefulSet")
    pod = template.copy(1)
    assert pod.name == "web-0"
    assert pod.labels["statefulset.kubernetes.io/pod-name"] == "web-0"
    assert pod.labels["apps.kubernetes.io/pod-index"] == "0"
    assert template.copy(3).labels["statefulset.kubernetes.io/pod-name"] == "web-2"
    assert [s.name for s in cluster.objects.stateful_sets] == ["web"]


@pytest.mark.parametrize("kind", ["Job", "CronJob"])
def test_job_copies_carry_the_job_name_label(tmp_path: Path, kind: str) -> None:
    template, _ = _template(tmp_path, kind)
    pod = template.copy(1)
    assert pod.labels["batch.kubernetes.io/job-name"] == "web" and pod.labels["job-name"] == "web"
    assert pod.meta.owner_references[0]["kind"] == "Job"


def test_a_snapshot_pod_as_template(tmp_path: Path) -> None:
    path = tmp_path / "snap.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "kind": "List",
                "apiVersion": "v1",
                "items": [make_node("n1").dict(), make_pod("web").req(cpu="1").node("n1").priority(7).dict()],
            }
        )
    )
    cluster = load_snapshot([str(path)])
    pod = load_pod_template("default/web", cluster).copy(1)
    assert (pod.node_name, pod.priority, pod.name) == ("", 7, "web-1")
    with pytest.raises(InputError, match="no pod default/nope"):
        load_pod_template("default/nope", cluster)


def test_add_nodes_names_and_hostname_labels(tmp_path: Path) -> None:
    path = tmp_path / "node.yaml"
    path.write_text(yaml.safe_dump(make_node("big").capacity(cpu="8").dict()))
    assert parse_add_nodes(f"{path}:3") == (str(path), 3)
    assert parse_add_nodes(str(path)) == (str(path), 1)
    nodes = hypothetical_nodes([f"{path}:2"], {"n1"})
    assert [n.name for n in nodes] == ["big-1", "big-2"]
    assert [n.labels["kubernetes.io/hostname"] for n in nodes] == ["big-1", "big-2"]
    with pytest.raises(InputError, match="already in the snapshot"):
        hypothetical_nodes([str(path)], {"big"})
