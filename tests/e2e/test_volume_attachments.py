"""NodeVolumeLimits counts a node's VolumeAttachments as kube-scheduler 1.35 does
(pkg/scheduler/framework/plugins/nodevolumelimits/csi.go Filter and getNodeVolumeAttachmentInfo):
an attachment of a CSI PV on the node counts against its attacher's limit even when no pod on the
node uses the volume, once only when a pod does; attachments without an attacher or PV name, of a
missing or non-CSI PV, or on another node, do not count.

The base case is recorded from `kschedoracle -mode explain` (kube-scheduler 1.35.4) on
tests/e2e/fixtures/volume-attachments.yaml: n1 (CSINode limit 2 for ebs.csi.aws.com, vol-old
attached by va-old) is rejected by NodeVolumeLimits with "node(s) exceed max volume count" for a
pod bringing two new CSI volumes; n2 (no attachment) passes; the pod goes to n2.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

FIXTURE = Path(__file__).parent / "fixtures" / "volume-attachments.yaml"
EXCEED = "node(s) exceed max volume count"


def _variant(tmp_path: Path, change) -> str:
    doc = yaml.safe_load(FIXTURE.read_text())
    change(doc["items"])
    path = tmp_path / "snap.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return str(path)


def _va(items):
    return next(i for i in items if i["kind"] == "VolumeAttachment")


def _n1(run_cli, path: str):
    out = run_cli("explain", "default/p", path, "--kube-version", "1.35", "-o", "json")
    assert out.exit_code == 0, out.stderr
    return out.json()["nodes"]["n1"]["filter"], out.json()["node"]


def test_an_attachment_without_a_pod_counts_as_kube_1_35_counts_it(run_cli):
    """Recorded from kschedoracle -mode explain on the fixture (see the module docstring)."""
    n1, node = _n1(run_cli, str(FIXTURE))
    assert n1 == {"code": "Unschedulable", "plugin": "NodeVolumeLimits", "reasons": [EXCEED]}
    assert node == "n2"


def _remove_attacher(items):
    _va(items)["spec"]["attacher"] = ""


def _remove_pv_name(items):
    del _va(items)["spec"]["source"]["persistentVolumeName"]


def _other_node(items):
    _va(items)["spec"]["nodeName"] = "n2"


def _pv_missing(items):
    items[:] = [i for i in items if not (i["kind"] == "PersistentVolume" and i["metadata"]["name"] == "pv-old")]


def _not_csi(items):
    pv = next(i for i in items if i["kind"] == "PersistentVolume" and i["metadata"]["name"] == "pv-old")
    del pv["spec"]["csi"]
    pv["spec"]["hostPath"] = {"path": "/data"}


@pytest.mark.parametrize(
    "change",
    [_remove_attacher, _remove_pv_name, _other_node, _pv_missing, _not_csi],
    ids=["no-attacher", "no-pv-name", "other-node", "pv-missing", "pv-not-csi"],
)
def test_attachments_kube_skips_do_not_count(run_cli, tmp_path, change):
    n1, _ = _n1(run_cli, _variant(tmp_path, change))
    assert n1 == {"code": "Success"}


def test_an_attached_volume_a_pod_uses_counts_once(run_cli, tmp_path):
    """vol-old used by a pod on n1 and attached: one volume, plus the pod's two new ones = 3 > 2."""

    def change(items):
        items.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": "old", "namespace": "default", "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}},
                    "volumeName": "pv-old",
                    "storageClassName": "",
                },
                "status": {"phase": "Bound"},
            }
        )
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "user", "namespace": "default"},
                "spec": {
                    "nodeName": "n1",
                    "containers": [{"name": "c", "image": "x"}],
                    "volumes": [{"name": "old", "persistentVolumeClaim": {"claimName": "old"}}],
                },
            }
        )
        # a second limit slot: 1 (counted once) + 2 new = 3 <= 3 fits; counted twice it would not
        for i in items:
            if i["kind"] == "CSINode" and i["metadata"]["name"] == "n1":
                i["spec"]["drivers"][0]["allocatable"]["count"] = 3

    n1, _ = _n1(run_cli, _variant(tmp_path, change))
    assert n1 == {"code": "Success"}
