"""VolumeZone: upstream volumezone/volume_zone_test.go (TestSingleZone, TestMultiZone, TestWithBinding)."""

from __future__ import annotations

import pytest
from volume_fixtures import volume_framework

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code
from kschedctl.plugins.volume_zone.plugin import ERR_REASON_CONFLICT
from kschedctl.testing import (
    cluster_objects,
    make_node,
    make_pod,
    make_pv,
    make_pvc,
    make_storage_class,
)

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"

OBJECTS = [
    make_pv("Vol_1").label(BETA_ZONE, "us-west1-a"),
    make_pv("Vol_2").label(BETA_REGION, "us-west1-b").label("uselessLabel", "none"),
    make_pv("Vol_3").label(BETA_REGION, "us-west1-c"),
    make_pv("Vol_Multi").label(BETA_ZONE, "us-west1-a__us-west1-b"),
    make_pv("Vol_Stable_1").label(ZONE, "us-west1-a"),
    make_pv("Vol_Stable_Multi").label(ZONE, "us-west1-a__us-west1-b"),
    make_pv("Vol_Bad_Label").label(ZONE, "us-west1-a__"),
    make_pvc("PVC_1").bound_to("Vol_1"),
    make_pvc("PVC_2").bound_to("Vol_2"),
    make_pvc("PVC_3").bound_to("Vol_3"),
    make_pvc("PVC_4").bound_to("Vol_not_exist"),
    make_pvc("PVC_Multi").bound_to("Vol_Multi"),
    make_pvc("PVC_Stable_1").bound_to("Vol_Stable_1"),
    make_pvc("PVC_Stable_Multi").bound_to("Vol_Stable_Multi"),
    make_pvc("PVC_Bad_Label").bound_to("Vol_Bad_Label"),
    make_pvc("PVC_EmptySC"),
    make_pvc("PVC_NoSC").storage_class("Class_0"),
    make_pvc("PVC_ImmediateSC").storage_class("Class_Immediate"),
    make_pvc("PVC_WaitSC").storage_class("Class_Wait"),
    make_storage_class("Class_Immediate", binding_mode="Immediate"),
    make_storage_class("Class_Wait", binding_mode="WaitForFirstConsumer"),
]


def run(pod, node_labels):
    node = make_node("host1").labels(node_labels).obj()
    fwk = volume_framework(nodes=[node], objects=cluster_objects(*OBJECTS))
    pl = fwk.instances["VolumeZone"]
    state = CycleState()
    _, pre = pl.pre_filter(state, pod, fwk.snapshot.list())
    if pre is not None:
        return pre, None
    return None, pl.filter(state, pod, fwk.snapshot.get("host1"))


def pvc_pod(*claims):
    b = make_pod("pod_1")
    for c in claims:
        b.pvc(c)
    return b.obj()


@pytest.mark.parametrize(
    "claims, node_labels, want",
    [
        # upstream: TestSingleZone
        pytest.param((), {BETA_ZONE: "us-west1-a"}, "skip", id="pod-without-volume"),
        pytest.param(("PVC_1",), {}, None, id="node-without-labels"),
        pytest.param(("PVC_1",), {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, None, id="beta-zone-label-matched"),
        pytest.param(("PVC_2",), {BETA_REGION: "us-west1-b", "uselessLabel": "none"}, None, id="beta-region-label-matched"),
        pytest.param(("PVC_1",), {BETA_ZONE: "no_us-west1-a"}, ERR_REASON_CONFLICT, id="beta-zone-label-mismatched"),
        pytest.param(("PVC_2",), {BETA_REGION: "no_us-west1-b"}, ERR_REASON_CONFLICT, id="beta-region-label-mismatched"),
        pytest.param(("PVC_Stable_1",), {ZONE: "us-west1-a"}, None, id="zone-label-matched"),
        pytest.param(("PVC_Stable_1",), {ZONE: "no_us-west1-a"}, ERR_REASON_CONFLICT, id="zone-label-mismatched"),
        pytest.param(("PVC_1",), {ZONE: "us-west1-a"}, None, id="beta-pv-label-matched-by-ga-node-label"),
        pytest.param(("PVC_1",), {REGION: "us-west1"}, ERR_REASON_CONFLICT, id="node-has-other-topology-key"),
        # upstream: TestMultiZone
        pytest.param(("PVC_Multi",), {BETA_ZONE: "us-west1-b"}, None, id="multi-zone-label-matched"),
        pytest.param(("PVC_Stable_Multi",), {ZONE: "us-west1-c"}, ERR_REASON_CONFLICT, id="multi-zone-label-mismatched"),
        pytest.param(("PVC_1", "PVC_3"), {BETA_ZONE: "us-west1-a", BETA_REGION: "us-west1-c"}, None, id="two-pvs-both-match"),
        pytest.param(("PVC_1", "PVC_3"), {BETA_ZONE: "us-west1-a", BETA_REGION: "other"}, ERR_REASON_CONFLICT, id="two-pvs-one-mismatch"),
        # an unparsable label value is ignored (upstream logs and continues): nothing to check
        pytest.param(("PVC_Bad_Label",), {ZONE: "elsewhere"}, "skip", id="bad-zone-label-ignored"),
    ],
)
def test_zone_filter(claims, node_labels, want):
    pre, status = run(pvc_pod(*claims), node_labels)
    if want == "skip":
        assert pre.code == Code.Skip
    elif want is None:
        assert pre is None and status is None
    else:
        assert pre is None
        assert status.code == Code.UnschedulableAndUnresolvable
        assert status.reasons == [want]


@pytest.mark.parametrize(
    "claim, want",
    [
        # upstream: TestWithBinding
        pytest.param(
            "PVC_EmptySC",
            (Code.UnschedulableAndUnresolvable, "PersistentVolumeClaim had no pv name and storageClass name"),
            id="unbound-volume-empty-storage-class",
        ),
        pytest.param(
            "PVC_NoSC",
            (Code.UnschedulableAndUnresolvable, 'storageclasses.storage.k8s.io "Class_0" not found'),
            id="unbound-volume-no-storage-class",
        ),
        pytest.param(
            "PVC_ImmediateSC",
            (Code.UnschedulableAndUnresolvable, "PersistentVolume had no name"),
            id="unbound-volume-immediate-binding-mode",
        ),
        pytest.param("PVC_WaitSC", (Code.Skip, None), id="unbound-volume-wait-binding-mode"),
        pytest.param(
            "PVC_NotFound", (Code.UnschedulableAndUnresolvable, 'persistentvolumeclaim "PVC_NotFound" not found'), id="pvc-not-found"
        ),
        pytest.param("PVC_4", (Code.UnschedulableAndUnresolvable, 'persistentvolume "Vol_not_exist" not found'), id="pv-not-found"),
    ],
)
def test_with_binding(claim, want):
    pre, _ = run(pvc_pod(claim), {BETA_ZONE: "us-west1-a"})
    assert pre.code == want[0]
    if want[1]:
        assert pre.reasons == [want[1]]


def test_filter_without_prefilter_state_recomputes():
    # upstream: Filter falls back to getPVbyPod when the state is missing
    node = make_node("host1").label(ZONE, "elsewhere").obj()
    fwk = volume_framework(nodes=[node], objects=cluster_objects(*OBJECTS))
    status = fwk.instances["VolumeZone"].filter(CycleState(), pvc_pod("PVC_Stable_1"), fwk.snapshot.get("host1"))
    assert status.code == Code.UnschedulableAndUnresolvable and status.reasons == [ERR_REASON_CONFLICT]
